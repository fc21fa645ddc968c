"""Lesson 1, attention heads and head_dim: the heads explorer. (The lesson's tables
are in :mod:`llmcourse.tables.heads`.)"""

from __future__ import annotations

from ..units import count_of

from ..counts import kv_cache_bytes, param_count
from ..zoo import list_models, load_model
from .base import Explorer, Row, divisors, dropdown, model_dropdown, register, selection

__all__ = ["heads_rows", "heads_explorer", "HEAD_DIMS"]

HEAD_DIMS = [32, 64, 80, 96, 128, 160, 192, 256]


# --- the explorer ---------------------------------------------------------------------

def _head_options(cfg, upto=256):
    return sorted(set(d for d in divisors(cfg.hidden_size) if d <= upto)
                  | {cfg.num_attention_heads})


def _kv_options(cfg, heads):
    """KV-head counts to offer for ``heads`` query heads: its divisors, or the head count
    alone where the family is MHA only in transformers (GPT-2, GPT-NeoX)."""
    return [heads] if not cfg.has_kv_heads else divisors(heads)


def _model_head_dim(cfg):
    """The model's own head_dim, as the engine resolves it (a multimodal wrapper's from
    its language model's config), or 0 ("hidden / heads") where the config leaves it to
    hidden_size / num_attention_heads."""
    stated = cfg.text_model.to_hf_config().get("head_dim")
    if stated is None and cfg.head_dim * cfg.num_attention_heads == cfg.hidden_size:
        return 0
    return cfg.head_dim


def _head_dim_options(cfg):
    own = _model_head_dim(cfg)
    opts = [("hidden / heads", 0)] + [(str(d), d) for d in sorted(set(HEAD_DIMS) | ({own} - {0}))]
    return opts


def heads_rows(cfg, dtype="bf16"):
    """Summary rows for one attention setting (pure; the explorer and tests call it)."""
    from ..plots.heads import attention_per_layer
    h, kv, hd, H = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.hidden_size
    kind = cfg.attention_kind
    ws = weight_shapes_layer0(cfg)
    rows = [Row("attention", "kind", kind, f"{kind}: {count_of(h, 'query head')}, "
                f"{count_of(kv, 'KV head')}"
                + ("" if kind == "MHA" else f" ({count_of(h // kv, 'query head')} per KV head)")),
            Row("head_dim", "head_dim", hd, f"{hd}"),
            Row("heads × head_dim", "heads_x_head_dim", h * hd,
                f"{h} × {hd} = {h * hd:,} " + ("= hidden_size" if h * hd == H
                                               else f"≠ hidden_size {H:,}"))]
    for p, label in (("q_proj", "q_proj"), ("k_proj", "k_proj"), ("v_proj", "v_proj"),
                     ("o_proj", "o_proj"), ("dense", "o_proj (dense)")):
        name = f"self_attn.{p}.weight"
        if name in ws:
            shape, n = ws[name]
            bias = ws.get(f"self_attn.{p}.bias")
            rows.append(Row(f"{label} (out, in)", p if p != "dense" else "o_proj", n,
                            f"({shape[0]:,}, {shape[1]:,}) = {n:,}"
                            + (f" + bias {bias[1]:,}" if bias else "")))
    per_layer = attention_per_layer(cfg)
    pc = param_count(cfg)
    towers = pc.components.get("vision", 0) + pc.components.get("audio", 0)
    kvb = kv_cache_bytes(cfg, seq_len=1, dtype=dtype)  # one token, every layer that caches it
    rows += [Row("attention parameters per layer", "attention_per_layer", per_layer,
                 f"{per_layer:,}"),
             Row(f"attention, all {cfg.num_hidden_layers} layers", "attention_total",
                 pc.components["attention"], f"{pc.components['attention']:,}"),
             Row("model total" + (" (towers included)" if towers else ""), "total", pc.total,
                 f"{pc.total:,}" + (f", of which vision and audio {towers:,}" if towers else "")),
             Row(f"KV cache per token, all cached layers ({dtype})", "kv_bytes_per_token", kvb,
                 f"{kvb:,} B")]
    return rows


