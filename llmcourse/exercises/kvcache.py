"""Exercises for lesson 02, GQA and the KV cache (ids kv-*).

Every expected value is computed by the engine when the reader checks; no
answer here is printed in the notebook above its exercise.
"""

from __future__ import annotations

from ..counts import kv_cache_bytes
from ..sizing import gqa_memory_saving
from ..units import GB, GiB, count_of
from ..zoo import load_model
from .anatomy import what_if
from .base import concept, derive, design, predict

__all__ = []

NB = "02_gqa_and_kv_cache"


# --- kv-1: derive the bytes GQA saves, weights and cache ----------------------------------

_TOKENS = 1000   # one short chat: no case's window fills, and no case's width is 1,000


def _gqa_saved_solution(cfg):
    """The worked solution: bytes of weights + KV cache (bf16) GQA saves against the same
    model with a KV head per query head, holding one sequence of 1,000 tokens."""
    d, hd, L = cfg.hidden_size, cfg.head_dim, cfg.num_hidden_layers
    fewer = cfg.num_attention_heads - cfg.num_key_value_heads   # KV heads GQA does without
    weights = 2 * L * d * fewer * hd * 2      # k_proj and v_proj: (n_kv·d_h, d), 2 bytes
    cache = 2 * L * fewer * hd * 2 * _TOKENS  # a K and a V per KV head, layer and token
    return weights + cache


def _saved(cfg):
    s = gqa_memory_saving(cfg, _TOKENS, 1, "bf16")
    return (s["mha_weights"] + s["mha_cache"]) - (s["weights"] + s["cache"])


def _cache_only(cfg):
    return 2 * cfg.num_hidden_layers * (cfg.num_attention_heads - cfg.num_key_value_heads) \
        * cfg.head_dim * 2 * _TOKENS


def _weights_only(cfg):
    return _gqa_saved_solution(cfg) - _cache_only(cfg)


def _weights_as_parameters(cfg):   # the weights' saving in parameters, not bytes
    return _weights_only(cfg) // 2 + _cache_only(cfg)


def _head_dim_divided(cfg):        # head_dim taken as hidden_size / num_attention_heads
    hd = cfg.hidden_size // cfg.num_attention_heads
    return None if hd == cfg.head_dim else _gqa_saved_solution(cfg.replace(head_dim=hd))


derive(
    "kv-1", NB,
    reference=_saved,
    cases=["Qwen3-8B", "gemma-2-2b", "Mistral-Nemo-Base-2407", "Meta-Llama-3-70B",
           lambda: what_if("Qwen3-14B", "Qwen3-14B with 1 KV head", num_key_value_heads=1),
           lambda: what_if("Llama-3.2-1B", "Llama-3.2-1B with 2 KV heads",
                           num_key_value_heads=2)],
    why="GQA does without n_h − n_kv KV heads. Each of them would cost k_proj and v_proj "
        "rows, 2·d·d_h weights a layer, and a K and a V in the cache, 2·d_h values a layer "
        "and token: (n_h − n_kv)·L·2·d_h·(d + n)·2 bytes at n tokens in bf16. Read head_dim "
        "from the config: gemma-2-2b's 256 and Mistral-Nemo's 128 are not hidden / heads.",
    solution=_gqa_saved_solution,
    hint="What does the MHA twin have that the GQA model does not? Count it in the weights "
         "and in the cache, in bytes.",
    unit="bytes",
    mistakes=(
        (_cache_only, "that is the cache's saving alone: the MHA twin's k_proj and v_proj "
                      "are larger too"),
        (_weights_only, "that is the weights' saving alone: 1,000 tokens are cached too"),
        (_weights_as_parameters, "that counts the weights' saving in parameters: in bf16 "
                                 "each is 2 bytes"),
        (_head_dim_divided, "that takes head_dim as hidden_size / num_attention_heads: read "
                            "cfg.head_dim"),
        (lambda cfg: _weights_only(cfg) + _cache_only(cfg) // 2,
         "that caches one vector per KV head: a token keeps a K and a V"),
    ),
    wrong=(_cache_only, _weights_only, _weights_as_parameters,
           lambda cfg: _gqa_saved_solution(cfg.replace(
               head_dim=cfg.hidden_size // cfg.num_attention_heads))),
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
    heads = base.num_attention_heads
    if 0 < answer and heads % answer:   # its cache still says something: by the KV head
        cache = answer * kv_cache_bytes(base.replace(num_key_value_heads=1), 32768, 16)
        size = ("exactly 40 GiB, not under it" if cache == 40 * GiB else
                f"{cache / GiB:,.0f} GiB, " + ("under 40" if cache < 40 * GiB else "over 40"))
        return False, (f"{answer} does not divide the {heads} query heads: each KV head serves "
                       f"a whole group of them, so the engine refuses it. Its cache would be "
                       f"{size}")
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
             "16.13 GB (16.06 + 0.07): 1.11×, about 11% faster. Most of that comes from the "
             "weights, not the cache: the MHA twin's k_proj and v_proj are four times larger, "
             "1.61 GB more to read, against 0.20 GB of cache. GQA's saving in the cache pays "
             "off as context and batch grow it.",
        "d": "every decoding step reads the whole cache; GQA shrinks it in decoding as much "
             "as in prefill. Here the cache is just small beside the weights.",
    },
    why="Decoding is bound by memory bandwidth (Shazeer 2019; Pope et al. 2022): a step's "
        "time is about the bytes it reads, weights plus cache. GQA shrinks the cache, and "
        "k_proj and v_proj with it, so its speed-up grows with context × batch.",
)
