"""Explorer for lesson 07: will it fit, and how fast?"""

from __future__ import annotations

from ..hardware import list_gpus, load_gpu
from ..inference import KV_DTYPES, max_batch, max_context
from ..quantization import list_schemes
from ..serving import vllm_plan
from ..zoo import load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection

__all__ = ["fit_explorer", "fit_rows", "vllm_rows"]

SEQ_LENS = [2**k for k in range(10, 18)]          # 1K .. 128K tokens
UTILIZATIONS = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95]
GiB = 2 ** 30
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
GB = 1e9


def _gb(n):
    return f"{n / GB:,.2f} GB"


def vllm_rows(cfg, gpu, n_gpus, weights, kv_dtype, seq_len, utilization=0.9):
    """vLLM's startup plan for the same setting: tensor_parallel_size = the GPUs,
    max_model_len = the context. A setting vLLM rejects shows its one-line message."""
    from ..config import ConfigError
    kv = "fp8" if kv_dtype == "fp8" else "auto"
    label = (f"vLLM at startup (TP={n_gpus}, max_model_len={seq_len:,}, "
             f"gpu_memory_utilization={utilization})")
    if kv_dtype not in ("bf16", "fp8"):
        return [Row(label, "vllm_starts", False,
                    f"vLLM's KV cache dtypes are auto and fp8, not {kv_dtype}")]
    try:
        p = vllm_plan(cfg, gpu, tensor_parallel_size=n_gpus, max_model_len=seq_len,
                      gpu_memory_utilization=utilization, kv_cache_dtype=kv,
                      weights=weights)
    except (ConfigError, ValueError) as e:
        return [Row(label, "vllm_starts", False, str(e).splitlines()[0])]
    return [
        Row(label, "vllm_starts", p.starts,
            "starts" if p.starts else f"refuses: {p.reason.split('. ')[0]}"),
        Row("vLLM KV cache per GPU (activation peak estimated)", "vllm_kv_bytes",
            p.kv_budget_bytes, f"{p.kv_budget_bytes / GiB:,.2f} GiB = {p.kv_tokens:,} tokens"),
        Row(f"vLLM concurrency at {seq_len:,} tokens", "vllm_concurrency",
            round(p.max_concurrency, 2), f"{p.max_concurrency:,.2f}x"),
    ]


