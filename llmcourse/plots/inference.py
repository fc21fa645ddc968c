"""Figures for lessons 9 and 10: will it fit (the idealised plan's memory bar against the
GPUs' capacity, beside vLLM's budget on one GPU) and how fast (decode tokens/s against
batch, a bound on an ideal machine, with the weights' and the experts' critical batch)."""

from __future__ import annotations

from matplotlib.patches import Rectangle
from matplotlib.ticker import LogLocator, NullFormatter

from ..hardware import as_gpu
from ..inference import (critical_batch, decode_step_time, max_batch, memory_plan)
from ..quantization import AS_SHIPPED, SCHEMES, scheme_as_shipped, stored_weights
from ..zoo import as_config
from .style import (CONCEPT_DASHES, TEXT_SIZES, clear_figure, color_of, ink_for, new_figure,
                    plain_log_axis, styled)

__all__ = ["fit_and_speed_data", "draw_fit_and_speed", "fit_and_speed", "fit_and_speed_title",
           "decode_speed_vs_context", "ROOFLINE_BATCHES", "fit_data", "draw_fit",
           "fit_figure", "speed_data", "draw_speed", "speed_figure", "expert_critical_batch"]

ROOFLINE_BATCHES = [round(2 ** (k / 2)) for k in range(0, 21)]   # 1 .. 1024, half-octaves
ROOFLINE_BATCHES = sorted(set(ROOFLINE_BATCHES))
SPEED_BATCHES = sorted(set(round(2 ** (k / 2)) for k in range(0, 27)))   # 1 .. 8192
GB = 1e9


def _weights_dtype(cfg, weights):
    """(nominal weight dtype, compute dtype) of a weight setting, for the critical batch."""
    if isinstance(weights, str) and weights.lower() == AS_SHIPPED:
        s = scheme_as_shipped(cfg)[0]
    elif isinstance(weights, str) and weights.lower() in SCHEMES:
        s = SCHEMES[weights.lower()]
    else:
        return "bf16", "bf16"
    return s.nominal, s.compute_dtype


def fit_and_speed_data(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=8192,
                       batch=1):
    """Everything the figure shows, from the engine (pure: values in, numbers out)."""
    cfg = as_config(cfg)
    gpu = as_gpu(gpu)
    plan = memory_plan(cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch)
    sw = stored_weights(cfg, weights) if isinstance(weights, str) else weights
    try:
        limit = max_batch(cfg, gpu, n_gpus, sw, kv_dtype, seq_len=seq_len)
    except ValueError:
        limit = 0
    curve = [decode_step_time(cfg, gpu, n_gpus, sw, kv_dtype, seq_len, b) for b in ROOFLINE_BATCHES]
    nominal, compute = _weights_dtype(cfg, weights)
    here = decode_step_time(cfg, gpu, n_gpus, sw, kv_dtype, seq_len, batch)
    return {"plan": plan, "max_batch": limit, "curve": curve, "here": here,
            "critical_batch": critical_batch(gpu, nominal, compute), "n_gpus": n_gpus,
            "gpu": gpu.name, "model": cfg.name, "seq_len": seq_len, "batch": batch}


