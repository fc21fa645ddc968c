"""Figures for lesson 0, the anatomy of a decoder: what one layer holds, and where a
model's parameters sit (embedding, attention, MLP, norms, lm_head)."""

from __future__ import annotations

from ..architectures import COMPONENTS, layer_groups
from ..config import ConfigError
from ..counts import param_count
from ..units import human_count
from .style import COMPONENT_COLORS, COMPONENT_HATCHES, TEXT_SIZES, ink_for, new_figure, styled

__all__ = ["layer_tensors", "layer_modules", "layer_components", "draw_layer_components",
           "parameter_shares"]

_COMPONENT_LABELS = {"mlp": "MLP", "shared_experts": "shared experts", "experts": "routed experts",
                     "lm_head": "lm_head (untied)"}
_SHORT_LABELS = {"embedding": "embed", "attention": "attn", "mlp": "MLP", "lm_head": "lm_head",
                 "experts": "experts", "shared_experts": "shared"}


def _check_layer(cfg, layer):
    n = cfg.num_hidden_layers
    if not isinstance(layer, int) or isinstance(layer, bool) or not 0 <= layer < n:
        raise ConfigError(f"layer: must be a layer index from 0 to {n - 1} "
                          f"({cfg.name} has num_hidden_layers={n}) (got {layer!r})")


def _pct(part, total):
    p = 100 * part / total
    return f"{p:.1f}%" if p >= 0.1 or p == 0 else "<0.1%"


def layer_tensors(cfg, layer=0):
    """The tensors of one decoder layer, as the engine lays them out.

    One dict per stored tensor kind: ``name`` (checkpoint name without the
    ``model.layers.<i>.`` prefix; ``*`` stands for the expert index), ``shape``
    (as stored, ``(out, in)`` for a Linear), ``copies`` (routed experts),
    ``numel`` (all copies), ``component``, ``buffer`` (stored, not a parameter,
    e.g. DeepSeek-V3's router score bias). A bad layer index raises a one-line
    ``ValueError``.
    """
    _check_layer(cfg, layer)
    for idx, tensors in layer_groups(cfg):
        if layer in idx:
            break
    out = []
    for t in tensors:
        copies = t.per_expert if t.per_expert > 1 else t.fused
        out.append(dict(name=t.name.replace("{e}", "*"), shape=t.shape, copies=copies,
                        numel=t.numel * t.per_expert, component=t.component,
                        buffer=t.buffer))
    return out


def _module(name):
    """'self_attn.q_proj.weight' -> 'q_proj'; 'mlp.experts.*.gate_proj.weight' ->
    'experts gate_proj'; biases join their weight's module."""
    parts = name.split(".")
    if parts[-1] in ("weight", "bias") or parts[-1].endswith("_bias"):
        parts = parts[:-1] if parts[-1] in ("weight", "bias") else parts[:-1] + [
            parts[-1][:-len("_bias")]]
    parts = [{"shared_experts": "shared"}.get(p, p) for p in parts
             if p not in ("self_attn", "mlp", "block_sparse_moe", "*")]
    return " ".join(parts)


def layer_modules(cfg, layer=0):
    """Parameters per module of one layer, in layer order: ``[(module, component, n)]``.
    All norms of the layer are summed into one ``norms`` entry; buffers are left out
    (they are not parameters), so the entries sum to the layer's parameter count."""
    mods, norms = {}, 0
    for t in layer_tensors(cfg, layer):
        if t["buffer"]:
            continue
        if t["component"] == "norms":
            norms += t["numel"]
            continue
        key = _module(t["name"])
        if key not in mods:
            mods[key] = [t["component"], 0]
        mods[key][1] += t["numel"]
    rows = [(k, c, n) for k, (c, n) in mods.items()]
    if norms:
        rows.append(("norms", "norms", norms))
    return rows


def _reuse_axes(fig, tag):
    """The figure's one axes when it was drawn by ``tag`` before, emptied of bars,
    texts and legend (reusing the axes and its ticks keeps a live redraw fast);
    otherwise a fresh axes on a cleared figure."""
    if len(fig.axes) == 1 and getattr(fig.axes[0], "_lc_tag", None) == tag:
        ax = fig.axes[0]
        for a in list(ax.patches) + list(ax.texts) + list(ax.lines) + list(ax.collections):
            a.remove()
        if ax.legend_ is not None:
            ax.legend_.remove()
        ax.containers.clear()
        return ax
    fig.clear()
    ax = fig.add_subplot()
    ax._lc_tag = tag
    return ax


