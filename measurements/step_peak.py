"""The peak memory of one training step of small decoders on CPU, measured and stored.

For each small model of :mod:`measurements.saved_activations` (Llama, Qwen3, Qwen3-MoE, Mixtral),
each way of running the forward (``fp32``; ``bf16``: weights and activations in bf16,
as FSDP/DeepSpeed mixed precision run it; ``amp``: fp32 weights under
``torch.autocast(bfloat16)``, as the Hugging Face Trainer's ``bf16=True`` runs it) and a
few (batch, seq_len), run a first step (forward with labels, backward, AdamW step), then a
second micro-batch whose gradients accumulate into the first's (so weights, gradients and
optimizer state all exist, as in a real run), and track every byte PyTorch allocates:

The output is held through the backward (``out = model(...); out.loss.backward()``),
so its logits are alive at the peak (the engine's ``hold_outputs=True``); a loop that keeps
only the loss frees them first: their bytes less. ``--trainer`` measures that loop as it
is, transformers' own ``Trainer.training_step`` (its ``compute_loss`` returns only the
loss): the engine's ``hold_outputs=False``, the Trainer setups' default.

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
    python -m measurements step-peak --trainer        # only the Trainer's own steps

``checkpointed_rows``: the same step with gradient checkpointing (``recompute="full"``,
:func:`measure_checkpointed`), with a timeline of the bytes held per phase.

CPU only. ``tests/test_training_peak.py`` compares the engine with the stored rows and
re-measures one small case.
"""

from __future__ import annotations

import platform
import time

from . import saved_activations as M
from .common import (WEIGHTS, autocast, package_file, read_json, storages,
                     tracker, write_json)

OUT = package_file("step_peaks.json")
SHAPES = [(1, 128), (2, 256), (1, 1024)]
MODES = {"fp32": "fp32", "bf16": "bf16-mixed", "amp": "amp-bf16"}   # -> engine precision


def measure(config, batch, seq_len, mode="fp32", attn_implementation="sdpa",
            checkpointing=False, loop="accumulating", optimizer="foreach"):
    """``{"end_of_forward", "peak_fwd_bwd", "peak_step"}``: bytes above the states (with
    ``checkpointing``, also ``"peak_phase"`` and ``"timeline"``: see
    :func:`measure_checkpointed`). ``mode``: fp32, bf16, amp (fp32 weights under autocast) or
    bf16+autocast (the Trainer's pure bf16). ``loop="accumulating"``: the step's second
    micro-batch, its gradients accumulating into the first's (the states include them);
    ``"first"``: a step's first micro-batch after ``zero_grad(set_to_none=True)``: no
    gradient exists when its backward starts, so the states are the weights and the
    optimizer's, and every gradient the backward allocates is counted. ``peak_step``: the
    optimizer step that follows, above the states and the gradients. ``optimizer``:
    ``"foreach"`` or ``"fused"`` (AdamW's implementation)."""
    import torch
    model = M.build(config, attn_implementation, WEIGHTS[mode])
    if checkpointing:
        model.gradient_checkpointing_enable()   # transformers' default kwargs
    # foreach=True: the implementation PyTorch picks by default for GPU tensors (on CPU it
    # would pick the per-tensor loop, whose temporaries are one tensor at a time); fused=True:
    # the Hugging Face Trainer's default optim="adamw_torch_fused"
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **{optimizer: True})
    amp = autocast(mode)
    g = torch.Generator().manual_seed(1)

    def batch_ids():
        return torch.randint(0, config["vocab_size"], (batch, seq_len), generator=g)

    ids = batch_ids()
    with amp:
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
    loss.backward()
    opt.step()                       # creates AdamW's state; the grads stay (accumulation)
    del loss
    if loop == "first":              # a new step: zero_grad(set_to_none=True) frees the grads
        opt.zero_grad(set_to_none=True)
    states = list(model.parameters()) + list(model.buffers())
    states += [t for st in opt.state.values() for t in st.values() if isinstance(t, torch.Tensor)]
    skip = storages(states + [p.grad for p in model.parameters()])
    tr = tracker(skip)
    end_fwd, peak, timeline, peak_phase = tracked_micro_batch(model, batch_ids(), tr, amp,
                                                              checkpointing)
    result = {"end_of_forward": end_fwd, "peak_fwd_bwd": peak}
    tr = tracker(storages(states + [p.grad for p in model.parameters()]))
    with tr:
        opt.step()
    result["peak_step"] = tr.peak
    if checkpointing:
        result.update(peak_phase=peak_phase, timeline=timeline)
    return result


