"""Exercises for lesson 10, how fast (ids speed-*): the bytes a decode step reads, why GQA
decodes faster, the experts a batch reads, where an MoE turns compute-bound, and a
deployment sized at a latency target."""

from __future__ import annotations

from ..counts import param_count
from ..hardware import load_gpu
from ..inference import critical_batch, decode_step_time, expected_experts
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "10_how_fast"


# --- speed-1: the bytes a batch-1 decode step reads -----------------------------------

SPEED1_TOKENS = 8192     # within every checked model's max_position_embeddings


def _step_bytes(cfg):   # the worked solution
    weights = 2 * param_count(cfg).total                 # bf16
    if not cfg.tie_word_embeddings:                       # a lookup reads one row of the table
        weights -= 2 * cfg.vocab_size * cfg.hidden_size - 2 * cfg.hidden_size
    per_layer = 2 * cfg.num_key_value_heads * cfg.head_dim * 2
    kv = sum(per_layer * (min(SPEED1_TOKENS, cfg.sliding_window)
                          if kind == "sliding_attention" else SPEED1_TOKENS)
             for kind in cfg.layer_types)
    return weights + kv


def _kv(cfg, window=True, factor=2):
    per_layer = factor * cfg.num_key_value_heads * cfg.head_dim * 2
    return sum(per_layer * (min(SPEED1_TOKENS, cfg.sliding_window)
                            if window and kind == "sliding_attention" else SPEED1_TOKENS)
               for kind in cfg.layer_types)


def _weights_read(cfg):
    return _step_bytes(cfg) - _kv(cfg)


# each mistake only where it differs from the right answer (None: it does not apply)
def _whole_table(cfg):
    return None if cfg.tie_word_embeddings else 2 * param_count(cfg).total + _kv(cfg)


def _tied_table_skipped(cfg):
    if not cfg.tie_word_embeddings:
        return None
    return (2 * param_count(cfg).total - 2 * cfg.vocab_size * cfg.hidden_size
            + 2 * cfg.hidden_size + _kv(cfg))


def _window_ignored(cfg):
    slides = any(kind == "sliding_attention" for kind in cfg.layer_types)
    return _weights_read(cfg) + _kv(cfg, window=False) if slides else None


derive(
    "speed-1", NB,
    reference=lambda cfg: int(decode_step_time(cfg, "H200", weights="bf16", kv_dtype="bf16",
                                               seq_len=SPEED1_TOKENS, batch=1).bytes_read),
    cases=("Llama-3.2-1B", "Mistral-Nemo-Base-2407", "gemma-2-2b", "Olmo-3-7B-Instruct",
           "starcoder2-15b", "SmolLM3-3B", "gemma-3-1b-it",
           lambda: load_model("Qwen3-8B").replace(num_key_value_heads=2)),
    why="Untied: every matrix but the embedding table, of which a lookup reads one row, and "
        "the lm_head in full. Tied: the table is the lm_head, read in full every step. The "
        "cache: 2 x n_kv x d_h x 2 B per token in every layer, for 8,192 tokens in a full layer "
        "and at most sliding_window in a sliding one. gemma-3-1b-it's 22 sliding layers keep "
        "512 tokens each, so its 4 full layers hold most of its cache. Over the H200's "
        "4.8 TB/s, gemma-3-1b-it decodes at most 2,347 tokens/s and starcoder2-15b 152.",
    solution=_step_bytes,
    allowed=("param_count",),
    hint="weights read (which rows of the embedding table does a step need, and is the "
         "lm_head the same matrix?) plus every layer's cache, up to the window in a sliding "
         "layer.",
    mistakes=(
        (_whole_table, "that reads the whole embedding table; an untied embedding is only "
                       "looked up, one row per token (the lm_head, a separate matrix, is read "
                       "in full)"),
        (_tied_table_skipped, "with tied embeddings the table is the lm_head: every step "
                              "multiplies the hidden state by all of it, so it is read in "
                              "full"),
        (_window_ignored, "that lets every layer read 8,192 tokens: a sliding-window layer "
                          "keeps and reads at most sliding_window of them"),
        (_weights_read, "that leaves out the KV cache: every step reads all 8,192 cached "
                        "tokens of every layer"),
        (lambda cfg: _weights_read(cfg) + _kv(cfg, factor=1),
         "that reads one vector per KV head and token: every layer caches a key and a value"),
    ),
    wrong=(lambda cfg: _weights_read(cfg) + _kv(cfg)                       # lesson's cell,
           - (0 if not cfg.tie_word_embeddings                               # tied or not
              else 2 * cfg.vocab_size * cfg.hidden_size - 2 * cfg.hidden_size),
           lambda cfg: 2 * param_count(cfg).total + _kv(cfg),                # every table whole
           lambda cfg: _weights_read(cfg) + _kv(cfg, window=False),          # no window
           _weights_read,
           lambda cfg: _weights_read(cfg) + _kv(cfg, factor=1)),
)

