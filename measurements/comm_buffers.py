"""What data parallelism adds to a step: DDP's gradient buckets, the bf16 weights FSDP gathers,
and the bytes their collectives move, measured with two CPU processes over gloo.

Each setup trains a small random-weight decoder built with transformers on 2 processes:

* ``ddp``: ``DistributedDataParallel`` with its defaults (``bucket_cap_mb=25``,
  ``gradient_as_bucket_view=False``), fp32 weights (``fp32``) or bf16 weights under autocast
  with AdamW(fused=True) (``bf16+autocast``: the Hugging Face Trainer's pure bf16 under DDP).
  ``wrapped``: the bytes DDP keeps allocated once it has wrapped the model (its gradient
  buckets);
  ``all_reduce``: the bytes of the buckets it all-reduces in one micro-batch (counted by a
  comm hook that then runs the default all-reduce).
* ``fsdp-zero3`` / ``fsdp-zero2``: FSDP2 as Accelerate 1.15 wraps a model for the Trainer
  (``accelerate/utils/fsdp_utils.py``, ``fsdp2_prepare_model``): fp32 parameters,
  ``MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=bf16, output_dtype=bf16)``, each decoder
  layer, the input embedding and the tail (final norm and lm_head; with a tied embedding the
  embedding too) their own units, the tail with ``reshard_after_forward=False``, the root
  last; the layers and the embedding resharded after forward (``fsdp-zero3``: FULL_SHARD) or
  not (``fsdp-zero2``: SHARD_GRAD_OP). ``all_gather`` / ``reduce_scatter``: the bytes of the
  gathered outputs and of the reduce-scatter inputs in one micro-batch.
* ``tp``: tensor parallelism over the 2 processes, Megatron's split of each decoder layer as
  torchtitan plans it with PyTorch's DTensor (:func:`_tensor_parallel`); ``all_reduce``: the
  bytes of the activations DTensor all-reduces in one micro-batch's forward and backward.

For each, as in :mod:`measurements.step_peak`: two steps create the optimizer's state (and let
DDP rebuild its buckets in the order the backward produced the gradients, which it does once,
in the second step's forward), then one micro-batch is tracked, the ``first`` of a step (after ``zero_grad(set_to_none=True)``)
or an ``accumulating`` one; ``end_of_forward`` and ``peak_fwd_bwd`` are bytes above the
states (the local shards of the weights and the optimizer's state, and with accumulation the
gradients); FSDP frees and re-allocates its gathered weights by resizing their storage, which
the tracker follows. Rank 0's numbers are stored (both ranks hold the same shapes).

    python -m measurements comm-buffers      # writes measurements/comm_buffers.json

CPU only. ``tests/test_training_comm_buffers.py`` compares the engine with the stored rows.
"""

from __future__ import annotations

import gc
import os
import platform
import socket
import time

from .common import local_file, read_json, storages, tracker, versions, write_json

__all__ = ["MODELS", "SETUPS", "SHAPES", "OUT", "measure", "main"]

OUT = local_file("comm_buffers.json")
WORLD = 2

MODELS = {
    "llama (GQA 4:2, vocabulary 8,192)": dict(
        model_type="llama", hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, intermediate_size=160, vocab_size=8192, head_dim=16,
        max_position_embeddings=4096, tie_word_embeddings=False),
    "qwen3 (tied, QK-norm, vocabulary 6,144)": dict(
        model_type="qwen3", hidden_size=96, num_hidden_layers=3, num_attention_heads=6,
        num_key_value_heads=2, head_dim=16, intermediate_size=192, vocab_size=6144,
        max_position_embeddings=4096, tie_word_embeddings=True),
}
# setup -> (modes, engine settings)
SETUPS = {
    "ddp": {"fp32": dict(precision="fp32", optimizer="adamw", zero_stage=0),
            "bf16+autocast": dict(precision="bf16", optimizer="adamw-fused", zero_stage=0)},
    "fsdp-zero3": {"fsdp": dict(precision="fsdp-bf16", optimizer="adamw-fused", zero_stage=3)},
    "fsdp-zero2": {"fsdp": dict(precision="fsdp-bf16", optimizer="adamw-fused", zero_stage=2)},
    "tp": {"fp32": dict(precision="fp32", optimizer="adamw", tp=2),
           "bf16+autocast": dict(precision="bf16", optimizer="adamw-fused", tp=2)},
}
SHAPES = [(1, 256), (2, 100)]
LOOPS = ("accumulating", "first")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _CountFunctional:
    """Counts the bytes of the functional collectives DTensor issues (tensor parallelism)."""

    def __init__(self, counters):
        from torch.utils._python_dispatch import TorchDispatchMode

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                name = str(func)
                if name.startswith("_c10d_functional.all_reduce"):
                    counters["all_reduce"] += args[0].nbytes
                return func(*args, **(kwargs or {}))
        self.mode = Mode()

    def __enter__(self):
        return self.mode.__enter__()

    def __exit__(self, *exc):
        return self.mode.__exit__(*exc)


