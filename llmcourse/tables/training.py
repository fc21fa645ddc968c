"""Tables for lesson 11 and its measurement appendix: the stored activation measurements
beside the engine's count and the textbook rule."""

from __future__ import annotations

from ..config import from_hf_config
from ..training import (korthikanti_activation_bytes, measured_activations, measured_peaks,
                        training_memory)

__all__ = ["activations_measured_table", "format_measured", "step_peaks_table",
           "comm_buffers_path", "comm_buffers_table"]

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


# --- the measurements of the training engine's newer rows ----------------------------------

_ATTENTION = {"sdpa": "flash", "eager": "eager"}


def _ratio_row(measured, engine):
    return {"measured (B)": measured, "engine (B)": engine,
            "engine / measured": round(engine / measured, 4) if measured else None}


def step_peaks_table(data=None):
    """One row per stored measurement of a step's peak in both loops
    (``llmcourse/data/step_peaks.json``'s loop rows, ``python -m measurements step-peak
    --loops``): the most bytes PyTorch held in the forward and backward above what existed
    before the micro-batch (the weights and the optimizer state, and the gradients when
    accumulating), beside the engine's peak of that loop less the same."""
    import pandas as pd
    data = data or measured_peaks()
    eng = data["loop_engine"]
    rows = []
    for r in data["loop_rows"]:
        cfg = from_hf_config(data["loop_models"][r["model"]])
        first = r["loop"] == "first"
        m = training_memory(cfg, r["seq_len"], r["batch"], precision=eng["precision"][r["mode"]],
                            optimizer=eng["optimizer"][r["optimizer"]], recompute=r["recompute"],
                            attention=_ATTENTION[r["attn_implementation"]],
                            first_micro_batch=first)
        before = m.params + m.optimizer + (0 if first else m.grads)
        rows.append({"model": r["model"], "mode": r["mode"], "loop": r["loop"],
                     "attention": r["attn_implementation"], "recompute": r["recompute"],
                     "batch": r["batch"], "seq_len": r["seq_len"],
                     **_ratio_row(r["peak_fwd_bwd"], m.peak_backward - before)})
    return pd.DataFrame(rows)


def comm_buffers_path():
    """Where the repository keeps the two-process measurements of DDP, FSDP2 and tensor
    parallelism (``measurements/comm_buffers.json``: read by the tests and the training
    appendix, not shipped in the package)."""
    from pathlib import Path
    return Path(__file__).resolve().parents[2] / "measurements" / "comm_buffers.json"


def comm_buffers_table(data=None):
    """One row per stored two-process measurement (``python -m measurements comm-buffers``:
    gloo on CPU): for DDP and FSDP2 (as Accelerate wraps a model) the peak above what existed
    before the micro-batch, with the engine's (its tool buffers included); for every setup the
    bytes one GPU sent in the step's collectives (a ring all-reduce sends 2 (n - 1) / n of its
    buffer, an all-gather or reduce-scatter (n - 1) / n), beside
    :func:`~llmcourse.parallelism.communication_volume`'s count (tensor parallelism: its
    layers' all-reduces, the embedding and lm_head having stayed whole)."""
    import json

    import pandas as pd

    from ..parallelism import communication_volume
    if data is None:
        with open(comm_buffers_path(), encoding="utf-8") as fh:
            data = json.load(fh)
    n = data["world_size"]
    rows = []
    for r in data["rows"]:
        cfg = from_hf_config(data["models"][r["model"]])
        st = dict(data["engine"][r["setup"]][r["mode"]])
        sent = (2 * (n - 1) * r["all_reduce"] + (n - 1) * (r["all_gather"] + r["reduce_scatter"])) // n
        row = {"setup": r["setup"], "mode": r["mode"], "model": r["model"], "loop": r["loop"],
               "batch": r["batch"], "seq_len": r["seq_len"]}
        if r["setup"] == "tp":
            v = communication_volume(cfg, r["seq_len"], r["batch"], precision=st["precision"],
                                     tp=st["tp"])
            row.update({"peak measured (B)": None, "peak engine (B)": None,
                        "sent measured (B)": sent, "sent engine (B)": v.parts["tp_layers"]})
        else:
            first = r["loop"] == "first"
            m = training_memory(cfg, r["seq_len"], r["batch"], dp=n, first_micro_batch=first,
                                **st)
            before = (m.params + m.optimizer + (0 if first else m.grads)
                      + m.buffers.get("ddp_buckets", (0, 0, 0))[0])
            v = communication_volume(cfg, r["seq_len"], r["batch"], precision=st["precision"],
                                     zero_stage=st["zero_stage"], dp=n)
            row.update({"peak measured (B)": r["peak_fwd_bwd"],
                        "peak engine (B)": m.peak_backward - before,
                        "sent measured (B)": sent, "sent engine (B)": v.total})
        rows.append(row)
    return pd.DataFrame(rows)
