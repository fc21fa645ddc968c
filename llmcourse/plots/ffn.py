"""Figures for the FFN-sizing lesson."""

from __future__ import annotations

from ..counts import param_count
from ..sizing import context_within_max, ffn_attention_split
from ..tables.ffn import mlp_layout
from ..zoo import as_config
from matplotlib.ticker import MaxNLocator

from .style import (COMPONENT_COLORS, COMPONENT_HATCHES, TEXT_SIZES, clear_figure, color_of,
                    label_bars, new_figure, styled)

__all__ = ["ffn_ratios", "ffn_attention_share", "draw_ffn_explorer", "FFN_RATIOS"]

# intermediate_size / hidden_size values the explorer's share curves are drawn at
FFN_RATIOS = [1 + i / 4 for i in range(29)]  # 1.0 .. 8.0


def _cfgs(models):
    """The language models (a multimodal wrapper's towers are no part of its FFN story)."""
    return [as_config(m).text_model for m in models]


def _is_gated(cfg):
    return all(m["gated"] for m in mlp_layout(cfg))


@styled
def ffn_ratios(models):
    """intermediate_size / hidden_size of each model, with the 8/3 and 4 rules marked.
    Every bar is an MLP (the MLP's orange); plain ones are hatched, gated ones solid."""
    cfgs = sorted(_cfgs(models), key=lambda c: c.intermediate_size / c.hidden_size)
    fig, ax = new_figure(size=(10, 0.2 * len(cfgs) + 1.55))   # 17 rows: under 5 in, shown whole
    mlp = color_of("component:mlp")
    for i, c in enumerate(cfgs):
        r = c.intermediate_size / c.hidden_size
        gated = _is_gated(c)
        ax.barh(i, r, color=mlp, height=0.65, hatch="" if gated else "//",
                edgecolor="white")
        ax.text(r + 0.05, i, f"{r:.2f}× = {c.intermediate_size:,} / {c.hidden_size:,}",
                va="center", fontsize=TEXT_SIZES["label"], zorder=3,
                bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1.0))
    ax.axvline(8 / 3, color="black", ls="--", lw=1.3)
    ax.axvline(4, color="black", ls=":", lw=1.5)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Patch(color=mlp, label="gated MLP: gate/up/down (SwiGLU, GeGLU)"),
               Patch(facecolor=mlp, hatch="//", edgecolor="white",
                     label="plain MLP: 2 matrices + biases (GELU)"),
               Line2D([], [], color="black", ls="--",
                      label="8/3 ≈ 2.67×: gated, the weights of a plain 4×"),
               Line2D([], [], color="black", ls=":", label="4×: the classic plain MLP")]
    ax.set_yticks(range(len(cfgs)), [c.name for c in cfgs])
    ax.set_xlim(0, max(c.intermediate_size / c.hidden_size for c in cfgs) + 2.9)
    ax.set_xlabel("intermediate_size / hidden_size (ratio, no unit)")
    gated = [c.intermediate_size / c.hidden_size for c in cfgs if _is_gated(c)] or [0]
    ax.set_title(f"FFN width is a choice: gated MLPs here use {min(gated):.2f}× to "
                 f"{max(gated):.2f}× hidden")
    fig.legend(handles=handles, loc="outside lower center", ncol=2)
    ax.grid(axis="y", visible=False)
    return fig


# the parts a share bar is split into, in the course's component colours: the FFN and
# attention, then what is neither (the embedding, an untied lm_head, the norms)
_SHARE_PARTS = (("attention", "attention (FLOPs: projections + scores)"), ("mlp", "FFN (MLP)"),
                ("embedding", "embedding"), ("lm_head", "lm_head (parameters: if untied)"),
                ("norms", "norms"))


def _shares(cfg, split):
    """{part: (% of parameters, % of FLOPs per token)} for one model."""
    pc = param_count(cfg)
    comp = pc.components
    total_p, total_f = split["total_params"], split["total_flops"]
    params = {"attention": split["attention_params"], "mlp": split["ffn_params"],
              "embedding": comp["embedding"], "lm_head": comp["lm_head"],
              "norms": split["other_params"] - comp["embedding"] - comp["lm_head"]}
    # FLOPs: a lookup multiplies nothing; what is neither attention nor FFN is the lm_head
    flops = {"attention": split["attention_flops"], "mlp": split["ffn_flops"],
             "embedding": 0, "lm_head": split["other_flops"], "norms": 0}
    return {k: (100 * params[k] / total_p, 100 * flops[k] / total_f) for k, _ in _SHARE_PARTS}


