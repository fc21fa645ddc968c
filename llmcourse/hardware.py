"""Accelerators as data: memory, memory bandwidth and dense peak FLOP/s, with sources.

The table ships in ``llmcourse/data/gpus.json``; each row cites its vendor datasheet.
Conventions (also in the file's ``_about``):

* ``memory_bytes``: the vendor's "GB" read as 10**9 bytes (the datasheet capacity).
* ``runtime_memory_bytes``: what the GPU runtime reports (CUDA's total, the figure vLLM
  multiplies by ``gpu_memory_utilization``), with ``runtime_memory_source`` quoting the log or
  device query it comes from. Where no such report was found the GPU says so
  (:attr:`GPU.memory_caveat`: "datasheet capacity, runtime unknown") and plans use the
  datasheet figure. The two differ both ways: the HBM cards report more than their decimal
  GB (an A100 80GB 79.26 GiB, not 80e9 B = 74.51 GiB; an H200 139.7 GiB, not 131.3), while
  an L4 reports 23,570,219,008 B and an A10 23,609,475,072 B, below their 24e9 (ECC and
  the driver's reservations).
* ``unified_memory``: the memory is shared with the CPU and the operating system (DGX Spark,
  Apple silicon), so a GPU process gets less than the capacity.
* ``bandwidth_bytes_per_s``: decimal, as every datasheet prints it.
* ``peak_flops``: dense tensor-core FLOP/s per dtype, no 2:4 sparsity (datasheets
  that print sparse figures are halved). A chip without a dtype's tensor cores
  (fp8 on an A100) runs those matmuls at its bf16 rate: see :meth:`GPU.peak`.

A reader's own accelerator is a ``GPU(...)`` or a plain dict with the same fields;
every function that takes a GPU accepts a name, a ``GPU`` or a dict.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from types import MappingProxyType

from .config import ConfigError

__all__ = ["GPU", "list_gpus", "load_gpu", "as_gpu", "GPU_TABLE"]

GPU_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "gpus.json")

# when a chip lists no rate for the dtype the matmuls run in, the next one down this
# list is what it actually runs them at (no fp8 tensor cores: dequantize, then bf16)
_FALLBACK = {"fp8": ("int8", "bf16", "fp16", "fp32"), "int8": ("bf16", "fp16", "fp32"),
             "int4": ("int8", "bf16", "fp16", "fp32"), "bf16": ("fp16", "fp32"),
             "fp16": ("bf16", "fp32"), "fp32": ()}
_DTYPE_ALIASES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "half": "fp16"}


def _positive_number(field_name, v, owner):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise ConfigError(f"{field_name}: must be a positive number for GPU {owner!r} (got {v!r})")


@dataclass(frozen=True)
class GPU:
    """One accelerator. ``peak_flops`` maps a dtype (``"bf16"``, ``"fp8"``, ``"int8"``,
    ...) to dense FLOP/s; ``memory_bytes`` and ``bandwidth_bytes_per_s`` are plain bytes."""
    name: str
    memory_bytes: int
    bandwidth_bytes_per_s: float
    peak_flops: dict = field(default_factory=dict)
    source: str = "user-supplied"
    notes: str = ""
    memory: str = ""          # the capacity as the vendor writes it ("80 GB HBM3")
    vendor: str = ""
    runtime_memory_bytes: int | None = None   # what the CUDA runtime reports (vLLM's total)
    interconnect_bytes_per_s: float | None = None  # the link tensor parallelism all-reduces over
    interconnect: str = ""
    runtime_memory_source: str = ""   # the log or device query the runtime total is quoted from
    unified_memory: bool = False      # shared with the CPU and the OS (DGX Spark, Apple silicon)
    platform: str = "cuda"            # the runtime vLLM runs on: cuda, rocm (metal, tpu: not)
    compute_capability: str = ""      # NVIDIA's (sm_XY as "X.Y"), where a kernel needs it
    # unified memory: what the runtime reports free at boot, typically (vLLM refuses to start
    # when it is below utilization x total); with the logged figures it comes from
    boot_free_memory_bytes: int | None = None
    boot_free_memory_source: str = ""

    @property
    def reported_memory_bytes(self):
        """The total a serving engine sees: the runtime's figure where the table has a
        sourced one, else the datasheet capacity in decimal GB (every runtime total we
        found is larger: H100 80GB reports 79.18 GiB = 85.0e9 bytes)."""
        return self.runtime_memory_bytes or self.memory_bytes

    @property
    def runtime_memory_known(self):
        """True when the table quotes what the runtime reports for this GPU."""
        return bool(self.runtime_memory_bytes)

    @property
    def memory_caveat(self):
        """"" when the runtime's total is known; else what a plan must say beside the figure.
        A unified-memory device with a known total says how much is free at boot, typically
        (the CPU, the OS and the page cache hold the rest)."""
        if self.runtime_memory_known:
            if self.unified_memory and self.boot_free_memory_bytes:
                return (f"unified memory: {self.boot_free_memory_bytes / 2**30:.2f} GiB free at "
                        f"boot, typically")
            return ""
        caveat = "datasheet capacity, runtime unknown"
        if self.unified_memory:
            caveat += " (unified memory: the CPU and the OS take part of it)"
        return caveat

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigError(f"name: a GPU needs a name (got {self.name!r})")
        mem = self.memory_bytes
        if isinstance(mem, float) and math.isfinite(mem) and mem.is_integer():
            object.__setattr__(self, "memory_bytes", int(mem))  # 80e9 is a fine way to type it
        if isinstance(self.memory_bytes, bool) or not isinstance(self.memory_bytes, int) \
                or self.memory_bytes <= 0:
            raise ConfigError(f"memory_bytes: must be a positive whole number of bytes for GPU "
                              f"{self.name!r} (got {self.memory_bytes!r})")
        _positive_number("bandwidth_bytes_per_s", self.bandwidth_bytes_per_s, self.name)
        rt = self.runtime_memory_bytes
        if rt is not None and (isinstance(rt, bool) or not isinstance(rt, int) or rt <= 0):
            raise ConfigError(f"runtime_memory_bytes: must be a positive whole number "
                              f"of bytes for GPU {self.name!r} (got {rt!r})")
        if self.platform not in ("cuda", "rocm", "metal", "tpu"):
            raise ConfigError(f"platform: one of cuda, rocm, metal, tpu for GPU {self.name!r} "
                              f"(got {self.platform!r})")
        bf = self.boot_free_memory_bytes
        if bf is not None and (isinstance(bf, bool) or not isinstance(bf, int) or bf <= 0):
            raise ConfigError(f"boot_free_memory_bytes: must be a positive whole number of "
                              f"bytes for GPU {self.name!r} (got {bf!r})")
        if not isinstance(self.unified_memory, bool):
            raise ConfigError(f"unified_memory: must be True or False for GPU {self.name!r} "
                              f"(got {self.unified_memory!r})")
        if self.interconnect_bytes_per_s is not None:
            _positive_number("interconnect_bytes_per_s", self.interconnect_bytes_per_s, self.name)
        if not isinstance(self.peak_flops, dict) or not self.peak_flops:
            raise ConfigError(f"peak_flops: must map at least one dtype to FLOP/s for GPU "
                              f"{self.name!r} (e.g. {{'bf16': 989.4e12}})")
        clean = {}
        for k, v in self.peak_flops.items():
            key = _DTYPE_ALIASES.get(str(k).lower(), str(k).lower())
            if key not in _FALLBACK:
                raise ConfigError(f"peak_flops: unknown dtype {k!r} for GPU {self.name!r}; use "
                                  f"{', '.join(_FALLBACK)}")
            _positive_number(f"peak_flops[{k!r}]", v, self.name)
            clean[key] = float(v)
        object.__setattr__(self, "peak_flops", MappingProxyType(clean))

    def peak(self, dtype="bf16"):
        """Dense FLOP/s for matmuls in ``dtype``. A chip without that dtype's tensor
        cores runs them at the next rate it has (fp8 -> int8 -> bf16 -> fp16 -> fp32)."""
        key = _DTYPE_ALIASES.get(str(dtype).lower(), str(dtype).lower())
        if key not in _FALLBACK:
            raise ConfigError(f"compute_dtype: unknown {dtype!r}; use {', '.join(_FALLBACK)}")
        for k in (key,) + _FALLBACK[key]:
            if k in self.peak_flops:
                return self.peak_flops[k]
        return max(self.peak_flops.values())  # only a faster, narrower dtype listed

    def peak_dtype(self, dtype="bf16"):
        """Which listed rate :meth:`peak` used for ``dtype``."""
        key = _DTYPE_ALIASES.get(str(dtype).lower(), str(dtype).lower())
        for k in (key,) + _FALLBACK.get(key, ()):
            if k in self.peak_flops:
                return k
        return max(self.peak_flops, key=self.peak_flops.get)

    def critical_intensity(self, dtype="bf16"):
        """The roofline's ridge point: peak FLOP/s over bandwidth, in FLOPs per byte."""
        return self.peak(dtype) / self.bandwidth_bytes_per_s

    def __repr__(self):
        peaks = ", ".join(f"{k} {v / 1e12:,.1f} TFLOP/s" for k, v in self.peak_flops.items())
        return (f"GPU({self.name!r}: {self.memory_bytes / 1e9:,.0f} GB, "
                f"{self.bandwidth_bytes_per_s / 1e12:,.3g} TB/s, {peaks})")


