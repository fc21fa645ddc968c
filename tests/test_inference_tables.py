"""The serving lessons' tables (llmcourse.tables.inference): one definition of "over idealised"
for every weight scheme, no speed for a setup whose weights do not fit, the memory the runtime
reports beside the datasheet's, and the published logs and speeds as the appendix lists them."""

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


def test_every_published_speed_has_its_weights_a_gguf_file_by_llama_cpps_rule():
    t = lc.tables.inference.decode_speeds_table(formatted=False)
    assert not t["weights (GB)"].isna().any()
    gguf = t[t["format"] == "GGUF Q4_K_M"]
    assert len(gguf) == 7
    # the benchmark's README prints "Quantized size (Q4_K_M) 4.58 GB" for Llama 3 8B, in GiB
    # (its "Original size (f16) 14.96 GB" is 8.03e9 x 2 B in GiB)
    assert {round(w * 1e9 / 2**30, 2) for w in gguf["weights (GB)"]} == {4.58}
    f16 = t[t["format"] == "GGUF F16"]
    assert {round(w * 1e9 / 2**30, 2) for w in f16["weights (GB)"]} == {14.96}


def test_published_speeds_name_the_gpu_and_version_whole():
    t = lc.tables.inference.decode_speeds_table(formatted=False)
    assert set(t["GPU"]) <= set(lc.list_gpus())
    assert "Mac Studio M2 Ultra 192GB" in set(t["GPU"])
    versions = set(t["version"])
    assert "source build, May 2024" in versions and "0.5.8.post1" in versions
    assert not any(v.endswith(" bu") or v.endswith(":late") for v in versions)
    assert len(t) == len(lc.serving.decode_speeds()["rows"])


def test_the_logs_table_lists_every_checked_launch_with_its_logged_budget():
    t = lc.tables.inference.vllm_logs_table(formatted=False)
    rows = lc.serving.vllm_logs(usable=True)
    assert list(t.index) == [r["id"] for r in rows]
    # the Llama-3.1-8B launch on an A100 80GB with v0.31.0: "Available KV cache memory: 56.21 GiB"
    assert t.loc["a100-80gb-llama-3.1-8b-v0.31.0", "logged KV (GiB)"] == 56.21
    assert t.loc["a100-80gb-llama-3.1-8b-v0.31.0", "vLLM"] == "0.31"
    assert t.loc["vllm51590-gpt-oss-120b-8xrtxpro4500", "GPU"].startswith("RTX PRO 4500")


def test_layout_checks_reproduce_the_logged_tokens_and_concurrency():
    # Qwen3.6-35B-A3B on an RTX 5090, vLLM 0.24.0: "GPU KV cache size: 567,978 tokens",
    # "Maximum concurrency for 131,072 tokens per request: 4.33x" (club-3090 issue 612)
    t = lc.tables.inference.layout_checks_table(formatted=False)
    assert len(t) == 9
    row = t.loc["club3090-612-qwen3.6-35b-a3b-nvfp4-5090-v0.24.0"]
    assert (row["logged tokens"], row["logged concurrency"]) == (567978, 4.33)
    exact = t.drop(["h200-qwen2.5-7b-awq-v0.31.0", "a40-llama-3.1-8b-v0.26.0"])
    assert (exact["plan tokens"] == exact["logged tokens"]).all()
    assert (exact["plan concurrency"] == exact["logged concurrency"]).all()
    # those two print a budget whose last digit rounds away a few blocks (0.005 GiB holds
    # 93 of Qwen2.5-7B's 57,344-byte tokens, 40 of Llama's 131,072): tests/test_vllm_kv.py
    # finds the budget within the rounding that gives the logged figures exactly
    for rid, per_token in (("h200-qwen2.5-7b-awq-v0.31.0", 57344),
                           ("a40-llama-3.1-8b-v0.26.0", 131072)):
        diff = abs(t.loc[rid, "plan tokens"] - t.loc[rid, "logged tokens"])
        assert 0 < diff <= 0.005 * 2 ** 30 / per_token + 16
