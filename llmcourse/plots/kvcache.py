"""Figures for the GQA / KV-cache lesson.

Colours by attention kind come from the course palette (``color_of("gqa")`` ...), so
MHA, GQA, MQA and MLA look the same in every figure and in the explorer.
"""

from __future__ import annotations

from ..counts import kv_cache_bytes
from ..sizing import gqa_memory_saving, plain_mha_cache_bytes
from ..units import GiB
from ..zoo import as_config
from matplotlib.ticker import NullFormatter

from .style import (CONCEPT_DASHES, CONCEPT_MARKERS, TEXT_SIZES, clear_figure, color_of,
                    new_figure, plain_log_axis, styled)

__all__ = ["kv_cache_vs_context", "draw_kv_cache_vs_context", "kv_saving_ratios",
           "gqa_total_memory_saving", "attention_concept", "CONTEXTS"]

KiB = 2**10
CONTEXTS = [2**k for k in range(9, 19)]  # 512 .. 262144 tokens
_TICKS = CONTEXTS[::2]  # labelled: 512, 2K, 8K, 32K, 128K (fewer labels: a faster redraw)
_TICK_LABELS = [f"{n // 1024}K" if n >= 1024 else str(n) for n in _TICKS]


_BOX = dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1.5)  # text over lines


def _ctx(n):
    return f"{n // 1024:,}K" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def attention_concept(cfg):
    """The palette's name for a config's attention: 'mla', 'mha', 'mqa' or 'gqa'."""
    if cfg.uses_mla:
        return "mla"
    if cfg.num_key_value_heads == cfg.num_attention_heads:
        return "mha"
    return "mqa" if cfg.num_key_value_heads == 1 else "gqa"


def _style_of(label, cfg):
    """(colour, dash, marker, width) of a line: the attention kind; a variant whose label
    says 'every layer full' (the same model without its sliding, chunked or linear layers)
    keeps its kind's colour and is drawn thin, in long dashes, without markers: three cues
    besides the colour, so the two lines never differ by a marker alone."""
    kind = attention_concept(cfg)
    if "every layer full" in label:
        return color_of(kind), (0, (5, 2.5)), "None", 1.5
    return color_of(kind), CONCEPT_DASHES.get(kind, "-"), CONCEPT_MARKERS.get(kind, "None"), 2.6


def _setup_kv_axes(fig, n_lines):
    """Build the axes and its artists once; later redraws only move them."""
    clear_figure(fig)
    ax = fig.subplots()
    lines = [ax.plot([], [], lw=2.6)[0] for _ in range(n_lines)]
    beyond = [ax.plot([], [], lw=1.4, alpha=0.35)[0] for _ in range(n_lines)]
    state_line = ax.axhline(1, color=color_of("reference"), ls=(0, (6, 2, 1, 2)), lw=2.2)
    weights = ax.axhline(1, color="black", ls="--", lw=1.2)
    mark = ax.axvline(CONTEXTS[0], color=color_of("highlight"), ls="-", lw=2.2, alpha=0.8)
    mark_text = ax.text(CONTEXTS[0], 0.12, "", transform=ax.get_xaxis_transform(),
                        ha="right", va="bottom", color=color_of("highlight"),
                        fontsize=TEXT_SIZES["label"], bbox=_BOX)
    max_lines = [ax.axvline(CONTEXTS[0], color="black", ls=":", lw=1.6) for _ in range(2)]
    max_texts = [ax.text(CONTEXTS[0], 0.02 + 0.08 * i, "", transform=ax.get_xaxis_transform(),
                         ha="right", va="bottom", fontsize=TEXT_SIZES["label"], bbox=_BOX)
                 for i in range(2)]
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    ax.set_xticks(_TICKS, _TICK_LABELS)
    ax.set_xticks(CONTEXTS[1::2], minor=True)
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(CONTEXTS[0] / 1.25, CONTEXTS[-1] * 1.25)
    ax.set_xlabel("context length (tokens, log scale)")
    state = {"ax": ax, "lines": lines, "beyond": beyond, "weights": weights, "mark": mark,
             "mark_text": mark_text, "max_lines": max_lines, "max_texts": max_texts,
             "state_line": state_line, "dtype": None}
    fig.lc_kv_state = state
    return state


