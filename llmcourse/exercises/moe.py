"""Exercises for lesson 7, mixture of experts versus dense (``07_moe_vs_dense``)."""

from __future__ import annotations

from ..counts import param_count
from ..zoo import list_models, load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "07_moe_vs_dense"


def _mixtral(**changes):
    return load_model("Mixtral-8x7B-v0.1").replace(**changes)


def _mixtral16_active_change():
    return param_count(_mixtral(num_local_experts=16)).active - param_count(_mixtral()).active


def _mixtral16_total_change():
    return param_count(_mixtral(num_local_experts=16)).total - param_count(_mixtral()).total


def _mixtral8_more_experts():  # the total's change without the router rows
    c = _mixtral()
    return 8 * 3 * c.hidden_size * c.intermediate_size * c.num_hidden_layers


predict(
    "moe-1", NB,
    expected=_mixtral16_active_change, unit="parameters",
    mistakes=((lambda: 0, "nearly: a token still runs 2 experts, but one part that every "
                          "token uses grows with the number of experts"),
              (_mixtral8_more_experts, "that is the size of the 8 new experts in all 32 layers, "
                                       "which only the total holds; a token still runs 2"),
              (_mixtral16_total_change, "that is how much the total grows (8 more experts in "
                                        "each of 32 layers); a token still runs only 2")),
    why="The router scores every expert for every token: its matrix is num_local_experts × d "
        "per layer, so 8 more experts add 8 × 4,096 × 32 layers = 1,048,576 active parameters. "
        "The experts a token runs stay 2. Memory grows by 45B, compute by less than 0.01%.",
    hint="List what one token touches in an MoE layer, and ask which of those has a size "
         "that depends on the number of experts.",
    wrong=(0, 2 * 14336 * 4096 * 3 * 32, "0"))


def _solution_active(cfg):
    """The worked solution: total minus the routed experts a token skips."""
    total = param_count(cfg).total
    d, E, k = cfg.hidden_size, cfg.num_experts, cfg.num_experts_per_tok
    d_e = cfg.get("moe_intermediate_size") or cfg.intermediate_size
    moe_layers = cfg.num_hidden_layers - (cfg.get("first_k_dense_replace") or 0)
    return total - moe_layers * (E - k) * 3 * d * d_e


def _expert(cfg):
    d_e = cfg.get("moe_intermediate_size") or cfg.intermediate_size
    return 3 * cfg.hidden_size * d_e


def _forgets_dense_layers(cfg):
    total = param_count(cfg).total
    return total - cfg.num_hidden_layers * (cfg.num_experts - cfg.num_experts_per_tok) * _expert(cfg)


def _fraction_of_total(cfg):
    return param_count(cfg).total * cfg.num_experts_per_tok // cfg.num_experts


def _all_experts(cfg):          # nothing taken away: the total itself
    return param_count(cfg).total


def _drops_shared(cfg):         # the shared experts taken away as if skipped
    return _solution_active(cfg) - param_count(cfg).components["shared_experts"]


def _hidden_4x_experts(cfg):    # a dense-MLP width (4 x hidden) for one expert
    moe_layers = cfg.num_hidden_layers - (cfg.get("first_k_dense_replace") or 0)
    return param_count(cfg).total - moe_layers * (cfg.num_experts - cfg.num_experts_per_tok) \
        * 3 * cfg.hidden_size * 4 * cfg.hidden_size


def _moe_cases():
    cases = ["DeepSeek-V2", "Qwen3-235B-A22B",
             lambda: load_model("DeepSeek-V3").replace(n_routed_experts=64,
                                                       num_experts_per_tok=4),
             lambda: load_model("Qwen3-30B-A3B").replace(num_experts=32, num_experts_per_tok=2)]
    for name in ("GLM-4.5-Air", "Qwen1.5-MoE-A2.7B-Chat", "Llama-4-Scout-17B-16E-Instruct"):
        if name in list_models():
            cases.append(name)
    return tuple(cases)


