"""Your own vLLM launch, read and explained: :func:`read_vllm_log` reads a startup log of vLLM
0.10 to 0.31, or any excerpt of it, into the settings and figures it prints;
:func:`explain_vllm_log` plans the same launch (:func:`llmcourse.vllm_plan`) and sets each
logged term beside the planned one, with the likely cause of every difference over 5%.

The lines it reads (each release prints a subset; vLLM's own wording):

* ``vLLM API server version 0.31.0`` / ``Initializing a V1 LLM engine (v0.11.0) with config:
  model='...', ..., tensor_parallel_size=2, pipeline_parallel_size=1, ...`` / ``non-default
  args: {...}``: the release and the settings;
* ``Model loading took 14.9889 GiB and 5.4 seconds`` (``15.0 GiB memory`` since 0.2x);
* ``Memory profiling takes 7.68 seconds. Total non KV cache memory: ...; torch peak memory
  increase: ...; non-torch forward increase memory: ...; weights memory: ...`` (DEBUG);
* ``Estimated CUDA graph memory: 0.52 GiB total`` and ``The current
  --gpu-memory-utilization=0.9200 is equivalent to --gpu-memory-utilization=0.9129 without CUDA
  graph memory profiling`` (0.21 on);
* ``Available KV cache memory: 56.21 GiB``;
* ``GPU KV cache size: 460,496 tokens`` and ``Maximum concurrency for 131,072 tokens per
  request: 3.51x`` (one line since 0.3x);
* ``Free memory on device (78.84/79.25 GiB) on startup. Desired GPU memory utilization is (0.92,
  72.91 GiB). Actual usage is ...`` and vLLM's refusals (``ValueError: Free memory on device
  ... is less than desired GPU memory utilization``, ``To serve at least one request ...``,
  ``No available memory for the cache blocks``).

A figure the excerpt does not print is None. A line that begins like one of these but cannot
be read raises a one-line ValueError naming it. Every figure is kept as printed (GiB to the
digits vLLM prints, tokens exactly).
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from .config import ConfigError

__all__ = ["VllmLog", "read_vllm_log", "explain_vllm_log", "LogExplanation", "TermRow"]

GiB = 2 ** 30
_NUM = r"(-?\d+(?:\.\d+)?)"
_INT = r"(\d[\d,]*)"


class VllmLog(NamedTuple):
    """What one vLLM startup log (or excerpt) prints. GiB figures as vLLM prints them."""
    model: str | None = None
    release: str | None = None            # "0.31.0", "0.11.1.dev3" as printed
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    gpu_memory_utilization: float | None = None
    max_model_len: int | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    kv_cache_dtype: str | None = None
    weights_gib: float | None = None
    peak_activation_gib: float | None = None
    non_torch_gib: float | None = None
    cuda_graph_gib: float | None = None          # the estimate subtracted (0.21 on), else
    available_kv_gib: float | None = None        # the pool captured (Actual usage, took X)
    kv_cache_tokens: int | None = None
    max_concurrency: float | None = None
    total_memory_gib: float | None = None
    error: str | None = None
    # besides: what other lines print
    free_memory_gib: float | None = None
    requested_gib: float | None = None
    cuda_graph_estimate_gib: float | None = None
    cuda_graph_actual_gib: float | None = None
    equivalent_utilization: float | None = None
    enforce_eager: bool | None = None
    enable_prefix_caching: bool | None = None
    block_size: int | None = None
    attention_block_size: int | None = None
    sampler: str | None = None
    gpu_name: str | None = None
    graph_sizes: tuple | None = None             # (PIECEWISE, largest, FULL, largest)
    encoder_profiled: bool = False
    consumed_gib: float | None = None            # weights + non-torch, as 0.27+ print them
    kv_needed_gib: float | None = None           # a refusal: KV one request needs
    estimated_max_model_len: int | None = None   # a refusal: the longest that fits
    limit_mm_per_prompt: dict | None = None      # --limit-mm-per-prompt, counts by modality
    language_model_only: bool | None = None
    hybrid_kv_cache_manager: bool | None = None  # False: the log says vLLM turned it off
    lines: tuple = ()                            # (attribute, the line it came from)

    @property
    def minor(self):
        """The release's minor number (31 for 0.31.0), or None."""
        if not self.release:
            return None
        m = re.match(r"v?0\.(\d+)", self.release)
        return int(m.group(1)) if m else None

    def figures(self):
        """The figures it printed, as a dict (None left out)."""
        keys = ("weights_gib", "peak_activation_gib", "non_torch_gib", "cuda_graph_gib",
                "available_kv_gib", "kv_cache_tokens", "max_concurrency", "total_memory_gib")
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


