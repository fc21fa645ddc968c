"""What training costs: memory per GPU and compute, from a model's ``config.json``.

Two kinds of number live here, and the course keeps them apart:

* **Exact bookkeeping** (:func:`training_memory`'s ``params``, ``grads`` and
  ``optimizer``): bytes per parameter under a named convention, times the exact
  parameter count, divided over GPUs as ZeRO and tensor parallelism divide them.
  For fp32 and AdamW this equals, to the byte, what PyTorch holds after one
  ``optimizer.step()`` (``tests/test_training_torch.py``).
* **Activation memory** (``activations``, ``logits``): the tensors that autograd
  saves for the backward pass (per layer kind in :mod:`llmcourse.activations`), one
  entry per tensor a Hugging Face ``transformers`` decoder layer saves (its norms, q/k/v, the attention kernel's outputs, the MLP or
  the routed experts). For Llama, Qwen3, Qwen3-MoE and Mixtral (fp32, bf16 and autocast)
  it matches the bytes PyTorch saves, measured with ``torch.autograd.graph.saved_tensors_hooks`` on CPU
  (``measurements/saved_activations.py``, ``llmcourse/data/saved_activations.json``);
  a layer that is not softmax attention counts its own mixer's tensors (Qwen3.5's Gated
  DeltaNet exactly as transformers' PyTorch path saves them, Mamba-2 (Nemotron-H, Granite
  4.0) exactly in the measured settings, Kimi Delta Attention within 1%), Gemma 4's layers
  and MLA with DSA's indexer (eager) are counted to the byte
  (``measurements/saved_activations_hybrid.py``, ``tests/test_training_hybrid_layers.py``);
  for the other
  families the same per-tensor rules are an estimate.

Everything is closed-form arithmetic on the layer groups of
:mod:`llmcourse.architectures`: the cost does not grow with a number's size.
Standard library only.
"""

from __future__ import annotations

from fractions import Fraction

from .activations import (TERM_LABELS, cdiv, global_terms, kind_of, sdpa_sliding_mask,
                          layer_terms, mlp_width, term_label)
from .architectures import global_tensors, layer_groups
from .config import ConfigError
from .counts import flops_per_token, param_count
from .parallelism import (PP_SCHEDULES, communication_volume,
                          in_flight_micro_batches, interleaved_in_flight, pipeline_bubble,
                          pipeline_stages, tool_buffers, virtual_stage_layers)
from .training_settings import (ATTENTION, FP8_RECIPES, LOSSES, MAX_GPUS, OPTIMIZERS,
                                PRECISIONS, RECOMPUTE, TRAINING_SETUPS, TrainingSetup,
                                as_setup, bytes_per_param, check_choice, check_int,
                                fp8_state_bytes, optimizer_state_bytes,
                                optimizer_step_temporaries, setup_settings)
from .zoo import as_config

__all__ = ["PRECISIONS", "OPTIMIZERS", "RECOMPUTE", "ATTENTION", "TrainingMemory",
           "training_memory", "bytes_per_param", "fewest_gpus", "layer_activation_bytes",
           "data_parallel_size",
           "measured_activations", "korthikanti_activation_bytes", "TrainingFlops", "training_flops",
           "training_time", "run_mfu", "CHINCHILLA_TOKENS_PER_PARAM", "chinchilla_tokens", "MFU_CONVENTIONS",
           "RESERVE_FRACTION", "usable_bytes", "fit_verdict", "measured_peaks", "PP_SCHEDULES",
           "pipeline_stages", "in_flight_micro_batches", "pipeline_bubble", "activation_accuracy",
           "TRAINING_SETUPS", "setup_settings", "FP8_RECIPES", "fp8_state_bytes", "TERM_LABELS",
           "stored_measurement", "communication_volume", "TrainingSetup", "LOSSES"]

def _groups(cfg):
    """``[(n_layers, tensors, is_moe), ...]``: one entry per layer kind, its layer count
    by arithmetic (a layer schedule's runs), so a billion layers cost what 32 cost."""
    return [(g.count, g.tensors, any(t.routed for t in g.tensors)) for g in layer_groups(cfg)]


def _stage_groups(cfg, start, stop):
    """``[(n_layers, tensors, is_moe), ...]`` of layers ``start .. stop - 1``."""
    if start == 0 and stop == cfg.num_hidden_layers:
        return _groups(cfg)
    tensors = {g.kind: g.tensors for g in layer_groups(cfg)}
    return [(n, tensors[k], any(t.routed for t in tensors[k]))
            for k, n in cfg.layer_schedule.counts_between(start, stop).items()]


def _stage_globals(cfg, first, last):
    """The tensors outside the layers a stage holds: the embeddings (and Gemma 4's
    per-layer input projection) on the first stage, the final norm and the lm_head on
    the last. A tied lm_head on a last stage that is not also the first is a second copy
    of the embedding (Megatron-LM keeps one on each and sums their gradients)."""
    out = []
    for t in global_tensors(cfg):
        at_first = t.component == "embedding" or "per_layer" in t.name
        if first if at_first else last:
            out.append(t._replace(tied=False) if t.tied and not first else t)
    return out


def _stage_params(groups, globals_):
    """``(sizes, norm values, matmul values)`` of a stage's trainable parameters:
    ``sizes`` is ``[(numel, how many such tensors), ...]`` in the checkpoint's layout
    (each routed expert its own tensors); the matmul values are every weight a forward
    multiplies by (the lm_head included even when tied; the embedding lookup, norms and
    biases are not matmuls): what ``torch.autocast`` casts to bf16 and saves. The routed
    experts are left out: ``transformers``' grouped-matmul experts call ``grouped_mm``,
    which autocast does not cast, on the weights as stored (fp32), casting the input to
    the weights' dtype instead, so no bf16 copy of them is made."""
    sizes, norms, matmul = [], 0, 0
    for n, tensors, _ in groups:
        for t in tensors:
            if t.buffer:
                continue
            sizes.append((t.numel, n * t.per_expert))
            if t.component == "norms":
                norms += n * t.per_expert * t.numel
            if t.matmul and len(t.shape) >= 2 and not t.routed:
                matmul += n * t.per_expert * t.numel
    for t in globals_:
        if t.matmul:
            matmul += t.numel
        if not t.tied:
            sizes.append((t.numel, 1))
            if t.component == "norms":
                norms += t.numel
    return sizes, norms, matmul



AMP_COPIES = "amp_weight_copies"

# recompute="full": the transients of the moment a layer is recomputed in backward
RECOMPUTED_LAYER = "recomputed_layer"
GRAD_BETWEEN_LAYERS = "grad_between_layers"
FREED_BEFORE_LAYERS = "freed_before_layers"
FREED_TERMS = ("final_norm", "log_probs", "labels", "final_softcap")


