"""Fine-tuning with LoRA and QLoRA: trainable parameters and memory per GPU.

* :func:`lora_params`: LoRA (Hu et al. 2021) adds, beside each targeted weight matrix
  ``W`` of shape ``d_out x d_in``, two trainable matrices ``A`` (``r x d_in``) and ``B``
  (``d_out x r``): ``r (d_in + d_out)`` parameters per matrix. The engine counts them per
  layer from the tensor layout of :mod:`llmcourse.architectures`, the way ``peft``'s
  ``LoraConfig(r=..., target_modules=...)`` places them; ``tests/test_finetune.py``
  checks the count against ``peft`` itself.
* :func:`lora_memory`: the frozen base in bf16 (LoRA) or NF4 (QLoRA, Dettmers et al.
  2023, as bitsandbytes stores it), the adapters in fp32 with their grads and AdamW
  state (16 B per trainable parameter), the tensors autograd saves through the frozen
  base and the adapters, the loss's gradients at the start of backward (with gradient
  checkpointing, the larger of that and the last layer's recomputation). The saved
  tensors follow what PyTorch saves in a ``peft`` LoRA step (measured on CPU,
  ``measurements/lora_step.py``): a frozen matmul keeps no input (no weight gradient),
  a frozen norm no normalized value; each adapter keeps its own fp32 copy of its input
  and its fp32 ``A`` output (and, with dropout, its mask); nothing before the first
  adapter needs a gradient, so the first layer's input norm keeps nothing.

Standard library only.
"""

from __future__ import annotations

from fractions import Fraction

from .architectures import layer_groups
from .config import ConfigError
from .counts import param_count
from .activations import global_terms, has_frozen_form, layer_terms, mlp_width
from .training import (FREED_TERMS, LOGIT_TERMS, StepPeaks, check_choice, check_int, recomputed_layer,
                       ATTENTION, FREED_BEFORE_LAYERS, GRAD_BETWEEN_LAYERS, RECOMPUTE,
                       RECOMPUTED_LAYER)
from .zoo import as_config

__all__ = ["LORA_TARGETS", "NF4_BITS", "DROPOUT_MASK_BYTES", "lora_params", "lora_memory",
           "LoraMemory", "nf4_tensor_bytes", "qlora_base_bytes"]

LORA_TARGETS = {
    "attention": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "all-linear": None,   # peft's shorthand: every Linear of the layers (not the lm_head)
}

# NF4 as bitsandbytes stores it (QLoRA, Dettmers et al. 2023): 4-bit codes, one absmax per
# block of 64 values; with double quantization the absmax values are themselves stored in
# 8 bits with one fp32 scale per 256 of them: 4 + 8/64 + 32/(64 x 256) bits per value.
NF4_BLOCK = 64
NF4_DQ_BLOCK = 256
NF4_BITS = 4 + Fraction(8, NF4_BLOCK) + Fraction(32, NF4_BLOCK * NF4_DQ_BLOCK)
"""4.127 bits per quantized value with double quantization (4 + 0.125 + 0.00195), from the
block sizes above; 4.5 without it (4 + 32/64: one fp32 absmax per block)."""
NF4_CODE_BYTES = 16 * 4        # each tensor's NF4 code table: 16 fp32 values
DYNAMIC_CODE_BYTES = 256 * 4   # double quantization: each tensor's 8-bit code table


