"""Qwen: Qwen2 and Qwen3, their MoEs, and the gated-DeltaNet hybrids (Qwen3-Next to Qwen4-Exp).

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a
family"). Standard library only.
"""

from .. import family_rules as rules
from ..architectures import Layout
from .base import _COMMON, Family

ENTRIES = {
    # Qwen2: biases on q, k and v, none on o; with use_sliding_window, layers from
    # max_window_layers on slide
    "qwen2": Family(
        group="Qwen",
        layout=Layout(qkv_bias=True, o_bias=False),
        layers=rules.windowed_by_depth,
        nullable=("attention_bias",),
        defaults=dict(_COMMON, num_key_value_heads=32, sliding_window=4096,
                      use_sliding_window=False, max_window_layers=28)),
    # Qwen1.5/2-MoE: biases on q, k and v (qkv_bias), experts and one sigmoid-gated shared expert
    "qwen2_moe": Family(
        group="Qwen",
        layout=Layout(qkv_bias=("qkv_bias", True), o_bias=False, shared_experts="one_gated"),
        moe="num_experts",
        layers=rules.qwen2_moe_layers,
        positive=("shared_expert_intermediate_size",),
        prepare=(rules.qwen2_moe_prepare,),
        check=(rules.mlp_only_layers,),
        defaults=dict(_COMMON, vocab_size=151936, hidden_size=2048, intermediate_size=5632,
                      num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=16,
                      max_position_embeddings=32768, use_sliding_window=False,
                      sliding_window=4096, max_window_layers=28, decoder_sparse_step=1,
                      moe_intermediate_size=1408, shared_expert_intermediate_size=5632,
                      num_experts_per_tok=4, num_experts=60, mlp_only_layers=[], qkv_bias=True)),
    # Qwen3: Llama's layout with an RMSNorm over each head's q and k (QK-norm)
    "qwen3": Family(
        group="Qwen",
        layout=Layout(qk_norm="shared"),
        moe_variant=("qwen3_moe", "num_experts"),
        layers=rules.windowed_by_depth,
        defaults=dict(_COMMON, num_key_value_heads=32, head_dim=128, sliding_window=4096,
                      use_sliding_window=False, max_window_layers=28)),
    # Qwen3-MoE: Qwen3's attention, routed experts in every decoder_sparse_step-th layer.
    # transformers 5 stores the expert count as num_local_experts (num_experts is its alias)
    # and writes that key back: a saved fine-tune has no num_experts
    "qwen3_moe": Family(
        group="Qwen",
        layout=Layout(qk_norm="shared"),
        moe="num_experts",
        layers=rules.qwen3_moe_layers,
        attribute_map=dict(num_experts="num_local_experts"),
        own_wins=("num_experts",),
        required=("moe_intermediate_size",),
        nullable=("max_window_layers",),
        check=(rules.mlp_only_layers,),
        defaults=dict(_COMMON, num_key_value_heads=4, sliding_window=4096,
                      use_sliding_window=False, max_window_layers=28,
                      decoder_sparse_step=1, mlp_only_layers=[], num_local_experts=128,
                      num_experts_per_tok=8, moe_intermediate_size=768)),
    # Qwen3-Next: full_attention_interval - 1 gated-DeltaNet layers (q, k, v, z and b, a
    # fused), then one full-attention layer with an output gate and QK-norm; routed experts
    # and a sigmoid-gated shared expert; a multi-token-prediction layer in the checkpoint
    "qwen3_next": Family(
        group="Qwen",
        layout=Layout(output_gate=True, qk_norm="shared", linear_attention="deltanet_fused",
                      shared_experts="one_gated", mtp="mtp_layers"),
        moe="num_experts",
        layers=rules.qwen3_next_layers,
        attention_kinds=("full_attention", "linear_attention"),
        positive=("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval",
                  "shared_expert_intermediate_size"),
        non_negative=("num_nextn_predict_layers", "mtp_num_hidden_layers"),
        check=(rules.mlp_only_layers, rules.deltanet_heads),
        defaults=dict(_COMMON, vocab_size=151936, hidden_size=2048, intermediate_size=5632,
                      num_hidden_layers=48, num_attention_heads=16, num_key_value_heads=2,
                      head_dim=256, max_position_embeddings=32768, linear_conv_kernel_dim=4,
                      linear_key_head_dim=128, linear_value_head_dim=128,
                      linear_num_key_heads=16, linear_num_value_heads=32, decoder_sparse_step=1,
                      moe_intermediate_size=512, shared_expert_intermediate_size=512,
                      num_experts_per_tok=10, num_experts=512, mlp_only_layers=[],
                      full_attention_interval=4)),
    # Qwen3.5 (dense) and Qwen3.6 (below, MoE): Qwen3-Next's layout, the DeltaNet projections
    # stored unfused, the output gate by attn_output_gate. Defaults: Qwen3_5TextConfig
    "qwen3_5_text": Family(
        group="Qwen",
        layout=Layout(output_gate=("attn_output_gate", True), qk_norm="shared", mtp="mtp_layers",
                      norm="rms_one_plus_w", partial_rotary=("partial_rotary_factor", 0.25)),
        layers=rules.qwen3_5_layers,
        attention_kinds=("full_attention", "linear_attention"),
        positive=("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval"),
        non_negative=("mtp_num_hidden_layers",),
        check=(rules.deltanet_heads,),
        defaults=dict(_COMMON, vocab_size=248320, hidden_size=4096, intermediate_size=12288,
                      num_hidden_layers=32, num_attention_heads=16, num_key_value_heads=4,
                      head_dim=256, max_position_embeddings=32768, linear_conv_kernel_dim=4,
                      linear_key_head_dim=128, linear_value_head_dim=128,
                      linear_num_key_heads=16, linear_num_value_heads=32,
                      full_attention_interval=4)),
    # Qwen3.6: Qwen3.5's layout with routed experts and a sigmoid-gated shared expert; no
    # dense MLP anywhere: intermediate_size is not a field (read as the experts' width).
    # Defaults: Qwen3_5MoeTextConfig
    "qwen3_5_moe_text": Family(
        group="Qwen",
        layout=Layout(output_gate=("attn_output_gate", True), qk_norm="shared",
                      shared_experts="one_gated", mtp="mtp_layers", norm="rms_one_plus_w",
                      partial_rotary=("partial_rotary_factor", 0.25)),
        moe="num_experts",
        layers=rules.qwen3_5_layers,
        attention_kinds=("full_attention", "linear_attention"),
        positive=("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval",
                  "shared_expert_intermediate_size"),
        non_negative=("mtp_num_hidden_layers",),
        derive=(rules.experts_only_derive,),
        check=(rules.deltanet_heads,),
        defaults=dict(_COMMON, vocab_size=248320, hidden_size=2048, num_hidden_layers=40,
                      num_attention_heads=16, num_key_value_heads=2, head_dim=256,
                      max_position_embeddings=32768, linear_conv_kernel_dim=4,
                      linear_key_head_dim=128, linear_value_head_dim=128,
                      linear_num_key_heads=16, linear_num_value_heads=32,
                      full_attention_interval=4, moe_intermediate_size=512,
                      shared_expert_intermediate_size=512, num_experts_per_tok=8,
                      num_experts=256)),
    # Qwen4-Exp (Qwen3.8-Flash-Next): Qwen3.5's gated-DeltaNet and gated attention layers with
    # a query-selection indexer, 4 residual streams mixed by low-rank hyper-connections (no
    # layer norms), hashed n-gram embedding tables in a few layers, MoE with a shared expert
    # in every layer. transformers builds the indexer on every attention layer, so it cannot
    # build a model without its sizes. Defaults: Qwen4ExpTextConfig
    "qwen4_exp_text": Family(
        group="Qwen",
        layout=Layout(block="hyper_connected_ngram", output_gate=True, qk_norm="shared",
                      shared_experts="one_gated", final_norm=None,
                      extra_globals="hyper_connection_mixer", norm="rms_one_plus_w",
                      partial_rotary=("partial_rotary_factor", 1), indexer="block_select",
                      router_norm_topk=True),
        moe="num_experts",
        layers=rules.qwen4_layers,
        required=("indexer_n_heads", "indexer_kv_heads", "indexer_head_dim", "indexer_budget",
                  "indexer_compress_ratio"),
        positive=("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval",
                  "shared_expert_intermediate_size", "hc_count", "hc_lowrank", "ple_embed_dim",
                  "ple_conv_kernel_size", "ngram_size", "heads_per_ngram",
                  "make_ngram_vocab_size_divisible_by", "split_ngram_parts", "indexer_n_heads",
                  "indexer_kv_heads", "indexer_head_dim", "indexer_budget",
                  "indexer_compress_ratio"),
        non_negative=("mtp_num_hidden_layers", "ngram_vocab_size_base"),
        derive=(rules.qwen4_derive,),
        check=(rules.deltanet_heads, rules.qwen4_rules),
        defaults=dict(_COMMON, vocab_size=248320, hidden_size=2048, num_hidden_layers=40,
                      num_attention_heads=16, num_key_value_heads=2, head_dim=256,
                      max_position_embeddings=32768, linear_conv_kernel_dim=4,
                      linear_key_head_dim=128, linear_value_head_dim=128,
                      linear_num_key_heads=16, linear_num_value_heads=32,
                      full_attention_interval=4, moe_intermediate_size=512,
                      shared_expert_intermediate_size=512, num_experts_per_tok=10,
                      num_experts=512, hc_count=4, hc_lowrank=320, ple_layer_ids=None,
                      ple_embed_dim=None, ple_conv_kernel_size=4, ngram_size=3,
                      heads_per_ngram=8, ngram_vocab_size_base=20_000_000,
                      make_ngram_vocab_size_divisible_by=128, seed=1234, split_ngram_parts=512,
                      indexer_n_heads=None, indexer_kv_heads=None, indexer_head_dim=None,
                      indexer_budget=None, indexer_compress_ratio=None, output_gate_type=None,
                      eos_token_id=None)),
}
