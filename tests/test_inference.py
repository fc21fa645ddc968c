"""Will it fit, and how fast: exact memory limits, and speed bounds checked against the
worked examples of the JAX scaling book ("How to Scale Your Model", part 7, inference.md in
github.com/jax-ml/scaling-book)."""

import random
import time

import pytest

import llmcourse as lc
from llmcourse.inference import StepBound

# TPU v5e as the book's inference chapter uses it: 1.97e14 bf16 FLOP/s, 3.94e14 int8 OP/s,
# 8.2e11 B/s of HBM bandwidth, 16 GB
V5E_BOOK = lc.GPU("TPU v5e (scaling book)", 16 * 10**9, 8.2e11, {"bf16": 1.97e14, "int8": 3.94e14},
                  source="jax-ml/scaling-book inference.md")


def llama2_13b(**changes):
    """LLaMA 2-13B's shape, as the book's section "Modeling throughput and latency for
    LLaMA 2-13B" uses it (d_model 5120, 40 layers, 40 heads of 128, F 13824, V 32000)."""
    raw = {"model_type": "llama", "hidden_size": 5120, "num_hidden_layers": 40,
           "num_attention_heads": 40, "num_key_value_heads": 40, "intermediate_size": 13824,
           "vocab_size": 32000, "max_position_embeddings": 4096}
    raw.update(changes)
    return lc.from_hf_config(raw, name="LLaMA-2-13B shape")


def test_book_critical_batch_240_120_240():
    # inference.md, "What about attention?" / takeaway: B_crit = 1.97e14 / 8.2e11 = 240 for
    # bf16; int8 params with bf16 FLOPs: 120; int8 params and int8 FLOPs: 240 again
    assert lc.critical_batch(V5E_BOOK, "bf16") == pytest.approx(240, abs=0.5)
    assert lc.critical_batch(V5E_BOOK, "int8", "bf16") == pytest.approx(120, abs=0.5)
    assert lc.critical_batch(V5E_BOOK, "int8", "int8") == pytest.approx(240, abs=0.5)


def test_book_llama2_13b_step_time_table():
    # inference.md, "Modeling throughput and latency for LLaMA 2-13B": 8 x TPU v5e, bf16,
    # 8192-token caches of 6.7 GB each; the table's step times are (26 GB + B x 6.7 GB) over
    # 8 x 8.2e11 B/s (decimal GB, although the table's row says GiB)
    table = {1: (4.98, 200.61), 8: (12.13, 659.30), 16: (20.30, 787.99), 32: (36.65, 873.21),
             64: (69.33, 923.13), 240: (249.09, 963.53)}
    cfg = llama2_13b()
    assert lc.kv_cache_bytes(cfg, 8192) == 8192 * 40 * 128 * 40 * 2 * 2  # the book's 6.7 GB
    for b, (ms, tps) in table.items():
        # the book's own inputs (26e9 weight bytes, 6.7e9 per cache) reproduce every column
        s = StepBound("decode", "book", "v5e", 8, b, 8192, 26e9, int(b * 6.7e9), 2 * b * 13e9,
                      8 * 8.2e11, 8 * 1.97e14, "bf16")
        assert round(s.seconds * 1e3, 2) == pytest.approx(ms, abs=0.011)
        assert s.tokens_per_s == pytest.approx(tps, rel=2e-3)
        # the engine, from the config: exact weights (26.03 GB, of which only b rows of the
        # 0.33 GB untied embedding are read) and exact caches; within 1.5% of the book
        e = lc.decode_step_time(cfg, V5E_BOOK, n_gpus=8, weights="bf16", seq_len=8192, batch=b)
        assert e.bound == "memory"
        assert e.seconds * 1e3 == pytest.approx(ms, rel=0.015)


def test_book_gqa_makes_the_same_model_faster():
    # the book's second table: 8 KV heads instead of 40 (5x smaller cache): 4.17 ms at batch
    # 1 and 17.04 ms at batch 64 for (26 GB + B x 1.34 GB) / 6.56e12 B/s
    for b, ms in [(1, 4.17), (64, 17.04)]:
        s = StepBound("decode", "book", "v5e", 8, b, 8192, 26e9, int(b * 1.34e9), 2 * b * 13e9,
                      8 * 8.2e11, 8 * 1.97e14, "bf16")
        assert s.seconds * 1e3 == pytest.approx(ms, abs=0.011)
    mha = lc.decode_step_time(llama2_13b(), V5E_BOOK, 8, "bf16", seq_len=8192, batch=64)
    gqa = lc.decode_step_time(llama2_13b(num_key_value_heads=8), V5E_BOOK, 8, "bf16",
                              seq_len=8192, batch=64)
    assert gqa.kv_bytes * 5 == mha.kv_bytes
    assert gqa.seconds < mha.seconds / 3