@styled
def ffn_attention_share(models, seq_len=4096, mode="prefill"):
    """Share of parameters and of forward FLOPs per token in attention, the FFN, the
    embedding, the lm_head and the norms, one bar per model, in the component colours
    every lesson uses. A model whose maximum context is shorter than ``seq_len`` is
    sized at its maximum, and the FLOP panel says so beside its bar."""
    cfgs = _cfgs(models)
    splits = [ffn_attention_split(c, context_within_max(c, seq_len), mode) for c in cfgs]
    shares = [_shares(c, s) for c, s in zip(cfgs, splits)]
    fig, axes = new_figure(1, 2, size=(11, 0.22 * len(cfgs) + 2.3), sharey=True)
    from matplotlib.patches import Patch
    handles = []
    y = list(range(len(cfgs)))
    for col, ax in enumerate(axes):
        left = [0.0] * len(cfgs)
        for part, name in _SHARE_PARTS:
            vals = [sh[part][col] for sh in shares]
            if col == 1 and not any(vals):
                continue   # the embedding and the norms multiply nothing
            bars = ax.barh(y, vals, left=left, color=color_of(f"component:{part}"),
                           hatch=COMPONENT_HATCHES[part], edgecolor="white", height=0.65)
            if col == 0:
                handles.append(Patch(facecolor=color_of(f"component:{part}"),
                                     hatch=COMPONENT_HATCHES[part], edgecolor="white",
                                     label=name))
            if part == "mlp":
                label_bars(ax, bars, [f"{v:.1f}%" for v in vals])
            left = [a + b for a, b in zip(left, vals)]
        ax.grid(axis="y", visible=False)
    axes[0].set_xlim(0, 100)
    axes[1].set_xlim(0, 123)            # room for "at 1,024" beside a short-context bar
    axes[1].set_xticks([0, 25, 50, 75, 100])
    for i, s in enumerate(splits):
        if s["seq_len"] != seq_len:
            axes[1].text(101.5, i, f"at {s['seq_len']:,}", va="center",
                         fontsize=TEXT_SIZES["label"])
    axes[0].set_yticks(y, [c.name for c in cfgs])
    axes[0].set_xlabel("share of the model's parameters (%)")
    axes[1].set_xlabel(f"share of FLOPs per token (%), {mode} {seq_len:,}")
    axes[0].set_title("Parameters")
    axes[1].set_title("FLOPs per token")
    fig.legend(handles=handles, loc="outside lower center", ncol=3)
    under = [c.name for c, sh in zip(cfgs, shares) if sh["mlp"][0] < 50]
    if not under:
        point = "The FFN holds over half of every model's parameters here"
    else:
        point = (f"The FFN holds over half of the parameters in all but the smallest here "
                 f"({', '.join(under)})")
    fig.suptitle(point)
    return fig


# --- the explorer's figure --------------------------------------------------------------

def _setup_ffn(fig):
    clear_figure(fig)
    fig.subplots_adjust(left=0.13, right=0.98, top=0.84, bottom=0.16, wspace=0.32)
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})
    bars_a = ax1.barh([1, 0], [0, 0], color=COMPONENT_COLORS["attention"], height=0.6,
                      label="attention")
    bars_f = ax1.barh([1, 0], [0, 0], color=COMPONENT_COLORS["mlp"], height=0.6,
                      hatch=COMPONENT_HATCHES["mlp"], edgecolor="white", label="FFN")
    texts = [ax1.text(0, y, "", va="center", fontsize=TEXT_SIZES["label"]) for y in (1, 0)]
    ax1.set_yticks([1, 0], ["as shipped", "this setting"])
    ax1.set_xlabel("parameters per layer (millions)")
    ax1.legend(loc="upper right")
    ax1.grid(axis="y", visible=False)
    ax1.set_ylim(-0.6, 1.9)
    ax1.xaxis.set_major_locator(MaxNLocator(nbins=4))  # few tick labels: a faster redraw
    ax1.set_title("one layer: % = FFN / (attention + FFN)", fontsize=TEXT_SIZES["label"])
    # both lines are the FFN's share: of the parameters (the MLP's orange) and of the
    # FLOPs a token runs through (slate: what runs)
    p_col, f_col = color_of("component:mlp"), color_of("active")
    (p_line,) = ax2.plot(FFN_RATIOS, [0] * len(FFN_RATIOS), color=p_col, lw=6, alpha=0.55,
                         label="share of parameters", zorder=2)
    (f_line,) = ax2.plot(FFN_RATIOS, [0] * len(FFN_RATIOS), color=f_col, lw=2.2,
                         ls=(0, (5, 2)), marker="s", markevery=4, ms=6,
                         label="share of FLOPs per token", zorder=3)
    (p_dot,) = ax2.plot([0], [0], "o", color=p_col, ms=13, zorder=4)
    (f_dot,) = ax2.plot([0], [0], "s", color=f_col, ms=8, zorder=5)
    now = ax2.axvline(1, color="black", ls=":", lw=1.3)
    ax2.axvline(8 / 3, color="black", ls="--", lw=1, alpha=0.6)
    ax2.axvline(4, color="black", ls="--", lw=1, alpha=0.6)
    ax2.text(8 / 3, 93, "8/3 ", fontsize=TEXT_SIZES["label"], ha="right")
    ax2.text(4, 93, " 4", fontsize=TEXT_SIZES["label"])
    ax2.set_xlim(1, 8)
    ax2.set_ylim(0, 100)
    ax2.set_xticks([1, 2, 3, 4, 6, 8])
    ax2.set_yticks([0, 25, 50, 75, 100])
    ax2.set_xlabel("intermediate_size / hidden_size")
    ax2.set_ylabel("FFN share of the whole model (%)")
    ax2.legend(loc="lower right")
    state = dict(ax1=ax1, ax2=ax2, bars_a=bars_a, bars_f=bars_f, texts=texts, p_line=p_line,
                 f_line=f_line, p_dot=p_dot, f_dot=f_dot, now=now, curve_key=None)
    fig.lc_ffn_state = state
    return state