def tracked_micro_batch(model, ids, tr, forward_context, checkpointing=False):
    """One micro-batch's forward (with labels, its output held: no KV cache, as training
    sets it) under ``forward_context`` and its backward, every byte tracked by ``tr``; with
    ``checkpointing`` the timeline's phases are marked (:func:`phase_hooks`).
    ``(bytes held when the forward ended, the peak, timeline, the peak's phase)``."""
    state = {"backward": False}
    handles = phase_hooks(model, tr, state) if checkpointing else []
    with tr:
        tr.mark("forward")
        with forward_context:
            out = model(input_ids=ids, labels=ids, use_cache=False)
        end_fwd = tr.cur
        state["backward"] = True
        tr.mark("loss, lm_head and final norm backward")
        out.loss.backward()
        del out
    for h in handles:
        h.remove()
    timeline, peak_phase = timeline_of(tr.phases, tr.peak) if checkpointing else (None, None)
    return end_fwd, tr.peak, timeline, peak_phase


def _layer_modules(model):
    """``(layers, first, last)``: the decoder layers and, in each, the first and last
    submodule its forward runs (the input norm; the MLP or the routed-expert block)."""
    layers = list(model.model.layers)
    last = next(n for n in ("mlp", "block_sparse_moe") if hasattr(layers[0], n))
    return layers, [x.input_layernorm for x in layers], [getattr(x, last) for x in layers]


def phase_hooks(model, tr, state):
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


def timeline_of(phases, peak):
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


# The two loops, pure bf16 and Gemma's softcapping, masks and rotary tables, on models and
# sizes the rows above do not hold: vocabulary x tokens of 2^19 and more, so that the loss's
# gradients decide the peak, as at a real vocabulary
LOOP_MODELS = {
    "qwen2 (biases, GQA 6:2, vocabulary 6,000)": dict(
        model_type="qwen2", hidden_size=192, num_hidden_layers=2, num_attention_heads=6,
        num_key_value_heads=2, intermediate_size=512, vocab_size=6000,
        max_position_embeddings=4096, tie_word_embeddings=False),
    "llama (MQA 6:1, tied, vocabulary 5,000)": dict(
        model_type="llama", hidden_size=192, num_hidden_layers=3, num_attention_heads=6,
        num_key_value_heads=1, intermediate_size=448, vocab_size=5000, head_dim=32,
        max_position_embeddings=4096, tie_word_embeddings=True),
    "gemma2 (softcapping, vocabulary 4,096)": dict(
        model_type="gemma2", vocab_size=4096, hidden_size=128, intermediate_size=256,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=32,
        sliding_window=64, attn_logit_softcapping=50.0, final_logit_softcapping=30.0,
        query_pre_attn_scalar=32, max_position_embeddings=4096),
    "gemma3_text (local rotary, MQA, vocabulary 4,096)": dict(
        model_type="gemma3_text", vocab_size=4096, hidden_size=128, intermediate_size=256,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1, head_dim=32,
        sliding_window=64, layer_types=["sliding_attention", "full_attention"],
        query_pre_attn_scalar=32, rope_local_base_freq=10000.0, max_position_embeddings=4096),
}
# mode -> (engine precision, AdamW implementation -> engine optimizer)
LOOP_MODES = {"fp32": ("fp32", "foreach"), "bf16": ("bf16-mixed", "foreach"),
              "amp": ("amp-bf16", "foreach"), "bf16+autocast": ("bf16", "fused")}
ENGINE_OPTIMIZER = {"foreach": "adamw", "fused": "adamw-fused"}
LOOP_SHAPES = [(1, 320), (2, 130)]
LOOPS = ("accumulating", "first")
# gradient checkpointing with masks: eager attention, and SDPA past a sliding window
CHECKPOINTED_MASKS = [("llama (MQA 6:1, tied, vocabulary 5,000)", "eager", "bf16", 2, 130),
                      ("gemma2 (softcapping, vocabulary 4,096)", "eager", "bf16", 1, 320),
                      ("gemma3_text (local rotary, MQA, vocabulary 4,096)", "sdpa", "bf16", 2, 130),
                      ("qwen2 (biases, GQA 6:2, vocabulary 6,000)", "eager", "amp", 1, 320)]


