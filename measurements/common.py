"""What every measurement shares: where the stored files live, how a small model is built,
how a file is written, and the allocation tracker that sees every byte a step holds."""

from __future__ import annotations

import json
import os
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# the files the package itself reads at run time (llmcourse.training.measured_activations,
# measured_peaks, activation_accuracy) ship inside it; the rest stay beside their scripts
PACKAGE_DATA = os.path.join(ROOT, "llmcourse", "data")

ATTENTION = {"sdpa": "flash", "eager": "eager"}      # transformers name -> engine name
DTYPES = {"fp32": "fp32", "bf16": "bf16-mixed"}      # measured dtype -> engine precision
# the forward under torch.autocast(bfloat16): fp32 weights (PyTorch AMP, the Trainer's bf16=True
# on a model loaded in fp32), or bf16 weights (the Trainer's bf16=True on a model loaded in
# bf16, transformers 5's default: pure bf16; Accelerate still wraps the forward in autocast)
AUTOCAST_DTYPES = {"amp": "amp-bf16", "bf16+autocast": "bf16"}
WEIGHTS = {"fp32": "fp32", "bf16": "bf16", "amp": "fp32", "bf16+autocast": "bf16"}


def autocast(dtype):
    """``torch.autocast("cpu", bfloat16)`` for the autocast dtypes, else a null context."""
    import contextlib
    import torch
    if dtype in AUTOCAST_DTYPES:
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def package_file(name):
    return os.path.join(PACKAGE_DATA, name)


def local_file(name):
    return os.path.join(HERE, name)


def build(config, attn_implementation, dtype):
    """The model, built with transformers on CPU from a config dict, in train mode."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    fields = {k: v for k, v in config.items() if k != "model_type"}
    hf = AutoConfig.for_model(config["model_type"], **fields)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(hf, attn_implementation=attn_implementation)
    model = model.to({"fp32": torch.float32, "bf16": torch.bfloat16}[dtype])
    model.train()
    return model


def write_json(path, data):
    """Write ``data`` as every stored measurement is written (indent 1, a final newline)."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")


def read_json(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def versions(**extra):
    """The software a file was measured with."""
    import platform
    import torch
    import transformers
    return dict(torch=torch.__version__, transformers=transformers.__version__,
                python=platform.python_version(), **extra)


def tracker(skip):
    """A ``TorchDispatchMode`` that counts every CPU storage an operator returns, once,
    until it is freed (a ``weakref.finalize`` on the storage); views are not new storage,
    and the storages in ``skip`` (the states: weights, grads, optimizer state) are not
    counted. ``cur``: bytes held now; ``peak``: the most held at once; ``mark(label)``
    starts a phase of the timeline (the bytes held when it began and the most during it).
    CPU autograd runs the backward on the calling thread, so the mode sees it too.

    A storage resized in place (``UntypedStorage.resize_``, which FSDP2 uses to free and
    re-allocate the unsharded parameters without a new tensor) bypasses the dispatcher, so
    while the tracker is active that method is wrapped: a tracked storage resized to 0 is
    freed, and one resized up is a new allocation of its new size."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    class Tracker(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.live, self.cur, self.peak = {}, 0, 0
            self.phases = []

        def mark(self, label):
            self.phases.append(dict(phase=label, start=self.cur, peak=self.cur))

        def _free(self, key):
            self.cur -= self.live.pop(key, 0)

        def _add(self, st):
            key = st.data_ptr()
            if key in self.live or key in skip or st.nbytes() == 0:
                return
            self.live[key] = st.nbytes()
            self.cur += st.nbytes()
            weakref.finalize(st, self._free, key)
            self.peak = max(self.peak, self.cur)
            if self.phases and self.cur > self.phases[-1]["peak"]:
                self.phases[-1]["peak"] = self.cur

        def __enter__(self):
            resize = self._resize = torch.UntypedStorage.resize_

            def tracked_resize(st, size):
                self._free(st.data_ptr())
                out = resize(st, size)
                self._add(st)
                return out
            torch.UntypedStorage.resize_ = tracked_resize
            return super().__enter__()

        def __exit__(self, *exc):
            torch.UntypedStorage.resize_ = self._resize
            return super().__exit__(*exc)

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in tree_flatten(out)[0]:
                # plain tensors only (a DTensor is a wrapper without storage of its own)
                if type(t) in (torch.Tensor, torch.nn.Parameter) and t.device.type == "cpu":
                    self._add(t.untyped_storage())
            return out

    return Tracker()


def saved_storages(exclude, into=None):
    """``(hooks, seen)``: a ``saved_tensors_hooks`` context that records, once, each storage
    autograd saves for backward (``seen``: address -> bytes, ``into`` if given), except the
    addresses in ``exclude`` (the weights)."""
    import torch
    seen = {} if into is None else into

    def pack(t):
        st = t.untyped_storage()
        if st.data_ptr() not in exclude:
            seen.setdefault(st.data_ptr(), st.nbytes())
        return t
    return torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), seen


def storages(tensors):
    """The storage addresses of ``tensors`` (None skipped)."""
    return {t.untyped_storage().data_ptr() for t in tensors if t is not None}