def test_book_pop_quiz_30b_int8_on_16_chips():
    # inference.md pop quiz: 30B dense params in int8, 16 v5e chips (8.1e11 B/s, 1.97e14
    # FLOP/s each), 8192-token caches of 100 kB per token: batch 4 takes at least
    # (4 * 819e6 + 30e9) / (16 * 8.1e11) = 2.5 ms
    cache = 100e3 * 8192
    s4 = StepBound("decode", "quiz", "v5e", 16, 4, 8192, 30e9, int(4 * cache), 2 * 4 * 30e9,
                   16 * 8.1e11, 16 * 1.97e14, "bf16")
    # (33.28e9 B / 1.296e13 B/s = 2.57 ms, which the book writes as 2.5 ms)
    assert 2.5 <= s4.seconds * 1e3 < 2.6 and s4.bound == "memory"
    # at batch 256 the book adds the cache-reading time to the compute-bound matmul time
    # (21 ms); the bound max(bytes/bandwidth, FLOPs/peak) is below it, as a lower bound must be
    s256 = StepBound("decode", "quiz", "v5e", 16, 256, 8192, 30e9, int(256 * cache),
                     2 * 256 * 30e9, 16 * 8.1e11, 16 * 1.97e14, "bf16")
    book = 256 * cache / (16 * 8.1e11) + 2 * 256 * 30e9 / (16 * 1.97e14)
    assert book * 1e3 == pytest.approx(21, abs=0.1)
    assert s256.seconds < book


def _check_inverse(cfg, gpu, n, weights, kv, batch, seq):
    try:
        lim = lc.max_context(cfg, gpu, n, weights, kv, batch=batch)
    except ValueError:
        return 0
    if lim.tokens is None:  # every layer a sliding window: any context fits
        assert lc.memory_plan(cfg, gpu, n, weights, kv, 10**12, batch).fits
        return 1
    s = lim.tokens
    assert lc.memory_plan(cfg, gpu, n, weights, kv, s, batch).fits
    assert not lc.memory_plan(cfg, gpu, n, weights, kv, s + 1, batch).fits
    try:
        b = lc.max_batch(cfg, gpu, n, weights, kv, seq_len=seq)
    except ValueError as e:  # not even one sequence of that length fits
        assert str(e).startswith("seq_len:")
        assert not lc.memory_plan(cfg, gpu, n, weights, kv, seq, 1).fits
        return 1
    assert lc.memory_plan(cfg, gpu, n, weights, kv, seq, b).fits
    assert not lc.memory_plan(cfg, gpu, n, weights, kv, seq, b + 1).fits
    # inverses: at the longest context for batch B, B sequences fit and B+1 do not
    assert lc.max_batch(cfg, gpu, n, weights, kv, seq_len=s) >= batch
    longest = lc.max_context(cfg, gpu, n, weights, kv, batch=b).tokens
    assert longest is None or longest >= seq  # None: every layer a window, any context fits
    return 1


def test_max_context_and_max_batch_are_exact_inverses_random():
    rng = random.Random(7)
    models, gpus = lc.list_models(), lc.list_gpus()
    checked = 0
    for _ in range(300):
        cfg = lc.load_model(rng.choice(models))
        checked += _check_inverse(cfg, rng.choice(gpus), rng.choice([1, 2, 4, 8]),
                                  rng.choice(lc.list_schemes()),
                                  rng.choice(["bf16", "fp8", "int8", "int4"]),
                                  rng.choice([1, 3, 8, 64]), rng.choice([1, 100, 4096, 40000]))
    assert checked > 150


def test_sliding_window_and_mla_limits():
    # gpt-oss alternates 128-token windows with full layers: past 128 tokens only the 12 full
    # layers grow, so the limit is (budget - 12 * 128 * per_token) // (12 * per_token)
    cfg = lc.load_model("gpt-oss-20b")
    per_tok = 2 * 8 * 64 * 2
    usable = 24 * 10**9 * 9 // 10
    budget = usable - 13_761_264_768
    assert lc.max_context(cfg, "RTX 4090").tokens == (budget - 12 * 128 * per_tok) // (12 * per_tok)
    # a model whose every layer is a window has no memory limit on context
    mistral = lc.load_model("Qwen3-8B").replace(layer_types=["sliding_attention"] * 36,
                                                sliding_window=4096)
    lim = lc.max_context(mistral, "H100")
    assert lim.tokens is None and lim.usable_tokens == 40960
    # MLA caches 576 values per token per layer for DeepSeek-V3, on 8 x H200 in fp8
    ds = lc.load_model("DeepSeek-V3")
    assert _check_inverse(ds, "H200", 8, "as shipped", "bf16", 16, 8192) == 1
    lim = lc.max_context(ds, "H200", 8, batch=1)
    budget = 8 * 141 * 10**9 * 9 // 10 - lc.stored_weights(ds).total
    assert lim.tokens == budget // (61 * 576 * 2)


