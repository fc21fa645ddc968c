"""vLLM's budget by release (llmcourse.serving.vllm_release, vllm_plan(vllm_version=...),
vllm_changes): the terms that changed between 0.10/0.11 and the current release, each
checked against the PR or log that states it.

* default ``gpu_memory_utilization`` 0.9 -> 0.92 (vLLM PR 38284; ``vllm/config/cache.py`` at
  v0.30.0: ``Field(default=0.92, gt=0, le=1)``);
* FlashInfer's top-k/top-p sampler on by default again (PR 40376; off since PR 26859): the
  profiling peak of Llama-3.1-8B on one H100 is 1.79 GiB, not 4.73, and 0.11's budget
  would hold 445,248 KV tokens, not 421,200 (the issue's figures, #31);
* vLLM's CUDA-graph estimate subtracted from the KV budget, "default since v0.21.0" (PR
  30515), which the log restates as an equivalent utilization: "The current
  --gpu-memory-utilization=0.9200 is equivalent to --gpu-memory-utilization=0.9129 without
  CUDA graph memory profiling" with "Estimated CUDA graph memory: 0.17 GiB total" on RTX
  3090s (noonghunna/club-3090 issue 127);
* GPUs of >= 160 GiB: 16,384 batched tokens for ``vllm serve`` since v0.28.0 (PR 51726).
"""

import pytest

import llmcourse as lc
from llmcourse.config import ConfigError
from llmcourse.serving import (CURRENT_VLLM, VLLM_RELEASES, VLLM_VERSION, non_torch_range,
                               profile_peak, vllm_changes, vllm_logs, vllm_plan, vllm_release)

GiB = 2 ** 30


def test_the_plan_follows_the_current_release_by_default_and_says_which():
    assert CURRENT_VLLM == "0.31" and "v0.31.0" in VLLM_VERSION
    assert "releases/tag/v0.31.0" in " ".join(w for _, w in VLLM_RELEASES["0.31"].sources)
    plan = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000)
    assert plan.vllm_version == "0.31" and repr(plan).startswith("VllmPlan(vLLM 0.31:")
    assert plan.release.label == VLLM_VERSION
    old = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000, vllm_version="0.11")
    assert old.vllm_version == "0.11" and vllm_release("0.10") is vllm_release("0.11")


def test_each_changed_term_names_its_pr():
    cur, old = VLLM_RELEASES["0.31"], VLLM_RELEASES["0.11"]
    text = " ".join(w for _, w in cur.sources)
    for pr in ("38284", "40376", "30515", "51726"):
        assert f"pull/{pr}" in text
    assert "pull/26859" in " ".join(w for _, w in old.sources)
    assert (old.default_utilization, cur.default_utilization) == (0.9, 0.92)
    assert (old.sampler, cur.sampler) == ("pytorch", "flashinfer")
    assert not old.cuda_graph_in_budget and cur.cuda_graph_in_budget


def test_the_sampler_change_on_llama_3_1_8b_as_the_systems_review_measured_it():
    # the systems review's figure: "about 14 B per logit instead of the PyTorch sort's 38, so Llama-3.1-8B on
    # one H100 profiles at 1.79 GiB, not 4.73 (445,248 KV tokens, not 421,200)"
    torch_peak = profile_peak("Llama-3.1-8B", 8192, 1024, sampler="pytorch")
    fi_peak = profile_peak("Llama-3.1-8B", 8192, 1024, sampler="flashinfer")
    assert round(torch_peak.bytes / GiB, 2) == 4.73 and round(fi_peak.bytes / GiB, 2) == 1.79
    assert torch_peak.sampler - fi_peak.sampler == 1024 * 128256 * (38 - 14)
    a = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000, vllm_version="0.11")
    b = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000, vllm_version="0.11",
                  sampler="flashinfer")
    assert (a.kv_tokens, b.kv_tokens) == (421_200, 445_248)


def test_the_current_budget_term_by_term():
    plan = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000)
    names = [n for n, _, _ in plan.terms()]
    assert names[-2] == "CUDA-graph estimate" and names[-1] == "KV cache"
    total = sum(b for n, b, _ in plan.terms()[1:-1])
    assert total == plan.kv_budget_bytes
    assert plan.gpu_memory_utilization == 0.92 and plan.sampler == "flashinfer"
    assert plan.requested_bytes == -(-plan.total_bytes * 92 // 100)   # ceil, as 0.31 rounds
    old = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000, vllm_version="0.11")
    assert "CUDA-graph estimate" not in [n for n, _, _ in old.terms()]


