"""Weights as shipped: quantization schemes with their real storage overheads.

``lc.weight_bytes(cfg, "int4")`` is the *idealised* size: every parameter at 4 bits,
nothing else. A real checkpoint is bigger, for two reasons this module counts exactly,
tensor by tensor, from the shapes in :mod:`llmcourse.architectures`:

* **scales (and zero points)** stored next to the low-bit values: one per tensor,
  per output channel, per group of 128 inputs, or per 128x128 block;
* **tensors kept in 16-bit**: quantizers convert only the big matrices of the
  decoder layers, and leave the token embedding, the ``lm_head``, the norms, the
  biases and the MoE router in the model's own dtype.

"As shipped" reads the model's own ``quantization_config`` (gpt-oss: mxfp4 experts
with ``modules_to_not_convert``; DeepSeek-V3: fp8 with 128x128 block scales) and
its ``torch_dtype`` for everything else. DeepSeek-V3's checkpoint also holds a
multi-token-prediction layer (``num_nextn_predict_layers``) that serving without
speculative decoding does not load; like the rest of the course, it is not counted.
Standard library only.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from .architectures import global_tensors, layer_groups
from .towers import tower_tensors
from .config import ConfigError
from .counts import param_count, weight_bytes
from .zoo import as_config

__all__ = ["Scheme", "SCHEMES", "list_schemes", "get_scheme", "StoredWeights",
           "stored_weights", "scheme_as_shipped", "AS_SHIPPED"]

AS_SHIPPED = "as shipped"
_DTYPE_BYTES = {"float32": 4, "fp32": 4, "bfloat16": 2, "bf16": 2, "float16": 2, "fp16": 2}
KEEP_16BIT = ("embedding", "lm_head", "norms", "router")  # what every scheme here leaves alone


@dataclass(frozen=True)
class Scheme:
    """How one family of checkpoints stores a quantized matrix of shape (out, in).

    ``bits``: bits per stored value. ``granularity``: who shares a scale:
    ``"tensor"`` (one), ``"channel"`` (one per output row), ``"group"`` (one per
    ``group`` consecutive inputs of a row) or ``"block"`` (one per ``block`` =
    (rows, cols) tile). ``scale_bits``/``zero_bits``: storage of each scale and zero
    point. ``index_bytes_per_input``: GPTQ's ``g_idx`` (an int32 per input column).
    ``targets``: ``"linear"`` (every matmul weight in the decoder layers) or
    ``"experts"`` (routed experts only). ``compute_dtype``: the dtype the matmuls
    run in when serving (weight-only schemes dequantize to bf16).
    """
    name: str
    description: str
    bits: int
    granularity: str = "none"
    group: int = 0
    block: tuple = ()
    scale_bits: int = 0
    zero_bits: int = 0
    index_bytes_per_input: int = 0
    targets: str = "linear"
    compute_dtype: str = "bf16"
    nominal: str = "bf16"        # the dtype lc.weight_bytes would use for the idealised size
    source: str = ""

    @property
    def quantizes(self):
        return self.bits < 16

    def matrix_bytes(self, out_f, in_f):
        """Exact bytes of one quantized (out_f, in_f) matrix: values, scales, zeros, index."""
        values = -(-out_f * in_f * self.bits // 8)
        n = self.n_scales(out_f, in_f)
        scales = -(-n * self.scale_bits // 8)
        zeros = -(-n * self.zero_bits // 8)
        return values, scales + zeros + self.index_bytes_per_input * in_f

    def n_scales(self, out_f, in_f):
        if self.granularity == "tensor":
            return 1
        if self.granularity == "channel":
            return out_f
        if self.granularity == "group":
            return out_f * -(-in_f // self.group)
        if self.granularity == "block":
            r, c = self.block
            return -(-out_f // r) * -(-in_f // c)
        return 0


SCHEMES = {s.name: s for s in [
    Scheme("bf16", "every tensor in bf16 (the usual release dtype)", 16, nominal="bf16",
           source="the model's own bf16 checkpoint"),
    Scheme("fp8-tensor", "fp8 e4m3 values, one fp32 scale per matrix", 8, "tensor",
           scale_bits=32, compute_dtype="fp8", nominal="fp8",
           source="per-tensor FP8 checkpoints as vLLM loads them (a weight_scale per Linear); "
                  "lm_head, embedding, norms and router stay 16-bit"),
    Scheme("fp8-block128", "fp8 e4m3 values, one fp32 scale (weight_scale_inv) per 128x128 block",
           8, "block", block=(128, 128), scale_bits=32, compute_dtype="fp8", nominal="fp8",
           source="DeepSeek-V3 config.json quantization_config: fmt e4m3, weight_block_size "
                  "[128, 128]; one float32 weight_scale_inv per block"),
    Scheme("int8-channel", "int8 values, one 16-bit scale per output channel (W8A8)", 8,
           "channel", scale_bits=16, compute_dtype="int8", nominal="int8",
           source="per-channel int8 weights as in SmoothQuant / LLM.int8(); lm_head, "
                  "embedding, norms and router stay 16-bit"),
    Scheme("int4-g128", "int4 values, a 16-bit scale and a 4-bit zero point per group of 128 "
           "inputs (AWQ layout)", 4, "group", group=128, scale_bits=16, zero_bits=4,
           nominal="int4",
           source="AWQ (Lin et al. 2023) checkpoints: qweight, qzeros (4-bit, packed) and fp16 "
                  "scales per group of 128; lm_head, embedding, norms and router not converted"),
    Scheme("int4-g128-gptq", "as int4-g128, plus GPTQ's g_idx: an int32 group index per input "
           "column", 4, "group", group=128, scale_bits=16, zero_bits=4, index_bytes_per_input=4,
           nominal="int4",
           source="GPTQ (Frantar et al. 2022) checkpoints as AutoGPTQ writes them: qweight, "
                  "qzeros, fp16 scales, g_idx"),
    Scheme("mxfp4", "fp4 (e2m1) values, one 8-bit (e8m0) scale per 32 inputs, experts only", 4,
           "group", group=32, scale_bits=8, targets="experts", nominal="mxfp4",
           source="OCP Microscaling (MX) spec v1.0: blocks of 32, shared 8-bit scale; gpt-oss "
                  "quantization_config: mxfp4 experts, modules_to_not_convert attention, router, "
                  "embed_tokens, lm_head"),
    Scheme("mxfp4-all", "mxfp4 on every matmul weight of the decoder layers", 4, "group",
           group=32, scale_bits=8, nominal="mxfp4",
           source="OCP Microscaling (MX) spec v1.0"),
]}


def list_schemes():
    """Names of the weight schemes (``"as shipped"`` reads the model's own config)."""
    return [AS_SHIPPED] + list(SCHEMES)


def get_scheme(name):
    if isinstance(name, Scheme):
        return name
    if not isinstance(name, str) or name.lower() not in SCHEMES:
        raise ConfigError(f"weights: unknown scheme {name!r}; choose one of: "
                          f"{', '.join(list_schemes())}")
    return SCHEMES[name.lower()]


def scheme_as_shipped(cfg):
    """``(scheme, skip_patterns, base_bytes)`` read from the config: its
    ``quantization_config`` (fp8 blocks, mxfp4) and its ``torch_dtype``."""
    cfg = as_config(cfg)
    raw = cfg.to_hf_config()
    base = _DTYPE_BYTES.get(str(raw.get("torch_dtype") or raw.get("dtype") or "bfloat16"), 2)
    q = raw.get("quantization_config")
    if not q:
        return SCHEMES["bf16"], (), base
    method = str(q.get("quant_method", "")).lower()
    skip = tuple(q.get("modules_to_not_convert") or ())
    if method == "fp8":
        block = q.get("weight_block_size")
        if block:
            if list(block) == [128, 128]:
                return SCHEMES["fp8-block128"], skip, base
            s = SCHEMES["fp8-block128"]
            return (Scheme(f"fp8-block{block[0]}x{block[1]}", s.description, 8, "block",
                           block=tuple(block), scale_bits=32, compute_dtype="fp8",
                           nominal="fp8", source="the model's quantization_config"), skip, base)
        return SCHEMES["fp8-tensor"], skip, base
    if method == "mxfp4":
        return SCHEMES["mxfp4-all" if not skip else "mxfp4"], skip, base
    if method in ("awq", "gptq"):
        g = q.get("group_size", 128)
        bits = q.get("bits", q.get("w_bit", 4))
        s = SCHEMES["int4-g128" if method == "awq" else "int4-g128-gptq"]
        if g == 128 and bits == 4:
            return s, skip, base
        return (Scheme(f"{method}-{bits}bit-g{g}", s.description, bits, "group", group=g,
                       scale_bits=16, zero_bits=bits,
                       index_bytes_per_input=s.index_bytes_per_input, nominal="int4",
                       source="the model's quantization_config"), skip, base)
    if method == "compressed-tensors":  # Kimi K2.5's INT4 experts (llm-compressor's format)
        return _compressed_tensors(q), tuple(q.get("ignore") or ()), base
    raise ConfigError(f"quantization_config: quant_method {method!r} is not modelled here "
                      f"(known: fp8, mxfp4, awq, gptq, compressed-tensors); pass weights= one of "
                      f"{', '.join(SCHEMES)}")


def _compressed_tensors(q):
    """One config group of integer weights, as llm-compressor's pack-quantized format
    stores it: the values packed (num_bits each), a scale in the model's 16-bit dtype per
    group (or channel), a zero point of num_bits per scale unless symmetric. (Each matrix
    also keeps its shape as two int32: 8 bytes, not counted.)"""
    groups = q.get("config_groups") or {}
    if not isinstance(groups, dict) or len(groups) != 1:
        raise ConfigError("quantization_config.config_groups: one group of quantized weights "
                          "is modelled here")
    (group,) = groups.values()
    w = (group or {}).get("weights") or {}
    bits, strategy = w.get("num_bits"), w.get("strategy")
    if w.get("type", "int") != "int" or bits not in (2, 4, 8) or strategy not in ("group",
                                                                                "channel"):
        raise ConfigError("quantization_config.config_groups: integer weights of 2, 4 or 8 "
                          "bits with group or channel scales are modelled here "
                          f"(got {w.get('type')} {bits}-bit, {strategy})")
    g = w.get("group_size") if strategy == "group" else 0
    if strategy == "group" and (not isinstance(g, int) or isinstance(g, bool) or g < 1):
        raise ConfigError(f"quantization_config.config_groups: group_size must be a whole "
                          f"number (got {g!r})")
    zero = 0 if w.get("symmetric", True) else bits
    return Scheme(f"int{bits}-" + (f"g{g}" if g else "channel") + "-ct",
                  f"int{bits} values packed, a 16-bit scale per "
                  + (f"group of {g} inputs" if g else "output channel")
                  + ("" if not zero else f" and a {bits}-bit zero point"),
                  bits, strategy, group=g, scale_bits=16, zero_bits=zero,
                  nominal=f"int{bits}", source="the model's quantization_config "
                  "(compressed-tensors, pack-quantized)")


# dtypes whose lc.weight_bytes width includes a shared scale -> the width of the values alone
_VALUE_ONLY = {"mxfp4": "int4"}


class StoredWeights:
    """Bytes of a model's weights as stored: ``total`` = ``values`` (the quantized
    matrices' low-bit values) + ``scales`` (scales, zero points, indices) + ``kept``
    (tensors left in the base dtype). ``routed_experts`` is the part of ``total`` in
    routed experts (all of it: values, scales and biases). ``ideal`` is
    ``lc.weight_bytes`` at the scheme's nominal VALUE width: every parameter at the same
    bit width, no scales (the idealised figure, labelled so). One definition for every
    scheme: mxfp4's shared e8m0 scale (one byte per 32 values) is overhead, as int4's
    16-bit group scales are, so an mxfp4 checkpoint's idealised experts are 4 bits a value,
    not ``lc.weight_bytes``' 4.25."""

    __slots__ = ("model", "scheme", "values", "scales", "kept", "routed_experts", "ideal",
                 "base_bytes", "buffers")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)

    @property
    def total(self):
        return self.values + self.scales + self.kept

    @property
    def overhead(self):
        """Bytes above the idealised figure (scales and tensors kept in 16-bit)."""
        return self.total - self.ideal

    def __int__(self):
        return self.total

    def __repr__(self):
        return (f"StoredWeights({self.model}, {self.scheme}: total={self.total:,} B = values "
                f"{self.values:,} + scales {self.scales:,} + kept {self.kept:,}; "
                f"idealised {self.ideal:,})")


