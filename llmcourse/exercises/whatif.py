"""Exercises for the what-if lab (lesson 8, ``08_whatif_lab``). Every expected value and
every verdict is computed by the engine when the reader checks.

In the order the lab asks them: whatif-1 (predict: Qwen3-8B at half its depth),
whatif-2 (predict: gpt-oss-20b's cache at its full context, half its layers windowed),
whatif-3 (derive: what 8 experts add), whatif-4 (concept: why decode costs more FLOPs per
token), whatif-5 (design: half the KV cache at the same size)."""

from __future__ import annotations

from ..config import as_moe
from ..counts import kv_cache_bytes, kv_cache_bytes_per_token_per_layer, param_count
from ..units import GiB
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "08_whatif_lab"


# --- whatif-1: predict, then check in the lab -----------------------------------------

def _halved_depth_saving():
    q = load_model("Qwen3-8B")
    return param_count(q).total - param_count(q.replace(num_hidden_layers=18)).total


def _half_of_everything():
    return param_count(load_model("Qwen3-8B")).total // 2


predict(
    "whatif-1", NB,
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


# --- whatif-2: predict a windowed model's cache at its full context ---------------------

_W2_MODEL, _W2_TOKENS = "gpt-oss-20b", 131_072


def _windowed_cache_gib():
    return kv_cache_bytes(load_model(_W2_MODEL), _W2_TOKENS) / GiB


def _every_layer_grows_gib():
    """Every layer caching every token: the per-token figure times the context."""
    cfg = load_model(_W2_MODEL)
    return _W2_TOKENS * cfg.num_hidden_layers * kv_cache_bytes_per_token_per_layer(cfg) / GiB


predict(
    "whatif-2", NB,
    expected=_windowed_cache_gib,
    rel_tol=0.01,
    unit="GiB",
    mistakes=((_every_layer_grows_gib,
               "that lets all 24 layers cache every token; the 12 sliding-window layers keep "
               "only the last 128 tokens, a fixed 3 MiB between them"),
              (lambda: _every_layer_grows_gib() / 2 / 2,
               "that is half the full layers' cache: K and V are two vectors per KV head")),
    why="The 12 full-attention layers cache all 131,072 tokens: 12 × 2,048 × 131,072 B = "
        "3.0 GiB; the 12 sliding layers keep 128 tokens each: 12 × 2,048 × 128 B = 3 MiB. "
        "About 3.003 GiB, half of what 49,152 bytes per token × 131,072 tokens would say: "
        "past its window a sliding layer's cache stops growing.",
    hint="Split the 24 layers by kind: how many tokens does each kind keep at 131,072?",
    wrong=(6.0, 1.5, 3.22, "3.0"),
)


# --- whatif-3: derive what a dense model gains when made MoE ---------------------------

def _eight_expert_gain(cfg):
    return param_count(as_moe(cfg, 8, 2)).total - param_count(cfg).total


def _gain_by_fields(cfg):
    L, d, d_ff = cfg.num_hidden_layers, cfg.hidden_size, cfg.intermediate_size
    return L * (7 * 3 * d * d_ff + 8 * d)


def _eight_new_mlps(cfg):      # 8 experts added beside the original MLP, not in its place
    L, d, d_ff = cfg.num_hidden_layers, cfg.hidden_size, cfg.intermediate_size
    return L * (8 * 3 * d * d_ff + 8 * d)


def _no_router(cfg):
    L, d, d_ff = cfg.num_hidden_layers, cfg.hidden_size, cfg.intermediate_size
    return L * 7 * 3 * d * d_ff


def _one_layer(cfg):
    return _gain_by_fields(cfg) // cfg.num_hidden_layers


def _plain_mlp(cfg):           # an expert taken as two matrices
    L, d, d_ff = cfg.num_hidden_layers, cfg.hidden_size, cfg.intermediate_size
    return L * (7 * 2 * d * d_ff + 8 * d)


derive(
    "whatif-3", NB,
    reference=_eight_expert_gain,
    cases=("Llama-3.2-1B", "Mistral-Nemo-Base-2407", "Qwen3-0.6B", "Llama-3.2-3B"),
    why="Each of the L layers keeps its attention and norms; its MLP (3 · d · d_ff) becomes 8 "
        "of them plus a router of 8 · d: L · (7 · 3 · d · d_ff + 8 · d) more, whatever the "
        "model's embedding, tie or QK-norm. Top-2 changes what a token runs, not what is "
        "stored.",
    solution=_gain_by_fields,
    hint="What does one layer's MLP become, and what is new beside it?",
    mistakes=((_eight_new_mlps, "that is too much by exactly one original MLP (3 · d · d_ff) "
                                "per layer: one of the 8 experts takes the place of the MLP the "
                                "model had, so 7 are new"),
              (_no_router, "the router is new too: a hidden_size × 8 matrix in every layer "
                           "(8 · d parameters per layer)"),
              (_one_layer, "that is one layer's gain; each of the num_hidden_layers layers "
                           "gains it"),
              (_plain_mlp, "an expert is a copy of the original gated MLP: three matrices "
                           "(gate, up, down), not two")),
    wrong=(_no_router, _eight_new_mlps, _one_layer, _plain_mlp),
)


# --- whatif-4: concept: why decode costs more FLOPs per token than prefill -----------

concept(
    "whatif-4", NB,
    "d",
    {"a": "No: that is what the KV cache avoids; decode reads the cached K and V and computes "
          "them only for the new token.",
     "b": "No: a decoding step computes logits for its one new token; the prompt's logits "
          "were computed (or skipped) once, at prefill. And the lab charges the lm_head once "
          "per token in both modes.",
     "c": "No: batch changes how many bytes each FLOP costs to fetch, not how many FLOPs a "
          "token needs; the weight term is 2 × active parameters per token in both modes.",
     "d": "Yes."},
    why="The weight term is identical; the attention term grows with the keys a token attends "
        "to: n at position n (decode) against the mean of 1..n, (n+1)/2, over a causal "
        "prompt. FLOPs do not set decode speed, though: each step reads all the weights and "
        "the whole cache, so memory bandwidth does (lesson 10).",
)


# --- whatif-5: design a what-if with two constraints ---------------------------------

def _whatif5_ok(answer):
    if not isinstance(answer, dict) or not answer:
        return False, ("answer with the fields you change, as a dict, e.g. "
                       "answer = {\"num_key_value_heads\": 4}")
    base = load_model("Qwen3-8B")
    cfg = base.replace(**answer)  # an impossible change: the engine's one-line message
    kv0, kv = kv_cache_bytes(base, 32_768), kv_cache_bytes(cfg, 32_768)
    n0, n = param_count(base).total, param_count(cfg).total
    if kv > kv0 / 2:
        return False, (f"the KV cache at 32,768 tokens is {kv / GiB:.2f} GiB, "
                       f"{kv / kv0:.0%} of the original's: not at most half")
    drift = n / n0 - 1
    if abs(drift) > 0.005:
        return False, (f"the cache is halved, but the model now has {abs(n - n0):,} "
                       f"parameters {'more' if n > n0 else 'fewer'} ({abs(drift):.2%}); keep the "
                       "total within 0.5%: give back what the change took elsewhere")
    remark = ""
    if "sliding_attention" in cfg.layer_types:
        window = cfg.sliding_window
        remark = (f" It passes, with a caveat: with a {window:,}-token window a layer no longer "
                  f"sees a whole 32,768-token prompt, so the model reads less than the original "
                  "did; fewer KV heads would have halved the cache with full attention kept.")
    return True, (f"The cache is {kv / kv0:.0%} of the original's and the total moved by "
                  f"{drift:+.3%} ({n - n0:+,} parameters).{remark}")


design(
    "whatif-5", NB,
    validate=_whatif5_ok,
    why="Halving the KV heads (8 to 4) halves the cache but also removes 36 × 2 × 4,096 × 512 "
        "= 151M parameters of k_proj and v_proj, 1.8% of the model; widening the MLP gives "
        "them back: each unit of intermediate_size adds 36 × 3 × 4,096 = 442,368 parameters, "
        "so about 341 more: 12,629 lands within 0.002%, and a tile-friendly 12,544 (a "
        "multiple of 256) within 0.5% (−0.46%).",
    solution={"num_key_value_heads": 4, "intermediate_size": 12_544},
    hint="Which field halves the cache, what does that change cost in parameters, and which "
         "other field can give them back?",
    wrong=({"num_key_value_heads": 4}, {"num_key_value_heads": 2}, {"head_dim": 64},
           {"num_key_value_heads": 5}, 4, {}),
)