def draw_kv_cache_vs_context(fig, variants, batch=1, dtype="bf16", mark_seq_len=None,
                             weights_bytes=None, title=None, state_bytes=None,
                             legend_outside=False):
    """Draw KV-cache GiB against context length, one line per ``(label, cfg)`` variant.

    Each line is solid up to its model's ``max_position_embeddings`` and faint beyond
    it, where a dotted vertical line marks the maximum context. ``state_bytes``: a
    fixed-size state that does not grow with context (linear-attention layers), drawn
    flat. Used by the static figure and the explorer: the first call builds the axes;
    later calls on the same figure update the artists in place (a live redraw).
    """
    state = getattr(fig, "lc_kv_state", None)
    if state is None or len(state["lines"]) < len(variants) or state["ax"] not in fig.axes:
        state = _setup_kv_axes(fig, max(4, len(variants)))
    ax = state["ax"]
    lo, hi = float("inf"), 0.0
    handles = []
    maxima = []
    for i, (line, faint) in enumerate(zip(state["lines"], state["beyond"])):
        if i >= len(variants):
            line.set_visible(False)
            faint.set_visible(False)
            continue
        label, cfg = variants[i]
        top = cfg.get("max_position_embeddings") or CONTEXTS[-1] * 2   # unknown: no marker
        ys = [kv_cache_bytes(cfg, n, batch, dtype) / GiB for n in CONTEXTS]
        inside = [(n, y) for n, y in zip(CONTEXTS, ys) if n <= top]
        if inside and inside[-1][0] < top:  # end the solid line exactly at the maximum
            inside.append((top, kv_cache_bytes(cfg, top, batch, dtype) / GiB))
        outside = [(n, y) for n, y in zip(CONTEXTS, ys) if n >= top]
        if outside and outside[0][0] > top:
            outside.insert(0, (top, kv_cache_bytes(cfg, top, batch, dtype) / GiB))
        color, dash, marker, width = _style_of(label, cfg)
        line.set_data([p[0] for p in inside], [p[1] for p in inside])
        line.set(color=color, linestyle=dash, marker=marker, markevery=2, markersize=7,
                 linewidth=width, label=label, visible=True)
        faint.set_data([p[0] for p in outside], [p[1] for p in outside])
        faint.set(color=color, linestyle=dash, visible=bool(outside))
        handles.append(line)
        lo, hi = min(lo, min(ys)), max(hi, max(ys))
        if top <= CONTEXTS[-1] and top not in maxima:
            maxima.append(top)
    # constant levels: the fixed state (linear attention, Mamba-2), the weights
    state_size = (f"{state_bytes / GiB:,.2f} GiB" if state_bytes >= GiB
                  else f"{state_bytes / 2**20:,.1f} MiB") if state_bytes else ""
    for line, nbytes, label in (
            (state["state_line"], state_bytes,
             f"fixed state (linear attention, Mamba-2): {state_size}"),
            (state["weights"], weights_bytes, f"weights: {(weights_bytes or 0) / GiB:,.2f} GiB")):
        line.set_visible(bool(nbytes))
        if nbytes:
            line.set_ydata([nbytes / GiB] * 2)
            line.set_label(label)
            handles.append(line)
            lo, hi = min(lo, nbytes / GiB), max(hi, nbytes / GiB)
    for j, (ml, mt) in enumerate(zip(state["max_lines"], state["max_texts"])):
        if j < len(maxima):
            ml.set_xdata([maxima[j]] * 2)
            mt.set_x(maxima[j] / 1.04)
            mt.set_text(f"max context {_ctx(maxima[j])}")
        ml.set_visible(j < len(maxima))
        mt.set_visible(j < len(maxima))
    m, mtxt = state["mark"], state["mark_text"]
    m.set_visible(bool(mark_seq_len))
    mtxt.set_visible(bool(mark_seq_len))
    if mark_seq_len:
        m.set_xdata([mark_seq_len] * 2)
        mtxt.set_x(mark_seq_len / 1.04)
        mtxt.set_text(f"this context: {_ctx(mark_seq_len)}")
    ax.set_ylim(lo / 1.6, hi * 2.2)
    if state["dtype"] != dtype:
        ax.set_ylabel(f"KV cache (GiB, {dtype}, log scale)")
        state["dtype"] = dtype
    ax.set_title(title or f"KV cache grows linearly with context (batch {batch})")
    if legend_outside:
        for leg in list(fig.legends):
            leg.remove()
        fig.legend(handles=handles, loc="outside lower center", ncol=2)
    else:
        ax.legend(handles=handles, loc="upper left")
    return ax


