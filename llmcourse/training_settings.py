"""Bytes per parameter a training run keeps, by precision, optimizer and tool.

:data:`PRECISIONS` names what each parameter holds (the weight the forward reads, its
gradient, an fp32 master copy, an fp32 accumulation buffer, the optimizer state's dtype);
:data:`OPTIMIZERS` what the optimizer adds; :data:`TRAINING_SETUPS` which of them a tool
runs with its defaults (the Hugging Face Trainer, FSDP through Accelerate, DeepSpeed,
Megatron-LM), each with the source it was read from; :data:`FP8_RECIPES` the states of
FP8 training. :mod:`llmcourse.training` multiplies them by the exact parameter count and
divides them over GPUs. Standard library only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .activations import cdiv
from .config import ConfigError

__all__ = ["PRECISIONS", "OPTIMIZERS", "TRAINING_SETUPS", "FP8_RECIPES", "bytes_per_param",
           "optimizer_state_bytes", "optimizer_step_temporaries", "setup_settings",
           "fp8_state_bytes", "check_int", "check_choice", "TrainingSetup", "as_setup",
           "RECOMPUTE", "ATTENTION", "LOSSES", "PP_SCHEDULES", "DEEPSPEED_BUCKETS",
           "MAX_STAGES", "sharding_stages", "stage_label"]

# param: the weights the forward pass reads (bytes per value); grad: the gradient buffer;
# master: an fp32 copy the optimizer updates (mixed precision); accum: an extra fp32
# gradient buffer kept beside the bf16 one (fp32 accumulation); act: bytes of one
# activation value; state: bytes of one value of the optimizer's state (AdamW's m and v
# are created like the parameter they update: fp32 for an fp32 parameter or master copy,
# bf16 for a bf16 parameter); unsharded: bytes per parameter of the copy FSDP gathers for
# compute (0: the forward reads the parameter itself).
PRECISIONS = {
    "fp32": dict(param=4, grad=4, master=0, accum=0, act=4, state=4, unsharded=0,
                 about="fp32 weights 4 + fp32 grads 4"),
    "bf16-mixed": dict(param=2, grad=2, master=4, accum=0, act=2, state=4, unsharded=0,
                       about="bf16 weights 2 + bf16 grads 2 + fp32 master weights 4 "
                             "(DeepSpeed bf16 with ZeRO: its grad_accum_dtype defaults to the "
                             "model's bf16; the ZeRO paper's 2 + 2 + 12; Ultra-Scale Playbook)"),
    "bf16-mixed-fp32-grads": dict(param=2, grad=4, master=4, accum=0, act=2, state=4,
                                  unsharded=0,
                                  about="bf16 weights 2 + fp32 grads 4 + fp32 master 4 "
                                        "(Megatron-LM's fp32 main_grad, DeepSpeed with "
                                        "grad_accum_dtype fp32; Transformer Math 101)"),
    "amp-bf16": dict(param=4, grad=4, master=0, accum=0, act=2, state=4, unsharded=0,
                     about="fp32 weights 4 + fp32 grads 4 under torch.autocast(bfloat16): a "
                           "model loaded in fp32 (from_pretrained(..., dtype=torch.float32)) "
                           "and trained with the Hugging Face Trainer's bf16=True on one GPU "
                           "or DDP, or plain PyTorch AMP; plus a bf16 copy of every weight "
                           "matrix that autocast saves for backward, 2 (routed experts "
                           "excepted: transformers runs them in fp32)"),
    "bf16-mixed-fp32-accum": dict(param=2, grad=2, master=4, accum=4, act=2, state=4,
                                  unsharded=0,
                                  about="bf16 weights 2 + bf16 grads 2 + fp32 grad "
                                        "accumulation buffer 4 + fp32 master 4 "
                                        "(Ultra-Scale Playbook, fp32 accumulation)"),
    "bf16": dict(param=2, grad=2, master=0, accum=0, act=2, state=2, unsharded=0,
                 about="pure bf16: bf16 weights 2 + bf16 grads 2, AdamW's m and v in bf16 "
                       "2 + 2, no fp32 copy anywhere: the Hugging Face Trainer's bf16=True "
                       "on a model loaded in bf16 (transformers 5's from_pretrained default "
                       "dtype='auto' keeps a bf16 checkpoint in bf16), one GPU or DDP"),
    "fsdp-bf16": dict(param=4, grad=4, master=0, accum=0, act=2, state=4, unsharded=2,
                      about="FSDP / FSDP2 MixedPrecision(param_dtype=bf16, reduce_dtype=bf16) "
                            "over fp32 parameters (Accelerate upcasts a bf16 model to fp32 "
                            "before sharding): the sharded fp32 parameter is the master 4, its "
                            "fp32 gradient 4 (the bf16 reduce-scatter output is cast back), "
                            "AdamW 8; bf16 weights exist only unsharded, a unit at a time "
                            "(ZeRO-3: FULL_SHARD / fully_shard()) or all of them from forward "
                            "to the end of backward (ZeRO-2: SHARD_GRAD_OP / "
                            "reshard_after_forward=False: 2N + 16N/n)"),
}

# optimizer state per parameter, in bytes when the state is fp32: (bytes, about). A
# precision whose optimizer state is bf16 (``state=2``) halves AdamW's and momentum's.
# PyTorch's AdamW keeps one fp32 ``step`` per parameter *tensor* (a 0-d tensor): on the CPU
# unless ``fused=True`` or ``capturable=True`` put it beside the parameter. 8-bit Adam keeps
# m and v in 8 bits with one fp32 scale per block of 2,048 values (Dettmers et al. 2022),
# and bitsandbytes keeps tensors under 4,096 values (min_8bit_size) in fp32.
OPTIMIZERS = {
    "adamw": (8, "AdamW (torch.optim.AdamW's default: foreach on a GPU): m and v, 8 in fp32; "
                 "its 4-byte step counters are CPU tensors"),
    "sgd-momentum": (4, "SGD with momentum: one buffer, 4 in fp32"),
    "sgd": (0, "plain SGD: no state"),
    "adamw-8bit": (2, "8-bit AdamW: m and v in int8, 2 (+ fp32 scales per 2,048 values)"),
    "adamw-fused": (8, "AdamW(fused=True), the Hugging Face Trainer's default "
                       "optim='adamw_torch_fused' (torch >= 2.8): m and v, 8 in fp32, a 4-byte "
                       "fp32 step per tensor on the GPU, no temporaries in the step"),
}
BLOCK_8BIT = 2048
MIN_8BIT_SIZE = 4096


MAX_TOKENS = 2**40   # seq_len, micro_batch: far above any real run
MAX_GPUS = 2**24


def check_int(name, v, lo=1, hi=MAX_TOKENS):
    """``v`` if it is a whole number in ``[lo, hi]``, else a one-line ``ConfigError``."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(f"{name}: must be a whole number (got {v!r})")
    if v < lo:
        raise ConfigError(f"{name}: must be at least {lo} (got {v!r})")
    if v > hi:
        raise ConfigError(f"{name}: must be at most {hi:,} (got {v!r})")
    return v


