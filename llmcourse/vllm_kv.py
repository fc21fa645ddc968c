"""The KV cache as vLLM's V1 engine lays it out on one GPU: the cache dtypes of each release,
the layers' pages, the KV cache groups, and the two figures the startup log prints.

vLLM does not size "a cache of N tokens". It gives every layer a *spec*
(``vllm/v1/kv_cache_interface.py``): a full-attention, sliding-window, chunked or MLA layer
keeps ``block_size`` tokens per page, a Mamba-2 or Gated-DeltaNet layer keeps one page of
fixed state per request. ``vllm/v1/core/kv_cache_utils.py`` then

1. makes every page the same size: a smaller attention page gets a larger block
   (``unify_kv_cache_spec_page_size``); a hybrid model's attention block is raised until its
   page holds a whole Mamba state, and the state page is padded up to it
   (``HybridAttentionMambaModelConfig.verify_and_update_config``: "Setting attention block
   size to N tokens");
2. splits the layers into *groups* of equal size, one kind per group, padding the last group
   of a kind ("Add 2 padding layers, may waste at most 6.67% KV cache memory";
   ``_get_kv_cache_groups_uniform_page_size``): the group size is the fewest layers of any
   kind, or the most when that is under 1.25 times the fewest;
3. cuts the budget into ``num_blocks = available // page // group_size`` blocks, one pool
   every group draws from;
4. logs ``Maximum concurrency`` as ``num_blocks`` over the blocks one request of
   ``max_model_len`` takes from every group (``get_max_concurrency_for_kv_cache_config``):
   a full-attention group ``cdiv(max_model_len, block)``, a sliding group only its window
   plus ``max_num_batched_tokens`` (``cdiv(min(window - 1 + T, max_model_len), block) + 1``),
   a chunked group ``cdiv(min(chunk + T, max_model_len), block)``, a state group one page;
5. logs ``GPU KV cache size`` in tokens: ``num_blocks // groups x smallest block`` up to
   vLLM 0.21, ``int(max_concurrency x max_model_len)`` since 0.22 (the two agree for a model
   with one group; for gpt-oss they differ by 2x).

Cache dtypes (:data:`KV_CACHE_DTYPES`), bytes per token and KV head as the page holds them:
16-bit ``2 x 2 x head_dim``; fp8 (e4m3 or e5m2, one per-tensor scale outside the page)
``2 x head_dim``; ``int8_per_token_head`` and ``fp8_per_token_head`` one byte a value plus an
fp32 scale per token and head for K and for V, ``2 x (head_dim + 4)`` (vLLM PR 38378,
``AttentionSpec.page_size_bytes``); ``int4_per_token_head`` two values a byte plus the same
scales, ``2 x (head_dim / 2 + 4)`` (vLLM PR 40835); ``nvfp4`` two values a byte plus an fp8
scale per 16, ``2 x (head_dim / 2 + head_dim / 16)`` (vLLM PRs 37332 and 40177,
``nvfp4_kv_cache_full_dim``). Each has the first release that accepts it; an older release
refuses it in one line.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .config import ConfigError
from .zoo import as_config

__all__ = ["KV_CACHE_DTYPES", "KvCacheDtype", "kv_cache_dtype", "kv_dtype_names",
           "LayerSpec", "KvGroup", "KvCacheLayout", "kv_cache_layout"]


def _minor(version):
    return int(str(version).split(".")[1])


class KvCacheDtype(NamedTuple):
    """One ``--kv-cache-dtype`` of vLLM: bytes per value, the scales the page holds, the first
    release that accepts it and where that is written."""
    name: str
    value_bits: int       # bits of one cached K or V value
    scale_bytes: int      # bytes of scale per token, KV head and K or V, kept in the page
    block_scale: int      # values per fp8 block scale stored with the values (nvfp4: 16)
    since: str            # first release that accepts it ("0.10": every modelled release)
    source: str
    backend: str = ""     # the attention backend that reads it, where only one does
    mla: bool = True      # whether vLLM's MLA backends take it

    def bytes_per_token_head(self, head_dim, head_dim_v=None):
        """Bytes one token adds for one KV head in one layer: K and V values and scales."""
        hv = head_dim if head_dim_v is None else head_dim_v
        out = 0
        for hd in (head_dim, hv):
            out += hd * self.value_bits // 8 + self.scale_bytes
            if self.block_scale:
                out += hd // self.block_scale
        return out


_PR = "https://github.com/vllm-project/vllm/pull/"
KV_CACHE_DTYPES = {d.name: d for d in (
    KvCacheDtype("auto", 16, 0, 0, "0.10", "the model's dtype (vllm/config/cache.py)"),
    KvCacheDtype("bfloat16", 16, 0, 0, "0.10", "vllm/config/cache.py CacheDType"),
    KvCacheDtype("float16", 16, 0, 0, "0.10", "vllm/config/cache.py CacheDType"),
    KvCacheDtype("fp8", 8, 0, 0, "0.10",
                 "vllm/config/cache.py CacheDType (fp8 = fp8_e4m3 on CUDA; per-tensor scales "
                 "outside the page)"),
    KvCacheDtype("fp8_e4m3", 8, 0, 0, "0.10", "vllm/config/cache.py CacheDType"),
    KvCacheDtype("fp8_e5m2", 8, 0, 0, "0.10", "vllm/config/cache.py CacheDType"),
    KvCacheDtype("int8_per_token_head", 8, 4, 0, "0.20",
                 _PR + "38378 (March 2026; in v0.21.0's triton_attn.py, not in v0.18.1's): "
                 "an fp32 scale per token and KV head for K and for V, counted in the page "
                 "(AttentionSpec.page_size_bytes)", "TRITON_ATTN", False),
    KvCacheDtype("fp8_per_token_head", 8, 4, 0, "0.20", _PR + "38378 (as int8_per_token_head)",
                 "TRITON_ATTN", False),
    KvCacheDtype("int4_per_token_head", 4, 4, 0, "0.24",
                 _PR + "40835 (merged June 2026; in v0.26.0's triton_attn.py, not in "
                 "v0.21.0's): two values a byte (head_dim // 2) plus the fp32 scales",
                 "TRITON_ATTN", False),
    KvCacheDtype("nvfp4", 4, 0, 16, "0.21",
                 _PR + "37332 and " + _PR + "40177 (April 2026): fp4 values and an fp8 scale "
                 "per 16 in the page (head_dim // 2 + head_dim // 16 bytes per head); the "
                 "per-tensor global scales sit outside it", "FLASHINFER (trtllm-gen, SM100)",
                 False),
)}
# what a reader may type for one of them
_ALIASES = {"bf16": "bfloat16", "fp16": "float16", "half": "float16", "fp8_e4m3fn": "fp8_e4m3"}
def _layout_not_modelled(cfg):
    """What of a model's cache vLLM lays out in a way the course does not model (then the
    layout is refused), read off its layer kinds and layout; None where it is modelled."""
    kinds = {k.attention for k in cfg.layer_schedule.counts()}
    if "indexed_attention" in kinds:
        return ("the sparse-attention caches (fp8_ds_mla pages and the indexer's keys in their "
                "own group)" if cfg.layout.indexer == "lightning" else
                "the block-sparse attention's indexer keys" if cfg.layout.indexer == "block_max"
                else "the indexed attention beside its linear-attention state")
    if kinds & {"compressed_sparse_attention", "heavily_compressed_attention"}:
        return "the window and compressed caches"
    if "linear_attention" in kinds and cfg.layout.linear_attention == "kda":
        return "the Kimi Delta Attention state beside its MLA cache"
    if "conv" in kinds:
        return "the short-convolution state"
    if cfg.layout.layer_state:
        return "the fixed state its attention layers keep beside K and V"
    if cfg.layout.value_head_dim or any(k.own_fields for k in cfg.layer_schedule.counts()):
        return "the per-layer head shapes (V narrower than K, or a layer's own heads)"
    return None


def kv_dtype_names():
    """The ``--kv-cache-dtype`` values the course models, in vLLM's spelling."""
    return list(KV_CACHE_DTYPES)


