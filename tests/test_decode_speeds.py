"""Published batch-1 decode speeds (llmcourse/data/decode_speeds.json, 38 rows from 8 sources:
vLLM V1 5, vLLM V0 14, SGLang 5, llama.cpp 14; L4, RTX 3090/4090, L40S, A100 40/80GB, H100
SXM/PCIe, 8 x B200, Apple M2 Ultra and M3 Max; 16-bit, GPTQ/AWQ 4- and 8-bit and GGUF Q4_K_M
weights; one to eight GPUs) against the course's decode model (llmcourse.decode_speed).

Every measured speed is below its bound. The model, ``t = a x t_memory + c_engine x
layers``, is refitted here with numpy (not the engine's code) and its leave-one-out figures
recomputed from the published speeds alone:

* out of sample, the estimate lands within 25% of the measurement on 36 of 38 rows (median
  error 5.2%; the two outside: llama.cpp F16 on an A100, +55%, and SGLang without CUDA graphs
  on an A100 40GB, +31%);
* the band (5th-95th percentile of the leave-one-out ratios, made without the row it is
  checked on) contains the measurement on 33 of 38 rows, 87% >= the 80% the issue asks for;
* leaving out a whole source at a time, 27 of 38 land within 25% (llama.cpp's rows all come
  from one source, and the only TP=8 rows from another).
"""

import json
import statistics
from pathlib import Path

import numpy as np
import pytest

import llmcourse as lc
from llmcourse.config import ConfigError
from llmcourse.decode_speed import (ENGINE_FAMILIES, decode_speed_band_check, decode_speed_loo,
                                    decode_speed_model, decode_speeds, engine_family,
                                    expected_decode_speed, fit_decode_speed,
                                    typical_decode_efficiency)
from llmcourse.serving import decode_step_per_gpu

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "configs"
DATA = json.loads(Path(lc.decode_speed.DECODE_SPEEDS).read_text(encoding="utf-8"))
ROWS = DATA["rows"]
CONFIGS = {f"fixture:{p.name}": lc.from_hf_config(json.loads(p.read_text(encoding="utf-8")),
                                                  name=p.stem)
           for p in FIXTURES.glob("*.json")}


def _cfg(row):
    name = row["config"]
    return CONFIGS[name] if name.startswith("fixture:") else lc.load_model(name)


def _weights(row):
    return row["weight_bytes"] if row.get("weight_bytes") else row["weights"]


def _bound(row):
    return decode_step_per_gpu(_cfg(row), row["gpu"], row["tensor_parallel_size"], _weights(row),
                               "bf16", row["seq_len"], 1)


def _family(row):
    # vLLM's V1 engine became the default in 0.8.0; before it, V0
    if row["engine"] != "vLLM":
        return row["engine"]
    major, minor = (int(x) for x in row["engine_version"].split(".")[:2])
    return "vLLM V0" if (major, minor) < (0, 8) else "vLLM"


FAMILIES = ["vLLM", "vLLM V0", "SGLang", "llama.cpp"]
X = np.array([[_bound(r).t_memory] + [_cfg(r).num_hidden_layers * (_family(r) == f)
                                      for f in FAMILIES] for r in ROWS], dtype=float)
T = np.array([1 / r["measured_tokens_per_s"] for r in ROWS])


def _nnls(x, t):
    """Least squares on relative error, non-negative: best over every support (numpy)."""
    a, b = x / t[:, None], np.ones(len(t))
    best, best_r = np.zeros(x.shape[1]), float(b @ b)
    n = x.shape[1]
    for mask in range(1, 2 ** n):
        cols = [j for j in range(n) if mask >> j & 1]
        if np.linalg.matrix_rank(a[:, cols]) < len(cols):
            continue
        sol = np.linalg.lstsq(a[:, cols], b, rcond=None)[0]
        if (sol < 0).any():
            continue
        c = np.zeros(n)
        c[cols] = sol
        r = float(((a @ c) - b) @ ((a @ c) - b))
        if r < best_r - 1e-12:
            best, best_r = c, r
    return best


