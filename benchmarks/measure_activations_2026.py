"""Measure the bytes PyTorch saves for backward in small 2026-family decoders, layer by layer.

The same count as ``benchmarks/measure_activations.py`` (its :func:`measure`:
``torch.autograd.graph.saved_tensors_hooks``, each storage once and only if still held when the forward ends, weights excluded), for
tiny random configs of the families whose layers are not (only) softmax attention:
Qwen3.5 (Gated DeltaNet beside gated attention), Nemotron-H (Mamba-2, attention, MLP and
MoE blocks), Gemma 4 (sliding and full layers of different head widths, KV-shared layers,
K = V, per-layer embeddings), GLM-5 (MLA with a DSA lightning indexer), Kimi-Linear (Kimi
Delta Attention beside MLA) and DeepSeek-V4 (compressed attention, hyper-connections, hash
MoE). Each row also stores ``layers``: the bytes every decoder layer saves, so each layer
kind is compared on its own.

The linear mixers run transformers' reference PyTorch code on the CPU (the
``flash-linear-attention``, ``causal-conv1d`` and ``mamba-ssm`` kernels are CUDA only):
``torch_chunk_gated_delta_rule``, ``chunk_kimi_delta_attention`` and Mamba-2's
``torch_forward``. What they save is what these measurements hold; a fused kernel saves
less (it recomputes the chunk matrices in its backward).

    python benchmarks/measure_activations_2026.py   # writes llmcourse/data/activations_measured_2026.json

CPU only. ``tests/test_training_2026.py`` compares the engine with the stored rows and
re-measures one small case per layer kind.
"""

from __future__ import annotations

import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_activations import ATTENTION, DTYPES, build, write_json  # noqa: E402
# the count that keeps only storages still held when the forward ends (a router's indices
# that feed no gradient are freed at once, and their address may be reused)
from measure_activations_2026_more import measure  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "llmcourse", "data", "activations_measured_2026.json")

MODELS = {
    "qwen3_5_text (Gated DeltaNet + gated attention)": dict(
        model_type="qwen3_5_text", vocab_size=128, hidden_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, linear_num_key_heads=2,
        linear_num_value_heads=4, linear_key_head_dim=8, linear_value_head_dim=12,
        linear_conv_kernel_dim=4, layer_types=["linear_attention", "full_attention"],
        intermediate_size=96, max_position_embeddings=4096, tie_word_embeddings=True),
    "nemotron_h (Mamba-2, MoE, attention, MLP)": dict(
        model_type="nemotron_h", vocab_size=128, hidden_size=64, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, intermediate_size=96, ssm_state_size=8,
        mamba_num_heads=4, mamba_head_dim=8, n_groups=2, conv_kernel=4, chunk_size=32,
        n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=16,
        moe_shared_expert_intermediate_size=16, hybrid_override_pattern="ME*-",
        max_position_embeddings=4096, tie_word_embeddings=False),
    "gemma4_text (sliding + full, KV-shared, per-layer embeddings)": dict(
        model_type="gemma4_text", vocab_size=128, hidden_size=64, intermediate_size=96,
        num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        global_head_dim=32, sliding_window=32,
        layer_types=["sliding_attention", "full_attention"] * 2, num_kv_shared_layers=2,
        vocab_size_per_layer_input=128, hidden_size_per_layer_input=8,
        max_position_embeddings=4096),
    "gemma4_text (K = V full layers)": dict(
        model_type="gemma4_text", vocab_size=128, hidden_size=64, intermediate_size=96,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        global_head_dim=32, sliding_window=32, layer_types=["sliding_attention", "full_attention"],
        attention_k_eq_v=True, num_global_key_value_heads=1, hidden_size_per_layer_input=0,
        max_position_embeddings=4096),
    "glm_moe_dsa (MLA + lightning indexer)": dict(
        model_type="glm_moe_dsa", vocab_size=128, hidden_size=64, intermediate_size=96,
        moe_intermediate_size=16, num_hidden_layers=3, num_attention_heads=4,
        num_key_value_heads=4, kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8,
        qk_nope_head_dim=16, v_head_dim=16, n_routed_experts=4, num_experts_per_tok=2,
        n_group=1, topk_group=1, index_n_heads=2, index_head_dim=16, index_topk=16,
        first_k_dense_replace=1, index_topk_freq=2, index_skip_topk_offset=1,
        max_position_embeddings=4096),
    "kimi_linear (KDA + MLA)": dict(
        model_type="kimi_linear", vocab_size=128, pad_token_id=0, bos_token_id=1,
        eos_token_id=2, hidden_size=64,
        intermediate_size=96, moe_intermediate_size=16, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, kv_lora_rank=16, qk_rope_head_dim=8,
        qk_nope_head_dim=16, v_head_dim=16, num_experts=4, num_experts_per_token=2,
        first_k_dense_replace=1, max_position_embeddings=4096,
        linear_attn_config={"full_attn_layers": [2], "kda_layers": [1], "head_dim": 8,
                            "num_heads": 4, "short_conv_kernel_size": 4}),
    "deepseek_v4 (CSA/HCA, hyper-connections, hash MoE)": dict(
        model_type="deepseek_v4", vocab_size=128, hidden_size=64, moe_intermediate_size=16,
        num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=1, head_dim=32,
        q_lora_rank=24, num_experts_per_tok=2, n_routed_experts=4, hc_mult=2,
        sliding_window=16, o_groups=2, o_lora_rank=16, index_n_heads=2, index_head_dim=16,
        index_topk=8,
        compress_rates={"compressed_sparse_attention": 4, "heavily_compressed_attention": 8},
        layer_types=["sliding_attention", "compressed_sparse_attention",
                     "heavily_compressed_attention"],
        num_hash_layers=1, partial_rotary_factor=0.5, max_position_embeddings=4096),
}
SHAPES = [(1, 100), (2, 64), (1, 256)]   # (batch, seq_len): one not a multiple of a chunk
IMPLS = {"sdpa": ("fp32", "bf16"), "eager": ("fp32",)}
# DeepSeek-V4's attention (a sink per head, compressed entries) runs eager only
EAGER_ONLY = {"deepseek_v4": {"eager": ("fp32", "bf16")}}


