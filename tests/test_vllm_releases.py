"""vLLM's budget by release (llmcourse.serving.vllm_release, vllm_plan(vllm_version=...),
vllm_changes): every minor release from 0.10 to 0.31, each term that changed with the PR that
changed it, checked against what the PR or a log states.

* default ``gpu_memory_utilization`` 0.9 -> 0.92 (vLLM PR 38284; ``vllm/config/cache.py`` at
  v0.16.0 still reads 0.9, at v0.30.0 ``Field(default=0.92, gt=0, le=1)``);
* FlashInfer's top-k/top-p sampler on by default again (PR 40376; off since PR 26859): the
  profiling peak of Llama-3.1-8B on one H100 is 1.79 GiB, not 4.73;
* vLLM's CUDA-graph estimate subtracted from the KV budget (PR 30515; "default since
  v0.21.0", the log says, but the v0.20.0 logs already subtract it), restated by the log as
  an equivalent utilization;
* Model Runner V2, the default for Qwen3 dense models from 0.22 (PR 39337), Llama and Mistral
  from 0.23 (PR 43458), every dense model from 0.26: no CUDA-graph estimate in the budget
  (issue 49224);
* GPUs of >= 160 GiB: 16,384 batched tokens for ``vllm serve`` since v0.28.0 (PR 51726).
"""

import math

import pytest

import llmcourse as lc
from llmcourse.config import ConfigError
from llmcourse.serving import (CURRENT_VLLM, FIRST_VLLM, RELEASE_CHANGES, VLLM_RELEASES,
                               VLLM_VERSION, cuda_graph_capture_sizes, cuda_graph_estimate,
                               non_torch_range, profile_peak, vllm_changes, vllm_logs,
                               vllm_plan, vllm_release)

GiB = 2 ** 30


def test_every_minor_release_from_0_10_to_0_31_is_modelled():
    assert (FIRST_VLLM, CURRENT_VLLM) == ("0.10", "0.31") and "v0.31.0" in VLLM_VERSION
    assert list(VLLM_RELEASES) == [f"0.{m}" for m in range(10, 32)]
    for key in ("0.15", "0.19", "v0.26.1", "0.12.0"):
        assert vllm_release(key).version == key.lstrip("v")[:4]
    plan = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000)
    assert plan.vllm_version == "0.31" and repr(plan).startswith("VllmPlan(vLLM 0.31:")
    assert plan.release.label == VLLM_VERSION


@pytest.mark.parametrize("bad", ["0.9", "0.32", "1.0", "latest", 0.31])
def test_a_release_outside_the_range_is_a_one_line_error(bad):
    with pytest.raises(ConfigError) as e:
        vllm_release(bad)
    assert str(e.value).startswith("vllm_version:") and "\n" not in str(e.value)


def test_each_changed_term_names_its_pr_and_first_release():
    by_field = {}
    for since, field, value, what, where in RELEASE_CHANGES:
        assert where and what, (since, field)
        by_field.setdefault(field, []).append((since, value, where))
    assert ("0.21", 0.92, ) == by_field["default_utilization"][0][:2]
    assert "pull/38284" in by_field["default_utilization"][0][2]
    assert [(s, v) for s, v, _ in by_field["sampler"]] == [("0.11", "pytorch"),
                                                          ("0.21", "flashinfer")]
    assert "pull/40376" in by_field["sampler"][1][2]
    assert "pull/30515" in by_field["cuda_graph_in_budget"][0][2]
    assert by_field["big_gpu_tier"][0][0] == "0.28" and "pull/51726" in \
        by_field["big_gpu_tier"][0][2]
    assert [s for s, _, _ in by_field["mrv2"]] == ["0.22", "0.23", "0.26"]
    # the terms of each release follow from the changes up to it
    for key, r in VLLM_RELEASES.items():
        m = r.minor
        assert r.default_utilization == (0.92 if m >= 21 else 0.9), key
        assert r.sampler == ("flashinfer" if m >= 21 else "pytorch"), key
        assert r.cuda_graph_in_budget == (m >= 20) and r.big_gpu_tier == (m >= 28), key
        assert r.kv_size_by_concurrency == (m >= 22), key


