"""Exercises for lesson 11, training memory (ids train-*): the states under ZeRO-2, one
layer's activations with eager attention, what is left at the peak under full recomputation,
the fewest GPUs, what gradient accumulation adds under FSDP, and LoRA or QLoRA on one 32 GB
GPU."""

from __future__ import annotations

from ..counts import param_count
from ..hardware import load_gpu
from ..training import (RECOMPUTE, fewest_gpus, fit_verdict, layer_activation_bytes,
                        setup_settings, training_memory)
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "11_training_memory"
_L31 = "Llama-3.1-8B"


def _states(zero_stage, dp=8, precision="bf16-mixed"):
    m = training_memory(load_model(_L31), 8192, 1, precision=precision, zero_stage=zero_stage,
                        dp=dp)
    return m.params + m.grads + m.optimizer


def _n():
    return param_count(load_model(_L31)).total


predict(
    "train-1", NB,
    expected=lambda: _states(2),
    why="ZeRO-2 shards the optimizer state (fp32 master 4 + m and v 8 = 12 B/param) and the "
        "bf16 grads (2 B/param) over the 8 GPUs, but every GPU keeps the full bf16 weights "
        "(2 B/param): 2N + (2 + 12)N/8 = 3.75 B per parameter, about 30.1 GB for N = 8.03B "
        "(the engine adds AdamW's 4-byte step counters, one per tensor: about a kilobyte). "
        "ZeRO-3 would also shard the weights: 16N/8 = 2 B per parameter.",
    hint="sort the 16 bytes into what ZeRO-2 shards (divided by 8) and what it keeps whole.",
    rel_tol=0.01, unit="bytes",
    mistakes=((lambda: 16 * _n(), "that is the whole 16 B/param on one GPU: ZeRO-2 shards most "
                                  "of it"),
              (lambda: 2 * _n() + 2 * _n() // 8, "you left out the optimizer state: the fp32 "
                                                 "master copy and AdamW's m and v, 12 B per "
                                                 "parameter, which ZeRO-2 shards with the "
                                                 "gradients"),
              (lambda: 2 * _n(), "that is ZeRO-3 (all 16 B/param divided by 8): ZeRO-2 keeps a "
                                 "full copy of the weights on every GPU"),
              (lambda: 4 * _n() + 12 * _n() // 8, "that is ZeRO-1: it shards only the optimizer "
                                                  "state; ZeRO-2 shards the grads too"),
              (lambda: 2 * _n() + 10 * _n() // 8, "the optimizer state of bf16-mixed training "
                                                  "holds one more fp32 copy of every weight: "
                                                  "count it with m and v")),
    wrong=(16 * 8_030_261_248, 2 * 8_030_261_248, 10**9, "30e9"),
)


S_EAGER = 4096


def _per_token_layer(cfg):
    """The engine's bytes per token of one layer (bf16, eager attention, 4,096 tokens)."""
    return layer_activation_bytes(cfg, seq_len=S_EAGER, attention="eager")[0][2] // S_EAGER


def _flash_per_token_layer(cfg):
    h, I = cfg.hidden_size, cfg.intermediate_size
    nh, nkv, hd = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
    norm = 4 * h + 4 + 2 * h                      # fp32 input, fp32 rstd, bf16 normalized
    attn = 2 * h + 2 * (nh * hd + 2 * nkv * hd) + 2 * nh * hd + 4 * nh
    mlp = 2 * h + 2 * 4 * I
    return 2 * norm + attn + mlp


def _solution_per_token_layer(cfg):
    h, I, s = cfg.hidden_size, cfg.intermediate_size, S_EAGER
    nh, hd = cfg.num_attention_heads, cfg.head_dim
    norm = 4 * h + 4 + 2 * h
    qkv = 2 * 3 * nh * hd                     # k and v repeated to every query head
    scores = nh * s * (4 + 2)                 # fp32 probabilities and their bf16 copy
    attn = 2 * h + qkv + 2 * nh * hd + scores
    return 2 * norm + attn + 2 * h + 2 * 4 * I


def _wrong_not_repeated(cfg):   # eager, but k and v kept at the KV heads
    nkv, nh, hd = cfg.num_key_value_heads, cfg.num_attention_heads, cfg.head_dim
    return _solution_per_token_layer(cfg) - 2 * 2 * (nh - nkv) * hd


def _wrong_bf16_scores(cfg):    # the scores counted once, at 2 bytes
    return _solution_per_token_layer(cfg) - cfg.num_attention_heads * S_EAGER * 4