@styled
def kv_cache_vs_context(variants, batch=1, dtype="bf16", title=None, weights_bytes=None,
                        state_bytes=None):
    """KV-cache size against context length for several ``(label, cfg)`` pairs, each
    solid up to its model's maximum context."""
    fig, _ = new_figure(size=(10, 5.6))
    draw_kv_cache_vs_context(fig, variants, batch, dtype, title=title,
                             weights_bytes=weights_bytes, state_bytes=state_bytes,
                             legend_outside=True)
    return fig


@styled
def kv_saving_ratios(models, seq_len=8192, dtype="bf16", title=None, with_state=False,
                     log=False):
    """How many times smaller each model's cache is than plain MHA
    (:func:`~llmcourse.sizing.plain_mha_cache_bytes`: every layer caches every token,
    one KV head per query head, at its own head width), at ``seq_len`` or the model's
    maximum context if that is shorter: one dot per model, labelled with the ratio and
    what makes it. ``with_state``: the fixed state of linear-attention and Mamba-2 layers
    is counted with the cache (what the model keeps per sequence, in ``dtype``); ``log``:
    a logarithmic axis, for ratios that span orders of magnitude."""
    from ..counts import linear_state_bytes
    rows = []
    for m in models:
        c = as_config(m)
        top = c.get("max_position_embeddings")
        n = min(seq_len, top) if top else seq_len   # never size a model past its context
        real = kv_cache_bytes(c, n, 1, dtype)
        if with_state:
            real += linear_state_bytes(c, 1, dtype)
        base = plain_mha_cache_bytes(c, n, 1, dtype)
        kind = attention_concept(c)
        why = {"mla": "MLA latent", "mha": "MHA", "mqa": "MQA"}.get(
            kind, f"GQA {c.num_attention_heads}:{c.num_key_value_heads}")
        capped = 0
        kinds = c.layer_schedule
        if kinds.count(indexer=True):
            why += " + indexer keys"
        for t, what in (("sliding_attention", "sliding"), ("chunked_attention", "chunked"),
                        ("linear_attention", "linear"),
                        ("mamba", "Mamba-2"),  # layer kinds, not model types
                        ("conv", "short conv"), ("compressed_sparse_attention", "CSA"),
                        ("heavily_compressed_attention", "HCA")):
            if kinds.count(attention=t):
                why += f" + {kinds.count(attention=t)} {what}"
                capped += kinds.count(attention=t)
        if kinds.count(kv_shared=True):
            why += f" + {kinds.count(kv_shared=True)} KV-shared"
            capped += kinds.count(kv_shared=True)
        if n < seq_len:
            why += f" (at {_ctx(n)}, its max)"
        rows.append((c.name, base / real, kind, why, bool(capped)))
    rows.sort(key=lambda r: r[1])
    fig, ax = new_figure(size=(10, 0.36 * len(rows) + 1.9))
    top = max(r[1] for r in rows)
    left = set()   # log axis: a label that would run past the axis goes left of its dot
    if log:
        import math
        # a label starts at 1.25x its dot and must end inside the axis: with c the share of
        # the axis' width one character takes, log(hi) - log(1.25 r) >= n c (log(hi) - log(lo))
        lo, c = 0.8, 0.0125
        hi = math.log10(top * 3)
        need = {i: (math.log10(1.25 * r[1]) - n * c * math.log10(lo)) / (1 - n * c)
                for i, r in enumerate(rows) for n in [len(f"{r[1]:,.1f}×  {r[3]}")]}
        left = {i for i, x in need.items() if x > hi}
        hi = max([hi] + [x for i, x in need.items() if i not in left])
    seen, handles = set(), []
    from matplotlib.lines import Line2D
    for i, (name, ratio, kind, why, sliding) in enumerate(rows):
        label = {"mha": "MHA", "gqa": "GQA", "mqa": "MQA", "mla": "MLA"}[kind]
        ax.plot([1, ratio], [i, i], color=color_of(kind), lw=1.5, alpha=0.5)
        ax.plot([ratio], [i], marker=CONCEPT_MARKERS[kind], ms=10, ls="none",
                color=color_of(kind), mfc="white" if sliding else color_of(kind), mew=2)
        if label not in seen:  # the legend shows each kind once, filled
            handles.append(Line2D([], [], marker=CONCEPT_MARKERS[kind], ms=10, ls="none",
                                  color=color_of(kind), label=label))
        seen.add(label)
        text = f"{ratio:,.1f}×  {why}"
        if i in left:
            ax.text(ratio / 1.25, i, text, va="center", ha="right", bbox=_BOX,
                    fontsize=TEXT_SIZES["label"])
        else:
            ax.text(ratio * 1.25 if log else ratio + top * 0.04, i, text, va="center",
                    fontsize=TEXT_SIZES["label"])
    ax.set_yticks(range(len(rows)), [r[0] for r in rows])
    if log:
        ax.set_xscale("log")
        plain_log_axis(ax.xaxis)
        ax.set_xlim(lo, 10 ** hi)
    else:
        longest = max(len(f"{r[1]:,.1f}×  {r[3]}") * r[1] / top for r in rows)
        ax.set_xlim(0, top * max(1.55, 1.1 + 0.022 * longest))  # room for the longest label
    ax.axvline(1, color="black", lw=1)
    state = ("fixed linear and Mamba-2 states counted" if with_state
             else "fixed linear and Mamba-2 states not counted")
    ax.set_xlabel(f"times smaller than plain MHA{' (log scale)' if log else ''}: all "
                  f"{seq_len:,} tokens in every layer,\nat its own head width; {state}")
    ax.set_title(title or "GQA shrinks the cache 2–16×; MLA and hybrid layers far more")
    if log:   # long labels reach the right edge: the legend goes below the axis
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles),
                   title="hollow: not every layer caches all")
    else:
        ax.legend(handles=handles, loc="lower right", title="hollow: not every\nlayer caches all")
    ax.grid(axis="y", visible=False)
    return fig


