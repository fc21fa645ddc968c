"""Exercises for lesson 6, depth and width (``06_depth_and_width``)."""

from __future__ import annotations

from ..approx import layer_params
from ..counts import param_count
from ..zoo import as_config, load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "06_depth_and_width"


def _llama(**changes):
    return load_model("Meta-Llama-3-8B").replace(**changes)


def _total_ratio():
    return param_count(_llama(num_hidden_layers=64)).total / param_count(_llama()).total


predict(
    "depth-1", NB,
    expected=_total_ratio, rel_tol=0.005,
    mistakes=((lambda: 2.0, "2× would mean every parameter sits in a layer; the embedding, "
                            "the lm_head and the final norm do not grow with depth"),),
    why="The layers double exactly; the embedding and the untied lm_head (1.05B together) do "
        "not, so the total grows 1.87×, not 2×. The smaller the model, the further from 2×.",
    hint="Which parts of the model have one copy per layer, and which have one copy in all?",
    wrong=(2.0, 1.5, "1.87"))


def _coefficient(cfg):
    """The engine's answer: one decoder layer's parameters in units of d²."""
    return layer_params(cfg) / (cfg.num_hidden_layers * cfg.hidden_size ** 2)


def _coefficient_by_fields(cfg):
    """The worked solution: the matrices of one Llama-style layer, over d²."""
    d, n_h, n_kv, d_h, d_ff = (cfg.hidden_size, cfg.num_attention_heads,
                               cfg.num_key_value_heads, cfg.head_dim, cfg.intermediate_size)
    return (2 * d * n_h * d_h + 2 * d * n_kv * d_h + 3 * d * d_ff) / d ** 2


def _mha_coefficient(cfg):  # k and v as wide as q: GQA forgotten
    d = cfg.hidden_size
    return (4 * d * cfg.num_attention_heads * cfg.head_dim + 3 * d * cfg.intermediate_size) / d ** 2


def _two_matrix_mlp(cfg):  # a plain MLP's two matrices for a gated one
    d = cfg.hidden_size
    return _coefficient_by_fields(cfg) - cfg.intermediate_size / d


def _head_dim_from_hidden(cfg):  # head_dim taken as hidden / heads (wrong for Qwen3)
    d, n_h, n_kv, d_ff = (cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads,
                          cfg.intermediate_size)
    d_h = d // n_h
    return (2 * d * n_h * d_h + 2 * d * n_kv * d_h + 3 * d * d_ff) / d ** 2


derive(
    "depth-2", NB,
    reference=_coefficient,
    cases=("Meta-Llama-3-70B", "Qwen3-32B", "Mistral-Nemo-Base-2407", "Llama-3.2-1B",
           "Qwen2-7B", lambda: load_model("Llama-3.2-1B").replace(num_key_value_heads=2)),
    rel_tol=0.001,
    solution=_coefficient_by_fields,
    mistakes=((_head_dim_from_hidden, "head_dim is its own field here: Qwen3-32B has 64 heads "
                                      "of 128, not hidden / heads = 80"),
              (_mha_coefficient, "k_proj and v_proj are as wide as q_proj in your count: with "
                                 "GQA they have num_key_value_heads × head_dim outputs"),
              (_two_matrix_mlp, "that counts two MLP matrices; a SwiGLU MLP has three (gate, "
                                "up, down)")),
    wrong=(lambda cfg: 12, _mha_coefficient, _two_matrix_mlp, _head_dim_from_hidden),
    why="c = 2·n_h·d_h/d + 2·n_kv·d_h/d + 3·d_ff/d: 13 for Meta-Llama-3-8B (2 + 0.5 + 10.5), "
        "18.6 for Qwen3-32B (3.2 + 0.4 + 15), whose 64 heads of 128 are 1.6 d wide. GQA lowers "
        "the attention part, SwiGLU at 3.5× or 5× raises the MLP part: 12 was GPT-2's "
        "coefficient, not a law.",
    hint="Write each matrix's two sides with config fields, add them, divide by d².")

