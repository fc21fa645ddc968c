"""Exercises for the FFN-sizing lesson (ids ffn-*)."""

from __future__ import annotations

from ..counts import param_count
from ..sizing import llama_intermediate_size
from ..zoo import load_model
from .base import exercise

__all__ = []

exercise(
    "ffn-1",
    "LLaMA-2 7B has hidden_size 4096 and rounds its SwiGLU width up to a multiple of 256 "
    "(no ffn_dim_multiplier). What is its intermediate_size? (a whole number)",
    answer=lambda: llama_intermediate_size(4096, multiple_of=256),
    why="4 x 4096 = 16,384; int(2/3 x 16,384) = 10,922 (10,922.67 truncated); rounded up to "
        "a multiple of 256: 43 x 256 = 11,008.",
    hint="start from 4 x hidden, take 2/3 of it (truncate), then round up to a multiple of "
         "multiple_of.",
)

exercise(
    "ffn-2",
    "How many parameters are in one FFN block (gate_proj, up_proj, down_proj) of Qwen3-8B? "
    "(exact)",
    answer=lambda: (param_count(load_model("Qwen3-8B")).components["mlp"]
                    // load_model("Qwen3-8B").num_hidden_layers),
    why="3 matrices of 4096 x 12288 with no biases: 3 x 4096 x 12288 = 150,994,944. "
        "(Seed 000's 22016 is the first-generation Qwen-7B's config value, which its code halves to 11008 per matrix; Qwen3-8B's config says 12288.)",
    hint="three matrices, each hidden_size x intermediate_size, no biases.",
)

exercise(
    "ffn-3",
    "What percentage of Meta-Llama-3-8B's total parameters are in its FFNs (all 32 layers)? "
    "Give a percentage, e.g. 55.5 (within 0.5%).",
    answer=lambda: round(100 * param_count(load_model("Meta-Llama-3-8B")).components["mlp"]
                         / param_count(load_model("Meta-Llama-3-8B")).total, 2),
    why="32 x 3 x 4096 x 14336 = 5,637,144,576 of 8,030,261,248 parameters: 70.2%. "
        "Attention holds 16.7% and the (untied) embedding and lm_head the rest.",
    hint="param_count(cfg).components['mlp'] / param_count(cfg).total.",
    rel_tol=0.005,
)
