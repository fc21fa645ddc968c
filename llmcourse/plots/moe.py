"""Figures for the MoE-versus-dense lesson."""

from __future__ import annotations

from ..approx import SEQ_LEN, moe_models, prompt_len
from ..counts import flops_per_token, param_count, weight_bytes
from ..units import GiB
from ..zoo import as_config, list_models
from .style import (CONCEPT_MARKERS, TEXT_SIZES, clear_figure, color_of, new_figure,
                    plain_log_axis, styled)

__all__ = ["memory_vs_compute", "draw_memory_vs_compute", "total_vs_active_bars",
           "zoo_memory_compute"]

B = 10**9
_ZOO = {}
# label placement (points of offset, alignment) where zoo models sit close together
# dense models named on the plane (the others are unlabelled dots, so labels do not pile up)
_DENSE_NAMED = {"Qwen3-0.6B", "Meta-Llama-3-8B", "Qwen3-32B", "Meta-Llama-3-70B", "gpt2",
                "gemma-4-E2B"}
# MoE models named likewise on the whole zoo's plane: one per cluster (the 2026 MoEs sit
# close together); the explorer's star names whichever model is chosen. A figure of a
# chosen list of models names every MoE in it.
_MOE_NAMED = {"Mixtral-8x7B-v0.1", "gpt-oss-20b", "Qwen1.5-MoE-A2.7B-Chat", "Qwen3-30B-A3B",
              "Llama-4-Scout-17B-16E-Instruct", "Qwen3-235B-A22B", "DeepSeek-V3", "Kimi-K2.5",
              "DeepSeek-V4-Flash", "Qwen3.8-Flash-Next"}
_LABEL_AT = {"Meta-Llama-3-8B": (-7, 5, "right"), "Qwen3-8B": (7, 3, "left"),
             "Qwen2-7B": (7, -11, "left"), "gemma-2-2b": (-7, 3, "right"),
             "phi-2": (7, -11, "left"), "Llama-3.2-3B": (-7, 6, "right"),
             "DeepSeek-V2": (7, 4, "left"), "Qwen3-235B-A22B": (7, -12, "left"),
             "gpt-oss-20b": (-7, -4, "right"), "Qwen3-30B-A3B": (14, 3, "left"),
             "Mixtral-8x7B-v0.1": (0, -18, "center"), "gpt2": (8, -14, "left"),
             "Llama-4-Scout-17B-16E-Instruct": (-7, 4, "right"), "GLM-4.5-Air": (7, -13, "left"),
             "Qwen1.5-MoE-A2.7B-Chat": (9, -9, "left"), "DeepSeek-V3": (-9, 3, "right"),
             "Qwen3.6-35B-A3B": (4, -18, "left"), "Kimi-K2.5": (6, 9, "left"),
             "gemma-4-E2B": (0, -20, "center"), "DeepSeek-V4-Flash": (8, -14, "left")}
# shorter names where the zoo name would run across other points
_SHORT = {"Llama-4-Scout-17B-16E-Instruct": "Llama-4-Scout", "Qwen1.5-MoE-A2.7B-Chat":
          "Qwen1.5-MoE-A2.7B", "Qwen3-Next-80B-A3B": "Qwen3-Next-80B-A3B",
          "Qwen3.6-35B-A3B": "Qwen3.6",
          # off the dense line: its per-layer embeddings are lookups, stored but not multiplied
          "gemma-4-E2B": "gemma-4-E2B"}


def zoo_memory_compute(models=None, seq_len=SEQ_LEN):
    """``[(name, is_moe, bf16 GiB, GFLOP per token), ...]`` for zoo models (cached).
    FLOPs at a ``seq_len``-token prompt, or at the model's whole context if shorter."""
    key = (tuple(models) if models is not None else None, seq_len)
    if key not in _ZOO:
        pts = []
        for m in (models if models is not None else list_models()):
            c = as_config(m)
            pts.append((c.name, c.is_moe, weight_bytes(c, "bf16") / GiB,
                        flops_per_token(c, prompt_len(c, seq_len)).total / B))
        _ZOO[key] = pts
    return _ZOO[key]


