"""Lessons 11 and 12's checkers: no listed mistake equals the right answer on any config or
setting it is checked on (a mistake the reference shares could never name the slip), and the
feedback to the slips the lessons warn of names them."""

import pytest

import llmcourse as lc
from llmcourse.exercises import base

pytestmark = pytest.mark.course

OURS = [e for e in base.EXERCISES.values() if e.id.startswith(("train-", "compute-"))]


def _cases(ex):
    return [base._case_config(c) for c in ex.cases]


@pytest.mark.parametrize("ex", [e for e in OURS if e.kind == "derive"], ids=lambda e: e.id)
def test_no_derive_mistake_equals_the_reference_on_any_case(ex):
    for cfg in _cases(ex):
        ref = ex.reference(cfg)
        for fn, feedback in ex.mistakes:
            try:
                v = fn(cfg)
            except ValueError:   # a mistake of other models only (said so by raising)
                continue
            assert v != ref, f"{ex.id} on {cfg.name}: '{feedback[:40]}...' equals the answer"


@pytest.mark.parametrize("ex", [e for e in OURS if e.kind == "predict"], ids=lambda e: e.id)
def test_no_predict_mistake_equals_the_expected_value(ex):
    expected = ex.expected()
    for fn, feedback in ex.mistakes:
        assert abs(fn() - expected) > 0.005 * abs(expected), f"{ex.id}: {feedback[:40]}"


def test_compute_2_names_the_tied_lm_head():
    """Lesson 12's first cell subtracts the embedding from the matmul weights (Llama-3.1-8B is
    untied); written so for a tied model, the slip drops the lm_head: the feedback says so."""
    def cell_3_way(cfg):
        pc = lc.param_count(cfg)
        n_mm = pc.total - pc.components["norms"] - pc.embedding
        attention = 4 * cfg.num_hidden_layers * cfg.num_attention_heads * cfg.head_dim \
            * (4096 + 1) // 2
        return 8 * n_mm + 4 * attention
    verdict = lc.exercises.check("compute-2", cell_3_way)
    assert not verdict and "lm_head is tied" in str(verdict) and "Qwen3-4B" in str(verdict)


def test_train_5_asks_what_no_cell_above_printed():
    """train-5's answer (FSDP's sharded fp32 gradients, 4N/8) differs from the unsharded bf16
    gradients lesson 11 computes for its accumulating peak (2N)."""
    n = lc.param_count(lc.load_model("Llama-3.1-8B")).total
    ex = base.EXERCISES["train-5"]
    assert abs(ex.expected() - 4 * n / 8 / 1e9) < 1e-6
    assert str(lc.exercises.check("train-5", 2 * n / 1e9)).count("FSDP shards them") == 1
