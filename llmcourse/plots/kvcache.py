"""Figures for the GQA / KV-cache lesson."""

from __future__ import annotations

from ..counts import kv_cache_bytes
from ..sizing import gqa_memory_saving, mha_baseline, tokens_for_total_saving
from ..units import GiB
from ..zoo import as_config
from matplotlib.ticker import NullFormatter

from .style import COLORS, clear_figure, new_figure, plain_log_axis, styled

__all__ = ["kv_cache_vs_context", "draw_kv_cache_vs_context", "kv_cache_per_token",
           "gqa_total_memory_saving", "CONTEXTS"]

KiB = 2**10
CONTEXTS = [2**k for k in range(9, 18)]  # 512 .. 131072 tokens
_TICKS = CONTEXTS[::2]  # labelled: 512, 2K, 8K, 32K, 128K (fewer labels: a faster redraw)
_TICK_LABELS = [f"{n // 1024}K" if n >= 1024 else str(n) for n in _TICKS]


def _setup_kv_axes(fig, n_lines, dtype):
    """Build the axes and its artists once; later redraws only move them."""
    clear_figure(fig)
    ax = fig.subplots()
    lines = [ax.plot([], [], lw=2.4, color=COLORS[i % len(COLORS)])[0]
             for i in range(n_lines)]
    weights = ax.axhline(1, color="k", ls="--", lw=1.2)
    mark = ax.axvline(CONTEXTS[0], color="#777", ls=":", lw=1.2)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    ax.set_xticks(_TICKS, _TICK_LABELS)
    ax.set_xticks(CONTEXTS[1::2], minor=True)
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(CONTEXTS[0] / 1.25, CONTEXTS[-1] * 1.25)
    ax.set_xlabel("context length (tokens, log scale)")
    state = {"ax": ax, "lines": lines, "weights": weights, "mark": mark, "dtype": None}
    fig._lc_kv_state = state
    return state


def draw_kv_cache_vs_context(fig, variants, batch=1, dtype="bf16", mark_seq_len=None,
                             weights_bytes=None, title=None):
    """Draw KV-cache GiB against context length, one line per ``(label, cfg)`` variant.

    Used by the static figure and the explorer. The first call builds the axes;
    later calls on the same figure update the lines in place (a live redraw).
    """
    state = getattr(fig, "_lc_kv_state", None)
    if state is None or len(state["lines"]) < len(variants) or state["ax"] not in fig.axes:
        state = _setup_kv_axes(fig, max(4, len(variants)), dtype)
    ax = state["ax"]
    lo, hi = float("inf"), 0.0
    handles = []
    for i, line in enumerate(state["lines"]):
        if i < len(variants):
            label, cfg = variants[i]
            ys = [kv_cache_bytes(cfg, n, batch, dtype) / GiB for n in CONTEXTS]
            line.set_data(CONTEXTS, ys)
            line.set_label(label)
            line.set_visible(True)
            handles.append(line)
            lo, hi = min(lo, min(ys)), max(hi, max(ys))
        else:
            line.set_visible(False)
    w = state["weights"]
    if weights_bytes:
        w.set_ydata([weights_bytes / GiB] * 2)
        w.set_label(f"weights ({dtype}) {weights_bytes / GiB:,.2f} GiB")
        w.set_visible(True)
        handles.append(w)
        lo, hi = min(lo, weights_bytes / GiB), max(hi, weights_bytes / GiB)
    else:
        w.set_visible(False)
    m = state["mark"]
    m.set_visible(bool(mark_seq_len))
    if mark_seq_len:
        m.set_xdata([mark_seq_len] * 2)
    ax.set_ylim(lo / 1.6, hi * 1.6)
    if state["dtype"] != dtype:
        ax.set_ylabel(f"KV cache (GiB, {dtype}, log scale)")
        state["dtype"] = dtype
    ax.set_title(title or f"KV cache grows linearly with context (batch {batch})")
    ax.legend(handles=handles, loc="lower right")
    return ax


@styled
def kv_cache_vs_context(variants, batch=1, dtype="bf16", title=None, weights_bytes=None):
    """KV-cache size against context length for several ``(label, cfg)`` pairs."""
    fig, _ = new_figure()
    draw_kv_cache_vs_context(fig, variants, batch, dtype, title=title,
                             weights_bytes=weights_bytes)
    return fig


