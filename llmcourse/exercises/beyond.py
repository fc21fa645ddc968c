"""Exercises for lessons 03 and 04, beyond GQA: the caches that shrink (ids shrink-*: MLA,
sliding windows, KV shared across layers) and the caches that stop growing (ids state-*:
sparse attention's indexer, compressed KV, linear attention and Mamba-2 state).

Every expected value is computed by the engine when the reader checks; no answer here is
printed in a notebook above its exercise.
"""

from __future__ import annotations

from ..config import ConfigError
from ..counts import flops_per_token, kv_cache_bytes, linear_state_bytes
from ..units import GB, GiB
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

SHRINK = "03_caches_that_shrink"
STATE = "04_caches_that_stop_growing"


# === lesson 03: caches that shrink =========================================================

# --- shrink-1: derive bytes per token for standard attention and MLA ----------------------

def _kv_bytes_per_token_solution(cfg):
    """The worked solution: bytes one token adds over all layers, bf16."""
    if cfg.uses_mla:
        values = cfg.kv_lora_rank + cfg.qk_rope_head_dim       # one latent + the RoPE key
    else:
        values = 2 * cfg.num_key_value_heads * cfg.head_dim   # a K and a V per KV head
    return values * cfg.num_hidden_layers * 2                 # every layer, 2 bytes


def _mla_what_if():
    """A config no notebook shows: DeepSeek-V3 with a latent half as wide."""
    return load_model("DeepSeek-V3").replace(kv_lora_rank=256)


def _mla_twice(cfg):   # the latent cached once for K and once for V
    return 2 * _kv_bytes_per_token_solution(cfg) if cfg.uses_mla else None


def _mla_as_heads(cfg):   # MLA's num_key_value_heads read as if it were GQA
    return 2 * cfg.num_key_value_heads * cfg.head_dim * cfg.num_hidden_layers * 2


def _mla_no_rope(cfg):   # the latent without its shared RoPE key
    return cfg.kv_lora_rank * cfg.num_hidden_layers * 2 if cfg.uses_mla else None


derive(
    "shrink-1", SHRINK,
    reference=lambda cfg: kv_cache_bytes(cfg, 1, 1, "bf16"),
    cases=["Qwen3-8B", "DeepSeek-V2", "GLM-4.7-Flash", "Kimi-K2.5", "gemma-2-2b",
           _mla_what_if],
    why="Standard attention caches a K and a V vector per KV head in every layer: "
        "2 · n_kv · d_h values. MLA caches one latent of kv_lora_rank values plus one "
        "shared RoPE key of qk_rope_head_dim values, once, not once for K and once for V; "
        "its num_key_value_heads says how many heads the latent is expanded to, not what "
        "is cached.",
    solution=_kv_bytes_per_token_solution,
    hint="Branch on cfg.uses_mla: MLA keeps one compressed vector and one RoPE key per layer; "
         "the rest keep a K and a V per KV head.",
    unit="bytes",
    mistakes=(
        (_mla_twice, "that caches MLA's latent twice, once for K and once for V: it is "
                     "stored once and expanded into both"),
        (_mla_as_heads, "that treats MLA's num_key_value_heads as cached heads: MLA caches "
                        "the latent and the RoPE key, not K and V per head"),
        (_mla_no_rope, "that leaves out the shared RoPE key (qk_rope_head_dim) cached beside "
                       "the latent"),
    ),
    wrong=(_mla_as_heads,
           lambda cfg: (_mla_twice(cfg) if cfg.uses_mla else _kv_bytes_per_token_solution(cfg)),
           lambda cfg: (_mla_no_rope(cfg) if cfg.uses_mla else _kv_bytes_per_token_solution(cfg))),
)


# --- shrink-2: predict Gemma 4 E2B's cache at its full context -----------------------------

def _e2b_cache(**changes):
    cfg = load_model("gemma-4-E2B")
    return kv_cache_bytes(cfg.replace(**changes) if changes else cfg, 131072, 1, "bf16") / GiB


