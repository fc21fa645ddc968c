"""Exercises for lesson 12, training compute (ids compute-*): the days a run takes, the
FLOPs of one training token, GPipe against 1F1B, and what ZeRO-3 sends per step."""

from __future__ import annotations

from ..counts import param_count
from ..parallelism import communication_volume
from ..training import training_flops, training_time
from ..zoo import load_model
from .base import concept, derive, predict

__all__ = []

NB = "12_training_compute"
_L31 = "Llama-3.1-8B"
DAY = 86400


# --- compute-1: days for a token budget ------------------------------------------------

_RUN = dict(tokens=10**12, seq_len=8192, gpu="H100 SXM 80GB", n_gpus=256, mfu=0.4)


def _days(flops):
    return training_time(flops, _RUN["gpu"], _RUN["n_gpus"], _RUN["mfu"]) / DAY


def _run_flops(**kw):
    return training_flops(_L31, _RUN["tokens"], _RUN["seq_len"], **kw).model


def _n_mm():
    return param_count(load_model(_L31)).matmul_active


predict(
    "compute-1", NB,
    expected=lambda: _days(_run_flops()),
    why="C = 6 x 7.50e9 matmul weights x 1e12 tokens = 4.50e22 FLOPs, plus attention: 3 x 4 x "
        "32 layers x 32 heads x 128 x 4,096.5 keys on average x 1e12 = 6.44e21 (12.5%): 5.15e22 "
        "FLOPs. 256 H100s at 40% of 989.4 TFLOP/s do 1.01e17 FLOP/s: 5.08e5 s, about 5.9 days.",
    hint="C = 6 N D plus three times the forward attention; t = C / (GPUs x peak x MFU); "
         "N counts the weights that multiply (not the embedding lookup).",
    rel_tol=0.02, unit="days",
    mistakes=(
        (lambda: _days(6 * _n_mm() * _RUN["tokens"]),
         "that is 6·N·D alone: attention over 8,192-token sequences adds 12.5% of the FLOPs"),
        (lambda: _days(6 * param_count(load_model(_L31)).total * _RUN["tokens"]),
         "that is 6·N·D with every parameter, the embedding lookup included, and no attention"),
        (lambda: _days(_run_flops(convention="full")),
         "that counts every key for every query (PaLM's and Megatron's convention): a causal "
         "mask halves attention's work, (s + 1) / 2 keys on average"),
    ),
    wrong=(5.14, 5.50, 6.62, 1.5),
)


# --- compute-2: the FLOPs of one training token ----------------------------------------

S = 4096


def _tied(cfg):
    return bool(cfg.get("tie_word_embeddings"))


def _n_matmul(cfg):
    pc = param_count(cfg)
    return pc.total - pc.components["norms"] - (0 if _tied(cfg) else pc.embedding)


def _solution_flops(cfg):
    attention = 4 * cfg.num_hidden_layers * cfg.num_attention_heads * cfg.head_dim * (S + 1) // 2
    return 6 * _n_matmul(cfg) + 3 * attention


def _no_attention(cfg):
    return 6 * _n_matmul(cfg)


def _full_keys(cfg):
    return 6 * _n_matmul(cfg) + 12 * cfg.num_hidden_layers * cfg.num_attention_heads \
        * cfg.head_dim * S


def _forward_attention_only(cfg):
    return 6 * _n_matmul(cfg) + 2 * cfg.num_hidden_layers * cfg.num_attention_heads \
        * cfg.head_dim * (S + 1)


def _hidden_over_heads(cfg):
    return 6 * _n_matmul(cfg) + 6 * cfg.num_hidden_layers * cfg.hidden_size * (S + 1)


def _with_embedding(cfg):
    return _solution_flops(cfg) + (0 if _tied(cfg) else 6 * param_count(cfg).embedding)


