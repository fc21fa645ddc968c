"""Tables for the FFN-sizing lesson: many dense models at once."""

from __future__ import annotations

from ..counts import param_count
from ..sizing import context_within_max, ffn_attention_split
from ..zoo import as_config, list_models, load_model

__all__ = ["dense_models", "ffn_share_table"]


def dense_models(by_size=False):
    """The zoo's dense models (an FFN explorer over MoE experts would mislead), family
    by family as the model pickers list them; ``by_size=True`` sorts them by total
    parameters."""
    names = [m for m in list_models(grouped=True) if not load_model(m).is_moe]
    if by_size:
        names.sort(key=lambda m: param_count(load_model(m)).total)
    return names


def ffn_share_table(models, seq_len=4096, mode="prefill"):
    """One row per model: FFN and attention parameters (exact) and their shares of
    the model's parameters and of its forward FLOPs per token at ``seq_len`` (one
    decimal; prefill averages a causal prompt, (n+1)/2 keys per token). A model whose
    maximum context is shorter than ``seq_len`` is sized at its maximum (its
    "FLOPs at" column says so)."""
    import pandas as pd
    rows = {}
    for m in models:
        c = as_config(m)
        s = ffn_attention_split(c, context_within_max(c, seq_len), mode)
        rows[s["model"]] = {
            "intermediate/hidden": f"{s['ffn_ratio']:.2f}",
            "FFN params": f"{s['ffn_params']:,}",
            "attention params": f"{s['attention_params']:,}",
            "FFN % of params": f"{100 * s['ffn_param_share']:.1f}",
            "attention % of params": f"{100 * s['attention_param_share']:.1f}",
            "FFN % of one layer": f"{100 * s['ffn_layer_share']:.1f}",
            "FLOPs at (tokens)": f"{s['seq_len']:,}" + (" (its max)" if s["seq_len"] < seq_len
                                                          else ""),
            f"FFN % of FLOPs ({mode})": f"{100 * s['ffn_flop_share']:.1f}",
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("model")