def test_every_zoo_model_limits_are_exact():
    for name in lc.list_models():
        cfg = lc.load_model(name)
        # GLM-5.1's 744B in bf16 (1.49 TB) need two 8 x H200 nodes
        n = 16 if lc.stored_weights(cfg).total > 8 * 141e9 * 0.9 else 8
        assert _check_inverse(cfg, "H200", n, "as shipped", "fp8", 2, 4096) == 1, name


def test_chunked_and_linear_attention_layers():
    # Llama-4-Scout: chunked layers keep at most attention_chunk_size tokens; past the chunk
    # only the full-attention layers grow
    scout = lc.load_model("Llama-4-Scout-17B-16E-Instruct")
    assert _check_inverse(scout, "B200", 8, "bf16", "bf16", 1, 8192) == 1
    n_full = scout.layer_types.count("full_attention")
    n_chunk = scout.layer_types.count("chunked_attention")
    c = scout.attention_chunk_size
    per = lc.kv_cache_bytes_per_token_per_layer(scout)
    budget = 8 * 180 * 10**9 * 9 // 10 - lc.stored_weights(scout, "bf16").total
    assert lc.max_context(scout, "B200", 8, "bf16").tokens == \
        (budget - n_chunk * c * per) // (n_full * per)
    # Qwen3-Next: linear-attention layers keep a fixed state per sequence, not a KV cache
    nxt = lc.load_model("Qwen3-Next-80B-A3B")
    plan = lc.memory_plan(nxt, "H200", 2, "bf16", seq_len=8192, batch=4)
    assert plan.state_bytes == lc.linear_state_bytes(nxt, 4) > 0
    assert plan.total_bytes == plan.weight_bytes + plan.kv_cache_bytes + plan.state_bytes \
        + plan.reserve_bytes
    assert _check_inverse(nxt, "H200", 2, "bf16", "bf16", 4, 8192) == 1


def test_max_position_embeddings_is_reported_beside_the_memory_limit():
    lim = lc.max_context("Qwen3-30B-A3B", "H200")
    assert lim.max_position_embeddings == 40960 and lim.tokens > 40960
    assert lim.usable_tokens == 40960 and lim.limited_by == "max_position_embeddings"
    plan = lc.memory_plan("Qwen3-30B-A3B", "H200", seq_len=65536)
    assert plan.beyond_max_position


def test_memory_plan_parts_add_up_and_reserve_is_vllm_default():
    p = lc.memory_plan("Meta-Llama-3-8B", "L4", weights="int4-g128", kv_dtype="fp8",
                       seq_len=8192, batch=4)
    assert p.capacity_bytes == 24 * 10**9
    assert p.reserve_bytes == 24 * 10**8             # 10%: gpu_memory_utilization = 0.9
    assert p.weight_bytes == lc.stored_weights("Meta-Llama-3-8B", "int4-g128").total
    assert p.kv_cache_bytes == 4 * 8192 * 32 * 2 * 8 * 128   # 1 byte per value in fp8
    assert p.total_bytes == p.weight_bytes + p.kv_cache_bytes + p.reserve_bytes
    assert p.fits == (p.total_bytes <= p.capacity_bytes)


def test_expected_experts_formula_matches_a_simulation():
    rng = random.Random(3)
    for E, k, B, trials in [(128, 8, 1, 300), (128, 8, 16, 1000), (128, 8, 64, 500),
                            (32, 4, 8, 1000), (256, 8, 128, 300), (8, 2, 3, 2000)]:
        seen = [len({e for _ in range(B) for e in rng.sample(range(E), k)})
                for _ in range(trials)]
        mean = sum(seen) / trials
        var = sum((x - mean) ** 2 for x in seen) / (trials - 1)
        formula = lc.expected_experts(E, k, B)
        assert abs(mean - formula) <= 4 * (var / trials) ** 0.5 + 1e-9, (E, k, B)
    assert lc.expected_experts(128, 8, 1) == 8


def test_moe_decode_reads_active_weights_at_batch_1_and_nearly_all_at_large_batch():
    cfg = lc.load_model("Qwen3-30B-A3B")
    pc = lc.param_count(cfg)
    b1 = lc.decode_step_time(cfg, "H100", weights="bf16", seq_len=1, batch=1)
    # bf16: 2 bytes per active parameter, the embedding table read one row at a time
    assert b1.weight_bytes_read == pytest.approx(
        2 * pc.active - 2 * cfg.vocab_size * cfg.hidden_size + 2 * cfg.hidden_size)
    big = lc.decode_step_time(cfg, "H100", weights="bf16", seq_len=1, batch=1024)
    assert big.weight_bytes_read > 0.99 * (2 * pc.total - 2 * cfg.vocab_size * cfg.hidden_size)


