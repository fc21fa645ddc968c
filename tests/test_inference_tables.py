"""Lesson 07's tables (llmcourse.tables.inference): one definition of "over idealised" for
every weight scheme, no speed for a setup whose weights do not fit, and the memory the runtime
reports beside the datasheet's."""

import math

import pytest

import llmcourse as lc
from llmcourse.quantization import stored_weights


def test_over_idealised_is_one_definition_mxfp4_scales_included():
    # gpt-oss-20b ships its experts in mxfp4: 4-bit values + one e8m0 byte per 32 values.
    # The idealised figure counts values only, so the scales show as overhead, as int4's do.
    w = lc.tables.weights_table("gpt-oss-20b", formatted=False)
    sw = stored_weights("gpt-oss-20b")
    assert sw.scales == sw.values // 16          # one byte per 32 half-byte values
    assert w.loc["as shipped (mxfp4)", "over idealised"] != "0.0%"
    over = sw.total - sw.ideal
    assert over >= sw.scales
    assert w.loc["as shipped (mxfp4)", "over idealised"] == f"{100 * over / sw.ideal:.1f}%"
    assert w.loc["bf16", "over idealised"] == "0.0%"


def test_no_speed_for_a_setup_whose_weights_do_not_fit():
    lim = lc.tables.limits_table(["Qwen3-8B", "DeepSeek-V2"], "H200", formatted=False)
    col = "decode tokens/s, batch 1 (bound)"
    assert lim.loc["DeepSeek-V2", "longest context in memory, batch 1"] == "none (weights)"
    assert math.isnan(lim.loc["DeepSeek-V2", col])
    assert lim.loc["Qwen3-8B", col] > 0
    shown = lc.tables.limits_table(["DeepSeek-V2"], "H200")
    assert shown.loc["DeepSeek-V2", col] == ""


def test_gpu_table_shows_what_the_runtime_reports_or_says_it_is_unknown():
    t = lc.tables.gpu_table(formatted=False)
    assert t.loc["H200 SXM 141GB", "runtime reports (GiB)"] == pytest.approx(139.72, abs=0.005)
    assert t.loc["L4 24GB", "runtime reports (GiB)"] < t.loc["L4 24GB", "memory (GB)"]
    assert math.isnan(t.loc["H20 96GB", "runtime reports (GiB)"])
    shown = lc.tables.gpu_table()
    assert shown.loc["H20 96GB", "runtime reports (GiB)"] == "runtime unknown"
    assert shown.loc["DGX Spark GB10 128GB", "runtime reports (GiB)"] == "121.69 (unified)"
    assert shown.loc["Jetson AGX Thor 128GB", "runtime reports (GiB)"] == \
        "runtime unknown (unified)"
