"""The engine beside one stored CPU measurement row (``llmcourse/data/activations_measured*.json``):
shared by the tests that hold the 2026 families' training counts against them."""

import llmcourse as lc
from llmcourse.training import training_memory


def engine_for(data):
    """``engine(row) -> (cfg, TrainingMemory)`` for the rows of ``data`` (a stored file)."""
    def engine(row):
        cfg = lc.from_hf_config(data["models"][row["model"]])
        return cfg, training_memory(cfg, row["seq_len"], row["batch"],
                                    precision=data["engine_precision"][row["dtype"]],
                                    attention=data["engine_attention"][row["attn_implementation"]])
    return engine


def rel(est, measured):
    return abs(est - measured) / measured


def ids(rows):
    return [f"{r['model'].split()[0]}-{r['attn_implementation']}-{r['dtype']}-b{r['batch']}"
            f"-s{r['seq_len']}" for r in rows]