@styled
def gqa_total_memory_saving(models=("Meta-Llama-3-8B", "Qwen2-7B"), dtype="bf16",
                            claim=(0.30, 0.50)):
    """GQA's saving against MHA of the same heads, of the cache alone (flat) and of
    weights + cache (rising with the tokens held), with a claimed band shaded."""
    cfgs = [as_config(m) for m in models]
    xs = [int(2 ** (k / 4)) for k in range(36, 85)]  # 512 .. 2**21 tokens
    fig, ax = new_figure(size=(10, 5.6))
    lo, hi = claim
    ax.axhspan(100 * lo, 100 * hi, color=color_of("reference"), alpha=0.18,
               label=f"the claim: {100 * lo:.0f}–{100 * hi:.0f}% less memory")
    cache_pcts = []
    for i, c in enumerate(cfgs):
        col = color_of(f"series:{(4, 6, 9)[i % 3]}")   # not MHA blue / GQA vermilion: these are models
        ratio = f"{c.num_attention_heads}:{c.num_key_value_heads}"
        ys = [100 * float(gqa_memory_saving(c, n, 1, dtype)["total_saving"]) for n in xs]
        cache = 100 * float(gqa_memory_saving(c, xs[-1], 1, dtype)["cache_saving"])
        cache_pcts.append(cache)
        ax.axhline(cache, color=col, ls="--", lw=1.6,
                   label=f"{c.name} ({ratio}): KV cache alone, {cache:.1f}% saved")
        ax.plot(xs, ys, color=col, lw=2.6, marker=("o", "s")[i % 2], markevery=6,
                label=f"{c.name}: weights + KV cache")
    ax.set_xscale("log", base=2)
    ticks = [2**k for k in range(9, 22, 2)]
    ax.set_xticks(ticks, [f"{n // 1024:,}K" if n >= 1024 else str(n) for n in ticks])
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(0, 100)
    ax.set_xlabel("tokens held in the cache = context × batch (log scale)")
    ax.set_ylabel(f"memory saved vs MHA (%, {dtype})")
    ax.set_title(f"GQA cuts the KV cache by {min(cache_pcts):.1f}–{max(cache_pcts):.1f}%; "
                 f"all memory by {100 * lo:.0f}–{100 * hi:.0f}% only in a band")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2)
    return fig
