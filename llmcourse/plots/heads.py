"""Figures for lesson 1, attention heads and head_dim: how q/k/v/o sizes follow from
num_attention_heads, num_key_value_heads and head_dim."""

from __future__ import annotations

from ..units import count_of

from ..architectures import layer_groups
from ..config import ConfigError
from ..counts import param_count
from .anatomy import _reuse_axes
from .style import (CONCEPT_DASHES, CONCEPT_MARKERS, TEXT_SIZES, color_of, label_bars, new_figure,
                    plain_log_axis, styled)

__all__ = ["attention_per_layer", "qkvo_params", "head_count_sweep", "draw_attention_vs_heads",
           "attention_params_vs_heads", "qkvo_bars", "PROJECTIONS"]

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj")
_ALIASES = {"dense": "o_proj"}  # phi calls its output projection self_attn.dense


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

    Returns ``{kind: ([heads...], [params...])}``; a point the model's own rules refuse
    (Qwen3.8's indexer must hold head_dim x partial_rotary_factor rotary dimensions) is
    left out.
    """
    H = cfg.hidden_size
    kv = kv or cfg.num_key_value_heads
    head_dim = head_dim or cfg.head_dim
    heads = heads or _divisors(H)
    out = {"mha": ([], []), "gqa": ([], []), "fixed": ([], [])}

    def add(kind, h, **changes):   # a what-if the model's own rules refuse is left out
        try:
            params = attention_per_layer(cfg.replace(num_attention_heads=h, **changes))
        except ConfigError:
            return
        out[kind][0].append(h)
        out[kind][1].append(params)
    for h in heads:
        if H % h == 0:
            add("mha", h, num_key_value_heads=h, head_dim=H // h)
        if h % kv == 0:
            if H % h == 0:
                add("gqa", h, num_key_value_heads=kv, head_dim=H // h)
            add("fixed", h, num_key_value_heads=kv, head_dim=head_dim)
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
              "gqa": f"GQA with {count_of(kv, 'KV head')}, head_dim = hidden/heads",
              "fixed": f"head_dim fixed at {head_dim}, {count_of(kv, 'KV head')}"}
    gqa = "mqa" if kv == 1 else "gqa"
    styles = {"mha": dict(color=color_of("mha"), lw=3, marker=CONCEPT_MARKERS["mha"],
                          ls=CONCEPT_DASHES["mha"]),
              "gqa": dict(color=color_of(gqa), lw=2.2, marker=CONCEPT_MARKERS[gqa],
                          ls=CONCEPT_DASHES[gqa]),
              "fixed": dict(color=color_of("series:4"), lw=2.2, marker="^", ls="-.")}
    shown = []  # every value drawn: the y axis spans these, not matplotlib's padded guess
    for kind in ("mha", "gqa", "fixed"):
        xs, ys = sweep[kind]
        if kv == 1 and kind == "gqa":
            labels["gqa"] = "MQA (1 KV head), head_dim = hidden/heads"
        if xs:
            ax.plot(xs, [y / 1e6 for y in ys], ms=5, label=labels[kind], **styles[kind])
            shown += [y / 1e6 for y in ys]
    if mark:
        ax.plot([mark[0]], [mark[1] / 1e6], marker="*", ms=20, color=color_of("highlight"), ls="none",
                label=mark_label or "this setting", zorder=5)
        shown.append(mark[1] / 1e6)
    if shown:  # a margin below, room above for the legend
        ax.set_ylim(min(shown) / 1.5, max(shown) * 5)
    ax.set_xscale("log", base=2)
    plain_log_axis(ax.xaxis)
    ax.set_yscale("log", base=2)
    plain_log_axis(ax.yaxis, "{:,.4g}")
    ax.set_xlabel("query heads (num_attention_heads, log scale)")
    ax.set_ylabel("attention parameters per layer\n(millions, log scale)")
    ax.set_title(title or f"MHA: more heads, same attention parameters ({cfg.name}, "
                          f"hidden {H:,})")
    ax.legend(loc="upper left", fontsize=TEXT_SIZES["legend"])
    if fig.get_layout_engine() is None:  # a widget's fixed margins
        fig.subplots_adjust(left=0.12, right=0.98, top=0.91, bottom=0.13)
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
    """Figure: each model's q/k/v/o split of one layer's attention parameters, as
    100% stacks (one bar per model, labelled on the bar), so a 70B model and a 1B
    model compare by share, not by size."""
    fig, ax = new_figure(size=(10, 0.48 * len(cfgs) + 1.9))
    parts = [qkvo_params(c) for c in cfgs]
    totals = [sum(q.values()) for q in parts]
    left = [0.0] * len(cfgs)
    ys = list(range(len(cfgs)))
    for p in PROJECTIONS:
        share = [100 * q[p] / t for q, t in zip(parts, totals)]
        bars = ax.barh(ys, share, left=left, color=color_of(p), edgecolor="white",
                       linewidth=0.8, height=0.72, label=p)
        # the projection's letter on every bar (a direct label), its share where it fits
        label_bars(ax, bars, [f"{p[0]} {v:.1f}%" if v >= 9 else p[0] for v in share],
                   min_fraction=0.03)
        left = [a + b for a, b in zip(left, share)]
    ax.set_xlim(0, 100)
    ax.set_yticks(ys, [f"{c.name}  {c.num_attention_heads}:{c.num_key_value_heads}" for c in cfgs])
    ax.invert_yaxis()
    ax.set_xlabel("share of one layer's q/k/v/o parameters (%)")
    ax.set_ylabel("model, query heads : KV heads")
    ax.set_title(title or "With GQA, q and o hold most of attention; k and v are small")
    fig.legend(loc="outside lower center", ncol=4, frameon=False)
    ax.grid(axis="y", visible=False)
    return fig