def _setup(fig):
    clear_figure(fig)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.15, 2.4]})
    parts = ("weights", "kv_cache", "reserve")
    bars = {p: left.bar([0], [0], width=0.8, color=color_of(p), edgecolor="white",
                        hatch="//" if p == "reserve" else "")[0] for p in parts}
    texts = {p: left.text(0, 0, "", ha="center", va="center", fontsize=TEXT_SIZES["label"],
                          color=ink_for(color_of(p))) for p in parts}
    cap = left.axhline(1, color="black", lw=2)
    cap_text = left.text(0.45, 1, "", ha="left", va="bottom", fontsize=TEXT_SIZES["label"])
    left.set_xlim(-0.45, 1.25)
    left.set_xticks([])
    left.set_ylabel("GB (10^9 bytes)")
    left.grid(axis="x", visible=False)

    total = right.plot([], [], lw=2.6, color=color_of("series:2"))[0]
    user = right.plot([], [], lw=2.6, ls="--", color=color_of("series:4"))[0]
    dots = right.plot([], [], "o", ms=9, color=color_of("highlight"), zorder=5)[0]
    t_total = right.text(0, 0, "all users", color=color_of("series:2"), va="bottom",
                         ha="right", fontsize=TEXT_SIZES["label"], fontweight="bold")
    t_user = right.text(0, 0, "per user", color=color_of("series:4"), va="top", ha="right",
                        fontsize=TEXT_SIZES["label"], fontweight="bold")
    crit = right.axvline(1, color=color_of("reference"), ls=":", lw=2)
    t_crit = right.text(1, 0.55, "", rotation=90, ha="right", va="center",
                        transform=right.get_xaxis_transform(), fontsize=TEXT_SIZES["label"],
                        color=color_of("reference"),
                        bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
    nofit = Rectangle((1, 0), 0, 1, transform=right.get_xaxis_transform(),
                      facecolor=color_of("other"), alpha=0.25, lw=0)
    right.add_patch(nofit)
    t_nofit = right.text(1, 0.97, "does not fit\nin memory", ha="left", va="top",
                         transform=right.get_xaxis_transform(), fontsize=TEXT_SIZES["label"])
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    plain_log_axis(right.yaxis, "{:,.0f}")
    ticks = [1, 4, 16, 64, 256, 1024]
    right.set_xticks(ticks, [str(t) for t in ticks])
    right.xaxis.set_minor_formatter(NullFormatter())
    right.set_xlim(1, 1024 * 1.1)
    right.set_xlabel("batch (sequences decoding together, log scale)")
    right.set_ylabel("decode tokens/s (upper bound, log)")
    state = dict(left=left, right=right, bars=bars, texts=texts, cap=cap, cap_text=cap_text,
                 total=total, user=user, dots=dots, t_total=t_total, t_user=t_user, crit=crit,
                 t_crit=t_crit, nofit=nofit, t_nofit=t_nofit)
    fig._lc_infer_state = state
    return state


def draw_fit_and_speed(fig, data):
    """Draw (or update in place) the memory bar and the decode roofline for ``data``
    from :func:`fit_and_speed_data`."""
    state = getattr(fig, "_lc_infer_state", None)
    if state is None or state["left"] not in fig.axes:
        state = _setup(fig)
    plan = data["plan"]
    left, right = state["left"], state["right"]
    parts = [("weights", plan.weight_bytes, "weights"), ("kv_cache", plan.cache_bytes, "KV cache"),
             ("reserve", plan.reserve_bytes, "reserve")]
    top = max(plan.total_bytes, plan.capacity_bytes) / GB * 1.22
    left.set_ylim(0, top)
    bottom = 0.0
    for key, size, name in parts:
        h = size / GB
        bar, text = state["bars"][key], state["texts"][key]
        bar.set_y(bottom)
        bar.set_height(h)
        text.set_position((0, bottom + h / 2))
        text.set_text(f"{name}\n{h:,.1f} GB" if h >= 0.13 * top else
                      f"{name} {h:,.1f} GB" if h >= 0.055 * top else "")
        bottom += h
    cap = plan.capacity_bytes / GB
    state["cap"].set_ydata([cap, cap])
    state["cap_text"].set_position((0.45, cap))
    state["cap_text"].set_text(f"capacity\n{plan.n_gpus} x {plan.gpu.split(' ')[0]}")
    verdict = "fits" if plan.fits else "does not fit"
    left.set_title(f"{verdict}: {plan.total_bytes / GB:,.1f} of {cap:,.0f} GB",
                   color="black" if plan.fits else color_of("highlight"), y=1.0)

    xs = [s.batch for s in data["curve"]]
    tot = [s.tokens_per_s for s in data["curve"]]
    usr = [s.tokens_per_s_per_user for s in data["curve"]]
    state["total"].set_data(xs, tot)
    state["user"].set_data(xs, usr)
    here = data["here"]
    b = data["batch"]
    state["dots"].set_data([b, b], [here.tokens_per_s, here.tokens_per_s_per_user])
    lo, hi = min(usr + tot), max(usr + tot)
    right.set_ylim(lo / 2, hi * 3)
    state["t_total"].set_position((xs[-1], tot[-1] * 1.15))
    state["t_user"].set_position((xs[-1], usr[-1] / 1.15))
    cb = data["critical_batch"]
    show_cb = 1 <= cb <= 1024
    state["crit"].set_visible(show_cb)
    state["t_crit"].set_visible(show_cb)
    if show_cb:
        state["crit"].set_xdata([cb, cb])
        state["t_crit"].set_x(cb)
        state["t_crit"].set_text(f"critical batch {cb:,.0f}")
    mb = data["max_batch"]
    start = max(mb + 0.5, 1) if mb else 1
    state["nofit"].set_x(start)
    state["nofit"].set_width(max(0, 2048 - start))
    state["nofit"].set_visible(start < 1024)
    state["t_nofit"].set_visible(start < 700)
    state["t_nofit"].set_x(start * 1.05)
    right.set_title(f"≤ {here.tokens_per_s_per_user:,.0f} tokens/s per user (batch {b}, "
                    f"{data['seq_len']:,} tokens)", y=1.0)
    return left, right


@styled
def fit_and_speed(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=8192,
                  batch=1, size=(12, 5)):
    """The explorer's figure as a static one: memory against capacity, and the decode
    bound against batch."""
    fig, _ = new_figure(0, 0, size=size)
    data = fit_and_speed_data(cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch)
    draw_fit_and_speed(fig, data)
    fig.suptitle(fit_and_speed_title(data))
    return fig


def fit_and_speed_title(data):
    """The figure's point in words: how far the batch can grow before memory runs out,
    against the weights' critical batch (the roofline's knee), for ``data``."""
    where = f"{data['model']}, {data['n_gpus']} x {data['gpu'].split(' ')[0]}"
    plan, mb, cb = data["plan"], data["max_batch"], data["critical_batch"]
    if not plan.fits:
        return f"{where}: batch {data['batch']} at {data['seq_len']:,} tokens does not fit"
    if mb < cb:
        return f"{where}: fits up to batch {mb:,}, below the critical batch {cb:,.0f}"
    return f"{where}: compute-bound past batch {cb:,.0f}, fits up to batch {mb:,}"


@styled
def decode_speed_vs_context(variants, gpu, batch=1, weights="bf16", kv_dtype="bf16",
                            contexts=None, title=None):
    """Decode tokens/s per user (upper bound) against context, one line per ``(label,
    cfg)`` or ``(label, cfg, concept)`` (``"mha"``, ``"gqa"``, ``"mqa"``, ``"mla"``: drawn
    in that concept's course colour and dash): a smaller KV cache is a faster decode step
    at long context."""
    gpu = as_gpu(gpu)
    contexts = contexts or [2 ** k for k in range(9, 18)]
    fig, ax = new_figure(size=(10, 4.8))
    any_faded = False
    for i, (label, cfg, *concept) in enumerate(variants):
        ys = [decode_step_time(cfg, gpu, 1, weights, kv_dtype, n, batch).tokens_per_s_per_user
              for n in contexts]
        fits = [memory_plan(cfg, gpu, 1, weights, kv_dtype, n, batch).fits for n in contexts]
        if concept:
            color, ls = color_of(concept[0]), CONCEPT_DASHES[concept[0]]
        else:
            color, ls = color_of(f"series:{i}"), ["-", "--", ":", "-."][i % 4]
        ax.plot(contexts, ys, lw=2.6, color=color, ls=ls, alpha=0.3)       # every point
        last = max((j for j, f in enumerate(fits) if f), default=-1)
        if last >= 0:                                                      # the part that fits
            ax.plot(contexts[:last + 1], ys[:last + 1], lw=2.6, color=color, ls=ls)
        any_faded = any_faded or not all(fits)
        ax.text(contexts[-1] * 1.08, ys[-1], label, va="center", color=color,
                fontsize=TEXT_SIZES["label"], fontweight="bold")
    if any_faded:
        ax.text(0.01, 0.02, f"faded: batch {batch} of these caches does not fit in "
                f"{gpu.memory_bytes / 1e9:,.0f} GB", transform=ax.transAxes,
                fontsize=TEXT_SIZES["label"], color=color_of("reference"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis, "{:,.0f}")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    ticks = contexts[::2]
    ax.set_xticks(ticks, [f"{n // 1024}K" if n >= 1024 else str(n) for n in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(contexts[0] / 1.2, contexts[-1] * 5)
    ax.set_xlabel("tokens in the cache per sequence (log scale)")
    ax.set_ylabel("decode tokens/s per user (bound, log)")
    ax.set_title(title or f"Decode on one {gpu.name}, batch {batch}: a smaller cache is faster")
    return fig


# --- lesson 9: the idealised plan beside vLLM's budget on one GPU ----------------------

GiB = 2 ** 30
# vLLM's budget on one GPU, bottom to top: (VllmPlan attribute or part, label, colour key)
VLLM_PARTS = (("weight_bytes", "weights", "weights"),
              ("activation_bytes", "activation peak", "activations"),
              ("non_torch_bytes", "non-torch", "reference"),
              ("cuda_graph_bytes", "CUDA graphs", "optimizer"),
              ("kv", "KV cache", "kv_cache"),
              ("headroom", "headroom", "reserve"))


# the explorer's cache dtypes as vLLM names them
VLLM_KV = {"bf16": "auto", "fp16": "auto", "fp8": "fp8", "int8": "int8_per_token_head",
           "int4": "int4_per_token_head"}


def fit_data(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=8192, batch=1,
             utilization=None, vllm_version=None):
    """What lesson 9's figure shows (pure): the idealised plan (``plan``), and the startup
    plan of vLLM ``vllm_version`` (default: today's release) for the same setting on one GPU
    (``vllm``: tensor_parallel_size = the GPUs, max_model_len = the context, utilization: the
    release's default unless given), or why vLLM cannot say (``vllm_reason``)."""
    from ..config import ConfigError
    from ..serving import vllm_plan, vllm_release
    release = vllm_release(vllm_version).version
    cfg = as_config(cfg)
    gpu = as_gpu(gpu)
    plan = memory_plan(cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch)
    vllm, reason = None, ""
    # the explorer's cache dtypes, as vLLM names them (int8 and int4: per token-head scales)
    vkv = VLLM_KV.get(kv_dtype)
    if vkv is None:
        reason = f"vLLM has no {kv_dtype} KV cache"
    else:
        try:
            vllm = vllm_plan(cfg, gpu, tensor_parallel_size=n_gpus, max_model_len=seq_len,
                             gpu_memory_utilization=utilization, kv_cache_dtype=vkv,
                             weights=weights, vllm_version=release)
        except (ConfigError, ValueError) as e:
            reason = str(e).splitlines()[0]
    if utilization is None:
        utilization = vllm_release(release).default_utilization
    return {"plan": plan, "vllm": vllm, "vllm_reason": reason, "model": cfg.name,
            "gpu": gpu.name, "n_gpus": n_gpus, "seq_len": seq_len, "batch": batch,
            "utilization": utilization, "vllm_version": release}


def _setup_fit(fig):
    clear_figure(fig)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1]})
    st = {"left": left, "right": right}
    for ax, parts, key in ((left, (("weights", "weights"), ("kv_cache", "KV cache"),
                                   ("reserve", "reserve")), "ideal"),
                           (right, tuple((a, n) for a, n, _ in VLLM_PARTS), "vllm")):
        colours = {"weights": "weights", "kv_cache": "kv_cache", "reserve": "reserve"} \
            if key == "ideal" else {a: c for a, _, c in VLLM_PARTS}
        st[key] = {}
        for attr, name in parts:
            c = color_of(colours[attr])
            hatch = "//" if colours[attr] == "reserve" else ""
            bar = ax.bar([0], [0], width=0.7, color=c, edgecolor="white", hatch=hatch)[0]
            text = ax.text(0.42, 0, "", ha="left", va="center", fontsize=TEXT_SIZES["label"])
            st[key][attr] = (bar, text, name)
        ax.set_xlim(-0.45, 1.6)
        ax.set_xticks([])
        ax.grid(axis="x", visible=False)
    st["cap"] = left.axhline(1, color="black", lw=2)
    st["cap_text"] = left.text(-0.42, 1, "", ha="left", va="bottom",
                               fontsize=TEXT_SIZES["label"])
    st["rt"] = right.axhline(1, color="black", lw=2)
    st["rt_text"] = right.text(-0.42, 1, "", ha="left", va="bottom",
                               fontsize=TEXT_SIZES["label"])
    left.set_ylabel("GB (10^9 bytes), all GPUs")
    right.set_ylabel("GiB (2^30 bytes), one GPU")
    fig._lc_fit_state = st
    return st


def _stack(ax, parts, sizes, top):
    """Move the bars of ``parts`` to stack ``sizes`` (in the axis unit); label those tall
    enough beside the bar."""
    bottom = 0.0
    for attr, (bar, text, name) in parts.items():
        h = max(sizes.get(attr, 0.0), 0.0)
        bar.set_y(bottom)
        bar.set_height(h)
        text.set_position((0.42, bottom + h / 2))
        text.set_text(f"{name} {h:,.1f}" if h >= 0.045 * top else "")
        bottom += h
    return bottom


def draw_fit(fig, data):
    """Draw (or update in place) lesson 9's two bars for ``data`` from :func:`fit_data`:
    the idealised plan against the GPUs' datasheet memory, and vLLM's budget on one GPU
    against the memory the CUDA runtime reports."""
    st = getattr(fig, "_lc_fit_state", None)
    if st is None or st["left"] not in fig.axes:
        st = _setup_fit(fig)
    plan, left, right = data["plan"], st["left"], st["right"]
    cap = plan.capacity_bytes / GB
    top = max(plan.total_bytes / GB, cap) * 1.18
    left.set_ylim(0, top)
    _stack(left, st["ideal"], {"weights": plan.weight_bytes / GB,
                               "kv_cache": plan.cache_bytes / GB,
                               "reserve": plan.reserve_bytes / GB}, top)
    st["cap"].set_ydata([cap, cap])
    st["cap_text"].set_position((-0.42, cap))
    st["cap_text"].set_text(f"{plan.n_gpus} x {plan.gpu.split(' ')[0]}: {cap:,.0f} GB")
    verdict = "fits" if plan.fits else "does not fit"
    left.set_title(f"idealised: {verdict} ({plan.batch} x {plan.seq_len:,} tokens)",
                   color="black" if plan.fits else color_of("highlight"), y=1.0)

    v = data["vllm"]
    st.setdefault("msg", right.text(0.5, 0.5, "", ha="center", va="center", wrap=True,
                                    transform=right.transAxes, fontsize=TEXT_SIZES["label"],
                                    color=color_of("highlight")))
    st["msg"].set_text("")
    if v is None or not v.starts:
        # vLLM's own message, whole, inside the panel (a title would clip it)
        message = data["vllm_reason"] if v is None else v.reason
        if v is None:
            _stack(right, st["vllm"], {}, 1)
            right.set_ylim(0, 1)
            st["rt"].set_visible(False)
            st["rt_text"].set_visible(False)
            right.set_title(f"vLLM {data['vllm_version']}: not planned" if data["vllm_reason"]
                            .startswith(("gpu:", "model:", "kv_cache_dtype:")) else
                            f"vLLM {data['vllm_version']} refuses", color=color_of("highlight"),
                            y=1.0)
            st["msg"].set_text(_wrap(message))
            right.yaxis.set_visible(False)
            return left, right
    right.yaxis.set_visible(True)
    total = v.total_bytes / GiB
    sizes = {"weight_bytes": v.weight_bytes / GiB, "activation_bytes": v.activation_bytes / GiB,
             "non_torch_bytes": v.non_torch_bytes / GiB,
             "cuda_graph_bytes": (v.cuda_graph_bytes / GiB if v.cuda_graph_in_budget else 0),
             "kv": max(v.kv_budget_bytes, 0) / GiB,
             "headroom": (v.total_bytes - v.requested_bytes) / GiB}
    used = sum(sizes.values())
    top_r = max(used, total) * 1.18
    right.set_ylim(0, top_r)
    _stack(right, st["vllm"], sizes, top_r)
    st["rt"].set_visible(True)
    st["rt_text"].set_visible(True)
    st["rt"].set_ydata([total, total])
    st["rt_text"].set_position((-0.42, total))
    st["rt_text"].set_text(f"one {v.gpu.split(' ')[0]} reports {total:,.2f} GiB"
                           if not v.memory_caveat else
                           f"one {v.gpu.split(' ')[0]}: {total:,.2f} GiB (datasheet; runtime "
                           f"unknown)")
    if v.starts:
        right.set_title(f"vLLM {v.vllm_version}, TP={v.tensor_parallel_size}: "
                        f"{v.kv_tokens:,} tokens, {v.max_concurrency:,.1f}x", y=1.0)
    else:
        right.set_title(f"vLLM {v.vllm_version} refuses (TP={v.tensor_parallel_size})",
                        color=color_of("highlight"), y=1.0)
        st["msg"].set_text(_wrap(v.reason))
    return left, right


def _wrap(text, width=46, lines=9):
    """vLLM's message broken into lines that fit the panel (the first ``lines`` of them)."""
    import textwrap
    out = textwrap.wrap(text, width)
    return "\n".join(out[:lines]) + ("…" if len(out) > lines else "")


def _short(reason, most=42):
    """The first clause of a message, short enough for a panel title."""
    first = reason.split(". ")[0].split(": ")[-1]
    return first if len(first) <= most else first[:most - 1].rstrip() + "…"


@styled
def fit_figure(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=8192, batch=1,
               utilization=None, vllm_version=None, size=(11, 4.6)):
    """Lesson 9's explorer figure as a static one: the idealised plan beside the budget of
    vLLM ``vllm_version`` (today's release unless given) on one GPU."""
    fig, _ = new_figure(0, 0, size=size)
    data = fit_data(cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch, utilization,
                    vllm_version)
    draw_fit(fig, data)
    return fig


# --- lesson 10: decode speed against batch, per GPU --------------------------------------

def expert_critical_batch(cfg, gpu, weights="bf16", compute_dtype="bf16"):
    """The batch at which a routed expert's matmul turns compute-bound
    (:func:`llmcourse.serving_systems.moe_critical_batch`: each expert sees ``B x k / E``
    tokens of a batch of ``B``, so the weights' critical batch grows by ``E / k``); None for
    a model without routed experts."""
    from ..serving_systems import moe_critical_batch
    cfg = as_config(cfg)
    if not cfg.is_moe:
        return None
    return moe_critical_batch(cfg, gpu, weights, compute_dtype).moe_critical_batch


def speed_data(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=8192, batch=1):
    """What lesson 10's figure shows (pure): the per-GPU decode bound with tensor
    parallelism over ``n_gpus`` (:func:`llmcourse.serving.decode_step_per_gpu`) at every
    batch of ``SPEED_BATCHES`` and at ``batch``, the largest batch whose caches fit (the
    idealised plan), and the weights' and experts' critical batch."""
    from ..serving import decode_step_per_gpu
    cfg = as_config(cfg)
    gpu = as_gpu(gpu)
    sw = stored_weights(cfg, weights) if isinstance(weights, str) else weights
    curve = [decode_step_per_gpu(cfg, gpu, n_gpus, sw, kv_dtype, seq_len, b)
             for b in SPEED_BATCHES]
    here = decode_step_per_gpu(cfg, gpu, n_gpus, sw, kv_dtype, seq_len, batch)
    try:
        limit = max_batch(cfg, gpu, n_gpus, sw, kv_dtype, seq_len=seq_len)
    except ValueError:
        limit = 0
    nominal, compute = _weights_dtype(cfg, weights)
    from ..serving_systems import tp_allreduce_cost
    latency = tp_allreduce_cost(cfg, gpu, n_gpus, batch, sw, seq_len).latency_s
    return {"curve": curve, "here": here, "max_batch": limit, "allreduce_latency_s": latency,
            "critical_batch": critical_batch(gpu, nominal, compute),
            "expert_critical_batch": expert_critical_batch(cfg, gpu, nominal, compute),
            "model": cfg.name, "gpu": gpu.name, "n_gpus": n_gpus, "seq_len": seq_len,
            "batch": batch}


def _setup_speed(fig):
    clear_figure(fig)
    ax = fig.subplots()
    st = {"ax": ax}
    st["total"] = ax.plot([], [], lw=2.6, color=color_of("series:2"))[0]
    st["user"] = ax.plot([], [], lw=2.6, ls="--", color=color_of("series:4"))[0]
    st["dots"] = ax.plot([], [], "o", ms=9, color=color_of("highlight"), zorder=5)[0]
    st["t_total"] = ax.text(0, 0, "all users", color=color_of("series:2"), va="bottom",
                            ha="left", fontsize=TEXT_SIZES["label"], fontweight="bold")
    st["t_user"] = ax.text(0, 0, "per user", color=color_of("series:4"), va="top", ha="left",
                           fontsize=TEXT_SIZES["label"], fontweight="bold")
    st["lines"] = []
    for ls in (":", "-."):
        line = ax.axvline(1, color=color_of("reference"), ls=ls, lw=2)
        text = ax.text(1, 0.5, "", rotation=90, ha="right", va="center",
                       transform=ax.get_xaxis_transform(), fontsize=TEXT_SIZES["label"],
                       color=color_of("reference"),
                       bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=1))
        st["lines"].append((line, text))
    st["nofit"] = Rectangle((1, 0), 0, 1, transform=ax.get_xaxis_transform(),
                            facecolor=color_of("other"), alpha=0.25, lw=0)
    ax.add_patch(st["nofit"])
    st["t_nofit"] = ax.text(1, 0.97, "caches do not\nfit (cyan)", ha="left", va="top",
                            transform=ax.get_xaxis_transform(), fontsize=TEXT_SIZES["label"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis, "{:,.0f}")
    ticks = [1, 4, 16, 64, 256, 1024, 4096]
    ax.set_xticks(ticks, ["1", "4", "16", "64", "256", "1K", "4K"])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(1, SPEED_BATCHES[-1] * 1.1)
    ax.set_xlabel("batch (sequences decoding together, log scale)")
    ax.set_ylabel("decode tokens/s (bound, log)")
    fig._lc_speed_state = st
    return st


def draw_speed(fig, data):
    """Draw (or update in place) the decode bound against batch for ``data`` from
    :func:`speed_data`: total and per user, the batch chosen, the weights' (and a mixture
    of experts' routed experts') critical batch, and the batches whose caches do not fit."""
    st = getattr(fig, "_lc_speed_state", None)
    if st is None or st["ax"] not in fig.axes:
        st = _setup_speed(fig)
    ax = st["ax"]
    xs = [s.batch for s in data["curve"]]
    usr = [s.tokens_per_s_per_user for s in data["curve"]]
    tot = [u * b for u, b in zip(usr, xs)]
    st["total"].set_data(xs, tot)
    st["user"].set_data(xs, usr)
    here, b = data["here"], data["batch"]
    st["dots"].set_data([b, b], [here.tokens_per_s_per_user * b, here.tokens_per_s_per_user])
    lo, hi = min(usr + tot), max(usr + tot)
    ax.set_ylim(lo / 2, hi * 3)
    at = xs.index(2)                                    # label the lines near their start
    st["t_total"].set_position((2, tot[at] * 1.3))
    st["t_user"].set_position((2, usr[at] / 1.6))
    marks = [("critical batch", data["critical_batch"], 0.5),
             ("experts' critical batch", data["expert_critical_batch"], 0.35)]
    for (line, text), (name, cb, y) in zip(st["lines"], marks):
        show = cb is not None and 1 <= cb <= SPEED_BATCHES[-1]
        line.set_visible(show)
        text.set_visible(show)
        if show:
            line.set_xdata([cb, cb])
            text.set_position((cb, y))
            text.set_text(f"{name} {cb:,.0f}")
    mb = data["max_batch"]
    start = max(mb + 0.5, 1) if mb else 1
    st["nofit"].set_x(start)
    st["nofit"].set_width(max(0, 2 * SPEED_BATCHES[-1] - start))
    st["nofit"].set_visible(start < SPEED_BATCHES[-1])
    st["t_nofit"].set_visible(start < SPEED_BATCHES[-1] / 8)
    st["t_nofit"].set_x(start * 1.05)
    bound = "memory" if here.t_memory >= here.t_compute else "compute"
    ax.set_title(f"{data['model']}, {data['n_gpus']} x {data['gpu'].split(' ')[0]}: batch {b} "
                 f"is {bound}-bound, ≤ {here.tokens_per_s_per_user:,.0f} tokens/s per user",
                 y=1.0)
    return ax


@styled
def speed_figure(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=8192,
                 batch=1, size=(11, 4.4)):
    """Lesson 10's explorer figure as a static one: the decode bound against batch."""
    fig, _ = new_figure(0, 0, size=size)
    draw_speed(fig, speed_data(cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch))
    return fig
