"""Will it fit, and how fast? The idealised plan: serving memory, exactly; serving
speed, as bounds. What vLLM budgets when it is launched (the runtime's memory, the
profiling run's activations, per-GPU tensor parallelism, blocks of 16 tokens) is
:func:`llmcourse.serving.vllm_plan`, the second step.

Memory (exact): weights as stored (:mod:`llmcourse.quantization`), the KV cache of
the batch (:func:`llmcourse.kv_cache_bytes`: GQA, MLA latents and sliding-window
layers included) and a runtime reserve: the idealised plan's ``utilization=0.9``
(vLLM's default ``gpu_memory_utilization`` up to 0.20; 0.92 since 0.21, which
:func:`llmcourse.serving.vllm_plan` uses) lets weights, activations and the KV cache use
90% of each GPU's memory and leaves the rest to the CUDA context, other processes and
fragmentation. ``n_gpus`` GPUs are treated as one pool (weights and cache sharded
evenly, no duplicated tensors): an ideal tensor-parallel split.

Speed (bounds on an ideal machine): one decode step reads every weight it touches
and the whole KV cache of the batch, and does the forward FLOPs of every sequence's
new token; it takes at least ``max(bytes / bandwidth, FLOPs / peak)``. Prefill is
bounded the same way with the prompt's FLOPs. These are lower bounds on time (upper
bounds on tokens/s): real engines reach a fraction of them (see
:data:`REAL_ENGINES`). For a mixture of experts at batch B the weights touched per
MoE layer are the shared experts plus the expected number of distinct routed
experts, ``E * (1 - (1 - k/E)**B)``, under the *assumption* that tokens pick their
top-k experts uniformly and independently (at B = 1 it is exactly k).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

from .config import ConfigError
from .counts import (_layer_type_counts, dtype_bits, flops_per_token, kv_cache_bytes,
                     compressed_cache_values, indexer_cache_bytes_per_token, kv_tokens_kept,
                     kv_values_per_token,
                     kv_cache_bytes_per_token_per_layer, linear_state_bytes)
from .hardware import as_gpu
from .quantization import AS_SHIPPED, SCHEMES, StoredWeights, get_scheme, scheme_as_shipped, stored_weights
from .zoo import as_config

__all__ = ["MemoryPlan", "memory_plan", "ContextLimit", "max_context", "max_batch",
           "StepBound", "decode_step_time", "prefill_time", "critical_batch",
           "expected_experts", "weights_read_per_step", "DEFAULT_UTILIZATION",
           "RESERVE_CONVENTION", "REAL_ENGINES", "KV_DTYPES"]

DEFAULT_UTILIZATION = 0.9
RESERVE_CONVENTION = (
    "vLLM's default gpu_memory_utilization=0.9: weights, activations and the KV cache may "
    "use 90% of each GPU's memory; the other 10% is left to the CUDA context, other "
    "processes and fragmentation (https://docs.vllm.ai/en/latest/configuration/engine_args.html)")
REAL_ENGINES = (
    "These are bounds on an ideal machine. Measured decode uses only part of the peak memory "
    "bandwidth: Databricks' 'LLM Inference Performance Engineering: Best Practices' (2023) "
    "defines model bandwidth utilization (achieved over peak bandwidth) and works an example at "
    "50% (a 7B bf16 model at 14 ms per token on a 2 TB/s GPU); a bound is never reached, and a "
    "real step adds scheduling, sampling and communication time.")
KV_DTYPES = ("bf16", "fp16", "fp8", "int8", "int4", "fp32")


# --- input checks -----------------------------------------------------------------

def _whole(name, v, minimum=1):
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        rule = "a positive whole number" if minimum == 1 else f"a whole number >= {minimum}"
        raise ConfigError(f"{name}: must be {rule} (got {v!r})")
    return v


def _utilization(u):
    if isinstance(u, bool) or not isinstance(u, (int, float, Fraction)) or not 0 < u <= 1 \
            or (isinstance(u, float) and not math.isfinite(u)):
        raise ConfigError(f"utilization: must be a fraction in (0, 1], e.g. 0.9 (got {u!r})")
    return Fraction(str(u)) if isinstance(u, float) else Fraction(u)


def _kv_dtype(d):
    key = str(d).lower()
    key = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}.get(key, key)
    if key not in KV_DTYPES:
        raise ConfigError(f"kv_dtype: must be one of {', '.join(KV_DTYPES)} (got {d!r})")
    return key


def _weights(cfg, weights):
    """(bytes, StoredWeights or None, label, compute dtype) for ``weights``: a scheme
    name, a Scheme, a StoredWeights, or a whole number of bytes."""
    if isinstance(weights, StoredWeights):
        scheme = SCHEMES.get(weights.scheme)
        return weights.total, weights, weights.scheme, scheme.compute_dtype if scheme else "bf16"
    if isinstance(weights, int) and not isinstance(weights, bool):
        _whole("weights", weights)
        return weights, None, f"{weights:,} B (given)", "bf16"
    if isinstance(weights, str) and weights.lower() == AS_SHIPPED:
        sw = stored_weights(cfg, AS_SHIPPED)
        return sw.total, sw, f"as shipped ({sw.scheme})", scheme_as_shipped(cfg)[0].compute_dtype
    scheme = get_scheme(weights)
    sw = stored_weights(cfg, scheme)
    return sw.total, sw, scheme.name, scheme.compute_dtype


# the largest GPU count a plan takes: a 2026 cluster's scale-up domain is at most a few hundred
# GPUs (NVL576); past that a count is a typing slip, not a setup
MAX_GPUS = 4096


def _pool(gpu, n_gpus, utilization):
    gpu = as_gpu(gpu)
    _whole("n_gpus", n_gpus)
    if n_gpus > MAX_GPUS:
        raise ConfigError(f"n_gpus: at most {MAX_GPUS:,} GPUs (got {n_gpus:,})")
    u = _utilization(utilization)
    capacity = gpu.memory_bytes * n_gpus
    usable = math.floor(u * capacity)
    return gpu, capacity, usable


# --- will it fit --------------------------------------------------------------------

class MemoryPlan(NamedTuple):
    """Memory of one serving setup, in bytes. ``fits`` when weights + KV cache stay
    within ``usable_bytes`` (capacity minus the runtime reserve)."""
    model: str
    gpu: str
    n_gpus: int
    weights_label: str
    kv_dtype: str
    seq_len: int
    batch: int
    weight_bytes: int
    kv_cache_bytes: int
    state_bytes: int          # linear-attention layers' fixed state (Qwen3-Next); else 0
    reserve_bytes: int
    usable_bytes: int
    capacity_bytes: int
    max_position_embeddings: int | None

    @property
    def cache_bytes(self):
        """KV cache plus any linear-attention state: what the sequences keep."""
        return self.kv_cache_bytes + self.state_bytes

    @property
    def total_bytes(self):
        """Weights + cache + reserve: what the setup asks of the GPUs."""
        return self.weight_bytes + self.cache_bytes + self.reserve_bytes

    @property
    def fits(self):
        return self.weight_bytes + self.cache_bytes <= self.usable_bytes

    @property
    def free_bytes(self):
        """Usable bytes left after weights and cache (negative: short by that much)."""
        return self.usable_bytes - self.weight_bytes - self.cache_bytes

    @property
    def beyond_max_position(self):
        """True when ``seq_len`` exceeds the model's ``max_position_embeddings``."""
        return self.max_position_embeddings is not None and \
            self.seq_len > self.max_position_embeddings

    def __repr__(self):
        gb = 1e9
        ctx = " (beyond max_position_embeddings)" if self.beyond_max_position else ""
        return (f"MemoryPlan({self.model} on {self.n_gpus} x {self.gpu}: weights "
                f"{self.weight_bytes / gb:,.2f} GB + KV {self.cache_bytes / gb:,.2f} GB "
                f"({self.batch} x {self.seq_len:,} tokens{ctx}) + reserve "
                f"{self.reserve_bytes / gb:,.2f} GB = {self.total_bytes / gb:,.2f} GB of "
                f"{self.capacity_bytes / gb:,.2f} GB: {'fits' if self.fits else 'does not fit'})")


