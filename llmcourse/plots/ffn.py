"""Figures for the FFN-sizing lesson."""

from __future__ import annotations

from ..sizing import ffn_attention_split
from ..zoo import as_config
from matplotlib.ticker import MaxNLocator

from .style import COLORS, COMPONENT_COLORS, new_figure, styled

__all__ = ["ffn_ratios", "ffn_attention_share", "draw_ffn_explorer", "FFN_RATIOS"]

# intermediate_size / hidden_size values the explorer's share curves are drawn at
FFN_RATIOS = [1 + i / 4 for i in range(29)]  # 1.0 .. 8.0


def _cfgs(models):
    return [as_config(m) for m in models]


def _is_gated(cfg):
    return cfg.family != "phi"


@styled
def ffn_ratios(models):
    """intermediate_size / hidden_size of each model, with the 8/3 and 4 rules marked."""
    cfgs = sorted(_cfgs(models), key=lambda c: c.intermediate_size / c.hidden_size)
    fig, ax = new_figure(size=(11, 0.42 * len(cfgs) + 1.9))
    for i, c in enumerate(cfgs):
        r = c.intermediate_size / c.hidden_size
        gated = _is_gated(c)
        ax.barh(i, r, color=COLORS[0] if gated else COLORS[1], height=0.65)
        ax.text(r + 0.05, i, f"{r:.3f}x = {c.intermediate_size:,} / {c.hidden_size:,}",
                va="center", fontsize=10,
                bbox=dict(facecolor="white", edgecolor="none", pad=0.5, alpha=0.85))
    ax.axvline(8 / 3, color="k", ls="--", lw=1.3)
    ax.axvline(4, color="k", ls=":", lw=1.5)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Patch(color=COLORS[0], label="gated MLP: gate/up/down (SwiGLU, GeGLU)"),
               Patch(color=COLORS[1], label="plain MLP: fc1/fc2 (GELU)"),
               Line2D([], [], color="k", ls="--",
                      label="8/3 = 2.667x: 3 matrices, the parameters of a 4x 2-matrix MLP"),
               Line2D([], [], color="k", ls=":", label="4x: the classic two-matrix MLP")]
    ax.set_yticks(range(len(cfgs)), [c.name for c in cfgs])
    ax.set_xlim(0, max(c.intermediate_size / c.hidden_size for c in cfgs) + 2.6)
    ax.set_xlabel("intermediate_size / hidden_size (ratio, no unit)")
    gated = [c.intermediate_size / c.hidden_size for c in cfgs if _is_gated(c)] or [0]
    ax.set_title(f"Real gated FFNs are {min(gated):.2f}x to {max(gated):.2f}x hidden, "
                 "never below 8/3x")
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=10)
    ax.grid(axis="y", visible=False)
    return fig


@styled
def ffn_attention_share(models, seq_len=4096, mode="prefill"):
    """Share of parameters and of forward FLOPs per token in attention, FFN and the
    rest (embedding, norms, lm_head), one bar per model."""
    cfgs = _cfgs(models)
    splits = [ffn_attention_split(c, seq_len, mode) for c in cfgs]
    fig, axes = new_figure(1, 2, size=(13, 0.45 * len(cfgs) + 2.2), sharey=True)
    parts = [("attention", COMPONENT_COLORS["attention"]), ("ffn", COMPONENT_COLORS["mlp"]),
             ("other", "#c7c7c7")]
    names = {"attention": "attention", "ffn": "FFN (MLP)",
             "other": "embedding, norms, lm_head"}
    from matplotlib.patches import Patch
    label2 = {"attention": "attention (FLOPs: projections + scores)", "ffn": "FFN (MLP)",
              "other": "embedding, norms, lm_head (FLOPs: lm_head)"}
    handles = []
    y = list(range(len(cfgs)))
    for ax, kind in zip(axes, ("params", "flops")):
        left = [0.0] * len(cfgs)
        for part, color in parts:
            vals = [100 * s[f"{part}_{kind}"] / s[f"total_{kind}"] for s in splits]
            label = names[part] + (" (projections + scores)" if kind == "flops"
                                   and part == "attention" else "")
            ax.barh(y, vals, left=left, color=color, height=0.65, label=label)
            if ax is axes[0]:
                handles.append(Patch(color=color, label=label2[part]))
            if part == "ffn":
                for i, (l, v) in enumerate(zip(left, vals)):
                    ax.text(l + v / 2, i, f"{v:.0f}%", ha="center", va="center", fontsize=10,
                            color="white", fontweight="bold")
            left = [a + b for a, b in zip(left, vals)]
        ax.set_xlim(0, 100)
        ax.grid(axis="y", visible=False)
    axes[0].set_yticks(y, [c.name for c in cfgs])
    axes[0].set_xlabel("share of parameters (%)")
    axes[1].set_xlabel(f"share of forward FLOPs per token (%), {mode} at {seq_len:,} tokens")
    axes[0].set_title("Parameters")
    axes[1].set_title("FLOPs per token")
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=10)
    fig.suptitle("The FFN holds most of a dense model's parameters and FLOPs", fontsize=15)
    return fig


