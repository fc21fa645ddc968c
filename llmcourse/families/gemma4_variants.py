"""Gemma 4's other 2026 types: the unified model (its text model without per-layer
embeddings or experts, light vision and audio embedders beside it) and the assistant
(draft) models for speculative decoding, which transformers 5.23 cannot build.

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a family");
the unified text model's layers are Gemma 4's (``per_kind_heads_kv_shared``).
Standard library only.
"""

from .. import family_rules as rules
from ..architectures import Layout
from ..limits import _fail
from .base import _COMMON, Family


def unified_prepare(r, raw):
    """Gemma4UnifiedTextConfig has no per-layer embeddings and no experts: keys a config
    copies from a Gemma 4 text config for them build nothing."""
    r["hidden_size_per_layer_input"] = 0
    r["enable_moe_block"] = False


def refuse_assistant(r, raw):
    """transformers 5.23 cannot build a Gemma 4 assistant: every one of its layers reuses
    the target model's K and V (its config class sets num_kv_shared_layers to
    num_hidden_layers and requires it), and Gemma 4's cache setup refuses a model in which
    no layer stores them."""
    _fail("model_type", f"{r['model_type']} is a Gemma 4 draft model whose every layer reads "
          "the target's K and V; transformers 5.23 cannot build one (no layer stores a "
          "cache), so the course does not size it", show_value=False)


ENTRIES = {
    # Gemma 4 unified (text model): Gemma 4's sliding and full layers of their own widths,
    # KV sharing and K = V, without per-layer embeddings or experts; bidirectional attention
    # over vision tokens by default. Defaults: Gemma4UnifiedTextConfig
    "gemma4_unified_text": Family(
        group="Gemma",
        layout=Layout(block="per_kind_heads_kv_shared"),
        layers=rules.gemma4_layers,
        non_negative=("num_kv_shared_layers",),
        enums=dict(use_bidirectional_attention=("all", "vision", None)),
        never_null=("sliding_window",),
        nullable=("use_bidirectional_attention",),
        prepare=(unified_prepare,),
        check=(rules.gemma4_rules,),
        mha_baseline=rules.gemma4_mha,
        engine_only=dict(hidden_size_per_layer_input="Gemma 4 unified has no per-layer "
                         "embeddings", enable_moe_block="Gemma 4 unified has no experts"),
        defaults=dict(_COMMON, vocab_size=262144, hidden_size=2304, intermediate_size=9216,
                      num_hidden_layers=30, num_attention_heads=8, num_key_value_heads=4,
                      head_dim=256, max_position_embeddings=262144, tie_word_embeddings=True,
                      sliding_window=1024, pad_token_id=0, attention_k_eq_v=False,
                      num_kv_shared_layers=0, use_double_wide_mlp=False,
                      use_bidirectional_attention="vision", global_head_dim=512,
                      num_global_key_value_heads=None, per_layer_config=None)),
    # the assistants: refused in one line (see refuse_assistant)
    "gemma4_assistant": Family(
        defaults=dict(text_config=None, backbone_hidden_size=1536, use_ordered_embeddings=False,
                      num_centroids=2048, centroid_intermediate_top_k=32,
                      tie_word_embeddings=True),
        prepare=(refuse_assistant,)),
    "gemma4_unified_assistant": Family(
        defaults=dict(text_config=None, backbone_hidden_size=3840, use_ordered_embeddings=False,
                      num_centroids=2048, centroid_intermediate_top_k=32,
                      tie_word_embeddings=True),
        prepare=(refuse_assistant,)),
}