def loop_attention(config):
    """The attention a model trains with by default: eager for Gemma 2 (transformers refuses
    SDPA for it), SDPA otherwise."""
    return "eager" if config["model_type"] == "gemma2" else "sdpa"


def measure_all_loops():
    """Every loop model x mode x shape x loop, then the checkpointed rows with masks."""
    rows = []
    for name, config in LOOP_MODELS.items():
        for mode, (_, impl) in LOOP_MODES.items():
            for batch, seq_len in LOOP_SHAPES:
                for loop in LOOPS:
                    attn = loop_attention(config)
                    r = measure(config, batch, seq_len, mode, attn, loop=loop, optimizer=impl)
                    rows.append(dict(model=name, mode=mode, optimizer=impl, loop=loop,
                                     attn_implementation=attn, batch=batch, seq_len=seq_len,
                                     recompute="none", **r))
                    print(f"{loop:12s} {name[:30]:30s} {mode:13s} b={batch} s={seq_len:4d} "
                          + " ".join(f"{k} {v:>11,d}" for k, v in r.items()))
    for name, attn, mode, batch, seq_len in CHECKPOINTED_MASKS:
        r = measure(LOOP_MODELS[name], batch, seq_len, mode, attn, checkpointing=True)
        rows.append(dict(model=name, mode=mode, optimizer="foreach", loop="accumulating",
                         attn_implementation=attn, batch=batch, seq_len=seq_len,
                         recompute="full", **r))
        print(f"checkpointed {name[:30]:30s} {attn} {mode} b={batch} s={seq_len} "
              + " ".join(f"{k} {v:>11,d}" for k, v in r.items() if isinstance(v, int))
              + f" at {r['peak_phase']}")
    return rows


def measure_trainer(config, batch, seq_len, mode="bf16+autocast", loop="first"):
    """``{"peak_fwd_bwd"}``: the most bytes held above the states during one
    ``Trainer.training_step`` of transformers' own Trainer on CPU (its ``compute_loss``
    keeps only the loss, so the model's output and its logits are freed before
    ``accelerator.backward``), after a first step has made AdamW's state. ``mode``:
    ``"fp32"`` (an fp32 model, ``bf16=False``) or ``"bf16+autocast"`` (a bf16 model,
    ``TrainingArguments(bf16=True)``, the Trainer's default since transformers 5 loads a
    bf16 checkpoint in bf16); the Trainer's default ``optim="adamw_torch_fused"``. ``loop``
    ``"first"`` (``gradient_accumulation_steps=1``: the gradients freed after the step) or
    ``"accumulating"`` (the gradients of the first micro-batch held)."""
    import tempfile
    import torch
    from transformers import Trainer, TrainingArguments
    model = M.build(config, loop_attention(config), WEIGHTS[mode])
    g = torch.Generator().manual_seed(1)

    def inputs():
        ids = torch.randint(0, config["vocab_size"], (batch, seq_len), generator=g)
        return {"input_ids": ids, "labels": ids}

    with tempfile.TemporaryDirectory() as d:
        args = TrainingArguments(output_dir=d, use_cpu=True, bf16=mode == "bf16+autocast",
                                 optim="adamw_torch_fused", report_to=[],
                                 per_device_train_batch_size=batch,
                                 gradient_accumulation_steps=1 if loop == "first" else 2)
        trainer = Trainer(model=model, args=args)
        # what Trainer.train sets before its loop: the loss is divided by it
        trainer.current_gradient_accumulation_steps = args.gradient_accumulation_steps
        trainer.create_optimizer()
        wrapped, opt = trainer.accelerator.prepare(trainer.model, trainer.optimizer)
        trainer.training_step(wrapped, inputs())
        opt.step()                                  # AdamW's state exists from here on
        if loop == "first":
            opt.zero_grad(set_to_none=True)         # the Trainer's zero_grad after a step
        states = list(model.parameters()) + list(model.buffers())
        states += [t for st in opt.optimizer.state.values() for t in st.values()
                   if isinstance(t, torch.Tensor)]
        tr = tracker(storages(states + [p.grad for p in model.parameters()]))
        with tr:
            trainer.training_step(wrapped, inputs())
    return {"peak_fwd_bwd": tr.peak}


