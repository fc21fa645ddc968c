"""Explorer for the FFN-sizing lesson."""

from __future__ import annotations

from ..sizing import ffn_attention_split, mlp_twin
from ..tables.ffn import dense_models, mlp_layout
from ..units import human_count
from ..zoo import load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection

__all__ = ["ffn_explorer", "ffn_rows", "with_mlp_kind", "mlp_kinds_for", "MLP_KINDS"]

MLP_KINDS = ["as shipped", "gated: gate/up/down (Llama layout)",
             "plain: fc1/fc2 + biases (Phi-2 layout)"]
SEQ_LENS = [2**k for k in range(9, 18)]


def with_mlp_kind(cfg, kind):
    """The config the MLP comes from for ``kind``: ``cfg`` itself when its MLP already
    has that layout ("as shipped" always), else a twin of the same hidden_size,
    intermediate_size and depth with a gated three-matrix MLP (Llama layout, no MLP
    biases) or a plain two-matrix MLP with biases (phi-2 layout). Only its MLP is
    meant: pass it as ``mlp_cfg`` to :func:`~llmcourse.sizing.ffn_attention_split`,
    so attention, norms and lm_head stay ``cfg``'s."""
    if kind not in MLP_KINDS:
        raise ValueError(f"MLP kind: must be one of {', '.join(MLP_KINDS)} (got {kind!r})")
    if kind == MLP_KINDS[0]:
        return cfg
    gated = kind == MLP_KINDS[1]
    layout = mlp_layout(cfg)
    if len(layout) > 1:
        raise ValueError(f"MLP kind: {cfg.name}'s MLP is not one width in every layer; "
                         "only 'as shipped' keeps its layers as they are")
    return cfg if layout[0]["gated"] == gated else mlp_twin(cfg, gated)


def mlp_kinds_for(cfg):
    """The MLP kinds the explorer offers for ``cfg``: all three where every layer's MLP
    is alike; "as shipped" only where widths differ by layer (Gemma 4 E2B doubles its
    MLP in the KV-shared layers: one twin width would misstate it)."""
    return MLP_KINDS if len(mlp_layout(cfg)) == 1 else MLP_KINDS[:1]


def _kind_text(layout, n_layers):
    gated = {m["gated"] for m in layout}
    kind = ("gated MLP: gate, up, down (3 matrices)" if gated == {True} else
            "plain MLP: 2 matrices with biases" if gated == {False} else "gated and plain MLPs")
    if len(layout) == 1:
        return f"{kind}, {layout[0]['width']:,} wide"
    widths = "; ".join(f"{m['width']:,} wide in {m['layers']} layers" for m in layout)
    return f"{kind}: {widths}"


def ffn_rows(cfg, seq_len=4096, mode="prefill", mlp_cfg=None):
    """The summary rows for one setting (pure: the explorer and tests both call this).
    ``mlp_cfg``: the MLP taken from this config (see :func:`with_mlp_kind`)."""
    s = ffn_attention_split(cfg, seq_len, mode, mlp_cfg=mlp_cfg)
    mlp = mlp_cfg if mlp_cfg is not None else cfg
    layout = mlp_layout(mlp)
    gated = {m["gated"] for m in layout}
    top = cfg.get("max_position_embeddings")
    H, inter, n = cfg.hidden_size, mlp.intermediate_size, cfg.num_hidden_layers
    pct = lambda x: round(100 * x, 1)  # noqa: E731
    if len(layout) == 1:
        per_layer = layout[0]["params_per_layer"]
        per_layer_text = f"{per_layer:,}"
    else:   # one number per kind of layer, never an average no layer holds
        per_layer = tuple(m["params_per_layer"] for m in layout)
        per_layer_text = "; ".join(f"{m['params_per_layer']:,} in {m['layers']} layers"
                                   for m in layout)
    return [
        Row("MLP", "mlp_kind", "gated" if gated == {True} else "plain" if gated == {False}
            else "mixed", _kind_text(layout, n)),
        Row("intermediate_size / hidden_size", "ffn_ratio", round(inter / H, 4),
            f"{inter:,} / {H:,} = {inter / H:.3f}×"),
        Row("FFN parameters per layer", "ffn_params_per_layer", per_layer, per_layer_text),
        Row(f"FFN parameters, {n} layers", "ffn_params", s["ffn_params"],
            f"{s['ffn_params']:,} ({human_count(s['ffn_params'])})"),
        Row(f"attention parameters, {n} layers", "attention_params", s["attention_params"],
            f"{s['attention_params']:,} ({human_count(s['attention_params'])})"),
        Row("total parameters (language model)", "total_params", s["total_params"],
            f"{s['total_params']:,} ({human_count(s['total_params'])})"),
        Row("FFN share of the model's parameters", "ffn_param_share", pct(s["ffn_param_share"]),
            f"{100 * s['ffn_param_share']:.1f}%"),
        Row("FFN share of one layer (FFN / (FFN + attention))", "ffn_layer_share",
            pct(s["ffn_layer_share"]), f"{100 * s['ffn_layer_share']:.1f}%"),
        Row(f"FFN share of the model's FLOPs per token ({mode}, {seq_len:,} tokens)",
            "ffn_flop_share", pct(s["ffn_flop_share"]), f"{100 * s['ffn_flop_share']:.1f}%"
            + (f" (beyond its max context, {top:,}: a what-if)" if top and seq_len > top else "")),
        Row("attention share of FLOPs (projections + scores)", "attention_flop_share",
            pct(s["attention_flop_share"]), f"{100 * s['attention_flop_share']:.1f}%"),
    ]


