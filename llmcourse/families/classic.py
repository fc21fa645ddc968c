"""GPT-style decoders: learned or rotary positions, LayerNorm, fused or plain blocks (GPT-2,
GPT-NeoX, StarCoder2, Phi).

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a
family"). Standard library only.
"""

from .. import family_rules as rules
from ..architectures import Layout
from .base import _COMMON, Family

ENTRIES = {
    # GPT-2: one fused c_attn (Conv1D weights stored in, out), a plain 4 x d GELU MLP,
    # LayerNorms with biases, learned positions (wpe, a weight); its own names for the
    # standard fields (transformers' attribute_map)
    "gpt2": Family(
        group="GPT-2",
        layout=Layout(attention="fused_qkv", attention_prefix="attn.",
                      attention_names=("c_attn", "c_proj"), qkv_bias=True, o_bias=True,
                      stored_in_out=True, mlp="plain", mlp_names=("c_fc", "c_proj"),
                      mlp_bias=True, norm="layer", layer_norms=("ln_1", "ln_2"),
                      layer_prefix="h.{i}.", embedding="wte", position_embedding="wpe",
                      final_norm="ln_f", activation_field=("activation_function",)),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="n_embd", num_hidden_layers="n_layer",
                           num_attention_heads="n_head", max_position_embeddings="n_positions",
                           intermediate_size="n_inner"),
        positive=("n_embd", "n_layer", "n_head", "n_positions", "n_inner"),
        engine_only=dict(num_key_value_heads="transformers' GPT-2 has no KV heads: one fused "
                         "c_attn projects q, k and v, 3 × hidden wide",
                         head_dim="GPT-2's head_dim is always hidden / heads"),
        prepare=(rules.gpt2_prepare,),
        check=(rules.no_cross_attention, rules.one_kv_per_head),
        defaults=dict(num_key_value_heads=None, head_dim=None, vocab_size=50257,
                      n_positions=1024, n_embd=768, n_layer=12, n_head=12, n_inner=None,
                      tie_word_embeddings=True, add_cross_attention=False, layer_types=None,
                      sliding_window=None)),
    # GPT-NeoX (Pythia): q, k and v fused (heads interleaved), biases by attention_bias, a
    # plain GELU MLP, LayerNorms with biases; the head is called embed_out
    "gpt_neox": Family(
        group="Pythia",
        layout=Layout(attention="fused_qkv", attention_prefix="attention.",
                      attention_names=("query_key_value", "dense"),
                      qkv_bias=("attention_bias", True), o_bias=("attention_bias", True),
                      mlp="plain", mlp_names=("dense_h_to_4h", "dense_4h_to_h"), mlp_bias=True,
                      norm="layer", layer_prefix="gpt_neox.layers.{i}.",
                      embedding="gpt_neox.embed_in", final_norm="gpt_neox.final_layer_norm",
                      lm_head="embed_out"),
        layers=rules.full_attention_layers,
        check=(rules.one_kv_per_head,),
        engine_only=dict(num_key_value_heads="transformers' GPT-NeoX (Pythia) has no KV heads: "
                         "one fused query_key_value projects q, k and v, 3 × hidden wide",
                         head_dim="GPT-NeoX's head_dim is always hidden / heads"),
        defaults=dict(num_key_value_heads=None, head_dim=None, vocab_size=50432,
                      hidden_size=6144, num_hidden_layers=44, num_attention_heads=64,
                      intermediate_size=24576, max_position_embeddings=2048,
                      tie_word_embeddings=False, attention_bias=True, layer_types=None,
                      sliding_window=None)),
    # StarCoder2: GQA and a plain GELU MLP (c_fc, c_proj), biases on every projection by
    # use_bias, LayerNorms with biases; every layer slides when sliding_window is set.
    # Defaults: Starcoder2Config (no attention_bias or head_dim field: head_dim = hidden / heads)
    "starcoder2": Family(
        group="StarCoder",
        layout=Layout(qkv_bias="use_bias", o_bias="use_bias", mlp="plain",
                      mlp_names=("c_fc", "c_proj"), mlp_bias="use_bias", norm="layer"),
        defaults=dict(vocab_size=49152, hidden_size=3072, intermediate_size=12288,
                      num_hidden_layers=30, num_attention_heads=24, num_key_value_heads=2,
                      head_dim=None, max_position_embeddings=4096, sliding_window=None,
                      use_bias=True, tie_word_embeddings=True)),
    # Phi-2: attention and a plain GELU MLP side by side after one LayerNorm; biases
    # everywhere, the head's too; QK-norm (LayerNorms) with qk_layernorm
    "phi": Family(
        group="Phi",
        layout=Layout(attention_names=("q_proj", "k_proj", "v_proj", "dense"), qkv_bias=True,
                      o_bias=True, qk_norm="shared", qk_norm_if="qk_layernorm",
                      qk_norm_width="hidden_over_heads",
                      qk_norm_names=("q_layernorm", "k_layernorm"), mlp="plain",
                      mlp_names=("fc1", "fc2"), mlp_bias=True, norm="layer",
                      layer_norms=("input_layernorm",), parallel=True,
                      final_norm="model.final_layernorm", lm_head_bias=True,
                      partial_rotary=("partial_rotary_factor", 0.5)),
        layers=rules.full_attention_layers,
        nullable=("attention_bias",),
        defaults=dict(_COMMON, qk_layernorm=False)),
    # Phi-3: q, k and v fused in qkv_proj, gate and up in gate_up_proj, no biases
    "phi3": Family(
        gguf="phi3",
        group="Phi",
        layout=Layout(attention="fused_qkv", attention_names=("qkv_proj", "o_proj"),
                      o_first=True, qkv_bias=False, o_bias=False, mlp="fused_gated",
                      mlp_names=("gate_up_proj", "down_proj"), mlp_bias=False),
        defaults=dict(_COMMON, vocab_size=32064, hidden_size=3072, intermediate_size=8192,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=4096, pad_token_id=32000)),
}
