"""Figures for lesson 1, attention heads and head_dim: how q/k/v/o sizes follow from
num_attention_heads, num_key_value_heads and head_dim."""

from __future__ import annotations

from ..architectures import layer_groups
from ..config import ConfigError
from ..counts import param_count
from .anatomy import _reuse_axes
from .style import COLORS, new_figure, plain_log_axis, styled

__all__ = ["attention_per_layer", "qkvo_params", "head_count_sweep", "draw_attention_vs_heads",
           "attention_params_vs_heads", "qkvo_bars", "PROJECTIONS"]

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj")
_ALIASES = {"dense": "o_proj"}  # phi calls its output projection self_attn.dense
_PROJ_COLORS = dict(zip(PROJECTIONS, ("#1f77b4", "#2ca02c", "#98df8a", "#aec7e8")))


def attention_per_layer(cfg):
    """Attention parameters in one layer (q/k/v/o with any biases, gpt-oss's sinks;
    QK-norm scales count as norms), from the engine's count. Every layer of a non-MLA model has the same attention."""
    if cfg.uses_mla:
        raise ConfigError(f"model: {cfg.name} uses MLA (low-rank attention); "
                          "q/k/v/o head arithmetic does not apply")
    return param_count(cfg).components["attention"] // cfg.num_hidden_layers


def qkvo_params(cfg):
    """``{"q_proj": n, "k_proj": n, "v_proj": n, "o_proj": n}``: each projection's
    parameters in one layer (weight plus bias), from the engine's tensor layout."""
    if cfg.uses_mla:
        raise ConfigError(f"model: {cfg.name} uses MLA (low-rank attention); "
                          "q/k/v/o head arithmetic does not apply")
    out = dict.fromkeys(PROJECTIONS, 0)
    for t in layer_groups(cfg)[0][1]:
        parts = t.name.split(".")
        if parts[0] == "self_attn" and len(parts) == 3:
            key = _ALIASES.get(parts[1], parts[1])
            if key in out:
                out[key] += t.numel
    return out


def _divisors(n, upto=256):
    return [d for d in range(1, min(n, upto) + 1) if n % d == 0]


