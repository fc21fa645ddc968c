"""Tables for the FFN-sizing lesson: many dense models at once."""

from __future__ import annotations

from ..counts import param_count
from ..sizing import context_within_max, ffn_attention_split
from ..zoo import as_config, list_models, load_model

__all__ = ["dense_models", "ffn_share_table", "mlp_layout"]


def dense_models(by_size=False):
    """The zoo's dense models (an FFN explorer over MoE experts would mislead), family
    by family as the model pickers list them; ``by_size=True`` sorts them by total
    parameters."""
    names = [m for m in list_models(grouped=True) if not load_model(m).is_moe]
    if by_size:
        names.sort(key=lambda m: param_count(load_model(m)).total)
    return names


def mlp_layout(cfg):
    """The MLP of each kind of layer, read from the tensors the model holds: a list of
    ``{"layers", "gated", "width", "params_per_layer"}``, one entry per distinct MLP
    (Gemma 4 E2B: 15 layers 6,144 wide, 20 KV-shared layers twice as wide).

    ``gated``: three hidden x width matrices (gate, up, down; or gate and up fused into
    one), not two. ``params_per_layer``: every MLP tensor of the layer, biases (and
    Gemma 4's per-layer-embedding projections, which the engine counts with the MLP)
    included. Layers without an MLP (Mamba-2 or attention-only blocks) are left out."""
    from ..architectures import layer_groups
    cfg = as_config(cfg)
    d = cfg.hidden_size
    out = {}
    for g in layer_groups(cfg):
        mlp = [t for t in g.tensors if t.component == "mlp"]
        if not mlp:
            continue
        mats = [t for t in mlp if t.matmul and len(t.shape) == 2 and "per_layer" not in t.name]
        sizes = sorted(t.numel for t in mats)
        weights = sum(sizes)
        gated = weights == 3 * sizes[0] or (len(sizes) == 2 and sizes[1] == 2 * sizes[0])
        width = weights // ((3 if gated else 2) * d)
        per_layer = sum(t.numel for t in mlp)
        key = (gated, width, per_layer)
        out.setdefault(key, 0)
        out[key] += len(g.indices)
    return [{"layers": n, "gated": gated, "width": width, "params_per_layer": p}
            for (gated, width, p), n in out.items()]


def ffn_share_table(models, seq_len=4096, mode="prefill"):
    """One row per model: FFN and attention parameters (exact) and their shares of
    the language model's parameters and of its forward FLOPs per token at ``seq_len`` (one
    decimal; prefill averages a causal prompt, (n+1)/2 keys per token). A model whose
    maximum context is shorter than ``seq_len`` is sized at its maximum (its
    "FLOPs at" column says so)."""
    import pandas as pd
    rows = {}
    for m in models:
        c = as_config(m).text_model      # the language model: a wrapper's towers aside
        s = ffn_attention_split(c, context_within_max(c, seq_len), mode)
        pc = param_count(c)
        rows[s["model"]] = {
            "intermediate/hidden": f"{s['ffn_ratio']:.2f}",
            "FFN % of params": f"{100 * s['ffn_param_share']:.1f}",
            "attention % of params": f"{100 * s['attention_param_share']:.1f}",
            "embedding % of params": f"{100 * pc.embedding / pc.total:.1f}",
            "FFN % of one layer": f"{100 * s['ffn_layer_share']:.1f}",
            "FLOPs at (tokens)": f"{s['seq_len']:,}" + (" (its max)" if s["seq_len"] < seq_len
                                                          else ""),
            f"FFN % of FLOPs ({mode})": f"{100 * s['ffn_flop_share']:.1f}",
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("model")