def check_choice(name, v, options):
    """``v`` if it is one of ``options``, else a one-line ``ConfigError``."""
    if v not in options:
        raise ConfigError(f"{name}: must be one of {', '.join(map(str, options))} (got {v!r})")
    return v


RECOMPUTE = ("none", "selective", "full")
ATTENTION = ("flash", "eager")
LOSSES = ("plain", "chunked")
PP_SCHEDULES = ("1f1b", "gpipe", "interleaved-1f1b", "zero-bubble-h1")
MAX_STAGES = 4096   # far above any real pipeline (the largest runs use 16-64 stages)
# DeepSpeed's bucket sizes: its own defaults, or the Hugging Face Trainer's "auto" (from
# hidden_size); see parallelism.DEEPSPEED_DEFAULTS and parallelism.trainer_auto_buckets
DEEPSPEED_BUCKETS = ("deepspeed", "trainer-auto")


def _check_bool(name, v, what=""):
    if not isinstance(v, bool):
        raise ConfigError(f"{name}: must be True or False{what} (got {v!r})")
    return v


@dataclass(frozen=True)
class TrainingSetup:
    """How a training step runs: everything :func:`~llmcourse.training.training_memory`
    needs beyond the model, the sequence length and the micro-batch. Frozen and checked
    when made: a bad value is a one-line ``ConfigError`` naming the field and the rule.
    What each field means, with the sources: ``docs/training.md``. A named tool's setup is
    :func:`setup_settings`; ``setup.replace(dp=8)`` changes a field. It unpacks like a dict
    of the fields it sets beyond the defaults (``training_memory(cfg, 4096, **setup)``)."""

    precision: str = "bf16-mixed"      # bytes per parameter: PRECISIONS
    optimizer: str = "adamw"           # OPTIMIZERS
    recompute: str = "none"            # none, selective (the attention core), full
    zero_stage: int = 0                # 0-3: what is sharded over dp (FSDP: 0, 2, 3)
    dp: int = 1                        # data-parallel GPUs
    tp: int = 1                        # tensor-parallel GPUs
    sp: bool = False                   # sequence parallelism beside tp
    cp: int = 1                        # context-parallel GPUs
    attention: str = "flash"           # flash (SDPA, FlashAttention) or eager
    loss: str = "plain"                # plain cross-entropy, or chunked (Liger's idea)
    loss_chunk: int = 1024             # tokens per chunk of the chunked loss
    pp: int = 1                        # pipeline stages
    pp_schedule: str = "1f1b"          # PP_SCHEDULES
    num_micro_batches: int | None = None   # per optimizer step (None: pp)
    virtual_stages: int = 1            # chunks per GPU, interleaved 1F1B only
    first_micro_batch: bool = False    # True: no gradient exists when backward starts
    hold_outputs: bool = True          # the loop keeps the model's output (its logits)
    deepspeed_buckets: str = "deepspeed"   # DeepSpeed's defaults, or the Trainer's "auto"

    def __post_init__(self):
        check_choice("precision", self.precision, tuple(PRECISIONS))
        check_choice("optimizer", self.optimizer, tuple(OPTIMIZERS))
        check_choice("recompute", self.recompute, RECOMPUTE)
        check_choice("zero_stage", self.zero_stage, (0, 1, 2, 3))
        if self.precision == "fsdp-bf16" and self.zero_stage == 1:
            raise ConfigError("zero_stage: FSDP has no optimizer-only stage: with precision="
                              "'fsdp-bf16' use 0 (NO_SHARD), 2 (SHARD_GRAD_OP) or 3 "
                              "(FULL_SHARD) (got 1)")
        for name in ("dp", "tp", "cp"):
            check_int(name, getattr(self, name), hi=MAX_GPUS)
        _check_bool("sp", self.sp, " (sequence parallelism)")
        check_choice("attention", self.attention, ATTENTION)
        check_choice("loss", self.loss, LOSSES)
        check_int("loss_chunk", self.loss_chunk)
        check_int("pp", self.pp, hi=MAX_STAGES)
        check_choice("pp_schedule", self.pp_schedule, PP_SCHEDULES)
        if self.num_micro_batches is not None:
            check_int("num_micro_batches", self.num_micro_batches)
        check_int("virtual_stages", self.virtual_stages, hi=MAX_STAGES)
        if self.virtual_stages > 1 and self.pp_schedule != "interleaved-1f1b":
            raise ConfigError(f"virtual_stages: more than 1 only with pp_schedule="
                              f"'interleaved-1f1b' (got {self.virtual_stages} with "
                              f"{self.pp_schedule!r})")
        _check_bool("first_micro_batch", self.first_micro_batch)
        _check_bool("hold_outputs", self.hold_outputs,
                    " (whether the loop keeps the model's output through the backward)")
        check_choice("deepspeed_buckets", self.deepspeed_buckets, DEEPSPEED_BUCKETS)

    @classmethod
    def of(cls, **settings):
        """A setup from keyword settings; an unknown name is a one-line ``ConfigError``."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = [k for k in settings if k not in known]
        if unknown:
            raise ConfigError(f"{unknown[0]}: not a training setting (the settings: "
                              f"{', '.join(sorted(known))})")
        return cls(**settings)

    def replace(self, **changes):
        """A copy with ``changes`` (checked as a new setup)."""
        return TrainingSetup.of(**{**self.as_dict(), **changes})

    def as_dict(self):
        """Every field, by name."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    # a read-only mapping of the fields that differ from the defaults, so that ``**setup``
    # passes what the setup sets, and more keyword settings can go beside it:
    # ``training_memory(cfg, 4096, recompute="full", **setup_settings("hf-trainer"))``
    def keys(self):
        return [f.name for f in dataclasses.fields(self) if getattr(self, f.name) != f.default]

    def __getitem__(self, key):
        if key not in {f.name for f in dataclasses.fields(self)}:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