def draw_memory_vs_compute(fig, models=None, highlight=None, seq_len=SEQ_LEN, title=None):
    """Weights (bf16 GiB) against forward FLOPs per token for zoo models; MoE models
    sit below the dense ones. ``highlight=(label, cfg)`` marks one more setting.
    A second call on the same figure only moves the highlight (fast for an explorer)."""
    art = getattr(fig, "_lc_memory_vs_compute", None)
    if art is None or art["ax"] not in fig.axes or art["key"] != (models, seq_len):
        clear_figure(fig)
        ax = fig.subplots()
        pts = zoo_memory_compute(models, seq_len)
        for moe, key, lab in ((False, "dense", "dense zoo model"), (True, "moe", "MoE zoo model")):
            color, marker = color_of(key), CONCEPT_MARKERS[key]
            sel = [p for p in pts if p[1] == moe]
            ax.scatter([p[2] for p in sel], [p[3] for p in sel], s=70, color=color,
                       marker=marker, label=lab, zorder=3)
            named = _DENSE_NAMED if not moe else _MOE_NAMED if models is None else {
                p[0] for p in sel}
            for name, _, x, y in sel:
                if name not in named:
                    continue
                dx, dy, ha = _LABEL_AT.get(name, (-7, 2, "right") if not moe else (7, -4, "left"))
                ax.annotate(_SHORT.get(name, name), (x, y), xytext=(dx, dy),
                            textcoords="offset points",
                            fontsize=TEXT_SIZES["label"], color=color, ha=ha)
        lo, hi = 0.15, 8000
        # dense models do about 2 FLOPs per parameter per token, and bf16 is 2 bytes per
        # parameter: the line is the dense models', in their colour
        ax.plot([lo, hi * 100], [lo * GiB / B, hi * 100 * GiB / B], color=color_of("dense"),
                ls="--", lw=1.2, label="2 FLOPs per stored parameter (a dense model)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(0.15, 400)
        plain_log_axis(ax.xaxis)
        plain_log_axis(ax.yaxis)
        ax.set_xlabel(f"weights in bf16 (GiB, log scale): memory follows total parameters\n"
                      f"(FLOPs at a {seq_len:,}-token prompt, or a model's whole context if "
                      "shorter)", fontsize=TEXT_SIZES["label"])
        ax.set_ylabel("GFLOP per token (log scale)")
        # hollow, so the zoo point under it (the model it started from) stays visible
        star, = ax.plot([], [], "*", ms=22, mfc="none", mec=color_of("highlight"), mew=2, zorder=4,
                        label="this setting" if highlight else "_nolegend_")
        ax.legend(loc="lower right")
        art = {"ax": ax, "star": star, "key": (models, seq_len), "text": None,
               "lims": (ax.get_xlim(), ax.get_ylim())}
        fig._lc_memory_vs_compute = art
    ax = art["ax"]
    if art["text"] is not None:
        art["text"].remove()
        art["text"] = None
    if highlight is not None:
        label, cfg = highlight
        x = weight_bytes(cfg, "bf16") / GiB
        y = flops_per_token(cfg, prompt_len(cfg, seq_len)).total / B
        art["star"].set_data([x], [y])
        # a setting beyond the zoo (Kimi with 512 experts of 16,384) widens the axes
        (x0, x1), (y0, y1) = art["lims"]
        ax.set_xlim(min(x0, x / 1.6), max(x1, x * 1.6))
        ax.set_ylim(min(y0, y / 1.6), max(y1, y * 1.6))
        # the caption sits in the empty top-left corner (no model lies above the dense
        # line), so it never covers a point; the star and the legend tie it to the point
        art["text"] = ax.text(0.015, 0.97, f"★ {label}: {x:,.1f} GiB, {y:,.2f} GFLOP per token",
                              transform=ax.transAxes, ha="left", va="top",
                              fontsize=TEXT_SIZES["label"], color=color_of("highlight"),
                              fontweight="bold")
    else:
        art["star"].set_data([], [])
        ax.set_xlim(*art["lims"][0])
        ax.set_ylim(*art["lims"][1])
    ax.set_title(title or "MoE: memory follows total parameters, compute follows active ones")
    return ax


@styled
def memory_vs_compute(models=None, highlight=None, seq_len=SEQ_LEN, title=None):
    """The zoo on a memory-versus-compute plane (a static figure)."""
    fig, _ = new_figure(size=(11, 5))
    draw_memory_vs_compute(fig, models, highlight, seq_len, title)
    return fig


@styled
def total_vs_active_bars(models=None, title=None):
    """Active parameters as a share of the total, per model, on a linear axis (each
    bar is the whole model, 100%; its filled part is what one token uses), with the
    absolute figures written beside each bar."""
    cfgs = [as_config(m) for m in (models if models is not None else moe_models())]
    cfgs.sort(key=lambda c: param_count(c).total)
    fig, ax = new_figure(size=(11, 0.33 * len(cfgs) + 1.7))   # 10 rows: 5 in
    ys = list(range(len(cfgs)))
    pcs = [param_count(c) for c in cfgs]
    share = [100 * pc.active / pc.total for pc in pcs]
    ax.barh(ys, [100] * len(ys), height=0.6, color="none", hatch="//",
            edgecolor=color_of("total"), label="total: stored, in memory")
    ax.barh(ys, share, height=0.6, color=color_of("active"),
            label="active: used by one token")
    for y, pc, s in zip(ys, pcs, share):
        ax.text(101.5, y, f"{pc.active / B:,.2f}B of {pc.total / B:,.2f}B ({s:.1f}%)",
                va="center", fontsize=TEXT_SIZES["label"])
    ax.set_yticks(ys, [c.name + ("" if c.is_moe else " (dense)") for c in cfgs])
    ax.set_xlim(0, 150)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.set_xlabel("% of the model's total parameters (linear)")
    ax.set_ylabel("model (smallest total at the bottom)")
    # over the whole figure, not the axes alone: the model names take its left third
    fig.suptitle(title or "MoE models store every expert but run only the top-k per token")
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, -0.13), ncols=2)
    ax.grid(axis="y", visible=False)
    return fig
