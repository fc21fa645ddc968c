"""The peak memory of one training step of small decoders on CPU, measured and stored.

For each small model of :mod:`measurements.saved_activations` (Llama, Qwen3, Qwen3-MoE, Mixtral),
each way of running the forward (``fp32``; ``bf16``: weights and activations in bf16,
as FSDP/DeepSpeed mixed precision run it; ``amp``: fp32 weights under
``torch.autocast(bfloat16)``, as the Hugging Face Trainer's ``bf16=True`` runs it) and a
few (batch, seq_len), run a first step (forward with labels, backward, AdamW step), then a
second micro-batch whose gradients accumulate into the first's (so weights, gradients and
optimizer state all exist, as in a real run), and track every byte PyTorch allocates:

The output is held through the backward (``out = model(...); out.loss.backward()``),
so its logits are alive at the peak; a loop that keeps only ``.loss`` (the Hugging Face
Trainer's ``compute_loss``) frees them first: their bytes less.

* ``peak_fwd_bwd``: the most bytes alive at once above the states, during the second
  forward and backward;
* ``end_of_forward``: the bytes alive above the states when the forward returns;
* ``peak_step``: the most bytes alive above the states during ``optimizer.step()``
  (AdamW with ``foreach=True``, the implementation PyTorch picks by default on a GPU).

Allocations are tracked with a ``TorchDispatchMode``: every tensor an operator returns is
counted once per storage until that storage is freed (a ``weakref.finalize`` on it);
views are not new storage. CPU autograd runs the backward on the calling thread, so the
mode sees it too.

    python -m measurements step-peak                  # writes llmcourse/data/step_peaks.json
    python -m measurements step-peak --checkpointed   # only the checkpointed rows

``checkpointed_rows``: the same step with gradient checkpointing (``recompute="full"``,
:func:`measure_checkpointed`), with a timeline of the bytes held per phase.

CPU only. ``tests/test_training_peak.py`` compares the engine with the stored rows and
re-measures one small case.
"""

from __future__ import annotations

import platform
import time

from . import saved_activations as M
from .common import package_file, read_json, tracker, write_json

OUT = package_file("step_peaks.json")
SHAPES = [(1, 128), (2, 256), (1, 1024)]
MODES = {"fp32": "fp32", "bf16": "bf16-mixed", "amp": "amp-bf16"}   # -> engine precision


def measure(config, batch, seq_len, mode="fp32", attn_implementation="sdpa",
            checkpointing=False):
    """``{"end_of_forward", "peak_fwd_bwd", "peak_step"}``: bytes above the states (with
    ``checkpointing``, also ``"peak_phase"`` and ``"timeline"``: see
    :func:`measure_checkpointed`)."""
    import contextlib
    import torch
    model = M.build(config, attn_implementation, "bf16" if mode == "bf16" else "fp32")
    if checkpointing:
        model.gradient_checkpointing_enable()   # transformers' default kwargs
    # foreach=True: the implementation PyTorch picks by default for GPU tensors (on CPU it
    # would pick the per-tensor loop, whose temporaries are one tensor at a time)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    amp = (torch.autocast("cpu", dtype=torch.bfloat16) if mode == "amp"
           else contextlib.nullcontext())
    g = torch.Generator().manual_seed(1)

    def batch_ids():
        return torch.randint(0, config["vocab_size"], (batch, seq_len), generator=g)

    ids = batch_ids()
    with amp:
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    loss.backward()
    opt.step()                       # creates AdamW's state; the grads stay (accumulation)
    del loss
    states = list(model.parameters()) + list(model.buffers())
    states += [p.grad for p in model.parameters() if p.grad is not None]
    states += [t for st in opt.state.values() for t in st.values() if isinstance(t, torch.Tensor)]
    skip = {t.untyped_storage().data_ptr() for t in states}
    tr = tracker(skip)
    state = {"backward": False}
    handles = _phase_hooks(model, tr, state) if checkpointing else []
    ids = batch_ids()
    with tr:
        tr.mark("forward")
        with amp:
            # the output (and its logits) held; no KV cache (use_cache=False, as training sets it)
            out = model(input_ids=ids, labels=ids, use_cache=False)
        end_fwd = tr.cur
        state["backward"] = True
        tr.mark("loss, lm_head and final norm backward")
        out.loss.backward()
        del out
    for h in handles:
        h.remove()
    peak = tr.peak
    result = {"end_of_forward": end_fwd, "peak_fwd_bwd": peak}
    if checkpointing:
        timeline, peak_phase = _timeline(tr.phases, peak)
    tr = tracker(skip)
    with tr:
        opt.step()
    result["peak_step"] = tr.peak
    if checkpointing:
        result.update(peak_phase=peak_phase, timeline=timeline)
    return result


