"""Hybrids of attention with Mamba-2 or short convolutions (Granite 4.0, Nemotron-H, LFM2).

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a
family"). Standard library only.
"""

from .. import family_rules as rules
from ..architectures import Layout
from .base import _COMMON, Family

ENTRIES = {
    # Granite 4.0 (IBM): Mamba-2 layers and a few attention layers (NoPE), each followed by
    # routed experts (fused, SwiGLU) beside a shared MLP, or by the shared MLP alone (dense
    # Granite 4.0-H-350M/1B/Micro: num_local_experts 0). Defaults: GraniteMoeHybridConfig
    "granitemoehybrid": Family(
        group="Granite",
        layout=Layout(block="hybrid_shared_mlp",
                      mamba_fields=("mamba_n_heads", "mamba_d_head", "mamba_n_groups",
                                    "mamba_d_state", "mamba_d_conv", "mamba_conv_bias",
                                    "mamba_proj_bias", "mamba_chunk_size"),
                      rope_if=("position_embedding_type", "rope"), router="topk_softmax"),
        moe="num_local_experts",
        dense_when_no_experts=True,
        layers=rules.granite_hybrid_layers,
        positive=("shared_intermediate_size", "mamba_n_heads", "mamba_n_groups", "mamba_d_state",
                  "mamba_d_conv", "mamba_expand", "mamba_chunk_size"),
        depth_lists=dict(hybrid_override_pattern="repeat", layers_block_type="repeat"),
        check=(rules.granite_mamba_head,),
        on_width=dict(mamba_d_head="auto"),
        hidden_multiple=rules.granite_hidden_multiple,
        defaults=dict(_COMMON, vocab_size=32000, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, num_local_experts=8, num_experts_per_tok=2,
                      shared_intermediate_size=1024, position_embedding_type=None,
                      layers_block_type=None, mamba_n_heads=128, mamba_n_groups=1,
                      mamba_d_state=256, mamba_d_head="auto", mamba_d_conv=4, mamba_expand=2,
                      mamba_conv_bias=True, mamba_proj_bias=False, mamba_chunk_size=256)),
    # Nemotron 3 (Nemotron-H): Mamba-2 blocks, a few attention blocks and MoE blocks of
    # non-gated ReLU^2 experts with a shared expert, each block one of them
    # (hybrid_override_pattern); num_hidden_layers is the pattern's length
    "nemotron_h": Family(
        group="Nemotron",
        layout=Layout(block="one_mixer_per_block", layer_prefix="backbone.layers.{i}.",
                      embedding="backbone.embeddings", final_norm="backbone.norm_f",
                      never_tied=True, norm="rms_fp32_weight",
                      activation_field=("mlp_hidden_act",)),
        moe="n_routed_experts",
        layers=rules.nemotron_h_layers,
        attribute_map=dict(num_local_experts="n_routed_experts"),
        positive=("ssm_state_size", "mamba_num_heads", "mamba_head_dim", "n_groups", "conv_kernel",
                  "moe_shared_expert_intermediate_size", "moe_latent_size", "chunk_size"),
        depth_lists=dict(hybrid_override_pattern="repeat", layers_block_type="repeat"),
        prepare=(rules.nemotron_h_prepare,),
        mha_baseline=rules.nemotron_h_mha,
        defaults=dict(_COMMON, vocab_size=131072, hidden_size=4096, num_attention_heads=32,
                      num_key_value_heads=8, head_dim=128, max_position_embeddings=4096,
                      intermediate_size=21504, mlp_bias=False, ssm_state_size=128,
                      mamba_num_heads=128, mamba_head_dim=64, n_groups=8, conv_kernel=4,
                      chunk_size=128, use_conv_bias=True, mamba_proj_bias=False, use_bias=False,
                      n_routed_experts=8, n_shared_experts=1, moe_intermediate_size=7688,
                      moe_shared_expert_intermediate_size=7688, moe_latent_size=None,
                      num_experts_per_tok=2, hybrid_override_pattern=None,
                      layers_block_type=None, pad_token_id=0, num_nextn_predict_layers=0)),
    # LFM2-8B-A1B (LiquidAI): gated short-convolution layers (a depthwise causal convolution of
    # conv_L_cache taps between two gates) and a few GQA layers with QK-norm; the first
    # num_dense_layers with a dense SwiGLU MLP, then sigmoid-routed experts. Defaults:
    # Lfm2MoeConfig
    "lfm2_moe": Family(
        layout=Layout(block="short_conv_hybrid", final_norm="model.embedding_norm",
                      router="sigmoid", router_norm_topk=True),
        moe="num_experts",
        layers=rules.lfm2_moe_layers,
        attention_kinds=("conv", "full_attention"),
        positive=("conv_L_cache",),
        non_negative=("num_dense_layers",),
        prepare=(rules.lfm2_moe_prepare,),
        defaults=dict(_COMMON, vocab_size=65536, hidden_size=2048, intermediate_size=7168,
                      moe_intermediate_size=1792, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=8, max_position_embeddings=128000,
                      tie_word_embeddings=True, pad_token_id=0, conv_bias=False, conv_L_cache=3,
                      num_dense_layers=2, num_experts_per_tok=4, num_experts=32,
                      use_expert_bias=True)),
}
