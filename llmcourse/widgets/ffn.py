"""Explorer for the FFN-sizing lesson."""

from __future__ import annotations

from ..sizing import ffn_attention_split, mlp_is_gated, mlp_twin
from ..tables.ffn import dense_models
from ..units import human_count
from ..zoo import load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection

__all__ = ["ffn_explorer", "ffn_rows", "with_mlp_kind", "MLP_KINDS"]

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
    return cfg if mlp_is_gated(cfg) == gated else mlp_twin(cfg, gated)


def _kind_text(gated):
    return ("gated MLP: gate_proj, up_proj, down_proj (3 matrices)" if gated
            else "plain MLP: fc1, fc2 with biases (2 matrices)")


def ffn_rows(cfg, seq_len=4096, mode="prefill", mlp_cfg=None):
    """The summary rows for one setting (pure: the explorer and tests both call this).
    ``mlp_cfg``: the MLP taken from this config (see :func:`with_mlp_kind`)."""
    s = ffn_attention_split(cfg, seq_len, mode, mlp_cfg=mlp_cfg)
    mlp = mlp_cfg if mlp_cfg is not None else cfg
    gated = mlp_is_gated(mlp)
    top = cfg.get("max_position_embeddings")
    H, inter, n = cfg.hidden_size, mlp.intermediate_size, cfg.num_hidden_layers
    per_layer = s["ffn_params"] // n
    pct = lambda x: round(100 * x, 1)  # noqa: E731
    return [
        Row("MLP", "mlp_kind", "gated" if gated else "plain", _kind_text(gated)),
        Row("intermediate_size / hidden_size", "ffn_ratio", round(inter / H, 4),
            f"{inter:,} / {H:,} = {inter / H:.3f}×"),
        Row("FFN parameters per layer", "ffn_params_per_layer", per_layer, f"{per_layer:,}"),
        Row(f"FFN parameters, {n} layers", "ffn_params", s["ffn_params"],
            f"{s['ffn_params']:,} ({human_count(s['ffn_params'])})"),
        Row(f"attention parameters, {n} layers", "attention_params", s["attention_params"],
            f"{s['attention_params']:,} ({human_count(s['attention_params'])})"),
        Row("total parameters", "total_params", s["total_params"],
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
    base = {"cfg": load_model(model)}
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
                          title=f"{base['cfg'].name}: how much of the model is FFN")

    ex = Explorer("ffn", controls, compute, draw, title="FFN explorer", figsize=(11, 4.6))

    def on_model(change):  # a new model: start from its own intermediate_size
        base["cfg"] = load_model(change["new"])
        with ex.hold():
            controls["intermediate_size"].value = base["cfg"].intermediate_size
            controls["mlp_kind"].value = MLP_KINDS[0]
    ex.on_change("model", on_model)
    return ex