def _e2b_full_layers_narrow():
    """Every storing layer at the sliding layers' width, head_dim = 256."""
    cfg = load_model("gemma-4-E2B")
    stores = cfg.num_hidden_layers - cfg.num_kv_shared_layers
    kinds = cfg.layer_types[:stores]
    values = 2 * cfg.num_key_value_heads * cfg.head_dim * (
        kinds.count("sliding_attention") * cfg.sliding_window
        + kinds.count("full_attention") * 131072)
    return values * 2 / GiB


predict(
    "shrink-2", SHRINK,
    expected=_e2b_cache,
    why="Only the first 35 - 20 = 15 layers store K and V: 12 sliding layers keep 512 tokens "
        "of 2 · 256 values, 3 full layers keep all 131,072 tokens of 2 · 512 values. "
        "(12 · 512 · 512 + 3 · 131,072 · 1,024) values · 2 bytes = 811,597,824 B = 0.756 GiB. "
        "Without the sharing the 7 full layers alone would take 1.75 GiB.",
    hint="list which layers store anything, then what each keeps: a window of tokens or all "
         "of them, at its own head width.",
    rel_tol=0.01, unit="GiB",
    mistakes=((lambda: _e2b_cache(num_kv_shared_layers=0),
               "that is the cache with every layer storing its own K and V: the last 20 layers "
               "store nothing"),
              (_e2b_full_layers_narrow,
               "the full layers' heads are global_head_dim = 512 wide, not head_dim = 256"),
              (lambda: _e2b_cache(layer_types=["full_attention"] * 35),
               "that keeps every token in every storing layer: the sliding layers keep only "
               "their window of 512")),
    wrong=(1.757, 0.38, 0.812, "0.756"),
)


# --- shrink-3: design how many layers share their KV ----------------------------------------

def _validate_shared(answer):
    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, "give a whole number of layers, e.g. 20"
    base = load_model("gemma-4-E2B")
    try:
        cfg = base.replace(num_kv_shared_layers=answer)
    except ConfigError as e:
        return False, f"the engine refuses it: {e}"
    cache = kv_cache_bytes(cfg, 131072, 8, "bf16")
    full_storing = sum(n for k, n in cfg.layer_schedule.counts().items()
                       if k.attention == "full_attention" and not k.kv_shared)
    if cache >= 4 * GiB:
        return False, (f"with {answer} shared layers the cache is {cache / GiB:,.2f} GiB at batch "
                       f"8, not under 4 GiB: {full_storing} full layers still store every token")
    return True, (f"{answer} shared layers: {cache / GiB:,.2f} GiB. Only {full_storing} full "
                  "layer stores all 131,072 tokens; every layer after the sharing point reads "
                  "its K and V. Fewer layers computing their own K and V is the price.")


design(
    "shrink-3", SHRINK,
    validate=_validate_shared,
    why="Each full layer that stores K and V costs 131,072 · 1,024 values · 2 B · 8 = 2 GiB; "
        "the sliding ones only 4 MiB each. Under 4 GiB allows one storing full layer: the "
        "first full layer is layer 4, the next is layer 9, so 5 to 9 storing layers, i.e. 26 "
        "to 30 shared ones. The shipped 20 leaves 3 full layers storing: 6 GiB.",
    solution=28,
    hint="find what one storing full layer costs at this batch and context; then count how "
         "many of the first layers may store.",
    wrong=(20, 25, 34, 35, "28"),
)


# --- shrink-4: concept: what a wider window costs once the context is long ------------------

concept(
    "shrink-4", SHRINK,
    correct="a",
    feedback={
        "b": "only the 22 sliding layers keep more, 512 more tokens each; the 4 full layers "
             "already keep all 32,768, and they hold most of the cache.",
        "c": "the sliding layers do store what their window covers: a wider window keeps "
             "more tokens in each of them.",
        "d": "a doubled window doubles the sliding layers' share, but at 32K that share is "
             "small beside the full layers'.",
    },
    why="At 32,768 tokens the 4 full layers keep 4 · 32,768 = 131,072 token-layers and the 22 "
        "sliding ones 22 · 512 = 11,264; a window of 1,024 adds 11,264 more: 153,600 against "
        "142,336, about 8%. Past the window, the full layers decide the cache.",
)


