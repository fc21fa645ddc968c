"""Exercises for lesson 10, how fast (ids speed-*): the decode bound, why GQA decodes
faster, the experts a batch reads, where an MoE turns compute-bound, and why MLA models
are served with data-parallel attention."""

from __future__ import annotations

from ..counts import param_count
from ..hardware import load_gpu
from ..inference import critical_batch, decode_step_time, expected_experts
from ..zoo import load_model
from .base import concept, predict

__all__ = []

NB = "10_how_fast"


def _llama_h200():
    return decode_step_time("Llama-3.1-8B", "H200", weights="bf16", seq_len=32768)


# the pieces of speed-1's common mistakes, from the config and the GPU table (not typed in)
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
    "speed-1", NB,
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
        (lambda: 3.35e12 / (_llama_bf16() - _llama_embedding() + _llama_kv()),
         "that uses the H100's 3.35 TB/s: the H200 reads 4.8 TB/s"),
    ),
    wrong=(4.8e12 / (2 * 8030261248 + 32768 * 131072), 4.8e12 / (2 * 8030261248), 1000.0),
)

concept(
    "speed-2", NB,
    "a",
    {"b": "GQA keeps all 32 query heads; only the K and V heads are shared. And decode time is "
          "set by bytes read, not FLOPs.",
     "c": "GQA changes only k_proj and v_proj; the MLP is untouched.",
     "d": "Clock speed does not depend on the cache size; the bound is bytes / bandwidth."},
    why="The bytes per step are weights + cache, and the cache part shrinks 4x. MLA (DeepSeek) "
        "goes further: 576 cached values per layer instead of 2 x 128 x 128. Decode is "
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

concept(
    "speed-6", NB,
    "c",
    {"a": "MLA's latent is the same 576 values per token and layer whichever way the GPUs "
          "are used; what changes is how many copies of it exist.",
     "b": "Expert parallelism moves experts between GPUs, not to the CPU: every expert stays "
          "in GPU memory, and the cache dtype is a separate choice.",
     "d": "Data-parallel attention replicates the attention weights on every GPU, so the "
          "weights per GPU grow a little; it is the cache that stops being duplicated."},
    why="With TP=8 each sequence's latent sits on all 8 GPUs, so 8 GPUs hold what one would. "
        "With data-parallel attention each GPU runs attention for its own requests and keeps "
        "only their latents: the same memory holds about 8x the sequences, while expert "
        "parallelism spreads the routed experts, where the weights are.",
)
