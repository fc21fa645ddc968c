"""Tables for the training-cost lesson (lesson 08)."""

from __future__ import annotations

from ..config import from_hf_config
from ..training import korthikanti_activation_bytes, measured_activations, training_memory

__all__ = ["activations_measured_table"]


def activations_measured_table(data=None):
    """One row per stored measurement: the bytes PyTorch saved for backward, this
    course's count (``training_memory(...).saved_for_backward``) and the textbook
    ``34 s b h + 5 a s^2 b`` per layer, each with its ratio to the measurement."""
    import pandas as pd
    data = data or measured_activations()
    rows = []
    for r in data["rows"]:
        cfg = from_hf_config(data["models"][r["model"]])
        attn = data["engine_attention"][r["attn_implementation"]]
        est = training_memory(cfg, r["seq_len"], r["batch"],
                              precision=data["engine_precision"][r["dtype"]],
                              attention=attn).saved_for_backward
        k = korthikanti_activation_bytes(cfg, r["seq_len"], r["batch"], flash=attn == "flash",
                                         bytes_per_value=4 if r["dtype"] == "fp32" else 2)
        rows.append({"model": r["model"], "attention": r["attn_implementation"],
                     "dtype": r["dtype"], "batch": r["batch"], "seq_len": r["seq_len"],
                     "measured (B)": r["saved_bytes"], "engine (B)": est,
                     "engine / measured": round(est / r["saved_bytes"], 4),
                     "34sbh+5as²b (B)": k, "34sbh / measured": round(k / r["saved_bytes"], 2)})
    return pd.DataFrame(rows)