def as_setup(setup=None, **settings):
    """A :class:`TrainingSetup` from a setup (a ``TrainingSetup``, a tool's name in
    :data:`TRAINING_SETUPS`, or None for the defaults) with ``settings`` on top."""
    if setup is None:
        return TrainingSetup.of(**settings)
    if isinstance(setup, str):
        return setup_settings(setup, **settings)
    if isinstance(setup, TrainingSetup):
        return setup.replace(**settings) if settings else setup
    raise ConfigError(f"setup: must be a TrainingSetup or a tool's name, one of "
                      f"{', '.join(TRAINING_SETUPS)} (got {setup!r})")


# FSDP names its own strategies; it has no optimizer-only stage (ZeRO-1)
_FSDP_STAGES = {0: "FSDP NO_SHARD", 2: "FSDP SHARD_GRAD_OP", 3: "FSDP FULL_SHARD"}


def sharding_stages(precision):
    """The sharding stages a precision's tool offers: FSDP's three strategies for
    ``"fsdp-bf16"`` (NO_SHARD, SHARD_GRAD_OP, FULL_SHARD; FSDP2's ``fully_shard`` with
    ``reshard_after_forward`` False or True), ZeRO 0-3 otherwise."""
    return list(_FSDP_STAGES) if precision == "fsdp-bf16" else [0, 1, 2, 3]


