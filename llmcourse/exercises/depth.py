"""Exercises for lesson 4, depth and width (``04_depth_and_width``)."""

from __future__ import annotations

from ..approx import layer_params
from ..counts import param_count
from ..zoo import as_config, load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "04_depth_and_width"


def _llama(**changes):
    return load_model("Meta-Llama-3-8B").replace(**changes)


def _total_ratio():
    return param_count(_llama(num_hidden_layers=64)).total / param_count(_llama()).total


predict(
    "depth-1", NB,
    "Meta-Llama-3-8B has 32 layers. Give it 64, everything else unchanged: by what factor "
    "does its total parameter count grow? (a ratio such as 1.5; within 0.5%)",
    expected=_total_ratio, rel_tol=0.005,
    mistakes=((lambda: 2.0, "2× would mean every parameter sits in a layer; the embedding, "
                            "the lm_head and the final norm do not grow with depth"),),
    why="The layers double exactly; the embedding and the untied lm_head (1.05B together) do "
        "not, so the total grows 1.87×, not 2×. The smaller the model, the further from 2×.",
    hint="Which parts of the model have one copy per layer, and which have one copy in all?",
    wrong=(2.0, 1.5, "1.87"))


def _llama_total(cfg):
    """The worked solution: a Llama-family model (GQA, SwiGLU, RMSNorm) from its fields."""
    L, d, V = cfg.num_hidden_layers, cfg.hidden_size, cfg.vocab_size
    n_h, n_kv, d_h, d_ff = (cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim,
                            cfg.intermediate_size)
    attention = 2 * d * n_h * d_h + 2 * d * n_kv * d_h
    mlp = 3 * d * d_ff
    per_layer = attention + mlp + 2 * d
    lm_head = 0 if cfg.tie_word_embeddings else V * d
    return L * per_layer + V * d + lm_head + d


def _untied_always(cfg):  # the common mistake: the tied lm_head counted again
    return _llama_total(cfg) + (cfg.vocab_size * cfg.hidden_size
                                if cfg.tie_word_embeddings else 0)


def _mha_assumed(cfg):  # k and v as wide as q: GQA forgotten
    d, d_h = cfg.hidden_size, cfg.head_dim
    return _llama_total(cfg) + cfg.num_hidden_layers * 2 * d * (
        cfg.num_attention_heads - cfg.num_key_value_heads) * d_h


def _head_dim_from_width(cfg):  # head_dim taken as hidden / heads, not from the config
    c = cfg.replace(head_dim=cfg.hidden_size // cfg.num_attention_heads)
    return _llama_total(c)


def _twelve_ld2(cfg):
    return 12 * cfg.num_hidden_layers * cfg.hidden_size ** 2


def _llama_cases():
    cases = ["Llama-3.2-1B", "Meta-Llama-3-70B", "Llama-3.2-3B",
             lambda: _llama(num_hidden_layers=48, num_key_value_heads=4),
             # a what-if whose heads are wider than d / heads: 32 × 128 = 4,096 = 2d
             lambda: load_model("Llama-3.2-1B").replace(head_dim=128)]
    from ..zoo import list_models
    if "Llama-3.1-8B" in list_models():
        cases.append("Llama-3.1-8B")
    return tuple(cases)


derive(
    "depth-2", NB,
    "Write `def total_params(cfg)` for a Llama-family model (GQA attention, SwiGLU MLP, "
    "RMSNorm; tied or untied embeddings) from its config fields. The checker runs it on "
    "Llama models the lesson never counted, tied and untied, and on what-ifs.",
    reference=lambda cfg: param_count(cfg).total, cases=_llama_cases(),
    solution=_llama_total, wrong=(_untied_always, _mha_assumed, _head_dim_from_width,
                                  _twelve_ld2),
    why="One layer is 2·d·n_h·d_h + 2·d·n_kv·d_h (attention) + 3·d·d_ff (SwiGLU) + 2·d "
        "(two RMSNorms); the embedding is V·d, counted once when the lm_head is tied.",
    hint="Count one layer, then what sits outside the stack; a tied model stores the "
         "vocabulary matrix once, an untied one twice.")

_TARGET = "Meta-Llama-3-8B"


def _whole(v):
    """A whole number (2816 or 2816.0), not a bool or a string."""
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and float(v).is_integer())