def draw_layer_components(fig, cfg, layer=0, title=None):
    """Draw one layer's parameters per module as horizontal bars on ``fig``."""
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator
    ax = _reuse_axes(fig, "layer_components")
    rows = layer_modules(cfg, layer)
    total = sum(n for _, _, n in rows)
    by_comp = {}
    for _, c, n in rows:
        by_comp[c] = by_comp.get(c, 0) + n
    top = max(by_comp, key=by_comp.get)
    scale, unit = (1e6, "millions") if total >= 1e6 else (1e3, "thousands")
    ys = list(range(len(rows)))[::-1]
    ax.barh(ys, [n / scale for _, _, n in rows], height=0.7,
            color=[COMPONENT_COLORS[c] for _, c, _ in rows],
            hatch=[COMPONENT_HATCHES[c] for _, c, _ in rows], edgecolor="white", linewidth=0.6)
    ax.set_yticks(ys, [m for m, _, _ in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    xmax = max(n for _, _, n in rows) / scale
    for y, (_, _, n) in zip(ys, rows):
        ax.text(n / scale + xmax * 0.01, y, f"{n:,}", va="center", fontsize=TEXT_SIZES["label"])
    ax.set_xlim(0, xmax * 1.28)
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.set_xlabel(f"parameters in layer {layer} ({unit})")
    seen = []
    for _, c, _ in rows:
        if c not in seen:
            seen.append(c)
    handles = [Patch(facecolor=COMPONENT_COLORS[c], hatch=COMPONENT_HATCHES[c], edgecolor="white",
                     label=f"{_COMPONENT_LABELS.get(c, c)} {_pct(by_comp[c], total)}")
               for c in seen]
    ax.legend(handles=handles, loc="upper right", title="share of the layer")
    ax.set_title(title or f"{cfg.name} layer {layer}: {_COMPONENT_LABELS.get(top, top)} = "
                 f"{100 * by_comp[top] / total:.1f}% of its {human_count(total)} parameters")
    ax.grid(axis="y", visible=False)
    if fig.get_layout_engine() is None:  # a widget's fixed margins: make room for the names
        fig.subplots_adjust(left=min(0.3, 0.03 + 0.0105 * max(len(m) for m, _, _ in rows)),
                            right=0.98, top=0.9, bottom=0.13)
    return ax


@styled
def layer_components(cfg, layer=0, title=None):
    """Figure: one decoder layer's parameters per module (q/k/v/o, gate/up/down, norms)."""
    fig, _ = new_figure(0, 0)
    draw_layer_components(fig, cfg, layer, title)
    return fig


@styled
def parameter_shares(cfgs, title=None):
    """Figure: each model's parameters split by component, as % of its total (one
    stacked bar per model). Every component of 0.5% or more is labelled the same way,
    its short name and its share: on the bar where the segment is wide enough (10%),
    beside the bar otherwise. A tied lm_head adds nothing: it is the embedding."""
    fig, ax = new_figure(size=(10, 0.72 * len(cfgs) + 2.2))
    shown = []
    for i, cfg in enumerate(cfgs):
        pc = param_count(cfg)
        left, beside = 0.0, []
        for c in COMPONENTS:
            if not pc.components[c]:
                continue
            share = 100 * pc.components[c] / pc.total
            label = _COMPONENT_LABELS.get(c, c) if c not in shown else None
            if label:
                shown.append(c)
            ax.barh(i, share, left=left, color=COMPONENT_COLORS[c], hatch=COMPONENT_HATCHES[c],
                    edgecolor="white", linewidth=0.6, height=0.68, label=label)
            text = f"{_SHORT_LABELS.get(c, c)} {share:.1f}%"
            if share >= 10:
                ax.text(left + share / 2, i, text.replace(" ", "\n", 1), ha="center",
                        va="center", color=ink_for(COMPONENT_COLORS[c]),
                        fontsize=TEXT_SIZES["label"], fontweight="bold", linespacing=0.95,
                        bbox=dict(boxstyle="round,pad=0.15", facecolor=COMPONENT_COLORS[c],
                                  edgecolor="none"))
            elif share >= 0.5:   # too narrow to write on: named beside the bar
                beside.append(text)
            left += share
        if beside:
            ax.text(101.5, i, "\n".join(beside), ha="left", va="center",
                    fontsize=TEXT_SIZES["label"])
    ax.set_yticks(range(len(cfgs)), [
        f"{c.name}\n{human_count(param_count(c).total)}, {'tied' if c.tie_word_embeddings else 'untied'}"
        for c in cfgs])
    ax.invert_yaxis()
    ax.set_xlim(0, 122)                    # room beside the bars for the narrow parts
    ax.set_xticks(range(0, 101, 20))
    ax.spines["right"].set_visible(False)
    ax.set_xlabel("share of the model's parameters (%; the norms, under 0.5%, unlabelled)")
    ax.set_title(title or "The embedding is a big share of small models, a small one of big models")
    fig.legend(loc="outside lower center", ncol=6, frameon=False)
    ax.grid(axis="y", visible=False)
    return fig
