"""Measure one LoRA training step of small decoders on CPU with peft, and store it.

The base model of :mod:`measurements.saved_activations` is cast to bf16 (``model.to(torch.bfloat16)``)
and frozen; ``peft.get_peft_model(model, LoraConfig(r=8, target_modules=...,
lora_dropout=...))`` adds the adapters, which peft keeps in fp32 (``autocast_adapter_dtype``:
it upcasts adapters of a bf16 base). AdamW (``foreach=True``) over the adapters only.
Like :mod:`measurements.step_peak`: a first step creates the optimizer state and the gradients, then
a second micro-batch accumulates into them while every byte above the states (frozen base,
adapters, their grads, AdamW state) is tracked per storage with a TorchDispatchMode; during
that forward ``saved_tensors_hooks`` also count what autograd saves (each storage once,
parameters and buffers excluded).

* ``saved_bytes``: the tensors saved for backward (the activations; the loss's fp32
  log-probabilities included, the returned logits not);
* ``end_of_forward``, ``peak_fwd_bwd``, ``peak_step``: bytes above the states.

    python -m measurements lora-step                  # writes measurements/lora_step.json
    python -m measurements lora-step --checkpointed   # only the checkpointed rows

CPU only; ``attn_implementation="sdpa"``; ``rows`` without gradient checkpointing
(recompute "none"), ``checkpointed_rows`` with it (recompute "full").
QLoRA (an NF4 base through bitsandbytes) is not measured: it needs a CUDA GPU.
"""

from __future__ import annotations

import platform
import time

from . import saved_activations as M
from . import step_peak as P
from .common import local_file, saved_storages, tracker, write_json

OUT = local_file("lora_step.json")
R = 8
TARGETS = {"attention": ["q_proj", "k_proj", "v_proj", "o_proj"], "all-linear": "all-linear"}
SHAPES = [(2, 256), (1, 1024)]
DROPOUTS = (0.0, 0.05)
# with gradient checkpointing (use_reentrant=False): (model, target_modules, batch, seq_len);
# vocab x tokens >= 2^18 (the loss's tensors large next to a layer, as in a real model),
# and one smaller (1 x 128)
LLAMA, QWEN3 = "llama (GQA 8:2, SwiGLU)", "qwen3 (QK-norm, head_dim 64)"
QWEN3_MOE, MIXTRAL = "qwen3_moe (16 experts, top-4)", "mixtral (8 experts, top-2)"
CHECKPOINTED = [(LLAMA, "attention", 2, 256),
                (LLAMA, "all-linear", 1, 1024),
                (QWEN3_MOE, "attention", 1, 1024),
                (LLAMA, "attention", 1, 1024),
                (LLAMA, "all-linear", 2, 256),
                (QWEN3, "attention", 1, 1024),
                (QWEN3, "all-linear", 2, 256),
                (QWEN3, "all-linear", 1, 256),
                (MIXTRAL, "attention", 1, 256),
                (LLAMA, "all-linear", 1, 128)]


def build(config, target_modules, dropout, r=R, checkpointing=False):
    import peft
    model = M.build(config, "sdpa", "bf16")
    tm = TARGETS.get(target_modules, target_modules)
    model = peft.get_peft_model(model, peft.LoraConfig(r=r, target_modules=tm,
                                                       lora_dropout=dropout))
    if checkpointing:   # transformers' gradient checkpointing: every layer recomputed
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    return model


def measure(config, batch, seq_len, target_modules="attention", dropout=0.0, r=R,
            checkpointing=False):
    """``{"saved_bytes", "end_of_forward", "peak_fwd_bwd", "peak_step"}`` (bytes above
    the states) of one LoRA step, and ``adapter_dtype``."""
    import torch
    model = build(config, target_modules, dropout, r, checkpointing)
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-4, foreach=True)
    g = torch.Generator().manual_seed(1)

    def batch_ids():
        return torch.randint(0, config["vocab_size"], (batch, seq_len), generator=g)

    ids = batch_ids()
    loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    loss.backward()
    opt.step()
    del loss
    states = list(model.parameters()) + list(model.buffers())
    states += [p.grad for p in trainable]
    states += [t for st in opt.state.values() for t in st.values() if isinstance(t, torch.Tensor)]
    skip = {t.untyped_storage().data_ptr() for t in states}
    weights = {t.untyped_storage().data_ptr() for t in list(model.parameters())
               + list(model.buffers())}
    hooks, seen = saved_storages(weights)

    # with checkpointing, the phases of step_peak.measure_checkpointed's timeline
    end_fwd, peak, timeline, peak_phase = P.tracked_micro_batch(
        model, batch_ids(), tracker(skip),
        hooks, checkpointing)
    tr = tracker(skip)
    with tr:
        opt.step()
    out = {"saved_bytes": sum(seen.values()), "end_of_forward": end_fwd,
           "peak_fwd_bwd": peak, "peak_step": tr.peak,
           "adapter_dtype": str(trainable[0].dtype).replace("torch.", "")}
    if checkpointing:
        out.update(peak_phase=peak_phase, timeline=timeline)
    return out


