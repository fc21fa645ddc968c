"""Exercises for lesson 5, FFN sizing (``05_ffn_sizing``, ids ffn-*).

Every expected value is computed by the engine when the reader checks (or, for
Meta's rounding rule, is the value Meta published); no answer here is printed in
the notebook above its exercise.
"""

from __future__ import annotations

from ..counts import param_count
from ..sizing import ffn_attention_split
from ..zoo import load_model
from .base import design, concept, derive, predict

__all__ = []

NB = "05_ffn_sizing"

# Llama-3.1-405B's intermediate_size as published in its config.json
# (huggingface.co/meta-llama/Llama-3.1-405B); its params.json gives hidden 16384,
# ffn_dim_multiplier 1.2 and multiple_of 4096.
LLAMA31_405B_INTERMEDIATE = 53248

predict(
    "ffn-1", NB,
    expected=lambda: LLAMA31_405B_INTERMEDIATE,
    why="int(2 · 4 · 16,384 / 3) = 43,690; int(1.2 · 43,690) = 52,428; rounded up to a "
        "multiple of 4,096: 13 · 4,096 = 53,248 (3.25 × hidden), the value in its config.json.",
    hint="the same four steps as for Llama-3.1-8B: two truncations, then round up.",
    unit="",
    mistakes=((lambda: 45056, "you left out ffn_dim_multiplier (1.2)"),
              (lambda: 52428, "one step is missing: round up to a multiple of multiple_of"),
              (lambda: 49152, "round *up* to the next multiple, not down"),
              (lambda: 43690, "that is only 2/3 of 4 × hidden: the multiplier and the "
                              "rounding are still to come")),
    wrong=(45056, 52428, 49152, 43690, "53248"),
)


def _plain(cfg):               # a plain MLP (up, down), not gated: two matrices with biases
    return cfg.layout.mlp == "plain"


def _ffn_params_solution(cfg):
    """The worked solution: FFN parameters of one layer of a dense model."""
    d, inter = cfg.hidden_size, cfg.intermediate_size
    if _plain(cfg):               # plain: 2 matrices, each with a bias
        return 2 * d * inter + inter + d
    return 3 * d * inter                                 # gated: gate, up, down; no biases


def _llama31_wide():
    return load_model("Llama-3.1-8B").replace(intermediate_size=20480)


def _all_gated(cfg):           # three matrices everywhere: plain MLPs counted as gated
    return 3 * cfg.hidden_size * cfg.intermediate_size


def _no_biases(cfg):           # the right matrices, the biases forgotten
    k = 2 if _plain(cfg) else 3
    return k * cfg.hidden_size * cfg.intermediate_size


def _all_plain(cfg):           # two matrices everywhere: gated MLPs counted as plain
    return 2 * cfg.hidden_size * cfg.intermediate_size + (
        cfg.intermediate_size + cfg.hidden_size if _plain(cfg) else 0)


def _phi_only(cfg):            # phi-2 (attention and MLP side by side) as the only plain MLP
    d, inter = cfg.hidden_size, cfg.intermediate_size
    return 2 * d * inter + inter + d if cfg.layout.parallel else 3 * d * inter


derive(
    "ffn-2", NB,
    reference=lambda cfg: param_count(cfg).components["mlp"] // cfg.num_hidden_layers,
    cases=["Mistral-Nemo-Base-2407", "Qwen3-0.6B", "gemma-2-2b", "phi-2", "gpt2", "pythia-1b",
           "starcoder2-15b", _llama31_wide],
    why="A gated MLP has three hidden × intermediate matrices and no biases; a plain one "
        "(GPT-2, GPT-NeoX, phi, StarCoder2) has two, each with a bias: intermediate + hidden "
        "values more.",
    solution=_ffn_params_solution,
    hint="count the matrices of each kind of MLP, and the biases of the plain ones; which "
         "families in this lesson's table are plain?",
    mistakes=((_phi_only, "GPT-2 and GPT-NeoX (Pythia) have plain MLPs too: two matrices "
                          "with biases, like phi-2"),
              (_all_gated, "that counts three matrices, but this model's MLP is plain: two "
                           "matrices (GPT-2, GPT-NeoX, phi and StarCoder2), each with a bias"),
              (_no_biases, "the matrices are right; a plain MLP also has two biases, "
                           "intermediate_size + hidden_size values"),
              (_all_plain, "that counts two matrices, but this model's MLP is gated: "
                           "gate_proj, up_proj and down_proj")),
    wrong=(_all_gated, _no_biases, _phi_only, _all_plain),
)


def _flop_share(seq_len, mode):
    return 100 * ffn_attention_split(load_model("Llama-3.1-8B"), seq_len, mode)["ffn_flop_share"]


def _ffn_over_fixed():
    """The FFN's share if the context-dependent scores are forgotten (n = 0 keys)."""
    split = ffn_attention_split(load_model("Llama-3.1-8B"), 131072, "prefill")
    return split["ffn_flops"] / (split["total_flops"] - split["attention_score_flops"])