concept(
    "speed-2", NB,
    "a",
    {"b": "GQA keeps all 32 query heads; only the K and V heads are shared. And decode time is "
          "set by bytes read, not FLOPs.",
     "c": "GQA changes only k_proj and v_proj; the MLP is untouched.",
     "d": "Clock speed does not depend on the cache size; the bound is bytes / bandwidth."},
    why="The bytes per step are weights + cache, and the cache part shrinks 4x. MLA "
        "(DeepSeek-V3) goes further: 576 cached values per layer and token instead of the "
        "128 x (192 + 128) = 40,960 its heads would cache uncompressed (lesson 8). Decode is "
        "memory-bound: time per step is at least bytes read / bandwidth, and at long context "
        "the cache is a large part of the bytes.",
)

predict(
    "speed-3", NB,
    expected=lambda: expected_experts(128, 8, 16),
    why="An expert escapes one token with probability 1 - 8/128 = 15/16, and all 16 tokens with "
        "(15/16)^16 = 0.356, so 128 x (1 - 0.356) = 82.4 experts are read: 64.4% of the experts' "
        "bytes for 16 users, where one user reads 8/128 = 6.25%. Real routers are skewed, so "
        "this is an assumption, not a measurement.",
    hint="work with the chance that one given expert is picked by none of the 16 tokens.",
    rel_tol=0.01, unit="experts",
    mistakes=(
        (lambda: 8 * 16, "16 x 8 = 128 picks would reach 128 experts only if no two tokens ever "
                         "chose the same one; the tokens choose independently, so some picks "
                         "land on experts already chosen"),
        (lambda: 8, "that is batch 1: with 16 tokens, each picks its own 8"),
    ),
    wrong=(128, 8, 50.0),
)

concept(
    "speed-4", NB,
    "d",
    {"a": "That is batch 1. With 256 tokens, each picking 8 of 128 experts, an expert escapes "
          "all of them with probability (15/16)^256, about 7e-8.",
     "b": "An H100 has 50 MB of L2 cache, a thousand times too small for 61 GB of weights.",
     "c": "A weight read once serves every token in the batch: bytes do not multiply with "
          "batch, FLOPs do."},
    why="128 x (1 - (15/16)^256) is 128.0 experts, so the step reads almost all 61 GB. Memory "
        "follows total parameters always; bandwidth follows active ones only at small batch. "
        "Under uniform routing a step touches E(1 - (1 - k/E)^B) experts: k at B = 1, nearly E "
        "by B = 64 for Qwen3-30B-A3B.",
)


def _moe_critical():
    from ..serving_systems import moe_critical_batch
    return moe_critical_batch("Qwen3-30B-A3B", "H100", "bf16").moe_critical_batch


predict(
    "speed-5", NB,
    expected=_moe_critical,
    why="Each expert's matmul sees B x k / E tokens on average, so it reaches the H100's "
        "295 FLOPs per byte only when B x 8 / 128 >= 295: B >= 295 x 16 = 4,725 sequences. "
        "Qwen3-30B-A3B's routed experts stay bandwidth-bound at any batch a single H100 can "
        "hold in memory; the attention projections, shared by every token, turn compute-bound "
        "at 295 like a dense model's.",
    hint="how many tokens does one expert see per step, on average, when each of B tokens "
         "picks k of E experts?",
    rel_tol=0.02, unit="sequences",
    mistakes=(
        (lambda: critical_batch("H100", "bf16"), "that is a dense matrix's critical batch: "
                                                 "an expert sees only a share of the batch"),
        (lambda: critical_batch("H100", "bf16") * 8 / 128, "the ratio is the other way up: "
                                                           "each expert sees fewer tokens than "
                                                           "the batch, so the batch must be "
                                                           "larger"),
    ),
    wrong=(295.3, 18.5, 10**6),
)



# --- speed-6: a deployment at a latency target -----------------------------------------

# the scenario the prompt fixes, and the release it plans with (pinned, like fit-5's, so
# that a newer default release does not move the exercise under the student)
SPEED6 = dict(model="Llama-3.1-8B", users=64, max_model_len=8192, tpot_s=0.015, max_gpus=2,
              release="0.31")