def measure_all_checkpointed():
    """The rows with gradient checkpointing (recompute "full"), each with its timeline."""
    rows = []
    for name, tm, batch, seq_len in CHECKPOINTED:
        r = measure(M.MODELS[name], batch, seq_len, tm, 0.0, checkpointing=True)
        rows.append(dict(model=name, target_modules=tm, r=R, lora_dropout=0.0,
                         batch=batch, seq_len=seq_len, **r))
        print(f"checkpointed {name:32s} {tm:10s} b={batch} s={seq_len:5d} "
              + " ".join(f"{k} {v:>12,d}" for k, v in r.items() if isinstance(v, int))
              + f" at {r['peak_phase']}")
    return rows


CHECKPOINTED_ABOUT = (
    "With gradient checkpointing: model.gradient_checkpointing_enable(use_reentrant=False) "
    "on the peft model (torch.utils.checkpoint around each decoder layer's forward); "
    "otherwise as rows. timeline: per phase of the second micro-batch (forward; the loss, "
    "lm_head and final norm backward; each layer's recomputation and backward, from the "
    "last, as measurements/step_peak.py marks them) the bytes held above the states when "
    "it began and the most held during it; peak_phase: where peak_fwd_bwd falls. The "
    "first layer's input needs no gradient (a frozen embedding): no phase follows layer 0.")


def main(argv=()):
    import peft
    import torch
    import transformers
    if "--checkpointed" in argv:   # only the checkpointed rows, into the stored file
        P.store_checkpointed(OUT, measure_all_checkpointed, CHECKPOINTED_ABOUT,
                             peft=peft.__version__, torch=torch.__version__,
                             transformers=transformers.__version__)
        return
    rows = []
    t0 = time.perf_counter()
    for name, config in M.MODELS.items():
        for tm in TARGETS:
            if tm == "all-linear" and "experts" in name:
                continue   # the engine does not model LoRA on routed experts
            for dropout in DROPOUTS:
                for batch, seq_len in SHAPES:
                    r = measure(config, batch, seq_len, tm, dropout)
                    rows.append(dict(model=name, target_modules=tm, r=R, lora_dropout=dropout,
                                     batch=batch, seq_len=seq_len, **r))
                    print(f"{name:32s} {tm:10s} p={dropout} b={batch} s={seq_len:5d} "
                          + " ".join(f"{k} {v:>12,d}" for k, v in r.items()
                                     if isinstance(v, int)))
    checkpointed = measure_all_checkpointed()
    data = {
        "_about": ("One LoRA training step (second micro-batch, adapter gradients accumulating, "
                   "AdamW state present) of small random-weight decoders built with "
                   "transformers: base model.to(torch.bfloat16) and frozen, peft adapters "
                   f"(r={R}; peft keeps them in fp32), AdamW(foreach=True) on the adapters, "
                   "no gradient checkpointing, attn_implementation sdpa. saved_bytes: what "
                   "saved_tensors_hooks see, each storage once, parameters and buffers "
                   "excluded; end_of_forward, peak_fwd_bwd, peak_step: bytes above the "
                   "states, tracked per storage with a TorchDispatchMode on CPU. Written by "
                   "measurements/lora_step.py."),
        "device": f"CPU ({platform.machine()}, {platform.system()})",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
        "python": platform.python_version(),
        "targets": TARGETS,
        "rows": rows,
        "checkpointed_about": CHECKPOINTED_ABOUT,
        "checkpointed_rows": checkpointed,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_json(OUT, data)
    print(f"wrote {OUT} ({len(rows)} rows, {data['seconds']} s)")