def _f(s):
    return float(s)


def _i(s):
    return int(s.replace(",", ""))


def _release(v):
    return v.strip().lstrip("v")


# (trigger substring, regex, handler(match) -> dict). A line holding the trigger must match.
_RULES = [
    ("vLLM API server version", r"vLLM API server version v?([0-9][\w.+\-]*)",
     lambda m: {"release": _release(m.group(1))}),
    ("LLM engine (v", r"LLM engine \(v([0-9][\w.+\-]*)\)",
     lambda m: {"release": _release(m.group(1))}),
    ("vllm-openai:v", r"vllm-openai:v(\d+\.\d+(?:\.\d+)?)",
     lambda m: {"release": _release(m.group(1))}),
    ("█  version ", r"█  version v?([0-9][\w.+\-]*)",
     lambda m: {"release": _release(m.group(1))}),
    ("Estimated MRV2 CUDA graph memory", r"Estimated MRV2 CUDA graph memory:\s*" + _NUM
     + r" GiB", lambda m: {"cuda_graph_estimate_gib": _f(m.group(1))}),
    ("Model loading took", r"Model loading took:?\**\s*" + _NUM + r"\s*GiB",
     lambda m: {"weights_gib": _f(m.group(1))}),
    ("Memory profiling takes",
     r"Total non KV cache memory: " + _NUM + r"\s*GiB; torch peak memory increase: " + _NUM
     + r"\s*GiB; non-torch forward increase memory: " + _NUM + r"\s*GiB; weights memory: "
     + _NUM + r"\s*GiB",
     lambda m: {"peak_activation_gib": _f(m.group(2)), "non_torch_gib": _f(m.group(3)),
                "weights_gib": _f(m.group(4))}),
    ("Available KV cache memory", r"Available KV cache memory:?\**\s*" + _NUM + r"\s*GiB",
     lambda m: {"available_kv_gib": _f(m.group(1))}),
    ("GPU KV cache size", r"GPU KV cache size: " + _INT + r" tokens",
     lambda m: {"kv_cache_tokens": _i(m.group(1))}),
    ("Maximum concurrency for", r"Maximum concurrency for " + _INT
     + r" tokens per request: " + _NUM + r"x",
     lambda m: {"max_model_len": _i(m.group(1)), "max_concurrency": _f(m.group(2))}),
    ("Estimated CUDA graph memory", r"Estimated CUDA graph memory: " + _NUM + r" GiB",
     lambda m: {"cuda_graph_estimate_gib": _f(m.group(1))}),
    ("without CUDA graph memory profiling",
     r"--gpu-memory-utilization=" + _NUM + r" is equivalent to --gpu-memory-utilization="
     + _NUM, lambda m: {"gpu_memory_utilization": _f(m.group(1)),
                        "equivalent_utilization": _f(m.group(2))}),
    ("Profiling CUDA graph memory", r"PIECEWISE=(\d+) \(largest=(\d+)\)(?:, FULL=(\d+) "
     r"\(largest=(\d+)\))?",
     lambda m: {"graph_sizes": tuple(int(x) if x else 0 for x in m.groups())}),
    ("Graph capturing finished", r"Graph capturing finished in \d+ secs?, took " + _NUM
     + r" GiB", lambda m: {"cuda_graph_actual_gib": _f(m.group(1))}),
    ("CUDA graph pool memory", r"CUDA graph pool memory: " + _NUM + r" GiB \(actual\)",
     lambda m: {"cuda_graph_actual_gib": _f(m.group(1))}),
    ("Free memory on device", r"Free memory on device(?: cuda:\d+)?:?\**\s*\(?" + _NUM
     + r"/" + _NUM + r" GiB\)? on startup", lambda m: {"free_memory_gib": _f(m.group(1)),
                                        "total_memory_gib": _f(m.group(2))}),
    ("less than desired GPU memory utilization",
     r"less than desired GPU memory utilization \(" + _NUM + r", " + _NUM + r" GiB\)",
     lambda m: {"gpu_memory_utilization": _f(m.group(1)), "requested_gib": _f(m.group(2)),
                "error": "free memory at startup is below the requested utilization"}),
    ("Desired GPU memory utilization is",
     r"Desired GPU memory utilization is \(" + _NUM + r", " + _NUM + r" GiB\)",
     lambda m: {"gpu_memory_utilization": _f(m.group(1)), "requested_gib": _f(m.group(2))}),
    ("Current kv cache memory in use is", r"Current kv cache memory in use is " + _NUM
     + r" (GiB|bytes)", lambda m: {"_kv_in_use_gib": _f(m.group(1)) if m.group(2) == "GiB"
                                   else round(_f(m.group(1)) / GiB, 2)}),
    ("GiB for weight, ", r"Actual usage is " + _NUM + r" GiB for weight, " + _NUM
     + r" GiB for peak activation, " + _NUM + r" GiB for non-torch memory, and " + _NUM
     + r" GiB for CUDAGraph memory",
     lambda m: {"weights_gib": _f(m.group(1)), "peak_activation_gib": _f(m.group(2)),
                "non_torch_gib": _f(m.group(3)), "cuda_graph_actual_gib": _f(m.group(4))}),
    ("for consumed memory (weights + non-torch)", r"Actual usage is " + _NUM
     + r" GiB for consumed memory \(weights \+ non-torch\)(?:, " + _NUM + r" GiB for peak "
     r"activation, and " + _NUM + r" GiB for CUDAGraph memory)?",
     lambda m: {k: v for k, v in (("_consumed_gib", _f(m.group(1))),
                                  ("peak_activation_gib", m.group(2) and _f(m.group(2))),
                                  ("cuda_graph_actual_gib", m.group(3) and _f(m.group(3))))
                if v is not None}),
    ("KV cache is needed, which is larger than",
     r"(?:max seq len \((\d+)\),\s*)?\(?" + _NUM + r" GiB KV cache is needed, which is larger "
     r"than the available KV cache memory \(" + _NUM + r" GiB\)",
     lambda m: {k: v for k, v in (("max_model_len", m.group(1) and int(m.group(1))),
                                  ("kv_needed_gib", _f(m.group(2))),
                                  ("available_kv_gib", _f(m.group(3))),
                                  ("error", "one request of max_model_len does not fit in "
                                            "the KV cache")) if v is not None}),
    ("max seq len (", r"max seq len \((\d+)\)", lambda m: {"max_model_len": int(m.group(1))}),
    ("estimated maximum model length is", r"estimated maximum model length is (\d+)",
     lambda m: {"estimated_max_model_len": int(m.group(1))}),
    ("No available memory for the cache blocks", r"No available memory for the cache blocks",
     lambda m: {"error": "no memory left for the KV cache"}),
    ("CUDA out of memory", r"CUDA out of memory",
     lambda m: {"error": "CUDA out of memory"}),
    ("Chunked prefill is enabled with max_num_batched_tokens",
     r"max_num_batched_tokens=(\d+)", lambda m: {"max_num_batched_tokens": int(m.group(1))}),
    ("Setting attention block size to", r"Setting attention block size to (\d+) tokens",
     lambda m: {"attention_block_size": int(m.group(1))}),
    ("Using FlashInfer for top-p & top-k sampling", r"FlashInfer",
     lambda m: {"sampler": "flashinfer"}),
    ("Falling back to the PyTorch-native implementation", r"PyTorch-native",
     lambda m: {"sampler": "pytorch"}),
    ("Encoder cache will be initialized", r"Encoder cache", lambda m: {"encoder_profiled": True}),
    ("Hybrid KV cache manager is disabled", r"Hybrid KV cache manager is disabled",
     lambda m: {"hybrid_kv_cache_manager": False}),
    ("Turning off hybrid kv cache manager", r"Turning off hybrid kv cache manager",
     lambda m: {"hybrid_kv_cache_manager": False}),
    ("device_name=NVIDIA_", r"device_name=NVIDIA_([A-Za-z0-9_\-]+?)(?:[,.]json|,|\.json)",
     lambda m: {"gpu_name": m.group(1).replace("_", " ")}),
]
_CONFIG_KEYS = {"tensor_parallel_size": int, "pipeline_parallel_size": int,
                "max_seq_len": int, "kv_cache_dtype": str, "enforce_eager": bool}
