"""The engine beside one stored CPU measurement row (``llmcourse/data/saved_activations*.json``,
written by ``python -m measurements ...``), shared by the tests that hold the training counts
against them. Importing it puts the repository root on ``sys.path``, so the tests can import
the ``measurements`` scripts that wrote the stored rows (they are not part of the package)."""

import os
import sys

import llmcourse as lc
from llmcourse.training import training_memory

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def engine_for(data, **settings):
    """``engine(row) -> (cfg, TrainingMemory)`` for the rows of ``data`` (a stored file)."""
    def engine(row):
        cfg = lc.from_hf_config(data["models"][row["model"]])
        return cfg, training_memory(cfg, row["seq_len"], row["batch"],
                                    precision=data["engine_precision"][row["dtype"]],
                                    attention=data["engine_attention"][row["attn_implementation"]],
                                    **settings)
    return engine


def rel(est, measured):
    return abs(est - measured) / measured


def ids(rows):
    return [f"{r['model'].split()[0]}-{r['attn_implementation']}-{r['dtype']}-b{r['batch']}"
            f"-s{r['seq_len']}" for r in rows]
