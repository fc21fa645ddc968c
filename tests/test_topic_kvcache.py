"""Lesson 02 (GQA and the KV cache): explorer, figures, exercises, sizing helpers."""

from fractions import Fraction

import pytest

import llmcourse as lc
from llmcourse.exercises import EXERCISES, check
from llmcourse.sizing import gqa_memory_saving, mha_baseline, tokens_for_total_saving
from llmcourse.widgets import EXPLORERS, kv_cache_rows, kv_variants, with_layer_pattern

KV_EXERCISES = [i for i in EXERCISES if i.startswith("kv-")]


# --- sizing helpers ----------------------------------------------------------------

def test_mha_baseline_has_one_kv_head_per_query_head():
    cfg = lc.load_model("Qwen2-7B")
    base = mha_baseline(cfg)
    assert base.num_key_value_heads == cfg.num_attention_heads == 28
    assert lc.kv_cache_bytes(base, 4096) == 7 * lc.kv_cache_bytes(cfg, 4096)


def test_mla_baseline_is_the_papers_mha_and_cut_is_far_more_than_70_percent():
    cfg = lc.load_model("DeepSeek-V3")
    base = mha_baseline(cfg)
    assert lc.kv_cache_bytes_per_token_per_layer(cfg) == (cfg.kv_lora_rank + cfg.qk_rope_head_dim) * 2
    assert lc.kv_cache_bytes_per_token_per_layer(base) == 2 * cfg.num_attention_heads * cfg.v_head_dim * 2
    s = gqa_memory_saving(cfg, 4096)
    assert s["cache_saving"] == 1 - Fraction(lc.kv_cache_bytes(cfg, 4096), lc.kv_cache_bytes(base, 4096))
    assert s["cache_saving"] > Fraction(98, 100)


@pytest.mark.parametrize("kv, cut", [(8, Fraction(3, 4)), (4, Fraction(7, 8))])
def test_kv_quarter_and_eighth_cut_the_cache_by_75_and_87_5_percent(kv, cut):
    cfg = lc.load_model("Meta-Llama-3-8B").replace(num_key_value_heads=kv)
    assert gqa_memory_saving(cfg, 8192, 2)["cache_saving"] == cut


def test_total_saving_band_is_where_the_thresholds_are_crossed():
    cfg = lc.load_model("Meta-Llama-3-8B")
    n30 = tokens_for_total_saving(cfg, Fraction(3, 10))
    n50 = tokens_for_total_saving(cfg, Fraction(1, 2))
    assert 0 < n30 < n50
    for n, t in ((n30, Fraction(3, 10)), (n50, Fraction(1, 2))):
        assert gqa_memory_saving(cfg, n)["total_saving"] >= t > gqa_memory_saving(cfg, n - 1)["total_saving"]
    assert tokens_for_total_saving(cfg, Fraction(99, 100)) is None  # never beyond the cache's 75%


def test_sliding_layers_hold_at_most_the_window():
    g = lc.load_model("gemma-2-2b")
    full = with_layer_pattern(g, "all full attention", g.sliding_window)
    n = 131072
    per_layer = lc.kv_cache_bytes_per_token_per_layer(g)
    assert lc.kv_cache_bytes(g, n) == per_layer * (13 * 4096 + 13 * n)
    assert lc.kv_cache_bytes(full, n) == per_layer * 26 * n


# --- the explorer ----------------------------------------------------------------------

def test_kv_explorer_rows_follow_the_engine():
    ex = EXPLORERS["kv_cache"]()
    assert not ex.error
    cfg = lc.load_model("Meta-Llama-3-8B")
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(cfg, 8192, 1)
    ex.set(num_key_value_heads=2, seq_len=32768, batch=4)
    new = cfg.replace(num_key_value_heads=2)
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(new, 32768, 4)
    assert ex.value("mha_cache_bytes") == lc.kv_cache_bytes(mha_baseline(new), 32768, 4)
    assert ex.value("total_saving") == round(100 * float(gqa_memory_saving(new, 32768, 4)["total_saving"]), 2)
    assert [(r.key, r.value) for r in ex.rows] == [(r.key, r.value) for r in kv_cache_rows(new, 32768, 4)]