# === lesson 04: caches that stop growing ===================================================

# --- state-1: predict DSA's saving at a short context ---------------------------------------

def _dsa_ratio(n=4096):
    dense = flops_per_token(load_model("DeepSeek-V3"), n, mode="decode").attention
    return dense / flops_per_token(load_model("DeepSeek-V3.2"), n, mode="decode").attention


def _dsa_ratio_without_indexer():
    return 4096 / load_model("DeepSeek-V3.2").index_topk


predict(
    "state-1", STATE,
    expected=_dsa_ratio,
    why="Per layer and decoded token: DeepSeek-V3 reads 4,096 keys at 2 · 128 · (192 + 128) "
        "= 81,920 FLOPs each; V3.2 reads 2,048 of them and its indexer scores all 4,096 at "
        "2 · 64 · 129 = 16,512: 81,920 · 4,096 / (81,920 · 2,048 + 16,512 · 4,096) = 1.43. "
        "At 2,048 tokens or fewer, V3.2 does more work than V3: the indexer is pure overhead.",
    hint="write both per-layer counts at n = 4,096 with the lesson's cost model: the main "
         "attention over the keys it reads, plus the indexer over every key.",
    rel_tol=0.01, unit="×",
    mistakes=((_dsa_ratio_without_indexer,
               "that counts the main attention only (4,096 / 2,048); the indexer still scores "
               "all 4,096 keys"),
              (lambda: _dsa_ratio(131072),
               "that is the ratio at 131,072 tokens; the question asks at 4,096")),
    wrong=(2.0, 4.6, 1.0, "1.43"),
)


# --- state-2: derive the fixed state of linear-attention and Mamba-2 layers ----------------

def _state_solution(cfg):
    """The worked solution: bytes of the fixed per-sequence state, bf16."""
    total = 0
    n_lin = cfg.layer_types.count("linear_attention")
    if n_lin:   # gated DeltaNet: a d_k x d_v matrix per value head, plus the conv's last w inputs
        conv = (2 * cfg.linear_num_key_heads * cfg.linear_key_head_dim
                + cfg.linear_num_value_heads * cfg.linear_value_head_dim)
        total += n_lin * (cfg.linear_num_value_heads * cfg.linear_key_head_dim
                          * cfg.linear_value_head_dim + conv * cfg.linear_conv_kernel_dim)
    n_mamba = cfg.layer_types.count("mamba")
    if n_mamba:  # Mamba-2: a head_dim x state matrix per head, plus the conv's last w inputs
        inner = cfg.mamba_num_heads * cfg.mamba_head_dim
        conv = inner + 2 * cfg.n_groups * cfg.ssm_state_size
        total += n_mamba * (inner * cfg.ssm_state_size + conv * cfg.conv_kernel)
    return total * 2


def _no_conv(cfg):
    n_lin = cfg.layer_types.count("linear_attention")
    n_mamba = cfg.layer_types.count("mamba")
    total = n_lin * (cfg.linear_num_value_heads * cfg.linear_key_head_dim
                     * cfg.linear_value_head_dim) if n_lin else 0
    if n_mamba:
        total += n_mamba * cfg.mamba_num_heads * cfg.mamba_head_dim * cfg.ssm_state_size
    return 2 * total


