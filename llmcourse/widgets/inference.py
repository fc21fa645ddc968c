"""Explorers for lessons 9 and 10: will it fit (the idealised plan beside vLLM's budget on
one GPU), and how fast (the decode bound against batch, per GPU with tensor parallelism)."""

from __future__ import annotations

from ..hardware import list_gpus, load_gpu
from ..inference import KV_DTYPES, max_batch, max_context
from ..quantization import list_schemes
from ..serving import CURRENT_VLLM
from ..serving_systems import ALLREDUCE_LATENCY_S
from ..zoo import load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection

__all__ = ["fit_explorer", "fit_rows", "vllm_rows", "speed_explorer", "speed_rows"]

SEQ_LENS = [2**k for k in range(10, 18)]          # 1K .. 128K tokens
# 0.92: today's vLLM default (PR 38284); 0.9: the default of 0.11 and before
UTILIZATIONS = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.92, 0.95]
# the vLLM releases whose budget the explorer plans: today's (the engine's default, first) and
# 0.11 (October 2025); the rows and the panel's title name the one picked
VLLM_RELEASE_MENU = [CURRENT_VLLM, "0.11"]
GiB = 2 ** 30
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
GB = 1e9
# the cache dtypes a reader can pick (vLLM's plan takes int8 and int4 as its per-token-head
# caches, int8_per_token_head and int4_per_token_head, with their scales)
CACHE_DTYPES = [d for d in KV_DTYPES if d not in ("fp16", "fp32")]


def _gb(n):
    return f"{n / GB:,.2f} GB"


def vllm_rows(data):
    """vLLM's startup plan for the setting of ``data`` (:func:`llmcourse.plots.inference.
    fit_data`): tensor_parallel_size = the GPUs, max_model_len = the context. A setting
    vLLM rejects shows its one-line message."""
    release = data["vllm_version"]
    label = (f"vLLM {release} at startup (TP={data['n_gpus']}, max_model_len="
             f"{data['seq_len']:,}, gpu_memory_utilization={data['utilization']})")
    p = data["vllm"]
    if p is None:
        return [Row(label, "vllm_starts", False, data["vllm_reason"])]
    caveat = f" ({p.memory_caveat})" if p.memory_caveat else ""
    graphs = (f"{p.cuda_graph_bytes / GiB:,.2f} GiB (an estimate from "
              f"{p.graphs.piecewise + p.graphs.full} capture sizes)"
              if p.cuda_graph_in_budget else
              "none: Model Runner V2 subtracts none" if p.model_runner == "v2" and
              p.release.cuda_graph_in_budget else "none: captured later, from the headroom")
    return [
        Row(label, "vllm_starts", p.starts,
            "starts" if p.starts else f"refuses: {p.reason.split('. ')[0]}"),
        Row(f"vLLM {release}: what the CUDA runtime reports on one GPU", "vllm_total_bytes",
            p.total_bytes, f"{p.total_bytes / GiB:,.2f} GiB{caveat}"),
        Row(f"vLLM {release}: weights as loaded on one GPU", "vllm_weight_bytes",
            p.weight_bytes, f"{p.weight_bytes / GiB:,.2f} GiB"),
        Row(f"vLLM {release}: profiling peak ({p.sampler} sampler, an estimate) + non-torch "
            f"(a stated figure)", "vllm_overhead_bytes", p.activation_bytes + p.non_torch_bytes,
            f"{p.activation_bytes / GiB:,.2f} + {p.non_torch_bytes / GiB:,.2f} GiB"),
        Row(f"vLLM {release}: CUDA-graph estimate in the budget", "vllm_cuda_graph_bytes",
            p.cuda_graph_bytes if p.cuda_graph_in_budget else 0, graphs),
        Row(f"vLLM {release}: KV cache per GPU", "vllm_kv_bytes", p.kv_budget_bytes,
            f"{p.kv_budget_bytes / GiB:,.2f} GiB = {p.kv_tokens:,} tokens"),
        Row(f"vLLM {release}: concurrency at {data['seq_len']:,} tokens (its KV cache "
            f"groups)", "vllm_concurrency", round(p.max_concurrency, 2),
            f"{p.max_concurrency:,.2f}x: {p.concurrent_requests:,} requests at once "
            f"(max_num_seqs {p.max_num_seqs:,})"),
    ] + [Row(f"vLLM {release}: not modelled", "vllm_caveat", 0, c) for c in p.caveats]