def weight_shapes_layer0(cfg):
    """``{name: (shape, numel)}`` of layer 0's tensors (names without the layer prefix)."""
    from ..architectures import layer_groups
    return {t.name: (t.shape, t.numel) for t in layer_groups(cfg)[0][1]}


@register("heads")
def heads_explorer(model="Meta-Llama-3-8B"):
    """Change a real model's head count, head_dim and KV heads; see q/k/v/o shapes and
    attention parameters. A KV-head count that does not divide the heads shows the
    engine's message."""
    models = [m for m in list_models() if not load_model(m).uses_mla]
    base = {"cfg": load_model(model)}
    c0 = base["cfg"]
    controls = {
        "model": model_dropdown(model, models),
        "num_attention_heads": selection("heads", _head_options(c0), c0.num_attention_heads),
        "head_dim": dropdown("head_dim", _head_dim_options(c0), _model_head_dim(c0),
                             width="200px"),
        "num_key_value_heads": selection("KV heads", _kv_options(c0, c0.num_attention_heads),
                                         c0.num_key_value_heads, width="300px"),
    }
    controls["num_key_value_heads"].disabled = not c0.has_kv_heads

    def config(v):
        kv = v["num_key_value_heads"]
        if not base["cfg"].has_kv_heads:   # MHA only: one KV head per query head
            kv = v["num_attention_heads"]
        return base["cfg"].replace(num_attention_heads=v["num_attention_heads"],
                                   num_key_value_heads=kv, head_dim=v["head_dim"] or None)

    def compute(v):
        return heads_rows(config(v))

    def draw(fig, v, rows):
        from ..plots.heads import draw_attention_vs_heads
        cfg = config(v)
        draw_attention_vs_heads(
            fig, base["cfg"], kv=cfg.num_key_value_heads, head_dim=cfg.head_dim,
            heads=controls["num_attention_heads"].options,
            mark=(cfg.num_attention_heads,
                  next(r.value for r in rows if r.key == "attention_per_layer")),
            mark_label=f"this setting: {cfg.num_attention_heads} heads × {cfg.head_dim}, "
                       f"{cfg.num_key_value_heads} KV",
            title=f"{base['cfg'].name}: attention parameters per layer vs head count")

    ex = Explorer("heads", controls, compute, draw, title="Heads explorer", figsize=(10, 5))

    def on_heads(change):  # offer only KV counts that divide the new head count
        c = controls["num_key_value_heads"]
        keep = c.value
        with ex.hold():  # one redraw, after the KV slider has its new options
            opts = _kv_options(base["cfg"], change["new"])
            c.options = opts
            # the same count if it still divides, else the largest that does below it
            c.value = keep if keep in opts else max((o for o in opts if o <= keep), default=opts[0])

    def on_model(change):  # a new model: its own heads, head_dim and KV heads
        base["cfg"] = cfg = load_model(change["new"])
        with ex.hold():
            controls["num_attention_heads"].options = _head_options(cfg)
            controls["num_attention_heads"].value = cfg.num_attention_heads
            controls["head_dim"].options = _head_dim_options(cfg)
            controls["head_dim"].value = _model_head_dim(cfg)
            controls["num_key_value_heads"].options = _kv_options(cfg, cfg.num_attention_heads)
            controls["num_key_value_heads"].value = cfg.num_key_value_heads
            controls["num_key_value_heads"].disabled = not cfg.has_kv_heads
    ex.on_change("num_attention_heads", on_heads)

    def sync_while_held(change):  # heads set inside a hold() (several controls at once):
        if ex._held:              # the KV options follow too; the hold redraws once, after
            on_heads(change)
    controls["num_attention_heads"].observe(sync_while_held, names="value")
    ex.on_change("model", on_model)
    return ex