_ARG_KEYS = {"model": str, "model_tag": str, "tensor_parallel_size": int,
             "pipeline_parallel_size": int, "gpu_memory_utilization": float,
             "max_model_len": int, "max_num_seqs": int, "max_num_batched_tokens": int,
             "kv_cache_dtype": str, "enforce_eager": bool, "block_size": int,
             "enable_prefix_caching": bool, "limit_mm_per_prompt": dict,
             "language_model_only": bool, "disable_hybrid_kv_cache_manager": bool}


def _config_line(line):
    """Settings from ``Initializing a V1 LLM engine (...) with config: model='...', ...``."""
    out = {}
    m = re.search(r"with config: model='([^']*)'", line)
    if m:
        out["model"] = m.group(1)
    for key, typ in _CONFIG_KEYS.items():
        m = re.search(r"\b" + key + r"=([^,\s]+)", line)
        if not m:
            continue
        v = m.group(1).strip("'\"")
        try:
            val = (v == "True") if typ is bool else typ(v)
        except ValueError:
            raise ValueError(f"{key}: cannot read {v!r} in the engine's config line") from None
        out["max_model_len" if key == "max_seq_len" else key] = val
    return out


def _args_line(line):
    """Settings from ``non-default args: {...}`` (a Python dict literal)."""
    start = line.index("non-default args:") + len("non-default args:")
    text = line[start:].strip()
    end = text.rfind("}")
    try:
        args = ast.literal_eval(text[:end + 1])
    except (ValueError, SyntaxError):
        raise ValueError("non-default args: cannot read the dict on that line "
                         f"({text[:60]!r}...)") from None
    out = {}
    for key, typ in _ARG_KEYS.items():
        if key in args and args[key] is not None:
            v = args[key]
            if typ is float and isinstance(v, int):
                v = float(v)
            if typ is dict:
                if not isinstance(v, dict):
                    raise ValueError(f"non-default args: {key} is not a dict ({v!r})")
                v = {m: (c.get("count", 999) if isinstance(c, dict) else c)
                     for m, c in v.items()}
            if key == "disable_hybrid_kv_cache_manager":
                out["hybrid_kv_cache_manager"] = not v
                continue
            out["model" if key == "model_tag" else key] = v
    return out


