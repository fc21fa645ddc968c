"""Fine-tuning with LoRA and QLoRA: trainable parameters and memory per GPU.

* :func:`lora_params`: LoRA (Hu et al. 2021) adds, beside each targeted weight matrix
  ``W`` of shape ``d_out x d_in``, two trainable matrices ``A`` (``r x d_in``) and ``B``
  (``d_out x r``): ``r (d_in + d_out)`` parameters per matrix. The engine counts them per
  layer from the tensor layout of :mod:`llmcourse.architectures`, the way ``peft``'s
  ``LoraConfig(r=..., target_modules=...)`` places them; ``tests/test_finetune.py``
  checks the count against ``peft`` itself.
* :func:`lora_memory`: the frozen base in bf16 (LoRA) or NF4 (QLoRA, Dettmers et al.
  2023, as bitsandbytes stores it), the adapters in fp32 with their grads and AdamW
  state (16 B per trainable parameter), the activations through the whole base, the
  loss's gradients at the start of backward. The activation figure is the engine's
  full-training figure in bf16: an **estimate** (a frozen matmul does not need its
  input for a weight gradient, while each adapter saves its own input).

Standard library only.
"""

from __future__ import annotations

from fractions import Fraction

from .architectures import global_tensors, layer_groups
from .config import ConfigError
from .counts import param_count
from .training import _choice, _int, training_memory
from .zoo import as_config

__all__ = ["LORA_TARGETS", "NF4_BITS", "lora_params", "lora_memory", "LoraMemory"]

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
"""4.127 bits per quantized value (4 + 0.125 + 0.00195), from the block sizes above."""


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


def _targeted(cfg, target_modules):
    """``[(count, d_in, d_out), ...]`` of the matrices LoRA adapts."""
    cfg = as_config(cfg)
    names = _targets(cfg, target_modules)
    out, found = [], set()
    for g in layer_groups(cfg):
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
                out.append((g.count, d_in, d_out))
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
    _int("r", r, hi=2**20)
    return sum(n * r * (d_in + d_out) for n, d_in, d_out in _targeted(cfg, target_modules))


class LoraMemory:
    """Per-GPU memory of a LoRA or QLoRA fine-tune, in bytes, and its peak."""

    __slots__ = ("model", "base", "adapters", "adapter_grads", "optimizer", "activations",
                 "logits", "loss_grads", "trainable", "base_bits", "settings")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw[k])

    @property
    def peak(self):
        return (self.base + self.adapters + self.adapter_grads + self.optimizer
                + self.activations + self.logits + self.loss_grads)

    def as_dict(self):
        return {k: getattr(self, k) for k in ("base", "adapters", "adapter_grads", "optimizer",
                                              "activations", "logits", "loss_grads")} | {
            "peak": self.peak}

    def __repr__(self):
        parts = ", ".join(f"{k} {v / 1e9:,.2f} GB" for k, v in self.as_dict().items())
        return f"LoraMemory({self.model}, {parts})"


def lora_memory(cfg, seq_len, micro_batch=1, r=16, target_modules="all-linear", base="bf16",
                recompute="full", attention="flash"):
    """Memory of a LoRA (``base="bf16"``) or QLoRA (``base="nf4"``) fine-tune on one GPU.

    * **base**: frozen weights. bf16: 2 B/param. nf4: every Linear of the layers in NF4
      (:data:`NF4_BITS` = 4.127 bits per value, bitsandbytes with double quantization);
      the embedding, the norms and the lm_head stay in bf16 (transformers does not
      quantize the output layer).
    * **adapters**: ``lora_params`` in fp32 (peft upcasts adapters of a bf16 base), their
      fp32 grads, AdamW's m and v: 4 + 4 + 8 = 16 B per trainable parameter.
    * **activations, logits, loss_grads**: the engine's bf16 training figures for the same
      model, tokens and recomputation (an estimate, see the module docstring).
    """
    cfg = as_config(cfg)
    _choice("base", base, ("bf16", "nf4"))
    n_train = lora_params(cfg, r, target_modules)
    pc = param_count(cfg)
    if base == "bf16":
        base_bytes = 2 * pc.total
    else:
        q = sum(g.count * t.per_expert * t.numel for g in layer_groups(cfg) for t in g.tensors
                if t.matmul and not t.buffer and len(t.shape) >= 2 and min(t.shape) > 1)
        rest = pc.total - q
        base_bytes = int(-(-q * NF4_BITS // 8)) + 2 * rest
    m = training_memory(cfg, seq_len, micro_batch, precision="bf16-mixed", recompute=recompute,
                        attention=attention)
    return LoraMemory(model=cfg.name, base=base_bytes, adapters=4 * n_train,
                      adapter_grads=4 * n_train, optimizer=8 * n_train,
                      activations=m.activations, logits=m.logits,
                      loss_grads=m.transients["loss gradients at the start of backward"],
                      trainable=n_train, base_bits=16 if base == "bf16" else float(NF4_BITS),
                      settings=dict(seq_len=seq_len, micro_batch=micro_batch, r=r,
                                    target_modules=target_modules, base=base,
                                    recompute=recompute, attention=attention))