def kv_cache_dtype(name, vllm_version, mla=False, gpu=None):
    """The :class:`KvCacheDtype` vLLM ``vllm_version`` takes for ``name`` (its own spelling, or
    ``bf16``/``fp16``); a one-line ConfigError naming the release when it lacks the dtype, when
    an MLA model cannot take it, or when the GPU cannot (nvfp4 runs on SM100 only)."""
    key = str(name).lower()
    key = _ALIASES.get(key, key)
    if key not in KV_CACHE_DTYPES:
        hint = ""
        if key in ("int8", "int4"):
            hint = f"; vLLM names it '{key}_per_token_head'"
        raise ConfigError(f"kv_cache_dtype: vLLM's are {', '.join(KV_CACHE_DTYPES)} "
                          f"(got {name!r}{hint})")
    d = KV_CACHE_DTYPES[key]
    if _minor(vllm_version) < _minor(d.since):
        raise ConfigError(f"kv_cache_dtype: vLLM {vllm_version} has no '{d.name}' cache; it "
                          f"came in {d.since} ({d.source.split(' (')[0]})")
    if mla and not d.mla:
        raise ConfigError(f"kv_cache_dtype: vLLM's MLA backends take auto or fp8, not "
                          f"'{d.name}' ({d.backend} reads it)")
    if d.name == "nvfp4" and gpu is not None:
        cc = getattr(gpu, "compute_capability", None)
        if cc is not None and int(float(cc)) != 10:
            raise ConfigError(f"kv_cache_dtype: vLLM's nvfp4 cache runs on SM100 GPUs (B200, "
                              f"B300) through FlashInfer's trtllm-gen kernels; {gpu.name} is "
                              f"compute capability {cc} (vllm issue 49011)")
    return d


