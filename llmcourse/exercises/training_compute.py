"""Exercises for lesson 12, training compute (ids compute-*): the days a run takes, the
FLOPs the GPUs run for one token under full recomputation, GPipe against 1F1B, what ZeRO-3
sends per step, and the layout that trains soonest on 64 GPUs."""

from __future__ import annotations

from ..counts import param_count
from ..parallelism import communication_volume, pipeline_bubble
from ..training import (RECOMPUTE, chinchilla_tokens, fit_verdict, setup_settings,
                        training_flops, training_memory, training_time)
from ..zoo import load_model
from .base import concept, derive, design, predict

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


# --- compute-2: the FLOPs the GPUs run for one token under full recomputation -----------

S = 4096


def _tied(cfg):
    return bool(cfg.get("tie_word_embeddings"))


def _n_matmul(cfg):
    pc = param_count(cfg)
    return pc.total - pc.components["norms"] - (0 if _tied(cfg) else pc.embedding)


def _attention(cfg):
    """The forward attention FLOPs of one token: 4 n_h d_h per layer and key, (s + 1) / 2
    keys on average under the causal mask."""
    return 4 * cfg.num_hidden_layers * cfg.num_attention_heads * cfg.head_dim * (S + 1) // 2


def _solution_flops(cfg):
    return 8 * _n_matmul(cfg) + 4 * _attention(cfg)


def _model_flops(cfg):            # what MFU counts: no recomputed forward
    return 6 * _n_matmul(cfg) + 3 * _attention(cfg)


def _matmuls_recomputed_only(cfg):
    return 8 * _n_matmul(cfg) + 3 * _attention(cfg)


def _no_attention(cfg):
    return 8 * _n_matmul(cfg)


def _full_keys(cfg):
    return 8 * _n_matmul(cfg) + 16 * cfg.num_hidden_layers * cfg.num_attention_heads \
        * cfg.head_dim * S