def _loo_ratios(idx, groups=None):
    """measured / predicted speed (= predicted / measured time) for each row in idx, fitted
    without it (or without its group)."""
    out = {}
    for k in idx:
        keep = [j for j in idx if (groups[j] != groups[k] if groups else j != k)]
        c = _nnls(X[keep], T[keep])
        out[k] = float(X[k] @ c) / T[k]
    return out


ALL = list(range(len(ROWS)))
LOO = _loo_ratios(ALL)


def test_at_least_30_sourced_rows_over_engines_gpus_and_weight_formats():
    assert len(ROWS) >= 30 and DATA["batch"] == 1
    assert {_family(r) for r in ROWS} == set(ENGINE_FAMILIES)
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids))
    for r in ROWS:
        assert r["source"].startswith("https://") and r["quote"] and r["engine_version"]
        assert r["speculative_decoding"] is False and r["gpu"] in lc.list_gpus()
        assert r["measured_tokens_per_s"] > 0 and r["seq_len"] >= 1 and r["seq_len_derivation"]
        assert r.get("weights") or r.get("weight_bytes_derivation")
        assert "within_band" not in r          # no in-sample verdicts stored with the data
    gpus = {r["gpu"] for r in ROWS}
    assert {"H100 SXM 80GB", "B200 HGX 180GB", "H100 PCIe 80GB"} <= gpus   # fast GPUs
    formats = {r["weights"] for r in ROWS}
    assert {"bf16", "int8-channel", "int4-g128", "int4-g128-gptq"} <= formats
    assert any(r.get("weight_bytes") for r in ROWS)                         # GGUF Q4_K_M
    assert len({r["source"].split("/blob/")[0] for r in ROWS}) >= 6


def test_tpot_rows_are_one_over_the_quoted_tpot():
    for r in ROWS:
        if "TPOT" in r["measured_as"] or r["measured_as"].startswith("1 / tpot_p50"):
            ms = float(r["measured_as"].split("(")[1].split(" ms")[0])
            assert r["measured_tokens_per_s"] == pytest.approx(1000 / ms, abs=0.02)
            assert any(f"{ms:g}" in q or f"{ms / 1000:g}" in q for q in r["quote"]), r["id"]


def test_the_embedded_configs_are_the_fixtures():
    for name, entry in DATA["configs"].items():
        raw = json.loads((FIXTURES / name.split(":", 1)[1]).read_text(encoding="utf-8"))
        assert entry["config"] == raw and "@" in entry["source"]


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_measured_speed_is_below_the_bound(row):
    assert row["measured_tokens_per_s"] < _bound(row).tokens_per_s_per_user


def test_the_engine_fit_is_the_least_squares_fit_of_the_rows():
    ours = _nnls(X, T)
    m = decode_speed_model()
    assert m.rows == len(ROWS)
    assert m.bandwidth_factor == pytest.approx(ours[0], rel=1e-6)
    for f, c in zip(FAMILIES, ours[1:]):
        assert m.per_layer_s[f] == pytest.approx(c, rel=1e-6, abs=1e-12)
    assert fit_decode_speed(ROWS, CONFIGS) == m
    # a bandwidth factor above 1 and a fixed cost per layer for every engine family
    assert 1.0 < m.bandwidth_factor < 1.5 and all(c > 0 for c in m.per_layer_s.values())
    # the all-reduce term tried beside it: fitted to zero
    ar = np.array([2 * _cfg(r).num_hidden_layers * (r["tensor_parallel_size"] > 1) for r in ROWS])
    assert _nnls(np.column_stack([X, ar]), T)[-1] == 0