def test_model_runner_v2_by_release_and_model():
    qwen, llama, moe = (lc.load_model(n) for n in ("Qwen3-8B", "Llama-3.1-8B", "Qwen3-30B-A3B"))
    runners = {v: tuple(vllm_release(v).model_runner(c) for c in (qwen, llama, moe))
               for v in ("0.21", "0.22", "0.23", "0.26", "0.31")}
    assert runners == {"0.21": ("v1", "v1", "v1"), "0.22": ("v2", "v1", "v1"),
                       "0.23": ("v2", "v2", "v1"), "0.26": ("v2", "v2", "v1"),
                       "0.31": ("v2", "v2", "v1")}
    assert vllm_release("0.31").model_runner("gemma-3-1b-it") == "v2"     # dense, sliding
    assert vllm_release("0.31").model_runner("Qwen3.6-35B-A3B") == "v1"   # hybrid MoE


def test_the_sampler_change_on_llama_3_1_8b():
    # 1,024 rows of 128,256 logits at 38 B (the sort) or 14 B (FlashInfer), with the forward's
    # 8,192 x 4,096 hidden states and the rows' two copies alive
    torch_peak = profile_peak("Llama-3.1-8B", 8192, 1024, sampler="pytorch")
    fi_peak = profile_peak("Llama-3.1-8B", 8192, 1024, sampler="flashinfer")
    rest = 8192 * 4096 * 2 + 2 * 1024 * 4096 * 2
    assert torch_peak.bytes == 1024 * 128256 * 38 + rest
    assert fi_peak.bytes == 1024 * 128256 * 14 + rest
    assert round(torch_peak.bytes / GiB, 2) == 4.73 and round(fi_peak.bytes / GiB, 2) == 1.79


def test_the_0_21_budget_term_by_term():
    plan = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000, vllm_version="0.21")
    names = [n for n, _, _ in plan.terms()]
    assert names[-2] == "CUDA-graph estimate" and names[-1] == "KV cache"
    assert sum(b for n, b, _ in plan.terms()[1:-1]) == plan.kv_budget_bytes
    assert plan.gpu_memory_utilization == 0.92 and plan.sampler == "flashinfer"
    assert plan.requested_bytes == math.ceil(plan.total_bytes * 0.92)   # 0.21 rounds up
    old = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000, vllm_version="0.11")
    assert old.requested_bytes == math.floor(old.total_bytes * 0.9)
    assert "CUDA-graph estimate" not in [n for n, _, _ in old.terms()]
    assert old.kv_tokens == 421_200        # 0.11's budget, as its log shows (test_vllm_logs)


def test_model_runner_v2_subtracts_no_graph_estimate():
    # the v0.31.0 log of Llama-3.1-8B on an A100: 72.91 - 15.26 - 1.44 = 56.21 GiB, no estimate
    plan = vllm_plan("Llama-3.1-8B", "A100 SXM 80GB", vllm_version="0.31")
    assert plan.model_runner == "v2" and not plan.cuda_graph_in_budget
    assert plan.kv_budget_bytes == plan.requested_bytes - plan.weight_bytes \
        - plan.activation_bytes - plan.non_torch_bytes
    assert vllm_plan("Llama-3.1-8B", "A100 SXM 80GB", vllm_version="0.31",
                     model_runner="v1").cuda_graph_in_budget