def stage_label(precision, zero_stage):
    """What a stage is called by the tool that runs it: FSDP's strategy for
    ``"fsdp-bf16"``, ZeRO-1/2/3 (or no ZeRO) otherwise."""
    if precision == "fsdp-bf16":
        return _FSDP_STAGES[zero_stage]
    return f"ZeRO-{zero_stage}" if zero_stage else "no ZeRO (DDP)"


def _state_scale(optimizer, precision):
    """Bytes of the optimizer's per-parameter state for ``precision``: OPTIMIZERS' fp32
    figure, scaled to the state's dtype (8-bit Adam's int8 state does not scale)."""
    per = OPTIMIZERS[optimizer][0]
    if optimizer == "adamw-8bit":
        return per
    return per * PRECISIONS[precision]["state"] // 4


def bytes_per_param(precision="bf16-mixed", optimizer="adamw"):
    """Bytes per parameter of weights + grads + optimizer state (master weights
    included), before any sharding: 16 for fp32, bf16-mixed, amp-bf16 or fsdp-bf16 with
    AdamW, 18 with fp32 grads, 20 with an fp32 accumulation buffer, 10 for bf16-mixed with
    8-bit AdamW, 8 for pure bf16 (AdamW's m and v in bf16). Per-tensor extras (AdamW's
    step counters, 8-bit scales) are left out here; :func:`training_memory` counts them."""
    p = PRECISIONS[check_choice("precision", precision, tuple(PRECISIONS))]
    check_choice("optimizer", optimizer, tuple(OPTIMIZERS))
    return p["param"] + p["grad"] + p["accum"] + p["master"] + _state_scale(optimizer, precision)


def optimizer_state_bytes(sizes, optimizer, precision="fp32"):
    """Exact optimizer state of the parameters ``sizes`` (``[(numel, count), ...]``,
    before any sharding) on the GPU: AdamW's m and v in the state's dtype, the fused
    AdamW's fp32 step per tensor (foreach AdamW keeps its steps on the CPU), 8-bit Adam's
    int8 moments and fp32 block scales."""
    per = _state_scale(optimizer, precision)
    n_params = sum(numel * count for numel, count in sizes)
    if optimizer == "adamw-fused":
        return per * n_params + 4 * sum(count for _, count in sizes)
    if optimizer != "adamw-8bit":
        return per * n_params
    total = 0
    for numel, count in sizes:
        if numel < MIN_8BIT_SIZE:
            total += count * 8 * numel           # kept in fp32 by bitsandbytes
        else:
            total += count * (2 * numel + 2 * 4 * cdiv(numel, BLOCK_8BIT))
    return total


def optimizer_step_temporaries(n, optimizer, precision="fp32"):
    """The largest temporary of ``optimizer.step()`` over ``n`` parameters of this GPU's
    shard: foreach AdamW (PyTorch's default on a GPU) computes sqrt(v) for every parameter
    of a group at once, one value of the state's dtype per parameter (4 B in fp32, 2 in
    bf16; measured on CPU); the fused kernel updates in place (0, measured); 8-bit Adam
    is counted as foreach (not measured: bitsandbytes needs a GPU); SGD none."""
    if optimizer == "adamw-fused":
        return 0
    if optimizer in ("adamw", "adamw-8bit"):
        return PRECISIONS[precision]["state"] * n if optimizer == "adamw" else 4 * n
    return 0


