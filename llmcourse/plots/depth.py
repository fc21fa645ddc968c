"""Figures for the depth-and-width lesson."""

from __future__ import annotations

from ..approx import (approx_params_12Ld2, dense_models, layer_params, outside_layers_params)
from ..counts import param_count
from ..zoo import as_config
from .style import COLORS, COMPONENT_COLORS, clear_figure, new_figure, styled

__all__ = ["params_vs_layers", "draw_params_vs_layers", "approx_error_bars",
           "embedding_share_bars", "depth_width_bars", "layer_grid"]

B = 10**9


def layer_grid(max_layers):
    """The depths a params-vs-layers line is computed at: 1, 8, 16, ... ``max_layers``."""
    return [1] + list(range(8, max_layers + 1, 8))


def draw_params_vs_layers(fig, cfg, mark_layers=None, max_layers=None, title=None):
    """Exact total and in-layer parameters against depth for ``cfg``'s width, with
    12·L·d² and the (depth-independent) embedding + lm_head. Each point is an engine
    count of ``cfg`` at that depth. Draws on ``fig``; a second call on the same figure
    moves the existing artists (fast enough for a live explorer)."""
    cfg = as_config(cfg)
    L = mark_layers or cfg.num_hidden_layers
    top = max_layers or max(128, 8 * -(-int(1.25 * L) // 8))
    xs = layer_grid(top)
    cfgs = [cfg.replace(num_hidden_layers=n) for n in xs]
    total = [param_count(c).total / B for c in cfgs]
    inside = [layer_params(c) / B for c in cfgs]
    est = [approx_params_12Ld2(c) / B for c in cfgs]
    outside = outside_layers_params(cfg) / B
    here = cfg.replace(num_hidden_layers=L) if L != cfg.num_hidden_layers else cfg
    mark = param_count(here).total / B
    title = title or (f"{cfg.name}: parameters grow linearly with depth "
                      f"(hidden d = {cfg.hidden_size:,})")
    labels = ["exact total", "exact, in the layers", "12·L·d² estimate (layers)",
              f"embedding + lm_head + final norm ({outside:.2f}B)", f"this setting: {L} layers"]
    ys = [total, inside, est, [outside, outside], [mark]]
    xss = [xs, xs, xs, [0, top], [L]]
    art = getattr(fig, "_lc_params_vs_layers", None)
    if art is not None and art["ax"] in fig.axes:  # a live redraw: move the artists
        ax = art["ax"]
        for line, x, y, lab, text in zip(art["lines"], xss, ys, labels,
                                         art["legend"].get_texts()):
            line.set_data(x, y)
            text.set_text(lab)
    else:
        clear_figure(fig)
        ax = fig.subplots()
        lines = [ax.plot(xs, total, color=COLORS[0], lw=2.4)[0],
                 ax.plot(xs, inside, color=COLORS[2], lw=2.4)[0],
                 ax.plot(xs, est, color="k", lw=1.8, ls="--")[0],
                 ax.plot([0, top], [outside] * 2, color=COMPONENT_COLORS["embedding"], lw=1.8,
                         ls=":")[0],
                 ax.plot([L], [mark], "o", ms=9, color=COLORS[3])[0]]
        for line, lab in zip(lines, labels):
            line.set_label(lab)
        ax.set_xlabel("layers L (num_hidden_layers)")
        ax.set_ylabel("parameters (billions)")
        legend = ax.legend(loc="upper left")
        fig._lc_params_vs_layers = {"ax": ax, "lines": lines, "legend": legend}
    ax.set_xlim(0, top)
    ax.set_ylim(0, max(total) * 1.05)
    ax.set_title(title)
    return ax


@styled
def params_vs_layers(model, mark_layers=None, max_layers=None, title=None):
    """Parameters against depth for one model's width (a static figure)."""
    fig, _ = new_figure()
    draw_params_vs_layers(fig, as_config(model), mark_layers, max_layers, title)
    return fig


@styled
def approx_error_bars(models=None):
    """How far 12·L·d² lands from the exact parameters in the layers, per model."""
    cfgs = [as_config(m) for m in (models if models is not None else dense_models())]
    errs = [(c.name, 100 * (approx_params_12Ld2(c) - layer_params(c)) / layer_params(c))
            for c in cfgs]
    errs.sort(key=lambda t: t[1])
    fig, ax = new_figure(size=(10, 0.42 * len(errs) + 1.6))
    names = [n for n, _ in errs]
    vals = [v for _, v in errs]
    colors = [COLORS[3] if v < 0 else COLORS[0] for v in vals]
    ax.barh(names, vals, color=colors)
    for i, v in enumerate(vals):
        ax.text(v + (0.6 if v >= 0 else -0.6), i, f"{v:+.2f}%" if abs(v) < 1 else f"{v:+.1f}%",
                va="center",
                ha="left" if v >= 0 else "right", fontsize=11)
    ax.axvline(0, color="k", lw=1)
    lo, hi = min(vals), max(vals)
    ax.set_xlim(lo - 9, max(hi, 0) + 9)
    ax.set_xlabel("12·L·d² minus exact, in % of the exact parameters in the layers")
    ax.set_ylabel("model")
    ax.set_title(f"12·L·d² is off by {lo:+.0f}% to {hi:+.0f}% for real models")
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=COLORS[3], label="underestimates"),
                       Patch(color=COLORS[0], label="overestimates")], loc="lower right")
    ax.grid(axis="y", visible=False)
    return fig