def _tensor_parallel(model, mesh):
    """Megatron's tensor parallelism on each decoder layer, as torchtitan plans it with
    PyTorch's DTensor: q, k, v, gate and up split by columns, o_proj and down_proj by rows
    (their outputs all-reduced), the attention's and the MLP's input replicated once (so
    the backward all-reduces one gradient per block, as Megatron's fused QKV and gate-up
    do); the embedding and the lm_head stay whole."""
    from torch.distributed.tensor import Replicate
    from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput,
                                                   RowwiseParallel, parallelize_module)
    for layer in model.model.layers:
        parallelize_module(layer, mesh, {
            "self_attn": PrepareModuleInput(input_kwarg_layouts={"hidden_states": Replicate()},
                                            desired_input_kwarg_layouts={
                                                "hidden_states": Replicate()}),
            "mlp": PrepareModuleInput(input_layouts=(Replicate(),),
                                      desired_input_layouts=(Replicate(),)),
            "self_attn.q_proj": ColwiseParallel(), "self_attn.k_proj": ColwiseParallel(),
            "self_attn.v_proj": ColwiseParallel(), "self_attn.o_proj": RowwiseParallel(),
            "mlp.gate_proj": ColwiseParallel(), "mlp.up_proj": ColwiseParallel(),
            "mlp.down_proj": RowwiseParallel()})


def _wrap(model, setup):
    """The model as the setup wraps it; ``(model, bytes allocated while wrapping, counters,
    the context that counts the collectives of a micro-batch)``."""
    import contextlib
    import torch
    import torch.distributed as dist
    counters = {"all_reduce": 0, "all_gather": 0, "reduce_scatter": 0}
    if setup == "tp":
        from torch.distributed.device_mesh import init_device_mesh
        _tensor_parallel(model, init_device_mesh("cpu", (WORLD,)))
        return model, 0, counters, _CountFunctional(counters)
    tr = tracker(storages(list(model.parameters()) + list(model.buffers())))
    if setup == "ddp":
        from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
        from torch.nn.parallel import DistributedDataParallel as DDP
        with tr:
            wrapped = DDP(model)
            gc.collect()   # what DDP let go of while wrapping (its broadcast's buffers) is freed

        def hook(state, bucket):
            counters["all_reduce"] += bucket.buffer().nbytes
            return allreduce_hook(state, bucket)
        wrapped.register_comm_hook(dist.group.WORLD, hook)
        # what stays allocated: the buckets
        return wrapped, tr.cur, counters, contextlib.nullcontext()
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16,
                              output_dtype=torch.bfloat16)
    kw = dict(mp_policy=mp, reshard_after_forward=setup == "fsdp-zero3")
    for layer in model.model.layers:
        fully_shard(layer, **kw)
    embed, head = model.get_input_embeddings(), model.get_output_embeddings()
    tied = embed.weight is head.weight
    if not tied:
        fully_shard(embed, **kw)
    fully_shard([model.model.norm, embed, head] if tied else [model.model.norm, head],
                **{**kw, "reshard_after_forward": False})
    fully_shard(model, mp_policy=mp)

    ag, rs = dist.all_gather_single, dist.reduce_scatter_single

    def all_gather_single(*a, **k):     # (output, input, ...)
        counters["all_gather"] += (a[0] if a else k["output"]).nbytes
        return ag(*a, **k)

    def reduce_scatter_single(*a, **k):  # (output, input, ...)
        counters["reduce_scatter"] += (a[1] if len(a) > 1 else k["input"]).nbytes
        return rs(*a, **k)
    dist.all_gather_single, dist.reduce_scatter_single = all_gather_single, reduce_scatter_single
    return model, 0, counters, contextlib.nullcontext()


def _local(t):
    return t.to_local() if hasattr(t, "to_local") else t