_CLI_FLAGS = {"--model": ("model", str), "--tensor-parallel-size": ("tensor_parallel_size", int), "-tp": (
    "tensor_parallel_size", int), "--pipeline-parallel-size": ("pipeline_parallel_size", int),
    "--gpu-memory-utilization": ("gpu_memory_utilization", float),
    "--max-model-len": ("max_model_len", int), "--max-num-seqs": ("max_num_seqs", int),
    "--max-num-batched-tokens": ("max_num_batched_tokens", int),
    "--kv-cache-dtype": ("kv_cache_dtype", str), "--block-size": ("block_size", int)}


def _command_line(line):
    """Settings from a ``vllm serve MODEL --flag value ...`` command line."""
    words = line.replace("\\", " ").replace("=", " ").split()
    out = {}
    if "serve" in words:
        i = words.index("serve")
        if i + 1 < len(words) and not words[i + 1].startswith("-"):
            out["model"] = words[i + 1]
    for k, w in enumerate(words[:-1]):
        if w in _CLI_FLAGS:
            name, typ = _CLI_FLAGS[w]
            v = words[k + 1].strip("'\"`")
            if typ is int and v.upper().endswith("K") and v[:-1].isdigit():
                v = str(int(v[:-1]) * 1024)
            try:
                out[name] = typ(v)
            except ValueError:
                continue   # a shell variable ($MAX_LEN): not a setting the log states
    if "--disable-hybrid-kv-cache-manager" in words:
        out["hybrid_kv_cache_manager"] = False
    if "--enforce-eager" in words:
        out["enforce_eager"] = True
    return out