# --- the explorer's figure --------------------------------------------------------------

def _setup_ffn(fig):
    fig.clear()
    fig.subplots_adjust(left=0.13, right=0.98, top=0.86, bottom=0.15, wspace=0.32)
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})
    bars_a = ax1.barh([1, 0], [0, 0], color=COMPONENT_COLORS["attention"], height=0.6,
                      label="attention")
    bars_f = ax1.barh([1, 0], [0, 0], color=COMPONENT_COLORS["mlp"], height=0.6,
                      label="FFN")
    texts = [ax1.text(0, y, "", va="center", fontsize=11) for y in (1, 0)]
    ax1.set_yticks([1, 0], ["as shipped", "this setting"])
    ax1.set_xlabel("parameters per layer (millions)")
    ax1.legend(loc="center right")
    ax1.grid(axis="y", visible=False)
    ax1.set_ylim(-0.6, 1.6)
    ax1.xaxis.set_major_locator(MaxNLocator(nbins=4))  # few tick labels: a faster redraw
    ax1.set_title("parameters of one layer", fontsize=12)
    (p_line,) = ax2.plot(FFN_RATIOS, [0] * len(FFN_RATIOS), color=COLORS[1], lw=4,
                         label="FFN share of parameters")
    (f_line,) = ax2.plot(FFN_RATIOS, [0] * len(FFN_RATIOS), color=COLORS[2], lw=2.2, ls="--",
                         label="FFN share of FLOPs per token")
    (p_dot,) = ax2.plot([0], [0], "o", color=COLORS[1], ms=11)
    (f_dot,) = ax2.plot([0], [0], "o", color=COLORS[2], ms=6)
    now = ax2.axvline(1, color="#555", ls=":", lw=1.3)
    ax2.axvline(8 / 3, color="k", ls="--", lw=1, alpha=0.6)
    ax2.axvline(4, color="k", ls="--", lw=1, alpha=0.6)
    ax2.text(8 / 3, 94, "8/3 ", fontsize=10, ha="right")
    ax2.text(4, 94, " 4", fontsize=10)
    ax2.set_xlim(1, 8)
    ax2.set_ylim(0, 100)
    ax2.set_xticks([1, 2, 3, 4, 6, 8])
    ax2.set_yticks([0, 25, 50, 75, 100])
    ax2.set_xlabel("intermediate_size / hidden_size")
    ax2.set_ylabel("FFN share of whole model (%)")
    ax2.legend(loc="lower right")
    state = dict(ax1=ax1, ax2=ax2, bars_a=bars_a, bars_f=bars_f, texts=texts, p_line=p_line,
                 f_line=f_line, p_dot=p_dot, f_dot=f_dot, now=now, curve_key=None)
    fig._lc_ffn_state = state
    return state


def draw_ffn_explorer(fig, shipped, current, curve, title):
    """The FFN explorer's figure, updated in place.

    ``shipped``, ``current``: :func:`~llmcourse.sizing.ffn_attention_split` dicts
    for the model as shipped and for this setting; ``curve``: ``(key, splits)`` with
    one split per :data:`FFN_RATIOS` value (redrawn only when ``key`` changes).
    """
    state = getattr(fig, "_lc_ffn_state", None)
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
        text.set_text(f" {100 * f / (a + f):.0f}% FFN")
        widest = max(widest, a + f)
    ax1.set_xlim(0, widest * 1.45)
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
    if state.get("x_hi") != int(hi):  # extend the fixed ticks past 8 only when needed
        ax2.set_xticks([1, 2, 3, 4, 6, 8] + list(range(12, int(hi) + 1, 4)))
        state["x_hi"] = int(hi)
    ax2.set_title(f"FFN share vs width (FLOPs: {current['mode']} at {current['seq_len']:,})",
                  fontsize=12)
    fig.suptitle(title, fontsize=15)
    return fig