def _stream_width(cfg):
    """Values a token's residual stream holds between layers: hidden_size, or hc_mult
    streams of it (DeepSeek-V4's hyper-connections: the layer's input, its checkpoint)."""
    streams = cfg.layout.layer_input_streams
    return cfg.hidden_size * (getattr(cfg, streams) if streams else 1)


def _layer_matmul(tensors):
    """Values of one layer's weight matrices that autocast casts to bf16 (not the routed
    experts': see :func:`_stage_params`)."""
    return sum(t.per_expert * t.numel for t in tensors
               if t.matmul and not t.buffer and len(t.shape) >= 2 and not t.routed)


def recomputed_layer(cfg, lt, per_layer, is_moe, tensors, tokens, act, param, tp, split, amp,
                      frozen=False):
    """Bytes one layer adds while it is recomputed and backpropagated under full
    recomputation (``torch.utils.checkpoint``, use_reentrant=False): everything it saves
    again, less its input (already held as the checkpoint) where the norm keeps that same
    fp32 tensor, plus the largest temporaries of that moment, as measured on CPU
    (``measurements/step_peak.py``): a dense MLP's backward holds the gradients of the
    product, of act(gate) and of up beside gate, act and up (2 x intermediate more than
    it saves); a routed-expert block peaks either while it is recomputed (the gradient of
    the k weighted expert outputs, computed before the recomputation starts, and the two
    scatter buffers that put the experts' outputs back in token order: 3 x k x hidden)
    or in the experts' backward (the gradient of the down projection's input, k x its
    width, and the stacked weight gradient of every expert's down projection).

    ``frozen=True`` (a LoRA base, bf16; measured with ``measurements/lora_step.py``): a
    gated MLP's backward holds the three gradients beside the gate, act and up it saves
    (3 x intermediate more; a plain MLP's, the gradients of the activation's output and
    input beside fc1's output: 2 x, not measured); a routed-expert block has no weight
    gradient, and its recomputation holds the gradient of the k weighted outputs, the
    weighted outputs and the gathered input (k x hidden each, the first two in the routing
    weight's dtype when wider: fp32 for Mixtral), the layer's residual and the MLP's input
    (the forward's locals: a frozen layer saves neither)."""
    h = cfg.hidden_size
    res = 4 if act == 4 or amp else act
    extra = 2 * cdiv(_layer_matmul(tensors), tp) if amp else 0   # its bf16 weight copies
    if res == 4:   # the input norm keeps the fp32 residual itself: the checkpoint
        extra -= Fraction(4 * _stream_width(cfg) * tokens, split)
    if not is_moe:
        inter, gated = mlp_width(tensors, h, "mlp")
        inter = cdiv(inter, tp)
        # frozen: gated, the gradients of the product, act and up; plain, of the
        # activation's output and input
        extra += (3 if frozen and gated else 2) * act * inter * tokens
        if amp:   # by then one bf16 copy of the MLP's input is freed
            extra -= Fraction(act * h * tokens, split)
    else:
        E, k = cfg.num_experts, cfg.num_experts_per_tok
        inter = cdiv(mlp_width(tensors, h, "experts")[0], tp)
        e_act = 4 if amp else act
        # the weighted output takes the wider of the expert's dtype and the routing
        # weight's (Mixtral keeps the weight in fp32)
        w_out = 4 if cfg.layout.router_weight_fp32 else e_act
        recompute_peak = 3 * k * h * w_out * tokens
        backward_peak = k * inter * e_act * tokens + (0 if frozen else E * h * inter * param)
        if frozen:
            # the gradient of the weighted outputs and the weighted outputs (w_out), the
            # gathered input (the experts' dtype), the residual and the MLP's input
            recompute_peak = (k * h * (2 * w_out + e_act) * tokens
                              + 2 * act * Fraction(h * tokens, split))
        extra += max(recompute_peak, backward_peak)
    return per_layer + extra

# the global terms only the first or the last pipeline stage holds
_FIRST_STAGE_TERMS = ("token_ids",)
_LAST_STAGE_TERMS = ("final_norm", "log_probs", "labels", "final_softcap", "logits")

# the terms that make up ``logits``
LOGIT_TERMS = ("log_probs", "labels", "final_softcap", "logits")


# transients that are not a moment of their own: gradient buffers absent from a first
# micro-batch, and the buffers a tool keeps beside the states
GRADS_NOT_YET = "grads_not_yet"            # every gradient, at the start of backward
LAYER_GRADS_NOT_YET = "layer_grads_not_yet"   # the layers', when the first is recomputed
BUFFERS_BACKWARD = "buffers_backward"      # a tool's buffers at the start of backward
BUFFERS_RECOMPUTE = "buffers_recompute"    # ... while the first layer is recomputed
BUFFERS_STEP = "buffers_step"              # ... through the optimizer step


