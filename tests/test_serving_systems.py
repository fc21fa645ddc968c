"""The serving systems of llmcourse.serving_systems: one derived number each, checked by hand
from config.json fields, the GPU table and the papers' formulas (sources in the module)."""

import math

import pytest

import llmcourse as lc
from llmcourse.config import ConfigError
from llmcourse.serving_systems import (ALLREDUCE_LATENCY_S, chunked_prefill_steps,
                                       dp_attention_capacity, kv_transfer, moe_critical_batch,
                                       paged_capacity, speculative_decoding, tp_allreduce_cost)


def test_paging_holds_requests_by_their_length_not_max_model_len():
    c = paged_capacity("Llama-3.1-8B", "H100", 1000, max_model_len=8192)
    plan = lc.vllm_plan("Llama-3.1-8B", "H100", max_model_len=8192)
    assert c.kv_tokens == plan.kv_tokens
    assert c.reserved == plan.kv_tokens // 8192
    assert c.paged == plan.kv_tokens // 1008            # 1,000 tokens in 63 blocks of 16
    assert c.paged_waste == pytest.approx(8 / 1008)      # under Kwon et al.'s 4%
    assert c.gain > 8


def test_tp_allreduces_are_two_per_layer_and_latency_bound_at_batch_1():
    # Meta-Llama-3-70B: 80 layers, hidden 8192; 4 x H100 over NVLink (450 GB/s each way)
    t = tp_allreduce_cost("Meta-Llama-3-70B", "H100", 4)
    assert (t.count, t.bytes_each) == (160, 8192 * 2)
    assert t.bandwidth_s == pytest.approx(160 * 2 * 3 / 4 * 16384 / 450e9)
    assert t.latency_s == pytest.approx(160 * 6e-6) and ALLREDUCE_LATENCY_S == 6e-6
    assert t.latency_s > 100 * t.bandwidth_s and 0.05 < t.share_of_step < 0.15
    assert tp_allreduce_cost("Meta-Llama-3-70B", "H100", 1).count == 0


def test_dp_attention_holds_distinct_latents_on_every_gpu():
    d = dp_attention_capacity("DeepSeek-V3", "H200", 8, max_model_len=32768)
    tp = lc.vllm_plan("DeepSeek-V3", "H200", tensor_parallel_size=8, max_model_len=32768)
    assert d.tp_tokens == tp.kv_tokens
    sw = lc.stored_weights("DeepSeek-V3")
    assert d.dp_weight_bytes == sw.total - sw.routed_experts + sw.routed_experts // 8
    assert 1 < d.gain < 8          # more distinct tokens, less than 8x: attention is whole
    with pytest.raises(ConfigError, match="^cfg:"):
        dp_attention_capacity("Qwen3-30B-A3B", "H100", 2)


def test_each_expert_sees_b_k_over_e_tokens():
    m = moe_critical_batch("Qwen3-30B-A3B", "H100")
    assert (m.experts, m.experts_per_token) == (128, 8)
    assert m.dense_critical_batch == pytest.approx(989.4e12 / 3.35e12)
    assert m.moe_critical_batch == pytest.approx(m.dense_critical_batch * 128 / 8)
    assert m.tokens_per_expert(256) == 16
    with pytest.raises(ConfigError, match="^cfg:"):
        moe_critical_batch("Llama-3.1-8B", "H100")


def test_disaggregation_ships_the_prompts_kv_cache():
    # Meta-Llama-3-70B: 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 327,680 B a token
    k = kv_transfer("Meta-Llama-3-70B", 8192, 50e9)
    assert k.kv_bytes == 8192 * 80 * 8 * 128 * 2 * 2
    assert k.seconds == pytest.approx(k.kv_bytes / 50e9)


def test_chunked_prefill_spreads_a_prompt_over_steps():
    assert chunked_prefill_steps(32768, 8192, 256) == math.ceil(32768 / (8192 - 256)) == 5
    assert chunked_prefill_steps(100, 8192) == 1
    with pytest.raises(ConfigError, match="^running_decodes:"):
        chunked_prefill_steps(100, 256, 256)


def test_speculative_decoding_expectation():
    # Leviathan et al. 2023, eq. 1: E[tokens] = (1 - a^(g+1)) / (1 - a)
    s = speculative_decoding(0.8, 4, 0.05)
    assert s.tokens_per_step == pytest.approx((1 - 0.8 ** 5) / 0.2) == pytest.approx(3.3616)
    assert s.speedup == pytest.approx(3.3616 / 1.2)
    assert speculative_decoding(0.0, 4).tokens_per_step == 1


@pytest.mark.parametrize("call, field", [
    (lambda: speculative_decoding(1.0, 4), "acceptance"),
    (lambda: speculative_decoding(0.5, 0), "draft_tokens"),
    (lambda: kv_transfer("Llama-3.1-8B", 1000, 0), "link_bytes_per_s"),
    (lambda: paged_capacity("Llama-3.1-8B", "H100", 10 ** 6, max_model_len=8192),
     "request_tokens"),
    (lambda: tp_allreduce_cost("Llama-3.1-8B", "H100", 2, latency_s=-1), "latency_s"),
])
def test_bad_input_is_a_one_line_error_naming_the_field(call, field):
    with pytest.raises(ConfigError) as e:
        call()
    assert str(e.value).startswith(f"{field}:") and "\n" not in str(e.value)