def test_kv_explorer_layer_pattern_and_window():
    ex = EXPLORERS["kv_cache"]()
    ex.set(layers="alternate sliding/full", sliding_window=1024, seq_len=65536)
    cfg = with_layer_pattern(lc.load_model("Meta-Llama-3-8B"), "alternate sliding/full", 1024)
    assert ex.value("sliding_layers") == 16
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(cfg, 65536)


def test_kv_explorer_invalid_window_shows_message_then_recovers():
    ex = EXPLORERS["kv_cache"]()
    before = ex.value("kv_cache_bytes")
    ex.set(sliding_window=0)
    assert "sliding_window" in ex.error and "positive" in ex.error
    assert "sliding_window" in ex.error_line.value
    assert "Traceback" not in ex.error_line.value
    assert ex.value("kv_cache_bytes") == before  # the last valid setting stays
    ex.set(sliding_window=2048)
    assert ex.error == "" and ex.error_line.value == ""
    ex.set(seq_len=16384)
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("Meta-Llama-3-8B"), 16384)


def test_kv_explorer_model_change_resets_kv_heads_and_handles_mla():
    ex = EXPLORERS["kv_cache"]()
    ex.set(model="Qwen2-7B")
    assert ex.controls["num_key_value_heads"].value == 4
    assert list(ex.controls["num_key_value_heads"].options) == lc.widgets.divisors(28)
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("Qwen2-7B"), 8192)
    ex.set(model="DeepSeek-V3")
    assert not ex.error
    assert ex.controls["num_key_value_heads"].disabled
    assert ex.value("kind") == "MLA (latent)"
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("DeepSeek-V3"), 8192)
    ex.set(model="gpt-oss-20b")
    assert ex.controls["sliding_window"].value == 128
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("gpt-oss-20b"), 8192)


def test_kv_variants_compare_mha_mqa_and_no_window():
    g = lc.load_model("gemma-2-2b")
    labels = [label for label, _ in kv_variants(g)]
    assert len(labels) == 4 and any("no sliding window" in x for x in labels)
    assert len(kv_variants(lc.load_model("DeepSeek-V3"))) == 2


def test_kv_explorer_redraw_is_fast():
    import statistics
    ex = EXPLORERS["kv_cache"]()
    times = []
    for kv in [1, 2, 4, 8, 16, 32] * 3:
        ex.set(num_key_value_heads=kv)
        times.append(ex.last_seconds)
    assert statistics.median(times) < 0.25  # generous: the 50 ms target is checked by the benchmark


# --- figures ---------------------------------------------------------------------------

def _check_figure(fig):
    from matplotlib.figure import Figure
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    title = ax.get_title() or (fig._suptitle.get_text() if fig._suptitle else "")
    assert title
    assert ax.get_xlabel() and ax.get_ylabel() or ax.get_xlabel()
    assert ax.get_legend() is not None or fig.legends
    from llmcourse.plots.style import png_bytes
    assert png_bytes(fig).startswith(b"\x89PNG")


def test_kv_figures():
    llama = lc.load_model("Meta-Llama-3-8B")
    _check_figure(lc.plots.kv_cache_vs_context([("GQA", llama)], weights_bytes=lc.weight_bytes(llama)))
    fig = lc.plots.kv_cache_per_token(["Meta-Llama-3-8B", "DeepSeek-V3", "gemma-2-2b"])
    _check_figure(fig)
    assert fig.axes[0].get_yticklabels()
    fig = lc.plots.gqa_total_memory_saving()
    _check_figure(fig)
    assert "%" in fig.axes[0].get_ylabel()


# --- exercises -------------------------------------------------------------------------

def test_there_are_kv_exercises():
    assert len(KV_EXERCISES) >= 2


@pytest.mark.parametrize("ex_id", KV_EXERCISES)
def test_kv_exercise_right_and_wrong(ex_id):
    expected = EXERCISES[ex_id].answer()
    assert check(ex_id, expected)
    assert not check(ex_id, expected * 2 + 1)
    assert "No answer yet" in check(ex_id, None)


def test_kv_exercise_answers_are_the_engines():
    llama = lc.load_model("Meta-Llama-3-8B")
    assert EXERCISES["kv-1"].answer() == lc.kv_cache_bytes(llama, 8192) == 2**30
    assert EXERCISES["kv-2"].answer() == 7
    assert EXERCISES["kv-3"].answer() == lc.kv_cache_bytes(lc.load_model("DeepSeek-V3"), 1)