def read_vllm_log(text):
    """Read a vLLM startup log (or an excerpt: any lines of it) into a :class:`VllmLog`:
    the release and launch settings it states, and the figures it prints
    (``weights_gib``, ``peak_activation_gib``, ``non_torch_gib``, ``cuda_graph_gib``,
    ``available_kv_gib``, ``kv_cache_tokens``, ``max_concurrency``, ``total_memory_gib``,
    ``error``), None where the excerpt lacks the line. The first line of a kind wins (with
    tensor parallelism every worker prints its own; they differ by a few hundredths)."""
    if not isinstance(text, str):
        raise ConfigError(f"text: a vLLM log as a string (got {type(text).__name__})")
    got, lines = {}, []

    def put(values, line):
        for k, v in values.items():
            if k == "error" and "error" in got:
                continue
            if k == "available_kv_gib" and k in got:
                # every worker prints its own; vLLM sizes the cache by the smallest
                got[k] = min(got[k], v)
                continue
            if k not in got:
                got[k] = v
                lines.append((k, line.strip()[:300]))

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if "with config: model=" in line:
            put(_config_line(line), line)
        if "non-default args:" in line:
            put(_args_line(line), line)
        if re.search(r"\bvllm serve\b|vllm\.entrypoints|vllm-openai", line):
            put(_command_line(line), line)
        for trigger, pattern, handler in _RULES:
            if trigger in line:
                m = re.search(pattern, line)
                if not m:
                    raise ValueError(f"{trigger}: the line cannot be read: {line[:160]!r}")
                put(handler(m), line)
    if "_consumed_gib" in got:   # 0.27+ print weights + non-torch together
        consumed = got.pop("_consumed_gib")
        got["consumed_gib"] = consumed
        if got.get("weights_gib") is not None and "non_torch_gib" not in got:
            got["non_torch_gib"] = round(consumed - got["weights_gib"], 2)
    in_use = got.pop("_kv_in_use_gib", None)
    if in_use is not None and "available_kv_gib" not in got:
        got["available_kv_gib"] = in_use
    est, actual = got.get("cuda_graph_estimate_gib"), got.get("cuda_graph_actual_gib")
    got["cuda_graph_gib"] = est if est is not None else actual
    if got.get("model") is not None:
        got["model"] = str(got["model"])
    return VllmLog(**{k: v for k, v in got.items() if k in VllmLog._fields},
                   lines=tuple(lines))


# --- explain -----------------------------------------------------------------------------

class TermRow(NamedTuple):
    """One term of the launch: what the log printed, what the plan says, and why they differ
    (the cause is given for a difference over 5%)."""
    term: str
    logged: float | None
    planned: float | None
    unit: str
    cause: str = ""

    @property
    def difference(self):
        if self.logged is None or self.planned is None:
            return None
        return self.planned - self.logged

    @property
    def relative(self):
        d = self.difference
        if d is None or not self.logged:
            return None
        return d / abs(self.logged)

    @property
    def differs(self):
        r = self.relative
        return r is not None and abs(r) > 0.05


def _fmt(v, unit):
    if v is None:
        return "-"
    if unit == "tokens":
        return f"{v:,.0f}"
    if unit == "x":
        return f"{v:,.2f}x"
    return f"{v:,.2f}"


def _fmt_signed(v, unit):
    if unit == "tokens":
        return f"{v:+,.0f}"
    if unit == "x":
        return f"{v:+,.2f}x"
    return f"{v:+,.2f}"