_KV_DTYPES = {"auto": "bf16", "bf16": "bf16", "fp8": "fp8", "fp8_e4m3": "fp8"}


def _deployment_ok(answer):
    from ..config import ConfigError
    from ..hardware import as_gpu
    from ..serving import decode_step_per_gpu, vllm_plan
    keys = ("gpu", "tensor_parallel_size", "kv_cache_dtype")
    if not isinstance(answer, dict) or not set(keys) <= set(answer):
        return False, ("give a dict: {'gpu': ..., 'tensor_parallel_size': ..., "
                       "'kv_cache_dtype': ...}")
    tp, kv = answer["tensor_parallel_size"], answer["kv_cache_dtype"]
    if kv not in _KV_DTYPES:
        return False, (f"kv_cache_dtype: 'auto' (the model's bf16) or 'fp8' here "
                       f"(got {kv!r})")
    if isinstance(tp, int) and not isinstance(tp, bool) and tp > SPEED6["max_gpus"]:
        return False, f"at most {SPEED6['max_gpus']} GPUs, not {tp}"
    try:
        gpu = as_gpu(answer["gpu"])
        plan = vllm_plan(SPEED6["model"], gpu, tensor_parallel_size=tp,
                         max_model_len=SPEED6["max_model_len"],
                         kv_cache_dtype="fp8" if _KV_DTYPES[kv] == "fp8" else "auto",
                         vllm_version=SPEED6["release"])
    except ConfigError as e:
        return False, str(e)
    users, mml = SPEED6["users"], SPEED6["max_model_len"]
    if not plan.starts:
        return False, f"vLLM would refuse to start on {tp} x {gpu.name}: {plan.reason}"
    if plan.concurrent_requests < users:
        return False, (f"it starts, but {tp} x {gpu.name} holds {plan.concurrent_requests} "
                       f"requests of {mml:,} tokens at once ({plan.kv_tokens:,} KV tokens per "
                       f"GPU), fewer than {users}")
    step = decode_step_per_gpu(SPEED6["model"], gpu, tp, "bf16", _KV_DTYPES[kv], mml, users)
    ms = step.seconds * 1e3
    if step.seconds > SPEED6["tpot_s"]:
        return False, (f"it holds the {users} requests, but a step at batch {users} with every "
                       f"cache full takes at least {ms:.1f} ms per token on each GPU, over the "
                       f"{SPEED6['tpot_s'] * 1e3:.0f} ms target: read fewer bytes per GPU "
                       f"(a faster memory, more GPUs, a smaller cache)")
    return True, (f"It meets the target: {plan.concurrent_requests} requests of {mml:,} tokens "
                  f"fit on {tp} x {gpu.name}, and a step at batch {users} reads "
                  f"{(step.weight_bytes_read + step.kv_bytes) / 1e9:.1f} GB per GPU in at least "
                  f"{ms:.1f} ms: at most {users / step.seconds:,.0f} tokens/s for the {users} "
                  f"users together. A bound: measure at this load before you buy.")


design(
    "speed-6", NB,
    validate=_deployment_ok,
    why="In bf16 one sequence of 8,192 tokens caches 1.07 GB, so 64 of them hold 68.7 GB "
        "beside 16 GB of weights. One H100 in bf16 holds 55 such requests and would take "
        "25 ms a step; an fp8 cache halves both the memory and the reading (14.7 ms), and "
        "TP=2 halves what each GPU reads (12.6 ms). An H200 in bf16 holds them but needs 17.4 "
        "ms; a B200 needs 10.5.",
    solution={"gpu": "H100 SXM 80GB", "tensor_parallel_size": 2, "kv_cache_dtype": "auto"},
    hint="two constraints: vLLM must hold 64 requests of 8,192 tokens (lc.vllm_plan's "
         "concurrent_requests), and one step must read the weights and all 64 caches, per "
         "GPU, within 15 ms of its bandwidth.",
    wrong=({"gpu": "H100 SXM 80GB", "tensor_parallel_size": 1, "kv_cache_dtype": "auto"},
           {"gpu": "H200 SXM 141GB", "tensor_parallel_size": 1, "kv_cache_dtype": "auto"},
           {"gpu": "A100 SXM 80GB", "tensor_parallel_size": 2, "kv_cache_dtype": "auto"},
           {"gpu": "H100 SXM 80GB", "tensor_parallel_size": 4, "kv_cache_dtype": "auto"},
           "H100"),
)
