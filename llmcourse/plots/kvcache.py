"""Figures for the KV-cache lesson."""

from __future__ import annotations

from ..counts import kv_cache_bytes
from ..units import GiB
from .style import COLORS, new_figure, plain_log_axis, styled

__all__ = ["kv_cache_vs_context", "draw_kv_cache_vs_context", "CONTEXTS"]

CONTEXTS = [2**k for k in range(9, 18)]  # 512 .. 131072 tokens


def draw_kv_cache_vs_context(fig, variants, batch=1, dtype="bf16", mark_seq_len=None,
                             weights_bytes=None, title=None):
    """Draw KV-cache GiB against context length, one line per ``(label, cfg)`` variant,
    on ``fig`` (cleared first). Used by the static figure and the explorer."""
    fig.clear()
    ax = fig.subplots()
    for i, (label, cfg) in enumerate(variants):
        ys = [kv_cache_bytes(cfg, n, batch, dtype) / GiB for n in CONTEXTS]
        ax.plot(CONTEXTS, ys, marker="o", ms=4, lw=2.2, color=COLORS[i % len(COLORS)],
                label=label)
    if weights_bytes:
        ax.axhline(weights_bytes / GiB, color="k", ls="--", lw=1.2,
                   label=f"weights ({dtype}) {weights_bytes / GiB:,.1f} GiB")
    if mark_seq_len:
        ax.axvline(mark_seq_len, color="#777", ls=":", lw=1.2)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    ax.set_xticks(CONTEXTS, [f"{n // 1024}K" if n >= 1024 else str(n) for n in CONTEXTS])
    ax.set_xlabel("context length (tokens, log scale)")
    ax.set_ylabel(f"KV cache (GiB, {dtype}, log scale)")
    ax.set_title(title or f"KV cache grows linearly with context (batch {batch})")
    ax.legend(loc="upper left")
    return ax


@styled
def kv_cache_vs_context(variants, batch=1, dtype="bf16", title=None):
    """KV-cache size against context length for several ``(label, cfg)`` pairs."""
    fig, _ = new_figure()
    draw_kv_cache_vs_context(fig, variants, batch, dtype, title=title)
    return fig