def _run(rank, port, setup, mode, config, batch, seq_len, loop, out):
    import torch
    import torch.distributed as dist
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    try:
        from .common import autocast, build
        model = build(config, "sdpa", "bf16" if mode == "bf16+autocast" else "fp32")
        model, wrapped_bytes, counters, counting = _wrap(model, setup)
        # foreach (fp32) or fused (pure bf16) AdamW; under tensor parallelism the per-tensor
        # loop (the multi-tensor ones refuse a mix of DTensor and plain parameters)
        impl = ("foreach" if setup == "tp" else "fused") if mode != "fp32" else "foreach"
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4,
                                **{impl: setup != "tp" or impl != "foreach"})
        amp = autocast(mode)
        g = torch.Generator().manual_seed(rank)

        def ids():
            return torch.randint(0, config["vocab_size"], (batch, seq_len), generator=g)
        for _ in range(2):   # DDP rebuilds its buckets in the second step's forward
            x = ids()
            with amp:
                loss = model(input_ids=x, labels=x, use_cache=False).loss
            loss.backward()
            opt.step()
            del loss
        if loop == "first":
            opt.zero_grad(set_to_none=True)
        params = list(model.parameters())
        states = [_local(p) for p in params] + [_local(t) for s in opt.state.values()
                                                 for t in s.values() if torch.is_tensor(t)]
        skip = storages(states + [_local(p.grad) for p in params if p.grad is not None])
        for k in counters:
            counters[k] = 0
        tr = tracker(skip)
        x = ids()
        with tr, counting:
            with amp:
                o = model(input_ids=x, labels=x, use_cache=False)
            end = tr.cur
            o.loss.backward()
            del o
        if rank == 0:
            # under tensor parallelism the tracker does not see what DTensor allocates
            # inside its operators: only the collectives are stored
            held = (None, None) if setup == "tp" else (end, tr.peak)
            out.put(dict(end_of_forward=held[0], peak_fwd_bwd=held[1], wrapped=wrapped_bytes,
                         **counters))
    finally:
        dist.destroy_process_group()


def measure(setup, mode, config, batch, seq_len, loop):
    """One micro-batch of ``setup`` on ``WORLD`` CPU processes for ``config`` (a config dict
    or the name of one of :data:`MODELS`): rank 0's
    ``{"end_of_forward", "peak_fwd_bwd", "wrapped", "all_reduce", "all_gather",
    "reduce_scatter"}`` (bytes)."""
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    config = MODELS[config] if isinstance(config, str) else config
    for attempt in (1, 2):
        out = ctx.SimpleQueue()
        try:
            mp.spawn(_run, args=(_free_port(), setup, mode, config, batch, seq_len, loop, out),
                     nprocs=WORLD)
        except mp.ProcessExitedException:
            # gloo now and then aborts a process while tearing the group down, after rank 0
            # has reported: its figures are whole. Without them, measure once more.
            if not out.empty():
                return out.get()
            if attempt == 2:
                raise
            continue
        return out.get()


def main(argv=()):
    """Every setup, or only those named in ``argv`` (their rows replaced in the stored file)."""
    only = set(argv) & set(SETUPS)
    rows = []
    t0 = time.perf_counter()
    for setup, modes in SETUPS.items():
        if only and setup not in only:
            continue
        for mode in modes:
            for name in MODELS:
                for batch, seq_len in SHAPES:
                    for loop in LOOPS if setup != "tp" else ("accumulating",):
                        r = measure(setup, mode, name, batch, seq_len, loop)
                        rows.append(dict(setup=setup, mode=mode, model=name, batch=batch,
                                         seq_len=seq_len, loop=loop, **r))
                        print(f"{setup:10s} {mode:13s} {name[:24]:24s} b={batch} s={seq_len} "
                              f"{loop:12s} " + " ".join(f"{k} {v:,}" for k, v in r.items()
                                                        if v is not None),
                              flush=True)
    data = {
        "_about": ("Data parallelism on 2 CPU processes over gloo: DDP's gradient buckets "
                   "(wrapped: bytes allocated when DDP wraps the model) and the bytes it "
                   "all-reduces; FSDP2 wrapped as Accelerate wraps a model for the Hugging "
                   "Face Trainer, its gathered bf16 weights held at the end of the forward and "
                   "at the peak, and the bytes its all-gathers and reduce-scatters move; one "
                   "micro-batch, the first of a step or an accumulating one, above the states "
                   "(local shards). Written by measurements/comm_buffers.py."),
        "device": f"CPU ({platform.machine()}, {platform.system()})",
        "world_size": WORLD,
        **versions(),
        "models": MODELS,
        "engine": SETUPS,
        "rows": rows,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if only:   # keep the other setups' rows, in the order of SETUPS
        kept = [r for r in read_json(OUT)["rows"] if r["setup"] not in only]
        data["rows"] = sorted(kept + rows, key=lambda r: list(SETUPS).index(r["setup"]))
    write_json(OUT, data)
    print(f"wrote {OUT} ({len(rows)} rows, {data['seconds']} s)")
