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

The formats readers bring in 2026 are read as their tools write them
(``docs/formats.md`` has each layout, its source and the checkpoint it is exact against):

* **ModelOpt** (``quant_method: modelopt``, or hf_quant_config.json's own layout): NVFP4
  (``weight`` two fp4 values a byte, rows padded to 16; ``weight_scale`` fp8 per 16;
  fp32 ``weight_scale_2`` and ``input_scale``), W4A16_NVFP4, FP8, MXFP4, mixed
  precision (``quantized_layers``), fp32 ``k_scale``/``v_scale`` for an FP8 KV cache;
  every Linear not in ``exclude_modules``/``ignore`` is quantized;
* **compressed-tensors** (llm-compressor): config groups matched by exact name, ``re:``
  expression, then class (``Linear``), ``ignore`` kept; the storage by ``format``:
  ``pack-quantized`` (int32 words and a ``weight_shape`` of two int64), ``int-`` and
  ``float-quantized`` (a byte a value), ``nvfp4-pack-quantized`` (plus fp32 global
  scales), ``mxfp4-pack-quantized`` (a uint8 scale per 32); scales in the weight's dtype
  unless ``scale_dtype`` says otherwise;
* **GGUF** (llama.cpp): :func:`gguf_tensors` gives every tensor's type under Q4_K_M,
  Q5_K_M or Q8_0 by llama.cpp's own rule; :func:`gguf_weights` their bytes.

The names for an explicit ``weights=`` argument are :func:`list_formats` (beside
:func:`list_schemes`, whose list the course's tables show). A config this module cannot
size is a one-line error naming the field. Standard library only.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import NamedTuple

from .architectures import global_tensors, layer_groups, layer_prefix
from .families import ENTRIES, family_of
from .towers import tower_tensors
from .config import ConfigError
from .counts import param_count, weight_bytes
from .zoo import as_config

__all__ = ["Scheme", "SCHEMES", "FORMATS", "list_schemes", "list_formats", "get_scheme",
           "StoredWeights", "stored_weights", "scheme_as_shipped", "AS_SHIPPED", "GGUF_FTYPES",
           "GGML_TYPES", "GgufTensor", "gguf_tensors", "gguf_weights"]

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

    How the values are laid out (``packing``): ``"bits"``, the matrix's values back to
    back (``ceil(out x in x bits / 8)`` bytes); ``"row"``, each row packed to whole bytes
    (two fp4 values a byte: NVFP4, MXFP4); ``"int32"``, each row packed into int32 words
    (compressed-tensors' pack-quantized); ``"byte"``, one byte a value whatever ``bits``
    (compressed-tensors' int-quantized and float-quantized: int8 or fp8 containers).
    ``pad_to_group``: rows padded to a whole group before packing (ModelOpt's NVFP4).
    ``zero_packing``: ``"bits"`` (back to back), ``"int32"`` (packed down the output rows
    into int32, one column per group: compressed-tensors) or ``"byte"`` (one byte each).
    ``tensor_bytes``: bytes each quantized matrix stores beside its values, scales and
    zero points: per-tensor scales (NVFP4's ``weight_scale_2`` / ``weight_global_scale``,
    a static ``input_scale``) and compressed-tensors' ``weight_shape`` (two int64)."""
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
    packing: str = "bits"
    pad_to_group: bool = False
    zero_packing: str = "bits"
    tensor_bytes: int = 0

    @property
    def quantizes(self):
        return self.bits < 16

    def matrix_bytes(self, out_f, in_f):
        """Exact bytes of one quantized (out_f, in_f) matrix: (values, everything else:
        scales, zero points, index, per-tensor scales)."""
        in_v = -(-in_f // self.group) * self.group if self.pad_to_group and self.group else in_f
        if self.packing == "row":
            values = out_f * -(-in_v * self.bits // 8)
        elif self.packing == "int32":
            values = out_f * -(-in_v * self.bits // 32) * 4
        elif self.packing == "byte":
            values = out_f * in_v
        else:
            values = -(-out_f * in_v * self.bits // 8)
        n = self.n_scales(out_f, in_f)
        scales = -(-n * self.scale_bits // 8)
        if not self.zero_bits:
            zeros = 0
        elif self.zero_packing == "int32":   # (ceil(out x bits / 32), groups) int32
            zeros = -(-out_f * self.zero_bits // 32) * 4 * (n // out_f)
        elif self.zero_packing == "byte":
            zeros = n
        else:
            zeros = -(-n * self.zero_bits // 8)
        return values, scales + zeros + self.index_bytes_per_input * in_f + self.tensor_bytes

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


# --- the formats of 2026's checkpoints ------------------------------------------------------
# Not in list_schemes() (the course's tables and widgets iterate that list); named with an
# explicit ``weights=`` argument or read from a config's quantization_config.

_MODELOPT_SRC = ("NVIDIA/Model-Optimizer @a2fbac7b: modelopt/torch/quantization/qtensor/"
                 "nvfp4_tensor.py (rows padded to a whole block of 16, two e2m1 values a byte, "
                 "an fp8 e4m3 scale per 16), export/quant_utils.py (weight_scale_2 and "
                 "input_scale as fp32 scalars, k_proj.k_scale / v_proj.v_scale), "
                 "export/convert_hf_config.py (the quantization_config it writes)")
_CT_SRC = ("vllm-project/compressed-tensors @ac8e2ba8: compressors/nvfp4/base.py, "
           "compressors/mxfp4/base.py, compressors/pack_quantized/base.py (int32 words, "
           "weight_shape int64[2]), compressors/naive_quantized/base.py (int8/fp8 "
           "containers), quantization/lifecycle/initialize.py (scale shapes and dtypes)")

FORMATS = {s.name: s for s in [
    Scheme("nvfp4", "NVFP4 as NVIDIA ModelOpt exports it: fp4 (e2m1) values two a byte, an "
           "fp8 e4m3 scale per 16 inputs, fp32 weight_scale_2 and input_scale per matrix",
           4, "group", group=16, scale_bits=8, nominal="int4", packing="row",
           pad_to_group=True, tensor_bytes=8, source=_MODELOPT_SRC),
    Scheme("nvfp4-w4a16", "NVFP4 weights only (ModelOpt W4A16_NVFP4): as nvfp4, without "
           "the input_scale", 4, "group", group=16, scale_bits=8, nominal="int4",
           packing="row", pad_to_group=True, tensor_bytes=4, source=_MODELOPT_SRC),
    Scheme("nvfp4-ct", "NVFP4 as llm-compressor writes it (compressed-tensors "
           "nvfp4-pack-quantized): weight_packed two values a byte, an fp8 weight_scale per "
           "16, fp32 weight_global_scale and input_global_scale", 4, "group", group=16,
           scale_bits=8, nominal="int4", packing="row", tensor_bytes=8, source=_CT_SRC),
    Scheme("nvfp4a16-ct", "NVFP4A16 (compressed-tensors): as nvfp4-ct without the "
           "input_global_scale", 4, "group", group=16, scale_bits=8, nominal="int4",
           packing="row", tensor_bytes=4, source=_CT_SRC),
    Scheme("mxfp4-ct", "MXFP4 on every matmul (compressed-tensors mxfp4-pack-quantized): "
           "two e2m1 values a byte, a uint8 (e8m0) scale per 32 inputs", 4, "group",
           group=32, scale_bits=8, nominal="int4", packing="row", source=_CT_SRC),
    Scheme("fp8-channel", "fp8 e4m3 values, a 16-bit scale per output channel "
           "(compressed-tensors FP8_DYNAMIC, float-quantized)", 8, "channel", scale_bits=16,
           compute_dtype="fp8", nominal="fp8", packing="byte", source=_CT_SRC),
    Scheme("w8a8-int8", "int8 values, a 16-bit scale per output channel (compressed-tensors "
           "W8A8, int-quantized)", 8, "channel", scale_bits=16, compute_dtype="int8",
           nominal="int8", packing="byte", source=_CT_SRC),
    Scheme("w4a16-ct", "int4 values in int32 words, a 16-bit scale per 128 inputs, "
           "weight_shape (compressed-tensors W4A16, pack-quantized)", 4, "group", group=128,
           scale_bits=16, nominal="int4", packing="int32", zero_packing="int32",
           tensor_bytes=16, source=_CT_SRC),
]}


def list_formats():
    """Names of the 2026 formats :func:`stored_weights` takes beside :func:`list_schemes`:
    NVFP4 (ModelOpt and compressed-tensors layouts), MXFP4, FP8 and INT8 per channel,
    W4A16, and llama.cpp's GGUF mixtures."""
    return list(FORMATS) + list(GGUF_FTYPES)


def list_schemes():
    """Names of the weight schemes (``"as shipped"`` reads the model's own config)."""
    return [AS_SHIPPED] + list(SCHEMES)


def get_scheme(name):
    if isinstance(name, Scheme):
        return name
    key = name.lower() if isinstance(name, str) else None
    if key in SCHEMES:
        return SCHEMES[key]
    if key in FORMATS:
        return FORMATS[key]
    raise ConfigError(f"weights: unknown scheme {name!r}; choose one of: "
                      f"{', '.join(list_schemes() + list_formats())}")


# --- reading a quantization_config ----------------------------------------------------------

class _Recipe:
    """How one checkpoint stores each tensor: ``scheme`` for the matrices it quantizes
    (the first of several), ``skip`` patterns kept at ``base`` bytes a value, ``rules``
    (pattern, Scheme or None) tried first, ``linear``: any Linear may be quantized (the
    head too, routers only when a rule names them) rather than the decoder layers' matmuls
    less KEEP_16BIT, ``default``: unmatched matrices take ``scheme``, ``kv_scales``:
    (values, bytes each) of the k_scale and v_scale an attention layer stores."""

    __slots__ = ("scheme", "skip", "base", "rules", "linear", "default", "kv_scales",
                 "field")

    def __init__(self, scheme, skip=(), base=2, rules=(), linear=False, default=True,
                 kv_scales=None, field="quantization_config"):
        self.scheme, self.skip, self.base, self.rules = scheme, tuple(skip), base, tuple(rules)
        self.linear, self.default, self.kv_scales, self.field = linear, default, kv_scales, field


def scheme_as_shipped(cfg):
    """``(scheme, skip_patterns, base_bytes)`` read from the config: its
    ``quantization_config`` (fp8 blocks, mxfp4, AWQ/GPTQ, compressed-tensors, ModelOpt)
    and its ``torch_dtype``. Where a config quantizes modules differently (mixed
    precision), ``scheme`` is the first group's."""
    r = _recipe(as_config(cfg))
    return r.scheme, r.skip, r.base


def _base_bytes(raw):
    return _DTYPE_BYTES.get(str(raw.get("torch_dtype") or raw.get("dtype") or "bfloat16"), 2)


def _recipe(cfg):
    raw = cfg.to_hf_config()
    base = _base_bytes(raw)
    q = raw.get("quantization_config")
    if not q:
        return _Recipe(SCHEMES["bf16"], base=base)
    if not isinstance(q, dict):
        raise ConfigError("quantization_config: must be an object")
    method = str(q.get("quant_method", "")).lower()
    if not method and (isinstance(q.get("quantization"), dict)
                       or (q.get("producer") or {}).get("name") == "modelopt"):
        method = "modelopt"   # hf_quant_config.json's own layout, passed as it is
    skip = tuple(q.get("modules_to_not_convert") or ())
    if method == "fp8":
        block = q.get("weight_block_size")
        if block:
            if list(block) == [128, 128]:
                return _Recipe(SCHEMES["fp8-block128"], skip, base)
            s = SCHEMES["fp8-block128"]
            return _Recipe(Scheme(f"fp8-block{block[0]}x{block[1]}", s.description, 8,
                                  "block", block=tuple(block), scale_bits=32,
                                  compute_dtype="fp8", nominal="fp8",
                                  source="the model's quantization_config"), skip, base)
        return _Recipe(SCHEMES["fp8-tensor"], skip, base)
    if method == "mxfp4":
        return _Recipe(SCHEMES["mxfp4-all" if not skip else "mxfp4"], skip, base)
    if method in ("awq", "gptq"):
        g = q.get("group_size", 128)
        bits = q.get("bits", q.get("w_bit", 4))
        s = SCHEMES["int4-g128" if method == "awq" else "int4-g128-gptq"]
        if g == 128 and bits == 4:
            return _Recipe(s, skip, base)
        if not isinstance(g, int) or isinstance(g, bool) or g < 1:
            raise ConfigError(f"quantization_config.group_size: must be a positive whole "
                              f"number (got {g!r})")
        return _Recipe(Scheme(f"{method}-{bits}bit-g{g}", s.description, bits, "group", group=g,
                              scale_bits=16, zero_bits=bits,
                              index_bytes_per_input=s.index_bytes_per_input, nominal="int4",
                              source="the model's quantization_config"), skip, base)
    if method == "compressed-tensors":
        return _compressed_tensors(q, base, cfg)
    if method in ("modelopt", "modelopt_fp4"):
        return _modelopt(q, base)
    raise ConfigError(f"quantization_config: quant_method {method!r} is not modelled here "
                      f"(known: fp8, mxfp4, awq, gptq, compressed-tensors, modelopt); pass "
                      f"weights= one of {', '.join(list(SCHEMES) + list(FORMATS))}")


# compressed-tensors -------------------------------------------------------------------------

_TORCH_DTYPE_BITS = {"float8_e4m3fn": 8, "float8_e5m2": 8, "uint8": 8, "int8": 8,
                     "bfloat16": 16, "float16": 16, "half": 16, "float32": 32, "float": 32,
                     "float64": 64}
_CT_FORMATS = ("pack-quantized", "int-quantized", "float-quantized", "naive-quantized",
               "nvfp4-pack-quantized", "mxfp4-pack-quantized")


def _dtype_bits(value, field):
    key = str(value).replace("torch.", "")
    if key not in _TORCH_DTYPE_BITS:
        raise ConfigError(f"{field}: unknown dtype {value!r}")
    return _TORCH_DTYPE_BITS[key]


def _whole(value, field, rule="a positive whole number"):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(f"{field}: must be {rule} (got {value!r})")
    return value


def _compressed_tensors(q, base, cfg):
    """llm-compressor's quantization_config: each config group a scheme for the modules its
    targets name (an exact name, ``re:`` a regular expression, or a class: ``Linear``), the
    most specific target first; ``ignore`` kept in the model's dtype; the storage of each
    group set by its ``format`` (or the config's)."""
    groups = q.get("config_groups") or {}
    if not isinstance(groups, dict) or not groups:
        raise ConfigError("quantization_config.config_groups: at least one group of "
                          "quantized weights is needed")
    fmt = q.get("format")
    rules, classes, first = [], [], None
    for gname, group in groups.items():
        field = f"quantization_config.config_groups.{gname}"
        if not isinstance(group, dict):
            raise ConfigError(f"{field}: must be an object")
        sch = _ct_scheme(group, group.get("format") or fmt, base, field)
        first = first or sch
        targets = group.get("targets") or ["Linear"]
        if isinstance(targets, str):
            targets = [targets]
        for t in targets:
            if not isinstance(t, str):
                raise ConfigError(f"{field}.targets: must name modules (got {t!r})")
            if t.startswith("re:") or "." in t or t in ("lm_head",):
                rules.append((t, sch))
            elif t == "Linear":
                classes.append(sch)
            else:
                raise ConfigError(f"{field}.targets: {t!r} is neither a module name, a "
                                  "'re:' expression nor the class 'Linear'")
    # exact names first, then regular expressions (compressed-tensors' match_targets order)
    rules.sort(key=lambda r: (r[0].startswith("re:"), r[0]))
    kv = q.get("kv_cache_scheme")
    kv_scales = None
    if kv:
        strategy = (kv.get("strategy") if isinstance(kv, dict) else None) or "tensor"
        if strategy == "tensor":
            n = 1
        elif strategy == "attn_head":
            n = cfg.num_key_value_heads
        else:
            raise ConfigError(f"quantization_config.kv_cache_scheme.strategy: {strategy!r} "
                              "is not sized here (tensor or attn_head)")
        kv_scales = (n, base)
    return _Recipe(classes[0] if classes else first, tuple(q.get("ignore") or ()), base,
                   rules=rules, linear=True, default=bool(classes), kv_scales=kv_scales)


def _ct_scheme(group, fmt, base, field):
    w = group.get("weights")
    if not isinstance(w, dict):
        raise ConfigError(f"{field}.weights: a group without weights is not sized here")
    bits, kind = w.get("num_bits"), w.get("type", "int")
    strategy = w.get("strategy")
    if fmt not in _CT_FORMATS:
        raise ConfigError(f"quantization_config.format: {fmt!r} is not sized here (known: "
                          f"{', '.join(_CT_FORMATS)})")
    if kind not in ("int", "float") or bits not in (4, 8):
        raise ConfigError(f"{field}.weights: int or float values of 4 or 8 bits are sized "
                          f"here (got {kind} {bits!r}-bit)")
    if strategy not in ("tensor", "channel", "group", "tensor_group", "block"):
        raise ConfigError(f"{field}.weights.strategy: {strategy!r} is not sized here "
                          "(tensor, channel, group, tensor_group, block)")
    g, block = 0, ()
    if strategy in ("group", "tensor_group"):
        g = _whole(w.get("group_size"), f"{field}.weights.group_size")
    if strategy == "block":
        bs = w.get("block_structure")
        if not (isinstance(bs, (list, tuple)) and len(bs) == 2):
            raise ConfigError(f"{field}.weights.block_structure: must be [rows, cols] "
                              f"(got {bs!r})")
        block = (_whole(bs[0], f"{field}.weights.block_structure"),
                 _whole(bs[1], f"{field}.weights.block_structure"))
    if fmt == "nvfp4-pack-quantized" and (kind, bits, g) != ("float", 4, 16):
        raise ConfigError(f"{field}.weights: nvfp4-pack-quantized stores fp4 values in "
                          f"groups of 16 (got {kind} {bits}-bit, group_size {g})")
    if fmt == "mxfp4-pack-quantized" and (kind, bits, g) != ("float", 4, 32):
        raise ConfigError(f"{field}.weights: mxfp4-pack-quantized stores fp4 values in "
                          f"blocks of 32 (got {kind} {bits}-bit, group_size {g})")
    if w.get("scale_dtype"):
        scale_bits = _dtype_bits(w["scale_dtype"], f"{field}.weights.scale_dtype")
    elif fmt in ("nvfp4-pack-quantized", "mxfp4-pack-quantized"):
        scale_bits = 8   # the compressor casts the scales to fp8 e4m3 / uint8 (e8m0)
    else:
        scale_bits = 8 * base   # scales in the weight's own dtype
    symmetric = w.get("symmetric", True)
    extra = 0
    if strategy == "tensor_group":
        extra += 4           # weight_global_scale: float32 (1,)
    a = group.get("input_activations")
    if isinstance(a, dict) and a.get("dynamic") is not True:
        if a.get("strategy") == "tensor_group":
            extra += 4       # input_global_scale: float32 (1,)
        elif a.get("strategy") == "tensor" and a.get("dynamic") is False:
            extra += base    # a static input_scale in the weight's dtype
            if not a.get("symmetric", True):
                extra += 1   # and its int8 zero point
    packing = {"pack-quantized": "int32", "nvfp4-pack-quantized": "row",
               "mxfp4-pack-quantized": "row"}.get(fmt, "byte")
    if fmt == "pack-quantized":
        extra += 16          # weight_shape: torch.tensor(weight.shape), int64 (2,)
    gran = "group" if strategy == "tensor_group" else strategy
    if fmt == "nvfp4-pack-quantized":
        name = "nvfp4-ct" if isinstance(a, dict) and a.get("strategy") == "tensor_group" \
            else "nvfp4a16-ct"
    elif fmt == "mxfp4-pack-quantized":
        name = "mxfp4-ct"
    else:
        tag = {"tensor": "tensor", "channel": "channel",
               "block": f"block{block[0]}x{block[1]}" if block else ""}.get(gran, f"g{g}")
        box = "" if packing == "int32" or bits == 8 else "-in-int8" if kind == "int" else "-in-fp8"
        name = f"{'fp' if kind == 'float' else 'int'}{bits}-{tag}{box}-ct"
    return Scheme(name, f"{kind}{bits} values ({fmt}), {strategy} scales", bits, gran,
                  group=g, block=block, scale_bits=scale_bits,
                  zero_bits=0 if symmetric else bits,
                  index_bytes_per_input=4 if w.get("actorder") == "group" else 0,
                  compute_dtype="bf16" if not isinstance(a, dict) else
                  ("fp8" if kind == "float" and bits == 8 else
                   "int8" if kind == "int" and bits == 8 else "bf16"),
                  nominal={4: "int4", 8: "fp8" if kind == "float" else "int8"}[bits],
                  source=f"the model's quantization_config ({fmt}); {_CT_SRC}",
                  packing=packing, zero_packing="int32" if packing == "int32" else "byte",
                  tensor_bytes=extra)


# ModelOpt -----------------------------------------------------------------------------------

def _modelopt_scheme(algo, group, field):
    if algo in ("NVFP4", "W4A16_NVFP4", "W4A8_NVFP4_FP8"):
        g = group if group is not None else 16
        if g != 16:
            raise ConfigError(f"{field}.group_size: NVFP4 scales blocks of 16 values "
                              f"(got {g!r})")
        base = FORMATS["nvfp4" if algo != "W4A16_NVFP4" else "nvfp4-w4a16"]
        return base if algo != "W4A8_NVFP4_FP8" else Scheme(
            "nvfp4-w4a8", "NVFP4 weights, an fp8 input_scale (ModelOpt W4A8_NVFP4_FP8)", 4,
            "group", group=16, scale_bits=8, nominal="int4", packing="row",
            pad_to_group=True, tensor_bytes=8, source=_MODELOPT_SRC)
    if algo in ("MXFP4", "W4A8_MXFP4_FP8"):
        return Scheme("mxfp4-modelopt", "MXFP4 (ModelOpt): two e2m1 values a byte, a uint8 "
                      "(e8m0) scale per 32", 4, "group", group=32, scale_bits=8,
                      nominal="int4", packing="row",
                      tensor_bytes=4 if algo == "W4A8_MXFP4_FP8" else 0, source=_MODELOPT_SRC)
    if algo == "FP8":
        return Scheme("fp8-tensor-modelopt", "fp8 e4m3 values, fp32 weight_scale and "
                      "input_scale per matrix (ModelOpt FP8)", 8, "tensor", scale_bits=32,
                      compute_dtype="fp8", nominal="fp8", packing="byte", tensor_bytes=4,
                      source=_MODELOPT_SRC)
    if algo == "FP8_PER_CHANNEL_PER_TOKEN":
        return Scheme("fp8-channel-modelopt", "fp8 e4m3 values, an fp32 scale per output "
                      "channel (ModelOpt FP8_PER_CHANNEL_PER_TOKEN)", 8, "channel",
                      scale_bits=32, compute_dtype="fp8", nominal="fp8", packing="byte",
                      source=_MODELOPT_SRC)
    if algo == "FP8_PB_WO":
        return Scheme("fp8-block128-modelopt", "fp8 e4m3 values, an fp32 scale per 128x128 "
                      "block (ModelOpt FP8_PB_WO)", 8, "block", block=(128, 128),
                      scale_bits=32, compute_dtype="fp8", nominal="fp8", packing="byte",
                      source=_MODELOPT_SRC)
    raise ConfigError(f"{field}.quant_algo: {algo!r} is not sized here (NVFP4, W4A16_NVFP4, "
                      "W4A8_NVFP4_FP8, MXFP4, FP8, FP8_PER_CHANNEL_PER_TOKEN, FP8_PB_WO, "
                      "MIXED_PRECISION)")


def _modelopt(q, base):
    """ModelOpt's export: config.json's flat quantization_config (convert_hf_quant_config_format:
    quant_algo, ignore, kv_cache_scheme, config_groups, quantized_layers) or
    hf_quant_config.json's {"quantization": {quant_algo, exclude_modules,
    kv_cache_quant_algo, group_size, quantized_layers}}. Every Linear not excluded is
    quantized (the exclusions are the modules ModelOpt left alone, written out)."""
    inner = q.get("quantization") if isinstance(q.get("quantization"), dict) else {}
    field = "quantization_config" + (".quantization" if inner else "")
    get = (lambda k: inner.get(k, q.get(k))) if inner else q.get
    algo = get("quant_algo")
    group = get("group_size")
    if group is None:
        for g in (q.get("config_groups") or {}).values():
            group = ((g or {}).get("weights") or {}).get("group_size")
            break
    skip = tuple(get("exclude_modules") or q.get("ignore") or ())
    kv = get("kv_cache_quant_algo") or q.get("kv_cache_scheme")
    kv_scales = None
    if kv:
        kv_algo = kv if isinstance(kv, str) else ("FP8" if (kv.get("type"), kv.get("num_bits"))
                                                  == ("float", 8) else kv)
        if kv_algo != "FP8":
            raise ConfigError(f"{field}.kv_cache_quant_algo: {kv!r} is not sized here (FP8)")
        kv_scales = (1, 4)   # k_proj.k_scale and v_proj.v_scale: fp32 scalars
    if algo == "MIXED_PRECISION":
        layers = get("quantized_layers")
        if not isinstance(layers, dict) or not layers:
            raise ConfigError(f"{field}.quantized_layers: MIXED_PRECISION names the modules "
                              "it quantizes")
        rules = []
        for name, spec in layers.items():
            spec = spec if isinstance(spec, dict) else {}
            rules.append((name, _modelopt_scheme(spec.get("quant_algo"), spec.get("group_size"),
                                                 f"{field}.quantized_layers.{name}")))
        return _Recipe(rules[0][1], skip, base, rules=rules, linear=True, default=False,
                       kv_scales=kv_scales)
    return _Recipe(_modelopt_scheme(algo, group, field), skip, base, linear=True,
                   kv_scales=kv_scales)


# --- bytes as stored -------------------------------------------------------------------------

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


# a recipe whose patterns name layers is matched layer by layer: at most this many (real
# models have a few hundred; a what-if past it is refused in one line, not walked for minutes)
_MAX_WALKED_LAYERS = 10_000


def _skipped(name, patterns):
    """A tensor left unquantized: a glob (modules_to_not_convert, ModelOpt's exclusions,
    compressed-tensors' exact names) or, for compressed-tensors' ``ignore``, a ``re:``
    regular expression on the module name."""
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


def _rule_matches(module, pattern):
    if pattern.startswith("re:"):
        try:
            return re.match(pattern[3:], module) is not None
        except re.error:
            raise ConfigError(f"quantization_config: target {pattern!r} is not a regular "
                              "expression") from None
    return module == pattern or module.startswith(pattern + ".")


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


def _scheme_for(recipe, module, t, name):
    """The scheme that stores tensor ``t`` (module ``module``), or None: kept."""
    sch = recipe.scheme
    if not t.matmul:
        return None
    if not recipe.linear:
        if not (sch.quantizes and t.component not in KEEP_16BIT
                and (sch.targets == "linear" or t.routed)):
            return None
        return None if _skipped(name, recipe.skip) else sch
    if t.component == "embedding" or _skipped(name, recipe.skip):
        return None
    for pattern, rule in recipe.rules:
        if _rule_matches(module, pattern):
            return rule
    # a router is a Linear in some modelling code and not in others: quantized only when
    # a rule names it (every published recipe leaves it alone; vLLM loads it unquantized)
    return sch if recipe.default and sch.quantizes and t.component != "router" else None


def _check_divides(sch, in_f, module):
    if sch.granularity == "group" and not sch.pad_to_group and in_f % sch.group:
        raise ConfigError(f"quantization_config.group_size: {sch.group} does not divide the "
                          f"{in_f:,} inputs of {module} (vLLM's kernels need whole groups)")


def _module_of(name):
    return name[:-len(".weight")] if name.endswith(".weight") else name


def stored_weights(cfg, scheme=AS_SHIPPED, base_dtype=None):
    """Exact bytes of the weights under ``scheme``: ``"as shipped"`` reads the model's
    ``quantization_config`` and ``torch_dtype`` (fp8 blocks, mxfp4, AWQ/GPTQ,
    compressed-tensors: pack-quantized, int-/float-quantized, nvfp4- and
    mxfp4-pack-quantized, several config groups; ModelOpt: NVFP4, FP8, MXFP4, mixed
    precision, FP8 KV-cache scales); a name from :func:`list_schemes` or
    :func:`list_formats` (``"nvfp4"``, ``"gguf-q4_k_m"``...) or a :class:`Scheme` stores
    the model that way. Tensors a scheme does not convert are stored at ``base_dtype``
    (default: the config's ``torch_dtype``, else bf16). A tied ``lm_head`` is stored once.
    Buffers stored in the checkpoint (DeepSeek-V3's router bias) are counted in float32.
    A multimodal wrapper's vision and audio towers are kept at ``base_dtype`` under every
    scheme (quantized checkpoints leave them so)."""
    cfg = as_config(cfg)
    if isinstance(scheme, str) and scheme.lower() in GGUF_FTYPES:
        if base_dtype is not None:
            raise ConfigError("base_dtype: a GGUF file keeps its unquantized tensors in "
                              "float32 (norms, biases, routers); base_dtype does not apply")
        return gguf_weights(cfg, scheme)
    if isinstance(scheme, str) and scheme.lower() == AS_SHIPPED:
        recipe = _recipe(cfg)
    else:
        recipe = _Recipe(get_scheme(scheme), base=2)
    sch, base = recipe.scheme, recipe.base
    if base_dtype is not None:
        if str(base_dtype).lower() not in _DTYPE_BYTES:
            raise ConfigError(f"base_dtype: must be one of fp32, bf16, fp16 (got {base_dtype!r})")
        base = _DTYPE_BYTES[str(base_dtype).lower()]
    values = scales = kept = routed = buffers = 0
    patterns = list(recipe.skip) + [p for p, _ in recipe.rules]
    by_layer = any(isinstance(p, str) and any(ch.isdigit() for ch in p) for p in patterns)
    if by_layer and cfg.num_hidden_layers > _MAX_WALKED_LAYERS:
        raise ConfigError(f"quantization_config: its module patterns name layers, so the course "
                          f"walks the layers one by one, for at most {_MAX_WALKED_LAYERS:,} "
                          f"(got num_hidden_layers={cfg.num_hidden_layers:,})")
    prefix = layer_prefix(cfg)
    for idx, tensors in layer_groups(cfg):
        # one representative layer per group unless a pattern names a layer number
        reps = [(i, 1) for i in idx] if by_layer else [(idx[0], len(idx))]
        for i, n_layers in reps:
            lp = prefix.format(i=i, b=i // 2)
            if recipe.kv_scales:
                scales += _kv_scale_bytes(recipe, tensors, lp) * n_layers
            for t in tensors:
                copies = t.per_expert * n_layers
                name = lp + t.name.format(e=0)
                if t.buffer:
                    b = t.numel * 4 * copies
                    buffers += b
                    kept += b
                    continue
                m, out_f, in_f = _matrix_dims(t, in_out=cfg.layout.stored_in_out)
                q = _scheme_for(recipe, _module_of(name), t, name) if m else None
                if q is not None and q.quantizes:
                    if recipe.linear:
                        _check_divides(q, in_f, _module_of(name))
                    v, s = q.matrix_bytes(out_f, in_f)
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
        if t.tied:
            continue
        q = _scheme_for(recipe, _module_of(t.name), t, t.name) if recipe.linear else None
        m, out_f, in_f = _matrix_dims(t)
        if q is not None and q.quantizes and m:
            _check_divides(q, in_f, _module_of(t.name))
            v, s = q.matrix_bytes(out_f, in_f)
            values += v
            scales += s
        else:
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
    used = dict.fromkeys([s.name for _, s in recipe.rules if s is not None]
                         + ([sch.name] if recipe.default else []))
    label = sch.name if sch.quantizes else nominal
    if len(used) > 1:
        label = "mixed: " + ", ".join(sorted(used))
    return StoredWeights(model=cfg.name, scheme=label,
                         values=values, scales=scales, kept=kept, routed_experts=routed,
                         ideal=ideal, base_bytes=base, buffers=buffers)


def _kv_scale_bytes(recipe, tensors, lp):
    """k_scale and v_scale of one layer's attention, when the checkpoint quantizes its KV
    cache: on k_proj / v_proj (ModelOpt) or on self_attn (compressed-tensors)."""
    names = {t.name for t in tensors if t.component == "attention"}
    if not names:
        return 0
    if not (any(n.endswith("k_proj.weight") for n in names)
            and any(n.endswith("v_proj.weight") for n in names)):
        raise ConfigError(f"quantization_config: KV-cache scales of {lp}'s attention "
                          "(no k_proj and v_proj) are not sized here")
    n, each = recipe.kv_scales
    return 2 * n * each


# --- GGUF: llama.cpp's mixtures ----------------------------------------------------------------
# Block sizes (values per block, bytes per block) of ggml's types, ggml/src/ggml-common.h:
# block_q8_0 = fp16 d + 32 int8 (34 B); block_q4_K = fp16 d, dmin + 12 B scales + 128 B (144 B
# per 256); block_q5_K = + 32 B high bits (176 B); block_q6_K = 128 B low + 64 B high + 16 B
# int8 scales + fp16 d (210 B); q5_0 = fp16 + 4 B + 16 B (22 B per 32); q5_1 = 24 B.
GGML_TYPES = {"F32": (1, 4, 32), "F16": (1, 2, 16), "BF16": (1, 2, 16),
              "Q4_0": (32, 18, 4), "Q5_0": (32, 22, 5), "Q5_1": (32, 24, 5),
              "Q8_0": (32, 34, 8), "Q4_K": (256, 144, 4), "Q5_K": (256, 176, 5),
              "Q6_K": (256, 210, 6)}
GGUF_FTYPES = {"gguf-q4_k_m": "Q4_K_M", "gguf-q5_k_m": "Q5_K_M", "gguf-q8_0": "Q8_0"}
_GGUF_DEFAULT = {"Q4_K_M": "Q4_K", "Q5_K_M": "Q5_K", "Q8_0": "Q8_0"}
_FALLBACK = {"Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}
GGUF_SOURCE = (
    "llama.cpp src/llama-quant.cpp as rewritten around tensor_category (ggml-org/llama.cpp "
    "PR #19770; n_attention_wv counted before the types are chosen since PR #20357, merged "
    "2026-03-10): llama_tensor_get_type_impl, tensor_type_fallback, "
    "tensor_allows_quantization; the same rules for Q4_K_M/Q5_K_M/Q8_0 as @8784689f (2025) "
    "but for a fused attn_qkv, now an attn_v-like tensor; convert_hf_to_gguf.py writes 1-D "
    "tensors, biases and ffn_gate_inp in F32")
# the families whose tensors are named here as llama.cpp's converter names them
_GGUF_NAMES = (("self_attn.q_proj.weight", "attn_q.weight"),
               ("self_attn.k_proj.weight", "attn_k.weight"),
               ("self_attn.v_proj.weight", "attn_v.weight"),
               ("self_attn.o_proj.weight", "attn_output.weight"),
               ("self_attn.qkv_proj.weight", "attn_qkv.weight"),
               ("mlp.gate_up_proj.weight", "ffn_up.weight"),
               ("mlp.gate_proj.weight", "ffn_gate.weight"),
               ("mlp.up_proj.weight", "ffn_up.weight"),
               ("mlp.down_proj.weight", "ffn_down.weight"),
               ("mlp.experts.{e}.gate_proj.weight", "ffn_gate_exps.weight"),
               ("mlp.experts.{e}.up_proj.weight", "ffn_up_exps.weight"),
               ("mlp.experts.{e}.down_proj.weight", "ffn_down_exps.weight"),
               ("block_sparse_moe.experts.{e}.w1.weight", "ffn_gate_exps.weight"),
               ("block_sparse_moe.experts.{e}.w3.weight", "ffn_up_exps.weight"),
               ("block_sparse_moe.experts.{e}.w2.weight", "ffn_down_exps.weight"),
               ("mlp.gate.weight", "ffn_gate_inp.weight"),
               ("block_sparse_moe.gate.weight", "ffn_gate_inp.weight"))


# 1-D tensors (F32 whatever the mixture): llama.cpp's names, for the listing only
_GGUF_1D = {"input_layernorm.weight": "attn_norm.weight",
            "post_attention_layernorm.weight": "ffn_norm.weight",
            "self_attn.q_norm.weight": "attn_q_norm.weight",
            "self_attn.k_norm.weight": "attn_k_norm.weight",
            "self_attn.q_proj.bias": "attn_q.bias", "self_attn.k_proj.bias": "attn_k.bias",
            "self_attn.v_proj.bias": "attn_v.bias"}


class GgufTensor(NamedTuple):
    """One tensor of a GGUF file: llama.cpp's name, its ``ne`` (row length first), type,
    bytes."""
    name: str
    ne: tuple
    type: str
    nbytes: int


def _ggml_bytes(gtype, ne):
    blck, size, _ = GGML_TYPES[gtype]
    rows = 1
    for d in ne[1:]:
        rows *= d
    return rows * (ne[0] // blck) * size


def _use_more_bits(i, n):
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _gguf_ftype(ftype):
    key = str(ftype).lower()
    key = key if key.startswith("gguf-") else "gguf-" + key
    if key not in GGUF_FTYPES:
        raise ConfigError(f"weights: GGUF type {ftype!r} is not sized here; choose one of "
                          f"{', '.join(GGUF_FTYPES.values())}")
    return GGUF_FTYPES[key]


def gguf_tensors(cfg, ftype="Q4_K_M"):
    """Every tensor of the GGUF file ``llama-quantize`` writes for ``ftype`` (``"Q4_K_M"``,
    ``"Q5_K_M"``, ``"Q8_0"``) from the model's 16-bit GGUF: ``[GgufTensor(name, ne, type,
    nbytes), ...]`` in the file's order. llama.cpp's rule (``llama_tensor_get_type``):
    2-D weights take the mixture's type (Q4_K for Q4_K_M, Q5_K for Q5_K_M, Q8_0); the
    output head Q6_K (Q8_0 stays Q8_0), and a tied embedding with it; for the _M
    mixtures ``attn_v`` (and a fused ``attn_qkv``) and ``ffn_down`` of the layers
    ``use_more_bits`` picks (the first and last eighth, every third between) Q6_K; 8-expert models (Mixtral) keep attn_v and
    attn_k in Q8_0 and, for Q4_K_M, attn_output in Q5_K; 80-layer Llama/Qwen2 (LLM_TYPE_70B)
    raise a Q4_K attn_v to Q5_K; a row not divisible by the block falls back (Q4_K ->
    Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0). Norms, biases and routers stay F32. Source:
    :data:`GGUF_SOURCE`."""
    cfg = as_config(cfg)
    mix = _gguf_ftype(ftype)
    arch = family_of(cfg.model_type).gguf
    if arch is None or cfg.layout.block != "decoder":
        sized = sorted(mt for mt, e in ENTRIES.items() if e.gguf)
        raise ConfigError(f"weights: GGUF {mix} is sized here for model_type "
                          f"{', '.join(sized)} (got {cfg.model_type!r})")
    raw = cfg.to_hf_config()
    names = dict(_GGUF_NAMES)
    L = cfg.num_hidden_layers
    n_expert = cfg.get("num_local_experts") or cfg.get("num_experts") or 0
    # LLM_TYPE_70B: 80 layers of llama.cpp's llama or qwen2 architecture, grouped query heads
    big = ("llama", "qwen2")   # llama.cpp's architectures, not model types
    is_70b = L == 80 and arch in big and cfg.num_attention_heads != cfg.num_key_value_heads
    default = _GGUF_DEFAULT[mix]
    layers = []
    for idx, tensors in layer_groups(cfg):
        for i in idx:
            layers.append((i, tensors))
    layers.sort(key=lambda x: x[0])
    rows = []            # (layer, gguf name, ne, role)
    for i, tensors in layers:
        for t in tensors:
            if t.buffer:
                raise ConfigError(f"weights: GGUF {mix}: the buffer {t.name} is not sized here")
            if len(t.shape) == 1:                 # norms, biases: F32
                rows.append((i, f"blk.{i}.{_GGUF_1D.get(t.name, t.name)}", (t.shape[0],), "F32"))
                continue
            gname = names.get(t.name)
            if gname is None:
                raise ConfigError(f"weights: GGUF {mix}: no llama.cpp name for {t.name} of "
                                  f"model_type {cfg.model_type!r}")
            out_f, in_f = t.shape
            ne = (in_f, out_f, t.per_expert) if t.per_expert > 1 else (in_f, out_f)
            rows.append((i, f"blk.{i}.{gname}", ne, "matrix"))
    glob = []
    has_output = False
    for t in global_tensors(cfg):
        if t.tied:
            continue
        if t.component == "embedding":
            glob.append(("token_embd.weight", (t.shape[1], t.shape[0]), "matrix"))
        elif t.component == "lm_head":
            has_output = True
            glob.append(("output.weight", (t.shape[1], t.shape[0]), "matrix"))
        elif len(t.shape) == 1:
            glob.append(("output_norm.weight", t.shape, "F32"))
        else:
            raise ConfigError(f"weights: GGUF {mix}: no llama.cpp name for {t.name}")
    rope = (raw.get("rope_scaling") or raw.get("rope_parameters") or {})
    if isinstance(rope, dict) and rope.get("rope_type") == "llama3":
        # convert_hf_to_gguf.py's LlamaModel.generate_extra_tensors: rope_freqs, F32, head_dim/2
        glob.append(("rope_freqs.weight", (cfg.head_dim // 2,), "F32"))
    n_attn_v = sum(1 for _, n, _, r in rows if n.endswith(("attn_v.weight", "attn_qkv.weight")))
    out = []
    i_attn_v = 0
    i_ffn_down = 0

    def pick(name, ne, layer):
        nonlocal i_attn_v, i_ffn_down
        nx = ne[0]
        if name == "output.weight" or (not has_output and name == "token_embd.weight"):
            if nx % GGML_TYPES[default][0]:
                return "Q8_0"
            return default if default == "Q8_0" else "Q6_K"
        if name == "token_embd.weight" or name.endswith("ffn_gate_inp.weight"):
            if name.endswith("ffn_gate_inp.weight"):
                return "F32"
            new = default
        elif name.endswith("attn_v.weight") or name.endswith("attn_qkv.weight"):
            # since the 2026 rewrite a fused attn_qkv is an attn_v-like tensor
            # (category_is_attn_v); 2025's rule gave it Q5_K / Q6_K outright
            new = default
            if mix in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i_attn_v, n_attn_v):
                new = "Q6_K"
            if is_70b and new == "Q4_K":
                new = "Q5_K"
            if n_expert == 8:
                new = "Q8_0"
            i_attn_v += 1
        elif name.endswith("attn_k.weight"):
            new = "Q8_0" if n_expert == 8 else default
        elif "ffn_down" in name:
            i_layer = layer if n_expert > 1 else i_ffn_down
            new = default
            if mix in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i_layer, L):
                new = "Q6_K"
            i_ffn_down += 1
        elif name.endswith("attn_output.weight"):
            new = "Q5_K" if n_expert == 8 and mix == "Q4_K_M" else default
        else:
            new = default
        if nx % GGML_TYPES[new][0]:
            new = _FALLBACK.get(new, "F16")
            if nx % GGML_TYPES[new][0]:
                new = "F16"
        return new

    for name, ne, role in glob:     # token_embd, output_norm, output... sort before blk.*
        out.append(GgufTensor(name, ne, "F32" if role == "F32" else pick(name, ne, -1), 0))
    for layer, name, ne, role in rows:
        out.append(GgufTensor(name, ne, "F32" if role == "F32" else pick(name, ne, layer), 0))
    return [t._replace(nbytes=_ggml_bytes(t.type, t.ne)) for t in out]


def gguf_weights(cfg, ftype="Q4_K_M"):
    """The tensors' bytes of a GGUF file (:func:`gguf_tensors`) as :class:`StoredWeights`:
    ``values`` = each quantized tensor's values at its type's bits (4 for Q4_K, 6 for Q6_K,
    8 for Q8_0...), ``scales`` = the rest of its blocks (block scales and minimums),
    ``kept`` = the F32/F16 tensors. The file adds its metadata (tokenizer, settings) and
    alignment padding, not counted. ``ideal``: every parameter at the mixture's nominal
    width (4, 5 or 8 bits), no scales."""
    cfg = as_config(cfg)
    mix = _gguf_ftype(ftype)
    values = scales = kept = routed = 0
    for t in gguf_tensors(cfg, mix):
        blck, size, bits = GGML_TYPES[t.type]
        n = 1
        for d in t.ne:
            n *= d
        if blck == 1:
            kept += t.nbytes
            v = t.nbytes
        else:
            v = n * bits // 8
            values += v
            scales += t.nbytes - v
        if "_exps." in t.name:
            routed += t.nbytes
    nominal = {"Q4_K_M": 4, "Q5_K_M": 5, "Q8_0": 8}[mix]
    ideal = -(-param_count(cfg).total * nominal // 8)
    return StoredWeights(model=cfg.name, scheme=f"GGUF {mix}", values=values, scales=scales,
                         kept=kept, routed_experts=routed, ideal=ideal, base_bytes=4,
                         buffers=0)