def head_count_sweep(cfg, kv=None, head_dim=None, heads=None):
    """Attention parameters per layer against the head count, three ways (each point
    a validated what-if of ``cfg``):

    - ``mha``: KV heads = heads, head_dim = hidden/heads (the classic split);
    - ``gqa``: ``kv`` KV heads, head_dim = hidden/heads;
    - ``fixed``: ``kv`` KV heads, head_dim fixed at ``head_dim`` (as Qwen3 and Gemma-2 do).

    Returns ``{kind: ([heads...], [params...])}``.
    """
    H = cfg.hidden_size
    kv = kv or cfg.num_key_value_heads
    head_dim = head_dim or cfg.head_dim
    heads = heads or _divisors(H)
    out = {"mha": ([], []), "gqa": ([], []), "fixed": ([], [])}
    for h in heads:
        if H % h == 0:
            out["mha"][0].append(h)
            out["mha"][1].append(attention_per_layer(cfg.replace(
                num_attention_heads=h, num_key_value_heads=h, head_dim=H // h)))
        if h % kv == 0:
            if H % h == 0:
                out["gqa"][0].append(h)
                out["gqa"][1].append(attention_per_layer(cfg.replace(
                    num_attention_heads=h, num_key_value_heads=kv, head_dim=H // h)))
            out["fixed"][0].append(h)
            out["fixed"][1].append(attention_per_layer(cfg.replace(
                num_attention_heads=h, num_key_value_heads=kv, head_dim=head_dim)))
    return out


def draw_attention_vs_heads(fig, cfg, kv=None, head_dim=None, heads=None, mark=None,
                            mark_label=None, title=None):
    """Draw :func:`head_count_sweep` on ``fig``: one line per way of choosing
    head_dim, a star at ``mark = (heads, params)``."""
    ax = _reuse_axes(fig, "attention_vs_heads")
    kv = kv or cfg.num_key_value_heads
    head_dim = head_dim or cfg.head_dim
    sweep = head_count_sweep(cfg, kv, head_dim, heads)
    H = cfg.hidden_size
    labels = {"mha": "MHA (KV heads = heads), head_dim = hidden/heads",
              "gqa": f"GQA with {kv} KV heads, head_dim = hidden/heads",
              "fixed": f"head_dim fixed at {head_dim}, {kv} KV heads"}
    styles = {"mha": dict(color=COLORS[0], lw=3, marker="o"),
              "gqa": dict(color=COLORS[2], lw=2.2, marker="s", ls="--"),
              "fixed": dict(color=COLORS[1], lw=2.2, marker="^")}
    for kind in ("mha", "gqa", "fixed"):
        xs, ys = sweep[kind]
        if kv == 1 and kind == "gqa":
            labels["gqa"] = "MQA (1 KV head), head_dim = hidden/heads"
        if xs:
            ax.plot(xs, [y / 1e6 for y in ys], ms=5, label=labels[kind], **styles[kind])
    if mark:
        ax.plot([mark[0]], [mark[1] / 1e6], marker="*", ms=20, color="#d62728", ls="none",
                label=mark_label or "this setting", zorder=5)
    ax.set_xscale("log", base=2)
    plain_log_axis(ax.xaxis)
    ax.set_yscale("log", base=2)
    plain_log_axis(ax.yaxis, "{:,.4g}")
    ax.set_xlabel("query heads (num_attention_heads, log scale)")
    ax.set_ylabel("attention parameters per layer\n(millions, log scale)")
    ax.set_title(title or f"MHA: more heads, same attention parameters ({cfg.name}, "
                          f"hidden {H:,})")
    ax.legend(loc="upper left", fontsize=10)
    if fig.get_layout_engine() is None:  # a widget's fixed margins
        fig.subplots_adjust(left=0.1, right=0.98, top=0.91, bottom=0.13)
    return ax


@styled
def attention_params_vs_heads(cfg, title=None):
    """Figure: attention parameters per layer against the head count (MHA flat, GQA
    falling, fixed head_dim rising), with the real model marked."""
    fig, _ = new_figure(0, 0, size=(10, 5.2))
    draw_attention_vs_heads(fig, cfg, mark=(cfg.num_attention_heads, attention_per_layer(cfg)),
                            mark_label=f"{cfg.name} as shipped ({cfg.num_attention_heads} heads, "
                                       f"{cfg.num_key_value_heads} KV, head_dim {cfg.head_dim})",
                            title=title)
    return fig


@styled
def qkvo_bars(cfgs, title=None):
    """Figure: one layer's q/k/v/o parameters per model, stacked (millions)."""
    fig, ax = new_figure(size=(10, 5.4))
    names = [c.name for c in cfgs]
    bottoms = [0.0] * len(cfgs)
    parts = [qkvo_params(c) for c in cfgs]
    for p in PROJECTIONS:
        vals = [q[p] / 1e6 for q in parts]
        ax.bar(names, vals, bottom=bottoms, color=_PROJ_COLORS[p], label=p, width=0.7,
               edgecolor="white", linewidth=0.6)
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    for i, c in enumerate(cfgs):
        kvshare = 100 * (parts[i]["k_proj"] + parts[i]["v_proj"]) / sum(parts[i].values())
        ax.text(i, bottoms[i] * 1.01, f"{c.num_attention_heads}:{c.num_key_value_heads}\n"
                f"k+v {kvshare:.0f}%", ha="center", va="bottom", fontsize=10)
    ax.set_ylim(0, max(bottoms) * 1.2)
    ax.set_ylabel("parameters per layer (millions)")
    ax.set_xlabel("model (label: query heads : KV heads, and the k+v share)")
    ax.tick_params(axis="x", rotation=30)
    for lab in ax.get_xticklabels():
        lab.set_ha("right")
    ax.set_title(title or "With GQA, k_proj and v_proj are small: q and o hold most of attention")
    ax.legend(loc="upper left")
    ax.grid(axis="x", visible=False)
    return fig