def memory_plan(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=4096, batch=1,
                utilization=DEFAULT_UTILIZATION):
    """Weights, KV cache, runtime reserve and capacity of a serving setup, exactly.

    ``weights``: ``"as shipped"`` (the model's own dtype and ``quantization_config``), a
    scheme from :func:`llmcourse.list_schemes` (``"int4-g128"``, ``"fp8-block128"``,
    ...) or a whole number of bytes. ``seq_len`` tokens per sequence (prompt and
    output), ``batch`` sequences. ``utilization``: the fraction of memory the engine
    may use (default 0.9, vLLM's ``gpu_memory_utilization``).
    """
    cfg = as_config(cfg)
    gpu, capacity, usable = _pool(gpu, n_gpus, utilization)
    _whole("seq_len", seq_len)
    _whole("batch", batch)
    kv = _kv_dtype(kv_dtype)
    w, _, label, _ = _weights(cfg, weights)
    return MemoryPlan(cfg.name, gpu.name, n_gpus, label, kv, seq_len, batch, w,
                      kv_cache_bytes(cfg, seq_len, batch, kv), linear_state_bytes(cfg, batch),
                      capacity - usable, usable, capacity, cfg.get("max_position_embeddings"))


class ContextLimit(NamedTuple):
    """The longest context that fits in memory (``tokens``; None when no memory limit:
    every layer is a sliding window), beside the model's own ``max_position_embeddings``."""
    tokens: int | None
    max_position_embeddings: int | None
    batch: int

    @property
    def usable_tokens(self):
        """The smaller of the memory limit and the model's trained context."""
        vals = [v for v in (self.tokens, self.max_position_embeddings) if v is not None]
        return min(vals) if vals else None

    @property
    def limited_by(self):
        if self.tokens is None or (self.max_position_embeddings is not None
                                   and self.max_position_embeddings <= self.tokens):
            return "max_position_embeddings"
        return "memory"

    def __int__(self):
        if self.tokens is None:
            raise ValueError("tokens: no memory limit (every layer keeps a sliding window)")
        return self.tokens

    def __repr__(self):
        mem = "no memory limit" if self.tokens is None else f"{self.tokens:,} tokens fit in memory"
        mpe = (f"; the model was trained to {self.max_position_embeddings:,}"
               if self.max_position_embeddings else "")
        return f"ContextLimit({mem} at batch {self.batch}{mpe})"