def fit_rows(data, cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch):
    """The idealised plan's rows for one setting (pure: the explorer and the tests call
    this); ``data`` from :func:`llmcourse.plots.inference.fit_data`."""
    plan = data["plan"]
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
        Row("the idealised reserve (10% of each GPU: utilization 0.9)", "reserve_bytes",
            plan.reserve_bytes, _gb(plan.reserve_bytes)),
        Row(f"capacity ({n_gpus} x {plan.gpu}, datasheet)", "capacity_bytes",
            plan.capacity_bytes, _gb(plan.capacity_bytes)),
        Row("fits (idealised: one pool)", "fits", plan.fits,
            f"yes, {_gb(free)} to spare" if plan.fits else f"no, short by {_gb(-free)}"),
        Row(f"longest context at batch {batch}", "max_context", ctx_val, ctx_text),
        Row(f"largest batch at {seq_len:,} tokens", "max_batch", b, b_text),
    ]


def _serving_controls(model, gpu, n_gpus, weights, kv_dtype, seq_len, batch, gpus_label,
                      gpus_width):
    """The controls the fit and speed explorers share: a model, GPUs, weights and cache
    dtypes, context and batch."""
    return {
        "model": model_dropdown(model),
        "gpu": dropdown("GPU", list_gpus(), load_gpu(gpu).name, width="330px"),
        "n_gpus": int_text(gpus_label, n_gpus, width=gpus_width),
        "weights": dropdown("weights", list_schemes(), weights, width="260px"),
        "kv_dtype": dropdown("KV cache", CACHE_DTYPES, kv_dtype, width="200px"),
        "seq_len": selection("context", SEQ_LENS, seq_len),
        "batch": selection("batch", BATCHES, batch),
    }


@register("fit")
def fit_explorer(model="Qwen3-30B-A3B", gpu="H100 SXM 80GB", n_gpus=1, weights="as shipped",
                 kv_dtype="bf16", seq_len=32768, batch=8, utilization=0.92,
                 vllm_version=CURRENT_VLLM):
    """Pick a model, GPUs, weight scheme, KV dtype, context and batch: the idealised plan
    against the datasheet memory, beside the budget a vLLM release (today's by default)
    makes on one GPU at startup."""
    from ..plots.inference import draw_fit, fit_data
    controls = dict(
        _serving_controls(model, gpu, n_gpus, weights, kv_dtype, seq_len, batch, "GPUs", "150px"),
        utilization=selection("vLLM utilization", UTILIZATIONS, utilization),
        vllm_version=dropdown("vLLM release", VLLM_RELEASE_MENU, vllm_version, width="200px"))
    state = {}

    def compute(v):
        cfg = load_model(v["model"])
        data = fit_data(cfg, v["gpu"], v["n_gpus"], v["weights"], v["kv_dtype"], v["seq_len"],
                        v["batch"], v["utilization"], v["vllm_version"])
        state["data"] = data
        return fit_rows(data, cfg, v["gpu"], v["n_gpus"], v["weights"], v["kv_dtype"],
                        v["seq_len"], v["batch"]) + vllm_rows(data)

    def draw(fig, v, rows):
        draw_fit(fig, state["data"])

    return Explorer("fit", controls, compute, draw, title="Will it fit?", figsize=(11, 4.3),
                    note="Left: the idealised plan, the GPUs as one pool against 90% of the "
                         "datasheet memory. Right: the chosen vLLM release's budget on one GPU "
                         "(tensor-parallel size = the GPUs, max_model_len = the context), "
                         "against what the CUDA runtime reports; its activation peak is an "
                         "estimate, non-torch and CUDA-graph memory stated figures.")


# --- lesson 10: how fast ------------------------------------------------------------------

def _band_coverage():
    """'33 of 38 rows': how often the band held the measurement out of sample."""
    from ..decode_speed import decode_speed_band_check
    c = decode_speed_band_check()
    return f"{c.inside} of {c.rows} rows"