def test_capture_sizes_and_graph_counts_as_vllm_logs_them():
    # "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)" at the
    # default max_num_seqs 256 (LMCache issue 3430, vLLM 0.21.0)
    sizes = cuda_graph_capture_sizes(256)
    assert len(sizes) == 51 and sizes[-1] == 512 and sizes[:4] == [1, 2, 4, 8]
    est = cuda_graph_estimate("Qwen3-8B", 256)
    assert (est.piecewise, est.full, est.largest) == (51, 35, 512)
    assert round(est.bytes / GiB, 2) == 0.52          # that log's "0.52 GiB total"
    assert cuda_graph_estimate("Qwen3-8B", 256, enforce_eager=True).bytes == 0
    assert cuda_graph_estimate("Qwen3-8B", 256, optimization_level=0).bytes == 0
    assert cuda_graph_estimate("Qwen3-8B", 256, optimization_level=1).full == 0
    small = cuda_graph_estimate("Qwen3-8B", 256, max_cudagraph_capture_size=64)
    assert small.largest == 64 and small.bytes < est.bytes


def test_the_levers_on_the_graph_term():
    base = dict(max_model_len=4096, vllm_version="0.27", model_runner="v1")
    plan = vllm_plan("Qwen3-8B", "RTX 4090", **base)
    assert plan.cuda_graph_in_budget and plan.cuda_graph_bytes > 0
    eager = vllm_plan("Qwen3-8B", "RTX 4090", enforce_eager=True, **base)
    assert eager.kv_budget_bytes == plan.kv_budget_bytes + plan.cuda_graph_bytes
    off = vllm_plan("Qwen3-8B", "RTX 4090", estimate_cuda_graphs=False, **base)
    assert not off.cuda_graph_in_budget and off.kv_budget_bytes == eager.kv_budget_bytes
    fixed = vllm_plan("Qwen3-8B", "RTX 4090", kv_cache_memory_bytes=5 * GiB, **base)
    assert fixed.kv_budget_bytes == 5 * GiB and fixed.terms()[0][0] == "--kv-cache-memory-bytes"
    # the log restates the estimate as a utilization: utilization - graphs / total
    assert plan.equivalent_utilization == pytest.approx(
        0.92 - plan.cuda_graph_bytes / plan.total_bytes)
    # club-3090 issue 127 (RTX 3090, >= 0.21): estimate 0.17 GiB, 0.9200 -> 0.9129
    p = vllm_plan("Llama-3.2-1B", "RTX 3090", gpu_memory_utilization=0.92, max_model_len=4096,
                  cuda_graph_bytes=round(0.17 * GiB), vllm_version="0.21")
    assert abs(p.equivalent_utilization - 0.9129) <= 0.005 / 23.59 + 0.00005


def test_vllm_changes_walks_every_release():
    steps = vllm_changes("Llama-3.1-8B", "H100", max_model_len=16000)
    assert steps[0].plan == vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000,
                                      vllm_version="0.11")
    today = vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000)
    assert (steps[-1].kv_budget_bytes, steps[-1].kv_tokens) == (today.kv_budget_bytes,
                                                                today.kv_tokens)
    # 0.20: the graph estimate in the budget (PR 30515, the v0.20.0 logs); 0.21: utilization
    # and sampler (PRs 38284, 40376); 0.23: Model Runner V2
    assert [s.plan.vllm_version for s in steps] == ["0.11", "0.20", "0.21", "0.23"]
    assert "30515" in steps[1].source
    assert all(pr in steps[2].source for pr in ("38284", "40376"))
    assert "43458" in steps[3].source
    big = vllm_changes("Qwen3-235B-A22B", "B200", tensor_parallel_size=8)
    assert big[-1].plan.vllm_version == "0.28" and "51726" in big[-1].source
    assert big[-1].plan.max_num_batched_tokens == 16384
    with pytest.raises(ConfigError, match="^vllm_version:"):
        vllm_changes("Llama-3.1-8B", "H100", vllm_version="0.11")


