"""Exercises for lesson 07, will it fit and how fast (ids inf-*)."""

from __future__ import annotations

from ..counts import param_count
from ..hardware import list_gpus, load_gpu
from ..inference import decode_step_time, expected_experts, max_context, memory_plan
from ..quantization import list_schemes
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "07_will_it_fit_and_how_fast"


def _llama_h200():
    return decode_step_time("Llama-3.1-8B", "H200", weights="bf16", seq_len=32768)


# the pieces of inf-1's common mistakes, from the config and the GPU table (not typed in)
def _h200_bw():
    return load_gpu("H200").bandwidth_bytes_per_s


def _llama_bf16():
    return 2 * param_count(load_model("Llama-3.1-8B")).total


def _llama_embedding():
    c = load_model("Llama-3.1-8B")
    return 2 * c.vocab_size * c.hidden_size


def _llama_kv():
    c = load_model("Llama-3.1-8B")
    return 32768 * 2 * c.num_hidden_layers * c.num_key_value_heads * c.head_dim * 2


predict(
    "inf-1", NB,
    expected=lambda: _llama_h200().tokens_per_s_per_user,
    why="One step reads every weight matrix (16.06 GB minus the 1.05 GB embedding table, of "
        "which it looks up a single row) and the whole cache (32,768 x 131,072 B = 4.29 GB): "
        "19.30 GB / 4.8e12 B/s = 4.02 ms, so at most 249 tokens/s. The FLOPs (about 32 GFLOP: "
        "16 for the weights, 16 more for attention over 32,768 keys) take 0.03 ms at 989 "
        "TFLOP/s: decode at batch 1 is bandwidth-bound by over 100x.",
    hint="time per step >= (bytes of weights read + bytes of KV cache read) / bandwidth; the "
         "cache holds 2 x layers x KV heads x head_dim x 2 bytes per token.",
    rel_tol=0.02, unit="tokens/s",
    mistakes=(
        (lambda: _h200_bw() / (_llama_bf16() + _llama_kv()),
         "that reads the whole embedding table, but a decode step only looks up one row per "
         "token (the lm_head, a separate matrix in Llama-3.1-8B, is read in full)"),
        (lambda: _h200_bw() / (_llama_bf16() - _llama_embedding()),
         "that leaves out the KV cache: every step reads all 32,768 cached tokens of every "
         "layer"),
        (lambda: _h200_bw() / _llama_bf16(),
         "that counts the weights only: every step also reads the whole KV cache"),
    ),
    wrong=(4.8e12 / (2 * 8030261248 + 32768 * 131072), 4.8e12 / (2 * 8030261248), 1000.0),
)

predict(
    "inf-2", NB,
    expected=lambda: expected_experts(128, 8, 16),
    why="An expert escapes one token with probability 1 - 8/128 = 15/16, and all 16 tokens with "
        "(15/16)^16 = 0.356, so 128 x (1 - 0.356) = 82.4 experts are read: 64.4% of the experts' "
        "bytes for 16 users, where one user reads 8/128 = 6.25%. Real routers are skewed, so "
        "this is an assumption, not a measurement.",
    hint="the chance that a given expert is picked by none of the tokens.",
    rel_tol=0.01, unit="experts",
    mistakes=(
        (lambda: 8 * 16, "128 is every expert, which 16 x 8 picks reach only if no two tokens "
                         "share one; the tokens pick independently, so many picks land on the "
                         "same experts, and an expert is skipped by all 16 with probability "
                         "(1 - 8/128)^16"),
        (lambda: 8, "that is batch 1: with 16 tokens, each picks its own 8"),
    ),
    wrong=(128, 8, 50.0),
)


def _longest_context(cfg):  # the worked solution, in the notebook's own terms
    usable = 72 * 10**9                      # 90% of 80e9 B: vLLM's gpu_memory_utilization
    weights = 2 * param_count(cfg).total     # bf16
    per_layer = 2 * cfg.num_key_value_heads * cfg.head_dim * 2      # K and V of one token, bf16
    n_slide = sum(kind == "sliding_attention" for kind in cfg.layer_types)
    n_full = cfg.num_hidden_layers - n_slide
    budget = usable - weights - n_slide * (cfg.sliding_window or 0) * per_layer
    return budget // (n_full * per_layer)


def _every_layer_full(cfg):   # a sliding layer's cache taken to grow like a full one
    per_token = 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * cfg.head_dim * 2
    return (72 * 10**9 - 2 * param_count(cfg).total) // per_token


def _no_reserve(cfg):
    return _with_usable(cfg, 80 * 10**9)


def _gib(cfg):
    return _with_usable(cfg, int(0.9 * 80 * 2**30))