def _budget(cfg, gpu, n_gpus, weights, utilization):
    gpu, capacity, usable = _pool(gpu, n_gpus, utilization)
    w, _, label, _ = _weights(cfg, weights)
    if w > usable:
        raise ConfigError(
            f"weights: {label} take {w / 1e9:,.2f} GB, more than the {usable / 1e9:,.2f} GB usable "
            f"on {n_gpus} x {gpu.name} ({float(_utilization(utilization)):.0%} of "
            f"{capacity / 1e9:,.2f} GB); use more GPUs or a smaller weight scheme")
    return usable - w, gpu


def max_context(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", batch=1,
                utilization=DEFAULT_UTILIZATION):
    """The longest context (tokens per sequence) whose KV cache for ``batch`` sequences
    fits beside the weights: exact (it fits; one more token does not), in closed form,
    sliding-window, chunked (Llama-4), MLA and linear-attention (Qwen3-Next: a fixed
    state per sequence) layers included. Reported beside ``max_position_embeddings``.
    """
    cfg = as_config(cfg)
    _whole("batch", batch)
    kv = _kv_dtype(kv_dtype)
    budget, gpu = _budget(cfg, gpu, n_gpus, weights, utilization)
    budget -= linear_state_bytes(cfg, batch)       # fixed per sequence, whatever the context
    mpe = cfg.get("max_position_embeddings")
    # bytes one more token adds while every layer still grows, by the cap where a layer
    # stops growing: sliding windows, Llama-4's attention chunks (None: never)
    bits = dtype_bits(kv)
    weight = {}
    for kind, n in cfg.layer_schedule.counts().items():
        w = Fraction(kv_values_per_token(cfg, kind) * n * bits * batch, 8)
        if w:
            cap = kv_tokens_kept(cfg, kind, 10 ** 30)
            cap = None if cap == 10 ** 30 else cap
            weight[cap] = weight.get(cap, 0) + w
    extra = indexer_cache_bytes_per_token(cfg, kv) * batch  # sparse attention's indexer keys
    # DeepSeek-V4's compressed entries: one per rate tokens, a step function; solved here at
    # its mean slope, then made exact below
    per_entry = compressed_cache_values(cfg, 10 ** 12)
    extra += Fraction(per_entry * bits * batch, 8 * 10 ** 12)
    slope = sum(weight.values()) + extra                    # bytes per token, all growing
    caps = sorted((cap, w) for cap, w in weight.items() if cap is not None)
    base = 0                                                # bytes of the capped layers
    if slope == 0 and budget >= 0:                          # no cache grows with context
        return ContextLimit(None, mpe, batch)
    s = None if budget >= 0 else 0
    for cap, w in (caps if s is None else ()):
        s = math.floor((budget - base) / slope)
        if s <= cap:
            break
        base += w * cap
        slope -= w
        s = None
    if s is None:                                   # past every cap
        if slope == 0:                              # every KV layer capped: no memory limit
            return ContextLimit(None, mpe, batch)
        s = math.floor((budget - base) / slope)
    if per_entry and s >= 0:   # the largest s whose stepped cache fits (the mean slope is close)
        def fits(x):
            return kv_cache_bytes(cfg, x, batch, kv) <= budget
        lo, hi = max(s - 256, 0), s + 256
        while lo > 0 and not fits(lo):
            lo = max(lo - 256, 0)
        while fits(hi):
            hi += 256
        while hi - lo > 1:     # fits(lo) (or lo = 0), not fits(hi)
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        s = lo
    if s < 1:
        raise ConfigError(
            f"batch: at batch {batch} not even one token per sequence fits beside the weights "
            f"({budget / 1e9:,.3f} GB left on {n_gpus} x {gpu.name}); lower the batch")
    return ContextLimit(int(s), mpe, batch)