predict(
    "ffn-3", NB,
    expected=lambda: _flop_share(131072, "prefill"),
    why="The FFN's 2 · 3 · d · d_ff · L FLOPs per token stay fixed, while the attention scores "
        "grow with the keys attended: at 131,072 tokens they outweigh the FFN; its share "
        "falls to about 22.8%.",
    hint="the FFN, the projections and the lm_head cost 2 FLOPs per weight; the scores cost "
         "2 · n_h · 2 · d_h per key per layer. How many keys does an average prompt token see?",
    rel_tol=0.01, unit="%",
    mistakes=((lambda: _flop_share(131072, "decode"),
               "you let every token attend to all 131,072 keys; in a causal prompt token i "
               "attends to i keys, (n+1)/2 on average"),
              (lambda: _flop_share(32768, "prefill"),
               "that is the share at 32,768 tokens; at 131,072 each token sees four times as "
               "many keys on average, so the scores weigh four times as much"),
              (lambda: _flop_share(4096, "prefill"),
               "that is the share at 4,096 tokens: redo the scores term with n = 131,072"),
              (lambda: 100 * _ffn_over_fixed(),
               "you left out the attention scores, which grow with the context")),
    wrong=(13.5, 75.1, 70.1, 47.8, "22.8"),
)

concept(
    "ffn-4", NB,
    correct="b",
    feedback={
        "a": "the width is the same, but a gated MLP has three hidden × intermediate "
             "matrices and a plain one two; equal weights need 8/3× for the gated one.",
        "b": "3 · d · 4d = 12 · d² against 2 · d · 4d = 8 · d²: 1.5×. Gemma spends the extra "
             "weights (and FLOPs) on purpose; 8/3× is where the two would cost the same.",
        "c": "that would take four matrices; gate_proj, up_proj and down_proj are three.",
        "d": "8/3 is the width that makes the costs equal (3 · 8/3 = 2 · 4), not a ratio "
             "of weights.",
    },
    why="Weights of one MLP: 3 · d · d_ff gated, 2 · d · d_ff plain. Shazeer (2020) compared GLU "
        "variants at equal cost by cutting d_ff to 2/3 of 4d; a model that keeps 4d pays 1.5×.",
)

# --- ffn-5: design a width that splits into whole tiles over 8 GPUs -------------------

_FFN5_HIDDEN, _FFN5_TP, _FFN5_TILE, _FFN5_MAX_OVER = 5632, 8, 128, 0.10


def _tp_width_ok(answer):
    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, "answer with a whole number, the intermediate_size, e.g. answer = 15000"
    target = 8 * _FFN5_HIDDEN / 3
    if answer < target:
        return False, (f"{answer:,} is below 8/3 × hidden ({target:,.1f}): the design asks for "
                       "at least the SwiGLU width")
    shard = answer / _FFN5_TP
    if answer % _FFN5_TP:
        return False, f"{answer:,} does not split into {_FFN5_TP} equal shards ({shard:,.2f} each)"
    if (answer // _FFN5_TP) % _FFN5_TILE:
        return False, (f"each of the {_FFN5_TP} shards is {answer // _FFN5_TP:,} = "
                       f"{answer // _FFN5_TP / _FFN5_TILE:.2f} × {_FFN5_TILE}: not whole tiles")
    over = answer / target - 1
    if over > _FFN5_MAX_OVER:
        return False, (f"{answer:,} splits into whole tiles, but it is {over:.1%} wider than "
                       f"8/3 × hidden; a narrower width also does (the design allows "
                       f"{_FFN5_MAX_OVER:.0%})")
    narrowest = -(-int(target) // (_FFN5_TP * _FFN5_TILE)) * _FFN5_TP * _FFN5_TILE
    than = ("the narrowest width that does" if answer == narrowest else
            f"; {narrowest:,} also splits into whole tiles and is narrower, at "
            f"{narrowest / target - 1:.1%}: the extra {answer - narrowest:,} is capacity you chose")
    return True, (f"{answer:,} = {_FFN5_TP} shards of {answer // _FFN5_TP:,} = "
                  f"{answer // _FFN5_TP // _FFN5_TILE} × {_FFN5_TILE}, {over:.1%} above 8/3 × hidden"
                  + (f", {than}." if answer == narrowest else f"{than}."))


design(
    "ffn-5", NB,
    validate=_tp_width_ok,
    why="8 shards of whole 128-wide tiles need a multiple of 8 × 128 = 1,024; the first one at "
        "or above 8/3 × 5,632 = 15,018.7 is 15,360, 2.3% wider, the next 16,384. This is what Meta's "
        "multiple_of does: Llama-3.1-8B rounds up to a multiple of 1,024 and Llama-3-70B to "
        "4,096, so the intermediate dimension splits into whole tiles across tensor-parallel "
        "GPUs (Shoeybi et al. 2019).",
    solution=15360,
    hint="A shard of whole tiles is a multiple of 128; 8 of them make a multiple of what?",
    wrong=(15018, 15104, 17408, 14336, "15360", 15360.5),
)