def test_the_graph_estimate_restated_as_vllm_logs_it():
    # club-3090 issue 127 (RTX 3090, vLLM >= 0.21): estimate 0.17 GiB, 0.9200 -> 0.9129
    plan = vllm_plan("Llama-3.2-1B", "RTX 3090", gpu_memory_utilization=0.92,
                     max_model_len=4096, cuda_graph_bytes=round(0.17 * GiB))
    slack = 0.005 / 23.59 + 0.00005          # the estimate's and the ratio's rounding
    assert abs(plan.equivalent_utilization - 0.9129) <= slack
    assert vllm_plan("Llama-3.2-1B", "RTX 3090", max_model_len=4096,
                     vllm_version="0.11").equivalent_utilization is None


def test_vllm_changes_walks_from_0_11_to_the_current_release():
    steps = vllm_changes("Llama-3.1-8B", "H100", max_model_len=16000)
    assert steps[0].plan == vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000,
                                      vllm_version="0.11")
    assert steps[-1].kv_budget_bytes == vllm_plan("Llama-3.1-8B", "H100",
                                                  max_model_len=16000).kv_budget_bytes
    assert [s.source.split("/pull/")[1][:5] for s in steps[1:]] == ["38284", "40376", "30515"]
    assert steps[0].kv_tokens == 421_200
    # on a GPU of >= 160 GiB the batched-token default is a fifth step (PR 51726)
    big = vllm_changes("Qwen3-235B-A22B", "B200", tensor_parallel_size=8)
    assert "pull/51726" in big[-1].source and big[-1].plan.max_num_batched_tokens == 16384
    with pytest.raises(ConfigError, match="^sampler:"):
        vllm_changes("Llama-3.1-8B", "H100", sampler="pytorch")


@pytest.mark.parametrize("given, version, tier", [
    ("0.11.0", "0.11", False), ("v0.28.1", "0.28", True), ("0.21", "0.21", False),
    ("0.27.1", "0.27", False), (None, "0.31", True)])
def test_release_names_and_patch_versions(given, version, tier):
    r = vllm_release(given)
    assert r.version == version and r.big_gpu_tier == tier
    assert r.cuda_graph_in_budget == (version != "0.11")


@pytest.mark.parametrize("bad", ["0.15", "0.9", "1.0", "latest", 0.31])
def test_an_unmodelled_release_is_a_one_line_error(bad):
    with pytest.raises(ConfigError) as e:
        vllm_release(bad)
    assert str(e.value).startswith("vllm_version:") and "\n" not in str(e.value)


def test_non_torch_memory_is_a_stated_range_by_tp_size():
    logged = {}
    for r in vllm_logs() + lc.serving._log_file()["non_torch_observations"]:
        nt = (r.get("logged") or {}).get("non_torch_gib", r.get("non_torch_gib"))
        tp = r.get("tensor_parallel_size")
        if nt is not None and tp is not None and r.get("gpu"):
            logged.setdefault(tp > 1, []).append(nt)
    one, tp = non_torch_range(1), non_torch_range(2)
    assert round(one.low / GiB, 2) == min(logged[False])
    assert round(one.high / GiB, 2) == max(logged[False])
    assert round(tp.low / GiB, 2) == min(logged[True]) == 0.21     # 8 x L40S
    assert round(tp.high / GiB, 2) == max(logged[True]) == 1.38    # 2 x H200
    assert round(one.typical / GiB, 2) == 0.13 and round(tp.typical / GiB, 2) == 0.55
    plan = vllm_plan("Qwen3-32B", "H100", tensor_parallel_size=2, max_model_len=16000)
    fewest, most = plan.kv_tokens_range
    assert fewest <= plan.kv_tokens <= most and fewest < most
    assert "logged" in repr(tp)


def test_a_gpu_of_unknown_runtime_memory_is_planned_with_the_caveat():
    plan = vllm_plan("Llama-3.1-8B", "H20", max_model_len=16000)
    assert plan.memory_caveat == "datasheet capacity, runtime unknown"
    assert plan.total_bytes == 96 * 10**9 and "runtime unknown" in repr(plan)
    assert "runtime unknown" in plan.terms()[0][2]
    assert vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000).memory_caveat == ""