derive(
    "train-2", NB,
    reference=_per_token_layer,
    cases=(_L31, "Qwen2-7B", "Mistral-Nemo-Base-2407", "Llama-3.2-1B", "Meta-Llama-3-70B",
           lambda: load_model(_L31).replace(num_key_value_heads=2, intermediate_size=11008)),
    why="Eager attention multiplies q by k repeated to every query head (repeat_kv makes a "
        "copy; only with one KV head and one sequence is it a view, which the engine counts "
        "too), so k and v are saved at n_h heads, GQA or not; it saves the s x s "
        "probabilities in fp32 (softmax's output) and their bf16 copy (the input of the "
        "product with v): 6 s bytes per head and token, and no log-sum-exp. At 4,096 tokens "
        "that score term alone is 786,432 B per token for 32 heads, more than the rest of "
        "the layer.",
    hint="three things change from the FlashAttention layer: how many heads k and v are "
         "saved at, a term that grows with s, and one small fp32 term that disappears.",
    solution=_solution_per_token_layer,
    mistakes=(
        (_flash_per_token_layer, "that is the FlashAttention layer: eager attention also "
                                 "keeps the s x s scores"),
        (_wrong_not_repeated, "eager attention repeats k and v to every query head before "
                              "the matmul (repeat_kv makes a copy), so they are saved at n_h "
                              "heads, GQA or not"),
        (_wrong_bf16_scores, "softmax keeps its fp32 output (4 bytes a score) and the product "
                             "with v its bf16 copy (2 more)"),
    ),
    wrong=(_flash_per_token_layer, _wrong_not_repeated, _wrong_bf16_scores),
)


concept(
    "train-3", NB,
    correct="c",
    feedback={"a": "full recomputation keeps each layer's input, 2d bytes a token: 2.15 GB for "
                   "32 layers at 8,192 tokens; compare it with what the loss holds per logit",
              "b": "the Trainer's compute_loss returns only the loss: the logits the model "
                   "returned are freed before the backward starts",
              "c": "Right: the loss saves fp32 log-probabilities (4 B a logit) and its fp32 "
                   "gradients arrive at the start of backward (8 more): 12 x 128,256 x 8,192 = "
                   "12.6 GB, six times the 2.15 GB of layer checkpoints.",
              "d": "a layer is recomputed later in the backward, after the loss's tensors are "
                   "freed; at the start of backward no layer has been recomputed yet"},
    why="With every layer recomputed, what a step keeps for its layers shrinks to their inputs, "
        "and the vocabulary-wide tensors of the loss are the largest part left: which is why "
        "practitioners cut the loss first at 128K-word vocabularies (a chunked or fused "
        "cross-entropy, as Liger Kernel's).",
)


# --- train-4: the fewest GPUs ---------------------------------------------------------

_DS3 = "hf-trainer-deepspeed-zero3"


def _fewest_overall():
    return min(n for n in (fewest_gpus(_L31, "H100 SXM 80GB", 8192, 1,
                                       setup=setup_settings(_DS3, recompute=r))
                           for r in RECOMPUTE) if n)