class StepPeaks:
    """The peak of one training step, from ``total``, ``states`` and ``transients``
    (shared by :class:`TrainingMemory` and :class:`~llmcourse.finetune.LoraMemory`).

    Two loops are named: **accumulating** (the gradient buffers exist when the backward
    starts: the second and later micro-batches of a gradient accumulation, or a tool that
    keeps persistent gradient buffers) and **first micro-batch** (PyTorch's default
    ``zero_grad(set_to_none=True)`` has freed every gradient, so the backward starts
    without them: each step of a run without accumulation). :attr:`peak` is the one the
    setting asks for (``first_micro_batch``; accumulating by default)."""

    __slots__ = ()

    def _buffers(self, moment):
        return self.transients.get({"backward": BUFFERS_BACKWARD, "recompute": BUFFERS_RECOMPUTE,
                                    "step": BUFFERS_STEP}[moment], 0)

    def _start(self, first):
        t = self.transients
        return (self.total + t["loss_grads"] + self._buffers("backward")
                - (t.get(GRADS_NOT_YET, 0) if first else 0))

    def _recompute(self, first):
        t = self.transients
        if RECOMPUTED_LAYER not in t:
            return 0
        return (self.total - t[FREED_BEFORE_LAYERS] + t[GRAD_BETWEEN_LAYERS]
                + t[RECOMPUTED_LAYER] + self._buffers("recompute")
                - (t.get(LAYER_GRADS_NOT_YET, 0) if first else 0))

    @property
    def first_micro_batch(self):
        return bool(self.settings.get("first_micro_batch", False))

    @property
    def peak_start_of_backward(self):
        """Bytes held at the start of the backward pass: everything in :attr:`total` plus
        the loss's gradients (fp32, the size of the logits: see ``transients``) and the
        buffers a tool keeps (``buffers``); in a first micro-batch, less the gradients,
        which do not exist yet."""
        return self._start(self.first_micro_batch)

    @property
    def peak_recompute(self):
        """With ``recompute="full"``: bytes held while the first layer is recomputed in
        backward (the last of the stage, when the most checkpoints are still held): the
        checkpoints, token ids, rotary tables and returned logits, the gradient flowing
        between layers, and that layer's saved tensors and temporaries; the loss's tensors
        are freed by then (in a first micro-batch the layers' gradients do not exist yet).
        0 without full recomputation."""
        return self._recompute(self.first_micro_batch)

    @property
    def peak_backward(self):
        """The most bytes held in the backward pass: :attr:`peak_start_of_backward`, or
        with ``recompute="full"`` the larger of it and :attr:`peak_recompute`."""
        return max(self.peak_start_of_backward, self.peak_recompute)

    @property
    def peak_step(self):
        """Bytes held during ``optimizer.step()``: the states plus the step's largest
        temporary (the activations are freed by then) and the buffers a tool keeps
        through the step (DDP's gradient buckets)."""
        return self.states + self.transients["optimizer_step"] + self._buffers("step")

    @property
    def peak_accumulating(self):
        """The peak when the gradients exist as the backward starts (from a step's second
        micro-batch on, or with persistent gradient buffers)."""
        return max(self._start(False), self._recompute(False), self.peak_step)

    @property
    def peak_first_micro_batch(self):
        """The peak of a step's first micro-batch after ``zero_grad(set_to_none=True)``:
        no gradient exists when its backward starts (every step when there is no gradient
        accumulation: the Hugging Face Trainer's default)."""
        return max(self._start(True), self._recompute(True), self.peak_step)

    @property
    def peak(self):
        """The most bytes held at once in one training step: the larger of
        :attr:`peak_backward` and :attr:`peak_step` (:attr:`peak_first_micro_batch` with
        ``first_micro_batch=True``, else :attr:`peak_accumulating`)."""
        return max(self.peak_backward, self.peak_step)

    @property
    def transient(self):
        """``peak - total``: what the peak holds beyond the weights, grads, optimizer
        state, saved tensors and logits (the loss's gradients, or the step's temporaries)."""
        return self.peak - self.total

    @property
    def labelled_terms(self):
        """``activation_terms`` with each identifier replaced by the words a table shows
        (:data:`~llmcourse.activations.TERM_LABELS`)."""
        return {term_label(k): v for k, v in self.activation_terms.items()}

    @property
    def peak_decided_by(self):
        """In words, which moment decides :attr:`peak`."""
        if self.peak_backward < self.peak_step:
            return "the optimizer step"
        if self.peak_recompute > self.peak_start_of_backward:
            return ("the first layer recomputed in backward (checkpoints + logits + that "
                    "layer's saved tensors and backward temporaries)")
        no_grads = "; no gradient yet" if self.first_micro_batch else ""
        if self.transients["loss_grads"]:
            return f"the start of backward (saved tensors + the loss's fp32 gradients{no_grads})"
        return f"the start of backward (the saved tensors of the micro-batches in flight{no_grads})"


class TrainingMemory(StepPeaks):
    """Per-GPU training memory, in bytes.

    ``params``, ``grads``, ``optimizer``: exact for the named convention (see
    :func:`training_memory`). ``activations``: the tensors saved for backward by the
    layers (and the embedding, final norm and rotary tables); ``logits``: the fp32
    log-probabilities the loss saves, the labels, and the logits the model returns.
    ``total`` sums the five. ``activation_terms`` names every term (bytes per GPU);
    ``saved_for_backward`` is what ``saved_tensors_hooks`` sees (everything but the
    returned logits). ``conventions`` says, in words, what was assumed. With pipeline
    parallelism it is one stage's memory, and ``pipeline`` names the stage and holds
    every stage's (:func:`training_memory`); otherwise ``pipeline`` is None.
    """

    __slots__ = ("model", "params", "grads", "optimizer", "activations", "logits",
                 "activation_terms", "transients", "conventions", "settings", "pipeline",
                 "buffers", "reserve_buffers")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))

    @property
    def total(self):
        return self.params + self.grads + self.optimizer + self.activations + self.logits

    @property
    def states(self):
        """Weights + grads + optimizer state (the part that does not depend on tokens)."""
        return self.params + self.grads + self.optimizer

    @property
    def saved_for_backward(self):
        return self.total - self.states - self.activation_terms.get("logits", 0)

    @property
    def setup(self):
        """The :class:`TrainingSetup` this memory was computed for."""
        return TrainingSetup.of(**{k: self.settings[k] for k in TrainingSetup().as_dict()})

    def as_dict(self):
        return {"params": self.params, "grads": self.grads, "optimizer": self.optimizer,
                "activations": self.activations, "logits": self.logits, "total": self.total,
                "peak": self.peak}

    def __repr__(self):
        parts = ", ".join(f"{k} {v / 2**30:,.2f} GiB" for k, v in self.as_dict().items())
        return f"TrainingMemory({self.model}, per GPU: {parts})"


def training_memory(cfg, seq_len, micro_batch=1, setup=None, **settings):
    """Training memory per GPU, in bytes, for one micro-batch of ``micro_batch`` sequences
    of ``seq_len`` tokens, run as ``setup`` says: a :class:`TrainingSetup`, a tool's name
    (:data:`TRAINING_SETUPS`) or keyword settings on top of either
    (``training_memory(cfg, 4096, setup="hf-trainer-fsdp", dp=8)``).

    Per GPU: the weights, gradients and optimizer state (bytes per parameter by precision
    and optimizer, sharded by ZeRO or FSDP over ``dp``, split by ``tp``); what autograd
    saves for the backward (per layer kind, :mod:`llmcourse.activations`); the loss's
    tensors and, where the loop holds the model's output, its logits. The peak adds the
    step's transients (the loss's gradients, the optimizer's temporaries, a tool's
    buffers). With pipeline parallelism, the stage whose peak is highest, every stage in
    ``pipeline["stages"]``. Each term, its source and its measurement: ``docs/training.md``.
    """
    cfg, st = as_config(cfg), as_setup(setup, **settings)
    check_int("seq_len", seq_len)
    check_int("micro_batch", micro_batch)
    _check_against_model(cfg, seq_len, st)
    m = st.num_micro_batches or st.pp
    run = dict(st.as_dict(), seq_len=seq_len, micro_batch=micro_batch, num_micro_batches=m)
    per_kind = {}   # one layer kind's terms, computed once for every stage
    if st.pp_schedule == "interleaved-1f1b":
        chunks = virtual_stage_layers(cfg, st.pp, st.virtual_stages)
        out = [_interleaved_stage(cfg, run, i, chunks[i], per_kind) for i in range(st.pp)]
        stages = [c[0][0:1] + c[-1][1:] for c in chunks]   # (first layer, stop) for display
    else:
        stages = pipeline_stages(cfg, st.pp)
        out = [_stage_memory(cfg, run, a, z, i == 0, i == st.pp - 1,
                             in_flight_micro_batches(i, st.pp, m, st.pp_schedule), per_kind)
               for i, (a, z) in enumerate(stages)]
    if st.pp == 1:
        return out[0]
    worst = max(range(st.pp), key=lambda i: out[i].peak)   # the first of equals
    mem = out[worst]
    mem.pipeline = dict(mem.pipeline, stage=worst, layers=stages[worst], stages=out,
                        schedule=st.pp_schedule, num_micro_batches=m,
                        virtual_stages=st.virtual_stages)
    return mem


