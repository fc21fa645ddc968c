"""Exercises for lesson 03, FFN sizing (ids ffn-*).

Every expected value is computed by the engine when the reader checks (or, for
Meta's rounding rule, is the value Meta published); no answer here is printed in
the notebook above its exercise.
"""

from __future__ import annotations

from ..counts import param_count
from ..sizing import ffn_attention_split
from ..zoo import load_model
from .base import concept, derive, predict

__all__ = []

NB = "03_ffn_sizing"

# Llama-3.1-405B's intermediate_size as published in its config.json
# (huggingface.co/meta-llama/Llama-3.1-405B); its params.json gives hidden 16384,
# ffn_dim_multiplier 1.2 and multiple_of 4096.
LLAMA31_405B_INTERMEDIATE = 53248

predict(
    "ffn-1", NB,
    "Llama-3.1-405B has hidden_size 16,384; Meta's params.json gives ffn_dim_multiplier 1.2 "
    "and multiple_of 4096. Use the rule you wrote above: what is its intermediate_size?",
    expected=lambda: LLAMA31_405B_INTERMEDIATE,
    why="int(2 · 4 · 16,384 / 3) = 43,690; int(1.2 · 43,690) = 52,428; rounded up to a "
        "multiple of 4,096: 13 · 4,096 = 53,248 (3.25 × hidden), the value in its config.json.",
    hint="the same four steps as for Llama-3.1-8B: two truncations, then round up.",
    unit="",
    mistakes=((lambda: 45056, "you left out ffn_dim_multiplier (1.2)"),
              (lambda: 52428, "one step is missing: round up to a multiple of multiple_of"),
              (lambda: 49152, "round *up* to the next multiple, not down"),
              (lambda: 43690, "that is only 2/3 of 4 × hidden: the multiplier and the "
                              "rounding are still to come")),
    wrong=(45056, 52428, 49152, 43690, "53248"),
)


def _ffn_params_solution(cfg):
    """The worked solution: FFN parameters of one layer of a dense model."""
    d, inter = cfg.hidden_size, cfg.intermediate_size
    if cfg.model_type == "phi":               # plain: fc1 and fc2, each with a bias
        return 2 * d * inter + inter + d
    return 3 * d * inter                      # gated: gate_proj, up_proj, down_proj


def _llama31_wide():
    return load_model("Llama-3.1-8B").replace(intermediate_size=20480)


derive(
    "ffn-2", NB,
    "Write `def ffn_params(cfg)`: the parameters of one layer's FFN in a dense model, gated "
    "(gate/up/down, no biases) or plain (phi-2's fc1/fc2, with biases). The checker runs it "
    "on Mistral-Nemo, Qwen3-0.6B, gemma-2-2b, phi-2 and a Llama-3.1-8B widened to 20,480.",
    reference=lambda cfg: param_count(cfg).components["mlp"] // cfg.num_hidden_layers,
    cases=["Mistral-Nemo-Base-2407", "Qwen3-0.6B", "gemma-2-2b", "phi-2", _llama31_wide],
    why="A gated MLP has three hidden × intermediate matrices; a plain one two, and phi-2 "
        "adds a bias to each (intermediate + hidden values).",
    solution=_ffn_params_solution,
    hint="count the matrices of each kind of MLP; which of them carry a bias in phi-2?",
    wrong=(lambda cfg: 3 * cfg.hidden_size * cfg.intermediate_size,
           lambda cfg: 2 * cfg.hidden_size * cfg.intermediate_size,
           lambda cfg: (2 if cfg.model_type == "phi" else 3) * cfg.hidden_size
           * cfg.intermediate_size),
)


def _flop_share(seq_len, mode):
    return 100 * ffn_attention_split(load_model("Llama-3.1-8B"), seq_len, mode)["ffn_flop_share"]


predict(
    "ffn-3", NB,
    "Llama-3.1-8B reads a prompt of 131,072 tokens, its full context (prefill, causal: "
    "on average a token attends to (n+1)/2 keys). What percentage of the forward FLOPs per "
    "token is the FFN? Use the FLOP formula from this lesson. (within 1% of the value, "
    "e.g. 12.3)",
    expected=lambda: _flop_share(131072, "prefill"),
    why="The FFN's 2 · 3 · d · I · L FLOPs per token stay fixed, while the attention scores "
        "grow with the keys attended: at 131,072 tokens they outweigh the FFN; its share "
        "falls to about 22.8%.",
    hint="the FFN, the projections and the lm_head cost 2 FLOPs per weight; the scores cost "
         "2 · n_h · 2 · d_h per key per layer. How many keys does an average prompt token see?",
    rel_tol=0.01, unit="%",
    mistakes=((lambda: _flop_share(131072, "decode"),
               "you let every token attend to all 131,072 keys; in a causal prompt token i "
               "attends to i keys, (n+1)/2 on average"),
              (lambda: 75.1, "you left out the attention scores, which grow with the context")),
    wrong=(13.5, 75.1, 70.1, "22.8"),
)

concept(
    "ffn-4", NB,
    "Why do LLaMA-style gated MLPs start from 8/3 × hidden_size rather than the classic 4×?",
    options={
        "a": "A gated MLP has three matrices instead of two; at 8/3 × hidden its weights "
             "and FLOPs equal those of a 4× two-matrix MLP, so the comparison is fair.",
        "b": "The gate halves the activations, so half the width is enough.",
        "c": "8/3 × hidden is always a multiple of 128, which GPUs need.",
        "d": "Gated MLPs become unstable to train above 8/3 × hidden.",
    },
    correct="a",
    feedback={
        "a": "Right: 3 · d · (8/3 · d) = 8 · d² = 2 · d · 4d.",
        "b": "the gate multiplies element by element; it halves nothing, and the output "
             "width is intermediate_size either way.",
        "c": "8/3 × 4096 = 10,922.67 is not even a whole number: rounding to a multiple is a "
             "separate step (multiple_of).",
        "d": "models train gated MLPs far wider: Qwen2-7B uses 5.29×, Gemma-7B 8×.",
    },
    why="Shazeer (2020), 'GLU Variants Improve Transformer', kept parameters and compute "
        "equal this way and found the gated variants better at the same cost.",
)

concept(
    "ffn-5", NB,
    "Meta rounds the FFN width up to a multiple of `multiple_of` (256, 1024, 4096). What "
    "does the rounding buy?",
    options={
        "a": "Fewer parameters than the exact 8/3 × hidden.",
        "b": "Matrix shapes that split evenly into the GPU's matmul tiles and across the "
             "GPUs of tensor parallelism, so no compute is wasted on ragged edges.",
        "c": "An intermediate_size that is a power of two.",
        "d": "Exactly 8/3 × hidden after the rounding.",
    },
    correct="b",
    feedback={
        "a": "rounding *up* adds parameters (10,922 becomes 11,008 for LLaMA-2 7B).",
        "b": "Right: 14,336 = 8 × 1,792 = 8 × 14 × 128 splits into 8 tensor-parallel shards "
             "of whole 128-wide tiles.",
        "c": "14,336 and 11,008 are not powers of two; they are multiples of 1,024 and 256.",
        "d": "the rounded value is slightly above 8/3 × hidden (times the multiplier).",
    },
    why="GPU matrix multiplies work in tiles (multiples of 64 or 128 along each dimension), "
        "and Megatron-style tensor parallelism splits the intermediate dimension across GPUs.",
)