def nf4_tensor_bytes(n, double_quant=False):
    """Bytes bitsandbytes stores for one ``n``-value weight quantized to NF4
    (``bitsandbytes.functional.quantize_4bit``, blocksize 64, ``quant_storage=uint8``): two
    codes a byte, ``ceil(n / 2)``; each tensor's 16-value fp32 code table; and one fp32
    absmax per block of 64, or with double quantization (``compress_statistics``) the
    absmax in 8 bits with one fp32 scale per 256 blocks, an fp32 offset and the 256-value
    fp32 code table of the 8-bit absmax. Measured on CPU with bitsandbytes 0.50.2, to the
    byte (``measurements/qlora_base.py``)."""
    blocks = -(-n // NF4_BLOCK)
    stats = (blocks + 4 * -(-blocks // NF4_DQ_BLOCK) + 4 + DYNAMIC_CODE_BYTES if double_quant
             else 4 * blocks)
    return (n + 1) // 2 + NF4_CODE_BYTES + stats


def qlora_base_bytes(cfg, double_quant=False, kbit_upcast=False):
    """``(quantized values, bytes)`` of a QLoRA base as transformers loads it with
    ``BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", ...)`` on a model
    loaded in bf16: every Linear of the layers in NF4 (:func:`nf4_tensor_bytes`), the
    embedding, the norms and the lm_head in bf16 (transformers never quantizes the output
    layer), or in fp32 after peft's ``prepare_model_for_kbit_training`` (``kbit_upcast``),
    which casts every parameter that is not 4-bit to fp32."""
    cfg = as_config(cfg)
    q, q_bytes = 0, 0
    for g in layer_groups(cfg):
        for t in g.tensors:
            if t.matmul and not t.buffer and len(t.shape) >= 2 and min(t.shape) > 1:
                k = g.count * t.per_expert
                q += k * t.numel
                q_bytes += k * nf4_tensor_bytes(t.numel, double_quant)
    rest = param_count(cfg).total - q
    return q, q_bytes + (4 if kbit_upcast else 2) * rest


def _module(t):
    """``self_attn.q_proj.weight`` -> ``q_proj``."""
    parts = t.name.split(".")
    return parts[-2] if len(parts) >= 2 else parts[0]


def _targets(cfg, target_modules):
    if isinstance(target_modules, str):
        if target_modules not in LORA_TARGETS:
            raise ConfigError(f"target_modules: must be one of {', '.join(LORA_TARGETS)} or a "
                              f"list of module names such as ['q_proj', 'v_proj'] "
                              f"(got {target_modules!r})")
        names = LORA_TARGETS[target_modules]
    elif isinstance(target_modules, (list, tuple)) and target_modules \
            and all(isinstance(x, str) for x in target_modules):
        names = tuple(target_modules)
    else:
        raise ConfigError(f"target_modules: must be 'attention', 'all-linear' or a list of "
                          f"module names (got {target_modules!r})")
    return names


def _targeted(cfg, target_modules, detail=False):
    """``[(count, d_in, d_out), ...]`` of the matrices LoRA adapts (``detail``: also the
    layer group and the tensor)."""
    cfg = as_config(cfg)
    names = _targets(cfg, target_modules)
    out, found = [], set()
    for gi, g in enumerate(layer_groups(cfg)):
        for t in g.tensors:
            if not t.matmul or t.buffer or len(t.shape) != 2 or min(t.shape) <= 1:
                continue
            if t.routed or t.per_expert > 1 or _module(t) in ("gate", "router"):
                if names is None:
                    raise ConfigError(f"target_modules: 'all-linear' on a routed-expert model "
                                      f"({cfg.name}) is not modelled; name the modules, e.g. "
                                      f"'attention'")
                continue
            if names is None or _module(t) in names:
                d_out, d_in = t.shape
                out.append((g.count, d_in, d_out) + ((gi, t) if detail else ()))
                found.add(_module(t))
    if names is not None:
        missing = [n for n in names if n not in found]
        if missing:
            raise ConfigError(f"target_modules: {', '.join(missing)} is not a weight matrix of "
                              f"{cfg.name}'s layers")
    return out


def lora_params(cfg, r=16, target_modules="attention"):
    """Trainable LoRA parameters: ``sum r (d_in + d_out)`` over every targeted matrix of
    every layer (``peft``'s count with ``LoraConfig(r=r, target_modules=...)``)."""
    check_int("r", r, hi=2**20)
    return sum(n * r * (d_in + d_out) for n, d_in, d_out in _targeted(cfg, target_modules))


class LoraMemory(StepPeaks):
    """Per-GPU memory of a LoRA or QLoRA fine-tune, in bytes, and its peak.

    ``activations`` and ``logits`` are what is held at the end of the forward;
    ``transients`` the loss's gradients at the start of backward, the optimizer step's
    temporaries and, with ``recompute="full"``, the first layer recomputed in backward
    (see :func:`lora_memory`). The peak and the moment that decides it
    (``peak_start_of_backward``, ``peak_recompute``, ``peak_backward``, ``peak_step``,
    ``peak``, ``peak_decided_by``) follow :class:`~llmcourse.training.TrainingMemory`."""

    __slots__ = ("model", "base", "adapters", "adapter_grads", "optimizer", "activations",
                 "logits", "loss_grads", "activation_terms", "transients", "trainable",
                 "base_bits", "settings")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw[k])

    @property
    def states(self):
        """The frozen base, the adapters, their grads and AdamW state."""
        return self.base + self.adapters + self.adapter_grads + self.optimizer

    @property
    def total(self):
        """The states, the saved tensors and the logits: held at the end of the forward."""
        return self.states + self.activations + self.logits

    @property
    def saved_for_backward(self):
        """What ``saved_tensors_hooks`` sees: everything but the returned logits (and,
        with ``recompute="full"``, the rotary tables the checkpoints' recompute closures
        hold)."""
        t = self.activation_terms
        held = t.get("logits", 0)
        if self.settings["recompute"] == "full":
            held += t.get("rotary_tables", 0)
        return self.activations + self.logits - held

    def as_dict(self):
        return {k: getattr(self, k) for k in ("base", "adapters", "adapter_grads", "optimizer",
                                              "activations", "logits", "loss_grads")} | {
            "peak": self.peak}

    def __repr__(self):
        parts = ", ".join(f"{k} {v / 1e9:,.2f} GB" for k, v in self.as_dict().items())
        return f"LoraMemory({self.model}, {parts})"


# bytes per value of the dropout mask autograd keeps for an adapter's input (its fp32 copy):
# CUDA's fused dropout (native_dropout) keeps a bool mask; on CPU PyTorch multiplies by a
# scaled noise tensor of the input's dtype and keeps that (fp32, measured)
DROPOUT_MASK_BYTES = {"gpu": 1, "cpu": 4}


def _lora_activations(cfg, s, b, r, target_modules, recompute, attention, lora_dropout,
                      device):
    """``(terms, recomputed)``: bytes a LoRA step saves for backward, by name, and with
    ``recompute="full"`` what the first layer recomputed in backward adds (its saved
    tensors and temporaries: :func:`_lora_recomputed_layer`; 0 otherwise)."""
    act, f32 = 2, 4
    h = cfg.hidden_size
    mask = DROPOUT_MASK_BYTES[device] if lora_dropout > 0 else 0
    adapters = _targeted(cfg, target_modules, detail=True)
    terms, largest = {}, 0
    for gi, g in enumerate(layer_groups(cfg)):
        is_moe = any(t.routed for t in g.tensors)
        lt = layer_terms(cfg, g.tensors, is_moe, s, attention, act, 1, frozen=True, b=b)
        if recompute == "selective":
            lt.pop("attention_scores", None)
        # each adapter: the fp32 copy of its input peft casts (or the dropout's output), the
        # fp32 A output, and the dropout mask
        ad = [(d_in, t) for n, d_in, d_out, gj, t in adapters if gj == gi]
        lt["lora_adapters"] = sum(f32 * (d_in + r) for d_in, _ in ad)
        if mask:
            lt["lora_dropout_masks"] = sum(mask * d_in for d_in, _ in ad)
        per_layer = sum(lt.values()) * s * b
        if is_moe:  # grouped matmul: one int32 offset per expert
            per_layer += 4 * cfg.num_experts
        if recompute == "full":
            largest = max(largest, _lora_recomputed_layer(cfg, g.tensors, is_moe, lt, per_layer,
                                                          ad, r, mask, s * b))
        else:
            for k, v in lt.items():
                terms[k] = terms.get(k, 0) + g.count * v * s * b
            if is_moe:
                k = "router"
                terms[k] = terms.get(k, 0) + g.count * 4 * cfg.num_experts
        if 0 in g.indices and recompute != "full":
            # the first layer's input needs no gradient (a frozen embedding): its input norm
            # keeps nothing, nor do the dropouts of the adapters that read that norm
            first = next((t for t in g.tensors if t.component == "norms"
                          and len(t.shape) == 1 and t.shape[0] == h and t.name.endswith("weight")),
                         None)
            if first is None or "norms" not in terms:
                # a layer whose input norm is not a plain hidden-wide norm (Qwen3.8's
                # hyper-connections): its first norm is counted as kept, a few bytes a token
                # over what it saves (its LoRA step is not measured)
                continue
            biased = first.name[:-len("weight")] + "bias" in {t.name for t in g.tensors}
            k = "norms"
            terms[k] -= ((act * h + 2 * f32) if biased else (f32 * h + f32)) * s * b
            readers = [d_in for d_in, t in ad if d_in == h and (
                t.component == "attention" or cfg.layout.parallel)
                and _module(t) not in ("o_proj", "out_proj", "dense")]
            if mask:
                terms["lora_dropout_masks"] -= mask * sum(readers) * s * b
    if recompute == "full":
        # each layer keeps its input (the checkpoint); the rotary tables are held
        # throughout by each checkpoint's recompute closure (measured)
        n_layers = sum(g.count for g in layer_groups(cfg))
        terms["checkpoints"] = act * h * n_layers * s * b
    terms.update(global_terms(cfg, s, b, act, 1, frozen=True))
    return {k: int(v) for k, v in terms.items() if v}, int(-(-largest // 1))


def _lora_recomputed_layer(cfg, tensors, is_moe, lt, per_layer, ad, r, mask, tokens):
    """Bytes one frozen layer with adapters ``ad`` adds while it is recomputed and
    backpropagated (``torch.utils.checkpoint``, use_reentrant=False), measured on CPU
    (``measurements/lora_step.py``): the larger of two moments.

    * The MLP's backward (:func:`~llmcourse.training.recomputed_layer` with
      ``frozen=True``): the layer's saved tensors and the MLP's input gradients (a gated
      MLP: the gradients of the product, act and up beside gate, act and up; routed
      experts: their recomputation, see there), less what the adapters of the MLP's
      out-projection saved (their fp32 copy of the intermediate and their A output): its
      backward has freed them.
    * With adapters on the MLP's in-projections (gate and up, all-linear), recomputing
      the last of them: what the layer has saved so far (all but the out-projection's
      adapter), the forward's locals (the residual and the MLP's input), the base
      projection's bf16 output, and its adapter's fp32 B output and that times the
      scaling, two fp32 tensors of the intermediate's width; with an adapter on the
      out-projection also the gradient of its output, which reached both branches before
      the recomputation began: the base's in bf16, the adapter's in fp32."""
    act, f32, h = 2, 4, cfg.hidden_size
    moment = recomputed_layer(cfg, lt, per_layer, is_moe, tensors, tokens, act, 0, 1, 1, False,
                               frozen=True)
    if is_moe:   # adapters on routed experts are refused (_targeted)
        return moment
    inter = mlp_width(tensors, h, "mlp")[0]
    mlp = [(d_in, t) for d_in, t in ad if t.component == "mlp"]
    out_saved = sum((f32 + mask) * d_in + f32 * r for d_in, t in mlp if d_in == inter) * tokens
    moment -= out_saved
    widest_in = max((t.shape[0] for d_in, t in mlp if d_in == h), default=0)
    if widest_in:
        at_adapter = per_layer - out_saved + (2 * f32 * widest_in + 2 * act * h) * tokens
        if out_saved:
            at_adapter += (act + f32) * h * tokens
        moment = max(moment, at_adapter)
    return moment


def lora_memory(cfg, seq_len, micro_batch=1, r=16, target_modules="all-linear", base="bf16",
                recompute="full", attention="flash", lora_dropout=0.0, device="gpu", *,
                double_quant=False, kbit_upcast=False, hold_outputs=True):
    """Memory of a LoRA (``base="bf16"``) or QLoRA (``base="nf4"``) fine-tune on one GPU.

    * **base**: frozen weights. bf16: 2 B/param. nf4, QLoRA's recipe as transformers and
      peft run it (the model loaded in bf16 with ``BitsAndBytesConfig(load_in_4bit=True,
      bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)``): every Linear of
      the layers in NF4, as bitsandbytes stores it (:func:`nf4_tensor_bytes`: 4.5 bits a
      value with ``BitsAndBytesConfig``'s default ``bnb_4bit_use_double_quant=False``; 4.127
      with ``double_quant=True``, the QLoRA paper's); the embedding, the norms and the
      lm_head in bf16, or in fp32 with ``kbit_upcast=True``: peft's
      ``prepare_model_for_kbit_training`` casts every parameter that is not 4-bit to fp32
      (TRL's SFTTrainer no longer calls it). With the upcast the residual stream runs in
      fp32 too; the activations are still counted in bf16 (not modelled). Refused for
      routed experts (transformers stores them as fused 3-D tensors, not Linears).
    * **adapters**: ``lora_params`` in fp32 (peft upcasts adapters of a bf16 base), their
      fp32 grads, AdamW's m and v: 4 + 4 + 8 = 16 B per trainable parameter.
    * **activations**: what autograd saves through the frozen bf16 base (the full-training
      rule less every input a frozen weight would need for its gradient: the norms keep
      their fp32 input and rstd, a gated MLP gate, act and up, a routed expert gate_up,
      act and its output) plus, per adapted matrix and token, 4 B per input value (peft's
      fp32 copy of the input, which ``A`` keeps) and 4 B per rank (``A``'s output, which
      ``B`` keeps); with ``lora_dropout`` > 0 also the dropout mask, 1 B per input value
      on a GPU (a bool mask), 4 on CPU (``device="cpu"``: the fp32 noise). The first
      layer's input norm keeps nothing (no gradient flows into a frozen embedding).
      Measured on CPU (``measurements/lora_step.py``, recompute ``"none"``): equal to
      the bytes PyTorch saves for Llama and Qwen3 (attention-only and all-linear), and
      for Qwen3-MoE and Mixtral (attention-only). ``recompute="full"`` (gradient
      checkpointing) keeps each layer's bf16 input and the rotary tables, which each
      checkpoint's recompute closure holds (measured: the checkpoints, final norm and
      loss tensors equal PyTorch's to the byte).
    * **logits, loss_grads**: the loss's fp32 log-probabilities, the labels and, where the
      loop holds the model's output (``hold_outputs``: a plain peft loop, as measured), the
      bf16 logits (the Trainer and TRL's SFTTrainer keep only the loss: ``hold_outputs=
      False``); 8 B per logit of fp32 gradients at the start of backward.
    * The NF4 base's storage is measured to the byte on CPU (bitsandbytes 0.50.2);
      QLoRA's activations are counted as LoRA's in bf16 (its 4-bit matmuls not measured).

    ``peak``: without recomputation, the start of backward (everything held at the end of
    the forward and the loss's gradients; the optimizer step's temporaries, 4 B per
    trainable parameter, are smaller): within 0.03% of PyTorch's peak on CPU. With
    ``recompute="full"``, the larger of two moments, as in full training
    (:func:`~llmcourse.training.training_memory`): the start of backward, and the last
    layer's recomputation, while every checkpoint is still held (the loss's and the final
    norm's tensors freed, the bf16 gradient between layers, that layer's saved tensors and
    its temporaries: :func:`_lora_recomputed_layer`). ``peak_decided_by`` names the
    moment. Measured on CPU (10 settings, ``measurements/lora_step.py``): within 0.5%
    of PyTorch's peak, the recomputation deciding it in the tiny models; at a real
    vocabulary (Llama-3.1-8B, 128,256 words) the start of backward decides it.
    """
    cfg = as_config(cfg)
    check_int("seq_len", seq_len)
    check_int("micro_batch", micro_batch)
    check_choice("base", base, ("bf16", "nf4"))
    check_choice("recompute", recompute, RECOMPUTE)
    check_choice("attention", attention, ATTENTION)
    check_choice("device", device, tuple(DROPOUT_MASK_BYTES))
    if not has_frozen_form(cfg) and recompute != "full":
        # (Gemma 4's layer terms have no frozen-weight form yet, and no Gemma 4 LoRA step
        # was measured: with every layer recomputed, only the checkpoints are held)
        raise ConfigError(f"recompute: a LoRA step of {cfg.name} is modelled with "
                          f"recompute='full' only (what its layers save with frozen weights "
                          f"is not) (got {recompute!r})")
    if isinstance(lora_dropout, bool) or not isinstance(lora_dropout, (int, float)) \
            or not 0 <= lora_dropout < 1:
        raise ConfigError(f"lora_dropout: must be a probability in [0, 1), e.g. 0.05 "
                          f"(got {lora_dropout!r})")
    for name, v in (("double_quant", double_quant), ("kbit_upcast", kbit_upcast),
                    ("hold_outputs", hold_outputs)):
        if not isinstance(v, bool):
            raise ConfigError(f"{name}: must be True or False (got {v!r})")
    if base == "bf16" and (double_quant or kbit_upcast):
        raise ConfigError("double_quant: NF4 settings need base='nf4' (got a bf16 base)"
                          if double_quant else
                          "kbit_upcast: prepare_model_for_kbit_training is for a quantized "
                          "base: use base='nf4' (got a bf16 base)")
    if base == "nf4" and cfg.is_moe:
        raise ConfigError(f"base: an NF4 base of a routed-expert model ({cfg.name}) is not "
                          f"modelled (transformers keeps its experts as fused 3-D tensors, "
                          f"which bitsandbytes' Linear4bit does not replace) (got 'nf4')")
    n_train = lora_params(cfg, r, target_modules)
    pc = param_count(cfg)
    if base == "bf16":
        base_bytes = 2 * pc.total
    else:
        _, base_bytes = qlora_base_bytes(cfg, double_quant, kbit_upcast)
    s, b = seq_len, micro_batch
    terms, recomputed = _lora_activations(cfg, s, b, r, target_modules, recompute, attention,
                                          lora_dropout, device)
    if not hold_outputs:   # the loop keeps only the loss: the returned logits are freed
        terms.pop("logits", None)
    logits = sum(terms.get(k, 0) for k in LOGIT_TERMS)
    activations = sum(terms.values()) - logits
    loss_grads = 8 * cfg.vocab_size * s * b
    # the loss's fp32 gradients at the start of backward; foreach AdamW's sqrt(v) over the
    # adapters in the step (measured: 4 B per trainable parameter)
    transients = {"loss_grads": loss_grads,
                  "optimizer_step": 4 * n_train}
    if recompute == "full":
        # as in full training (training._stage_memory): the loss's and the final norm's
        # tensors are freed before the last layer is recomputed; the checkpoints, the
        # rotary tables and the returned logits stay, and the bf16 gradient of the hidden
        # states flows between layers (a frozen embedding: no token ids, no tied weight
        # gradient waiting)
        transients[FREED_BEFORE_LAYERS] = sum(terms.get(k, 0) for k in FREED_TERMS)
        transients[GRAD_BETWEEN_LAYERS] = 2 * cfg.hidden_size * s * b
        transients[RECOMPUTED_LAYER] = recomputed
    return LoraMemory(model=cfg.name, base=base_bytes, adapters=4 * n_train,
                      adapter_grads=4 * n_train, optimizer=8 * n_train,
                      activations=activations, logits=logits,
                      loss_grads=loss_grads, activation_terms=terms, transients=transients,
                      trainable=n_train,
                      base_bits=16 if base == "bf16" else float(NF4_BITS if double_quant
                                                                else Fraction(9, 2)),
                      settings=dict(seq_len=seq_len, micro_batch=micro_batch, r=r,
                                    target_modules=target_modules, base=base,
                                    recompute=recompute, attention=attention,
                                    lora_dropout=lora_dropout, device=device,
                                    double_quant=double_quant, kbit_upcast=kbit_upcast,
                                    hold_outputs=hold_outputs))