def _check_against_model(cfg, seq_len, st):
    """The rules a setup keeps that depend on the model and the sequence."""
    if st.cp > seq_len:
        raise ConfigError(f"cp: must be at most seq_len={seq_len:,} (each GPU holds at least "
                          f"one token of the sequence) (got {st.cp})")
    if cfg.num_attention_heads % st.tp:
        raise ConfigError(f"tp: must divide num_attention_heads={cfg.num_attention_heads} "
                          f"(each GPU holds whole heads) (got {st.tp})")
    if st.pp > cfg.num_hidden_layers:
        raise ConfigError(f"pp: must be at most num_hidden_layers={cfg.num_hidden_layers:,} "
                          f"(each pipeline stage holds at least one layer) (got {st.pp})")


def _interleaved_stage(cfg, settings, rank, chunks, per_kind):
    """One GPU's :class:`TrainingMemory` under interleaved 1F1B: its ``chunks`` (virtual
    stages ``rank, rank + pp, ...``), each holding as many micro-batches as the window of
    forwards the schedule keeps in flight (:func:`~llmcourse.parallelism.interleaved_in_flight`,
    the window that holds the most bytes)."""
    pp, v, m = settings["pp"], settings["virtual_stages"], settings["num_micro_batches"]
    last_g = pp * v - 1
    flags = [((c * pp + rank) == 0, (c * pp + rank) == last_g) for c in range(v)]
    ones = [_stage_memory(cfg, settings, a, z, fi, la, 1, per_kind)
            for (a, z), (fi, la) in zip(chunks, flags)]
    n = interleaved_in_flight(rank, pp, m, v, weights=[c.activations + c.logits for c in ones])
    mems = [_stage_memory(cfg, settings, a, z, fi, la, k, per_kind)
            for (a, z), (fi, la), k in zip(chunks, flags, n)]
    terms, transients, buffers, reserve = {}, {}, {}, {}
    for mm in mems:
        for k, val in mm.activation_terms.items():
            terms[k] = terms.get(k, 0) + val
        for k, val in mm.transients.items():
            # the loss's gradients exist on one chunk at a time; the rest add up
            transients[k] = (max(transients.get(k, 0), val) if k == "loss_grads"
                             else transients.get(k, 0) + val)
        for k, val in mm.buffers.items():
            buffers[k] = tuple(a + b for a, b in zip(buffers.get(k, (0, 0, 0)), val))
        for k, val in mm.reserve_buffers.items():
            reserve[k] = reserve.get(k, 0) + val
    first = mems[0]
    return TrainingMemory(
        model=first.model, params=sum(x.params for x in mems), grads=sum(x.grads for x in mems),
        optimizer=sum(x.optimizer for x in mems), activations=sum(x.activations for x in mems),
        logits=sum(x.logits for x in mems), activation_terms=terms, transients=transients,
        conventions=first.conventions.split("; pipeline")[0]
        + f"; pipeline GPU {rank} of pp={pp} holding virtual stages "
        + ", ".join(f"{c * pp + rank} (layers {a}-{z - 1})" for c, (a, z) in enumerate(chunks))
        + f" (interleaved 1F1B, {sum(n)} chunk-micro-batches in flight)",
        settings=dict(settings), buffers=buffers, reserve_buffers=reserve,
        pipeline=dict(in_flight=Fraction(sum(n), v), chunks=n))


def _checkpoint_inputs(cfg, groups, s, s_loc, b, act, amp, attention, rotary):
    """With gradient checkpointing, what every checkpointed layer call keeps besides its
    hidden states, until its backward (measured: ``measurements/step_peak.py``'s
    checkpointed rows): transformers hands each layer the model's ``position_ids`` (one
    int64 row of ``seq_len``, shared by the batch; kept when the model has rotary tables)
    and its attention masks: with eager attention one ``b x s x s`` float mask per kind of
    softmax layer (full, sliding), in the model's dtype (fp32 under autocast); with SDPA
    only a materialized sliding-window mask (Gemma 3 once ``seq_len >= sliding_window``),
    a boolean ``s x s`` shared by the batch (SDPA converts it when it runs). Without
    checkpointing neither outlives the forward."""
    out = {}
    if rotary:
        out["checkpoint_position_ids"] = 8 * s
    kinds = {kind_of(cfg, tensors) for _, tensors, _ in groups}
    if attention == "eager":
        n = len({k.attention for k in kinds} & {"full_attention", "sliding_attention"})
        masks = n * (4 if amp else act) * b * s_loc * s
    else:
        masks = s_loc * s if any(sdpa_sliding_mask(cfg, k, s) for k in kinds) else 0
    if masks:
        out["checkpoint_masks"] = masks
    return out


