"""Llama's decoder and the families built on it, dense and MoE (Llama, Mistral, Granite,
SmolLM, OLMo, Seed-OSS, MiniMax-M2, gpt-oss).

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a
family"). Standard library only.
"""

from .. import family_rules as rules
from ..architectures import Layout
from .base import _COMMON, Family

ENTRIES = {
    # Llama: the layout's defaults (RMSNorm before attention and MLP, SwiGLU, biases by
    # attention_bias and mlp_bias)
    "llama": Family(
        gguf="llama",
        group="Llama",
        moe_variant=("mixtral", "num_local_experts"),
        divisible_heads=True,
        defaults=dict(_COMMON, mlp_bias=False)),
    # Llama-4: chunked attention on RoPE layers, every 4th layer NoPE and global; MoE layers
    # with fused experts (experts, in, out) and a shared expert, dense layers a wider MLP
    "llama4_text": Family(
        group="Llama",
        layout=Layout(mlp_prefix="feed_forward", mlp_width="intermediate_size_mlp",
                      mlp_bias=False, experts="fused_shared"),
        moe="num_local_experts",
        layers=rules.llama4_layers,
        attention_kinds=("full_attention", "chunked_attention"),
        positive=("intermediate_size_mlp", "interleave_moe_layer_step", "attention_chunk_size",
                  "no_rope_layer_interval"),
        depth_lists=dict(moe_layers="clip"),
        check=(rules.llama4_moe_layers, rules.no_rope_layers),
        defaults=dict(_COMMON, vocab_size=202048, hidden_size=5120, intermediate_size=8192,
                      intermediate_size_mlp=16384, num_hidden_layers=48, num_attention_heads=40,
                      num_key_value_heads=8, head_dim=128, max_position_embeddings=131072,
                      num_experts_per_tok=1, num_local_experts=16, moe_layers=None,
                      interleave_moe_layer_step=1, use_qk_norm=True, no_rope_layers=None,
                      no_rope_layer_interval=4, attention_chunk_size=8192)),
    # Mistral: Llama's layout without biases; every layer slides when sliding_window is set
    "mistral": Family(
        gguf="llama",
        group="Mistral",
        layout=Layout(qkv_bias=False, o_bias=False),
        moe_variant=("mixtral", "num_local_experts"),
        nullable=("attention_bias",),
        defaults=dict(_COMMON, num_key_value_heads=8, sliding_window=4096)),
    # Mixtral: Mistral's attention, experts under Mixtral's checkpoint names (w1, w2, w3)
    "mixtral": Family(
        gguf="llama",
        group="Mistral",
        layout=Layout(qkv_bias=False, o_bias=False, experts="block_sparse", router_norm_topk=True,
                      router_weight_fp32=True),
        moe="num_local_experts",
        attribute_map=dict(num_experts="num_local_experts"),
        nullable=("attention_bias",),
        defaults=dict(_COMMON, num_key_value_heads=8, num_local_experts=8,
                      num_experts_per_tok=2)),
    # Ministral 3 and Devstral 2: Mistral's layout (no biases, a given head_dim)
    "ministral3": Family(
        group="Mistral",
        layout=Layout(qkv_bias=False, o_bias=False),
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=131072, hidden_size=4096, intermediate_size=14336,
                      num_hidden_layers=34, num_attention_heads=32, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=262144, pad_token_id=11)),
    # Granite 3: Llama's layout (its multipliers scale activations, not weights)
    "granite": Family(
        gguf="granite",
        group="Granite",
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=32000, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, mlp_bias=False)),
    # SmolLM3: Llama's layout, a NoPE layer in every 4
    "smollm3": Family(
        gguf="smollm3",
        group="SmolLM",
        layers=rules.smollm3_layers,
        positive=("no_rope_layer_interval",),
        check=(rules.no_rope_layers,),
        defaults=dict(_COMMON, vocab_size=128256, hidden_size=2048, intermediate_size=11008,
                      num_hidden_layers=36, num_attention_heads=16, num_key_value_heads=4,
                      max_position_embeddings=32768, tie_word_embeddings=True, mlp_bias=False,
                      use_sliding_window=False, no_rope_layers=None, pad_token_id=128004,
                      no_rope_layer_interval=4)),
    # OLMo 2: norms after each sublayer, not before; one norm over all of q, one over all of k
    "olmo2": Family(
        gguf="olmo2",
        group="OLMo",
        layout=Layout(qk_norm="all",
                      layer_norms=("post_attention_layernorm", "post_feedforward_layernorm")),
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=50304, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, pad_token_id=1)),
    # OLMo 3: OLMo 2's layout with three sliding-window layers to one full layer
    "olmo3": Family(
        group="OLMo",
        layout=Layout(qk_norm="all",
                      layer_norms=("post_attention_layernorm", "post_feedforward_layernorm")),
        layers=rules.olmo3_layers,
        defaults=dict(_COMMON, vocab_size=50304, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, pad_token_id=1, sliding_window=4096)),
    # Seed-OSS: Llama's layout with biases on q, k and v (attention_bias) and, separately,
    # on o_proj (attention_out_bias); defaults from SeedOssConfig (not the 36B's sizes)
    "seed_oss": Family(
        layout=Layout(o_bias="attention_out_bias"),
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=155136, hidden_size=4096, intermediate_size=27648,
                      num_hidden_layers=64, num_attention_heads=80, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=524288, pad_token_id=1,
                      attention_bias=True, attention_out_bias=False, mlp_bias=False)),
    # gpt-oss: attention with biases and a learned sink per head, sliding and full layers in
    # turn; all experts fused in one tensor each, with biases
    "gpt_oss": Family(
        group="gpt-oss",
        layout=Layout(sinks=True, experts="fused_biased"),
        moe="num_local_experts",
        top_k_fallback="experts_per_token",
        layers=rules.alternating,
        attribute_map=dict(num_experts="num_local_experts"),
        defaults=dict(_COMMON, num_key_value_heads=8, head_dim=64, attention_bias=True,
                      sliding_window=128, num_local_experts=128,
                      num_experts_per_tok=4)),
    # MiniMax-M2: GQA with one RMSNorm over all query heads and one over all key heads
    # (OLMo-2's QK-norm), 256 experts top-8 in every layer (Mixtral's names, MiniMax's
    # load-balancing bias), no shared expert
    "minimax_m2": Family(
        group="MiniMax",
        layout=Layout(qk_norm="all", experts="block_sparse", router_buffer=True,
                      qkv_bias=False, o_bias=False),
        moe="num_local_experts",
        layers=rules.full_attention_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_experts="num_local_experts"),
        defaults=dict(_COMMON, vocab_size=200064, hidden_size=3072, intermediate_size=1536,
                      num_hidden_layers=62, num_attention_heads=48, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=196608, num_experts_per_tok=8,
                      num_local_experts=256)),
}