def max_batch(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=4096,
              utilization=DEFAULT_UTILIZATION):
    """The largest batch of ``seq_len``-token sequences whose KV cache fits beside the
    weights: exact (it fits; one more sequence does not)."""
    cfg = as_config(cfg)
    _whole("seq_len", seq_len)
    kv = _kv_dtype(kv_dtype)
    budget, gpu = _budget(cfg, gpu, n_gpus, weights, utilization)
    per_seq = kv_cache_bytes(cfg, seq_len, 1, kv) + linear_state_bytes(cfg, 1)
    if per_seq == 0:
        raise ConfigError("kv_dtype: a cache of zero bytes per sequence has no batch limit")
    b = budget // per_seq
    if b < 1:
        raise ConfigError(
            f"seq_len: one sequence of {seq_len:,} tokens needs {per_seq / 1e9:,.2f} GB of KV "
            f"cache, more than the {budget / 1e9:,.2f} GB left beside the weights on "
            f"{n_gpus} x {gpu.name}")
    return int(b)


# --- how fast --------------------------------------------------------------------------

def expected_experts(num_experts, top_k, batch):
    """Expected number of distinct routed experts that ``batch`` tokens visit in one MoE
    layer, if each token picks ``top_k`` of ``num_experts`` uniformly at random and
    independently (an assumption: real routers are skewed, which touches fewer):
    ``E * (1 - (1 - k/E)**B)``; exactly ``k`` at ``B = 1``."""
    _whole("num_experts", num_experts)
    _whole("top_k", top_k)
    _whole("batch", batch, minimum=0)
    if top_k > num_experts:
        raise ConfigError(f"top_k: cannot exceed num_experts={num_experts} (got {top_k})")
    if batch == 0:
        return 0.0
    if batch == 1 or top_k == num_experts:
        return float(top_k)
    return -num_experts * math.expm1(batch * math.log1p(-top_k / num_experts))


def weights_read_per_step(cfg, stored, tokens):
    """Bytes of weights one forward step over ``tokens`` tokens reads (expected value
    for MoE): everything stored except the unused routed experts, and, for an untied
    embedding, only the ``tokens`` looked-up rows of the embedding table."""
    cfg = as_config(cfg)
    total = stored.total if isinstance(stored, StoredWeights) else int(stored)
    read = float(total)
    if isinstance(stored, StoredWeights) and cfg.is_moe and stored.routed_experts:
        frac = expected_experts(cfg.num_experts, cfg.num_experts_per_tok, tokens) / cfg.num_experts
        read -= stored.routed_experts * (1 - frac)
    if isinstance(stored, StoredWeights) and not cfg.tie_word_embeddings:
        row = cfg.hidden_size * stored.base_bytes
        read -= cfg.vocab_size * row - min(tokens, cfg.vocab_size) * row
    return read


class StepBound(NamedTuple):
    """A lower bound on one step's time: ``max(t_memory, t_compute)``."""
    mode: str
    model: str
    gpu: str
    n_gpus: int
    batch: int
    seq_len: int
    weight_bytes_read: float
    kv_bytes: int             # KV cache (and any linear-attention state) read per step
    flops: float
    bandwidth: float          # bytes/s of all GPUs together
    peak: float               # FLOP/s of all GPUs together, at compute_dtype
    compute_dtype: str

    @property
    def bytes_read(self):
        return self.weight_bytes_read + self.kv_bytes

    @property
    def t_memory(self):
        return self.bytes_read / self.bandwidth

    @property
    def t_compute(self):
        return self.flops / self.peak

    @property
    def seconds(self):
        return max(self.t_memory, self.t_compute)

    @property
    def bound(self):
        return "memory" if self.t_memory >= self.t_compute else "compute"

    @property
    def tokens_per_s(self):
        """All sequences together: ``batch`` new tokens per decode step, or the prompt
        tokens per second of a prefill."""
        n = self.batch if self.mode == "decode" else self.batch * self.seq_len
        return n / self.seconds

    @property
    def tokens_per_s_per_user(self):
        """Decode: one sequence's tokens per second (1 / step time)."""
        return 1 / self.seconds if self.mode == "decode" else self.tokens_per_s / self.batch

    @property
    def intensity(self):
        """FLOPs per byte read: compute-bound above the GPU's ridge point."""
        return self.flops / self.bytes_read

    def __repr__(self):
        return (f"StepBound({self.mode}, {self.model} on {self.n_gpus} x {self.gpu}, batch "
                f"{self.batch}, {self.seq_len:,} tokens: >= {self.seconds * 1e3:,.3f} ms "
                f"({self.bound}-bound; memory {self.t_memory * 1e3:,.3f} ms, compute "
                f"{self.t_compute * 1e3:,.3f} ms) -> <= {self.tokens_per_s:,.1f} tokens/s)")


