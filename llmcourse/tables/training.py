"""Tables for lesson 11 and its measurement appendix: the stored activation measurements
beside the engine's count and the textbook rule."""

from __future__ import annotations

from ..config import from_hf_config
from ..training import korthikanti_activation_bytes, measured_activations, training_memory

__all__ = ["activations_measured_table", "format_measured"]

RULE = "34·s·b·d rule"


def activations_measured_table(data=None):
    """One row per stored measurement: the bytes PyTorch saved for backward, this
    course's count (``training_memory(...).saved_for_backward``) and the textbook rule
    (Korthikanti et al. 2022: ``34 s b d`` bytes per layer, plus ``5 n_h s^2 b`` with eager
    attention, which stores the scores; 2 bytes per value for bf16 rows, 4 for fp32),
    each with its ratio to the measurement."""
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
                     f"{RULE} (B)": k, "rule / measured": round(k / r["saved_bytes"], 2)})
    return pd.DataFrame(rows)


def format_measured(df):
    """For reading: bytes as '1,234,567', every ratio with two decimals and a '×'
    ('1.00×', '0.50×': the same precision in every row)."""
    from . import fmt
    out = df.copy()
    for col in out.columns:
        if col.endswith("/ measured"):
            out[col] = out[col].map("{:.2f}×".format)
    return fmt(out)