class LogExplanation(NamedTuple):
    """A launch read from its log and planned again: :attr:`terms` (:class:`TermRow`), the
    :class:`VllmLog` and the :class:`llmcourse.VllmPlan`, and what was taken from where."""
    log: VllmLog
    plan: object
    terms: list
    settings: dict
    notes: tuple = ()

    def table(self):
        head = ("term", "logged", "planned", "difference", "likely cause (over 5%)")
        rows = []
        for t in self.terms:
            d = t.difference
            rel = f" ({t.relative:+.0%})" if t.relative is not None else ""
            rows.append((f"{t.term} ({t.unit})" if t.unit not in ("x", "tokens") else t.term,
                         _fmt(t.logged, t.unit), _fmt(t.planned, t.unit),
                         "-" if d is None else _fmt_signed(d, t.unit) + rel,
                         t.cause if t.differs else ""))
        return head, rows

    def __str__(self):
        head, rows = self.table()
        w = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
        out = [f"{self.plan.model} on {self.plan.tensor_parallel_size} x {self.plan.gpu}, "
               f"vLLM {self.plan.vllm_version} (from the log: "
               f"{', '.join(k for k, v in self.settings.items() if v == 'log') or 'nothing'})"]
        out.append("  ".join(h.ljust(w[i]) for i, h in enumerate(head[:4])) + "  " + head[4])
        for r in rows:
            out.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r[:4])) + "  " + r[4])
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)

    def _repr_html_(self):
        import html
        head, rows = self.table()
        cells = "".join(f"<th style='text-align:left'>{html.escape(h)}</th>" for h in head)
        body = "".join("<tr>" + "".join(f"<td style='text-align:left'>{html.escape(c)}</td>"
                                        for c in r) + "</tr>" for r in rows)
        notes = "".join(f"<p>{html.escape(n)}</p>" for n in self.notes)
        title = html.escape(str(self).splitlines()[0])
        return f"<p><b>{title}</b></p><table><tr>{cells}</tr>{body}</table>{notes}"

    def __repr__(self):
        return str(self)


_SUFFIXES = ("-Instruct-2507", "-Instruct", "-instruct", "-Chat", "-chat", "-it", "-Base",
             "-FP8", "-fp8", "-AWQ", "-GPTQ-Int4", "-Thinking-2507")


def _model_of(name):
    """A zoo config for a logged model name (a Hub id or a local path), or None."""
    from .zoo import list_models, load_model
    base = str(name).rstrip("/").split("/")[-1]
    zoo = {m.lower(): m for m in list_models()}
    tries = [base]
    for s in _SUFFIXES:
        if base.endswith(s):
            tries.append(base[:-len(s)])
    tries += [t.replace("Meta-Llama-3.1", "Llama-3.1") for t in tries]
    for t in tries:
        if t.lower() in zoo:
            return load_model(zoo[t.lower()])
    return None


def _gpu_of(log):
    """The GPU whose runtime total the log prints (to 0.01 GiB; unique), or by its name."""
    from .hardware import list_gpus, load_gpu
    if log.total_memory_gib is not None:
        hits = [g for g in list_gpus() if load_gpu(g).runtime_memory_known and abs(
            load_gpu(g).reported_memory_bytes / GiB - log.total_memory_gib) <= 0.011]
        if len(hits) == 1:
            return load_gpu(hits[0])
    if log.gpu_name:
        try:
            return load_gpu(log.gpu_name.replace("GeForce ", ""))
        except ValueError:
            return None
    return None


_CAUSES = {
    "total": "the table's runtime total for this GPU is not this box's (another memory size, "
             "ECC, MIG, or unified memory shared with the OS)",
    "requested": "utilization x total: follows the total and the utilization",
    "weights": "weights as vLLM loads them: a quantization kernel's layout (padding, "
               "repacking), a vision tower, or a checkpoint other than the config's",
    "activation": "the profiling run: the sampler (FlashInfer, PyTorch or Model Runner V2's), "
                  "max_num_seqs and max_num_batched_tokens, a multimodal encoder's dummy "
                  "images, or MoE kernels' workspaces",
    "non_torch": "NCCL and custom all-reduce buffers (grows with TP), ROCm's libraries, or "
                 "another process on the GPU",
    "graphs": "vLLM measures its CUDA-graph estimate on the GPU; the plan's is from the capture "
              "sizes (0 on Model Runner V2); --kv-cache-memory-bytes or the 'equivalent to "
              "--gpu-memory-utilization' line are the levers",
    "kv": "the sum of the terms above (see each)",
    "tokens": "follows the KV budget; when the budget agrees, the cache layout (groups, "
              "page size, block size) differs, or, for a sliding-window model, vLLM's hybrid "
              "KV cache manager was off (hybrid_kv_cache_manager=False: every layer keeps "
              "max_model_len)",
}


