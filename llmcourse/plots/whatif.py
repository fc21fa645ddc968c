"""Figures for the what-if lab: an original config and an edited one, side by side."""

from __future__ import annotations

import math
import warnings

from matplotlib.ticker import (FuncFormatter, LogLocator, MaxNLocator, NullLocator,
                               ScalarFormatter)

from ..compare import size_summary
from ..units import GiB
from .style import CONCEPT_COLORS, TEXT_SIZES, new_figure, styled

__all__ = ["whatif_bars", "draw_whatif_bars", "whatif_title"]

ORIGINAL_COLOR, EDITED_COLOR = CONCEPT_COLORS["original"], CONCEPT_COLORS["edited"]

# (panel title, y label, scale, [(bar label, summary key), ...])
_PANELS = (
    ("parameters", "parameters (billions)", 1e9,
     [("total", "total_params"), ("active\nper token", "active_params")]),
    ("weights", "weights (GiB)", GiB,
     [("bf16", "weights_bf16"), ("fp8", "weights_fp8"), ("int4, as\nAWQ stores", "weights_int4_g128")]),
    # the cache on its own axis: beside hundreds of GiB of weights its bars would vanish
    ("KV cache", "KV cache, bf16 (GiB)", GiB, [("", "kv_cache_bytes")]),
    ("compute", "GFLOPs per token", 1e9,
     [("prefill", "flops_prefill"), ("decode", "flops_decode")]),
)


def _compact(x):
    """3 significant digits, and a short power of ten past a million: '2.72e7'."""
    if abs(x) < 1e6:
        return f"{x:.3g}"
    mantissa, exp = f"{x:.2e}".split("e")
    return f"{mantissa}e{int(exp)}"


def _ratio(a, b):
    if not a:
        return "new"
    return f"×{_compact(b / a)}"


def whatif_title(name, original, edited):
    """A title that states the result: the edited model's parameters, active
    parameters and KV cache as multiples of the original's (short enough for the
    figure's width at any edit: a billion layers is '×2.72e7')."""
    if original == edited:
        return f"{name}: unchanged (edit a field to compare)"
    return (f"{name} edited: parameters {_ratio(original['total_params'], edited['total_params'])}, "
            f"active {_ratio(original['active_params'], edited['active_params'])}, "
            f"KV cache {_ratio(original['kv_cache_bytes'], edited['kv_cache_bytes'])}")


def _ctx(n):
    return f"{n // 1024}K" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def _fmt(v):
    if v >= 10_000:
        return _compact(v)  # '2.18e8': two bar labels must fit side by side
    if v >= 100:
        return f"{v:.0f}"  # no thousands comma, for the same reason
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def _power_of_ten(v, _pos=None):
    """A log-axis tick as '1e9' (no mathtext, no '+0')."""
    return f"1e{round(math.log10(v))}" if v > 0 else ""


# a panel whose largest bar is more than this many times its smallest goes to a log axis,
# where both stay visible (a billion layers against 32)
LOG_ABOVE = 100


def draw_whatif_bars(fig, original, edited, seq_len, batch, title=None,
                     labels=("original", "edited")):
    """Grouped bars, original vs edited, on ``fig``: parameters (billions), memory
    (GiB: weights by dtype and the KV cache at ``seq_len`` x ``batch``) and FLOPs
    per token. ``original`` and ``edited`` are :func:`~llmcourse.compare.size_summary`
    dicts. The first call builds the axes; later calls on the same figure update
    the bars, labels and titles in place (fast enough for a live widget)."""
    art = getattr(fig, "_lc_whatif", None)
    if art is None:
        art = _build(fig)
    for panel, (_, _, scale, bars) in zip(art["panels"], _PANELS):
        ax = panel["ax"]
        a = [original[k] / scale for _, k in bars]
        b = [edited[k] / scale for _, k in bars]
        top = max(a + b) or 1.0
        low = min([v for v in a + b if v > 0] or [1.0])
        log = top / low > LOG_ABOVE
        for rects, texts, vals in ((panel["a"], panel["ta"], a), (panel["b"], panel["tb"], b)):
            for r, t, v in zip(rects, texts, vals):
                r.set_height(v)
                t.set_position((r.get_x() + r.get_width() / 2, v * 1.25 if log else v + top * 0.015))
                t.set_text(_fmt(v))
        if log != (ax.get_yscale() == "log"):
            with warnings.catch_warnings():   # the bars were built at 0: their data limits
                warnings.simplefilter("ignore", UserWarning)   # say nothing; ylim is set below
                ax.set_yscale("log" if log else "linear")
            if log:
                ax.yaxis.set_major_locator(LogLocator(numticks=4))
                ax.yaxis.set_major_formatter(FuncFormatter(_power_of_ten))
                ax.yaxis.set_minor_locator(NullLocator())
            else:
                ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
                ax.yaxis.set_major_formatter(ScalarFormatter(useOffset=False))
                ax.yaxis.get_major_formatter().set_scientific(False)
        if log:
            ax.set_ylim(low / 2, top * 8)
        else:
            ax.set_ylim(0, top * 1.18)
    ctx = _ctx(seq_len)
    art["panels"][2]["ax"].set_xticks([0], [f"{ctx} × {batch}"])
    art["panels"][3]["ax"].set_title(f"compute ({ctx})", fontsize=TEXT_SIZES["axis"], y=1.0, pad=8)
    if art["labels"] != tuple(labels):  # a new model: a new legend
        art["legend"].remove()
        art["legend"] = fig.legend(handles=art["handles"], labels=list(labels),
                                   loc="upper center", bbox_to_anchor=(0.5, 0.915), ncol=2,
                                   frameon=False, fontsize=TEXT_SIZES["legend"])
        art["labels"] = tuple(labels)
    art["title"].set_text(title or whatif_title("model", original, edited))
    return [p["ax"] for p in art["panels"]]