def test_leave_one_out_error_out_of_sample():
    engine = {x.id: x for x in decode_speed_loo()}
    for k, ratio in LOO.items():
        x = engine[ROWS[k]["id"]]
        assert x.measured_tokens_per_s == ROWS[k]["measured_tokens_per_s"]
        assert x.ratio == pytest.approx(ratio, rel=1e-6)
    err = {ROWS[k]["id"]: 1 / v - 1 for k, v in LOO.items()}     # predicted / measured - 1
    assert sum(abs(e) <= 0.25 for e in err.values()) == 36
    assert round(statistics.median(abs(e) for e in err.values()), 3) == 0.052
    outside = {k for k, e in err.items() if abs(e) > 0.25}
    assert outside == {"xd-llama3-8b-f16-a100-sxm", "rb-qwen2.5-7b-sglang-a100-40gb"}
    check = decode_speed_band_check()
    assert (check.rows, check.within_25pct) == (38, 36)


def test_the_band_holds_out_of_sample_on_at_least_80_percent_of_rows():
    inside, outside = 0, []
    for k in ALL:
        rest = [j for j in ALL if j != k]
        inner = _loo_ratios(rest)          # the band is made without row k
        lo, hi = np.percentile(list(inner.values()), [5, 95])
        if lo <= LOO[k] <= hi:
            inside += 1
        else:
            outside.append(ROWS[k]["id"])
    assert inside / len(ALL) >= 0.8 and inside == 33
    check = decode_speed_band_check()
    assert check.inside == inside and set(check.outside) == set(outside)
    assert check.band == pytest.approx(tuple(np.percentile(list(LOO.values()), [5, 95])),
                                       rel=1e-9)
    assert [round(b, 2) for b in check.band] == [0.82, 1.18]


def test_leaving_out_a_whole_source_is_harsher():
    groups = [r["source"].split("/blob/")[0] for r in ROWS]
    by_source = _loo_ratios(ALL, [r["source"] for r in ROWS])
    assert sum(abs(1 / v - 1) <= 0.25 for v in by_source.values()) == 27
    engine = decode_speed_loo(leave_out="source")
    assert [x.ratio for x in engine] == pytest.approx([by_source[k] for k in ALL], rel=1e-6)
    assert len(set(groups)) >= 6


def test_llama_3_1_8b_on_one_h100_as_measured():
    # yobitelcomm concurrency sweep, vLLM 0.21.0, fp16, concurrency 1: tpot_p50 6.48 ms
    exp = expected_decode_speed("Llama-3.1-8B", "H100", "vLLM", seq_len=512)
    lo, hi = exp.band
    assert lo <= 1000 / 6.48 <= hi
    assert exp.expected_tokens_per_s == pytest.approx(1000 / 6.48, rel=0.25)
    assert exp.bound_tokens_per_s > hi and exp.label == "estimate, not exact"
    assert "estimate, not exact" in repr(exp) and "band" in repr(exp)
    assert exp.memory_s + exp.fixed_s == pytest.approx(1 / exp.expected_tokens_per_s)


def test_fixed_costs_weigh_more_on_fast_gpus_and_small_weights():
    # the reason one efficiency per engine missed fast GPUs and 4-bit weights
    slow = expected_decode_speed("Llama-3.1-8B", "L4", "vLLM", weights="bf16")
    fast = expected_decode_speed("Llama-3.1-8B", "B200", "vLLM", weights="bf16")
    small = expected_decode_speed("Llama-3.1-8B", "H100", "vLLM", weights="int4-g128")
    big = expected_decode_speed("Llama-3.1-8B", "H100", "vLLM", weights="bf16")
    assert fast.efficiency < slow.efficiency and small.efficiency < big.efficiency
    assert typical_decode_efficiency("vLLM") == pytest.approx(big.efficiency)


def test_engine_families():
    assert engine_family("vLLM", "0.6.3") == "vLLM V0"
    assert engine_family("vLLM", "0.21.0") == "vLLM" == engine_family("vLLM")
    assert engine_family("llama.cpp") == "llama.cpp"


def test_decode_speeds_loads_the_same_file():
    assert decode_speeds()["rows"] == ROWS