LOGITS = ("last", "all")


def _step(mode, cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch, compute_dtype,
          logits="all"):
    cfg = as_config(cfg)
    gpu = as_gpu(gpu)
    _whole("n_gpus", n_gpus)
    _whole("seq_len", seq_len)
    _whole("batch", batch)
    kv = _kv_dtype(kv_dtype)
    w, sw, _, cd = _weights(cfg, weights)
    cd = compute_dtype or cd
    tokens = batch if mode == "decode" else batch * seq_len
    read = weights_read_per_step(cfg, sw if sw is not None else w, tokens)
    per_tok = flops_per_token(cfg, seq_len, mode).total
    flops = float(per_tok) * tokens
    if logits not in LOGITS:
        raise ConfigError(f"logits: must be 'last' (serving) or 'all' (training) (got {logits!r})")
    if mode == "prefill" and logits == "last":   # lm_head only for each prompt's last token
        flops -= 2 * cfg.vocab_size * cfg.hidden_size * (tokens - batch)
    return StepBound(mode, cfg.name, gpu.name, n_gpus, batch, seq_len, read,
                     kv_cache_bytes(cfg, seq_len, batch, kv) + linear_state_bytes(cfg, batch),
                     flops,
                     gpu.bandwidth_bytes_per_s * n_gpus, gpu.peak(cd) * n_gpus, cd)


def decode_step_time(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=4096,
                     batch=1, compute_dtype=None):
    """A lower bound on one decode step: ``batch`` sequences, each with ``seq_len``
    tokens in its KV cache, each adding one token. It reads the weights it touches
    and the whole KV cache; it does ``batch`` tokens' forward FLOPs at ``seq_len``.
    ``compute_dtype``: the matmul dtype (default: the weight scheme's; bf16 for
    weight-only schemes). Returns a :class:`StepBound` (``.seconds``, ``.bound``,
    ``.tokens_per_s``, ``.tokens_per_s_per_user``)."""
    return _step("decode", cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch, compute_dtype)


def prefill_time(cfg, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", seq_len=4096, batch=1,
                 compute_dtype=None, logits="last"):
    """A lower bound on prefilling ``batch`` prompts of ``seq_len`` tokens (causal
    attention): at least the FLOPs over the peak, and at least the weights read plus
    the KV cache written over the bandwidth. ``.seconds`` bounds the time to first token.

    ``logits="last"`` (serving, the default): engines compute the lm_head only for each
    prompt's last token, the one whose next token is sampled. ``logits="all"``
    (training, and the forward FLOPs of lesson 04): every token's logits."""
    return _step("prefill", cfg, gpu, n_gpus, weights, kv_dtype, seq_len, batch, compute_dtype,
                 logits)


def critical_batch(gpu, weights="bf16", compute_dtype="bf16"):
    """The roofline's critical batch for the weight matmuls of decode: the tokens per
    step above which multiplying the weights takes longer than reading them.

    A step over B tokens does 2·B FLOPs per weight and reads each weight's
    ``bits/8`` bytes once, so it is compute-bound when ``2·B / (bits/8) >=
    peak / bandwidth``: ``B* = (peak / bandwidth) · bits / 16``. ``weights``: a dtype
    (``"bf16"``, ``"fp8"``, ``"int8"``, ``"int4"``, ``"mxfp4"``) or a scheme name
    (its value bits, scales left out). The KV cache, read once per sequence, is never
    compute-bound in decode and is left out here."""
    gpu = as_gpu(gpu)
    try:
        bits = dtype_bits(weights)
    except ConfigError:
        try:
            bits = get_scheme(weights).bits
        except ConfigError:
            raise ConfigError(f"weights: a dtype (bf16, fp8, int8, int4, mxfp4) or a scheme "
                              f"name (got {weights!r})") from None
    return gpu.critical_intensity(compute_dtype) * float(bits) / 16
