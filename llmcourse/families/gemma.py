"""Gemma 1 to 4.

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a
family"). Standard library only.
"""

from .. import family_rules as rules
from ..architectures import Layout
from .base import _COMMON, Family

ENTRIES = {
    # Gemma: Llama's layout, a GeGLU MLP under the same names, the head tied
    "gemma": Family(
        group="Gemma",
        layout=Layout(norm="rms_one_plus_w"),
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=256000, hidden_size=3072, intermediate_size=24576,
                      num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=16,
                      head_dim=256, max_position_embeddings=8192, tie_word_embeddings=True,
                      pad_token_id=0)),
    # Gemma-2: norms before and after both attention and MLP; sliding and full layers in turn
    "gemma2": Family(
        group="Gemma",
        layout=Layout(layer_norms=("input_layernorm", "post_attention_layernorm",
                                   "pre_feedforward_layernorm", "post_feedforward_layernorm"),
                      norm="rms_one_plus_w", final_softcap=True, attention_softcap_eager=True),
        layers=rules.alternating,
        divisible_heads=True,
        defaults=dict(_COMMON, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True,
                      sliding_window=4096)),
    # Gemma-3: Gemma-2's four norms and QK-norm; 5 sliding layers to 1 full
    "gemma3_text": Family(
        group="Gemma",
        layout=Layout(qk_norm="shared",
                      layer_norms=("input_layernorm", "post_attention_layernorm",
                                   "pre_feedforward_layernorm", "post_feedforward_layernorm"),
                      norm="rms_one_plus_w", final_softcap=True, sdpa_sliding_mask=True,
                      rope_per_attention_kind=True),
        layers=rules.gemma3_layers,
        divisible_heads=True,
        positive=("sliding_window_pattern",),
        check=(rules.gemma3_bidirectional,),
        defaults=dict(_COMMON, vocab_size=262208, hidden_size=2304, intermediate_size=9216,
                      num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4,
                      head_dim=256, max_position_embeddings=131072, tie_word_embeddings=True,
                      sliding_window=4096, sliding_window_pattern=6,
                      use_bidirectional_attention=False, pad_token_id=0)),
    # Gemma 4 (text model): sliding and full layers of different widths, KV shared across
    # the last layers, K = V on full layers (26B, 31B), per-layer embeddings (E2B, E4B),
    # and in the 26B-A4B a dense MLP beside 128 routed experts in every layer
    "gemma4_text": Family(
        group="Gemma",
        layout=Layout(block="per_kind_heads_kv_shared", extra_globals="per_layer_embeddings"),
        moe="num_experts",
        moe_when=rules.gemma4_has_experts,
        layers=rules.gemma4_layers,
        attribute_map=dict(num_experts_per_tok="top_k_experts"),
        positive=("vocab_size_per_layer_input",),
        non_negative=("num_kv_shared_layers", "hidden_size_per_layer_input"),
        enums=dict(use_bidirectional_attention=("all", "vision", None)),
        never_null=("sliding_window",),
        check=(rules.gemma4_rules,),
        mha_baseline=rules.gemma4_mha,
        defaults=dict(_COMMON, vocab_size=262144, hidden_size=2304, intermediate_size=9216,
                      num_hidden_layers=30, num_attention_heads=8, num_key_value_heads=4,
                      head_dim=256, max_position_embeddings=131072, tie_word_embeddings=True,
                      sliding_window=512, pad_token_id=0, vocab_size_per_layer_input=262144,
                      hidden_size_per_layer_input=256, attention_k_eq_v=False,
                      num_kv_shared_layers=0, enable_moe_block=False, use_double_wide_mlp=False,
                      num_experts=None, top_k_experts=None, moe_intermediate_size=None,
                      global_head_dim=512, num_global_key_value_heads=None,
                      per_layer_config=None)),
}
