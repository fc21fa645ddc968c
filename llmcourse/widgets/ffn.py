"""Explorer for the FFN-sizing lesson."""

from __future__ import annotations

from ..sizing import ffn_attention_split
from ..units import human_count
from ..zoo import list_models, load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection

__all__ = ["ffn_explorer", "ffn_rows", "with_mlp_kind", "MLP_KINDS", "dense_models"]

MLP_KINDS = ["as shipped", "gated: gate/up/down (Llama layout)",
             "plain: fc1/fc2 + biases (Phi-2 layout)"]
SEQ_LENS = [2**k for k in range(9, 18)]


def dense_models():
    """The zoo's dense models (an FFN explorer over MoE experts would mislead)."""
    return [m for m in list_models() if not load_model(m).is_moe]


def with_mlp_kind(cfg, kind):
    """``cfg`` with its FFN rebuilt as a gated three-matrix MLP (Llama layout, no
    MLP biases) or a plain two-matrix MLP with biases (Phi-2 layout). Attention
    keeps its heads, head_dim and layer types; switching Phi-2 to the Llama layout
    keeps its attention biases."""
    if kind not in MLP_KINDS:
        raise ValueError(f"MLP kind: must be one of {', '.join(MLP_KINDS)} (got {kind!r})")
    plain = cfg.family == "phi"
    keep = {"layer_types": list(cfg.layer_types), "head_dim": cfg.head_dim}
    if kind == MLP_KINDS[1] and plain:
        return cfg.replace(model_type="llama", attention_bias=True, mlp_bias=False, **keep)
    if kind == MLP_KINDS[2] and not plain:
        return cfg.replace(model_type="phi", **keep)
    return cfg


def _kind_text(cfg):
    return ("plain MLP: fc1, fc2 with biases (2 matrices)" if cfg.family == "phi"
            else "gated MLP: gate_proj, up_proj, down_proj (3 matrices)")


def ffn_rows(cfg, seq_len=4096, mode="prefill"):
    """The summary rows for one setting (pure: the explorer and tests both call this)."""
    s = ffn_attention_split(cfg, seq_len, mode)
    H, inter, n = cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers
    per_layer = s["ffn_params"] // n
    pct = lambda x: round(100 * x, 2)  # noqa: E731
    return [
        Row("MLP", "mlp_kind", "plain" if cfg.family == "phi" else "gated", _kind_text(cfg)),
        Row("intermediate_size / hidden_size", "ffn_ratio", round(inter / H, 4),
            f"{inter:,} / {H:,} = {inter / H:.3f}x"),
        Row("FFN parameters per layer", "ffn_params_per_layer", per_layer, f"{per_layer:,}"),
        Row(f"FFN parameters, {n} layers", "ffn_params", s["ffn_params"],
            f"{s['ffn_params']:,} ({human_count(s['ffn_params'])})"),
        Row(f"attention parameters, {n} layers", "attention_params", s["attention_params"],
            f"{s['attention_params']:,} ({human_count(s['attention_params'])})"),
        Row("total parameters", "total_params", s["total_params"],
            f"{s['total_params']:,} ({human_count(s['total_params'])})"),
        Row("FFN share of parameters", "ffn_param_share", pct(s["ffn_param_share"]),
            f"{100 * s['ffn_param_share']:.2f}%"),
        Row("FFN share of a layer (FFN / (FFN + attention))", "ffn_layer_share",
            pct(s["ffn_layer_share"]), f"{100 * s['ffn_layer_share']:.2f}%"),
        Row(f"FFN share of FLOPs per token ({mode}, {seq_len:,} tokens)", "ffn_flop_share",
            pct(s["ffn_flop_share"]), f"{100 * s['ffn_flop_share']:.2f}%"),
        Row("attention share of FLOPs (projections + scores)", "attention_flop_share",
            pct(s["attention_flop_share"]), f"{100 * s['attention_flop_share']:.2f}%"),
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

    def config(v):
        return with_mlp_kind(base["cfg"], v["mlp_kind"]).replace(
            intermediate_size=v["intermediate_size"])

    def compute(v):
        return ffn_rows(config(v), v["seq_len"])

    def curve(v):
        key = (base["cfg"].name, v["mlp_kind"], v["seq_len"])
        if key not in curves:
            from ..plots.ffn import FFN_RATIOS
            cfg = with_mlp_kind(base["cfg"], v["mlp_kind"])
            H = cfg.hidden_size
            curves[key] = [ffn_attention_split(cfg.replace(intermediate_size=round(r * H)),
                                               v["seq_len"]) for r in FFN_RATIOS]
        return key, curves[key]

    def draw(fig, v, rows):
        from ..plots.ffn import draw_ffn_explorer
        shipped = ffn_attention_split(base["cfg"], v["seq_len"])
        current = ffn_attention_split(config(v), v["seq_len"])
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
