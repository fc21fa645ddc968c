"""Exercises for lesson 7, mixture of experts versus dense (``07_moe_vs_dense``)."""

from __future__ import annotations

from ..config import as_moe
from ..counts import param_count
from ..zoo import load_model
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


# --- moe-2: the weights one token multiplies (what its FLOPs follow) -------------------

def _expert_width(cfg):
    return cfg.get("moe_intermediate_size") or cfg.intermediate_size


def _multiplied_by_fields(cfg):
    """The worked solution: per layer q, k, v, o, the router and k experts; the lm_head."""
    d, L, V = cfg.hidden_size, cfg.num_hidden_layers, cfg.vocab_size
    n_h, n_kv, d_h = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    attention = 2 * d * n_h * d_h + 2 * d * n_kv * d_h
    per_layer = attention + E * d + k * 3 * d * _expert_width(cfg)
    return L * per_layer + V * d          # the lm_head multiplies, tied or not


def _with_lookup(cfg):          # the input embedding counted as multiplied
    return _multiplied_by_fields(cfg) + cfg.vocab_size * cfg.hidden_size


def _active_count(cfg):        # what a token uses: the lookup and the norms included
    return param_count(cfg).active


def _without_head(cfg):         # the lm_head left out (a tied one "is the embedding")
    return _multiplied_by_fields(cfg) - cfg.vocab_size * cfg.hidden_size


def _every_expert(cfg):         # all E experts, as if every token ran them
    c = cfg
    return _multiplied_by_fields(c) + c.num_hidden_layers * (c.num_experts - c.num_experts_per_tok) \
        * 3 * c.hidden_size * _expert_width(c)


def _no_router(cfg):
    return _multiplied_by_fields(cfg) - cfg.num_hidden_layers * cfg.num_experts * cfg.hidden_size


def _head_dim_from_hidden(cfg):  # q and o taken as d x d (Qwen3-MoE's heads are wider)
    c = cfg
    d_h = c.hidden_size // c.num_attention_heads
    return _multiplied_by_fields(c) - c.num_hidden_layers * 2 * c.hidden_size * (
        c.num_attention_heads + c.num_key_value_heads) * (c.head_dim - d_h)


def _multiplied_cases():
    return ("Qwen3-30B-A3B", "Qwen3-235B-A22B",
            lambda: load_model("Qwen3-30B-A3B").replace(num_experts=32, num_experts_per_tok=2),
            lambda: load_model("Mixtral-8x7B-v0.1").replace(num_local_experts=16,
                                                            num_experts_per_tok=4),
            lambda: as_moe(load_model("Qwen3-0.6B"), 16, 4),      # tied, Qwen3-MoE layout
            lambda: as_moe(load_model("Llama-3.2-1B"), 8, 2))     # tied, Mixtral's layout


derive(
    "moe-2", NB,
    reference=lambda cfg: param_count(cfg).matmul_active, cases=_multiplied_cases(),
    solution=_multiplied_by_fields,
    mistakes=((_with_lookup, "that counts the input embedding as multiplied; a token looks up "
                             "one row of it and multiplies nothing there"),
              (_active_count, "that is what a token uses (the engine's active count): it "
                              "includes the embedding row the token looks up and the norm "
                              "weights, which scale; neither is a matmul"),
              (_without_head, "the lm_head is left out: every token's hidden state is "
                              "multiplied by the whole vocab_size × hidden_size matrix to score "
                              "the vocabulary, and a tied head is multiplied all the same"),
              (_every_expert, "that runs every expert; a token multiplies only the "
                              "num_experts_per_tok experts it is routed to"),
              (_no_router, "the router is a matmul too: num_experts × hidden_size per layer, "
                           "scoring every expert for every token"),
              (_head_dim_from_hidden, "q_proj and o_proj are num_attention_heads × head_dim wide: "
                                      "Qwen3-30B-A3B has 32 heads of 128 on a hidden size of "
                                      "2,048, not hidden / heads = 64")),
    wrong=(_with_lookup, _without_head, _every_expert, _no_router, _head_dim_from_hidden,
           _active_count),
    why="Multiplied = L · (2·d·n_h·d_h + 2·d·n_kv·d_h + E·d + k·3·d·d_e) + V·d: attention, "
        "router and k experts in every layer, and the lm_head. The embedding is looked up and "
        "the norms scale, so a token multiplies a little less than it uses: FLOPs per token "
        "are 2 × this, plus the attention scores.",
    hint="Go through one token's path: which matrices does its hidden state meet, in each "
         "layer and after the last? A lookup and a norm are not matmuls.")


def _llama_moe_ok(answer):
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
