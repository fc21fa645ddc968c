"""Exercises for lesson 0, the anatomy of a decoder. Each answer is computed by the
engine when it is checked, never stored as a number."""

from ..counts import weight_bytes, weight_shapes
from ..units import MiB
from ..zoo import load_model
from .base import exercise

__all__ = []

exercise(
    "anatomy-1",
    "Llama-3.2-1B also ties lm_head to the embedding. A script that sums every tensor "
    "of its state dict (lm_head.weight included) reports what total? (an exact integer)",
    answer=lambda: int(weight_shapes(load_model("Llama-3.2-1B"))["numel"].sum()),
    why="The state dict lists lm_head.weight although it is the embedding matrix, so the "
        "sum counts vocab_size × hidden_size twice: 1,235,814,400 unique parameters + "
        "262,668,288 = 1,498,482,688, the same slip as seeds 002 and 003.",
    hint="Take lc.param_count(cfg).total and add the embedding (lc.param_count(cfg).embedding) "
         "once more.",
)

exercise(
    "anatomy-2",
    "How many parameters do Qwen3-0.6B's QK-norm tensors hold, all layers together "
    "(every q_norm.weight and k_norm.weight)? (an exact integer)",
    answer=lambda: int(weight_shapes(load_model("Qwen3-0.6B"))
                       .query("name.str.endswith('q_norm.weight') or "
                              "name.str.endswith('k_norm.weight')")["numel"].sum()),
    why="Each is an RMSNorm scale over one head's vector, so it has head_dim = 128 entries "
        "whatever the head count; 2 per layer × 28 layers × 128 = 7,168.",
    hint="QK-norm normalises each head's q and k; how wide is one head?",
)

exercise(
    "anatomy-3",
    "How many MiB (2**20 bytes) do Qwen3-0.6B's weights take in bf16, counting the tied "
    "embedding/lm_head matrix once? (within 0.1 %)",
    answer=lambda: weight_bytes(load_model("Qwen3-0.6B"), "bf16") / MiB,
    why="596,049,920 parameters × 2 bytes = 1,192,099,840 B = 1,136.88 MiB (1.19 GB). "
        "Seed 003's '1433.62 MB' is MiB too, and counts the 296.75 MiB matrix twice.",
    hint="lc.weight_bytes(cfg, 'bf16') gives bytes; divide by 2**20.",
    rel_tol=0.001,
)