_TABLE = {}


def _table():
    if not _TABLE:
        with open(GPU_TABLE, encoding="utf-8") as fh:
            rows = json.load(fh)["gpus"]
        for r in rows:
            gpu = GPU(name=r["name"], memory_bytes=r["memory_bytes"],
                      bandwidth_bytes_per_s=r["bandwidth_bytes_per_s"],
                      peak_flops=r["peak_flops"], source=r["source"], notes=r.get("notes", ""),
                      memory=r.get("memory", ""), vendor=r.get("vendor", ""),
                      runtime_memory_bytes=r.get("runtime_memory_bytes"),
                      interconnect_bytes_per_s=r.get("interconnect_bytes_per_s"),
                      interconnect=r.get("interconnect", ""),
                      runtime_memory_source=r.get("runtime_memory_source", ""),
                      unified_memory=bool(r.get("unified_memory", False)),
                      platform=r.get("platform", "cuda"),
                      compute_capability=r.get("compute_capability", ""),
                      boot_free_memory_bytes=r.get("boot_free_memory_bytes"),
                      boot_free_memory_source=r.get("boot_free_memory_source", ""))
            _TABLE[gpu.name] = (gpu, tuple(r.get("aliases", ())))
    return _TABLE


def _key(name):
    return re.sub(r"[^a-z0-9]", "", name.lower())


