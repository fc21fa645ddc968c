"""Measure the bytes PyTorch saves for backward in four more 2026 families, layer by layer.

The sibling of ``benchmarks/measure_activations_2026.py`` (same models' layout, same rows:
``saved_bytes`` and per decoder layer ``layers``) for tiny random configs of Qwen4-Exp
(qwen4_exp_text: Gated DeltaNet, indexed attention with a query-selection indexer,
hyper-connections over hc_count streams, n-gram per-layer embeddings with a dilated
convolution), Granite 4.0 (granitemoehybrid: Mamba-2, NoPE attention, a shared MLP beside
optional routed experts), LFM2-MoE (lfm2_moe: gated short convolutions, attention with
QK-norm, MoE after num_dense_layers) and LongCat-Flash (longcat_flash: two MLA sublayers
per layer, a shortcut MoE with zero-computation experts).

One difference from :func:`measure_activations.measure`: a saved storage counts only if a
tensor holding it is still alive when the forward ends (``alive=True``; the hook hands
autograd a detached view, so an op that saves its own output makes no reference cycle that
would keep a dead branch of the graph alive). Qwen4-Exp's indexer
runs autograd-tracked ops (its q norm, a matmul per query over the pooled keys) whose result
is a boolean mask: no gradient flows back through it, so that part of the graph is freed as
soon as the indexer returns, and it is no part of the memory the backward needs. For the
other three families both counts are equal (checked when this was written).

    python benchmarks/measure_activations_2026_more.py  # writes llmcourse/data/activations_measured_2026_more.json

CPU only; the linear mixers run transformers' reference PyTorch code.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# ATTENTION and DTYPES: the engine's names for what was measured (the tests read them here)
from measure_activations import ATTENTION, DTYPES  # noqa: E402,F401
from measure_activations import measure as _measure  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "llmcourse", "data", "activations_measured_2026_more.json")

MODELS = {
    "qwen4_exp_text (Gated DeltaNet, indexed attention, hyper-connections, n-gram PLE)": dict(
        model_type="qwen4_exp_text", vocab_size=128, hidden_size=64, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, linear_num_key_heads=2,
        linear_num_value_heads=4, linear_key_head_dim=8, linear_value_head_dim=12,
        linear_conv_kernel_dim=4, moe_intermediate_size=16, shared_expert_intermediate_size=24,
        num_experts=4, num_experts_per_tok=2, hc_count=3, hc_lowrank=5, ple_layer_ids=[2],
        ple_embed_dim=16, heads_per_ngram=2, ngram_vocab_size_base=50,
        make_ngram_vocab_size_divisible_by=8, split_ngram_parts=3, ple_conv_kernel_size=3,
        indexer_n_heads=2, indexer_kv_heads=1, indexer_head_dim=16, indexer_budget=16,
        indexer_compress_ratio=4, eos_token_id=1, max_position_embeddings=4096),
    "granitemoehybrid (Mamba-2, NoPE attention, shared MLP)": dict(
        model_type="granitemoehybrid", vocab_size=128, hidden_size=64, intermediate_size=96,
        shared_intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, layer_types=["mamba", "attention"], num_local_experts=0,
        num_experts_per_tok=0, mamba_n_heads=4, mamba_n_groups=2, mamba_d_state=8,
        mamba_d_conv=4, mamba_chunk_size=32, position_embedding_type="nope",
        max_position_embeddings=4096, tie_word_embeddings=True),
    "granitemoehybrid (routed experts beside the shared MLP, RoPE)": dict(
        model_type="granitemoehybrid", vocab_size=128, hidden_size=64, intermediate_size=16,
        shared_intermediate_size=24, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, layer_types=["mamba", "attention"], num_local_experts=4,
        num_experts_per_tok=2, mamba_n_heads=4, mamba_n_groups=2, mamba_d_state=8,
        mamba_d_conv=4, mamba_chunk_size=32, position_embedding_type="rope",
        max_position_embeddings=4096, tie_word_embeddings=True),
    "lfm2_moe (gated short conv, QK-norm attention, MoE after dense layers)": dict(
        model_type="lfm2_moe", vocab_size=128, hidden_size=64, intermediate_size=96,
        moe_intermediate_size=16, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, layer_types=["conv", "full_attention", "conv", "full_attention"],
        num_experts=4, num_experts_per_tok=2, num_dense_layers=2, conv_L_cache=3,
        max_position_embeddings=4096),
    "longcat_flash (two MLA sublayers, shortcut MoE, zero experts)": dict(
        model_type="longcat_flash", vocab_size=128, hidden_size=64, num_layers=2,
        num_attention_heads=4, num_key_value_heads=4, ffn_hidden_size=96, q_lora_rank=24,
        kv_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=8, qk_head_dim=24, head_dim=8,
        v_head_dim=16, n_routed_experts=4, zero_expert_num=2, moe_topk=2,
        expert_ffn_hidden_size=16, routed_scaling_factor=6.0, max_position_embeddings=4096,
        tie_word_embeddings=False),
}
SHAPES = [(1, 100), (2, 64), (1, 256)]   # (batch, seq_len): one not a multiple of a chunk
IMPLS = {"sdpa": ("fp32", "bf16"), "eager": ("fp32",)}


def measure(config, batch, seq_len, attn_implementation="sdpa", dtype="fp32", model=None,
            per_layer=True, alive=True, detail=False):
    """:func:`measure_activations.measure`, layer by layer (``per_layer``) by default."""
    return _measure(config, batch, seq_len, attn_implementation, dtype, model, per_layer,
                    alive, detail)


ABOUT = ("Bytes PyTorch saves for backward in one training forward (with labels) of "
         "small random-weight 2026-family decoders built with transformers, counted "
         "with torch.autograd.graph.saved_tensors_hooks, each storage once, "
         "parameters and buffers excluded, only storages still held when the "
         "forward ends; 'layers' splits the count by decoder layer. Linear mixers "
         "run transformers' reference PyTorch code (CPU). Written by "
         "benchmarks/measure_activations_2026_more.py.")


def main(names=None):
    # the same loop and file as measure_activations_2026.py (imported here: it imports
    # this module's measure)
    import measure_activations_2026
    return measure_activations_2026.run(MODELS, lambda c: IMPLS, ABOUT, OUT, names)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or None))