derive(
    "moe-2", NB,
    reference=lambda cfg: param_count(cfg).active, cases=_moe_cases(),
    # the exercise is about what a token skips, not about counting the whole model: the
    # total may come from the engine (the prompt says so: **May call:** lc.param_count)
    allowed=("param_count",),
    solution=_solution_active,
    mistakes=((_all_experts, "that is the total: a token runs only num_experts_per_tok of "
                             "the routed experts in each MoE layer; take away the rest"),
              (_forgets_dense_layers, "you took experts away from every layer, but the first "
                                      "first_k_dense_replace layers have a dense MLP and no "
                                      "experts to skip"),
              (_drops_shared, "you took the shared experts away too; every token runs them, "
                              "so they count as active"),
              (_fraction_of_total, "k / E of the total scales attention, the embedding and "
                                   "the lm_head too, which every token uses; only the routed "
                                   "experts a token skips leave the count"),
              (_hidden_4x_experts, "one expert is 3 × hidden × moe_intermediate_size (the "
                                   "expert's own width), not a 4 × hidden dense MLP")),
    wrong=(_forgets_dense_layers, _fraction_of_total, _all_experts, _drops_shared),
    why="Active = total − (MoE layers) × (E − k) × 3·d·d_e: only the routed experts a token "
        "skips are left out; attention, router, shared experts, dense layers, embedding and "
        "lm_head all count.",
    hint="Start from the total and take away what a token does not touch; in which layers "
         "does a token skip anything?")


def _llama_moe_ok(answer):
    from ..config import as_moe
    if not (isinstance(answer, (tuple, list)) and len(answer) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                    and float(v).is_integer() for v in answer)):
        return False, ("answer with three whole numbers: (num_experts, num_experts_per_tok, "
                       "moe_intermediate_size)")
    E, k, size = (int(v) for v in answer)
    cfg = as_moe(load_model("Meta-Llama-3-8B"), E, k, moe_intermediate_size=size)
    pc = param_count(cfg)
    total, active = pc.total / 1e9, pc.active / 1e9
    if k < 2:
        return False, "top-k must be at least 2 here (each token mixes two or more experts)"
    if pc.total < 40 * 10**9:
        return False, f"it stores {total:.2f}B parameters; the brief asks for at least 40B"
    if pc.active > 9 * 10**9:
        return False, f"a token uses {active:.2f}B parameters; the brief allows at most 9B"
    return True, (f"{E} experts of {size:,}, top-{k}: {total:.2f}B stored, {active:.2f}B "
                  f"used per token ({100 * pc.active / pc.total:.1f}%).")


design(
    "moe-3", NB,
    validate=_llama_moe_ok, solution=(16, 2, 7168),
    wrong=((8, 2, 14336), (64, 1, 14336), (4, 2, 3584), "16, 2, 7168"),
    why="Total grows with num_experts × width, active with top-k × width: narrower experts "
        "let a token mix several of them at the same compute (DeepSeekMoE's fine-grained "
        "experts), while the stored total grows with the count.",
    hint="Write total and active as (the dense model without its MLP) + (number of experts, "
         "or top-k) × (one expert); which knob moves one but not the other?")


concept(
    "moe-4", NB,
    correct="c",
    feedback={
        "a": "Each of the 64 is a quarter as wide: 64 × 1,024 = 16 × 4,096 columns, so the "
             "experts hold the same parameters; only the router gains rows.",
        "b": "8 experts of 1,024 = 2 experts of 4,096: the same width runs per token.",
        "c": "C(64, 8) ≈ 4.4 billion combinations against C(16, 2) = 120: finer specialisation "
             "at the same cost (Dai et al. 2024).",
        "d": "Each expert is 4× narrower, but a token runs 4× as many of them (8 of 1,024 = 2 "
             "of 4,096): the active parameters, and the FLOPs, stay the same.",
    },
    why="Fine-grained segmentation keeps memory and compute and buys flexibility; DeepSeekMoE "
        "adds shared experts that every token runs, so the routed ones need not relearn common "
        "knowledge.")
