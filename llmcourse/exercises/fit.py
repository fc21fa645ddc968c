"""Exercises for lesson 9, will it fit (ids fit-*): weights as shipped, the longest
context, a setup within a memory budget, tensor parallelism's KV heads, vLLM's budget."""

from __future__ import annotations

from ..counts import param_count
from ..hardware import list_gpus, load_gpu
from ..inference import max_context, memory_plan
from ..quantization import list_schemes, stored_weights
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "09_will_it_fit"
GB = 10**9


# --- fit-1: a 70B model in int4, as stored -------------------------------------------

FIT1_MODEL = "Meta-Llama-3-70B"


def _split(model=FIT1_MODEL):
    """(parameters in the layers' matrices, parameters kept in bf16)."""
    pc = param_count(load_model(model))
    kept = pc.embedding + pc.components["lm_head"] + pc.components["norms"]
    return pc.total - kept, kept


def _no_scales():
    mm, kept = _split()
    return (mm / 2 + 2 * kept) / GB


def _all_int4():
    mm, kept = _split()
    return (mm + kept) * (0.5 + 2.5 / 128) / GB


predict(
    "fit-1", NB,
    expected=lambda: stored_weights(FIT1_MODEL, "int4-g128").total / GB,
    why="The layers' matrices (68.45 billion parameters) take half a byte each plus 2.5 bytes "
        "of scale and zero point per group of 128: 34.23 + 1.34 GB. The embedding, the "
        "lm_head and the norms (2.10 billion parameters) stay in bf16: 4.21 GB. Stored: "
        "39.77 GB, 12.7% over the idealised 35.28 GB. For Qwen3-8B the same rule gives 6.10 GB, "
        "49% over its 4.10: the 16-bit embedding and lm_head are a fixed cost that a larger "
        "model spreads over more layers.",
    hint="split the parameters into the layers' matrices (quantized) and the rest (kept in "
         "16-bit); lc.param_count(cfg).components names both.",
    rel_tol=0.01, unit="GB",
    mistakes=(
        (lambda: stored_weights(FIT1_MODEL, "int4-g128").ideal / GB,
         "that is the idealised figure, every parameter at 4 bits: the embedding, the "
         "lm_head and the norms stay in bf16, and every group of 128 values carries a "
         "scale and a zero point"),
        (_no_scales, "you left out the scales and zero points: 2 + 0.5 bytes for every "
                     "group of 128 inputs of every row"),
        (_all_int4, "the embedding, the lm_head and the norms are not quantized: they stay "
                    "in bf16, 2 bytes each"),
    ),
    wrong=(35.28, 38.43, 141.11, 37.04),
)


# --- fit-2: the longest context beside the weights -----------------------------------

USABLE = 72 * 10**9     # the idealised plan's u = 0.9 of an H100's 80e9 B


def _sliding_layers(cfg):
    return sum(kind == "sliding_attention" for kind in cfg.layer_types)


def _longest_context(cfg):  # the worked solution, in the notebook's own terms
    usable = USABLE
    weights = 2 * param_count(cfg).total     # bf16
    per_layer = 2 * cfg.num_key_value_heads * cfg.head_dim * 2      # K and V of one token, bf16
    n_slide = _sliding_layers(cfg)
    n_full = cfg.num_hidden_layers - n_slide
    budget = usable - weights - n_slide * (cfg.sliding_window or 0) * per_layer
    return budget // (n_full * per_layer)


def _tokens(usable=USABLE, every_layer_full=False, kv_factor=2):
    def tokens(cfg):
        per_layer = kv_factor * cfg.num_key_value_heads * cfg.head_dim * 2
        n_slide = 0 if every_layer_full else _sliding_layers(cfg)
        budget = usable - 2 * param_count(cfg).total \
            - n_slide * (cfg.sliding_window or 0) * per_layer
        return budget // ((cfg.num_hidden_layers - n_slide) * per_layer)
    return tokens


def _every_layer_full(cfg):
    """Sliding layers counted as full: a mistake only where the model has any (on a model
    without them it is the right answer, and says nothing)."""
    return _tokens(every_layer_full=True)(cfg) if _sliding_layers(cfg) else None


_no_reserve = _tokens(80 * 10**9)
_gib = _tokens(int(0.9 * 80 * 2**30))
_k_or_v_only = _tokens(kv_factor=1)

derive(
    "fit-2", NB,
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
    allowed=("param_count",),
    hint="usable bytes minus weight bytes, divided by the bytes one more token adds: a key "
         "and a value per KV head in every layer that still grows.",
    mistakes=(
        (_no_reserve, "that fills all 80 GB: the idealised plan keeps 10% in reserve "
                      "(u = 0.9), so the usable memory is 72e9 bytes"),
        (_gib, "that reads the H100's \"80 GB\" as 80 GiB (2**30 bytes): the datasheet's GB "
               "is 10**9 bytes, 7.4% less"),
        (_k_or_v_only, "that stores one vector per KV head and token: every layer keeps a key "
                       "and a value, 2 x num_key_value_heads x head_dim values"),
        (_every_layer_full, "that lets every layer grow with the sequence: a sliding-window "
                            "layer keeps at most sliding_window tokens, a fixed cost"),
    ),
    wrong=(_tokens(every_layer_full=True), _no_reserve, _gib, _k_or_v_only),
)