def speed_rows(data, cfg, gpu, n_gpus, weights, kv_dtype, seq_len):
    """The rows of the speed explorer for ``data`` from :func:`llmcourse.plots.inference.
    speed_data` (pure)."""
    from ..serving import expected_decode_speed
    here, b = data["here"], data["batch"]
    mpe = cfg.get("max_position_embeddings")
    ctx = (f"{seq_len:,} tokens: beyond the model's {mpe:,}-token context" if mpe and seq_len > mpe
           else f"{seq_len:,} tokens")
    bound = "memory" if here.t_memory >= here.t_compute else "compute"
    rows = [
        Row("context", "seq_len", seq_len, ctx),
        Row(f"decode step, batch {b}, one GPU (a bound)", "step_ms",
            round(here.seconds * 1e3, 4),
            f"{here.seconds * 1e3:,.3f} ms, {bound}-bound"),
        Row("  reading the weights and the cache", "t_memory_ms", round(here.t_memory * 1e3, 4),
            f"{here.t_memory * 1e3:,.3f} ms ({(here.weight_bytes_read + here.kv_bytes) / GB:,.2f}"
            f" GB per GPU)"),
        Row("  the arithmetic", "t_compute_ms", round(here.t_compute * 1e3, 4),
            f"{here.t_compute * 1e3:,.3f} ms"),
        Row(f"  2 x {cfg.num_hidden_layers} all-reduces: bandwidth (in the bound)",
            "t_allreduce_ms", round(here.t_allreduce * 1e3, 6),
            f"{here.t_allreduce * 1e3:,.4f} ms"),
        Row(f"  2 x {cfg.num_hidden_layers} all-reduces: latency (not in the bound)",
            "t_allreduce_latency_ms", round(data["allreduce_latency_s"] * 1e3, 4),
            (f"{data['allreduce_latency_s'] * 1e3:,.3f} ms at "
             f"{ALLREDUCE_LATENCY_S * 1e6:.0f} us each (a stated figure)")
            if n_gpus > 1 else "none: one GPU"),
        Row("decode tokens/s per user (a bound)", "tokens_per_s_per_user",
            round(here.tokens_per_s_per_user, 2), f"{here.tokens_per_s_per_user:,.1f}"),
        Row("decode tokens/s, all users (a bound)", "tokens_per_s",
            round(here.tokens_per_s_per_user * b, 2), f"{here.tokens_per_s_per_user * b:,.1f}"),
        Row("critical batch (the weights' ridge point)", "critical_batch",
            round(data["critical_batch"], 1), f"{data['critical_batch']:,.0f} sequences"),
    ]
    ecb = data["expert_critical_batch"]
    if ecb is not None:
        rows.append(Row("routed experts' critical batch (x E / k)", "expert_critical_batch",
                        round(ecb, 1), f"{ecb:,.0f} sequences"))
    mb = data["max_batch"]
    rows.append(Row(f"largest batch whose caches fit ({n_gpus} GPUs as one pool)", "max_batch",
                    mb, f"{mb:,}" if mb else "none: the weights do not fit"))
    try:
        e = expected_decode_speed(cfg, gpu, "vLLM", n_gpus, weights, kv_dtype, seq_len)
    except ValueError:
        e = None
    if e is not None:
        rows.append(Row("batch 1: the bound (per GPU)", "bound_batch1",
                        round(e.bound_tokens_per_s, 1), f"{e.bound_tokens_per_s:,.0f} tokens/s"))
        if e.withheld:
            rows.append(Row("vLLM at batch 1: to expect", "expected_vllm", 0,
                            f"no estimate: {e.withheld}"))
        else:
            held = (f"held out of sample on {_band_coverage()}" if not e.outside else
                    "; ".join(e.outside) + ": band widened")
            rows.append(Row("vLLM at batch 1: to expect (an estimate)", "expected_vllm",
                            round(e.expected_tokens_per_s, 1),
                            f"~{e.expected_tokens_per_s:,.0f} tokens/s, band "
                            f"{e.low_tokens_per_s:,.0f}-{e.high_tokens_per_s:,.0f} ({held})"))
    return rows


@register("speed")
def speed_explorer(model="Qwen3-30B-A3B", gpu="H100 SXM 80GB", n_gpus=1, weights="as shipped",
                   kv_dtype="bf16", seq_len=8192, batch=8):
    """Pick a model, GPUs (tensor parallel), weights, cache dtype, context and batch: the
    decode bound per GPU against batch, with the critical batches."""
    from ..plots.inference import draw_speed, speed_data
    controls = _serving_controls(model, gpu, n_gpus, weights, kv_dtype, seq_len, batch,
                                 "GPUs (TP)", "170px")
    state = {}

    def compute(v):
        cfg = load_model(v["model"])
        data = speed_data(cfg, v["gpu"], v["n_gpus"], v["weights"], v["kv_dtype"],
                          v["seq_len"], v["batch"])
        state["data"] = data
        return speed_rows(data, cfg, v["gpu"], v["n_gpus"], v["weights"], v["kv_dtype"],
                          v["seq_len"])

    def draw(fig, v, rows):
        draw_speed(fig, state["data"])

    return Explorer("speed", controls, compute, draw, title="How fast?", figsize=(11, 4.3),
                    note="Bounds on an ideal machine, per GPU: each GPU reads its shard of the "
                         "weights and its KV heads over its own bandwidth, then two all-reduces "
                         "per layer (their bandwidth term; the table adds their latency). The "
                         "cyan region: batches whose caches do not fit.")
