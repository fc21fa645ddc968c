"""Multi-head latent attention and its successors (DeepSeek, GLM, Kimi, Mistral 4, LongCat).

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a
family"). Standard library only.
"""

from .. import family_rules as rules
from ..architectures import Layout
from .base import _COMMON, _INDEXER, _MLA, _MLA_MOE, Family

ENTRIES = {
    # GLM-4.5: biases on q, k and v, QK-norm with use_qk_norm; the first layers dense, then
    # routed experts with a load-balancing bias and a shared expert; an MTP layer shipped;
    # without head_dim, hidden_size // num_attention_heads (its class defaults: 42)
    "glm4_moe": Family(
        group="GLM",
        layout=Layout(o_bias=False, qk_norm="shared", qk_norm_if="use_qk_norm", router_buffer=True,
                      shared_experts="n_shared", mtp="nextn_layers"),
        moe="n_routed_experts",
        layers=rules.glm4_moe_layers,
        attribute_map=dict(num_local_experts="n_routed_experts",
                           num_mtp_layers="num_nextn_predict_layers"),
        own_wins=("num_mtp_layers",),
        non_negative=("num_nextn_predict_layers",),
        derive=(rules.head_dim_floored,),
        check=(rules.dense_prefix_fits,),
        defaults=dict(_COMMON, vocab_size=151552, hidden_size=4096, intermediate_size=10944,
                      num_hidden_layers=46, num_attention_heads=96, num_key_value_heads=8,
                      max_position_embeddings=131072, moe_intermediate_size=1408,
                      num_experts_per_tok=8, n_shared_experts=1, n_routed_experts=128,
                      first_k_dense_replace=1, use_qk_norm=False, num_nextn_predict_layers=1)),
    # GLM-4.7-Flash: DeepSeek-V3's MLA and MoE (defaults: Glm4MoeLiteConfig)
    "glm4_moe_lite": Family(
        group="GLM",
        layout=Layout(attention="mla", router_buffer=True, shared_experts="n_shared",
                      mtp="nextn_layers"),
        moe="n_routed_experts",
        layers=rules.glm4_moe_lite_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts", head_dim="qk_rope_head_dim"),
        required=_MLA_MOE,
        non_negative=("num_nextn_predict_layers",),
        defaults=dict(_COMMON, vocab_size=154880, hidden_size=2048, intermediate_size=10240,
                      moe_intermediate_size=1536, num_hidden_layers=47, num_attention_heads=20,
                      num_key_value_heads=20, n_shared_experts=1, n_routed_experts=64,
                      kv_lora_rank=512, q_lora_rank=768, qk_rope_head_dim=64, v_head_dim=256,
                      qk_nope_head_dim=192, num_experts_per_tok=4,
                      max_position_embeddings=202752, mlp_layer_types=None,
                      num_nextn_predict_layers=0)),
    # GLM-5: DeepSeek Sparse Attention (a lightning indexer picks index_topk keys for MLA),
    # some layers reusing the previous layer's choice (defaults: GlmMoeDsaConfig)
    "glm_moe_dsa": Family(
        group="GLM",
        layout=Layout(attention="mla", router_buffer=True, shared_experts="n_shared",
                      mtp="nextn_layers", router="grouped", router_norm_topk=True,
                      router_weight_fp32=True),
        moe="n_routed_experts",
        layers=rules.glm_moe_dsa_layers,
        attention_kinds=("indexed_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA_MOE + _INDEXER,
        positive=("index_topk", "index_head_dim", "index_n_heads"),
        non_negative=("num_nextn_predict_layers",),
        defaults=dict(_COMMON, vocab_size=154880, hidden_size=6144, intermediate_size=12288,
                      moe_intermediate_size=2048, num_hidden_layers=78, num_attention_heads=64,
                      num_key_value_heads=64, n_shared_experts=1, n_routed_experts=256,
                      kv_lora_rank=512, q_lora_rank=2048, qk_rope_head_dim=64, v_head_dim=256,
                      qk_nope_head_dim=192, num_experts_per_tok=8,
                      max_position_embeddings=202752, index_topk=2048, index_head_dim=128,
                      index_n_heads=32, first_k_dense_replace=3, mlp_layer_types=None,
                      indexer_types=None, num_nextn_predict_layers=0)),
    # DeepSeek-V2: multi-head latent attention; MoE with shared experts
    "deepseek_v2": Family(
        group="DeepSeek",
        layout=Layout(attention="mla", shared_experts="n_shared"),
        moe="n_routed_experts",
        layers=rules.deepseek_layers,
        attribute_map=dict(num_experts="n_routed_experts"),
        divisible_heads=True,
        nullable=("moe_layer_freq",),
        check=(rules.dense_prefix_fits,),
        defaults=dict(_COMMON, vocab_size=102400, hidden_size=4096, intermediate_size=11008,
                      moe_intermediate_size=1407, num_hidden_layers=32, num_attention_heads=32,
                      n_shared_experts=2, n_routed_experts=64,
                      num_experts_per_tok=None, kv_lora_rank=512, q_lora_rank=1536,
                      qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128,
                      first_k_dense_replace=0, max_position_embeddings=2048,
                      moe_layer_freq=1)),
    # DeepSeek-V3: DeepSeek-V2's layout with the router's load-balancing bias
    "deepseek_v3": Family(
        group="DeepSeek",
        layout=Layout(attention="mla", router_buffer=True, shared_experts="n_shared",
                      mtp="nextn_layers"),
        moe="n_routed_experts",
        layers=rules.deepseek_layers,
        attribute_map=dict(num_local_experts="n_routed_experts",
                           num_mtp_layers="num_nextn_predict_layers"),
        own_wins=("num_mtp_layers",),
        nullable=("moe_layer_freq",),
        check=(rules.dense_prefix_fits,),
        defaults=dict(_COMMON, vocab_size=129280, hidden_size=7168, intermediate_size=18432,
                      moe_intermediate_size=2048, num_hidden_layers=61, num_attention_heads=128,
                      num_key_value_heads=128, n_shared_experts=1, n_routed_experts=256,
                      num_experts_per_tok=8, kv_lora_rank=512, q_lora_rank=1536,
                      qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128,
                      first_k_dense_replace=3, max_position_embeddings=4096,
                      moe_layer_freq=1)),
    # DeepSeek-V3.2: DeepSeek-V3 with DeepSeek Sparse Attention in every layer
    "deepseek_v32": Family(
        group="DeepSeek",
        layout=Layout(attention="mla", router_buffer=True, shared_experts="n_shared",
                      mtp="nextn_layers", router="grouped", router_norm_topk=True,
                      router_weight_fp32=True),
        moe="n_routed_experts",
        layers=rules.deepseek_v32_layers,
        attention_kinds=("indexed_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA_MOE + _INDEXER,
        positive=("index_topk", "index_head_dim", "index_n_heads"),
        non_negative=("num_nextn_predict_layers",),
        defaults=dict(_COMMON, vocab_size=129280, hidden_size=7168, intermediate_size=18432,
                      moe_intermediate_size=2048, num_hidden_layers=61, num_attention_heads=128,
                      num_key_value_heads=128, n_shared_experts=1, n_routed_experts=256,
                      kv_lora_rank=512, q_lora_rank=1536, qk_rope_head_dim=64, v_head_dim=128,
                      qk_nope_head_dim=128, num_experts_per_tok=8,
                      max_position_embeddings=163840, index_topk=2048, index_head_dim=128,
                      index_n_heads=64, first_k_dense_replace=3, mlp_layer_types=None,
                      num_nextn_predict_layers=0)),
    # DeepSeek-V4: one shared K = V head of 512 per layer, sliding windows plus compressed
    # entries (CSA with an indexer, HCA), a grouped low-rank output projection, attention
    # sinks, 4-stream hyper-connections around each sublayer, and MoE with hash-routed
    # first layers. Names as transformers loads them (the checkpoint's own are DeepSeek's:
    # attn.wq_a, ffn.experts.N.w1, ...)
    "deepseek_v4": Family(
        group="DeepSeek",
        layout=Layout(block="hyper_connected_compressed", extra_globals="hc_head",
                      kv_store="k_eq_v", layer_input_streams="hc_mult"),
        moe="n_routed_experts",
        layers=rules.deepseek_v4_layers,
        check=(rules.one_kv_head,),
        engine_only=dict(num_key_value_heads="DeepSeek-V4's attention keeps one compressed "
                         "key-value head per layer and reads no num_key_value_heads"),
        attribute_map=dict(num_local_experts="n_routed_experts",
                           intermediate_size="moe_intermediate_size"),
        required=("q_lora_rank", "sliding_window"),
        positive=("q_lora_rank", "hc_mult", "o_groups", "o_lora_rank", "index_n_heads",
                  "index_head_dim", "index_topk", "hc_sinkhorn_iters"),
        defaults=dict(_COMMON, vocab_size=129280, hidden_size=4096, moe_intermediate_size=2048,
                      num_hidden_layers=43, num_attention_heads=64, num_key_value_heads=1,
                      head_dim=512, q_lora_rank=1024, num_experts_per_tok=6,
                      n_routed_experts=256, n_shared_experts=1, max_position_embeddings=1048576,
                      compress_rates=None, hc_mult=4, mlp_layer_types=None, sliding_window=128,
                      o_groups=8, o_lora_rank=1024, index_n_heads=64, index_head_dim=128,
                      index_topk=512, num_nextn_predict_layers=1, compress_ratios=None,
                      num_hash_layers=None)),
    # Kimi-Linear: three Kimi Delta Attention layers (a gated delta rule with a decay per
    # channel) to one MLA layer, and DeepSeek-V3's MoE; transformers' own names for its keys.
    # Every standard name is a declared field, set before the file's own key: given both,
    # the file's own (num_experts_per_token) wins
    "kimi_linear": Family(
        group="Kimi",
        layout=Layout(attention="mla", linear_attention="kda", router_buffer=True,
                      experts="block_sparse_shared", never_tied=True, router="grouped",
                      router_norm_topk=True, router_weight_fp32=True),
        moe="num_experts",
        layers=rules.kimi_linear_layers,
        attention_kinds=("full_attention", "linear_attention"),
        attribute_map=dict(max_position_embeddings="model_max_length",
                           n_group="num_expert_group", num_local_experts="num_experts",
                           num_experts_per_tok="num_experts_per_token",
                           n_shared_experts="num_shared_experts"),
        own_wins=("max_position_embeddings", "n_group", "num_local_experts",
                  "num_experts_per_tok", "n_shared_experts"),
        required=_MLA,
        positive=("linear_head_dim", "linear_num_heads", "linear_conv_kernel_dim"),
        prepare=(rules.kimi_linear_prepare,),
        defaults=dict(_COMMON, vocab_size=163840, hidden_size=2304, intermediate_size=9216,
                      moe_intermediate_size=1024, num_hidden_layers=27, num_attention_heads=32,
                      num_key_value_heads=32, num_shared_experts=1, kv_lora_rank=512,
                      q_lora_rank=None, qk_rope_head_dim=64, v_head_dim=128,
                      qk_nope_head_dim=128, num_experts_per_token=8, model_max_length=1048576,
                      num_experts=256, pad_token_id=163839, mlp_layer_types=None,
                      linear_attn_config=None, first_k_dense_replace=1, linear_head_dim=128,
                      linear_num_heads=32, linear_conv_kernel_dim=4)),
    # Mistral Small 4: DeepSeek-V3's MLA and MoE without the load-balancing bias (defaults:
    # Mistral4Config)
    "mistral4": Family(
        layout=Layout(attention="mla", shared_experts="n_shared", experts="fused"),
        moe="n_routed_experts",
        layers=rules.deepseek_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA_MOE,
        check=(rules.dense_prefix_fits,),
        defaults=dict(_COMMON, num_key_value_heads=32, vocab_size=131072, hidden_size=4096, intermediate_size=12288,
                      moe_intermediate_size=2048, num_hidden_layers=36, num_attention_heads=32,
                      n_shared_experts=1, n_routed_experts=128, kv_lora_rank=256,
                      q_lora_rank=1024, qk_rope_head_dim=64, v_head_dim=128,
                      qk_nope_head_dim=64, num_experts_per_tok=4, first_k_dense_replace=0,
                      max_position_embeddings=1048576, pad_token_id=11)),
    # LongCat-Flash: two MLA sublayers per layer (num_layers; transformers' num_hidden_layers is
    # twice it, and a config's num_hidden_layers sets num_layers to half of it), a dense MLP
    # after each, one MoE per layer whose router also picks among zero_expert_num
    # "zero-computation" experts: identities without weights. Its MLA always has a low-rank
    # query (q_a_proj)
    "longcat_flash": Family(
        layout=Layout(block="two_mla_sublayers", attention="mla",
                      layer_prefix="model.layers.{b}."),
        moe="n_routed_experts",
        zero_experts="zero_expert_num",
        layers=rules.longcat_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts", num_experts_per_tok="moe_topk",
                           intermediate_size="ffn_hidden_size",
                           moe_intermediate_size="expert_ffn_hidden_size"),
        required=_MLA + ("q_lora_rank",),
        positive=("num_layers", "qk_head_dim"),
        non_negative=("zero_expert_num",),
        prepare=(rules.longcat_prepare,),
        derive=(rules.longcat_derive,),
        defaults=dict(_COMMON, vocab_size=131072, hidden_size=6144, num_layers=28,
                      num_attention_heads=64, max_position_embeddings=131072,
                      ffn_hidden_size=12288, q_lora_rank=1536, kv_lora_rank=512,
                      qk_nope_head_dim=128, qk_rope_head_dim=64, head_dim=64, v_head_dim=128,
                      qk_head_dim=None, moe_topk=12, n_routed_experts=512, zero_expert_num=256,
                      expert_ffn_hidden_size=2048, router_bias=False)),
}
