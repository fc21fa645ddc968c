"""Reading a reader's own vLLM startup log (llmcourse.read_vllm_log) and explaining it term by
term (llmcourse.explain_vllm_log, ``python -m llmcourse log``): every figure a real excerpt
prints is read back exactly (the excerpts of llmcourse/data/vllm_logs.json, whose ``logged``
figures were copied from the logs by hand), a line it recognises but cannot read is one line
naming it, and the explanation sets the plan beside the log with a cause for each term that
differs by more than 5%."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import llmcourse as lc
from llmcourse.config import ConfigError
from llmcourse.vllm_log import VllmLog

DATA = json.loads(Path(lc.serving.VLLM_LOGS).read_text(encoding="utf-8"))
ROWS = DATA["launches"]
# the data file's hand-copied figure -> the reader's attribute
KEYS = {"kv_gib": "available_kv_gib", "weights_gib": "weights_gib",
        "activation_gib": "peak_activation_gib", "non_torch_gib": "non_torch_gib",
        "kv_tokens": "kv_cache_tokens", "total_gib": "total_memory_gib",
        "requested_gib": "requested_gib", "cuda_graph_estimate_gib": "cuda_graph_estimate_gib",
        "max_concurrency": "max_concurrency"}
A100 = next(r for r in ROWS if r["id"] == "a100-80gb-llama-3.1-8b-v0.31.0")


def _text(row):
    return "\n".join(row["quoted_lines"])


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_every_excerpt_reads_and_every_figure_it_prints_comes_back_exactly(row):
    log = lc.read_vllm_log(_text(row))
    assert isinstance(log, VllmLog)
    for key, attr in KEYS.items():
        want, got = row.get("logged", {}).get(key), getattr(log, attr)
        if want is not None and got is not None:
            assert got == want, (row["id"], key)


# rows whose figures were copied from a summary table beside the log, not from log lines
TABLES = ("llmd-", "vllm51590-")


def test_every_figure_an_excerpt_prints_as_a_log_line_is_read():
    read = missed = 0
    for r in ROWS:
        if r["id"].startswith(TABLES):
            continue
        log = lc.read_vllm_log(_text(r))
        for key, attr in KEYS.items():
            if key in r.get("logged", {}):
                if getattr(log, attr) is None:
                    missed += 1
                else:
                    read += 1
    assert missed == 0 and read >= 35


def test_a_v0_31_excerpt_read_line_by_line():
    log = lc.read_vllm_log(_text(A100))
    assert (log.release, log.model) == ("0.31.0", "meta-llama/Llama-3.1-8B-Instruct")
    assert (log.weights_gib, log.peak_activation_gib, log.non_torch_gib) == (15.0, 1.44, 0.26)
    assert (log.available_kv_gib, log.kv_cache_tokens, log.max_concurrency) == (56.21, 460496,
                                                                                3.51)
    assert (log.total_memory_gib, log.free_memory_gib, log.requested_gib) == (79.25, 78.84,
                                                                              72.91)
    assert (log.gpu_memory_utilization, log.max_model_len) == (0.92, 131072)
    assert log.cuda_graph_gib == 0.23 and log.cuda_graph_estimate_gib is None
    assert log.error is None and log.tensor_parallel_size is None   # not printed: None


def test_settings_from_the_engine_config_and_the_arguments():
    text = ("INFO 10-02 [core.py:74] Initializing a V1 LLM engine (v0.11.0) with config: "
            "model='Qwen/Qwen3-32B', speculative_config=None, tokenizer='Qwen/Qwen3-32B', "
            "max_seq_len=16000, tensor_parallel_size=2, pipeline_parallel_size=1, "
            "kv_cache_dtype=fp8, enforce_eager=True, device_config=cuda\n"
            "INFO [utils.py:328] non-default args: {'model': 'Qwen/Qwen3-32B', "
            "'gpu_memory_utilization': 0.85, 'max_num_seqs': 64, 'max_num_batched_tokens': 4096}")
    log = lc.read_vllm_log(text)
    assert (log.release, log.model, log.max_model_len, log.tensor_parallel_size) == (
        "0.11.0", "Qwen/Qwen3-32B", 16000, 2)
    assert (log.kv_cache_dtype, log.enforce_eager, log.gpu_memory_utilization) == (
        "fp8", True, 0.85)
    assert (log.max_num_seqs, log.max_num_batched_tokens) == (64, 4096)


def test_a_refusal_is_read_as_the_error():
    log = lc.read_vllm_log("ValueError: Free memory on device cuda:0 (97.07/121.69 GiB) on "
                           "startup is less than desired GPU memory utilization (0.8, 97.35 "
                           "GiB). Decrease GPU memory utilization or reduce GPU memory used by "
                           "other processes.")
    assert log.error and (log.free_memory_gib, log.total_memory_gib) == (97.07, 121.69)
    assert (log.gpu_memory_utilization, log.requested_gib) == (0.8, 97.35)


@pytest.mark.parametrize("line, name", [
    ("Available KV cache memory: plenty GiB", "Available KV cache memory"),
    ("GPU KV cache size: lots tokens", "GPU KV cache size"),
    ("Maximum concurrency for 8k tokens per request: 3x", "Maximum concurrency for"),
    ("INFO non-default args: {'model': ", "non-default args"),
])
def test_a_line_it_recognises_but_cannot_read_is_one_line_naming_it(line, name):
    with pytest.raises(ValueError) as e:
        lc.read_vllm_log(line)
    assert str(e.value).startswith(name) and "\n" not in str(e.value)


def test_nothing_recognised_is_all_none():
    log = lc.read_vllm_log("INFO Started server process\nsomething else")
    assert log.figures() == {} and log.release is None and log.error is None


def test_explain_sets_each_term_beside_the_log():
    e = lc.explain_vllm_log(_text(A100))
    assert e.plan.gpu == "A100 SXM 80GB" and e.plan.vllm_version == "0.31"
    assert e.settings["model"] == e.settings["gpu"] == e.settings["release"] == "log"
    terms = {t.term: t for t in e.terms}
    kv = terms["available KV cache memory"]
    assert kv.logged == 56.21 and kv.planned == e.plan.kv_budget_bytes / 2 ** 30
    assert kv.difference == pytest.approx(kv.planned - 56.21) and not kv.differs
    act = terms["profiling peak (activations)"]
    assert act.differs and "sampler" in act.cause          # 0.45 planned, 1.44 logged
    assert not terms["weights as loaded"].differs
    text = str(e)
    assert "term" in text.splitlines()[1] and "likely cause" in text.splitlines()[1]
    assert act.cause in text and "<table>" in e._repr_html_()


def test_explain_asks_for_what_the_log_does_not_name():
    with pytest.raises(ConfigError, match="^model:"):
        lc.explain_vllm_log("Available KV cache memory: 5.00 GiB")
    with pytest.raises(ConfigError, match="^gpu:"):
        lc.explain_vllm_log("Available KV cache memory: 5.00 GiB", model="Qwen3-8B")
    with pytest.raises(ConfigError, match="^vllm_version:"):
        lc.explain_vllm_log("Available KV cache memory: 5.00 GiB", model="Qwen3-8B",
                            gpu="H100")
    e = lc.explain_vllm_log("Available KV cache memory: 5.00 GiB", model="Qwen3-8B",
                            gpu="RTX 4090", vllm_version="0.31", max_model_len=8192)
    assert e.terms[6].logged == 5.0 and e.settings["max_model_len"] == "given"


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "llmcourse", "log", *args],
                          capture_output=True, text=True, timeout=120, input=stdin)


def test_the_log_command(tmp_path):
    f = tmp_path / "startup.log"
    f.write_text(_text(A100), encoding="utf-8")
    p = _cli(str(f))
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.startswith("Llama-3.1-8B on 1 x A100 SXM 80GB, vLLM 0.31")
    assert "available KV cache memory (GiB)" in p.stdout and "56.21" in p.stdout
    j = _cli("-", "--json", stdin=_text(A100))
    assert j.returncode == 0 and json.loads(j.stdout)["settings"]["gpu"] == "log"
    bad = _cli("-", stdin="Available KV cache memory: lots GiB")
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1
    missing = _cli(str(tmp_path / "none.log"))
    assert missing.returncode == 2 and missing.stderr.startswith("llmcourse log: file:")


# the logged figures of vllm_logs.json and the VllmLog attribute each is read into
_READ_BACK = {"weights_gib": "weights_gib", "activation_gib": "peak_activation_gib",
              "non_torch_gib": "non_torch_gib", "kv_gib": "available_kv_gib",
              "kv_tokens": "kv_cache_tokens", "max_concurrency": "max_concurrency",
              "total_gib": "total_memory_gib", "requested_gib": "requested_gib",
              "free_gib": "free_memory_gib", "cuda_graph_estimate_gib": "cuda_graph_estimate_gib",
              "cuda_graph_actual_gib": "cuda_graph_actual_gib",
              "equivalent_utilization": "equivalent_utilization", "consumed_gib": "consumed_gib",
              "kv_needed_gib": "kv_needed_gib",
              "estimated_max_model_len": "estimated_max_model_len"}


def _released_2026(row):
    import re
    m = re.match(r"v?0\.(\d+)", row.get("vllm_version") or "")
    return row.get("budget_release") and int(row["budget_release"].split(".")[1]) >= 20 and (
        m is None or int(m.group(1)) >= 20)


ROWS_2026 = [r for r in json.loads(Path(lc.serving.VLLM_LOGS).read_text(encoding="utf-8"))
             ["launches"] if _released_2026(r)]


@pytest.mark.parametrize("row", ROWS_2026, ids=lambda r: r["id"])
def test_every_figure_a_2026_excerpt_prints_is_read_back_exactly(row):
    # the rows of releases 0.20-0.31: their quoted lines, read as a reader would paste them,
    # give back each figure the data file records from them, to the digit
    if row.get("excerpt_kind"):            # a table someone wrote from the log, said so
        assert "not vLLM's own lines" in row["excerpt_kind"]
        return
    log = lc.read_vllm_log("\n".join(row["quoted_lines"]))
    checked = 0
    for key, attr in _READ_BACK.items():
        if key in row["logged"]:
            assert getattr(log, attr) == row["logged"][key], (row["id"], key)
            checked += 1
    assert checked >= 1
    if row["outcome"] == "failed":
        assert log.error


def test_the_2026_rows_are_fifteen_or_more_across_releases_and_gpus():
    assert len(ROWS_2026) >= 15
    releases = {r["budget_release"] for r in ROWS_2026}
    assert {"0.20", "0.23", "0.24", "0.26", "0.29", "0.31"} <= releases


@pytest.mark.parametrize("row", [r for r in ROWS_2026 if r["usable"] and
                                 not r.get("excerpt_kind")], ids=lambda r: r["id"])
def test_every_2026_launch_with_model_and_gpu_is_explained_term_by_term(row):
    # the reader's own log, explained: each figure the excerpt prints sits beside the plan's,
    # and the KV budget's difference is the plan's against the log
    kw = {k: row[k] for k in ("model_runner", "enable_prefix_caching", "limit_mm_per_prompt")
          if row.get(k) is not None}
    e = lc.explain_vllm_log("\n".join(row["quoted_lines"]), model=row["config"],
                            gpu=row["gpu"], vllm_version=row["budget_release"], **kw)
    terms = {t.term: t for t in e.terms}
    kv = terms["available KV cache memory"]
    assert kv.logged == row["logged"]["kv_gib"]
    assert kv.planned == pytest.approx(lc.serving.log_plan(row).kv_budget_bytes / 2 ** 30)
    assert not kv.differs                          # within 5%: the row is within the band
    for key, term in (("total_gib", "total the runtime reports"),
                      ("requested_gib", "requested = utilization x total"),
                      ("weights_gib", "weights as loaded"),
                      ("activation_gib", "profiling peak (activations)"),
                      ("consumed_gib", "weights + non-torch"),
                      ("kv_tokens", "GPU KV cache size"),
                      ("max_concurrency", "maximum concurrency")):
        if key in row["logged"]:
            assert terms[term].logged == row["logged"][key], (row["id"], key)
    assert terms["requested = utilization x total"].difference == pytest.approx(0, abs=0.006)
    text = str(e)
    assert "available KV cache memory" in text and "\n" in text


def test_the_hybrid_manager_turned_off_is_read_from_the_log():
    # vLLM's own lines (vllm/v1/core/kv_cache_utils.py, vllm/config/vllm.py) and its flag
    warn = ("(EngineCore pid=98743) WARNING 04-30 19:50:08 [kv_cache_utils.py:1163] Hybrid KV "
            "cache manager is disabled for this hybrid model, This means we do not enable any "
            "optimizations for saving KV cache memory (e.g., dropping the KV cache outside the "
            "sliding window). The compute of layers like sliding window is still saved.")
    turned = ("WARNING 04-30 19:49:01 [vllm.py:984] Turning off hybrid kv cache manager because "
              "`--kv-transfer-config` is set. This will reduce the performance of vLLM on LLMs "
              "with sliding window attention or Mamba attention.")
    for line in (warn, turned, "vllm serve google/gemma-3-27b-it --disable-hybrid-kv-cache-manager",
                 "INFO [utils.py:328] non-default args: {'model': 'google/gemma-3-27b-it', "
                 "'disable_hybrid_kv_cache_manager': True}"):
        assert lc.read_vllm_log(line).hybrid_kv_cache_manager is False, line
    assert lc.read_vllm_log("GPU KV cache size: 1,024 tokens").hybrid_kv_cache_manager is None


def test_a_cache_charged_in_full_is_named_in_the_explanation():
    row = next(r for r in ROWS if r["id"] == "b300-gemma-4-31b-v0.26.0")
    ex = lc.explain_vllm_log("\n".join(row["quoted_lines"]), model="gemma-4-31B", gpu="B300")
    note = next(n for n in ex.notes if "hybrid KV cache manager off" in n)
    assert "217,296 tokens and 13.26x" in note      # the log: 217,116 and 13.25x
    again = lc.explain_vllm_log("\n".join(row["quoted_lines"]), model="gemma-4-31B",
                                gpu="B300", hybrid_kv_cache_manager=False)
    tokens = next(t for t in again.terms if t.term == "GPU KV cache size")
    assert not tokens.differs and not any("hybrid KV cache manager off:" in n
                                          for n in again.notes)