derive(
    "state-2", STATE,
    reference=lambda cfg: linear_state_bytes(cfg, 1, "bf16"),
    cases=["Qwen3.6-35B-A3B", "Qwen3.5-0.8B-Base", "Qwen3-Next-80B-A3B",
           "Nemotron-3-Nano-30B-A3B", "Llama-3.1-8B"],
    why="A DeltaNet layer keeps one linear_key_head_dim x linear_value_head_dim matrix per "
        "value head, plus linear_conv_kernel_dim positions of its q, k and v channels. A "
        "Mamba-2 layer keeps one mamba_head_dim x ssm_state_size matrix per head, plus "
        "conv_kernel positions of its x, B and C channels (mamba_num_heads x mamba_head_dim "
        "+ 2 x n_groups x ssm_state_size). Neither depends on the context.",
    solution=_state_solution,
    hint="count the layers of each kind with cfg.layer_types.count(...); each kind keeps a "
         "matrix per head and a few positions of its short convolution.",
    unit="bytes",
    mistakes=((_no_conv, "that counts the recurrent matrices only: each layer also keeps the "
                         "last few inputs of its short convolution"),
              (lambda cfg: _state_solution(cfg) // 2, "that is one byte a value; bf16 takes 2"),
              (lambda cfg: 2 * _state_solution(cfg),
               "that is fp32 (4 bytes a value); the question asks bf16")),
    wrong=(_no_conv, lambda cfg: _state_solution(cfg) // 2,
           lambda cfg: _state_solution(cfg) + 2 * cfg.layer_types.count("full_attention")),
)


# --- state-3: design how many of Qwen3-Next's layers stay full attention ---------------------

_NEXT = "Qwen3-Next-80B-A3B"
_BUDGET = 16 * GiB


def _validate_interval(answer):
    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, "give a whole number: every how many layers one is full attention, e.g. 4"
    base = load_model(_NEXT)
    cfg = base.replace(full_attention_interval=answer)   # the engine refuses what cannot exist
    full = cfg.layer_types.count("full_attention")
    if not full:
        return False, (f"with an interval of {answer} none of the 48 layers is full attention: "
                       "keep at least one, for exact recall of early tokens")
    total = kv_cache_bytes(cfg, 262144, 8) + linear_state_bytes(cfg, 8)
    if total >= _BUDGET:
        return False, (f"an interval of {answer} keeps {full} full layers: cache and state take "
                       f"{total / GiB:,.2f} GiB at 8 × 262,144 tokens, not under 16 GiB")
    most = max(range(1, 49), key=lambda k: (
        kv_cache_bytes(base.replace(full_attention_interval=k), 262144, 8)
        + linear_state_bytes(base.replace(full_attention_interval=k), 8) < _BUDGET,
        base.replace(full_attention_interval=k).layer_types.count("full_attention")))
    best = base.replace(full_attention_interval=most).layer_types.count("full_attention")
    note = ("" if full == best else
            f" An interval as short as {most} would keep {best} full layers and still fit.")
    return True, (f"An interval of {answer}: {full} full layers, {total / GiB:,.2f} GiB of cache "
                  f"and state.{note}")


design(
    "state-3", STATE,
    validate=_validate_interval,
    why="Each full layer keeps 2 · 2 KV heads · 256 values · 2 B = 2 KiB per token: at "
        "8 × 262,144 tokens that is 4 GiB a layer, while the 36 to 47 linear layers' state "
        "stays under 0.4 GiB. Under 16 GiB leaves 3 full layers (12.37 GiB): an interval of "
        "13 to 16 (layers 12, 25, 38 for 13). The shipped 4 keeps 12 full layers, 48.3 GiB.",
    solution=13,
    hint="find what one full layer costs at this batch and context; the linear layers' state "
         "is small and fixed. Layer i is full when (i + 1) is a multiple of the interval.",
    wrong=(4, 12, 49, "13"),
)


# --- state-4: concept: what still grows with the context -------------------------------------

concept(
    "state-4", STATE,
    correct="d",
    feedback={
        "a": "DeepSeek-V4 adds one compressed entry per 4 tokens (CSA) or 128 (HCA) in every "
             "layer, so its cache keeps growing, 4 to 128 times slower; and Qwen3-Next's 12 "
             "full layers keep every token.",
        "b": "a compressed entry stands for 4 or 128 tokens, not for all the old ones: the "
             "number of entries grows with the context.",
        "c": "Qwen3-Next's DeltaNet state is fixed, but its 12 full-attention layers cache "
             "every token; and V4's entries grow too.",
    },
    why="From 131,072 to 1,048,576 tokens DeepSeek-V4's cache grows about 8× (0.85 to "
        "6.72 GiB) and Qwen3-Next's full layers' cache 8× as well; only the DeltaNet state "
        "(38.25 MiB) stays put. Memory that stops growing needs every layer to keep a fixed "
        "state.",
)