derive(
    "compute-2", NB,
    reference=lambda cfg: training_flops(cfg, 1, S).model,
    cases=(_L31, "Qwen3-4B", "Llama-3.2-1B", "Mistral-Nemo-Base-2407", "OLMo-2-1124-7B-Instruct",
           "SmolLM3-3B", lambda: load_model(_L31).replace(num_hidden_layers=48)),
    why="Each matmul weight costs 6 FLOPs per token (2 forward, 4 backward); a tied lm_head "
        "is the embedding matrix used once as a matmul, so it counts, while an untied "
        "embedding is a lookup and does not. Attention adds 4 n_h d_h FLOPs per layer for "
        "each key, (s + 1) / 2 keys on average under the causal mask, three times over for "
        "the backward. Where head_dim is not hidden_size / num_attention_heads (Qwen3-4B: "
        "128, not 80; Mistral-Nemo: 128, not 160), the config's head_dim is the one that counts.",
    solution=_solution_flops,
    allowed=("param_count",),
    hint="6 FLOPs per matmul weight, plus three times the forward attention term of one token "
         "with (s + 1) / 2 keys in every layer.",
    mistakes=(
        (_no_attention, "that is 6 x the matmul weights only: attention adds FLOPs that grow "
                        "with the sequence"),
        (_full_keys, "that lets every token attend to all 4,096 keys: under the causal mask "
                     "token i sees i keys, (s + 1) / 2 on average"),
        (_forward_attention_only, "that counts attention's forward pass only: the backward "
                                  "costs twice the forward, so attention counts three times"),
        (_hidden_over_heads, "that takes n_h x d_h to be hidden_size: read head_dim from the "
                             "config"),
        (_with_embedding, "that counts the input embedding as a matmul: it is a lookup"),
    ),
    wrong=(_no_attention, _full_keys, _forward_attention_only),
)


# --- compute-3: GPipe instead of 1F1B --------------------------------------------------

concept(
    "compute-3", NB,
    correct="b",
    feedback={"a": "under 1F1B the first stage already kept 4 micro-batches (p - 0); GPipe makes "
                   "it 8, twice as many, while the last stage goes from 1 to 8",
              "b": "Right: 1F1B lets the last stage run each micro-batch's backward straight "
                   "after its forward, so it kept one; GPipe runs all 8 forwards first, so the "
                   "last stage holds 8 micro-batches of its layers and 8 sets of vocabulary-wide "
                   "logits and log-probabilities (about 202.6 GB against 64.5 GB).",
              "c": "a micro-batch's saved tensors live until its backward reaches the stage; "
                   "running every forward first keeps all of them alive at once",
              "d": "every stage now keeps 8, but under 1F1B they kept 4, 3, 2 and 1, and only "
                   "the last stage holds the logits"},
    why="The schedule decides how long saved tensors live. 1F1B (Narayanan et al. 2021) bounds "
        "stage i at p - i micro-batches; GPipe (Huang et al. 2019) keeps all m on every stage, "
        "which is why its memory grows with the gradient-accumulation count.",
)


# --- compute-4: what DeepSpeed ZeRO-3 sends per step ------------------------------------

def _zero3_sent(n=8, passes=3, bytes_per_value=2):
    return passes * (n - 1) / n * bytes_per_value * param_count(load_model(_L31)).total / 1e9


def _sent(precision="bf16-mixed", zero_stage=3):
    """GB each of 8 GPUs sends in one step of one micro-batch (the engine's ring count)."""
    return communication_volume(load_model(_L31), 4096, 1, precision=precision,
                                zero_stage=zero_stage, dp=8).total / 1e9


predict(
    "compute-4", NB,
    expected=_sent,
    why="DeepSpeed's ZeRO-3 all-gathers the bf16 weights before the forward and again before "
        "the backward, and reduce-scatters the bf16 gradients: three collectives over a 2N-byte "
        "buffer, each of which sends (n - 1)/n of it from every GPU: 3 x 7/8 x 16.06 GB = "
        "42.2 GB per step, 1.5 times the 28.1 GB of plain data parallelism's all-reduce. FSDP2 "
        "as Accelerate wraps a model sends a little less, 41.2 GB: its tail unit (final norm and "
        "lm_head) stays gathered from the forward into the backward.",
    hint="list the collectives of one step and the buffer each moves; in a ring, each GPU "
         "sends (n - 1)/n of the buffer per all-gather or reduce-scatter.",
    rel_tol=0.02, unit="GB",
    mistakes=(
        (lambda: _zero3_sent(passes=2), "that is data parallelism's (or ZeRO-1/2's) volume: "
                                        "ZeRO-3 also gathers the weights again for the "
                                        "backward"),
        (lambda: _zero3_sent(n=10**9), "a ring sends (n - 1)/n of each buffer, not all of it: "
                                       "each GPU already holds its own shard"),
        (lambda: _zero3_sent(bytes_per_value=4), "with bf16 the weights are gathered and "
                                                 "the gradients reduced in bf16, 2 bytes each"),
        (lambda: _sent("fsdp-bf16"), "that is FSDP2 as Accelerate wraps a model, which keeps "
                                     "its lm_head gathered into the backward: DeepSpeed gathers "
                                     "every weight again"),
    ),
    wrong=(28.1, 48.2, 84.3, 39.3),
)