def list_gpus():
    """Names of the accelerators in the table, in the table's order."""
    return list(_table())


def load_gpu(name):
    """An accelerator from the table by name or alias, case-insensitively and ignoring
    spaces and dashes (``"h100"``, ``"H100 SXM 80GB"``, ``"rtx-4090"``)."""
    if isinstance(name, GPU):
        return name
    if not isinstance(name, str):
        raise ConfigError(f"gpu: must be a GPU name, a GPU(...) or a dict, "
                          f"got {type(name).__name__}")
    k = _key(name)
    for gpu, aliases in _table().values():
        if k == _key(gpu.name) or any(k == _key(a) for a in aliases):
            return gpu
    raise ConfigError(f"gpu: no accelerator {name!r} in the table; choose one of: "
                      f"{', '.join(list_gpus())} (or pass GPU(...) or a dict)")


_FIELDS = ("name", "memory_bytes", "bandwidth_bytes_per_s", "peak_flops", "source", "notes",
           "memory", "vendor", "runtime_memory_bytes", "interconnect_bytes_per_s", "interconnect",
           "runtime_memory_source", "unified_memory", "platform", "compute_capability",
           "boot_free_memory_bytes", "boot_free_memory_source")


def as_gpu(gpu):
    """A :class:`GPU` from a name, a ``GPU`` or a dict with the ``GPU`` fields."""
    if isinstance(gpu, GPU):
        return gpu
    if isinstance(gpu, dict):
        unknown = sorted(set(gpu) - set(_FIELDS))
        if unknown:
            raise ConfigError(f"gpu: unknown field {unknown[0]!r}; a GPU has "
                              f"{', '.join(_FIELDS)}")
        for f in ("name", "memory_bytes", "bandwidth_bytes_per_s", "peak_flops"):
            if f not in gpu:
                raise ConfigError(f"{f}: required in a GPU spec (fields: name, memory_bytes, "
                                  "bandwidth_bytes_per_s, peak_flops)")
        return GPU(**gpu)
    return load_gpu(gpu)