def _with_usable(cfg, usable):
    per_layer = 2 * cfg.num_key_value_heads * cfg.head_dim * 2
    n_slide = sum(kind == "sliding_attention" for kind in cfg.layer_types)
    budget = usable - 2 * param_count(cfg).total - n_slide * (cfg.sliding_window or 0) * per_layer
    return budget // ((cfg.num_hidden_layers - n_slide) * per_layer)


derive(
    "inf-3", NB,
    reference=lambda cfg: max_context(cfg, "H100 SXM 80GB", weights="bf16").tokens,
    cases=("Llama-3.1-8B", "Qwen3-14B", "Mistral-Nemo-Base-2407", "Qwen2-7B", "gpt-oss-20b",
           "gemma-2-2b", lambda: load_model("Llama-3.1-8B").replace(num_key_value_heads=2)),
    why="usable = 0.9 x 80e9 B. A full-attention layer adds 2 x n_kv x d_h x 2 B per token; a "
        "sliding layer stops at sliding_window tokens, so past the window only the full layers "
        "grow: tokens = (usable - weights - n_sliding x window x per_layer) // (n_full x "
        "per_layer). gpt-oss-20b's 12 sliding layers of 128 tokens cost almost nothing, so its "
        "memory limit is about twice what 24 full layers would allow. The cache per token does "
        "not depend on the query heads at all: the what-if with 2 KV heads fits 4x the tokens "
        "of the shipped 8.",
    solution=_longest_context,
    hint="usable bytes minus weight bytes, divided by what one more token adds to the cache; "
         "ask which layers still grow once the sequence is longer than the window.",
    wrong=(_every_layer_full, _no_reserve, _gib),
)


def _design_ok(answer):
    if not isinstance(answer, dict):
        return False, ("give a dict: {'gpu': ..., 'n_gpus': ..., 'weights': ..., "
                       "'kv_dtype': ...}")
    missing = [k for k in ("gpu", "n_gpus", "weights", "kv_dtype") if k not in answer]
    if missing:
        return False, f"the dict needs {', '.join(missing)}"
    gpu = load_gpu(answer["gpu"])
    plan = memory_plan("Qwen3-30B-A3B", gpu, answer["n_gpus"], answer["weights"],
                       answer["kv_dtype"], seq_len=32768, batch=8)
    total = plan.capacity_bytes
    if total > 40 * 10**9:
        return False, (f"{answer['n_gpus']} x {gpu.name} is {total / 1e9:,.0f} GB of GPU memory, "
                       "more than the 40 GB allowed")
    if not plan.fits:
        return False, (f"on {answer['n_gpus']} x {gpu.name} it needs "
                       f"{plan.total_bytes / 1e9:,.2f} GB with the reserve: "
                       f"{-plan.free_bytes / 1e9:,.2f} GB short")
    return True, (f"It fits: {plan.weight_bytes / 1e9:,.2f} GB of weights + "
                  f"{plan.kv_cache_bytes / 1e9:,.2f} GB of cache + {plan.reserve_bytes / 1e9:,.2f} "
                  f"GB reserve on {total / 1e9:,.0f} GB.")


design(
    "inf-4", NB,
    validate=_design_ok,
    why="In bf16 the weights alone are 61 GB. int4 with group-128 scales brings them to 16.8 GB "
        "(not 15.3: scales, zero points and the 16-bit embedding, lm_head, norms and router "
        "cost 1.5 GB), and 8 x 32,768 tokens of cache are 25.8 GB in bf16, 12.9 in fp8 and 6.4 in "
        "int4. One A100 40GB (36 GB usable) holds int4 weights with an fp8 or int4 cache; two "
        "TPU v5e chips (28.8 GB usable) need int4 for both.",
    solution={"gpu": "A100 SXM 40GB", "n_gpus": 1, "weights": "int4-g128", "kv_dtype": "fp8"},
    hint="add up weights (try a smaller scheme) and 8 caches (try a smaller cache dtype) and "
         "compare with 90% of the memory.",
    wrong=({"gpu": "H100 SXM 80GB", "n_gpus": 1, "weights": "bf16", "kv_dtype": "bf16"},
           {"gpu": "A100 SXM 40GB", "n_gpus": 1, "weights": "int4-g128", "kv_dtype": "bf16"},
           {"gpu": "L40S 48GB", "n_gpus": 1, "weights": "int4-g128", "kv_dtype": "fp8"},
           "A100"),
)