def _stage_memory(cfg, settings, start, stop, first, last, f, per_kind):
    """One pipeline stage's :class:`TrainingMemory` (the whole model when it is the only
    stage): its layers ``start .. stop - 1``, the embedding if ``first``, the head and
    the loss if ``last``, and ``f`` micro-batches' saved tensors in flight."""
    st = settings
    s, b, tp, dp, cp, sp = (st["seq_len"], st["micro_batch"], st["tp"], st["dp"], st["cp"],
                            st["sp"])
    precision, optimizer, zero_stage = st["precision"], st["optimizer"], st["zero_stage"]
    p = PRECISIONS[precision]
    groups = _stage_groups(cfg, start, stop)
    sizes, norms, matmul = _stage_params(groups, _stage_globals(cfg, first, last))
    n_stage = sum(numel * count for numel, count in sizes)
    n = n_stage
    if tp > 1:  # matrices and the embedding split over tp; norms (1-D) replicated
        n = cdiv(n - norms, tp) + norms
    # weights, grads, optimizer state (master weights belong to the optimizer's state)
    weights = p["param"] * n
    grads = (p["grad"] + p["accum"]) * n
    opt_total = optimizer_state_bytes(sizes, optimizer, precision)
    if tp > 1:  # the same share of the state as of the weights
        opt_total = cdiv(opt_total * n, n_stage)
    opt = p["master"] * n + opt_total
    if zero_stage >= 1:
        opt = cdiv(opt, dp)
    if zero_stage >= 2:
        grads = cdiv(grads, dp)
    if zero_stage >= 3 or (precision == "fsdp-bf16" and zero_stage == 2):
        # FSDP's SHARD_GRAD_OP shards its fp32 weights too (the bf16 ones it gathers for
        # compute are its buffers)
        weights = cdiv(weights, dp)

    act = p["act"]
    amp = precision == "amp-bf16"
    attn, recompute = st["attention"], st["recompute"]
    terms = {}
    largest_layer = 0
    layer_matmul = 0   # amp with full recomputation: matmul weights only the layers read
    s_loc = cdiv(s, cp)      # the tokens of each sequence this GPU holds
    split = tp if sp else 1   # sequence parallelism: the hidden-size terms split too
    for n_layers, tensors, is_moe in groups:
        key = id(tensors)
        if key not in per_kind:
            lt = layer_terms(cfg, tensors, is_moe, s, attn, act, 1 if sp else tp, amp, b=b)
            if sp:
                lt = {k: Fraction(v, tp) for k, v in lt.items()}
            if recompute == "selective":
                lt.pop("attention_scores", None)
            per_layer = sum(lt.values()) * s_loc * b
            if is_moe:  # grouped matmul: one int32 offset per expert, per layer
                k_r = "router"
                lt[k_r] = lt[k_r] + Fraction(4 * cfg.num_experts, s_loc * b)
                per_layer += 4 * cfg.num_experts
            per_kind[key] = lt, per_layer
        lt, per_layer = per_kind[key]
        if recompute == "full":
            largest_layer = max(largest_layer, recomputed_layer(
                cfg, lt, per_layer, is_moe, tensors, s_loc * b, act, p["param"], tp, split, amp))
        if recompute == "full":
            key = "checkpoints"
            # the residual stream's dtype: fp32 under autocast (fp32 weights)
            terms[key] = terms.get(key, 0) + Fraction(n_layers * (4 if amp else act)
                                                      * _stream_width(cfg) * s_loc * b, split)
            if amp:   # the layers' bf16 weight copies are made again when they are recomputed
                layer_matmul += n_layers * _layer_matmul(tensors)
        else:
            for k, v in lt.items():
                terms[k] = terms.get(k, 0) + n_layers * v * s_loc * b
    g = global_terms(cfg, s_loc, b, act, tp, amp)
    if recompute == "full" and groups:
        terms.update(_checkpoint_inputs(cfg, groups, s, s_loc, b, act, amp, attn,
                                        g["rotary_tables"]))
    for k, v in g.items():   # token ids enter the first stage; the head is the last's
        if not v:
            continue   # no such tensor (NoPE: no rotary tables; no softcapping)
        if (first or k not in _FIRST_STAGE_TERMS) and (last or k not in _LAST_STAGE_TERMS):
            terms[k] = v
    if amp:
        # autocast casts each fp32 weight matrix to bf16 for its matmul and the matmul
        # saves that copy for backward: 2 bytes per matrix value (the lm_head included)
        terms[AMP_COPIES] = 2 * cdiv(matmul - layer_matmul, tp)
    if not st["hold_outputs"]:
        # the loop keeps only the loss (the Trainer's compute_loss, Megatron-LM's forward):
        # the model's output, and the logits it returns, are freed before the backward
        terms.pop("logits", None)
    if st["loss"] == "chunked" and last:   # no logits kept: each chunk is recomputed
        for k in ("log_probs", "final_softcap", "logits"):
            terms[k] = 0
        if amp:   # the lm_head's bf16 copy is made inside the checkpointed chunk, not kept
            terms[AMP_COPIES] -= 2 * cdiv(cfg.vocab_size * cfg.hidden_size, tp)
    # each micro-batch in flight holds its own saved tensors (one pipeline stage may
    # hold several); a layer recomputed in backward is one at a time
    terms = {k: int(-(-v // 1)) * f for k, v in terms.items()}
    # transients. At the start of backward the loss's gradient exists beside everything
    # saved: cross-entropy's backward holds the fp32 gradient of the log-probabilities
    # and writes the fp32 gradient of the logits (transformers upcasts the logits to
    # fp32 before the loss): 4 + 4 bytes per logit. A fused/chunked loss never holds
    # the whole fp32 vocabulary x tokens matrix. The optimizer step's largest
    # temporary: foreach AdamW (PyTorch's default on a GPU) computes sqrt(v) for every
    # parameter of a group at once: 4 bytes per parameter of this GPU's shard.
    V = cdiv(cfg.vocab_size, tp)
    if not last:
        loss_grads = 0
    elif st["loss"] == "plain":
        loss_grads = 8 * V * s_loc * b
    else:  # one chunk: 12 B per logit, and its lm_head weight gradient before it is summed
        loss_grads = 12 * V * min(st["loss_chunk"], s_loc * b) + p["grad"] * V * cfg.hidden_size
    transients = {"loss_grads": loss_grads,
                  "optimizer_step": optimizer_step_temporaries(
                      cdiv(n, dp if zero_stage >= 1 else 1), optimizer, precision)}
    # a first micro-batch after zero_grad(set_to_none=True): no gradient buffer exists when
    # the backward starts (an fp32 accumulation buffer is kept); when the first layer is
    # recomputed, only the head's gradients (final norm, an untied lm_head) exist
    head = sum(t.numel for t in _stage_globals(cfg, first, last)
               if not t.tied and t.component != "embedding" and "per_layer" not in t.name)
    head = cdiv(head, tp) if tp > 1 else head
    grad_now = p["grad"] * n
    head_grads = p["grad"] * head
    if zero_stage >= 2:
        grad_now, head_grads = cdiv(grad_now, dp), cdiv(head_grads, dp)
    transients[GRADS_NOT_YET] = grad_now
    transients[LAYER_GRADS_NOT_YET] = grad_now - head_grads
    # the buffers the tool keeps: DDP's buckets, FSDP's gathered bf16 weights
    tail = sum(t.numel for t in _stage_globals(cfg, False, last)
               if t.component == "norms" or t.name.startswith("lm_head")) if last else 0
    largest = max((sum(t.per_expert * t.numel for t in tensors if not t.buffer)
                   for _, tensors, _ in groups), default=0)
    if tp > 1:
        tail, largest = cdiv(tail, tp), cdiv(largest, tp)
    buffers, reserve = tool_buffers(precision, zero_stage, dp, n, tail, largest, last,
                                    st["deepspeed_buckets"], cfg.hidden_size)
    for key, i in ((BUFFERS_BACKWARD, 0), (BUFFERS_RECOMPUTE, 1), (BUFFERS_STEP, 2)):
        transients[key] = sum(v[i] for v in buffers.values())
    if recompute == "full" and groups:
        # after the head's backward, before any layer is recomputed, the loss's tensors and
        # the final norm's are freed; the checkpoints, the token ids, the rotary tables
        # (held by each checkpoint's recompute closure) and the returned logits (where the
        # loop holds the model's output) stay, and
        # the gradient of the hidden states flows from layer to layer (measured on CPU:
        # measurements/step_peak.py's timeline)
        res = 4 if act == 4 or amp else act      # the residual stream's dtype
        # (under autocast also the lm_head's bf16 weight copy: the layers' own are made
        # again when they are recomputed)
        transients[FREED_BEFORE_LAYERS] = sum(terms.get(k, 0) for k in FREED_TERMS
                                              + (AMP_COPIES,))
        transients[GRAD_BETWEEN_LAYERS] = int(-(-Fraction(res * cfg.hidden_size * s_loc * b,
                                                          split) // 1))
        transients[RECOMPUTED_LAYER] = int(-(-largest_layer // 1))
        if first and last and cfg.get("tie_word_embeddings", False):
            # a tied lm_head's weight gradient waits in autograd's input buffer for the
            # embedding's share, computed last: held through every layer's backward
            transients[GRAD_BETWEEN_LAYERS] += p["param"] * cdiv(
                cfg.vocab_size * cfg.hidden_size, tp)
    logits = sum(terms.get(k, 0) for k in LOGIT_TERMS)
    activations = sum(terms.values()) - logits
    o_name = OPTIMIZERS[optimizer][1]
    pp = st["pp"]
    conventions = (f"{p['about']}; {o_name}; activations {act} B per value, "
                   f"{'FlashAttention (no s x s scores)' if attn == 'flash' else 'eager attention (s x s scores)'}"
                   f", recompute {recompute}; ZeRO-{zero_stage} over dp={dp}, tp={tp}; "
                   + ("the model's output held through the backward" if st["hold_outputs"]
                      else "only the loss kept: the returned logits freed before the backward")
                   + (f"; pipeline stage holding layers {start}-{stop - 1} of pp={pp} "
                      f"({st['pp_schedule']}, {f} micro-batches in flight)" if pp > 1 else ""))
    return TrainingMemory(model=cfg.name, params=weights, grads=grads, optimizer=opt,
                          activations=activations, logits=logits, activation_terms=terms,
                          transients=transients, conventions=conventions,
                          settings=dict(st), pipeline=dict(in_flight=f) if pp > 1 else None,
                          buffers=buffers, reserve_buffers=reserve)


RESERVE_FRACTION = 0.1
"""The share of a GPU's memory a training run should leave free: the CUDA context
(about 0.5-1 GB), the caching allocator's fragmentation and the collectives' buffers.
The course uses the same 10% that lesson 07 teaches for serving (vLLM's default
``gpu_memory_utilization=0.9``), so a setting "fits" when its peak is at most 90% of
the GPU. A rule of thumb stated as such, not a measurement."""


def usable_bytes(gpu, reserve=RESERVE_FRACTION):
    """Bytes of ``gpu`` (a name, ``GPU``, dict or a number of bytes) a run may use:
    ``(1 - reserve) x memory``."""
    if isinstance(reserve, bool) or not isinstance(reserve, (int, float)) \
            or not 0 <= reserve < 1:
        raise ConfigError(f"reserve: must be a fraction in [0, 1), e.g. 0.1 (got {reserve!r})")
    cap = gpu if isinstance(gpu, int) and not isinstance(gpu, bool) else None
    if cap is None:
        from .hardware import as_gpu
        cap = as_gpu(gpu).memory_bytes
    return int(cap * (1 - reserve))


def fit_verdict(mem, gpu, reserve=RESERVE_FRACTION):
    """``(fits, words)``: whether ``mem.peak`` (a :class:`TrainingMemory`) stays within
    :func:`usable_bytes` of ``gpu``, and a sentence saying by how much and which
    moment of the step decides the peak."""
    use = usable_bytes(gpu, reserve)
    spare = use - mem.peak
    st = mem.settings or {}
    bound = st.get("pp", 1) > 1 and st.get("pp_schedule") == "zero-bubble-h1"
    peak = "peak at most" if bound else "peak"
    head = (f"fits, {spare / 1e9:,.1f} GB to spare" if spare >= 0
            else f"does not fit: {-spare / 1e9:,.1f} GB over")
    if bound:
        head = (f"fits even at the upper bound, {spare / 1e9:,.1f} GB to spare" if spare >= 0
                else f"over at the upper bound by {-spare / 1e9:,.1f} GB")
    words = (f"{head} ({peak} {mem.peak / 1e9:,.1f} GB, at {mem.peak_decided_by}; "
             f"usable {use / 1e9:,.1f} GB after a {reserve:.0%} reserve)")
    if bound:
        words += ("; ZB-H1's figure is an upper bound: it keeps every saved tensor until a "
                  "micro-batch's W runs, where Qi et al. (2024) design the schedule to hold "
                  "1F1B's peak")
    return spare >= 0, words


def layer_activation_bytes(cfg, seq_len=1, micro_batch=1, precision="bf16-mixed",
                           attention="flash", tp=1):
    """Bytes one layer saves for backward (no recomputation), per layer kind:
    ``[(n_layers, is_moe, bytes of one such layer), ...]``. With the defaults
    (one token), the bytes per token of one layer."""
    cfg = as_config(cfg)
    check_int("seq_len", seq_len)
    check_int("micro_batch", micro_batch)
    act = PRECISIONS[check_choice("precision", precision, tuple(PRECISIONS))]["act"]
    check_choice("attention", attention, ATTENTION)
    out = []
    for n_layers, tensors, is_moe in _groups(cfg):
        per_tok = sum(layer_terms(cfg, tensors, is_moe, seq_len, attention, act, tp,
                                   precision == "amp-bf16", b=micro_batch).values())
        out.append((n_layers, is_moe, per_tok * seq_len * micro_batch
                    + (4 * cfg.num_experts if is_moe else 0)))
    return out


def data_parallel_size(n_gpus, tp=1, cp=1, pp=1):
    """How many data-parallel replicas ``n_gpus`` GPUs make when each replica is a group
    of ``tp x cp x pp`` GPUs (tensor, context and pipeline parallel): ``n_gpus // group``,
    refused unless the group divides ``n_gpus``."""
    check_int("n_gpus", n_gpus, hi=MAX_GPUS)
    check_int("tp", tp, hi=MAX_GPUS)
    check_int("cp", cp, hi=MAX_GPUS)
    check_int("pp", pp, hi=MAX_GPUS)
    group = tp * cp * pp
    if n_gpus % group:
        sizes = " x ".join(f"{k}={v}" for k, v in (("tp", tp), ("cp", cp), ("pp", pp))
                           if v > 1 or k == "tp")
        what = sizes if group == tp else f"{sizes} = {group}"
        raise ConfigError(f"n_gpus: must be a multiple of {what} (each data-parallel replica "
                          f"is a group of that many GPUs) (got {n_gpus})")
    return n_gpus // group


def fewest_gpus(cfg, gpu, seq_len, micro_batch=1, setup=None, *, reserve=RESERVE_FRACTION,
                **settings):
    """The fewest GPUs (``dp x tp x cp x pp``) on which :func:`training_memory`'s per-GPU
    **peak** stays within :func:`usable_bytes` (the GPU less ``reserve``), or ``None``
    if no count does (what is not sharded, such as the activations, already fills one
    GPU). ``gpu``: a name, ``GPU``, dict, or a number of bytes; ``setup`` and ``settings``
    as for :func:`training_memory` (without a setup, ZeRO-3 unless ``zero_stage`` is
    given). Closed form from the peak at the start of backward, then checked against the
    engine."""
    cap = usable_bytes(gpu, reserve)
    if setup is None:
        settings.setdefault("zero_stage", 3)
    st = as_setup(setup, **settings)
    group = st.tp * st.cp * st.pp   # one data-parallel replica

    def peak(dp):
        return training_memory(cfg, seq_len, micro_batch, st.replace(dp=dp)).peak

    one = training_memory(cfg, seq_len, micro_batch, st.replace(dp=1))
    if one.peak <= cap:
        return group
    if st.zero_stage == 0:
        return None
    if st.pp > 1:
        # the stage that decides may change with dp: bisect (the peak never grows with dp)
        if peak(MAX_GPUS) > cap:
            return None
        lo, hi = 1, MAX_GPUS
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if peak(mid) <= cap else (mid, hi)
        return hi * group
    # what the shards divide (a first micro-batch's peak holds no gradient)
    grads = 0 if st.first_micro_batch else one.grads
    sharded = one.optimizer + (grads if st.zero_stage >= 2 else 0) \
        + (one.params if st.zero_stage >= 3 else 0)
    fixed = one.peak_backward - sharded
    if fixed >= cap:
        return None
    dp = max(1, cdiv(sharded, cap - fixed))
    if dp > MAX_GPUS:
        return None
    while dp > 1 and peak(dp - 1) <= cap:
        dp -= 1   # at most a step or two: the ceil divisions of each part
    while peak(dp) > cap:
        dp += 1
        if dp > MAX_GPUS:
            return None
    return dp * group


def korthikanti_activation_bytes(cfg, seq_len, micro_batch=1, flash=False, bytes_per_value=2):
    """The textbook estimate of one model's activations, for comparison:
    ``L x s x b x h x (34 + 5 a s / h)`` bytes at 2 bytes per value (Korthikanti et
    al. 2022, eq. 1: a GPT layer with a 4h GELU MLP and dropout, 16-bit activations;
    ``flash=True`` drops the ``5 a s / h`` score term). It ignores GQA, SwiGLU's
    wider MLP, QK-norm, MoE, the fp32 norm statistics, the embedding and the logits.

    Of the 34, 32 are sixteen 16-bit values per token and hidden unit and 2 are the two
    1-byte dropout masks (after attention, after the MLP); of the 5, 4 are the softmax
    output and the dropout output (16-bit) and 1 the 1-byte dropout mask. At
    ``bytes_per_value`` (4 for fp32) the values scale and the masks do not:
    ``(16 v + 2) s b h + (2 v + 1) a s^2 b`` per layer, 66 and 9 at fp32."""
    cfg = as_config(cfg)
    check_choice("bytes_per_value", bytes_per_value, (2, 4))
    s, b, h, a = seq_len, micro_batch, cfg.hidden_size, cfg.num_attention_heads
    v = bytes_per_value
    per_layer = (16 * v + 2) * s * b * h + (0 if flash else (2 * v + 1) * a * s * s * b)
    return cfg.num_hidden_layers * per_layer


def stored_measurement(name):
    """One stored CPU measurement the package ships (``llmcourse/data/<name>.json``, written
    by ``python -m measurements ...``): ``"saved_activations"``,
    ``"saved_activations_hybrid"``, ``"saved_activations_attention"`` or ``"step_peaks"``."""
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", f"{name}.json")
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def measured_peaks():
    """The stored peak measurements (``llmcourse/data/step_peaks.json``, written by
    ``measurements/step_peak.py`` on CPU): bytes above the states at the end of the
    forward, at the peak of forward + backward, and during the optimizer step."""
    return stored_measurement("step_peaks")


def measured_activations():
    """The stored measurements (``llmcourse/data/saved_activations.json``, written
    by ``measurements/saved_activations.py`` on CPU): a dict with the torch and
    transformers versions, the small models' configs and one row per setting."""
    return stored_measurement("saved_activations")


_ACCURACY = {}


def activation_accuracy(cfg):
    """How far :func:`training_memory`'s saved tensors can be trusted for ``cfg``'s
    family, in words, from the stored CPU measurements of small models of the family
    (``llmcourse/data/saved_activations.json``, ``saved_activations_hybrid.json`` and
    ``saved_activations_attention.json``):
    ``"measured: equal to PyTorch's saved bytes"``, ``"estimate: measured X% to Y% off"``
    (the engine against every stored row of the family), or ``"estimate: not measured
    for <type>"``. The linear mixers are counted as transformers' reference PyTorch
    code saves them; a fused GPU kernel saves less."""
    cfg = as_config(cfg)
    mt = cfg.model_type
    key = (mt, cfg.is_moe)
    if key in _ACCURACY:
        return _ACCURACY[key]
    from .config import from_hf_config
    errors, with_experts = [], False
    for data in (measured_activations(), stored_measurement("saved_activations_hybrid"),
                 stored_measurement("saved_activations_attention")):
        for r in data["rows"]:
            model = data["models"][r["model"]]
            if model["model_type"] != mt and model.get("text_config", {}).get("model_type") != mt:
                continue
            small = from_hf_config(model)
            with_experts |= small.is_moe
            m = training_memory(small, r["seq_len"], r["batch"],
                                precision=data["engine_precision"][r["dtype"]],
                                attention=data["engine_attention"][r["attn_implementation"]])
            errors.append(m.saved_for_backward / r["saved_bytes"] - 1)
    if not errors:
        words = f"estimate: the same per-tensor rules, not measured for {mt}"
    elif max(abs(e) for e in errors) < 5e-4:
        words = f"measured: equal to PyTorch's saved bytes ({len(errors)} settings, CPU)"
    else:
        words = (f"estimate: {min(errors):+.0%} to {max(errors):+.0%} of PyTorch's saved bytes "
                 f"({len(errors)} settings of a small {mt}, CPU)")
    if errors and cfg.is_moe and not with_experts:   # the family measured without experts
        words = (f"estimate: layers as measured on a small dense {mt} ({words.split(': ')[1]}); "
                 f"its routed experts follow the common rules, not measured")
    _ACCURACY[key] = words
    return words


# --- compute --------------------------------------------------------------------------

CHINCHILLA_TOKENS_PER_PARAM = 20
"""Hoffmann et al. 2022 ("Training Compute-Optimal Large Language Models"): for a
compute-optimal model, about 20 training tokens per parameter (Chinchilla: 70B
parameters, 1.4T tokens). A reference point, not a rule: Llama-3-8B saw 15T tokens,
about 1,900 per parameter."""


def chinchilla_tokens(cfg):
    """``20 x`` the total parameter count: Chinchilla's compute-optimal token budget."""
    return CHINCHILLA_TOKENS_PER_PARAM * param_count(as_config(cfg)).total


class TrainingFlops:
    """Training FLOPs for ``tokens`` tokens in sequences of ``seq_len``.

    ``matmul`` = 6 x active matmul weights x tokens (forward 2, backward 4: the
    gradient with respect to the input and to the weight); ``attention`` = 3 x the
    forward attention FLOPs (causal, averaged over the sequence). ``model`` is
    their sum, what MFU counts; ``hardware`` adds the recomputed forward
    (``recompute="full"``: one more forward; ``"selective"`` with eager attention: one
    more attention forward; with FlashAttention there are no stored scores to drop, so
    selective recomputation adds nothing). The recomputation inside FlashAttention's
    own backward kernel is not counted, as MFU does not count it.
    """

    __slots__ = ("model_name", "tokens", "seq_len", "matmul", "attention", "recompute_extra")

    def __init__(self, model_name, tokens, seq_len, matmul, attention, recompute_extra):
        self.model_name, self.tokens, self.seq_len = model_name, tokens, seq_len
        self.matmul, self.attention, self.recompute_extra = matmul, attention, recompute_extra

    @property
    def model(self):
        return self.matmul + self.attention

    total = model

    @property
    def hardware(self):
        return self.model + self.recompute_extra

    def __int__(self):
        return self.model

    def __repr__(self):
        return (f"TrainingFlops({self.model_name}: {self.model:.4g} = 6ND {self.matmul:.4g} "
                f"+ attention {self.attention:.4g}, tokens={self.tokens:,}, seq_len={self.seq_len:,})")


MFU_CONVENTIONS = ("causal", "full")


def training_flops(cfg, tokens, seq_len, recompute="none", attention="flash",
                   convention="causal"):
    """Training FLOPs (forward + backward) for ``tokens`` tokens in sequences of
    ``seq_len``: ``6 x N x D`` for the N active matmul weights (the lm_head
    included, the embedding lookup not) plus 3 x the forward attention term.
    Exact integers (the attention average is rounded down per token). ``recompute``
    and ``attention`` only change the ``hardware`` FLOPs (see :class:`TrainingFlops`).

    ``convention``: how the attention FLOPs are counted, which changes a reported MFU.
    ``"causal"`` (the default): token i attends to i keys, the average over the
    sequence, (s + 1) / 2 keys (the causal mask halves the work). ``"full"``: every
    token attends to all s keys (window-limited layers to their window), as PaLM's
    46.2% MFU (Chowdhery et al. 2022, appendix B: 6N + 12 L H Q T per token) and
    Megatron-LM's formula (Narayanan et al. 2021) count it."""
    cfg = as_config(cfg)
    check_int("tokens", tokens, hi=10**16)
    check_int("seq_len", seq_len)
    check_choice("recompute", recompute, RECOMPUTE)
    check_choice("attention", attention, ATTENTION)
    check_choice("convention", convention, MFU_CONVENTIONS)
    fpt = flops_per_token(cfg, seq_len, "prefill" if convention == "causal" else "decode")
    matmul = 3 * fpt.matmul * tokens
    attn_flops = 3 * fpt.attention * tokens
    extra = {"none": 0,
             "selective": fpt.attention * tokens if attention == "eager" else 0,
             "full": (fpt.matmul + fpt.attention) * tokens}[recompute]
    return TrainingFlops(cfg.name, tokens, seq_len, matmul, attn_flops, extra)


def _fraction(name, v, lo_open=True, example="0.4"):
    ok = (not isinstance(v, bool) and isinstance(v, (int, float, Fraction))
          and (0 < v <= 1 if lo_open else 0 <= v < 1))
    if not ok:
        rng = "(0, 1]" if lo_open else "[0, 1)"
        raise ConfigError(f"{name}: must be a fraction in {rng}, e.g. {example} (got {v!r})")
    return float(v)


def training_time(flops, gpu, n_gpus=1, mfu=None, dtype="bf16", *, utilization=None,
                  bubble=0):
    """Seconds to train on ``n_gpus`` of ``gpu`` (a name, ``GPU`` or dict from
    :mod:`llmcourse.hardware`), one of two ways:

    * ``mfu`` (0.4 when neither is given): the run's model-FLOPs utilization, the model's
      FLOPs over ``n_gpus x peak(dtype) x seconds``, as runs report it. It already holds
      every second the GPUs idle (a pipeline's bubble) and every FLOP they redo
      (recomputation): ``t = C / (n x peak x MFU)`` for ``flops`` the model FLOPs (a number,
      or a :class:`TrainingFlops`' ``model``). Large dense runs report 0.35-0.55 (PaLM 46%,
      Llama 3 405B 38-43% on H100s).
    * ``utilization``: the share of peak the GPUs reach *while they compute*, on every FLOP
      they run. The time then adds what MFU hides: the FLOPs recomputation redoes
      (``flops.hardware``, a :class:`TrainingFlops`) and the share of the step a pipeline
      idles (``bubble``, :func:`pipeline_bubble`): ``t = C_hw / (n x peak x u x (1 -
      bubble))``. The run's MFU is then ``C / (n x peak x t)``: :func:`run_mfu`.
    """
    from .hardware import as_gpu
    g = as_gpu(gpu)
    check_int("n_gpus", n_gpus, hi=MAX_GPUS)
    if utilization is not None and mfu is not None:
        raise ConfigError("mfu: give mfu (the run's own, bubble and recomputation included) "
                          "or utilization (while the GPUs compute), not both (got both)")
    if utilization is None:
        if bubble:
            raise ConfigError(f"bubble: an MFU already includes the pipeline's idle time; "
                              f"give utilization= to add a bubble (got {bubble!r})")
        rate = _fraction("mfu", 0.4 if mfu is None else mfu)
        f = flops.model if isinstance(flops, TrainingFlops) else flops
        idle = 0.0
    else:
        rate = _fraction("utilization", utilization, example="0.5")
        idle = _fraction("bubble", bubble, lo_open=False, example="0.27")
        f = flops.hardware if isinstance(flops, TrainingFlops) else flops
    if isinstance(f, bool) or not isinstance(f, (int, float)) or f < 0:
        raise ConfigError(f"flops: must be a number of FLOPs, zero or more (got {f!r})")
    return float(f) / (n_gpus * g.peak(dtype) * rate * (1 - idle))


def run_mfu(flops, seconds, gpu, n_gpus=1, dtype="bf16"):
    """The model-FLOPs utilization a run of ``seconds`` reports: the model's FLOPs (a number
    or a :class:`TrainingFlops`' ``model``, recomputation not counted) over
    ``n_gpus x peak(dtype) x seconds``."""
    from .hardware import as_gpu
    g = as_gpu(gpu)
    check_int("n_gpus", n_gpus, hi=MAX_GPUS)
    f = flops.model if isinstance(flops, TrainingFlops) else flops
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        raise ConfigError(f"seconds: must be a positive number (got {seconds!r})")
    return float(f) / (n_gpus * g.peak(dtype) * seconds)
