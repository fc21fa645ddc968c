"""Tables for lesson 11 and its measurement appendix: the stored activation measurements
beside the engine's count and the textbook rule."""

from __future__ import annotations

from ..config import from_hf_config
from ..training import (korthikanti_activation_bytes, measured_activations, measured_peaks,
                        training_memory)

__all__ = ["activations_measured_table", "format_measured", "step_peaks_table",
           "comm_buffers_path", "comm_buffers_table", "short_model", "step_peaks_summary",
           "trainer_steps_table", "comm_buffers_summary", "tools_table", "qlora_base_table"]

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


def short_model(name):
    """A stored small model's name as a narrow table shows it: its type and what it tests
    ('llama (MQA 6:1, tied, vocabulary 5,000)' -> 'llama, MQA 6:1, tied')."""
    kind, _, rest = name.partition(" (")
    bits = [b for b in rest.rstrip(")").split(", ") if b and not b.startswith("vocabulary")]
    return ", ".join([kind] + bits[:2])


def step_peaks_summary(data=None):
    """:func:`step_peaks_table` narrowed to one row per model and one column per mode: the
    engine's error against PyTorch's peak, from the lowest to the highest over both loops and
    every shape (a string such as '+0.013 to +0.017%')."""
    t = step_peaks_table(data)
    t = t[t.recompute == "none"].copy()
    t["error"] = t["engine (B)"] / t["measured (B)"] - 1
    t["model"] = t["model"].map(short_model)
    g = t.groupby(["model", "mode"])["error"].agg(["min", "max"])
    cells = g.apply(lambda r: f"{100 * r['min']:+.3f} to {100 * r['max']:+.3f}%", axis=1)
    out = cells.unstack("mode")
    out.columns.name = "engine vs PyTorch, by mode"
    return out


def trainer_steps_table(data=None):
    """One row per stored Trainer step (``python -m measurements step-peak --trainer``:
    transformers' own ``Trainer.training_step`` on CPU): PyTorch's peak above the states, the
    engine's with the Trainer's setting (the returned logits freed) and with them held."""
    import pandas as pd
    data = data or measured_peaks()
    eng = data["trainer_engine"]
    rows = []
    for r in data["trainer_rows"]:
        cfg = from_hf_config(data["loop_models"][r["model"]])
        first = r["loop"] == "first"
        out = {}
        for held in (False, True):
            m = training_memory(cfg, r["seq_len"], r["batch"], precision=eng["precision"][r["mode"]],
                                optimizer=eng["optimizer"], first_micro_batch=first,
                                attention=_ATTENTION[r["attn_implementation"]],
                                hold_outputs=held)
            out[held] = m.peak_backward - (m.params + m.optimizer + (0 if first else m.grads))
        rows.append({"model": short_model(r["model"]), "mode": r["mode"], "loop": r["loop"],
                     "batch": r["batch"], "seq_len": r["seq_len"],
                     "measured (B)": r["peak_fwd_bwd"], "engine (B)": out[False],
                     "error": out[False] / r["peak_fwd_bwd"] - 1,
                     "logits held (B)": out[True],
                     "held / measured": out[True] / r["peak_fwd_bwd"]})
    return pd.DataFrame(rows)


def comm_buffers_summary(data=None):
    """:func:`comm_buffers_table` narrowed for reading: one micro-batch of each setup, model
    and loop, the measured peak and the bytes sent (MB), each with the engine's ratio."""
    t = comm_buffers_table(data)
    t = t[t.batch == 1].copy()
    t["model"] = t["model"].map(lambda s: s.partition(" (")[0])
    out = t.assign(**{
        "peak (MB)": t["peak measured (B)"].map(lambda v: "" if v != v or v is None
                                                else f"{v / 1e6:,.1f}"),
        "peak: engine / measured": (t["peak engine (B)"] / t["peak measured (B)"]).map(
            lambda v: "" if v != v else f"{v:.4f}"),
        "sent (MB)": (t["sent measured (B)"] / 1e6).map("{:,.2f}".format),
        "sent: engine = measured": t["sent engine (B)"] == t["sent measured (B)"]})
    return out[["setup", "mode", "model", "loop", "peak (MB)", "peak: engine / measured",
                "sent (MB)", "sent: engine = measured"]].set_index(["setup", "mode", "model",
                                                                     "loop"])


def tools_table(model="Llama-3.1-8B", seq_len=4096):
    """Each named tool setup as it runs (``lc.training.TRAINING_SETUPS``), on one and on
    eight GPUs: its sharding, states, the buffers in its peak and those named for the
    reserve (DeepSpeed's, at the Trainer's "auto" sizes), both loops' peaks and its own loop,
    in GB."""
    import pandas as pd
    from ..training_settings import TRAINING_SETUPS, setup_settings, stage_label
    rows = {}
    for setup, n in (("hf-trainer", 1), ("hf-trainer", 8), ("hf-trainer-fp32-weights", 1),
                     ("hf-trainer-fsdp", 8), ("hf-trainer-fsdp-shard-grad-op", 8),
                     ("hf-trainer-deepspeed-zero3", 8), ("pytorch-amp", 8), ("megatron", 8)):
        m = training_memory(model, seq_len, 1, **setup_settings(setup, dp=n))
        st = m.settings
        rows[f"{setup} x {n}"] = {
            "sharding": stage_label(st["precision"], st["zero_stage"]),
            "states": round(m.states / 1e9, 1),
            "buffers": round(sum(v[0] for v in m.buffers.values()) / 1e9, 2),
            "reserve": round(sum(m.reserve_buffers.values()) / 1e9, 2),
            "first": round(m.peak_first_micro_batch / 1e9, 1),
            "accum.": round(m.peak_accumulating / 1e9, 1),
            "its loop": "first" if m.first_micro_batch else "accum.",
            "logits": "held" if st["hold_outputs"] else "freed"}
    assert set(s for s, _ in (k.split(" x ") for k in rows)) <= set(TRAINING_SETUPS)
    return pd.DataFrame(rows).T


def qlora_base_table(data=None):
    """The stored QLoRA bases (``measurements/qlora_base.json``, bitsandbytes on CPU) beside
    :func:`~llmcourse.finetune.qlora_base_bytes`: as loaded, and after peft's
    ``prepare_model_for_kbit_training``."""
    import json
    from pathlib import Path

    import pandas as pd

    from ..finetune import qlora_base_bytes
    if data is None:
        path = Path(__file__).resolve().parents[2] / "measurements" / "qlora_base.json"
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    rows = []
    for r in data["rows"]:
        cfg = from_hf_config(data["models"][r["model"]])
        for upcast, key in ((False, "loaded"), (True, "prepared")):
            rows.append({"model": r["model"].partition(" (")[0],
                         "double quant": r["double_quant"],
                         "non-4-bit": "fp32 (prepared)" if upcast else "bf16",
                         "measured (B)": r[key],
                         "engine (B)": qlora_base_bytes(cfg, r["double_quant"], upcast)[1]})
    return pd.DataFrame(rows)