_TARGET = "Meta-Llama-3-8B"
_TUNED_HEAD_DIMS = (64, 128)


def _deep_narrow_ok(answer):
    if not isinstance(answer, dict) or not answer:
        return False, ("answer with a dict of the fields you change, e.g. "
                       "{\"hidden_size\": 3000, \"intermediate_size\": 9000}")
    changes = dict(answer)
    if changes.setdefault("num_hidden_layers", 64) != 64:
        return False, f"it has {changes['num_hidden_layers']} layers; the brief asks for 64"
    cfg = load_model(_TARGET).replace(**changes)  # an impossible config: the engine's message
    d = cfg.hidden_size
    if d > 3072:
        return False, (f"hidden_size {d:,} is not narrow: deep and narrow means at most "
                       "3,072 (three quarters of 4,096)")
    if d % 128:
        return False, f"hidden_size {d:,} is not a multiple of 128"
    if cfg.head_dim not in _TUNED_HEAD_DIMS:
        return False, (f"head_dim is {cfg.head_dim} (hidden_size / num_attention_heads unless "
                       "you set it): lesson 1's usual widths are 64 and 128; set the head count "
                       "or head_dim to keep one")
    ratio = cfg.intermediate_size / d
    if not 2.5 <= ratio <= 4:
        return False, (f"intermediate_size is {ratio:.2f}× hidden_size; keep a SwiGLU-like "
                       "MLP of 2.5× to 4× (Meta-Llama-3-8B's is 3.5×)")
    target = layer_params(load_model(_TARGET))
    mine = layer_params(cfg)
    off = 100 * (mine - target) / target
    if abs(off) > 2:
        return False, (f"its 64 layers hold {abs(off):.1f}% "
                       f"{'more' if off > 0 else 'fewer'} parameters than Meta-Llama-3-8B's "
                       f"32 (allowed: 2%)")
    return True, (f"64 layers of d = {d:,} ({cfg.num_attention_heads} heads of "
                  f"{cfg.head_dim}, MLP {ratio:.2f}×) hold {mine:,} parameters, "
                  f"{off:+.1f}% from Meta-Llama-3-8B's 32 layers of d = 4,096. Each layer's "
                  "matrices grow like d² at fixed ratios, so half the budget per layer divides "
                  "d by about √2 (4,096 / √2 ≈ 2,896).")


design(
    "depth-3", NB,
    validate=_deep_narrow_ok,
    solution={"hidden_size": 3072, "num_attention_heads": 24, "head_dim": 128,
              "intermediate_size": 9088},
    wrong=({"hidden_size": 2816, "intermediate_size": 10560},   # head_dim 88
           {"hidden_size": 4096, "intermediate_size": 5461},    # not narrow
           {"hidden_size": 1024, "num_attention_heads": 8, "intermediate_size": 35000},
           {"hidden_size": 3072, "num_attention_heads": 24, "head_dim": 128,
            "intermediate_size": 14336},                          # over budget
           (2816, 10560), {"num_hidden_layers": 48}),
    why="Depth and width trade against each other at a fixed budget: 64 layers of d ≈ 2,900 "
        "hold what 32 layers of d = 4,096 hold.",
    hint="Per layer the budget halves; which power of d does one layer's size follow? Try a "
         "design with lc.param_count(lc.load_model('Meta-Llama-3-8B').replace(...)) first.")


concept(
    "depth-4", NB,
    correct="a",
    feedback={
        "a": "Kaplan et al., figure 6: with embeddings the curves of different shapes split, "
             "without them they merge into one power law. The embedding's share depends on "
             "the vocabulary and the width, not on what the layers compute per token.",
        "b": "Not in small models: it is a quarter of Qwen3-0.6B and a third of GPT-2 small.",
        "c": "It is trained like every other weight; only its forward use is a lookup.",
        "d": "A tie is counted once by every convention; the question is whether to count it "
             "at all.",
    },
    why="N is what grows with the layers and what the layers compute with; the embedding "
        "share is a property of the tokenizer and the width.")
