"""Figures for the depth-and-width lesson."""

from __future__ import annotations

from ..approx import (approx_params_12Ld2, dense_models, layer_params, outside_layers_params)
from ..counts import param_count
from ..zoo import as_config
from .style import (COMPONENT_COLORS, COMPONENT_HATCHES, TEXT_SIZES, clear_figure, color_of,
                    label_bars, new_figure, styled)

__all__ = ["params_vs_layers", "draw_params_vs_layers", "approx_error_bars",
           "embedding_share_bars", "depth_width_bars", "layer_grid", "min_layers"]

B = 10**9


def min_layers(cfg):
    """The fewest layers ``cfg`` can have: 1, except where a config ties layers to each
    other (Gemma 4 E2B's last 20 layers reuse the K and V of earlier full and sliding
    layers, so the engine refuses fewer than 25). Found by asking the engine."""
    cfg = as_config(cfg)
    n = 1
    while n < cfg.num_hidden_layers:
        try:
            cfg.replace(num_hidden_layers=n)
            return n
        except ValueError:
            n += 1
    return cfg.num_hidden_layers


def layer_grid(max_layers, first=1):
    """The depths a params-vs-layers line is computed at: ``first`` (1 unless the model
    needs more), then every multiple of 8 above it up to ``max_layers``."""
    return [first] + [n for n in range(8, max_layers + 1, 8) if n > first]


