"""Exercises for the what-if lab (lesson 6). Each expected value is an engine call."""

from __future__ import annotations

from ..config import as_moe
from ..counts import param_count, weight_bytes
from ..units import GiB
from ..zoo import load_model
from .base import exercise

__all__ = []


def _halved_depth_saving():
    q = load_model("Qwen3-8B")
    return param_count(q).total - param_count(q.replace(num_hidden_layers=18)).total


def _top4_active():
    return param_count(load_model("Qwen3-30B-A3B").replace(num_experts_per_tok=4)).active


def _llama_8_experts_gib():
    return weight_bytes(as_moe(load_model("Meta-Llama-3-8B"), 8, 2), "bf16") / GiB


exercise(
    "whatif-1",
    "Qwen3-8B has num_hidden_layers = 36. What if it had 18? How many parameters "
    "fewer does it have (an exact integer: original total minus edited total)?",
    answer=_halved_depth_saving,
    why="Each decoder layer (attention, MLP, two norms) is identical, so halving the depth "
        "removes exactly 18 layers' worth of parameters. The embedding, the final norm and "
        "the untied lm_head stay, so the model shrinks by less than half.",
    hint="Pick Qwen3-8B in the lab, type 18 in num_hidden_layers and press Enter; subtract "
         "the edited total parameters from the original (both are printed exactly).",
)

exercise(
    "whatif-2",
    "Qwen3-30B-A3B routes each token to num_experts_per_tok = 8 of its 128 experts. What "
    "if it used 4? How many active parameters per token would it have (exact integer)?",
    answer=_top4_active,
    why="Only the routed experts a token visits change: 4 fewer experts per MoE layer, each "
        "3 x hidden_size x moe_intermediate_size parameters, over 48 layers. The total is "
        "unchanged: every expert is still stored.",
    hint="Pick Qwen3-30B-A3B, set num_experts_per_tok to 4; read 'active parameters per "
         "token' in the edited column.",
)

exercise(
    "whatif-3",
    "Give Meta-Llama-3-8B 8 experts with top-2 routing (lc.as_moe(cfg, 8, 2), the "
    "Mixtral layout). How many GiB do its weights take in bf16? (within 1 %)",
    answer=_llama_8_experts_gib,
    rel_tol=0.01,
    why="Every layer's MLP is copied 8 times (plus a small router), so the weights grow "
        "almost 8-fold on the MLP share; attention, embedding and lm_head do not change. "
        "This is Mixtral-8x7B's shape with Llama-3's larger vocabulary.",
    hint="In the lab, pick Meta-Llama-3-8B and type 8 in num_local_experts (0 = dense), "
         "with num_experts_per_tok 2; read 'weights, bf16'. GiB = bytes / 2**30.",
)
