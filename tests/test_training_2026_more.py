"""Training activations of four more 2026 families against what PyTorch saves (CPU).

``llmcourse/data/activations_measured_2026_more.json`` (``benchmarks/measure_activations_2026_more.py``)
holds the bytes autograd saves in tiny random configs, in total and per decoder layer, counting
only storages still held when the forward ends (Qwen4-Exp's indexer builds a graph that dies
with its boolean mask). Exact (to the byte): Granite 4.0 (Mamba-2, NoPE or RoPE attention,
shared MLP, routed experts) and LFM2-MoE in fp32; Qwen4-Exp for one sequence padded to two
or more Gated DeltaNet chunks (hyper-connections, n-gram PLE, indexed attention). The rest are
held to the error measured when the rules were written.
"""

import json
import os
import sys

import pytest

import llmcourse as lc
from llmcourse.training import activation_accuracy, training_memory

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "benchmarks"))
import measure_activations_2026_more as M  # noqa: E402  (the script that wrote the stored data)

from stored_rows import engine_for, ids, rel  # noqa: E402

DATA = json.load(open(M.OUT, encoding="utf-8"))
ROWS = DATA["rows"]
engine = engine_for(DATA)


# every byte: Granite 4.0 and LFM2-MoE in every setting, Qwen4-Exp for one padded sequence
EXACT = [r for r in ROWS if r["model"].startswith(("granitemoehybrid", "lfm2_moe"))
         or (r["model"].startswith("qwen4") and r["batch"] == 1 and r["seq_len"] % 64)]


@pytest.mark.parametrize("row", EXACT, ids=ids(EXACT))
def test_saved_bytes_equal_the_measurement(row):
    assert engine(row)[1].saved_for_backward == row["saved_bytes"]


# the measured error (largest over the stored rows, rounded up): Qwen4-Exp's Gated DeltaNet
# when the sequences fill whole chunks (as Qwen3.5's); LongCat-Flash's zero-expert share
# (the engine takes the uniform one, the router of a random model picks its own)
TOLERANCE = {"qwen4_exp_text": 0.02, "granitemoehybrid": 0.0, "lfm2_moe": 0.0,
             "longcat_flash": 0.17}


@pytest.mark.parametrize("row", ROWS, ids=ids(ROWS))
def test_every_stored_row_within_its_measured_error(row):
    cfg, m = engine(row)
    assert rel(m.saved_for_backward, row["saved_bytes"]) <= TOLERANCE[cfg.model_type]


def test_the_stored_rows_are_the_script_s():
    assert DATA["models"] == M.MODELS
    assert {r["model"] for r in ROWS} == set(M.MODELS)
    assert not DATA["skipped"]
    assert all(sum(r["layers"]) < r["saved_bytes"] for r in ROWS)


def test_activation_accuracy_reports_the_new_families():
    for name in ("Qwen3.8-Flash-Next", "granite-4.0-h-350m"):
        words = activation_accuracy(lc.load_model(name))
        assert "not measured" not in words, words
    for d in DATA["models"].values():
        assert "not measured" not in activation_accuracy(lc.from_hf_config(d))


def test_qwen4_zoo_hyper_connections_are_named_not_other_norms():
    """The real model's hyper-connection norms (hc_count x hidden wide) were read as
    'other norms'; they are the hyper-connections' own term now."""
    terms = training_memory("Qwen3.8-Flash-Next", 4096).activation_terms
    assert "other norms" not in terms
    assert terms["hyper-connections (grouped norm, stream mix, injection)"] > 0


# Re-measured now, one small case per family: PyTorch or transformers changing what they
# save fails here before the stored table goes stale.
def _now(key, batch, seq_len, impl="sdpa", dtype="fp32"):
    name = next(n for n in M.MODELS if n.startswith(key))
    config = M.MODELS[name]
    r = M.measure(config, batch, seq_len, impl, dtype)
    cfg = lc.from_hf_config(config)
    m = training_memory(cfg, seq_len, batch, precision=M.DTYPES[dtype],
                        attention=M.ATTENTION[impl])
    return r, m


def test_qwen4_now():
    r, m = _now("qwen4_exp_text", 1, 70)
    assert m.saved_for_backward == r["saved_bytes"]


def test_granite_now():
    r, m = _now("granitemoehybrid (routed", 1, 40, dtype="bf16")
    assert m.saved_for_backward == r["saved_bytes"]


def test_lfm2_now():
    r, m = _now("lfm2_moe", 2, 24)
    assert m.saved_for_backward == r["saved_bytes"]


def test_longcat_now():
    r, m = _now("longcat_flash", 1, 48)
    assert rel(m.saved_for_backward, r["saved_bytes"]) <= TOLERANCE["longcat_flash"]