@styled
def embedding_share_bars(models=None):
    """Share of the token embedding (and an untied lm_head) in each model's total."""
    cfgs = sorted((as_config(m) for m in (models if models is not None else dense_models())),
                  key=lambda c: param_count(c).total)
    fig, ax = new_figure(size=(11, 5.2))
    names, emb, head = [], [], []
    for c in cfgs:
        pc = param_count(c)
        names.append(f"{c.name}\n{pc.total / B:.1f}B")
        emb.append(100 * pc.embedding / pc.total)
        head.append(100 * pc.components["lm_head"] / pc.total)
    x = range(len(cfgs))
    ax.bar(x, emb, color=COMPONENT_COLORS["embedding"],
           label="embedding (tied: also the lm_head); labels: embedding %")
    ax.bar(x, head, bottom=emb, color=COMPONENT_COLORS["lm_head"], label="separate lm_head")
    for i, (e, h) in enumerate(zip(emb, head)):
        ax.text(i, e + h + 0.5, f"{e:.1f}%", ha="center", fontsize=10)
    ax.set_xticks(list(x), names, rotation=45, ha="right", fontsize=9.5)
    ax.set_ylabel("% of total parameters")
    ax.set_xlabel("model (total parameters), smallest to largest")
    first, last = cfgs[0], cfgs[-1]
    ax.set_title(f"The embedding is {emb[0]:.0f}% of {first.name} "
                 f"but {emb[-1]:.1f}% of {last.name}")
    ax.legend(loc="upper right")
    ax.grid(axis="x", visible=False)
    return fig


@styled
def depth_width_bars(models=("Qwen3-14B", "Qwen3-32B", "Meta-Llama-3-8B", "Qwen3-8B"),
                     title="Depth versus width: where each model's parameters go"):
    """Stacked bars per component (billions) for models of different depth and width."""
    cfgs = [as_config(m) for m in models]
    fig, ax = new_figure(size=(11, 0.9 * len(cfgs) + 1.8))
    parts = ("attention", "mlp", "norms", "embedding", "lm_head")
    labels = {"attention": "attention", "mlp": "MLP", "norms": "norms",
              "embedding": "embedding", "lm_head": "lm_head"}
    names = [f"{c.name}\n{c.num_hidden_layers} layers × d {c.hidden_size:,}" for c in cfgs][::-1]
    left = [0.0] * len(cfgs)
    comps = [param_count(c).components for c in cfgs][::-1]
    for p in parts:
        vals = [cp[p] / B for cp in comps]
        ax.barh(names, vals, left=left, color=COMPONENT_COLORS[p], label=labels[p])
        left = [a + b for a, b in zip(left, vals)]
    for i, tot in enumerate(left):
        ax.text(tot + 0.2, i, f"{tot:.2f}B", va="center", fontsize=11)
    ax.set_xlim(0, max(left) * 1.12)
    ax.set_xlabel("parameters (billions)")
    ax.set_ylabel("model (layers × hidden size)")
    ax.set_title(title)
    ax.legend(loc="lower right", ncols=1)
    ax.grid(axis="y", visible=False)
    return fig
