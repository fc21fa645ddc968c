"""Exercises for the GQA / KV-cache lesson (ids kv-*)."""

from __future__ import annotations

from ..counts import kv_cache_bytes
from ..sizing import gqa_memory_saving, mha_baseline
from ..zoo import load_model
from .base import exercise

__all__ = []

exercise(
    "kv-1",
    "How many bytes of KV cache does Meta-Llama-3-8B hold for one sequence of 8,192 tokens "
    "in bf16? (an exact whole number of bytes)",
    answer=lambda: kv_cache_bytes(load_model("Meta-Llama-3-8B"), 8192, 1, "bf16"),
    why="2 (K and V) x 32 layers x 8 KV heads x 128 head_dim x 2 bytes = 131,072 B per "
        "token; x 8,192 tokens = 1,073,741,824 B, exactly 1 GiB (2^30 B), or 1.07 GB.",
    hint="per token: 2 x layers x num_key_value_heads x head_dim x bytes per value; "
         "then times the tokens.",
)

exercise(
    "kv-2",
    "Qwen2-7B has 28 query heads and 4 KV heads. By what factor is its KV cache smaller "
    "than the same model with plain multi-head attention (28 KV heads)? (a number)",
    answer=lambda: (kv_cache_bytes(mha_baseline(load_model("Qwen2-7B")), 4096)
                    // kv_cache_bytes(load_model("Qwen2-7B"), 4096)),
    why="The cache is proportional to num_key_value_heads, so the factor is 28 / 4 = 7 at "
        "every context and batch: the cache shrinks by 6/7 = 85.7%.",
    hint="the cache per token is 2 x layers x kv_heads x head_dim x bytes; only kv_heads "
         "changes.",
)

exercise(
    "kv-3",
    "DeepSeek-V3 caches a latent of kv_lora_rank + qk_rope_head_dim values per layer per "
    "token. How many bytes per token does it cache over all 61 layers in bf16? (exact)",
    answer=lambda: kv_cache_bytes(load_model("DeepSeek-V3"), 1, 1, "bf16"),
    why="(512 + 64) values x 2 bytes x 61 layers = 70,272 B per token, stored once, not "
        "once for K and once for V. MHA with 128 heads of 128 would need 2 x 128 x 128 x 2 "
        "x 61 = 3,997,696 B per token: MLA cuts that by 98.2%, not 70%.",
    hint="MLA stores one compressed vector per layer: kv_lora_rank + qk_rope_head_dim values.",
)

exercise(
    "kv-4",
    "Meta-Llama-3-8B in bf16, one sequence of 32,768 tokens: what percentage of total memory "
    "(weights + KV cache) does GQA save against the same model with 32 KV heads? Give a "
    "percentage, e.g. 12.3 (within 0.5%).",
    answer=lambda: round(100 * float(
        gqa_memory_saving(load_model("Meta-Llama-3-8B"), 32768, 1, "bf16")["total_saving"]), 2),
    why="The cache shrinks 4x (75% saved) and the k/v projections shrink too, but the "
        "weights (14.96 GiB) dominate at short contexts. At 32,768 cached tokens the saving of "
        "weights + cache is 41.6%: inside seed 004's 30-50% only because this many tokens are "
        "cached.",
    hint="saving = 1 - (weights + cache) / (MHA weights + MHA cache); MHA has larger k_proj "
         "and v_proj as well as a 4x larger cache.",
    rel_tol=0.005,
)