# --- fit-3: a setup within a memory budget ---------------------------------------------

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
    if total > 40 * GB:
        return False, (f"{answer['n_gpus']} x {gpu.name} is {total / GB:,.0f} GB of GPU memory, "
                       "more than the 40 GB allowed")
    if not plan.fits:
        return False, (f"on {answer['n_gpus']} x {gpu.name} it needs "
                       f"{plan.total_bytes / GB:,.2f} GB with the reserve: "
                       f"{-plan.free_bytes / GB:,.2f} GB short")
    return True, (f"It fits: {plan.weight_bytes / GB:,.2f} GB of weights + "
                  f"{plan.kv_cache_bytes / GB:,.2f} GB of cache + {plan.reserve_bytes / GB:,.2f} "
                  f"GB reserve on {total / GB:,.0f} GB.")


design(
    "fit-3", NB,
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

# every GPU and scheme a reader can name in fit-3 is in the table
assert "A100 SXM 40GB" in list_gpus() and "int4-g128" in list_schemes()


# --- fit-4: KV heads under tensor parallelism -----------------------------------------

concept(
    "fit-4", NB,
    "c",
    {"a": "That is the ideal pool. A KV head cannot be split: at TP=4 each GPU already holds one "
          "head, and at TP=8 two GPUs hold a copy of each.",
     "b": "Per GPU nothing doubles; the total over the 8 GPUs does (each head is held twice).",
     "d": "vLLM accepts a TP size that is a multiple of the KV heads and replicates each head on "
          "TP / num_key_value_heads GPUs."},
    why="Each GPU needs whole the KV heads its query heads read, and a KV head is not split: "
        "vLLM gives each rank max(1, num_key_value_heads / TP) of them, 1 at TP=4 and 1 at "
        "TP=8. At TP=8 the cache over all GPUs is twice what the model needs.",
)


# --- fit-5: today's vLLM budget on two L40S ------------------------------------------

# the release and the utilization the prompt fixes (today's vLLM, its default utilization),
# pinned so that a newer default release does not move the exercise under the student
FIT5_RELEASE, FIT5_UTILIZATION = "0.31", 0.92


def _refusal(reason):
    """vLLM's refusal without the fix it suggests: the exercise fixes the utilization."""
    return reason.split(" Try ")[0].rstrip(".")


def _serve_32b_ok(answer):
    from ..config import ConfigError
    from ..serving import vllm_plan
    if not isinstance(answer, dict) or not {"tensor_parallel_size", "max_model_len"} <= set(answer):
        return False, "give a dict: {'tensor_parallel_size': ..., 'max_model_len': ...}"
    tp, mml = answer["tensor_parallel_size"], answer["max_model_len"]
    if isinstance(tp, int) and tp > 2:
        return False, f"there are two L40S, not {tp}"
    try:
        plan = vllm_plan("Qwen3-32B", "L40S", tensor_parallel_size=tp, max_model_len=mml,
                         gpu_memory_utilization=FIT5_UTILIZATION, vllm_version=FIT5_RELEASE)
    except ConfigError as e:
        return False, str(e)
    if not plan.starts:
        if plan.kv_budget_bytes <= 0 or plan.num_blocks == 0:
            return False, (f"vLLM would refuse to start: {_refusal(plan.reason)}: at "
                           f"tensor_parallel_size={tp} the weights leave no room for the cache "
                           f"at the {FIT5_UTILIZATION} this exercise fixes")
        return False, (f"vLLM would refuse to start: {_refusal(plan.reason)}; a shorter "
                       "max_model_len would start")
    if mml < 8192:
        return False, f"max_model_len {mml:,} is below the 8,192 tokens asked for"
    c = plan.max_concurrency
    if c < 4:
        shown = f"{c:.2f}" if round(c, 2) < 4 else f"just under 4 ({c:.4f})"
        return False, (f"it starts, but holds {shown} requests of {mml:,} tokens "
                       f"({plan.kv_tokens:,} KV tokens per GPU), fewer than 4")
    return True, (f"It starts: {plan.kv_tokens:,} KV tokens per GPU, {c:.2f} requests of "
                  f"{mml:,} tokens at once.")


design(
    "fit-5", NB,
    validate=_serve_32b_ok,
    why="One L40S cannot hold the 61 GiB of weights; TP=2 puts 30.52 GiB on each of the "
        "40.87 GiB today's vLLM may use (0.92 x the 44.42 GiB an L40S reports). It also "
        "subtracts a profiling peak (an estimate: 256 rows x 151,936 logits x 14 B with "
        "FlashInfer's sampler, 0.53 GiB) and non-torch memory (0.55 GiB, stated); a dense "
        "Qwen3 runs on Model Runner V2, which subtracts no CUDA-graph estimate. That leaves "
        "9.26 GiB of KV cache per GPU: 75,872 tokens at 128 KiB per token per GPU (4 of the 8 "
        "KV heads). Any max_model_len from 8,192 to 18,960 holds 4 requests or more; the "
        "default of 40,960 starts but holds 1.85. Under vLLM 0.11 (0.9, the PyTorch sort's "
        "38 B a logit) the limit was 15,368.",
    solution={"tensor_parallel_size": 2, "max_model_len": 16384},
    hint="per GPU: the weights divided by the tensor-parallel size, then the KV heads each GPU "
         "keeps; concurrency = KV tokens / max_model_len. lc.vllm_plan (or the explorer's "
         "vLLM rows) tries a setting.",
    wrong=({"tensor_parallel_size": 1, "max_model_len": 8192},
           {"tensor_parallel_size": 2, "max_model_len": 40960},
           {"tensor_parallel_size": 2, "max_model_len": 18961},
           {"tensor_parallel_size": 3, "max_model_len": 16384}),
)