class LayerSpec(NamedTuple):
    """One layer's cache spec on this GPU (vLLM's KVCacheSpec, simplified)."""
    kind: str             # "full", "sliding", "chunked", "mla", "state"
    page_bytes: int       # bytes of one page of ``block_size`` tokens (the state: one page)
    block_size: int       # tokens per page (0 for a state layer)
    window: int = 0       # sliding window or chunk size (a state layer: pages per request)
    bytes_per_token: int = 0   # attention: bytes a token takes in this layer; state: 0

    def blocks_per_request(self, max_model_len, max_num_batched_tokens):
        """Pages one request of ``max_model_len`` takes in this layer (max_memory_usage_bytes
        over the page size)."""
        bs = self.block_size
        if self.kind == "state":   # MambaSpec: 1 page ("none"), 2 with prefix caching ("align")
            return self.window or 1
        if self.kind == "sliding":
            n = min(self.window - 1 + max_num_batched_tokens, max_model_len)
            return -(-n // bs) + 1
        if self.kind == "chunked":
            return -(-min(self.window + max_num_batched_tokens, max_model_len) // bs)
        return -(-max_model_len // bs)


class KvGroup(NamedTuple):
    """One KV cache group: ``layers`` layers of one spec (``padding`` of them empty)."""
    spec: LayerSpec
    layers: int
    padding: int = 0


class KvCacheLayout(NamedTuple):
    """The KV cache of one GPU as vLLM lays it out (its KVCacheConfig, before the budget)."""
    groups: tuple             # KvGroup, in the order vLLM builds them
    group_size: int           # layers per group: the pool holds group_size tensors
    page_bytes: int           # every page's size, after unifying
    attention_block_size: int
    state_padding_pct: float = 0.0   # how much a state page was padded to the attention page
    note: str = ""

    @property
    def padding_layers(self):
        return sum(g.padding for g in self.groups)

    def num_blocks(self, available_bytes):
        """Blocks the pool holds for ``available_bytes`` of KV cache memory."""
        if available_bytes <= 0:
            return 0
        return available_bytes // self.page_bytes // self.group_size

    def blocks_per_request(self, max_model_len, max_num_batched_tokens):
        return sum(g.spec.blocks_per_request(max_model_len, max_num_batched_tokens)
                   for g in self.groups)

    def max_concurrency(self, num_blocks, max_model_len, max_num_batched_tokens):
        """vLLM's "Maximum concurrency for N tokens per request" (a float, as it logs it
        with ``%.2fx``)."""
        return num_blocks / self.blocks_per_request(max_model_len, max_num_batched_tokens)

    def logged_tokens(self, num_blocks, max_model_len, max_num_batched_tokens, by_concurrency):
        """vLLM's "GPU KV cache size: N tokens": ``num_blocks // groups x smallest block``
        (``by_concurrency`` False, up to 0.21), or ``int(max_concurrency x max_model_len)``."""
        if by_concurrency:
            return int(self.max_concurrency(num_blocks, max_model_len, max_num_batched_tokens)
                       * max_model_len)
        blocks = [g.spec.block_size for g in self.groups if g.spec.block_size]
        return num_blocks // len(self.groups) * min(blocks)

    def bytes_needed(self, max_model_len, max_num_batched_tokens):
        """Bytes one request of ``max_model_len`` needs (check_enough_kv_cache_memory: every
        real layer's max_memory_usage_bytes)."""
        return sum((g.layers - g.padding) * g.spec.blocks_per_request(
            max_model_len, max_num_batched_tokens) * self.page_bytes for g in self.groups)

    def __repr__(self):
        kinds = ", ".join(f"{g.spec.kind} x {g.layers}" + (f" ({g.padding} padding)"
                                                            if g.padding else "")
                          for g in self.groups)
        return (f"KvCacheLayout({len(self.groups)} group(s) of {self.group_size} layers: "
                f"{kinds}; page {self.page_bytes:,} B, attention block "
                f"{self.attention_block_size} tokens)")


def _dtype_bytes(name):
    return {"float32": 4, "fp32": 4, "bfloat16": 2, "bf16": 2, "float16": 2, "fp16": 2}.get(
        str(name).replace("torch.", "").lower(), 2)


def _state_page(cfg, kind, tp, model_bytes, ssm_bytes):
    """Bytes of one request's state in one Mamba-2 or Gated-DeltaNet layer on this GPU, as
    vLLM's MambaStateShapeCalculator shapes it: the convolution keeps ``kernel - 1`` inputs,
    in the model's dtype; the recurrent state is in the ssm dtype."""
    from . import counts
    if kind == "linear_attention":
        vh, kd, vd, kh = counts._delta_heads(cfg)
        conv_dim = 2 * kh * kd + vh * vd
        conv = conv_dim // tp * (cfg.linear_conv_kernel_dim - 1)
        return conv * model_bytes + (vh // tp) * kd * vd * ssm_bytes
    m = counts.mamba_dims(cfg)
    groups = m.groups if m.groups % tp == 0 else m.groups + (tp - m.groups)
    conv_dim = m.heads * m.head_dim + 2 * groups * m.state
    conv = (m.kernel - 1) * (conv_dim // tp)
    return conv * model_bytes + (m.heads // tp) * m.head_dim * m.state * ssm_bytes


def _stage_layers(n, pp):
    """(start, stop) of the fullest pipeline stage, as vllm.distributed.utils.get_pp_indices
    splits ``n`` layers (the remainder goes to the stages before the last)."""
    sizes = [n // pp] * pp
    for i in range(2, n % pp + 2):
        sizes[-i] += 1
    k = sizes.index(max(sizes))
    start = sum(sizes[:k])
    return start, start + sizes[k]


def kv_cache_layout(cfg, tensor_parallel_size=1, pipeline_parallel_size=1, kv_dtype=None,
                    block_size=16, model_dtype_bytes=2, mamba_ssm_bytes=None,
                    alignment=16, state_pages=1, hybrid_manager=True):
    """The :class:`KvCacheLayout` of the fullest GPU: ``kv_dtype`` a :class:`KvCacheDtype`
    (16-bit if None), ``model_dtype_bytes`` the model's own dtype (the KV of ``auto`` and the
    convolution state), ``mamba_ssm_bytes`` the recurrent state's (default: the config's
    ``mamba_ssm_dtype``, else the model's), ``alignment`` the attention kernel's block
    multiple vLLM rounds a hybrid model's block to (16), ``state_pages`` the pages a request
    takes in a state layer (``MambaSpec.max_memory_usage_bytes``: 1 with
    ``mamba_cache_mode`` "none", 2 with "align", vLLM's mode when prefix caching is on).

    ``hybrid_manager=False``: vLLM's hybrid KV cache manager off (``--disable-hybrid-kv-cache-
    manager``, or turned off by vLLM itself, e.g. with ``--kv-transfer-config``; the log says
    "Hybrid KV cache manager is disabled for this hybrid model"). ``unify_hybrid_kv_cache_specs``
    then makes every sliding or chunked layer a full-attention one, which takes the whole
    ``max_model_len`` (``FullAttentionSpec.max_memory_usage_bytes`` ignores the window), and
    one group holds every layer: a block is one page of each layer (``UniformTypeKVCacheSpecs``
    where the layers' shapes differ). A model with state layers cannot run so (a one-line
    error)."""
    cfg = as_config(cfg)
    what = _layout_not_modelled(cfg)
    if what:
        raise ConfigError(f"model: vLLM's cache layout for {what} ({cfg.name}) is not "
                          f"modelled here")
    tp, pp = tensor_parallel_size, pipeline_parallel_size
    d = kv_dtype or KV_CACHE_DTYPES["auto"]
    value_bytes_16 = model_dtype_bytes if d.value_bits == 16 else None
    if mamba_ssm_bytes is None:
        mamba_ssm_bytes = _dtype_bytes(cfg.get("mamba_ssm_dtype")) if cfg.get(
            "mamba_ssm_dtype") else model_dtype_bytes
    start, stop = _stage_layers(cfg.num_hidden_layers, pp)
    kinds = cfg.layer_schedule.counts_between(start, stop)
    specs = {}   # LayerSpec -> number of layers
    from .counts import kv_values_per_token
    for kind, n in kinds.items():
        if kind.kv_shared or kind.attention in ("none",):
            continue
        if kind.attention in ("linear_attention", "mamba"):  # layer kinds, not model types
            page = _state_page(cfg, kind.attention, tp, model_dtype_bytes, mamba_ssm_bytes)
            spec = LayerSpec("state", page, 0, state_pages)
        elif kind.attention in ("full_attention", "sliding_attention", "chunked_attention"):
            if cfg.uses_mla:
                head = kv_values_per_token(cfg, kind)   # one latent + RoPE key, no heads
                per_token = head * value_bytes_16 if value_bytes_16 else \
                    head * d.value_bits // 8
            else:
                kvh = kind.kv_heads or cfg.num_key_value_heads
                hd = kind.head_dim or cfg.head_dim
                heads = max(1, kvh // tp)   # a replica of one head when tp exceeds them
                if value_bytes_16:
                    per_token = heads * 2 * hd * value_bytes_16
                else:
                    per_token = heads * d.bytes_per_token_head(hd)
            kind_name = {"full_attention": "mla" if cfg.uses_mla else "full",
                         "sliding_attention": "sliding",
                         "chunked_attention": "chunked"}[kind.attention]
            window = (cfg.sliding_window if kind_name == "sliding" else
                      cfg.attention_chunk_size if kind_name == "chunked" else 0)
            spec = LayerSpec(kind_name, per_token * block_size, block_size, window, per_token)
        else:
            raise ConfigError(f"model: vLLM's cache for {kind.attention} layers is not "
                              f"modelled here ({cfg.name})")
        specs[spec] = specs.get(spec, 0) + n
    if not specs:
        raise ConfigError(f"model: {cfg.name} keeps no KV cache on this GPU")
    if not hybrid_manager and len({s.kind for s in specs}) > 1:
        if any(s.kind == "state" for s in specs):
            raise ConfigError(f"hybrid_kv_cache_manager: {cfg.name} has Mamba or linear-"
                              f"attention layers, which vLLM cannot cache with the hybrid KV "
                              f"cache manager off")
        full = {s._replace(kind="mla" if s.kind == "mla" else "full", window=0)
                for s in specs}
        n = sum(specs.values())
        if len(full) == 1:
            spec, = full
            return KvCacheLayout((KvGroup(spec, n),), n, spec.page_bytes, block_size,
                                 note="hybrid KV cache manager off")
        per_token = sum(s.bytes_per_token * k for s, k in specs.items())
        one = LayerSpec("full", per_token * block_size, block_size, 0, per_token)
        return KvCacheLayout((KvGroup(one, 1),), 1, one.page_bytes, block_size,
                             note=f"hybrid KV cache manager off: {n} layers of different "
                                  f"shapes in one group")
    # a hybrid model: raise the attention block until its page holds one state page
    attn = [s for s in specs if s.kind != "state"]
    states = [s for s in specs if s.kind == "state"]
    attn_block, pad_pct = block_size, 0.0
    if states and attn:
        state_page = max(s.page_bytes for s in states)
        one_token = max(s.bytes_per_token for s in attn)
        need = alignment * -(-state_page // (alignment * one_token))
        if need > block_size:
            attn_block = need
        new = {}
        for s, n in specs.items():
            if s.kind != "state":
                s = s._replace(block_size=attn_block, page_bytes=s.bytes_per_token * attn_block)
            new[s] = new.get(s, 0) + n
        specs = new
        attn_page = max(s.page_bytes for s in specs if s.kind != "state")
        pad_pct = 100 * (attn_page - state_page) / state_page
        specs = {(s._replace(page_bytes=attn_page) if s.kind == "state" else s): n
                 for s, n in specs.items()}
    # unify the attention pages: a smaller page gets a larger block (page sizes must divide)
    pages = {s.page_bytes for s in specs}
    if len(pages) > 1:
        top = max(pages)
        new = {}
        for s, n in specs.items():
            if s.page_bytes != top:
                if top % s.page_bytes or s.kind == "state":
                    raise ConfigError(f"model: vLLM cannot unify {cfg.name}'s page sizes "
                                      f"({sorted(pages)} B); not modelled here")
                ratio = top // s.page_bytes
                s = s._replace(block_size=s.block_size * ratio, page_bytes=top)
            new[s] = new.get(s, 0) + n
        specs = new
    page = next(iter(specs)).page_bytes
    counts_ = list(specs.values())
    if len(specs) == 1:
        (spec, n), = specs.items()
        return KvCacheLayout((KvGroup(spec, n),), n, page, spec.block_size or attn_block)
    group_size = min(counts_)
    if max(counts_) < group_size * 1.25:
        group_size = max(counts_)
    groups = []
    for spec, n in specs.items():
        k = -(-n // group_size)
        pad = k * group_size - n
        for i in range(k):
            groups.append(KvGroup(spec, group_size, pad if i == k - 1 else 0))
    return KvCacheLayout(tuple(groups), group_size, page, attn_block, pad_pct)