def _hidden_over_heads(cfg):
    """n_h x d_h taken to be hidden_size: a mistake only where they differ."""
    if cfg.num_attention_heads * cfg.head_dim == cfg.hidden_size:
        raise ValueError("n_h x d_h is hidden_size here: the slip changes nothing")
    return 8 * _n_matmul(cfg) + 4 * (4 * cfg.num_hidden_layers * cfg.hidden_size * (S + 1) // 2)


def _tied_head_dropped(cfg):
    """The embedding subtracted though it is tied: the lm_head's matmul lost. A mistake of
    tied models only (on an untied one it is the right count)."""
    if not _tied(cfg):
        raise ValueError("an untied embedding: subtracting it is right")
    return _solution_flops(cfg) - 8 * param_count(cfg).embedding


derive(
    "compute-2", NB,
    reference=lambda cfg: training_flops(cfg, 1, S, recompute="full").hardware,
    cases=(_L31, "Qwen3-4B", "Llama-3.2-1B", "Mistral-Nemo-Base-2407", "OLMo-2-1124-7B-Instruct",
           "SmolLM3-3B", lambda: load_model(_L31).replace(num_hidden_layers=48)),
    why="Each matmul weight costs 6 FLOPs per token (2 forward, 4 backward) and full "
        "recomputation runs the forward once more: 8 in all. A tied lm_head is the embedding "
        "matrix used once as a matmul, so it counts, while an untied embedding is a lookup and "
        "does not. Attention adds 4 n_h d_h FLOPs per layer for each key, (s + 1) / 2 keys on "
        "average under the causal mask, three times over for the forward and the backward and "
        "once more for the recomputed forward. Where head_dim is not hidden_size / "
        "num_attention_heads (Qwen3-4B: 128, not 80; Mistral-Nemo: 128, not 160), the config's "
        "head_dim is the one that counts. MFU counts 6 and 3 of these; HFU all of them.",
    solution=_solution_flops,
    allowed=("param_count",),
    hint="the model's FLOPs (6 per matmul weight, three times the forward attention), plus what "
         "running the forward once more adds.",
    mistakes=(
        (_tied_head_dropped, "this model's lm_head is tied: the embedding matrix is the lm_head, "
                             "a matmul every token runs, so it stays in the count; subtract the "
                             "embedding only when the head is untied"),
        (_model_flops, "that is the model's FLOPs, what MFU counts: full recomputation runs each "
                       "layer's forward again, 2 more FLOPs per matmul weight and one more "
                       "attention forward"),
        (_matmuls_recomputed_only, "the recomputed forward runs attention again too: four times "
                                   "the forward attention, not three"),
        (_no_attention, "that is 8 x the matmul weights only: attention adds FLOPs that grow "
                        "with the sequence"),
        (_full_keys, "that lets every token attend to all 4,096 keys: under the causal mask "
                     "token i sees i keys, (s + 1) / 2 on average"),
        (_hidden_over_heads, "that takes n_h x d_h to be hidden_size: read head_dim from the "
                             "config"),
    ),
    wrong=(_model_flops, _matmuls_recomputed_only, _tied_head_dropped, _no_attention),
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


# --- compute-5: the layout that trains soonest on 64 GPUs -----------------------------

_LAYOUT = dict(n_gpus=64, global_batch=512, seq_len=8192, utilization=0.5)
_STAGES = (1, 2, 4, 8)


def _layout(pp, recompute):
    """``(memory, seconds)`` of Megatron-LM on 64 H100s with ``pp`` stages (1F1B), the global
    batch of 512 sequences split into 512 / dp micro-batches a pipeline, Chinchilla's tokens."""
    cfg = load_model(_L31)
    dp = _LAYOUT["n_gpus"] // pp
    m = _LAYOUT["global_batch"] // dp
    mem = training_memory(cfg, _LAYOUT["seq_len"], 1, **setup_settings(
        "megatron", dp=dp, pp=pp, num_micro_batches=m, recompute=recompute))
    flops = training_flops(cfg, chinchilla_tokens(cfg), _LAYOUT["seq_len"], recompute=recompute)
    bubble = pipeline_bubble(pp, m) if pp > 1 else 0
    return mem, training_time(flops, "H100 SXM 80GB", _LAYOUT["n_gpus"],
                              utilization=_LAYOUT["utilization"], bubble=bubble)


def _soonest():
    return min(t for pp in _STAGES for r in RECOMPUTE
               for mem, t in [_layout(pp, r)] if fit_verdict(mem, "H100 SXM 80GB")[0])


def _validate_layout(answer):
    if not isinstance(answer, dict) or set(answer) != {"pp", "recompute"}:
        return False, 'give a dict {"pp": ..., "recompute": ...}'
    pp, r = answer["pp"], answer["recompute"]
    if isinstance(pp, bool) or pp not in _STAGES:
        return False, "pp must be one of 1, 2, 4, 8"
    if r not in RECOMPUTE:
        return False, f"recompute must be one of {', '.join(RECOMPUTE)}"
    mem, t = _layout(pp, r)
    fits, words = fit_verdict(mem, "H100 SXM 80GB")
    if not fits:
        where = f" (stage {mem.pipeline['stage']})" if mem.pipeline else ""
        return False, f"pp={pp}, recompute={r!r}: {words.split(' (')[0]}{where}"
    if t > _soonest() * (1 + 1e-9):
        return False, (f"it fits (peak {mem.peak / 1e9:,.1f} GB), and takes {t / DAY:,.2f} days; "
                       "another layout ends sooner: weigh what the bubble idles against what "
                       "recomputation redoes")
    return True, (f"pp={pp}, recompute={r!r}: peak {mem.peak / 1e9:,.1f} GB, "
                  f"{t / DAY:,.2f} days, the soonest that fits.")


design(
    "compute-5", NB,
    validate=_validate_layout,
    why="Without a pipeline each GPU holds all 32 layers' saved tensors and only full "
        "recomputation fits (115 GB, then 64.7 GB), for a third more FLOPs: 4.03 days. Two "
        "stages leave the first GPU two micro-batches of 16 layers: 78.3 GB, over. Four stages "
        "fit without recomputation (68.0 GB) and their 32 micro-batches a step idle 3/35 = 8.6%: "
        "3.31 days. Eight stages idle 7/71 = 9.9%: 3.35 days. A bubble of a few percent costs "
        "less than a third more compute; selective recomputation drops nothing FlashAttention "
        "keeps, so it ties with none.",
    hint="list what each choice costs: the bubble grows with the stages, (pp - 1) / (m + pp - 1) "
         "with m = 512 / dp; full recomputation costs a third more FLOPs. Which fit?",
    solution={"pp": 4, "recompute": "none"},
    wrong=({"pp": 1, "recompute": "full"}, {"pp": 2, "recompute": "none"},
           {"pp": 8, "recompute": "none"}, {"pp": 4, "recompute": "full"},
           {"pp": 3, "recompute": "none"}, [4, "none"]),
)