def draw_ffn_explorer(fig, shipped, current, curve, title, mean=False):
    """The FFN explorer's figure, updated in place.

    Left: one layer's parameters (attention + FFN; the % is of that sum). Right: the
    FFN's share of the whole model (embedding, norms and lm_head included) in
    parameters and in FLOPs per token, across widths; the FLOP line is drawn on top,
    dashed with markers, so it stays visible where the two coincide.

    ``shipped``, ``current``: :func:`~llmcourse.sizing.ffn_attention_split` dicts
    for the model as shipped and for this setting; ``curve``: ``(key, splits)`` with
    one split per :data:`FFN_RATIOS` value (redrawn only when ``key`` changes);
    ``mean``: the model's layers differ (Gemma 4 E2B), so a bar is their mean, and the
    axis says so.
    """
    state = getattr(fig, "lc_ffn_state", None)
    if state is None or state["ax1"] not in fig.axes:
        state = _setup_ffn(fig)
    ax1, ax2 = state["ax1"], state["ax2"]
    layers = [shipped, current]
    widest = 0
    for bar_a, bar_f, text, s in zip(state["bars_a"], state["bars_f"], state["texts"], layers):
        n = s["layers"]
        a, f = s["attention_params"] / n / 1e6, s["ffn_params"] / n / 1e6
        bar_a.set_width(a)
        bar_f.set_x(a)
        bar_f.set_width(f)
        text.set_x(a + f)
        text.set_text(f" {100 * f / (a + f):.1f}% FFN")
        widest = max(widest, a + f)
    ax1.set_xlim(0, widest * 1.5)
    ax1.set_xlabel("parameters per layer (millions" + (", mean of its layers)" if mean else ")"))
    key, splits = curve
    if state["curve_key"] != key:
        state["p_line"].set_ydata([100 * s["ffn_param_share"] for s in splits])
        state["f_line"].set_ydata([100 * s["ffn_flop_share"] for s in splits])
        state["curve_key"] = key
    r = current["ffn_ratio"]
    state["p_dot"].set_data([r], [100 * current["ffn_param_share"]])
    state["f_dot"].set_data([r], [100 * current["ffn_flop_share"]])
    state["now"].set_xdata([r, r])
    lo, hi = min(1, r * 0.9), max(8, r * 1.05)
    ax2.set_xlim(lo, hi)
    if state.get("x_hi") != int(hi):  # the fixed ticks up to 8; past 8, a handful (any width)
        if hi <= 8:
            ticks = [1, 2, 3, 4, 6, 8]
        else:
            from matplotlib.ticker import MaxNLocator
            ticks = [t for t in MaxNLocator(nbins=6, integer=True).tick_values(lo, hi)
                     if lo <= t <= hi]
        ax2.set_xticks(ticks)
        state["x_hi"] = int(hi)
    ax2.set_title(f"whole model; FLOPs: {current['mode']} {current['seq_len']:,} tokens",
                  fontsize=TEXT_SIZES["label"])
    fig.suptitle(title)
    return fig