def _hybrid_manager_off_matches(log, cfg, gpu, kw, plan):
    """A note when the logged cache is the plan's with vLLM's hybrid KV cache manager off (and
    not with it on): a sliding-window model whose every layer was charged max_model_len."""
    from .serving import vllm_plan
    logged = log.max_concurrency
    if logged is None or "hybrid_kv_cache_manager" in kw or not plan.num_blocks or \
            log.available_kv_gib is None or \
            abs(plan.max_concurrency - logged) <= 0.05 * logged:
        return ""
    try:
        off = vllm_plan(cfg, gpu, **dict(kw, hybrid_kv_cache_manager=False,
                                         kv_cache_memory_bytes=round(log.available_kv_gib
                                                                     * GiB)))
    except ValueError:
        return ""
    if not off.num_blocks or off.layout == plan.layout or \
            abs(off.max_concurrency - logged) > 0.01 * logged:
        return ""
    return (f"the log's cache is vLLM's with every sliding-window layer charged max_model_len, "
            f"as a full-attention one (its allocation with the hybrid KV cache manager off): "
            f"from the logged {log.available_kv_gib:.2f} GiB that gives {off.kv_tokens:,} "
            f"tokens and {off.max_concurrency:.2f}x; pass hybrid_kv_cache_manager=False to plan "
            f"this launch so")


