"""Figures for lessons 11 and 12: training memory per GPU (by ZeRO stage, against
sequence length, against PyTorch's measured bytes) and a pipeline's schedule (its bubble)."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..training import bytes_per_param, korthikanti_activation_bytes, training_memory
from ..zoo import as_config
from .style import (CONCEPT_MARKERS, TEXT_SIZES, clear_figure, color_of, ink_for, new_figure,
                    plain_log_axis, styled)

__all__ = ["PARTS", "peak_parts", "draw_training_memory", "training_memory_by_zero_stage",
           "activations_vs_measured", "memory_vs_seq_len", "crossover_seq_len",
           "Block", "pipeline_timeline", "pipeline_idle", "draw_pipeline", "pipeline_schedule"]

GB = 10**9
# the five parts of per-GPU training memory: (TrainingMemory attribute, label, colour key)
PARTS = (("params", "weights", "weights"), ("grads", "grads", "gradients"),
         ("optimizer", "optimizer state", "optimizer"),
         ("activations", "activations", "activations"), ("logits", "logits", "lm_head"),
         ("transient", "peak transients", "highlight"))
_HATCH = {"params": "", "grads": "//", "optimizer": "..", "activations": "", "logits": "xx",
          "transient": "\\\\"}


def peak_parts(m):
    """What a :class:`~llmcourse.training.TrainingMemory` holds at the moment that decides
    its peak, in the bars' parts (:data:`PARTS`): ``{attribute: bytes}`` summing to
    ``m.peak``. At the start of backward: the weights, the gradients that exist (none of
    the layers' on a first micro-batch), the optimizer state, everything saved, and the
    loss's gradients and a tool's buffers as transients; while the first layer is
    recomputed: the loss's tensors freed, the recomputed layer and the gradient between
    layers as transients; during the optimizer step: the states and the step's
    temporaries, the activations freed."""
    from ..training import (FREED_BEFORE_LAYERS, FREED_TERMS, GRADS_NOT_YET,
                            LAYER_GRADS_NOT_YET, LOGIT_TERMS)
    t, first = m.transients, m.first_micro_batch
    parts = dict(params=m.params, grads=m.grads, optimizer=m.optimizer,
                 activations=m.activations, logits=m.logits)
    if m.peak_step >= m.peak_backward:
        parts.update(activations=0, logits=0)
    elif m.peak_recompute > m.peak_start_of_backward:
        freed_logits = sum(m.activation_terms.get(k, 0) for k in FREED_TERMS
                           if k in LOGIT_TERMS)
        parts.update(grads=m.grads - (t.get(LAYER_GRADS_NOT_YET, 0) if first else 0),
                     activations=m.activations - (t[FREED_BEFORE_LAYERS] - freed_logits),
                     logits=m.logits - freed_logits)
    elif first:
        parts["grads"] = m.grads - t.get(GRADS_NOT_YET, 0)
    parts["transient"] = m.peak - sum(parts.values())
    return parts


def _setup_memory_axes(fig, labels):
    """Build the bars, labels and capacity line once; later redraws move them."""
    clear_figure(fig)
    if fig.get_layout_engine() is None:   # an explorer's fixed margins: room for the labels
        fig.subplots_adjust(left=0.12, right=0.97, top=0.9, bottom=0.27)
    ax = fig.subplots()
    n = len(labels)
    y = list(range(n))[::-1]
    st = {"ax": ax, "n": n, "y": y, "bars": {}, "texts": {}}
    for attr, name, color in PARTS:
        c = color_of(color)
        st["bars"][attr] = ax.barh(y, [0] * n, height=0.62, color=c, hatch=_HATCH[attr],
                                   edgecolor="white", linewidth=0.8, label=name)
        # a box in the bar's colour keeps a label legible where the capacity line crosses it
        st["texts"][attr] = [ax.text(0, yy, "", ha="center", va="center", color=ink_for(c),
                                     fontsize=TEXT_SIZES["label"],
                                     bbox=dict(facecolor=c, edgecolor="none", pad=1.0))
                             for yy in y]
    st["totals"] = [ax.text(0, yy, "", va="center", fontsize=TEXT_SIZES["label"],
                            bbox=dict(facecolor=ax.get_facecolor(), edgecolor="none", pad=1.0))
                    for yy in y]
    st["outline"] = ax.barh(y, [0] * n, height=0.78, fill=False,
                            edgecolor=color_of("highlight"), linewidth=2.5)
    st["cap"] = ax.axvline(1, color=color_of("reference"), ls="--", lw=2)
    st["cap_text"] = ax.text(1, n - 0.5, "", color=color_of("reference"), va="bottom",
                             ha="left", fontsize=TEXT_SIZES["label"])
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.6, n - 0.1)
    ax.set_xlabel("memory per GPU (GB = 10^9 bytes)")
    ax.grid(axis="y", visible=False)
    ax.legend(handles=[st["bars"][a] for a, _, _ in PARTS], loc="upper center", ncol=6,
              fontsize=TEXT_SIZES["legend"], bbox_to_anchor=(0.5, -0.2), frameon=False)
    st["labels"] = list(labels)
    fig._lc_training_state = st
    return st


def draw_training_memory(fig, rows, capacity_bytes=None, gpu_label="", highlight=None,
                         title=None, reserve=None):
    """Stacked horizontal bars of per-GPU peak memory (decimal GB), one per ``(label,
    TrainingMemory)`` in ``rows``, against a GPU's capacity (``reserve``: the fraction
    kept free; the line is then drawn at the usable memory). The first call builds the
    axes; later calls on the same figure move the bars (a live redraw)."""
    if reserve is None:
        from ..training import RESERVE_FRACTION
        reserve = RESERVE_FRACTION
    full = capacity_bytes
    capacity_bytes = int(capacity_bytes * (1 - reserve)) if capacity_bytes else capacity_bytes
    labels = [r[0] for r in rows]
    st = getattr(fig, "_lc_training_state", None)
    if st is None or st["labels"] != labels or st["ax"] not in fig.axes:
        st = _setup_memory_axes(fig, labels)
    ax, y = st["ax"], st["y"]
    top = max([m.peak for _, m in rows] + [capacity_bytes or 0]) / GB
    span = top * 1.12
    ax.set_xlim(0, span)
    left = [0.0] * len(rows)
    held = [peak_parts(m) for _, m in rows]
    for attr, _, _ in PARTS:
        for i, (_, m) in enumerate(rows):
            w = held[i][attr] / GB
            bar = st["bars"][attr][i]
            bar.set_x(left[i])
            bar.set_width(w)
            t = st["texts"][attr][i]
            t.set_position((left[i] + w / 2, y[i]))
            t.set_text((f"{w:,.0f}" if w >= 10 else f"{w:,.1f}") if w >= 0.07 * span else "")
            left[i] += w
    for i, (_, m) in enumerate(rows):
        st["totals"][i].set_position((left[i] + span * 0.01, y[i]))
        st["totals"][i].set_text(f"peak {m.peak / GB:,.1f} GB")
        st["outline"][i].set_width(left[i] if i == highlight else 0)
        st["outline"][i].set_visible(i == highlight)
    st["cap"].set_visible(bool(capacity_bytes))
    st["cap_text"].set_visible(bool(capacity_bytes))
    if capacity_bytes:
        cap = capacity_bytes / GB
        st["cap"].set_xdata([cap, cap])
        st["cap_text"].set_x(cap)
        # GPU names carry their size ("H100 SXM 80GB"): say what the line is, once
        what = f"one {gpu_label}" if gpu_label else f"{full / GB:,.0f} GB"
        st["cap_text"].set_text(f" usable: {1 - reserve:.0%} of {what}" if reserve
                                else f" memory of {what}")
    ax.set_title(title or "Training memory per GPU", loc="left", pad=16)
    return ax


@styled
def training_memory_by_zero_stage(model, seq_len, micro_batch=1, dp=8, gpu=None, title=None,
                                  **settings):
    """Per-GPU memory of one setting at each sharding stage over ``dp`` GPUs (ZeRO 0-3, or
    FSDP's NO_SHARD, SHARD_GRAD_OP and FULL_SHARD for ``precision="fsdp-bf16"``), against a
    GPU's memory (a name from :func:`llmcourse.list_gpus`)."""
    from ..training_settings import sharding_stages, stage_label
    cfg = as_config(model)
    precision = settings.get("precision", "bf16-mixed")
    rows = [(stage_label(precision, k),
             training_memory(cfg, seq_len, micro_batch, zero_stage=k, dp=dp, **settings))
            for k in sharding_stages(precision)]
    cap, label = None, ""
    if gpu is not None:
        from ..hardware import as_gpu
        g = as_gpu(gpu)
        cap, label = g.memory_bytes, g.name
    fig, _ = new_figure(size=(11, 4.6))
    draw_training_memory(fig, rows, cap, label, title=title or (
        f"{cfg.name}, {seq_len:,} tokens x {micro_batch}, {dp} GPUs: "
        "each stage shards one more part"))
    return fig


@styled
def activations_vs_measured(data=None, title=None):
    """The engine's count of bytes saved for backward and the textbook
    ``34 s b d + 5 n_h s^2 b`` formula, each divided by what PyTorch saved (the stored
    measurements, ``llmcourse/data/saved_activations.json``, read when ``data`` is
    not given), against the measured bytes."""
    from ..config import from_hf_config
    from ..training import measured_activations
    data = data or measured_activations()
    fig, ax = new_figure(size=(11, 5.2))
    ours, theirs = [], []
    for r in data["rows"]:
        cfg = from_hf_config(data["models"][r["model"]])
        prec = data["engine_precision"][r["dtype"]]
        attn = data["engine_attention"][r["attn_implementation"]]
        est = training_memory(cfg, r["seq_len"], r["batch"], precision=prec,
                              attention=attn).saved_for_backward
        k = korthikanti_activation_bytes(cfg, r["seq_len"], r["batch"], flash=attn == "flash",
                                         bytes_per_value=4 if r["dtype"] == "fp32" else 2)
        ours.append((r["saved_bytes"] / 1e6, est / r["saved_bytes"]))
        theirs.append((r["saved_bytes"] / 1e6, k / r["saved_bytes"]))
    ax.scatter([m for m, _ in theirs], [q for _, q in theirs], s=60,
               marker=CONCEPT_MARKERS["approx"], color=color_of("approx"),
               label="34·s·b·d per layer, + 5·n_h·s²·b if eager (Korthikanti et al. 2022)",
               zorder=3)
    ax.scatter([m for m, _ in ours], [q for _, q in ours], s=60,
               marker=CONCEPT_MARKERS["exact"], color=color_of("exact"),
               label="this course: every saved tensor counted (lc.training_memory)", zorder=4)
    ax.axhline(1, color=color_of("reference"), lw=1.2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax.xaxis, "{:,g}")
    plain_log_axis(ax.yaxis)
    ax.set_xticks([3, 10, 30, 100, 300])
    ax.set_yticks([0.25, 0.5, 1, 2])
    lo = min(q for _, q in theirs + ours)
    hi = max(q for _, q in theirs + ours)
    ax.set_ylim(min(0.2, lo / 1.2), max(2.5, hi * 1.2))
    ax.set_xlabel("MB PyTorch saved for backward (measured on CPU, log scale)")
    ax.set_ylabel("estimate / measured (log scale)")
    worst = [q for _, q in theirs]
    ax.set_title(title or (f"Each saved tensor counted: equal to PyTorch in all {len(ours)} "
                           f"settings\nThe 34·s·b·d rule: {min(worst):.2f}× to "
                           f"{max(worst):.2f}× of the measured bytes"), loc="left")
    # direct labels: the course's points on the line at 1, the rule's cloud below it
    ax.annotate("this course: every saved tensor counted (lc.training_memory) = PyTorch",
                (min(m for m, _ in ours), 1), xytext=(0, 10), textcoords="offset points",
                color=color_of("exact"), fontsize=TEXT_SIZES["label"], va="bottom")
    ax.annotate("34·s·b·d per layer, + 5·n_h·s²·b if eager (Korthikanti et al. 2022)",
                (min(m for m, _ in theirs), min(lo, 0.4)), xytext=(0, -8),
                textcoords="offset points", color=color_of("approx"),
                fontsize=TEXT_SIZES["label"], va="top")
    return fig


def crossover_seq_len(model, micro_batch=1, **settings):
    """The shortest sequence at which activations + logits outweigh weights + grads +
    optimizer state (FlashAttention, no recomputation: both sides are affine in the
    length, so two evaluations give it exactly)."""
    cfg = as_config(model)
    settings = dict(settings, attention="flash", recompute="none")
    m1, m2 = (training_memory(cfg, s, micro_batch, **settings) for s in (1, 2))
    a1, slope = m1.activations + m1.logits, (m2.activations + m2.logits) - (m1.activations + m1.logits)
    need = m1.states - a1      # activations at length s: a1 + slope * (s - 1)
    return max(1, need // slope + 2) if need >= 0 else 1


@styled
def memory_vs_seq_len(model, micro_batch=1, seq_lens=None, title=None, **settings):
    """Per-GPU memory against sequence length: weights + grads + optimizer state (flat)
    and activations + logits with FlashAttention, with eager attention (the s x s
    scores) and with full recomputation."""
    cfg = as_config(model)
    seq_lens = seq_lens or [2**k for k in range(9, 18)]
    fig, ax = new_figure(size=(11, 5))
    base = [training_memory(cfg, s, micro_batch, **settings) for s in seq_lens]
    bpp = bytes_per_param(base[0].settings["precision"], base[0].settings["optimizer"])
    states = [m.states / GB for m in base]
    ax.plot(seq_lens, states, color=color_of("weights"), lw=2.6,
            label=f"weights + grads + optimizer state ({bpp} B/param)")
    # each line labelled where it has room: (index of the point, offset, alignment)
    last = len(seq_lens) - 1
    labels = [(states, f"weights + grads + optimizer state\n({bpp} B/param)", "weights",
               0, (4, 6), "left", "bottom")]
    styles = ((dict(attention="eager"), "--", "activations + logits, eager attention (s×s scores)",
               "eager attention (s×s scores)", min(5, last), (-10, 0), "right", "center"),
              (dict(attention="flash"), "-", "activations + logits, FlashAttention",
               "FlashAttention", min(7, last), (-8, 6), "right", "bottom"),
              (dict(attention="flash", recompute="full"), ":",
               "FlashAttention + full recomputation", "FlashAttention + full recomputation",
               min(2, last), (0, -8), "left", "top"))
    for kw, ls, label, short, i, off, ha, va in styles:
        ms = [training_memory(cfg, s, micro_batch, **dict(settings, **kw)) for s in seq_lens]
        ys = [(m.activations + m.logits) / GB for m in ms]
        ax.plot(seq_lens, ys, ls=ls, lw=2.4, color=color_of("activations"), label=label)
        labels.append((ys, short, "activations", i, off, ha, va))
    for ys, text, color, i, off, ha, va in labels:
        ax.annotate(text, (seq_lens[i], ys[i]), xytext=off, textcoords="offset points",
                    ha=ha, va=va, color=color_of(color), fontsize=TEXT_SIZES["label"],
                    bbox=dict(facecolor=ax.get_facecolor(), edgecolor="none", pad=0.5))
    cross = crossover_seq_len(cfg, micro_batch, **{k: v for k, v in settings.items()
                                                   if k not in ("attention", "recompute")})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis, "{:,g}")
    ax.set_xticks(seq_lens, [f"{s // 1024}K" if s >= 1024 else str(s) for s in seq_lens])
    mpe = cfg.get("max_position_embeddings")
    if mpe and mpe < seq_lens[-1]:
        ax.axvspan(mpe, seq_lens[-1] * 1.2, color=color_of("reserve"), alpha=0.2)
        ax.text(mpe * 1.05, ax.get_ylim()[1], "beyond the model's context", va="top",
                fontsize=TEXT_SIZES["label"],
                bbox=dict(facecolor=ax.get_facecolor(), edgecolor="none", pad=0.5))
    if seq_lens[0] <= cross <= seq_lens[-1]:
        ax.axvline(cross, color=color_of("reference"), lw=1.2, ls="-.")
    ax.set_xlim(seq_lens[0] / 1.2, seq_lens[-1] * 1.2)
    ax.set_xlabel(f"sequence length (tokens, log scale), micro-batch {micro_batch}")
    ax.set_ylabel("GB per GPU (log scale)")
    past = f", past its {mpe:,}-token context" if mpe and cross > mpe else ""
    ax.set_title(title or (f"{cfg.name}: activations outgrow the {bpp} B/param states from "
                           f"{cross:,} tokens{past}\n(FlashAttention, micro-batch {micro_batch}; eager "
                           "attention's s×s scores get there far sooner)"), loc="left")
    return fig


# --- lesson 12: a pipeline's schedule, block by block ---------------------------------

FORWARD, BACKWARD = 1, 2     # time units of one micro-batch's forward and backward on a stage
SCHEDULE_NAMES = {"1f1b": "1F1B", "gpipe": "GPipe", "interleaved-1f1b": "interleaved 1F1B",
                  "zero-bubble-h1": "ZB-H1"}
# block kinds: forward, backward (ZB-H1: the input's gradient only), ZB-H1's weight gradient
_BLOCK_COLORS = {"F": "series:0", "B": "series:1", "W": "series:2"}


class Block(NamedTuple):
    """One operation of a pipeline's schedule: which GPU runs it, ``"F"``, ``"B"`` or
    ``"W"``, on which micro-batch (0-based), when (in units of one stage's forward), and on
    which of the GPU's chunks (0 unless interleaved)."""
    stage: int
    kind: str
    micro_batch: int
    start: Fraction
    end: Fraction
    chunk: int = 0


def pipeline_timeline(pp, num_micro_batches, schedule="1f1b", virtual_stages=1):
    """When each GPU runs each operation (pure): a list of :class:`Block`. A stage's forward
    takes 1 unit and its backward 2 (twice the forward's matmuls); under interleaved 1F1B
    each of a GPU's ``virtual_stages`` chunks holds ``1 / v`` of its layers and takes ``1 / v``
    of those times; under ZB-H1 the backward is split into the input's gradient (B) and the
    weights' (W), 1 unit each. Each GPU runs its operations in the schedule's order
    (:func:`llmcourse.parallelism.pipeline_orders`: Megatron-LM's for 1F1B and interleaving,
    the authors' for ZB-H1), each as soon as the GPU is free and its inputs are ready."""
    from ..config import ConfigError
    from ..parallelism import PP_SCHEDULES, pipeline_orders, run_pipeline_orders
    for name, v, hi in (("pp", pp, 64), ("num_micro_batches", num_micro_batches, 4096),
                        ("virtual_stages", virtual_stages, 8)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
            raise ConfigError(f"{name}: a whole number from 1 to {hi} (got {v!r})")
    if schedule not in PP_SCHEDULES:
        raise ConfigError(f"pp_schedule: one of {', '.join(PP_SCHEDULES)} (got {schedule!r})")
    p, m = pp, num_micro_batches
    v = virtual_stages if schedule == "interleaved-1f1b" else 1
    if virtual_stages > 1 and schedule != "interleaved-1f1b":
        raise ConfigError(f"virtual_stages: more than 1 only with pp_schedule="
                          f"'interleaved-1f1b' (got {virtual_stages} with {schedule!r})")
    if schedule == "interleaved-1f1b" and m % p:
        raise ConfigError(f"num_micro_batches: must be a multiple of pp={p} under interleaved "
                          f"1F1B (Megatron-LM refuses otherwise) (got {m})")
    if schedule == "zero-bubble-h1" and m < p:
        raise ConfigError(f"num_micro_batches: must be at least pp={p} for ZB-H1 (got {m})")
    split = schedule == "zero-bubble-h1"
    dur = {"F": Fraction(FORWARD, v), "B": Fraction(1 if split else BACKWARD, v),
           "W": Fraction(BACKWARD - 1, v)}
    free, ends, out = [Fraction(0)] * p, {}, []

    def run(r, op, s, j, deps):
        start = max([free[r]] + [ends[d] for d in deps])
        ends[op, s, j] = free[r] = start + dur[op]
        out.append(Block(r, op, j, start, free[r], s // p))
    run_pipeline_orders(pipeline_orders(p, m, schedule, v), p * v - 1, run)
    return out


def pipeline_idle(blocks, num_micro_batches):
    """The share of the step each GPU idles in a timeline (a Fraction): 1 less the work of
    ``num_micro_batches`` micro-batches (3 units each) over the step's length."""
    return 1 - Fraction((FORWARD + BACKWARD) * num_micro_batches) / max(b.end for b in blocks)


def _setup_pipeline(fig):
    from matplotlib.collections import PolyCollection
    clear_figure(fig)
    if fig.get_layout_engine() is None:
        fig.subplots_adjust(left=0.1, right=0.98, top=0.86, bottom=0.17)
    ax = fig.subplots()
    st = {"ax": ax, "texts": []}
    for kind, color in _BLOCK_COLORS.items():
        for later in (False, True):   # a GPU's first chunk, and its later ones (hatched)
            st[kind, later] = ax.add_collection(PolyCollection(
                [], facecolors=color_of(color), edgecolors="white", linewidths=0.8,
                hatch="//" if later else None))
    ax.grid(axis="y", visible=False)
    fig._lc_pipeline_state = st
    return st


def _time_label(schedule, v):
    if schedule == "zero-bubble-h1":
        return ("time: forward (blue), input gradient (orange), weight gradient (purple): "
                "1 unit each")
    if schedule == "interleaved-1f1b":
        def unit(x):
            x = Fraction(x, v)
            return f"{x} unit" + ("s" if x > 1 else "")
        return (f"time: a chunk's forward (blue) {unit(FORWARD)}, its backward (orange) "
                f"{unit(BACKWARD)}; hatched: later chunks")
    return "time: a forward (blue) takes 1 unit, a backward (orange) 2"


def draw_pipeline(fig, pp, num_micro_batches, schedule="1f1b", title=None, numbers=None,
                  virtual_stages=1):
    """Draw (or update in place) the schedule of :func:`pipeline_timeline` on ``fig``: one
    row per GPU, a block per operation, the idle time white; the title says the bubble,
    which equals :func:`llmcourse.parallelism.pipeline_bubble`. ``numbers``: write each
    block's micro-batch (default: when there are at most 32 micro-batches over all
    stages)."""
    blocks = pipeline_timeline(pp, num_micro_batches, schedule, virtual_stages)
    v = virtual_stages if schedule == "interleaved-1f1b" else 1
    st = getattr(fig, "_lc_pipeline_state", None)
    if st is None or st["ax"] not in fig.axes:
        st = _setup_pipeline(fig)
    ax = st["ax"]
    for kind in _BLOCK_COLORS:
        for later in (False, True):
            st[kind, later].set_verts([
                [(b.start, y - 0.38), (b.end, y - 0.38), (b.end, y + 0.38), (b.start, y + 0.38)]
                for b in blocks if b.kind == kind and (b.chunk > 0) == later
                for y in (pp - 1 - b.stage,)])
    for t in st["texts"]:
        t.remove()
    st["texts"] = []
    if numbers is None:
        numbers = pp * num_micro_batches * v <= 32
    if numbers:
        for b in blocks:
            color = color_of(_BLOCK_COLORS[b.kind])
            st["texts"].append(ax.text(float(b.start + b.end) / 2, pp - 1 - b.stage,
                                       str(b.micro_batch + 1), ha="center", va="center",
                                       fontsize=TEXT_SIZES["label"], color=ink_for(color)))
    end = max(b.end for b in blocks)
    idle = pipeline_idle(blocks, num_micro_batches)
    ax.set_yticks(range(pp), [f"stage {pp - 1 - k}" if v == 1 else f"GPU {pp - 1 - k}"
                              for k in range(pp)])
    ax.set_ylim(-0.6, pp - 0.4)
    ax.set_xlim(0, float(end))
    ax.set_xlabel(_time_label(schedule, v))
    name = SCHEDULE_NAMES[schedule] + (f", v = {v}" if v > 1 else "")
    if pp == 1:
        default = (f"No pipeline: {num_micro_batches} micro-batches of gradient accumulation, "
                   "one after another, no bubble")
    else:
        default = (f"{pp} {'GPUs' if v > 1 else 'stages'}, {num_micro_batches} "
                   f"micro-batches, {name}: each GPU idles {float(idle):.0%} of the step")
    ax.set_title(title or default, loc="left")
    return ax


@styled
def pipeline_schedule(pp=4, num_micro_batches=8, schedule="1f1b", title=None, size=(11, 3.6),
                      virtual_stages=1):
    """A pipeline's schedule as a figure: which stage runs which micro-batch when, and the
    bubble, the share of the step each GPU idles."""
    fig, _ = new_figure(0, 0, size=size)
    draw_pipeline(fig, pp, num_micro_batches, schedule, title, virtual_stages=virtual_stages)
    return fig