ABOUT = ("Bytes PyTorch saves for backward in one training forward (with labels) of "
         "small random-weight 2026-family decoders built with transformers, counted "
         "with torch.autograd.graph.saved_tensors_hooks, each storage once and only if still "
         "held when the forward ends, parameters and buffers excluded; 'layers' splits the "
         "count by decoder layer. Linear mixers run transformers' reference PyTorch code (CPU). "
         "Written by benchmarks/measure_activations_2026.py.")


def run(models, impls_of, about, out, names=None):
    """Measure every (model, attention, dtype, shape) of ``models`` (``impls_of(config)``:
    ``{attn_implementation: dtypes}``) and write ``out`` (or, with ``names``, only those
    models, returned and not written). Shared with measure_activations_2026_more.py."""
    import torch
    import transformers
    rows, skipped = [], {}
    t0 = time.perf_counter()
    for name, config in models.items():
        if names and not any(n in name for n in names):
            continue
        for impl, dtypes in impls_of(config).items():
            for dtype in dtypes:
                try:
                    model = build(config, impl, dtype)
                    for batch, seq_len in SHAPES:
                        r = measure(config, batch, seq_len, impl, dtype, model=model,
                                    per_layer=True)
                        rows.append(dict(model=name, attn_implementation=impl, dtype=dtype,
                                         batch=batch, seq_len=seq_len, **r))
                        print(f"{name[:40]:40s} {impl:5s} {dtype:4s} b={batch} s={seq_len:4d} "
                              f"{r['saved_bytes']:>12,d} B  layers {r['layers']}", flush=True)
                except Exception as e:  # noqa: BLE001  (a family that does not train on CPU)
                    skipped[f"{name} {impl} {dtype}"] = f"{type(e).__name__}: {e}"[:300]
                    print("skipped", name, impl, dtype, skipped[f"{name} {impl} {dtype}"])
    data = {
        "_about": about,
        "device": "CPU",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "engine_attention": ATTENTION,
        "engine_precision": DTYPES,
        "models": models,
        "rows": rows,
        "skipped": skipped,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if names:
        return data
    write_json(out, data)
    print(f"wrote {out} ({len(rows)} rows, {data['seconds']} s)")


def main(names=None):
    return run(MODELS, lambda c: EAGER_ONLY.get(c["model_type"], IMPLS), ABOUT, OUT, names)


if __name__ == "__main__":
    sys.exit(main())