def fit_rows(data, cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch):
    """The summary rows for one setting (pure: the explorer and the tests call this)."""
    plan, here = data["plan"], data["here"]
    mpe = plan.max_position_embeddings
    ctx_note = (f" (beyond the model's max_position_embeddings {mpe:,})"
                if plan.beyond_max_position else "")
    try:
        lim = max_context(cfg, gpu, n_gpus, weights, kv_dtype, batch=batch)
        ctx_val = -1 if lim.tokens is None else lim.tokens
        ctx_text = ("no memory limit (every layer is a sliding window)" if lim.tokens is None
                    else f"{lim.tokens:,} tokens")
        ctx_text += f"; the model was trained to {mpe:,}" if mpe else ""
    except ValueError as e:
        ctx_val, ctx_text = 0, f"none: {str(e).split(': ', 1)[1]}"
    try:
        b = max_batch(cfg, gpu, n_gpus, weights, kv_dtype, seq_len=seq_len)
        b_text = f"{b:,} sequences"
    except ValueError as e:
        b, b_text = 0, f"none: {str(e).split(': ', 1)[1]}"
    free = plan.free_bytes
    return [
        Row(f"weights ({plan.weights_label})", "weight_bytes", plan.weight_bytes,
            f"{_gb(plan.weight_bytes)} ({plan.weight_bytes:,} B)"),
        Row(f"KV cache ({kv_dtype}, {batch} x {seq_len:,} tokens){ctx_note}", "kv_cache_bytes",
            plan.kv_cache_bytes, f"{_gb(plan.kv_cache_bytes)} ({plan.kv_cache_bytes:,} B)"),
    ] + ([Row("linear-attention state (bf16, fixed per sequence)", "state_bytes",
              plan.state_bytes, f"{_gb(plan.state_bytes)} ({plan.state_bytes:,} B)")]
         if plan.state_bytes else []) + [
        Row("runtime reserve (10%: vLLM's gpu_memory_utilization 0.9)", "reserve_bytes",
            plan.reserve_bytes, _gb(plan.reserve_bytes)),
        Row(f"capacity ({n_gpus} x {plan.gpu})", "capacity_bytes", plan.capacity_bytes,
            _gb(plan.capacity_bytes)),
        Row("fits", "fits", plan.fits,
            f"yes, {_gb(free)} to spare" if plan.fits else f"no, short by {_gb(-free)}"),
        Row(f"longest context at batch {batch}", "max_context", ctx_val, ctx_text),
        Row(f"largest batch at {seq_len:,} tokens", "max_batch", b, b_text),
        Row(f"decode step, batch {batch} (lower bound)", "step_ms", round(here.seconds * 1e3, 4),
            f"{here.seconds * 1e3:,.2f} ms, {here.bound}-bound"),
        Row("decode tokens/s per user (upper bound)", "tokens_per_s_per_user",
            round(here.tokens_per_s_per_user, 2), f"{here.tokens_per_s_per_user:,.1f}"),
        Row("decode tokens/s, all users (upper bound)", "tokens_per_s",
            round(here.tokens_per_s, 2), f"{here.tokens_per_s:,.1f}"),
        Row("critical batch (weights' ridge point)", "critical_batch",
            round(data["critical_batch"], 1), f"{data['critical_batch']:,.0f} sequences"),
    ]


@register("fit")
def fit_explorer(model="Qwen3-30B-A3B", gpu="H100 SXM 80GB", n_gpus=1, weights="as shipped",
                 kv_dtype="bf16", seq_len=32768, batch=8, utilization=0.9):
    """Pick a model, GPUs, weight scheme, KV dtype, context and batch: see the memory
    against capacity, the limits, and the decode bound against batch."""
    from ..plots.inference import draw_fit_and_speed, fit_and_speed_data
    controls = {
        "model": model_dropdown(model),
        "gpu": dropdown("GPU", list_gpus(), load_gpu(gpu).name, width="330px"),
        "n_gpus": int_text("GPUs", n_gpus, width="150px"),
        "weights": dropdown("weights", list_schemes(), weights, width="260px"),
        "kv_dtype": dropdown("KV cache", [d for d in KV_DTYPES if d not in ("fp16", "fp32")],
                             kv_dtype, width="200px"),
        "seq_len": selection("context", SEQ_LENS, seq_len),
        "batch": selection("batch", BATCHES, batch),
        "utilization": selection("vLLM utilization", UTILIZATIONS, utilization),
    }
    state = {}

    def compute(v):
        cfg = load_model(v["model"])
        data = fit_and_speed_data(cfg, v["gpu"], v["n_gpus"], v["weights"], v["kv_dtype"],
                                  v["seq_len"], v["batch"])
        state["data"] = data
        return fit_rows(data, cfg, v["gpu"], v["n_gpus"], v["weights"], v["kv_dtype"],
                        v["seq_len"], v["batch"]) + \
            vllm_rows(cfg, v["gpu"], v["n_gpus"], v["weights"], v["kv_dtype"], v["seq_len"],
                      v["utilization"])

    def draw(fig, v, rows):
        draw_fit_and_speed(fig, state["data"])

    return Explorer("fit", controls, compute, draw, title="Will it fit, and how fast?",
                    figsize=(11, 4.6),
                    note="The idealised plan: exact bytes of weights and cache against 90% of the "
                         "datasheet memory, one pool of GPUs (vLLM's own startup budget: "
                         "lc.vllm_plan); speeds are bounds on an ideal machine.")