@register("ffn")
def ffn_explorer(model="Meta-Llama-3-8B", seq_len=4096):
    """Change a dense model's intermediate_size and MLP kind; watch the FFN's share
    of parameters and FLOPs."""
    # the language model: a multimodal wrapper's towers are no part of its FFN's share
    base = {"cfg": load_model(model).text_model}
    curves = {}
    controls = {
        "model": model_dropdown(model, dense_models()),
        "intermediate_size": int_text("intermediate_size", base["cfg"].intermediate_size),
        "mlp_kind": dropdown("MLP", MLP_KINDS, MLP_KINDS[0], width="380px"),
        "seq_len": selection("context (FLOPs)", SEQ_LENS, seq_len),
    }

    def config(v):  # (the model, the config its MLP comes from): only the MLP switches
        cfg = base["cfg"].replace(intermediate_size=v["intermediate_size"])
        mlp = with_mlp_kind(cfg, v["mlp_kind"])
        return cfg, (None if mlp is cfg else mlp)

    def compute(v):
        cfg, mlp = config(v)
        return ffn_rows(cfg, v["seq_len"], mlp_cfg=mlp)

    def curve(v):
        key = (base["cfg"].name, v["mlp_kind"], v["seq_len"])
        if key not in curves:
            from ..plots.ffn import FFN_RATIOS
            curves[key] = []
            for r in FFN_RATIOS:
                cfg = base["cfg"].replace(intermediate_size=round(r * base["cfg"].hidden_size))
                mlp = with_mlp_kind(cfg, v["mlp_kind"])
                curves[key].append(ffn_attention_split(cfg, v["seq_len"],
                                                       mlp_cfg=None if mlp is cfg else mlp))
        return key, curves[key]

    def draw(fig, v, rows):
        from ..plots.ffn import draw_ffn_explorer
        shipped = ffn_attention_split(base["cfg"], v["seq_len"])
        cfg, mlp = config(v)
        current = ffn_attention_split(cfg, v["seq_len"], mlp_cfg=mlp)
        draw_ffn_explorer(fig, shipped, current, curve(v),
                          title=f"{base['cfg'].name}: how much of the model is FFN",
                          mean=len(mlp_layout(base["cfg"])) > 1)

    ex = Explorer("ffn", controls, compute, draw, title="FFN explorer", figsize=(11, 4.6))

    def offer_kinds(cfg):
        kinds = mlp_kinds_for(cfg)
        controls["mlp_kind"].options = kinds
        controls["mlp_kind"].value = MLP_KINDS[0]
        controls["mlp_kind"].disabled = len(kinds) == 1

    def on_model(change):  # a new model: start from its own intermediate_size
        base["cfg"] = load_model(change["new"]).text_model
        with ex.hold():
            controls["intermediate_size"].value = base["cfg"].intermediate_size
            offer_kinds(base["cfg"])
    ex.on_change("model", on_model)
    with ex.hold():
        offer_kinds(base["cfg"])
    return ex