TRAINER_MODES = {"fp32": "fp32", "bf16+autocast": "bf16"}   # -> engine precision
TRAINER_SHAPES = [(1, 320), (2, 130)]


def measure_all_trainer():
    """Every loop model x Trainer mode x shape x loop, through the Trainer's own step."""
    rows = []
    for name, config in LOOP_MODELS.items():
        for mode in TRAINER_MODES:
            for batch, seq_len in TRAINER_SHAPES:
                for loop in LOOPS:
                    r = measure_trainer(config, batch, seq_len, mode, loop)
                    rows.append(dict(model=name, mode=mode, optimizer="fused", loop=loop,
                                     attn_implementation=loop_attention(config), batch=batch,
                                     seq_len=seq_len, **r))
                    print(f"trainer {loop:12s} {name[:30]:30s} {mode:13s} b={batch} "
                          f"s={seq_len:4d} peak {r['peak_fwd_bwd']:>11,d}")
    return rows


TRAINER_ABOUT = (
    "The peak of one Trainer.training_step (transformers 5.23's Trainer on CPU, "
    "optim='adamw_torch_fused'), above the weights, the optimizer state and (loop "
    "'accumulating', gradient_accumulation_steps=2) the gradients: compute_loss returns the "
    "loss only, so the model's output and its logits are freed before the backward. fp32: "
    "an fp32 model; bf16+autocast: a bf16 model with TrainingArguments(bf16=True). Models: "
    "loop_models.")


LOOPS_ABOUT = (
    "The peak of a step's first micro-batch (loop 'first': after zero_grad(set_to_none=True) "
    "no gradient exists when the backward starts; the bytes are above the weights and the "
    "optimizer state, every gradient the backward allocates counted) and of an accumulating "
    "one (loop 'accumulating': above the weights, the gradients and the optimizer state), "
    "for modes fp32, bf16 (model.to(bfloat16)), amp (fp32 weights under torch.autocast) and "
    "bf16+autocast (bf16 weights under torch.autocast with AdamW(fused=True): the Hugging "
    "Face Trainer's bf16=True on a model loaded in bf16, transformers 5's default). "
    "peak_step: the optimizer step after that micro-batch, above the states and the "
    "gradients. recompute 'full' rows: gradient checkpointing with attention masks (eager, "
    "or SDPA past a sliding window). Models: loop_models.")


def store_section(path, key, measure_all, about, **extra):
    """Measure only one section of a stored file (``measure_all()``) and put it, with
    ``about`` and ``extra`` fields, into the stored file ``path``."""
    t0 = time.perf_counter()
    data = read_json(path)
    data[key] = measure_all()
    data[key.replace("_rows", "_about")] = about
    data[key.replace("_rows", "_seconds")] = round(time.perf_counter() - t0, 1)
    data.update(extra)
    write_json(path, data)
    print(f"wrote {path} ({len(data[key])} {key.replace('_', ' ')})")


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
    store_section(path, "checkpointed_rows", measure_all, about, **extra)


def main(argv=()):
    import torch
    import transformers
    if "--checkpointed" in argv:   # only the checkpointed rows, into the stored file
        store_checkpointed(OUT, measure_all_checkpointed, CHECKPOINTED_ABOUT)
        return
    if "--trainer" in argv:        # only the Trainer's own steps
        store_section(OUT, "trainer_rows", measure_all_trainer, TRAINER_ABOUT,
                      trainer_engine=dict(precision=TRAINER_MODES, optimizer="adamw-fused",
                                          hold_outputs=False))
        return
    if "--loops" in argv:          # only the loop rows
        store_section(OUT, "loop_rows", measure_all_loops, LOOPS_ABOUT,
                      loop_models=LOOP_MODELS, loop_engine=dict(
                          precision={k: v[0] for k, v in LOOP_MODES.items()},
                          optimizer=ENGINE_OPTIMIZER))
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
        "loop_models": LOOP_MODELS,
        "loop_engine": dict(precision={k: v[0] for k, v in LOOP_MODES.items()},
                            optimizer=ENGINE_OPTIMIZER),
        "loop_about": LOOPS_ABOUT,
        "loop_rows": measure_all_loops(),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_json(OUT, data)
    print(f"wrote {OUT} ({len(rows)} rows, {data['seconds']} s)")