def explain_vllm_log(text, model=None, gpu=None, **settings):
    """Plan the launch a vLLM log describes and set its terms beside the log's:
    an :class:`LogExplanation` whose ``terms`` are rows of term, logged, planned, difference
    and the likely cause for each that differs by more than 5% (printed as a table).

    ``model`` (a zoo name, config or Hub id) and ``gpu`` (a name or ``GPU``) default to what
    the log names (a Hub id the zoo holds; the GPU whose runtime total the log prints);
    ``settings`` override what the log states (``vllm_version``, ``tensor_parallel_size``,
    ``max_model_len``, ...). A log that names neither is a one-line error asking for them."""
    from .hardware import as_gpu
    from .serving import vllm_plan, vllm_release
    from .zoo import as_config
    log = read_vllm_log(text) if isinstance(text, str) else text
    if not isinstance(log, VllmLog):
        raise ConfigError(f"text: a vLLM log (got {type(text).__name__})")
    src = {}
    if model is None:
        cfg = _model_of(log.model) if log.model else None
        if cfg is None:
            raise ConfigError(f"model: the log names {log.model!r}, which the course cannot "
                              f"size offline; pass model= (a zoo name, config.json or Hub id)"
                              if log.model else "model: the excerpt names no model; pass "
                                                "model=")
        src["model"] = "log"
    else:
        cfg = as_config(model)
        src["model"] = "given"
    if gpu is None:
        g = _gpu_of(log)
        if g is None:
            raise ConfigError("gpu: the excerpt's total memory matches no GPU of the table "
                              "(or it prints none); pass gpu= (a name from lc.list_gpus(), "
                              "or GPU(...) with runtime_memory_bytes)")
        src["gpu"] = "log"
    else:
        g = as_gpu(gpu)
        src["gpu"] = "given"
    kw = {}
    if "vllm_version" in settings:
        kw["vllm_version"] = settings.pop("vllm_version")
        src["release"] = "given"
    elif log.release:
        kw["vllm_version"] = vllm_release(log.release).version
        src["release"] = "log"
    else:
        raise ConfigError("vllm_version: the excerpt names no vLLM release; pass "
                          "vllm_version= (e.g. '0.31')")
    for key in ("tensor_parallel_size", "pipeline_parallel_size", "gpu_memory_utilization",
                "max_model_len", "max_num_seqs", "max_num_batched_tokens", "kv_cache_dtype",
                "enforce_eager", "enable_prefix_caching", "limit_mm_per_prompt",
                "language_model_only", "hybrid_kv_cache_manager"):
        if key in settings:
            kw[key] = settings.pop(key)
            src[key] = "given"
        elif getattr(log, key) is not None:
            kw[key] = getattr(log, key)
            src[key] = "log"
    if log.block_size is not None and "block_size" not in settings:
        kw["block_size"] = log.block_size
    if log.sampler and "sampler" not in settings and vllm_release(
            kw["vllm_version"]).model_runner(cfg) == "v1":
        kw["sampler"] = log.sampler
    if log.free_memory_gib is not None and "free_memory_bytes" not in settings:
        kw["free_memory_bytes"] = round(log.free_memory_gib * GiB)
    kw.update(settings)
    plan = vllm_plan(cfg, g, **kw)
    notes = list(plan.caveats)
    if plan.reason:
        notes.append(f"the plan: vLLM would not start: {plan.reason.split('. ')[0]}")
    if log.error:
        notes.append(f"the log: {log.error}")
    if log.encoder_profiled:
        notes.append("the log profiles a multimodal encoder: its dummy images are in the "
                     "logged peak, not the plan's")
    p = plan
    weights = log.weights_gib
    graphs_planned = p.cuda_graph_bytes / GiB if p.cuda_graph_in_budget else 0.0
    graph_logged = log.cuda_graph_estimate_gib
    consumed = log.consumed_gib
    if consumed is None and None not in (log.weights_gib, log.non_torch_gib):
        consumed = log.weights_gib + log.non_torch_gib
    if graph_logged is None and log.available_kv_gib is not None and log.requested_gib \
            is not None and None not in (consumed, log.peak_activation_gib):
        rest = log.requested_gib - consumed - log.peak_activation_gib - log.available_kv_gib
        if p.release.cuda_graph_in_budget:   # what the figures leave; 0 within their rounding
            graph_logged = round(rest, 2) if rest > 0.03 else 0.0
    terms = [
        TermRow("total the runtime reports", log.total_memory_gib, p.total_bytes / GiB, "GiB",
                _CAUSES["total"]),
        TermRow("requested = utilization x total", log.requested_gib, p.requested_bytes / GiB,
                "GiB", _CAUSES["requested"]),
        TermRow("weights as loaded", weights, p.weight_bytes / GiB, "GiB", _CAUSES["weights"]),
        TermRow("profiling peak (activations)", log.peak_activation_gib,
                p.activation_bytes / GiB, "GiB", _CAUSES["activation"]),
        TermRow("non-torch memory", log.non_torch_gib, p.non_torch_bytes / GiB, "GiB",
                _CAUSES["non_torch"]),
        TermRow("weights + non-torch", log.consumed_gib,
                (p.weight_bytes + p.non_torch_bytes) / GiB, "GiB",
                _CAUSES["weights"] + "; or " + _CAUSES["non_torch"]),
        TermRow("CUDA-graph estimate in the budget", graph_logged, graphs_planned, "GiB",
                _CAUSES["graphs"]),
        TermRow("available KV cache memory", log.available_kv_gib, p.kv_budget_bytes / GiB,
                "GiB", _CAUSES["kv"]),
        TermRow("GPU KV cache size", log.kv_cache_tokens, p.kv_tokens if p.num_blocks else 0,
                "tokens", _CAUSES["tokens"]),
        TermRow("maximum concurrency", log.max_concurrency,
                p.max_concurrency if p.num_blocks else 0.0, "x", _CAUSES["tokens"]),
    ]
    if log.consumed_gib is None:       # printed only by 0.27+ (weights and non-torch apart)
        terms = [t for t in terms if t.term != "weights + non-torch"]
    off = _hybrid_manager_off_matches(log, cfg, g, kw, plan)
    if off:
        notes.append(off)
    k = next(i for i, t in enumerate(terms) if t.term == "available KV cache memory")
    kv = terms[k]
    if kv.differs:
        culprits = [t.term for t in terms[2:k] if t.difference is not None and abs(
            t.difference) >= 0.25 * abs(kv.difference)]
        if culprits:
            terms[k] = kv._replace(cause="mostly " + ", ".join(culprits) + " (see their rows)")
    return LogExplanation(log, plan, terms, src, tuple(notes))