def draw_params_vs_layers(fig, cfg, mark_layers=None, max_layers=None, title=None,
                          real_layers=None):
    """Exact total and in-layer parameters against depth for ``cfg``'s width, with
    12·L·d² and the (depth-independent) embedding + lm_head (labelled on the plot).
    Each point is an engine count of ``cfg`` at that depth.

    Two points are marked: the real depth (``real_layers``, default ``cfg``'s own;
    a circle) and the what-if (``mark_layers``, default ``cfg``'s own; a diamond),
    when they differ. Draws on ``fig``; a second call on the same figure moves the
    existing artists (fast enough for a live explorer). A multimodal wrapper is drawn as
    its language model."""
    cfg = as_config(cfg).text_model
    L = mark_layers or cfg.num_hidden_layers
    real = real_layers or cfg.num_hidden_layers
    top = max_layers or max(128, 8 * -(-int(1.25 * max(L, real)) // 8))
    xs = layer_grid(top, min_layers(cfg))
    cfgs = [cfg.replace(num_hidden_layers=n) for n in xs]
    total = [param_count(c).total / B for c in cfgs]
    inside = [layer_params(c) / B for c in cfgs]
    est = [approx_params_12Ld2(c) / B for c in cfgs]
    outside = outside_layers_params(cfg) / B

    def at(n):
        return param_count(cfg.replace(num_hidden_layers=n)).total / B

    here, there = at(L), at(real)
    title = title or (f"{cfg.name}: parameters grow linearly with depth "
                      f"(hidden d = {cfg.hidden_size:,})")
    same = L == real
    labels = ["exact total", "exact, in the layers", "12·L·d² (estimate of the layers)",
              f"real depth: {real} layers, {there:.2f}B total",
              "_nolegend_" if same else f"what-if: {L} layers, {here:.2f}B total"]
    ys = [total, inside, est, [there], [] if same else [here]]
    xss = [xs, xs, xs, [real], [] if same else [L]]
    out_label = f"embedding + lm_head + final norm: {outside:.2f}B (any depth)"
    art = getattr(fig, "_lc_params_vs_layers", None)
    if art is not None and art["ax"] in fig.axes:  # a live redraw: move the artists
        ax = art["ax"]
        for line, x, y in zip(art["lines"], xss, ys):
            line.set_data(x, y)
        for line, lab in zip(art["lines"], labels):
            line.set_label(lab)
        art["flat"].set_data([0, top], [outside, outside])
        art["flat_label"].set_text(out_label)
        art["flat_label"].xy = (top, outside)
        art["ax"].legend(handles=[ln for ln in art["lines"] if not ln.get_label().startswith("_")],
                         loc="upper left")
    else:
        clear_figure(fig)
        ax = fig.subplots()
        # exact counts in slate (solid: the whole model; dash-dot: its layers), the
        # estimate in the estimate's purple, the reader's what-if in red
        lines = [ax.plot(xs, total, color=color_of("exact"), lw=2.8)[0],
                 ax.plot(xs, inside, color=color_of("exact"), lw=2.2, ls="-.")[0],
                 ax.plot(xs, est, color=color_of("approx"), lw=2.2, ls="--")[0],
                 ax.plot(xss[3], ys[3], "o", ms=12, color=color_of("exact"), zorder=5)[0],
                 ax.plot(xss[4], ys[4], "D", ms=11, color=color_of("highlight"), zorder=5)[0]]
        for line, lab in zip(lines, labels):
            line.set_label(lab)
        color = COMPONENT_COLORS["embedding"]
        flat = ax.plot([0, top], [outside] * 2, color=color, lw=2, ls=":")[0]
        flat_label = ax.annotate(out_label, (top, outside), xytext=(-4, 6),
                                 textcoords="offset points", ha="right", va="bottom",
                                 color=color, fontsize=TEXT_SIZES["label"],
                                 fontweight="bold")
        ax.set_xlabel("layers L (num_hidden_layers)")
        ax.set_ylabel("parameters (billions)")
        ax.legend(handles=[ln for ln in lines if not ln.get_label().startswith("_")],
                  loc="upper left")
        art = fig._lc_params_vs_layers = {"ax": ax, "lines": lines, "flat": flat,
                                          "flat_label": flat_label}
    ax.set_xlim(0, top)
    ax.set_ylim(0, max(total) * 1.05)
    ax.set_title(title)
    return ax


@styled
def params_vs_layers(model, mark_layers=None, max_layers=None, title=None):
    """Parameters against depth for one model's width (a static figure), with the
    real model and the ``mark_layers`` what-if marked."""
    fig, _ = new_figure(size=(11, 5.0))
    draw_params_vs_layers(fig, as_config(model), mark_layers, max_layers, title)
    return fig


@styled
def approx_error_bars(models=None):
    """How far 12·L·d² lands from the exact parameters in the layers, per model."""
    cfgs = [as_config(m).text_model for m in (models if models is not None else dense_models())]
    errs = [(c.name, 100 * (approx_params_12Ld2(c) - layer_params(c)) / layer_params(c))
            for c in cfgs]
    errs.sort(key=lambda t: t[1])
    fig, ax = new_figure(size=(11, 0.21 * len(errs) + 1.6))   # 16 rows: under 5 in
    names = [n for n, _ in errs]
    vals = [v for _, v in errs]
    # one colour, the estimate's: the side of zero says under or over, the hatch repeats it
    under = over = color_of("approx")
    ax.barh(names, vals, color=under, hatch=["//" if v < 0 else "" for v in vals],
            edgecolor="white")
    for i, v in enumerate(vals):
        text = f"{v:+.1f}%" if abs(v) >= 0.05 else "within 0.1%"
        ax.text(v + (0.6 if v >= 0 else -0.6), i, text, va="center",
                ha="left" if v >= 0 else "right", fontsize=TEXT_SIZES["label"])
    ax.axvline(0, color=color_of("reference"), lw=1)
    lo, hi = min(vals), max(vals)
    ax.set_xlim(lo - 9, max(hi, 0) + 9)
    ax.text(0.01, 0.02, "◀ underestimates", transform=ax.transAxes, color=under, fontsize=TEXT_SIZES["label"],
            fontweight="bold")
    ax.text(0.99, 0.02, "overestimates ▶", transform=ax.transAxes, color=over, fontsize=TEXT_SIZES["label"],
            fontweight="bold", ha="right")
    ax.set_xlabel("12·L·d² minus exact, in % of the exact parameters in the layers")
    ax.set_ylabel("model")
    ax.set_title(f"12·L·d² is off by {lo:+.1f}% to {hi:+.1f}% for real models")
    ax.grid(axis="y", visible=False)
    return fig


@styled
def embedding_share_bars(models=None):
    """Share of the token embedding (and an untied lm_head) in each model's total,
    horizontal bars with each share written at the end of its own segment."""
    cfgs = sorted((as_config(m).text_model
                   for m in (models if models is not None else dense_models())),
                  key=lambda c: param_count(c).total, reverse=True)
    fig, ax = new_figure(size=(11, 0.2 * len(cfgs) + 1.7))    # 16 rows: under 5 in
    names, emb, head = [], [], []
    for c in cfgs:
        pc = param_count(c)
        names.append(f"{c.name} ({pc.total / B:.1f}B)")
        emb.append(100 * pc.embedding / pc.total)
        head.append(100 * pc.components["lm_head"] / pc.total)
    y = range(len(cfgs))
    ax.barh(y, emb, color=COMPONENT_COLORS["embedding"], hatch=COMPONENT_HATCHES["embedding"],
            edgecolor="white")
    ax.barh(y, head, left=emb, color=COMPONENT_COLORS["lm_head"],
            hatch=COMPONENT_HATCHES["lm_head"], edgecolor="white")
    for i, (e, h) in enumerate(zip(emb, head)):
        text = (f"{e:.1f}% embedding (tied: also the lm_head)" if not h else
                f"{e:.1f}% embedding + {h:.1f}% lm_head = {e + h:.1f}%")
        ax.text(e + h + 0.4, i, text, va="center", fontsize=TEXT_SIZES["label"])
    ax.set_yticks(list(y), names)
    ax.set_xlim(0, max(e + h for e, h in zip(emb, head)) * 2.0)   # room for the longest label
    ax.set_xlabel("% of total parameters")
    ax.set_ylabel("model (total parameters)")
    first, last = cfgs[-1], cfgs[0]
    ax.set_title(f"The embedding is {emb[-1]:.1f}% of {first.name} "
                 f"but {emb[0]:.1f}% of {last.name}")
    ax.grid(axis="y", visible=False)
    return fig


@styled
def depth_width_bars(models=("Qwen3-14B", "Qwen3-32B", "Meta-Llama-3-8B", "Qwen3-8B"),
                     title="Depth versus width: the MLPs hold most of every model's parameters"):
    """Stacked bars per component (billions) for models of different depth and width,
    each wide enough segment labelled with its component."""
    cfgs = [as_config(m).text_model for m in models]
    fig, ax = new_figure(size=(11, 0.8 * len(cfgs) + 1.8))
    parts = ("attention", "mlp", "norms", "embedding", "lm_head")
    labels = {"attention": "attention", "mlp": "MLP", "norms": "norms",
              "embedding": "emb.", "lm_head": "lm_head"}
    names = [f"{c.name}\n{c.num_hidden_layers} layers × d {c.hidden_size:,}" for c in cfgs][::-1]
    left = [0.0] * len(cfgs)
    comps = [param_count(c).components for c in cfgs][::-1]
    widest = max(sum(cp.values()) for cp in comps) / B
    ax.set_xlim(0, widest * 1.12)
    for p in parts:
        vals = [cp[p] / B for cp in comps]
        bars = ax.barh(names, vals, left=left, color=COMPONENT_COLORS[p], label=labels[p],
                       hatch=COMPONENT_HATCHES[p], edgecolor="white")
        label_bars(ax, bars, [f"{labels[p]}\n{v:.1f}B" for v in vals], min_fraction=0.09,
                   fontweight="bold")
        left = [a + b for a, b in zip(left, vals)]
    for i, tot in enumerate(left):
        ax.text(tot + 0.2, i, f"{tot:.2f}B", va="center", fontsize=TEXT_SIZES["label"])
    ax.set_xlabel("parameters (billions)")
    ax.set_ylabel("model (layers × hidden size)")
    ax.set_title(title)
    ax.legend(loc="lower right", ncols=5)
    ax.grid(axis="y", visible=False)
    return fig