def _build(fig):
    """Axes, bars and value labels (heights are set by draw_whatif_bars)."""
    fig.clear()
    axes = fig.subplots(1, 4, gridspec_kw={"width_ratios": [2.3, 3.3, 1.3, 2.3]})
    fig.subplots_adjust(left=0.07, right=0.99, top=0.76, bottom=0.14, wspace=0.42)
    w, gap = 0.4, 0.46  # bar width; centre to centre: two value labels fit side by side
    panels = []
    for ax, (name, ylabel, _, bars) in zip(axes, _PANELS):
        xs = list(range(len(bars)))
        zero = [0.0] * len(bars)
        ra = ax.bar([x - gap / 2 for x in xs], zero, w, color=ORIGINAL_COLOR)
        rb = ax.bar([x + gap / 2 for x in xs], zero, w, color=EDITED_COLOR)
        ta = [ax.text(0, 0, "", ha="center", va="bottom", fontsize=TEXT_SIZES["label"]) for _ in xs]
        tb = [ax.text(0, 0, "", ha="center", va="bottom", fontsize=TEXT_SIZES["label"]) for _ in xs]
        ax.set_xticks(xs, [lab for lab, _ in bars])
        ax.set_xlim(-0.6, len(bars) - 0.4)
        ax.set_ylabel(ylabel)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=5))  # few tick labels: a fast redraw
        # plain numbers, never matplotlib's "1e8" offset text over the panel title
        ax.yaxis.set_major_formatter(ScalarFormatter(useOffset=False))
        ax.yaxis.get_major_formatter().set_scientific(False)
        # fixed label places: matplotlib then skips measuring every tick label per redraw
        ax.yaxis.set_label_coords({1: -0.5, 2: -0.26}.get(len(bars), -0.17), 0.5)
        ax.xaxis.set_label_coords(0.5, -0.1)
        ax.tick_params(axis="x", length=0)
        ax.grid(axis="x", visible=False)
        ax.set_title(name, fontsize=TEXT_SIZES["axis"], y=1.0, pad=8)  # a fixed y: no costly auto-placement
        panels.append(dict(ax=ax, a=ra, b=rb, ta=ta, tb=tb))
    handles = [panels[0]["a"], panels[0]["b"]]
    legend = fig.legend(handles=handles, labels=["original", "edited"])
    title = fig.suptitle("", fontsize=TEXT_SIZES["suptitle"], y=0.985)
    art = dict(panels=panels, handles=handles, legend=legend, title=title, labels=None)
    fig._lc_whatif = art
    return art


@styled
def whatif_bars(original, edited, seq_len=8192, batch=1, title=None, size=(12, 4.8)):
    """Original vs edited config as grouped bars: parameters, memory, FLOPs per token.

    ``original`` and ``edited`` are configs (``ModelConfig``, a zoo name is not
    accepted here: pass ``lc.load_model(name)``)."""
    a, b = size_summary(original, seq_len, batch), size_summary(edited, seq_len, batch)
    fig, _ = new_figure(0, 0, size=size, fast=True)
    draw_whatif_bars(fig, a, b, seq_len, batch,
                     title=title or whatif_title(original.name, a, b),
                     labels=(f"original: {original.name}", "edited"))
    return fig