def _skipped(name, patterns):
    """A tensor left unquantized: a glob (modules_to_not_convert) or, for
    compressed-tensors' ``ignore``, a ``re:`` regular expression on the module name."""
    for p in patterns:
        if not isinstance(p, str):
            continue
        if p.startswith("re:"):
            try:
                if re.match(p[3:], name.rsplit(".", 1)[0]):
                    return True
            except re.error:
                raise ConfigError(f"quantization_config.ignore: {p!r} is not a regular "
                                  "expression") from None
        elif fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(name, p + ".*"):
            return True
    return False


def _matrix_dims(t, in_out=False):
    """(matrices, out, in) of a matmul weight as stored: (out, in) for a Linear,
    (in, out) for GPT-2's Conv1D (``in_out``); gpt-oss and Llama-4 store fused
    experts as (experts, in, out). Anything else (a depthwise conv) is not a matrix."""
    if t.fused > 1 and len(t.shape) == 3:
        if t.out_in:  # Gemma 4 stores its fused experts (experts, out, in)
            return t.shape
        return t.shape[0], t.shape[2], t.shape[1]
    if len(t.shape) == 2:
        return (1, t.shape[1], t.shape[0]) if in_out else (1, t.shape[0], t.shape[1])
    return 0, 0, 0


def stored_weights(cfg, scheme=AS_SHIPPED, base_dtype=None):
    """Exact bytes of the weights under ``scheme`` (a name from :func:`list_schemes`
    or a :class:`Scheme`). ``"as shipped"`` reads the model's ``quantization_config``
    and ``torch_dtype``. Tensors a scheme does not convert are stored at
    ``base_dtype`` (default: the config's ``torch_dtype``, else bf16). A tied
    ``lm_head`` is stored once. Buffers stored in the checkpoint (DeepSeek-V3's
    router bias) are counted in float32. A multimodal wrapper's vision and audio towers
    are kept at ``base_dtype`` under every scheme (quantized checkpoints leave them so)."""
    cfg = as_config(cfg)
    skip = ()
    if isinstance(scheme, str) and scheme.lower() == AS_SHIPPED:
        sch, skip, base = scheme_as_shipped(cfg)
    else:
        sch = get_scheme(scheme)
        base = 2
    if base_dtype is not None:
        if str(base_dtype).lower() not in _DTYPE_BYTES:
            raise ConfigError(f"base_dtype: must be one of fp32, bf16, fp16 (got {base_dtype!r})")
        base = _DTYPE_BYTES[str(base_dtype).lower()]
    values = scales = kept = routed = buffers = 0
    by_layer_pattern = any(ch.isdigit() for p in skip for ch in p.split("layers.", 1)[-1][:1])
    for idx, tensors in layer_groups(cfg):
        # one representative layer per group unless a pattern names a layer number
        reps = [(i, 1) for i in idx] if by_layer_pattern else [(idx[0], len(idx))]
        for i, n_layers in reps:
            for t in tensors:
                copies = t.per_expert * n_layers
                name = f"model.layers.{i}." + t.name.format(e=0)
                if t.buffer:
                    b = t.numel * 4 * copies
                    buffers += b
                    kept += b
                    continue
                m, out_f, in_f = _matrix_dims(t, in_out=cfg.model_type == "gpt2")
                convert = (sch.quantizes and t.matmul and m and t.component not in KEEP_16BIT
                           and (sch.targets == "linear" or t.routed)
                           and not _skipped(name, skip))
                if convert:
                    v, s = sch.matrix_bytes(out_f, in_f)
                    v, s = v * m * copies, s * m * copies
                    values += v
                    scales += s
                    if t.routed:
                        routed += v + s
                else:
                    b = t.numel * base * copies
                    kept += b
                    if t.routed:
                        routed += b
    for t in global_tensors(cfg):
        if not t.tied:
            kept += t.numel * base
    for t in tower_tensors(cfg):  # vision and audio towers: kept at the base dtype, as shipped
        b = t.numel * t.per_expert * (4 if t.buffer else base)
        kept += b
        buffers += b if t.buffer else 0
    nominal = sch.nominal if sch.quantizes else {4: "fp32", 2: "bf16"}[base]
    other = nominal if sch.targets == "linear" else {4: "fp32", 2: "bf16"}[base]
    # the idealised figure counts values only: mxfp4's 4.25 bits (lc.weight_bytes) include
    # its scales, so its values are counted at 4 bits, as int4's are
    ideal = weight_bytes(cfg, _VALUE_ONLY.get(other, other),
                         experts_dtype=_VALUE_ONLY.get(nominal, nominal))
    # an unquantized checkpoint is named by the dtype it is stored in (gemma-2-2b: fp32)
    return StoredWeights(model=cfg.name, scheme=sch.name if sch.quantizes else nominal,
                         values=values, scales=scales, kept=kept, routed_experts=routed,
                         ideal=ideal, base_bytes=base, buffers=buffers)