# --- what a tool runs with its defaults ------------------------------------------------
# Each setup: the settings training_memory takes, what they stand for and where they were
# read. "first_micro_batch": one micro-batch per optimizer step with zero_grad(set_to_none=
# True) (the Trainer's default gradient_accumulation_steps=1), so no gradient exists when
# the backward starts; a tool that keeps persistent gradient buffers (DeepSpeed's
# partitions, Megatron-LM's main_grad) holds them from the first micro-batch on.
_TRAINER_LOSS = ("transformers 5.23 trainer.py: training_step calls compute_loss, which returns "
                 "the loss only (return_outputs=False); the model's output, its logits "
                 "with it, is freed before accelerator.backward(loss)")
_TRAINER_AUTO = ("transformers 5.23 integrations/deepspeed.py trainer_config_finalize: 'auto' "
                 "reduce_bucket_size = hidden_size**2, stage3_prefetch_bucket_size = "
                 "0.9 x hidden_size**2")
TRAINING_SETUPS = {
    "hf-trainer": dict(
        settings=dict(precision="bf16", optimizer="adamw-fused", first_micro_batch=True,
                      hold_outputs=False),
        about="Hugging Face Trainer, TrainingArguments(bf16=True), the model from "
              "from_pretrained with transformers 5's default dtype='auto' (a bf16 checkpoint "
              "stays bf16), optim's default 'adamw_torch_fused', one GPU or DDP",
        sources=("transformers 5.23 training_args.py: default_optim = 'adamw_torch_fused' "
                 "for torch >= 2.8", "transformers 5.23 modeling_utils.py: from_pretrained "
                 "dtype='auto'", "transformers 5.23 trainer.py: model.zero_grad() after each "
                 "optimizer step (set_to_none=True)", _TRAINER_LOSS)),
    "hf-trainer-fp32-weights": dict(
        settings=dict(precision="amp-bf16", optimizer="adamw-fused", first_micro_batch=True,
                      hold_outputs=False),
        about="the same Trainer with the model loaded as from_pretrained(..., "
              "dtype=torch.float32): Accelerate runs the forward under torch.autocast(bf16)",
        sources=("accelerate 1.15 accelerator.py: native_amp wraps model.forward in "
                 "autocast", _TRAINER_LOSS)),
    "hf-trainer-fsdp": dict(
        settings=dict(precision="fsdp-bf16", optimizer="adamw-fused", zero_stage=3,
                      first_micro_batch=True, hold_outputs=False),
        about="the Trainer with fsdp='full_shard' (FSDP2 through Accelerate): parameters "
              "upcast to fp32, MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=bf16), "
              "each decoder layer, the input embedding and the tail (final norm, lm_head) "
              "their own units, the tail not resharded after forward",
        sources=("accelerate 1.15 utils/fsdp_utils.py fsdp2_prepare_model: upcast to fp32, "
                 "units, tail reshard_after_forward=False", "accelerate 1.15 "
                 "utils/dataclasses.py set_mixed_precision: param_dtype, reduce_dtype, "
                 "output_dtype bf16", "torch 2.13 distributed/fsdp/_fully_shard/"
                 "_fsdp_collectives.py: the reduce-scatter output cast to the parameter's "
                 "dtype", _TRAINER_LOSS)),
    "hf-trainer-fsdp-shard-grad-op": dict(
        settings=dict(precision="fsdp-bf16", optimizer="adamw-fused", zero_stage=2,
                      first_micro_batch=True, hold_outputs=False),
        about="the Trainer with fsdp='shard_grad_op' (reshard_after_forward=False): every "
              "unit's bf16 weights held from its forward to the end of its backward",
        sources=("accelerate 1.15 utils/fsdp_utils.py", _TRAINER_LOSS)),
    "hf-trainer-deepspeed-zero2": dict(
        settings=dict(precision="bf16-mixed", optimizer="adamw", zero_stage=2,
                      hold_outputs=False, deepspeed_buckets="trainer-auto"),
        about="the Trainer with a DeepSpeed config, bf16.enabled and ZeRO stage 2: bf16 "
              "weights, bf16 gradient partitions (grad_accum_dtype defaults to the model's), "
              "fp32 master and Adam partitions; the bucket sizes left 'auto', as the "
              "Trainer's example configs do",
        sources=("DeepSpeed runtime/engine.py get_data_types: grad_accum_dtype = model_dtype "
                 "unless set", _TRAINER_AUTO, _TRAINER_LOSS)),
    "hf-trainer-deepspeed-zero3": dict(
        settings=dict(precision="bf16-mixed", optimizer="adamw", zero_stage=3,
                      hold_outputs=False, deepspeed_buckets="trainer-auto"),
        about="as above with ZeRO stage 3 (the bf16 weights partitioned too)",
        sources=("DeepSpeed runtime/zero/config.py (commit edaa722)", _TRAINER_AUTO,
                 _TRAINER_LOSS)),
    "pytorch-amp": dict(
        settings=dict(precision="amp-bf16", optimizer="adamw"),
        about="a plain PyTorch loop: fp32 model, torch.autocast(bfloat16), "
              "torch.optim.AdamW() (foreach on a GPU), the model's output held through the "
              "backward (outputs = model(**batch); outputs.loss.backward(), as Accelerate's "
              "examples write it)",
        sources=("torch 2.13 optim/adamw.py",)),
    "megatron": dict(
        settings=dict(precision="bf16-mixed-fp32-grads", optimizer="adamw", zero_stage=1,
                      hold_outputs=False),
        about="Megatron-LM --bf16 with the distributed optimizer: bf16 weights, fp32 "
              "main_grad (accumulate_allreduce_grads_in_fp32 is forced on with bf16), fp32 "
              "master and Adam sharded over the data-parallel GPUs",
        sources=("Megatron-LM arguments.py: bf16 implies accumulate_allreduce_grads_in_fp32",
                 "Megatron-LM megatron/core/models/gpt/gpt_model.py (commit e914fb7) "
                 "GPTModel.forward: given labels, it returns the loss only")),
}