def _deep_narrow_ok(answer):
    from ..config import ModelConfig
    if isinstance(answer, ModelConfig):
        cfg = answer
    else:
        if not (isinstance(answer, (tuple, list)) and len(answer) == 2
                and all(_whole(v) for v in answer)):
            return False, ("answer with two whole numbers, (hidden_size, intermediate_size), "
                           "or with a config")
        hidden, inter = (int(v) for v in answer)
        if hidden % 128:
            return False, f"hidden_size {hidden:,} is not a multiple of 128"
        cfg = load_model(_TARGET).replace(num_hidden_layers=64, hidden_size=hidden,
                                          intermediate_size=inter)
    if cfg.num_hidden_layers != 64:
        return False, f"it has {cfg.num_hidden_layers} layers; the brief asks for 64"
    if cfg.hidden_size % 128:
        return False, f"hidden_size {cfg.hidden_size:,} is not a multiple of 128"
    target = layer_params(load_model(_TARGET))
    mine = layer_params(cfg)
    off = 100 * (mine - target) / target
    if abs(off) > 2:
        return False, (f"its 64 layers hold {abs(off):.1f}% "
                       f"{'more' if off > 0 else 'fewer'} parameters than Meta-Llama-3-8B's "
                       f"32 (allowed: 2%)")
    near = "within 0.1% of" if abs(off) < 0.05 else f"{off:+.1f}% from"
    ratio = cfg.intermediate_size / cfg.hidden_size
    why = ("Each layer's parameters grow like d² at a fixed MLP ratio, so half the budget per "
           "layer divides d by about √2: 4,096 / √2 ≈ 2,896.")
    if abs(ratio - 3.5) > 0.5:
        why = (f"You changed the MLP's shape too: intermediate_size is {ratio:.2f}× hidden_size "
               f"against Meta-Llama-3-8B's 3.5×. That meets the budget; keeping the ratio and "
               f"narrowing d by about √2 (4,096 / √2 ≈ 2,896) is the other way.")
    return True, (f"64 layers of d = {cfg.hidden_size:,} hold {mine:,} parameters, "
                  f"{near} Meta-Llama-3-8B's 32 layers of d = 4,096. {why}")


design(
    "depth-3", NB,
    "Deep and narrow at the same budget: change Meta-Llama-3-8B to 64 layers and pick "
    "hidden_size (a multiple of 128; its 32 query and 8 KV heads stay, so head_dim = "
    "hidden_size / 32) and intermediate_size so that its decoder layers hold the same number "
    "of parameters as the real 32 layers, within 2%. Answer (hidden_size, intermediate_size).",
    validate=_deep_narrow_ok, solution=(2816, 10560),
    wrong=((4096, 14336), (2048, 7168), (2944, 10304), "2816, 10560"),
    why="Depth and width trade against each other at a fixed budget: 64 layers of d ≈ 2,900 "
        "hold what 32 layers of d = 4,096 hold.",
    hint="Per layer the budget halves; which power of d does one layer's size follow?")


concept(
    "depth-4", NB,
    "Kaplan et al. (2020) fit their scaling laws to N, the parameters without the token and "
    "position embeddings. Why leave the embeddings out?",
    options={
        "a": "Counted with the embeddings, models of different depth and width do not fall on "
             "one loss curve; without them they do.",
        "b": "The embedding is too small to matter next to the layers, so leaving it out "
             "changes every one of the fits by less than a percent.",
        "c": "The embedding is not trained: it is a fixed lookup table, so it adds no "
             "capacity the loss could show.",
        "d": "A tied embedding is the lm_head, so counting it would count the same matrix "
             "twice.",
    },
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