def test_decode_throughput_grows_and_per_user_speed_falls_with_batch():
    prev = None
    for b in [1, 2, 4, 8, 16, 64, 256, 1024]:
        s = lc.decode_step_time("Llama-3.1-8B", "H100", seq_len=2048, batch=b)
        if prev:
            assert s.tokens_per_s > prev.tokens_per_s
            assert s.tokens_per_s_per_user <= prev.tokens_per_s_per_user
        prev = s
    assert lc.decode_step_time("Llama-3.1-8B", "H100", seq_len=1, batch=4096).bound == "compute"


def test_prefill_is_compute_bound_for_long_prompts():
    p = lc.prefill_time("Meta-Llama-3-8B", "H100", seq_len=8192, logits="all")
    assert p.bound == "compute"
    assert p.flops == pytest.approx(
        8192 * lc.flops_per_token("Meta-Llama-3-8B", 8192, "prefill").total)
    assert p.seconds == pytest.approx(p.flops / 989.4e12)


@pytest.mark.parametrize("model, vocab, hidden", [("Llama-3.1-8B", 128256, 4096),
                                                  ("gemma-2-2b", 256000, 2304)])
def test_serving_prefill_computes_logits_for_the_last_token_only(model, vocab, hidden):
    # config.json: vocab_size x hidden_size; the lm_head does 2 V d FLOPs per token.
    s = 2048
    train = lc.prefill_time(model, "H100", seq_len=s, logits="all")
    serve = lc.prefill_time(model, "H100", seq_len=s)
    assert train.flops - serve.flops == 2 * vocab * hidden * (s - 1)
    # the saving the issue names: about 6% for Llama-3.1-8B, about 20% for gemma-2-2b
    saving = train.flops / serve.flops - 1
    assert (0.05 < saving < 0.09) if model.startswith("Llama") else (0.17 < saving < 0.30)


def test_logits_mode_is_checked():
    with pytest.raises(lc.ConfigError, match="^logits:"):
        lc.prefill_time("Llama-3.1-8B", "H100", logits="some")


@pytest.mark.parametrize("call, field", [
    (lambda: lc.memory_plan("Qwen3-8B", "H900"), "gpu"),
    (lambda: lc.memory_plan("Qwen3-8B", "H100", n_gpus=0), "n_gpus"),
    (lambda: lc.max_context("Qwen3-8B", "H100", n_gpus=-2), "n_gpus"),
    (lambda: lc.memory_plan("Qwen3-8B", "H100", batch=-1), "batch"),
    (lambda: lc.max_context("Qwen3-8B", "H100", batch=-1), "batch"),
    (lambda: lc.decode_step_time("Qwen3-8B", "H100", batch=-1), "batch"),
    (lambda: lc.max_batch("Qwen3-8B", "H100", seq_len=10**12), "seq_len"),
    (lambda: lc.max_context("Qwen3-8B", "H100", batch=10**15), "batch"),
    (lambda: lc.memory_plan("Qwen3-8B", "H100", kv_dtype="fp6"), "kv_dtype"),
    (lambda: lc.memory_plan("Qwen3-8B", "H100", weights="int3"), "weights"),
    (lambda: lc.max_batch("DeepSeek-V3", "RTX 4090"), "weights"),
    (lambda: lc.memory_plan("Qwen3-8B", "H100", utilization=1.5), "utilization"),
    (lambda: lc.memory_plan("Qwen3-8B", "H100", seq_len=0), "seq_len"),
    (lambda: lc.critical_batch("H100", "int3"), "weights"),
    (lambda: lc.expected_experts(8, 9, 1), "top_k"),
])
def test_bad_input_gets_one_line_naming_the_field(call, field):
    t0 = time.perf_counter()
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).startswith(field + ":") and "\n" not in str(e.value)
    assert time.perf_counter() - t0 < 1


def test_cost_does_not_grow_with_the_size_of_the_numbers():
    t0 = time.perf_counter()
    lc.memory_plan("Qwen3-8B", "H100", n_gpus=4096, seq_len=10**30, batch=10**20)
    lim = lc.max_context("Qwen3-8B", "H100", n_gpus=4096)
    assert lim.tokens > 10**9
    lc.max_batch("Qwen3-8B", "H100", n_gpus=4096, seq_len=10**6)
    lc.decode_step_time("Qwen3-30B-A3B", "H100", batch=10**15, seq_len=10**6)
    assert time.perf_counter() - t0 < 1


def test_a_gpu_count_no_setup_has_is_a_one_line_error():
    with pytest.raises(ValueError) as e:
        lc.memory_plan("Qwen3-8B", "H100", n_gpus=10**9)
    assert str(e.value) == "n_gpus: at most 4,096 GPUs (got 1,000,000,000)"