def setup_settings(setup, **overrides):
    """The :class:`TrainingSetup` of a named tool (:data:`TRAINING_SETUPS`), with
    ``overrides`` on top: ``training_memory(cfg, 4096, setup_settings("hf-trainer-fsdp",
    dp=8))`` (or ``**setup_settings(...)``: it unpacks like a dict)."""
    check_choice("setup", setup, tuple(TRAINING_SETUPS))
    return TrainingSetup.of(**dict(TRAINING_SETUPS[setup]["settings"], **overrides))


# --- FP8 training ------------------------------------------------------------------------
# Bytes per parameter of the states an FP8 run keeps. FP8 changes the matmuls, not the
# optimizer: the master weights and gradients stay wide. "fp8_weights": bytes per matmul
# weight of the FP8 copies the GEMMs read (Hopper's FP8 GEMMs take only one layout, so the
# backward needs a transposed copy too: rowwise and columnwise, 1 + 1).
FP8_RECIPES = {
    "te-megatron": dict(
        param=2, grad=4, master=4, optimizer=8, fp8_weights=2,
        about="Transformer Engine FP8 (delayed or current scaling) in Megatron-LM on Hopper: "
              "bf16 weights 2, fp32 main_grad 4, fp32 master 4, AdamW 8 (the 18 of "
              "bf16-mixed-fp32-grads), plus the FP8 weight and its transpose, 1 + 1 per "
              "matmul weight",
        sources=("Transformer Engine docs, low-precision training, performance "
                 "considerations: 'Handling transposes' (rowwise and columnwise usages)",)),
    "deepseek-v3": dict(
        param=0, grad=4, master=4, optimizer=4, fp8_weights=1,
        about="DeepSeek-V3's FP8 recipe: fp32 master weights 4 and fp32 gradients 4, AdamW's "
              "m and v in bf16 (2 + 2), the GEMMs reading FP8 weights (128 x 128 blocks, one "
              "fp32 scale each: 1 B per matmul weight + 4 / 16,384)",
        sources=("DeepSeek-V3 technical report (arXiv 2412.19437), section 3.3: FP8 mixed "
                 "precision, low-precision optimizer states",)),
}


def fp8_state_bytes(n_params, n_matmul, recipe="te-megatron"):
    """Bytes of the states of FP8 training for ``n_params`` parameters of which
    ``n_matmul`` are matmul weights (before any sharding): the recipe's bytes per parameter
    (:data:`FP8_RECIPES`) plus its FP8 weight copies (DeepSeek-V3's with one fp32 scale per
    128 x 128 block). Bookkeeping from the sources named, not measured (FP8 GEMMs need a
    Hopper or newer GPU)."""
    r = FP8_RECIPES[check_choice("recipe", recipe, tuple(FP8_RECIPES))]
    per = r["param"] + r["grad"] + r["master"] + r["optimizer"]
    scales = 4 * cdiv(n_matmul, 128 * 128) if recipe == "deepseek-v3" else 0
    return per * n_params + r["fp8_weights"] * n_matmul + scales
