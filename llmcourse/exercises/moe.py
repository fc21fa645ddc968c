"""Exercises for the MoE-versus-dense lesson."""

from __future__ import annotations

from ..config import as_moe
from ..counts import param_count, weight_bytes
from ..zoo import load_model
from .base import exercise

__all__ = []

exercise(
    "moe-1",
    "Qwen3-30B-A3B: how many parameters does one token use (the engine's convention: "
    "embedding and lm_head included)?",
    answer=lambda: param_count(load_model("Qwen3-30B-A3B")).active,
    why="Each of the 48 layers keeps 8 of its 128 experts (3 x 2048 x 768 parameters each); "
        "attention, router, norms, embedding and lm_head are always used: 3.35B of 30.5B.",
    hint="lc.param_count(cfg).active; or total minus 120 unused experts in each of 48 layers.")

exercise(
    "moe-2",
    "gpt-oss-20b as OpenAI ships it (routed experts in mxfp4 at 4.25 bits per parameter, "
    "everything else in bf16): how many bytes of weights?",
    answer=lambda: weight_bytes(load_model("gpt-oss-20b"), "bf16", experts_dtype="mxfp4"),
    why="19,116,933,120 expert parameters x 4.25 bits plus 1,797,824,064 others x 16 bits: "
        "about 12.8 GiB, where all-bf16 would take 39 GiB.",
    hint='lc.weight_bytes(cfg, "bf16", experts_dtype="mxfp4").')

exercise(
    "moe-3",
    "Meta-Llama-3-8B turned into a mixture of experts with 64 experts and top-2 routing "
    "(each expert a full 14,336-wide SwiGLU MLP, lc.as_moe): how many parameters in total?",
    answer=lambda: param_count(as_moe(load_model("Meta-Llama-3-8B"), 64, 2)).total,
    why="Every layer now stores 64 copies of its MLP plus a 64 x 4096 router; attention, norms, "
        "embedding and lm_head are unchanged. A token still uses only 2 experts per layer.",
    hint="lc.param_count(lc.as_moe(cfg, 64, 2)).total.")

exercise(
    "moe-4",
    "DeepSeek-V3's active parameters per token without the embedding and the lm_head?",
    answer=lambda: (lambda pc: pc.active - pc.embedding - pc.components["lm_head"])(
        param_count(load_model("DeepSeek-V3"))),
    why="37,552,282,624 minus two 129,280 x 7,168 matrices: 35.7B. DeepSeek's published 37B "
        "counts the embedding and the output head, as the engine's .active does.",
    hint='pc = lc.param_count(cfg); pc.active - pc.embedding - pc.components["lm_head"].')