def test_non_torch_memory_is_a_stated_range_by_tp_size():
    logged = {}
    for r in vllm_logs() + lc.serving._log_file()["non_torch_observations"]:
        nt = (r.get("logged") or {}).get("non_torch_gib", r.get("non_torch_gib"))
        tp = r.get("tensor_parallel_size")
        if nt is not None and tp is not None and isinstance(r.get("gpu"), str):
            logged.setdefault(tp > 1, []).append(nt)
    one, tp = non_torch_range(1), non_torch_range(2)
    assert round(one.low / GiB, 2) == min(logged[False])
    assert round(one.high / GiB, 2) == max(logged[False])
    assert round(tp.low / GiB, 2) == min(logged[True]) == 0.21     # 8 x L40S
    assert round(tp.high / GiB, 2) == max(logged[True]) == 1.38    # 2 x H200
    plan = vllm_plan("Qwen3-32B", "H100", tensor_parallel_size=2, max_model_len=16000)
    fewest, most = plan.kv_tokens_range
    assert fewest <= plan.kv_tokens <= most and fewest < most


def test_a_gpu_of_unknown_runtime_memory_is_planned_with_the_caveat():
    plan = vllm_plan("Llama-3.1-8B", "H20", max_model_len=16000)
    assert plan.memory_caveat == "datasheet capacity, runtime unknown"
    assert plan.total_bytes == 96 * 10**9 and "runtime unknown" in repr(plan)
    assert vllm_plan("Llama-3.1-8B", "H100", max_model_len=16000).memory_caveat == ""


def test_a_rocm_gpu_is_planned_with_its_non_torch_caveat():
    plan = vllm_plan("Qwen3-8B", "MI300X")
    assert any("ROCm" in c for c in plan.caveats)
    assert not vllm_plan("Qwen3-8B", "H100").caveats


@pytest.mark.parametrize("seqs, capture, logged", [
    # "Profiling CUDA graph memory: PIECEWISE=p (largest=a), FULL=f (largest=b)" as logged:
    (256, None, (51, 512, 35, 256)),     # LMCache issue 3430 (0.21.0, default 256 sequences)
    (1024, None, (51, 512, 51, 512)),    # gemma-4-31B on a B300 (0.26.0, 1,024 sequences)
    (20, None, (8, 40, 5, 16)),          # gemma-4-31B on Kaggle (0.23.0, --max-num-seqs 20)
    (1, 4, (3, 4, 1, 1)),                # Qwen3.6 NVFP4, --max-cudagraph-capture-size 4
    (4, 4, (3, 4, 3, 4)),                # the same with four sequences
])
def test_graph_counts_as_the_logs_print_them(seqs, capture, logged):
    # piecewise graphs for every capture size up to min(2 x seqs, 512) (or the given
    # largest); full decode graphs for the sizes up to max_num_seqs
    est = cuda_graph_estimate("Qwen3-8B", seqs, max_cudagraph_capture_size=capture)
    full_largest = max(x for x in cuda_graph_capture_sizes(seqs, capture) if x <= seqs)
    assert (est.piecewise, est.largest, est.full, full_largest) == logged


def test_v0_20_already_subtracts_the_graph_estimate():
    # the v0.20.0 logs (vllm_logs.json rows *-v0.20.0) print "Estimated CUDA graph memory:
    # 0.43 GiB total" and "--gpu-memory-utilization=0.9000 is equivalent to ...=0.8964": the
    # estimate is in the budget, though the line says "default since v0.21.0"
    assert vllm_release("0.20").cuda_graph_in_budget and not vllm_release("0.19").cuda_graph_in_budget
    assert 0.9 - 0.43 / 121.69 == pytest.approx(0.8964, abs=0.0001)
    p = vllm_plan("Qwen3-8B", "RTX 5090", max_model_len=8192, vllm_version="0.20")
    assert p.cuda_graph_in_budget and p.gpu_memory_utilization == 0.9
    assert p.equivalent_utilization == pytest.approx(0.9 - p.cuda_graph_bytes / p.total_bytes)