concept(
    "inf-5", NB,
    "b",
    {"a": "GQA keeps all 32 query heads; only the K and V heads are shared. And decode time is "
          "set by bytes read, not FLOPs.",
     "b": "The bytes per step are weights + cache, and the cache part shrinks 4x. MLA "
          "(DeepSeek) goes further: 576 cached values per layer instead of 2 x 128 x 128.",
     "c": "GQA changes only k_proj and v_proj; the MLP is untouched.",
     "d": "Clock speed does not depend on the cache size; the bound is bytes / bandwidth."},
    why="Decode is memory-bound: time per step is at least bytes read / bandwidth, and at long "
        "context the cache is a large part of the bytes.",
)

concept(
    "inf-6", NB,
    "b",
    {"a": "That is batch 1. With 256 tokens, each picking 8 of 128 experts, an expert escapes "
          "all of them with probability (15/16)^256, about 7e-8.",
     "b": "128 x (1 - (15/16)^256) is 128.0 experts, so the step reads almost all 61 GB. "
          "Memory follows total parameters always; bandwidth follows active ones only at small "
          "batch.",
     "c": "A weight read once serves every token in the batch: bytes do not multiply with "
          "batch, FLOPs do.",
     "d": "An H100 has 50 MB of L2 cache, a thousand times too small for 61 GB of weights."},
    why="Under uniform routing a step touches E(1 - (1 - k/E)^B) experts: k at B = 1, nearly E "
        "by B = 64 for Qwen3-30B-A3B.",
)

# every GPU and scheme a reader can name in inf-4 is in the table
assert "A100 SXM 40GB" in list_gpus() and "int4-g128" in list_schemes()


def _serve_32b_ok(answer):
    from ..config import ConfigError
    from ..serving import vllm_plan
    if not isinstance(answer, dict) or not {"tensor_parallel_size", "max_model_len"} <= set(answer):
        return False, "give a dict: {'tensor_parallel_size': ..., 'max_model_len': ...}"
    tp, mml = answer["tensor_parallel_size"], answer["max_model_len"]
    if isinstance(tp, int) and tp > 2:
        return False, f"there are two L40S, not {tp}"
    try:
        plan = vllm_plan("Qwen3-32B", "L40S", tensor_parallel_size=tp, max_model_len=mml)
    except ConfigError as e:
        return False, str(e)
    if not plan.starts:
        return False, f"vLLM would refuse: {plan.reason}"
    if mml < 8192:
        return False, f"max_model_len {mml:,} is below the 8,192 tokens asked for"
    if plan.max_concurrency < 4:
        return False, (f"it starts, but holds {plan.max_concurrency:.2f} requests of {mml:,} "
                       f"tokens ({plan.kv_tokens:,} KV tokens per GPU), fewer than 4")
    return True, (f"starts: {plan.kv_tokens:,} KV tokens per GPU, {plan.max_concurrency:.2f} "
                  f"requests of {mml:,} tokens at once")


design(
    "inf-7", NB,
    validate=_serve_32b_ok,
    why="One L40S cannot hold the 61 GiB of weights; TP=2 puts 30.5 GiB on each of the 39.98 GiB "
        "vLLM may use (0.9 x the 44.42 GiB an L40S reports) and leaves about 7.5 GiB of KV cache "
        "per GPU (an estimate: the profiling run's sampler peak, 256 rows x 151,936 logits x 38 "
        "B = 1.4 GiB, and non-torch memory are not exact), about 61,000 tokens at 128 KiB per "
        "token per GPU (4 of the 8 KV heads). The default max_model_len of 40,960 starts but "
        "holds 1.5 requests, 16,384 holds 3.75, 12,288 holds 5.0.",
    solution={"tensor_parallel_size": 2, "max_model_len": 12288},
    hint="weights per GPU = 61 GiB / TP; KV per token per GPU = 64 layers x 2 x (8 / TP) heads "
         "x 128 x 2 bytes; concurrency = KV tokens / max_model_len.",
    wrong=({"tensor_parallel_size": 1, "max_model_len": 8192},
           {"tensor_parallel_size": 2, "max_model_len": 40960},
           {"tensor_parallel_size": 2, "max_model_len": 16384},
           {"tensor_parallel_size": 3, "max_model_len": 16384}),
)

concept(
    "inf-8", NB,
    "c",
    {"a": "That is the ideal pool. A KV head cannot be split: at TP=4 each GPU already holds one "
          "head, and at TP=8 two GPUs hold a copy of each.",
     "b": "Per GPU nothing doubles; the total over the 8 GPUs does (each head is held twice).",
     "d": "vLLM accepts a TP size that is a multiple of the KV heads and replicates each head on "
          "TP / num_key_value_heads GPUs."},
    why="vLLM gives each rank max(1, num_key_value_heads / TP) KV heads: 1 at TP=4 and at TP=8. "
        "At TP=8 the cache over all GPUs is twice what the model needs.",
)
