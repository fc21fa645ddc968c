"""Exercises for lesson 6, depth and width (``06_depth_and_width``)."""

from __future__ import annotations

from ..approx import layer_params
from ..counts import param_count
from ..zoo import as_config, load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "06_depth_and_width"


def _doubled_ratio(name):
    cfg = load_model(name)
    return (param_count(cfg.replace(num_hidden_layers=2 * cfg.num_hidden_layers)).total
            / param_count(cfg).total)


def _head_untied(name):
    """The ratio if the tied lm_head is taken for a second V x d matrix."""
    cfg = load_model(name)
    V, d = cfg.vocab_size, cfg.hidden_size
    total = param_count(cfg).total
    layers = total - 2 * V * d - d
    return (2 * layers + 2 * V * d + d) / total


_DEPTH1 = "Qwen3-0.6B"

predict(
    "depth-1", NB,
    expected=lambda: _doubled_ratio(_DEPTH1), rel_tol=0.005,
    mistakes=((lambda: 2.0, "2× would mean every parameter sits in a layer; the embedding "
                            "and the final norm do not grow with depth"),
              (lambda: _head_untied(_DEPTH1),
               "Qwen3-0.6B ties its lm_head to the embedding: one 151,936 × 1,024 matrix, "
               "not two, so the layers are a larger part of the model than that"),
              (lambda: _doubled_ratio("Meta-Llama-3-8B"),
               "that is Meta-Llama-3-8B's ratio, whose embedding and lm_head are 13% of it; "
               "Qwen3-0.6B's embedding is a larger share")),
    why="The 28 layers (440,466,432 parameters) double; the tied embedding (155,582,464, a "
        "quarter of the model) and the final norm do not, so the total grows 1.74×, not 2×. "
        "Meta-Llama-3-8B, whose embedding and lm_head are 13% of it, grows 1.87×: the smaller "
        "the model, the further from 2×.",
    hint="Which parts of the model have one copy per layer, and which have one copy in all? "
         "The embedding table above gives the second part's share.",
    wrong=(2.0, 1.5, 1.869, "1.74"))


def _coefficient(cfg):
    """The engine's answer: one decoder layer's parameters in units of d²."""
    return layer_params(cfg) / (cfg.num_hidden_layers * cfg.hidden_size ** 2)


def _plain(cfg):   # a plain MLP (lesson 5: GPT-2, GPT-NeoX, phi, StarCoder2): two matrices
    return cfg.layout.mlp == "plain"


def _coefficient_by_fields(cfg):
    """The worked solution: the matrices of one decoder layer, over d²."""
    d, n_h, n_kv, d_h, d_ff = (cfg.hidden_size, cfg.num_attention_heads,
                               cfg.num_key_value_heads, cfg.head_dim, cfg.intermediate_size)
    mlp = 2 if _plain(cfg) else 3
    return (2 * d * n_h * d_h + 2 * d * n_kv * d_h + mlp * d * d_ff) / d ** 2


def _mha_coefficient(cfg):  # k and v as wide as q: GQA forgotten
    d = cfg.hidden_size
    mlp = 2 if _plain(cfg) else 3
    return (4 * d * cfg.num_attention_heads * cfg.head_dim + mlp * d * cfg.intermediate_size) / d ** 2


def _all_gated(cfg):  # three MLP matrices everywhere, a plain MLP's two included
    d, n_h, n_kv, d_h = (cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads,
                         cfg.head_dim)
    return (2 * d * n_h * d_h + 2 * d * n_kv * d_h + 3 * d * cfg.intermediate_size) / d ** 2


def _all_plain(cfg):  # two MLP matrices everywhere, a gated MLP's three forgotten
    d, n_h, n_kv, d_h = (cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads,
                         cfg.head_dim)
    return (2 * d * n_h * d_h + 2 * d * n_kv * d_h + 2 * d * cfg.intermediate_size) / d ** 2


def _head_dim_from_hidden(cfg):  # head_dim taken as hidden / heads (wrong for Qwen3)
    d, n_h, n_kv, d_ff = (cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads,
                          cfg.intermediate_size)
    d_h = d // n_h
    mlp = 2 if _plain(cfg) else 3
    return (2 * d * n_h * d_h + 2 * d * n_kv * d_h + mlp * d * d_ff) / d ** 2


derive(
    "depth-2", NB,
    reference=_coefficient,
    cases=("Meta-Llama-3-70B", "Qwen3-32B", "Mistral-Nemo-Base-2407", "phi-2", "Llama-3.2-1B",
           "Qwen2-7B", lambda: load_model("Llama-3.2-1B").replace(num_key_value_heads=2),
           lambda: load_model("pythia-1b").replace(intermediate_size=6144)),
    rel_tol=0.002,
    solution=_coefficient_by_fields,
    mistakes=((_head_dim_from_hidden, "head_dim is its own field here: Qwen3-32B has 64 heads "
                                      "of 128, not hidden / heads = 80"),
              (_mha_coefficient, "k_proj and v_proj are as wide as q_proj in your count: with "
                                 "GQA they have num_key_value_heads × head_dim outputs"),
              (_all_gated, "that counts three MLP matrices, but this model's MLP is plain "
                           "(lesson 5: GPT-2, GPT-NeoX, phi, StarCoder2): up and down, two"),
              (_all_plain, "that counts two MLP matrices; a gated (SwiGLU) MLP has three: "
                           "gate, up, down")),
    wrong=(lambda cfg: 12, _mha_coefficient, _all_gated, _all_plain, _head_dim_from_hidden),
    why="c = 2·n_h·d_h/d + 2·n_kv·d_h/d + m·d_ff/d, with m = 3 matrices for a gated MLP and 2 "
        "for a plain one: 13 for Meta-Llama-3-8B (2 + 0.5 + 10.5), 18.6 for Qwen3-32B (3.2 + "
        "0.4 + 15), whose 64 heads of 128 are 1.6 d wide, and 12 for phi-2 (4 + 8), the layout "
        "the rule was written for. GQA lowers the attention part, SwiGLU at 3.5× or 5× raises "
        "the MLP part: 12 was GPT-2's coefficient, not a law.",
    hint="Write each matrix's two sides with config fields, add them, divide by d²; lesson 5 "
         "says which MLPs have two matrices and which three.")

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
        "a": "two models of the same N, one wide with a large vocabulary and one deep and "
             "narrow, carry very different embeddings (a quarter of Qwen3-0.6B, 1.5% of "
             "Meta-Llama-3-70B) for the same work per token, so counting the embedding moves "
             "each model along the parameter axis by an amount the loss does not follow.",
        "b": "Not in small models: it is a quarter of Qwen3-0.6B and a third of GPT-2 small.",
        "c": "It is trained like every other weight; only its forward use is a lookup.",
        "d": "A tie is counted once by every convention; the question is whether to count it "
             "at all.",
    },
    why="N is what grows with the layers and what the layers compute with; the embedding "
        "share is a property of the tokenizer and the width.")