def _validate_design(answer):
    if not isinstance(answer, dict) or set(answer) != {"n_gpus", "recompute"}:
        return False, 'give a dict {"n_gpus": ..., "recompute": ...}'
    n, r = answer["n_gpus"], answer["recompute"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return False, "n_gpus must be a positive whole number"
    if r not in RECOMPUTE:
        return False, f"recompute must be one of {', '.join(RECOMPUTE)}"
    m = training_memory(_L31, 8192, 1, **setup_settings(_DS3, dp=n, recompute=r))
    fits, words = fit_verdict(m, "H100 SXM 80GB")
    if not fits:
        return False, f"with recompute={r!r} on {n} GPU{'s' if n > 1 else ''}: {words}"
    best = _fewest_overall()
    if n > best:
        return False, (f"it fits (peak {m.peak / 1e9:,.1f} GB per GPU), but fewer GPUs would "
                       "do: look at what ZeRO-3 leaves whole on every GPU")
    return True, (f"{n} GPUs, peak {m.peak / 1e9:,.1f} GB each, within 72 GB (80 GB less the "
                  "10% reserve): the fewest that fit.")


design(
    "train-4", NB,
    validate=_validate_design,
    why="ZeRO-3 divides the 16 B/param states (128 GB) by the GPU count, but not what each "
        "GPU holds for its own tokens: without recomputation about 57 GB of saved tensors and "
        "log-probabilities plus 8.4 GB of fp32 loss gradients at the start of backward "
        "(65.5 GB; the Trainer has freed the returned logits) leave 6.5 GB of the usable 72 GB "
        "for the states: 20 GPUs. Full recomputation keeps only the layer inputs (15.0 GB at "
        "the start of backward, with the loss's tensors), and 3 GPUs suffice (2 would peak at "
        "80.3 GB), for a third more compute.",
    hint="split the per-GPU total into what ZeRO-3 divides and what it does not; which "
         "setting shrinks the part it does not?",
    solution={"n_gpus": 3, "recompute": "full"},
    wrong=({"n_gpus": 2, "recompute": "full"}, {"n_gpus": 19, "recompute": "none"},
           {"n_gpus": 20, "recompute": "none"}, {"n_gpus": 4, "recompute": "full"},
           [3, "full"]),
)


# --- train-5: what gradient accumulation adds under FSDP ---------------------------------

_FSDP = "hf-trainer-fsdp"


def _fsdp_peak(first):
    return training_memory(load_model(_L31), 4096, 1,
                           **setup_settings(_FSDP, dp=8, first_micro_batch=first)).peak


predict(
    "train-5", NB,
    expected=lambda: (_fsdp_peak(False) - _fsdp_peak(True)) / 1e9,
    why="A step's first micro-batch starts its backward with no gradient (zero_grad(set_to_none="
        "True) freed them after the last step); with gradient accumulation the second to "
        "fourth start beside the gradients the earlier ones wrote, so the peak grows by the "
        "gradients one GPU holds. FSDP keeps them sharded over the 8 GPUs and in fp32 (the "
        "bf16 reduce-scatter is cast back to the fp32 parameter's dtype): 4N/8 = 4.0 GB, "
        "whatever the number of micro-batches.",
    hint="which tensor exists at the start of a later micro-batch's backward that did not at "
         "the first one's, and how many bytes of it does one GPU hold under FSDP?",
    rel_tol=0.02, unit="GB",
    mistakes=(
        (lambda: 2 * _n() / 1e9, "that is the bf16 gradients of the whole model on one GPU: "
                                 "FSDP shards them over the 8 GPUs, and keeps them in fp32"),
        (lambda: 4 * _n() / 1e9, "that is every fp32 gradient: FSDP's full_shard shards them "
                                 "over the 8 GPUs"),
        (lambda: 2 * _n() / 8 / 1e9, "FSDP reduce-scatters in bf16 but keeps each gradient "
                                     "shard in the fp32 parameter's dtype: 4 bytes each"),
        (lambda: 3 * 4 * _n() / 8 / 1e9, "the micro-batches accumulate into the same gradient "
                                         "buffers: one set of gradients, not one per "
                                         "micro-batch"),
    ),
    wrong=(0, 16.06, 2.01, 12.05, 32.1),
)


# --- train-6: LoRA or QLoRA on one 32 GB GPU ---------------------------------------
_LORA_SEQ = (512, 1024, 2048, 4096, 8192, 16384)
_LORA_GPU = load_gpu("RTX 5090 32GB").memory_bytes


def _lora_peak(base, seq_len):
    """TRL's SFTTrainer (a Trainer: only the loss kept), BitsAndBytesConfig's defaults."""
    from ..finetune import lora_memory
    return lora_memory(load_model(_L31), seq_len, 1, r=16, target_modules="all-linear",
                       base=base, recompute="full", hold_outputs=False).peak


def _lora_best():
    from ..training import usable_bytes
    cap = usable_bytes(_LORA_GPU)
    fits = [(s, b) for b in ("bf16", "nf4") for s in _LORA_SEQ if _lora_peak(b, s) <= cap]
    return max(fits)


def _validate_lora(answer):
    from ..training import usable_bytes
    if not isinstance(answer, dict) or set(answer) != {"base", "seq_len"}:
        return False, 'give a dict {"base": "bf16" or "nf4", "seq_len": ...}'
    b, s = answer["base"], answer["seq_len"]
    if b not in ("bf16", "nf4"):
        return False, 'base must be "bf16" (LoRA) or "nf4" (QLoRA)'
    if s not in _LORA_SEQ:
        return False, f"seq_len must be one of {', '.join(f'{x:,}' for x in _LORA_SEQ)}"
    cap = usable_bytes(_LORA_GPU)
    peak = _lora_peak(b, s)
    if peak > cap:
        return False, (f"base={b}, {s:,} tokens: the peak is {peak / 1e9:,.1f} GB, over the "
                       f"{cap / 1e9:,.1f} GB a 32 GB GPU leaves after the 10% reserve")
    best_s, best_b = _lora_best()
    if s < best_s:
        return False, (f"it fits ({peak / 1e9:,.1f} GB), but a longer sequence would too: which "
                       "part of the peak does the base's precision change?")
    return True, (f"base={b}, {s:,} tokens: peak {peak / 1e9:,.1f} GB of the usable "
                  f"{cap / 1e9:,.1f} GB: the longest that fits.")


design(
    "train-6", NB,
    validate=_validate_lora,
    why="The frozen bf16 base alone is 16.1 GB of the usable 28.8 GB, and LoRA fits 4,096 "
        "tokens (24.2 GB), not 8,192 (31.6 GB); NF4 stores the layers' matrices in 4.5 bits "
        "(BitsAndBytesConfig's default, no double quantization) and brings the base to 6.0 GB. "
        "The adapters (42M parameters, 16 B each: 0.7 GB) are small either way; what grows with "
        "the sequence is the loss's log-probabilities and gradients (12 B per logit, 128,256 per "
        "token) and the layer inputs: QLoRA peaks at the start of backward, 21.6 GB at 8,192 "
        "tokens, 36.5 GB at 16,384.",
    hint="add up the base, the adapters' 16 B per trainable parameter, and what grows with "
         "the tokens; which of them does NF4 shrink?",
    solution={"base": "nf4", "seq_len": 8192},
    wrong=({"base": "bf16", "seq_len": 4096}, {"base": "nf4", "seq_len": 16384},
           {"base": "nf4", "seq_len": 4096}, {"base": "bf16", "seq_len": 8192}, ["nf4", 8192]),
)

