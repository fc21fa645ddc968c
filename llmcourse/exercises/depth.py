"""Exercises for the depth-and-width lesson."""

from __future__ import annotations

from ..counts import param_count, weight_shapes
from ..zoo import load_model
from .base import exercise

__all__ = []


def _layer0_params(name):
    ws = weight_shapes(load_model(name))
    return int(ws[(ws.layer == 0) & (ws.note == "")].numel.sum())


exercise(
    "depth-1",
    "Meta-Llama-3-8B with 64 layers instead of 32 (everything else unchanged): "
    "how many parameters in total, exactly?",
    answer=lambda: param_count(load_model("Meta-Llama-3-8B").replace(num_hidden_layers=64)).total,
    why="The 32 extra layers add exactly 32 times one layer's parameters; the embedding, "
        "lm_head and final norm stay as they are, so the total grows 1.87x, not 2x.",
    hint="cfg.replace(num_hidden_layers=64), then lc.param_count(...).total.")

exercise(
    "depth-2",
    "How many parameters does one decoder layer of Qwen3-8B hold (attention, MLP and "
    "its norms)?",
    answer=lambda: _layer0_params("Qwen3-8B"),
    why="Every Qwen3-8B layer is identical: q 4096->4096, k and v 4096->1024 (8 KV heads "
        "of 128), o 4096->4096, gate and up 4096->12288, down 12288->4096, plus q/k norms of "
        "128 and two RMSNorms of 4096. That is 11.5 d^2 and a little, not 12 d^2.",
    hint="lc.weight_shapes(cfg) lists every tensor with its layer; sum numel for layer 0.")

exercise(
    "depth-3",
    "What percentage of Qwen3-0.6B's parameters is its (tied) token embedding? "
    "Within 0.1 percentage point.",
    answer=lambda: 100 * param_count(load_model("Qwen3-0.6B")).embedding
    / param_count(load_model("Qwen3-0.6B")).total,
    why="151,936 x 1,024 = 155,582,464 of 596,049,920 parameters: a small model spends a "
        "quarter of its parameters on the vocabulary, and the tie saves another quarter.",
    hint="lc.param_count(cfg).embedding / .total, times 100.",
    rel_tol=0.004)
