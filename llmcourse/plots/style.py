"""Shared figure style: large enough for a projector, identical on every run.

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot
state), so a widget can redraw one figure in place and a notebook can show it
by leaving it as a cell's last expression.
"""

from __future__ import annotations

import io

__all__ = ["new_figure", "png_bytes", "styled", "plain_log_axis", "STYLE", "COLORS", "COMPONENT_COLORS"]

# projector-legible defaults; applied per figure via rc_context
STYLE = {
    "font.size": 13, "axes.titlesize": 15, "axes.labelsize": 13, "legend.fontsize": 11,
    "xtick.labelsize": 11, "ytick.labelsize": 11, "axes.grid": True, "grid.alpha": 0.3,
    "axes.spines.top": False, "axes.spines.right": False, "figure.dpi": 100,
    "savefig.dpi": 100, "svg.hashsalt": "llmcourse", "font.family": "DejaVu Sans",
}
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf"]
COMPONENT_COLORS = {
    "embedding": "#8c564b", "attention": "#1f77b4", "mlp": "#ff7f0e",
    "shared_experts": "#bcbd22", "experts": "#2ca02c", "router": "#9467bd",
    "norms": "#7f7f7f", "lm_head": "#e377c2",
}


def styled(func):
    """Decorator: run a plotting function under the course style (titles, ticks and
    labels take their sizes when they are drawn, so the whole function needs it)."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        import matplotlib as mpl
        with mpl.rc_context(STYLE):
            return func(*args, **kwargs)
    return wrapper


def new_figure(nrows=1, ncols=1, size=(10, 4.8), fast=False, **subplot_kw):
    """A styled Figure and its axes (``fig, ax`` or ``fig, axes``).

    ``fast=True`` (for widgets that redraw live) uses fixed margins instead of
    constrained layout, which would otherwise cost about half of each redraw.
    """
    import matplotlib as mpl
    from matplotlib.figure import Figure
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=size, layout=None if fast else "constrained")
        if fast:
            fig.subplots_adjust(left=0.09, right=0.98, top=0.9, bottom=0.14, wspace=0.3)
        axes = fig.subplots(nrows, ncols, **subplot_kw) if nrows and ncols else None
    return fig, axes


def png_bytes(fig):
    """Render a figure to PNG bytes (no metadata, so the bytes are stable)."""
    import matplotlib as mpl
    buf = io.BytesIO()
    with mpl.rc_context(STYLE):
        # fast zlib level: a widget redraw must stay well under 50 ms
        fig.savefig(buf, format="png", metadata={"Software": None},
                    pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def plain_log_axis(axis, fmt="{:g}"):
    """Log-scale tick labels as plain numbers ('0.5', '8', '64'), no mathtext
    (mathtext labels are slow to lay out on every redraw, and harder to read)."""
    from matplotlib.ticker import FuncFormatter, NullLocator
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt.format(v)))
    axis.set_minor_locator(NullLocator())