@styled
def kv_cache_per_token(models, seq_len=32768, dtype="bf16"):
    """Cache bytes per token of context (all layers) at ``seq_len``: each model as
    shipped against plain MHA with every layer full attention (same heads)."""
    cfgs = [as_config(m) for m in models]
    rows = []
    for c in cfgs:
        real = kv_cache_bytes(c, seq_len, 1, dtype) / seq_len / KiB
        base = kv_cache_bytes(mha_baseline(c, full_attention=True), seq_len, 1, dtype) / seq_len / KiB
        kind = ("MLA" if c.uses_mla else "sliding+GQA" if "sliding_attention" in c.layer_types
                else "MHA" if c.num_key_value_heads == c.num_attention_heads else "GQA")
        rows.append((c.name, real, base, kind))
    rows.sort(key=lambda r: r[1])
    fig, ax = new_figure(size=(11, 0.45 * len(rows) + 1.8))
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], [r[2] for r in rows], height=0.4, color="#bbbbbb",
            label="plain MHA, all layers full attention (same heads)")
    ax.barh([i - 0.2 for i in y], [r[1] for r in rows], height=0.4, color=COLORS[0],
            label="as shipped (GQA / MLA / sliding window)")
    for i, r in enumerate(rows):
        ax.text(r[1] * 1.08, i - 0.2, f"{r[1]:,.1f} KiB  ({r[3]}, {r[2] / r[1]:,.1f}x smaller)",
                va="center", fontsize=10)
    ax.set_yticks(list(y), [r[0] for r in rows])
    ax.set_xscale("log")
    plain_log_axis(ax.xaxis)
    ax.set_xlim(min(r[1] for r in rows) / 2, max(r[2] for r in rows) * 6)
    ax.set_xlabel(f"KV cache per token of context, all layers (KiB, {dtype}, log scale), "
                  f"at {seq_len:,} tokens")
    ax.set_title(f"GQA, MLA and sliding windows shrink the cache per token (context {seq_len:,})")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2)
    ax.grid(axis="y", visible=False)
    return fig


@styled
def gqa_total_memory_saving(models=("Meta-Llama-3-8B", "Qwen2-7B"), dtype="bf16",
                            claim=(0.30, 0.50)):
    """GQA's saving against MHA of the same heads, of the cache alone (flat) and of
    weights + cache (rising with the tokens held), with a claimed band shaded."""
    from fractions import Fraction
    cfgs = [as_config(m) for m in models]
    xs = [int(2 ** (k / 4)) for k in range(36, 85)]  # 512 .. 2**21 tokens
    fig, ax = new_figure(size=(11, 5.2))
    lo, hi = claim
    ax.axhspan(100 * lo, 100 * hi, color="#ffd54f", alpha=0.35,
               label=f"seed 004's claim: {100 * lo:.0f}–{100 * hi:.0f}% saved")
    cache_pcts = []
    for i, c in enumerate(cfgs):
        col = COLORS[i % len(COLORS)]
        ratio = f"{c.num_attention_heads}:{c.num_key_value_heads}"
        ys = [100 * float(gqa_memory_saving(c, n, 1, dtype)["total_saving"]) for n in xs]
        cache = 100 * float(gqa_memory_saving(c, xs[-1], 1, dtype)["cache_saving"])
        cache_pcts.append(cache)
        ax.axhline(cache, color=col, ls="--", lw=1.5,
                   label=f"{c.name} ({ratio}): KV cache alone, {cache:.2f}% saved")
        ax.plot(xs, ys, color=col, lw=2.4, label=f"{c.name}: weights + KV cache")
        for t in claim:
            n = tokens_for_total_saving(c, Fraction(str(t)), dtype)
            if n:
                ax.plot([n], [100 * t], "o", color=col, ms=7)
                ax.annotate(f"{n:,}", (n, 100 * t), textcoords="offset points",
                            xytext=(6, -16 if i else 6), fontsize=10, color=col)
    ax.set_xscale("log", base=2)
    ticks = [2**k for k in range(9, 22, 2)]
    ax.set_xticks(ticks, [f"{n // 1024:,}K" if n >= 1024 else str(n) for n in ticks])
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(0, 100)
    ax.set_xlabel("tokens held in the cache = context x batch (log scale)")
    ax.set_ylabel(f"memory saved vs MHA (%, {dtype})")
    ax.set_title(f"GQA cuts the KV cache by {min(cache_pcts):.0f}–{max(cache_pcts):.0f}%; "
                 f"total memory falls {100 * lo:.0f}–{100 * hi:.0f}% only in a band of cache sizes")
    ax.legend(loc="upper left", fontsize=10)
    return fig