def _layer_modules(model):
    """``(layers, first, last)``: the decoder layers and, in each, the first and last
    submodule its forward runs (the input norm; the MLP or the routed-expert block)."""
    layers = list(model.model.layers)
    last = next(n for n in ("mlp", "block_sparse_moe") if hasattr(layers[0], n))
    return layers, [x.input_layernorm for x in layers], [getattr(x, last) for x in layers]


def _phase_hooks(model, tr, state):
    """Module hooks that mark the tracker's phases (see :func:`measure_checkpointed`) on
    ``model``'s decoder layers; ``state["backward"]`` tells a recomputation from the
    forward. Returns the hook handles."""
    if hasattr(model, "get_base_model"):   # a peft model: hook the model it wraps
        model = model.get_base_model()
    layers, firsts, lasts = _layer_modules(model)
    handles = []
    for i, (layer, first, last) in enumerate(zip(layers, firsts, lasts)):
        def on_input(mod, args, kwargs, i=i):
            # outside the checkpoint (module hooks stay outside it): the layer's input;
            # its gradient is the end of the layer's backward
            h = args[0] if args else kwargs["hidden_states"]
            if h.requires_grad:
                label = f"layer {i - 1} recompute" if i else "embedding backward"
                h.register_hook(lambda grad, label=label: tr.mark(label))
        handles.append(layer.register_forward_pre_hook(on_input, with_kwargs=True))

        def mark_if_backward(label):
            def hook(*_):
                if state["backward"]:
                    tr.mark(label)
            return hook
        handles.append(first.register_forward_pre_hook(mark_if_backward(f"layer {i} recompute")))
        handles.append(last.register_forward_hook(mark_if_backward(f"layer {i} backward")))
    return handles


def _timeline(phases, peak):
    """``(timeline, peak_phase)``: one phase per name (the input-gradient hook and the
    recompute pre-hook both mark a layer's recomputation; keep the first start and the
    larger peak), and the phase the peak falls in."""
    timeline = []
    for ph in phases:
        if timeline and timeline[-1]["phase"] == ph["phase"]:
            timeline[-1]["peak"] = max(timeline[-1]["peak"], ph["peak"])
        else:
            timeline.append(dict(ph))
    return timeline, next(ph["phase"] for ph in timeline if ph["peak"] == peak)


def measure_checkpointed(config, batch, seq_len, mode="fp32", attn_implementation="sdpa"):
    """Like :func:`measure`, with gradient checkpointing on (``model.gradient_checkpointing_
    enable()`` as transformers defaults it: ``torch.utils.checkpoint`` with
    ``use_reentrant=False`` around each decoder layer's forward), and a timeline: the bytes
    held above the states when each phase of the second micro-batch begins and the most
    held during it. Phases: the forward; the backward of the loss, lm_head and final norm;
    for each layer from the last, its recomputation (the layer's forward run again) and
    its backward (until the gradient of its input exists); then the embedding's backward.
    ``peak_phase``: the phase the peak falls in."""
    return measure(config, batch, seq_len, mode, attn_implementation, checkpointing=True)


# a chunked loss needs a vocabulary large next to the rest of a tiny model for its
# transient to decide the peak
BIG_VOCAB = dict(M.MODELS["llama (GQA 8:2, SwiGLU)"], vocab_size=32768, hidden_size=64,
                 intermediate_size=128, head_dim=8)
CHUNKS = [(1, 512, 64), (1, 512, 256), (2, 256, 128)]   # (batch, seq_len, loss chunk)


def chunked_loss(model, ids, chunk):
    """Cross-entropy ``chunk`` tokens at a time, each chunk under torch.utils.checkpoint:
    no logits are kept; the backward recomputes one chunk at a time."""
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint
    h = model.model(input_ids=ids).last_hidden_state
    W = model.lm_head.weight
    hs, y = h[:, :-1].reshape(-1, h.shape[-1]), ids[:, 1:].reshape(-1)

    def piece(hc, yc):
        return F.cross_entropy(F.linear(hc, W).float(), yc, reduction="sum")
    total = 0
    for i in range(0, hs.shape[0], chunk):
        total = total + checkpoint(piece, hs[i:i + chunk], y[i:i + chunk], use_reentrant=False)
    return total / y.numel()


