"""The bytes PyTorch saves for backward in small hybrid decoders and new layer kinds, layer by layer.

The same count as :mod:`measurements.saved_activations` (its :func:`measure`:
``torch.autograd.graph.saved_tensors_hooks``, each storage once and only if still held when
the forward ends, weights excluded), for tiny random configs of the families whose layers
are not (only) softmax attention: Qwen3.5 (Gated DeltaNet beside gated attention),
Nemotron-H (Mamba-2, attention, MLP and MoE blocks), Gemma 4 (sliding and full layers of
different head widths, KV-shared layers, K = V, per-layer embeddings), GLM-5 (MLA with a DSA
lightning indexer), Kimi-Linear (Kimi Delta Attention beside MLA), DeepSeek-V4 (compressed
attention, hyper-connections, hash MoE), Qwen4-Exp (Gated DeltaNet, indexed attention with a
query-selection indexer, hyper-connections over hc_count streams, n-gram per-layer
embeddings with a dilated convolution), Granite 4.0 (Mamba-2, NoPE attention, a shared MLP
beside optional routed experts), LFM2-MoE (gated short convolutions, QK-norm attention, MoE
after num_dense_layers) and LongCat-Flash (two MLA sublayers per layer, a shortcut MoE with
zero-computation experts). Each row also stores ``layers``: the bytes every decoder layer
saves, so each layer kind is compared on its own.

Only storages still alive when the forward ends count: Qwen4-Exp's indexer runs
autograd-tracked ops whose result is a boolean mask, so that part of the graph is freed as
soon as the indexer returns, and a router's indices that feed no gradient are freed at once
(their address may then be reused by a new tensor).

The linear mixers run transformers' reference PyTorch code on the CPU (the
``flash-linear-attention``, ``causal-conv1d`` and ``mamba-ssm`` kernels are CUDA only):
``torch_chunk_gated_delta_rule``, ``chunk_kimi_delta_attention`` and Mamba-2's
``torch_forward``. What they save is what these measurements hold; a fused kernel saves
less (it recomputes the chunk matrices in its backward).

    python -m measurements saved-activations-hybrid   # writes llmcourse/data/saved_activations_hybrid.json
    python -m measurements saved-activations-hybrid deepseek_v4   # those models only, printed

CPU only. ``tests/test_training_hybrid_layers.py`` compares the engine with the stored rows
and re-measures one small case per layer kind.
"""

from __future__ import annotations

import platform
import time

from .common import ATTENTION, DTYPES, WEIGHTS, build, package_file, write_json
from .saved_activations import measure as count_saved

__all__ = ["MODELS", "SHAPES", "OUT", "measure", "run", "main"]

OUT = package_file("saved_activations_hybrid.json")

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
# DeepSeek-V4's attention (a sink per head, compressed entries) runs eager only
EAGER_ONLY = {"deepseek_v4": {"eager": ("fp32", "bf16")}}


def measure(config, batch, seq_len, attn_implementation="sdpa", dtype="fp32", model=None,
            per_layer=True, alive=True, detail=False):
    """:func:`measurements.saved_activations.measure`, layer by layer (``per_layer``) by default."""
    return count_saved(config, batch, seq_len, attn_implementation, dtype, model, per_layer,
                       alive, detail)


ABOUT = ("Bytes PyTorch saves for backward in one training forward (with labels) of "
         "small random-weight decoders with hybrid or new layer kinds, built with transformers, "
         "counted with torch.autograd.graph.saved_tensors_hooks, each storage once and only if "
         "still held when the forward ends, parameters and buffers excluded; 'layers' splits "
         "the count by decoder layer. Linear mixers run transformers' reference PyTorch code "
         "(CPU). Written by measurements/saved_activations_hybrid.py.")


def run(models, impls_of, about, out, names=None, shapes=SHAPES, engine_precision=DTYPES):
    """Measure every (model, attention, dtype, shape) of ``models`` (``impls_of(config)``:
    ``{attn_implementation: dtypes}``) and write ``out`` (or, with ``names``, only those
    models, returned and not written). Shared with the other per-layer measurements."""
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
                    model = build(config, impl, WEIGHTS[dtype])
                    for batch, seq_len in shapes:
                        r = measure(config, batch, seq_len, impl, dtype, model=model)
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
        "engine_precision": engine_precision,
        "models": models,
        "rows": rows,
        "skipped": skipped,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if names:
        return data
    write_json(out, data)
    print(f"wrote {out} ({len(rows)} rows, {data['seconds']} s)")


def main(argv=()):
    return run(MODELS, lambda c: EAGER_ONLY.get(c["model_type"], IMPLS), ABOUT, OUT,
               list(argv) or None)