@pytest.mark.parametrize("call, field", [
    (lambda: expected_decode_speed("Qwen3-8B", "L4", engine="TensorRT-LLM"), "engine"),
    (lambda: typical_decode_efficiency("exllama"), "engine"),
    (lambda: expected_decode_speed("Qwen3-8B", "L4", seq_len=0), "seq_len"),
    (lambda: expected_decode_speed("Qwen3-8B", "L4", tensor_parallel_size=3),
     "tensor_parallel_size"),
    (lambda: engine_family("vLLM", "new"), "version"),
    (lambda: decode_speed_loo(leave_out="gpu"), "leave_out"),
    (lambda: fit_decode_speed([]), "rows"),
])
def test_bad_input_is_a_one_line_error_naming_the_field(call, field):
    with pytest.raises(ConfigError) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert str(e.value).startswith(f"{field}:") and "\n" not in str(e.value)


def test_outside_the_data_the_band_widens_or_is_withheld_saying_why():
    # no MLA model among the measured rows: DeepSeek-V3 on 8 x H200 gets no estimate, only
    # its bound (the systems review: ~264 tok/s had been answered, "tens" expected)
    ds = lc.expected_decode_speed("DeepSeek-V3", "H200", tensor_parallel_size=8)
    assert ds.withheld == "outside the data: no MLA row" and ds.expected_tokens_per_s is None
    assert ds.bound_tokens_per_s > 0 and "no estimate" in repr(ds)
    # no vLLM row on an H200: the band widens to the source-left-out band
    h200 = lc.expected_decode_speed("Llama-3.1-8B", "H200")
    assert h200.outside == ("outside the data: no vLLM row on H200 SXM 141GB",)
    lo, hi = lc.decode_speed.wide_band()
    assert h200.low_tokens_per_s / h200.expected_tokens_per_s == pytest.approx(lo)
    assert h200.high_tokens_per_s / h200.expected_tokens_per_s == pytest.approx(hi)
    assert hi - lo > 0.5                      # far wider than the nested band (0.82-1.18)
    assert "band widened" in repr(h200)
    # a mixture of experts at TP >= 4 with vLLM: no such row
    moe = lc.expected_decode_speed("Qwen3-235B-A22B", "H100", tensor_parallel_size=8)
    assert any("mixture of experts at TP >= 4" in w for w in moe.outside)
    # inside the data: the nested band as before
    h100 = lc.expected_decode_speed("Llama-3.1-8B", "H100")
    assert h100.in_data and h100.outside == () and h100.withheld == ""
    # vLLM on a Mac: withheld
    assert "does not run" in lc.expected_decode_speed("Qwen3-8B", "M3 Max").withheld
    # llama.cpp on a Mac is in the data
    assert lc.expected_decode_speed("Meta-Llama-3-8B", "M2 Ultra", "llama.cpp").in_data


def test_no_speed_for_a_setup_that_cannot_load():
    e = lc.expected_decode_speed("Meta-Llama-3-70B", "H100")
    assert e.withheld.startswith("no speed: the weights (141.1 GB per GPU) do not fit")
    # on two H100s it loads (70.6 GB a GPU): a speed again
    assert lc.expected_decode_speed("Meta-Llama-3-70B", "H100", tensor_parallel_size=2
                                    ).withheld == ""


def test_the_band_out_of_sample_with_the_outside_rule():
    """Each row left out, judged by the others: inside their data (the nested band), outside
    (the widened band) or withheld; the band then holds the measurement on at least 80% of the
    rows given one (the issue's bar), and flags the rows no other row covers."""
    c = lc.decode_speed.decode_speed_outside_check()
    rows = lc.decode_speed.decode_speeds()["rows"]
    assert c.rows == len(rows) == 38
    assert c.inside_data + c.widened + c.withheld == c.rows
    assert c.coverage >= 0.8
    # the only vLLM V1 row on an H100 and the only SGLang row on an A100 40GB: no other row
    # of their engine on their GPU
    assert set(c.flagged) == {"yobitel-llama3.1-8b-h100", "rb-qwen2.5-7b-sglang-a100-40gb"}
    assert (c.held, c.widened, c.withheld) == (34, 2, 0)
