"""Exercises for lesson 02, GQA and the KV cache (ids kv-*).

Every expected value is computed by the engine when the reader checks; no
answer here is printed in the notebook above its exercise.
"""

from __future__ import annotations

from ..counts import kv_cache_bytes
from ..units import count_of
from ..units import GB, GiB
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "02_gqa_and_kv_cache"


# --- kv-1: derive bytes per token -----------------------------------------------------

def _kv_bytes_per_token_solution(cfg):
    """The worked solution: bytes one token adds over all layers, bf16."""
    values = 2 * cfg.num_key_value_heads * cfg.head_dim     # a K and a V per KV head
    return values * cfg.num_hidden_layers * 2                 # every layer, 2 bytes


def _what_if_2_kv_heads():
    return load_model("Llama-3.1-8B").replace(num_key_value_heads=2)


def _what_if_mqa():
    return load_model("Qwen3-14B").replace(num_key_value_heads=1)


derive(
    "kv-1", NB,
    reference=lambda cfg: kv_cache_bytes(cfg, 1, 1, "bf16"),
    cases=["Qwen3-8B", "gemma-2-2b", "gpt-oss-20b", "Phi-3-mini-4k-instruct",
           _what_if_2_kv_heads, _what_if_mqa],
    why="Every layer caches a K and a V vector per KV head: 2 · n_kv · d_h values, 2 bytes "
        "each in bf16, times the layers. MHA, GQA and MQA differ only in n_kv. "
        "Gemma-2's head_dim is 256, not hidden / heads = 288: read cfg.head_dim.",
    solution=_kv_bytes_per_token_solution,
    hint="K and V are two vectors per KV head, in every layer. Does gemma-2-2b's head_dim "
         "equal hidden_size / num_attention_heads?",
    unit="bytes",
    mistakes=(
        (lambda cfg: cfg.num_key_value_heads * cfg.head_dim * cfg.num_hidden_layers * 2,
         "that caches one vector per KV head: a token keeps a K and a V"),
        (lambda cfg: 2 * cfg.num_attention_heads * cfg.head_dim * cfg.num_hidden_layers * 2,
         "that gives every query head its own K and V (MHA): the cache has num_key_value_heads"),
        (lambda cfg: (2 * cfg.num_key_value_heads * (cfg.hidden_size // cfg.num_attention_heads)
                      * cfg.num_hidden_layers * 2),
         "that takes head_dim as hidden_size / num_attention_heads; read cfg.head_dim, which "
         "gemma-2 sets to 256"),
        (lambda cfg: 2 * cfg.num_key_value_heads * cfg.head_dim * cfg.num_hidden_layers,
         "that is one byte a value (fp8); bf16 takes 2"),
    ),
    wrong=(
        lambda cfg: cfg.num_key_value_heads * cfg.head_dim * cfg.num_hidden_layers * 2,
        lambda cfg: (2 * cfg.num_key_value_heads * cfg.hidden_size // cfg.num_attention_heads
                     * cfg.num_hidden_layers * 2),
        lambda cfg: 2 * cfg.num_attention_heads * cfg.head_dim * cfg.num_hidden_layers * 2,
    ),
)


# --- kv-2: predict a cache in GiB --------------------------------------------------------

def _qwen3_8b_fp8_cache():
    return kv_cache_bytes(load_model("Qwen3-8B"), 40960, 4, "fp8") / GiB


predict(
    "kv-2", NB,
    expected=_qwen3_8b_fp8_cache,
    why="2 · 36 · 8 · 128 = 73,728 values per token, 1 byte each in fp8; × 40,960 tokens × 4 "
        "sequences = 12,079,595,520 B = 11.25 GiB (12.08 GB). In bf16 it would be twice that.",
    hint="first the bytes of one token over all layers, then times tokens and batch; a GiB is "
         "2**30 bytes.",
    rel_tol=0.01, unit="GiB",
    mistakes=((lambda: 2 * _qwen3_8b_fp8_cache(),
               "that is the bf16 cache: fp8 stores one byte a value, not two"),
              (lambda: _qwen3_8b_fp8_cache() / 2,
               "you counted only K or only V: the cache holds both"),
              (lambda: _qwen3_8b_fp8_cache() * GiB / GB,
               "that is in GB (10**9 bytes); the question asks GiB (2**30)")),
    wrong=(22.5, 5.625, 12.08, "11.25"),
)


# --- kv-3: design the KV heads for a memory budget ------------------------------------------

def _validate_kv_heads(answer):
    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, "give a whole number of KV heads, e.g. 8"
    base = load_model("Llama-3.1-8B")
    cfg = base.replace(num_key_value_heads=answer)   # the engine rejects impossible counts
    cache = kv_cache_bytes(cfg, 32768, 16, "bf16")
    if cache >= 40 * GiB:
        return False, (f"with {count_of(answer, 'KV head')} the cache is {cache / GiB:,.1f} GiB, not under "
                       "40 GiB: fewer KV heads")
    ok_larger = [n for n in range(answer + 1, base.num_attention_heads + 1)
                 if base.num_attention_heads % n == 0
                 and kv_cache_bytes(base.replace(num_key_value_heads=n), 32768, 16) < 40 * GiB]
    note = (f" A larger count, {ok_larger[-1]}, would also fit, and more KV heads usually "
            "keep more quality." if ok_larger else
            " It is the largest count that fits, the one that keeps the most quality.")
    return True, f"{count_of(answer, 'KV head')}: the cache is {cache / GiB:,.1f} GiB.{note}"


design(
    "kv-3", NB,
    validate=_validate_kv_heads,
    why="Each KV head costs 2 · 32 layers · 128 · 2 bytes = 16 KiB per token; 16 × 32,768 "
        "tokens make that 8 GiB per KV head. Under 40 GiB leaves at most 4 KV heads (32 GiB), "
        "and 1, 2 or 4 divide 32. The shipped 8 heads need 64 GiB.",
    solution=4,
    hint="work out what one KV head costs at this batch and context, then divide the budget.",
    wrong=(8, 32, 16, 5, "4"),
)


# --- kv-4: concept: when GQA speeds up decoding, and by how much -----------------------------

concept(
    "kv-4", NB,
    correct="c",
    feedback={
        "a": "the cache is 4× smaller, but a step reads the weights too: at 512 tokens the "
             "MHA cache is 0.27 GB beside 17.67 GB of weights.",
        "b": "3.4× held where the cache outweighed the weights (64 GiB of cache at batch 16 "
             "× 32K); at batch 1 × 512 the cache is under 2% of what a step reads.",
        "c": "MHA reads 17.94 GB per step (17.67 GB of weights + 0.27 GB of cache), GQA-8 "
             "16.13 GB (16.06 + 0.07): 1.11×, about 11% faster. GQA pays off as context and "
             "batch grow the cache.",
        "d": "every decoding step reads the whole cache; GQA shrinks it in decoding as much "
             "as in prefill. Here the cache is just small beside the weights.",
    },
    why="Decoding is bound by memory bandwidth (Shazeer 2019; Pope et al. 2022): a step's "
        "time is about the bytes it reads, weights plus cache. GQA shrinks the cache, so "
        "its speed-up grows with context × batch.",
)