def measure_chunked(config, batch, seq_len, mode, chunk):
    """``{"end_of_forward", "peak_fwd_bwd"}`` above the weights and grads, chunked loss."""
    import contextlib
    import torch
    model = M.build(config, "sdpa", "bf16" if mode == "bf16" else "fp32")
    amp = (torch.autocast("cpu", dtype=torch.bfloat16) if mode == "amp"
           else contextlib.nullcontext())
    ids = torch.randint(0, config["vocab_size"], (batch, seq_len),
                        generator=torch.Generator().manual_seed(1))
    with amp:
        loss = chunked_loss(model, ids, chunk)
    loss.backward()
    del loss
    skip = {t.untyped_storage().data_ptr()
            for t in list(model.parameters()) + [p.grad for p in model.parameters()]}
    tr = tracker(skip)
    with tr:
        with amp:
            loss = chunked_loss(model, ids, chunk)
        end_fwd = tr.cur
        loss.backward()
        del loss
    return {"end_of_forward": end_fwd, "peak_fwd_bwd": tr.peak}


def measure_all_checkpointed():
    """The rows with gradient checkpointing (recompute "full"): every model, mode and shape."""
    rows = []
    for name, config in M.MODELS.items():
        for mode in MODES:
            for batch, seq_len in SHAPES:
                r = measure_checkpointed(config, batch, seq_len, mode)
                rows.append(dict(model=name, mode=mode, batch=batch, seq_len=seq_len,
                                 recompute="full", **r))
                print(f"checkpointed {name:32s} {mode:4s} b={batch} s={seq_len:5d} "
                      + " ".join(f"{k} {v:>12,d}" for k, v in r.items() if isinstance(v, int))
                      + f" at {r['peak_phase']}")
    return rows


CHECKPOINTED_ABOUT = (
    "With gradient checkpointing: model.gradient_checkpointing_enable() with transformers' "
    "default kwargs (torch.utils.checkpoint, use_reentrant=False, around each decoder "
    "layer's forward); otherwise as rows. timeline: per phase of the second micro-batch "
    "(forward; the loss, lm_head and final norm backward; each layer's recomputation and "
    "backward, from the last; the embedding's backward) the bytes held above the states "
    "when it began and the most held during it; peak_phase: where peak_fwd_bwd falls.")


def store_checkpointed(path, measure_all, about, **extra):
    """``--checkpointed``: measure only the checkpointed rows (``measure_all()``) and put
    them, with ``about`` and ``extra`` fields, into the stored file ``path``."""
    t0 = time.perf_counter()
    data = read_json(path)
    data["checkpointed_rows"] = measure_all()
    data["checkpointed_about"] = about
    data["checkpointed_seconds"] = round(time.perf_counter() - t0, 1)
    data.update(extra)
    write_json(path, data)
    print(f"wrote {path} ({len(data['checkpointed_rows'])} checkpointed rows)")


def main(argv=()):
    import torch
    import transformers
    if "--checkpointed" in argv:   # only the checkpointed rows, into the stored file
        store_checkpointed(OUT, measure_all_checkpointed, CHECKPOINTED_ABOUT)
        return
    rows = []
    t0 = time.perf_counter()
    for name, config in M.MODELS.items():
        for mode in MODES:
            for batch, seq_len in SHAPES:
                r = measure(config, batch, seq_len, mode)
                rows.append(dict(model=name, mode=mode, batch=batch, seq_len=seq_len, **r))
                print(f"{name:32s} {mode:4s} b={batch} s={seq_len:5d} "
                      + " ".join(f"{k} {v:>12,d}" for k, v in r.items()))
    chunked = []
    for mode in MODES:
        for batch, seq_len, chunk in CHUNKS:
            r = measure_chunked(BIG_VOCAB, batch, seq_len, mode, chunk)
            chunked.append(dict(mode=mode, batch=batch, seq_len=seq_len, chunk=chunk, **r))
            print(f"chunked loss {mode:4s} b={batch} s={seq_len} chunk={chunk} "
                  + " ".join(f"{k} {v:>12,d}" for k, v in r.items()))
    checkpointed = measure_all_checkpointed()
    data = {
        "_about": ("Peak bytes of one training step (second micro-batch, gradients "
                   "accumulating, AdamW state present) of small random-weight decoders "
                   "built with transformers, above the states (weights, grads, optimizer "
                   "state), tracked per storage with a TorchDispatchMode on CPU. fp32: all "
                   "fp32; bf16: model.to(torch.bfloat16) (FSDP/DeepSpeed pure bf16 forward); "
                   "amp: fp32 weights under torch.autocast('cpu', torch.bfloat16) (Hugging "
                   "Face Trainer bf16=True). attn_implementation sdpa. Written by "
                   "measurements/step_peak.py."),
        "device": f"CPU ({platform.machine()}, {platform.system()})",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "engine_precision": MODES,
        "rows": rows,
        "chunked_loss_model": BIG_VOCAB,
        "chunked_loss_rows": chunked,
        "checkpointed_about": CHECKPOINTED_ABOUT,
        "checkpointed_rows": checkpointed,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_json(OUT, data)
    print(f"wrote {OUT} ({len(rows)} rows, {data['seconds']} s)")

