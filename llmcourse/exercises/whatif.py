"""Exercises for the what-if lab (lesson 6). Every expected value and every verdict
is computed by the engine when the reader checks."""

from __future__ import annotations

from ..counts import kv_cache_bytes, param_count
from ..quantization import stored_weights
from ..units import GiB
from ..zoo import load_model
from .base import concept, design, predict

__all__ = []

NB = "06_whatif_lab"


# --- whatif-1: predict, then check in the lab -----------------------------------------

def _halved_depth_saving():
    q = load_model("Qwen3-8B")
    return param_count(q).total - param_count(q.replace(num_hidden_layers=18)).total


def _half_of_everything():
    return param_count(load_model("Qwen3-8B")).total // 2


predict(
    "whatif-1", NB,
    "Qwen3-8B has num_hidden_layers = 36. What if it had 18? Predict how many parameters "
    "fewer it has (original total minus edited total; within 1%), then check with the lab.",
    expected=_halved_depth_saving,
    rel_tol=0.01,
    unit="parameters",
    mistakes=((_half_of_everything,
               "that is half of the whole model; the embedding, the lm_head and the final norm "
               "do not depend on the depth, only the 36 identical decoder layers do"),),
    why="Each decoder layer (attention, MLP, two norms, QK-norm) is identical, so halving the "
        "depth removes exactly 18 layers' worth of parameters. The embedding, the final norm "
        "and the untied lm_head stay, so the model shrinks by less than half.",
    hint="Which parts of the model are repeated once per layer, and which exist once?",
    wrong=(_half_of_everything(), "3000000000"),
)


# --- whatif-2: design a KV-head count under a memory budget ----------------------------

_BUDGET = 40 * GiB
_BATCH, _SEQ = 16, 32_768


def _cache_of(kv_heads):
    cfg = load_model("Llama-3.1-8B").replace(num_key_value_heads=kv_heads)
    return kv_cache_bytes(cfg, _SEQ, batch=_BATCH)


def _kv_design_ok(answer):
    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, "answer with a whole number of KV heads, e.g. answer = 2"
    base = load_model("Llama-3.1-8B")
    heads = base.num_attention_heads
    if not 1 <= answer <= heads or heads % answer:
        return False, (f"{answer} KV heads cannot serve {heads} query heads: each KV head "
                       f"serves a whole group, so the count must divide {heads}")
    cache = _cache_of(answer)
    if cache >= _BUDGET:
        return False, (f"with {answer} KV heads the cache for {_BATCH} sequences of "
                       f"{_SEQ:,} tokens is {cache / GiB:.1f} GiB, not under 40 GiB")
    fits = [k for k in range(1, heads + 1) if heads % k == 0 and _cache_of(k) < _BUDGET]
    if answer < max(fits):
        return False, (f"{answer} KV heads fit ({cache / GiB:.1f} GiB), but a larger count "
                       "also fits; fewer KV heads cost quality (Ainslie et al. 2023), so keep "
                       "as many as the budget allows")
    return True, (f"{answer} KV heads: {cache / GiB:.1f} GiB of cache, and the next "
                  "larger count that divides 32 would not fit.")


design(
    "whatif-2", NB,
    "Serve Llama-3.1-8B (32 query heads, 8 KV heads) to 16 users at 32,768 tokens each "
    "(within its 131,072-token context) with the KV cache in bf16 under 40 GiB. Keep as many "
    "KV heads as the budget allows (each one removed costs quality). Which "
    "num_key_value_heads? answer = <a whole number>",
    validate=_kv_design_ok,
    why="The cache is 2 x layers x kv_heads x head_dim x 2 bytes per token: 16 KiB per KV head "
        "per token here, so 16 x 32,768 tokens take 8 GiB per KV head. 8 heads need 64 GiB; "
        "the counts that divide 32 are 1, 2, 4, 8, ...: 4 heads (32 GiB) is the most that fits.",
    solution=4,
    hint="Work out the cache of one KV head for all 16 sequences; the count must also divide "
         "the 32 query heads.",
    wrong=(8, 2, 5, 0, "4"),
)


# --- whatif-3: concept: why decode costs more FLOPs per token than prefill -----------

concept(
    "whatif-3", NB,
    "At 8,192 tokens the lab shows more FLOPs per token for decode than for prefill. Why?",
    {"a": "Decoding recomputes the keys and values of the whole prompt for every new token it makes.",
     "b": "Decoding multiplies every weight matrix twice, once for the key path, once for the value path.",
     "c": "A decoded token attends to all 8,192 cached keys; a prompt token, on average, to half.",
     "d": "Prefill computes the lm_head at a lower precision than decode, so its FLOPs count for less."},
    "c",
    {"a": "No: that is what the KV cache avoids; decode reads the cached K and V and computes "
          "them only for the new token.",
     "b": "No: the weight (matmul) term is the same 2 x active parameters in both modes; only "
          "the attention term differs.",
     "c": "Yes.",
     "d": "No: precision changes how fast a FLOP runs, not how many there are. (A serving engine "
          "does skip the lm_head for every prompt token but the last; the lab charges it for every "
          "token in both modes, as training does, so that is not the difference here either.)"},
    why="The weight term is identical; the attention term grows with the keys a token attends "
        "to: n at position n (decode) against the mean of 1..n, (n+1)/2, over a causal "
        "prompt. FLOPs do not set decode speed, though: each step reads all the weights and "
        "the whole cache, so memory bandwidth does (lesson 7).",
)


# --- whatif-4: predict the int4 weights as a quantizer really stores them -------------

def _gptq_qwen_gib():
    return stored_weights(load_model("Qwen3-8B"), "int4-g128").total / GiB


def _ideal_int4_gib():
    return stored_weights(load_model("Qwen3-8B"), "int4-g128").ideal / GiB


predict(
    "whatif-4", NB,
    "Half a byte per parameter gives Qwen3-8B 3.81 GiB of int4 weights: the idealised "
    "figure. AWQ and GPTQ checkpoints store a 16-bit scale and a 4-bit zero point per group "
    "of 128 inputs, and keep the embedding, the (untied) lm_head and the norms in bf16. "
    "Predict their size in GiB (within 3%), then check in the lab.",
    expected=_gptq_qwen_gib,
    rel_tol=0.03,
    unit="GiB",
    mistakes=((_ideal_int4_gib,
               "that is the idealised figure: count the 16-bit embedding and lm_head "
               "(2 x vocab_size x hidden_size values at 2 bytes each) and the scales"),),
    why="The embedding and the untied lm_head are 2 x 151,936 x 4,096 = 1.24B parameters; "
        "kept in bf16 they take 2.32 GiB instead of 0.58, and a 16-bit scale plus a 4-bit "
        "zero point per 128 four-bit values add 20/512 = 3.9% to the quantized matrices: "
        "5.68 GiB, half as much again as the idealised 3.81.",
    hint="Split the parameters into the decoder's matrices (4 bits, plus a little for scales) "
         "and the embedding and lm_head (16 bits).",
    wrong=(_ideal_int4_gib(), 8.19 * 2 * 0.93),
)
