"""Exact counts from a config: parameters, weight shapes, bytes, KV cache and FLOPs.

All functions take a :class:`~llmcourse.config.ModelConfig` (or anything
:func:`~llmcourse.config.from_hf_config` reads) and return exact integers.
pandas is imported only by the functions that return a table.
"""

from __future__ import annotations

from fractions import Fraction
from math import prod

from .architectures import (COMPONENTS, EXTRA_FLOPS, LAYER_STATES, MATMUL_EXTRAS,
                            global_tensors, layer_config, layer_groups, layer_prefix, mamba_dims,
                            mtp_tensors)
from .config import ConfigError
from .limits import MAX_WEIGHT_ROWS, show
from .towers import checkpoint_name, tower_tensors
from .zoo import as_config

__all__ = ["ParamCount", "param_count", "weight_shapes", "weight_bytes", "kv_cache_bytes",
           "kv_cache_bytes_per_token_per_layer", "linear_state_bytes", "FlopCount",
           "flops_per_token", "BITS_PER_PARAM", "dtype_bits", "indexer_cache_bytes_per_token",
           "compressed_cache_values"]

# Storage cost of one parameter. mxfp4: 4-bit values plus one 8-bit scale per
# block of 32 values = 4 + 8/32 = 4.25 bits.
BITS_PER_PARAM = {
    "fp32": Fraction(32), "float32": Fraction(32),
    "bf16": Fraction(16), "bfloat16": Fraction(16), "fp16": Fraction(16), "float16": Fraction(16),
    "fp8": Fraction(8), "int8": Fraction(8),
    "int4": Fraction(4),
    "mxfp4": Fraction(17, 4),
}


def dtype_bits(dtype):
    """Bits per parameter for a dtype name (``"bf16"``, ``"fp8"``, ``"mxfp4"`` ...)."""
    key = str(dtype).lower()
    if key not in BITS_PER_PARAM:
        raise ConfigError(f"dtype: unknown {dtype!r}; use one of "
                          f"fp32, bf16, fp16, fp8, int8, int4, mxfp4")
    return BITS_PER_PARAM[key]


_cfg = as_config


def _positive_int(name, value, allow_zero=False):
    if not isinstance(value, int) or isinstance(value, bool) or value < (0 if allow_zero else 1):
        rule = "a whole number, zero or more" if allow_zero else "a positive whole number"
        raise ConfigError(f"{name}: must be {rule} (got {show(value)})")


# --- parameters ------------------------------------------------------------------

class ParamCount:
    """Parameter counts of one model.

    ``total``: unique parameters (a tied lm_head counts once, with the embedding).
    ``active``: used per token: total minus the routed experts a token does not
    visit. Router, shared experts, dense layers, embedding and lm_head count as
    active, the convention Qwen, Mixtral and DeepSeek publish. A multimodal wrapper's
    vision and audio towers (components ``vision`` and ``audio``, their projectors
    included) are in ``total`` but not ``active``: a text token does not use them.
    Where some experts
    are "zero-computation" identities without weights (LongCat-Flash), a token uses
    fewer or more parameters depending on how many of its top-k picks are real experts:
    ``active`` is the most (every pick a real expert), ``active_min`` the fewest (as
    many picks as there are zero experts fall on them); elsewhere the two are equal.
    ``components``: a plain dict per component that sums to ``total``;
    ``breakdown``: the same as a pandas Series.
    """

    __slots__ = ("total", "active", "active_min", "embedding", "components", "routed_experts",
                 "matmul_components", "model")

    def __init__(self, model, components, active, matmul_components, active_min=None):
        self.model = model
        self.components = components
        self.total = sum(components.values())
        self.active = active
        self.active_min = active if active_min is None else active_min
        self.embedding = components["embedding"]
        self.routed_experts = components["experts"]
        self.matmul_components = matmul_components

    @property
    def matmul_active(self):
        """Weights multiplied per token (FLOPs are twice this): routed experts only the
        top-k, a tied lm_head counted, since its matmul happens all the same."""
        return sum(self.matmul_components.values())

    @property
    def non_embedding(self):
        """Total minus the embedding tables (the token embedding, and GPT-2's learned
        position embedding): Kaplan et al. 2020's N. An embedding is a table lookup, not
        compute, so scaling laws leave it out. nanoGPT's ``non_embedding=True`` subtracts
        only the position embedding, because its tied token embedding is also its
        lm_head; this figure is the untied analogue."""
        return self.total - self.embedding

    @property
    def breakdown(self):
        import pandas as pd
        return pd.Series(self.components, name="parameters", dtype="int64")

    def __int__(self):
        return self.total

    def __repr__(self):
        extra = f", active={self.active:,}" if self.active != self.total else ""
        if self.active_min != self.active:
            extra = f", active={self.active_min:,} to {self.active:,}"
        return f"ParamCount({self.model}: total={self.total:,}{extra})"

    def _repr_html_(self):
        from .units import human_count
        rows = "".join(f"<tr><td>{k}</td><td style='text-align:right'>{v:,}</td>"
                       f"<td style='text-align:right'>{human_count(v)}</td></tr>"
                       for k, v in self.components.items() if v)
        return (f"<table><caption>{self.model}</caption>{rows}"
                f"<tr><th>total</th><th style='text-align:right'>{self.total:,}</th>"
                f"<th style='text-align:right'>{human_count(self.total)}</th></tr>"
                f"<tr><th>active per token</th><th style='text-align:right'>{self.active:,}</th>"
                f"<th style='text-align:right'>{human_count(self.active)}</th></tr></table>")


def param_count(cfg):
    """Exact parameter counts of a model: total, active per token, and a breakdown.

    A multimodal wrapper is counted whole, as transformers builds it: its language model,
    and its vision and audio towers with their projectors (``total``, not ``active``);
    FLOPs and the KV cache are its language model's. ``cfg.text_model`` is the language
    model alone.

    LongCat-Flash: the real weights. Its zero-computation experts (``zero_expert_num``)
    have none, though transformers 5.23 allocates ``gate_up_proj`` slots for them;
    ``active`` is what a token uses when all its ``moe_topk`` picks are real experts,
    ``active_min`` when as many as can be are zero experts."""
    cfg = _cfg(cfg)
    cached = cfg._cache.get("param_count")  # the config is immutable: count it once
    if cached is not None:
        comp, active, matmul, active_min = cached
        return ParamCount(cfg.name, dict(comp), active, dict(matmul), active_min)
    lm_comp, unused, unused_most, matmul = _language_model_sums(cfg)
    comp = dict(lm_comp)
    towers = 0                           # vision and audio towers: no text token uses them
    for t in tower_tensors(cfg):
        if not t.buffer:
            n = prod(t.shape) * t.per_expert
            comp[t.component] += n
            towers += n
    pc = ParamCount(cfg.name, comp, 0, dict(matmul))
    pc.active = pc.total - unused - towers
    pc.active_min = pc.total - unused_most - towers
    cfg._cache["param_count"] = (dict(comp), pc.active, dict(matmul), pc.active_min)
    return pc


def _language_model_sums(cfg):
    """The language model's parameters summed layer kind by layer kind (each kind's tensors
    once, times its layers), and the tensors outside the layers, counted once per
    (immutable) config: ``(stored by component, routed-expert parameters a token does not
    use, ... when its picks fall on zero experts, weights multiplied per token by
    component)``. The towers of a multimodal wrapper are not in them (param_count adds
    them; FLOPs never need them). Read only: the dicts are the cache's."""
    cached = cfg._cache.get("lm_sums")
    if cached is not None:
        return cached
    comp = dict.fromkeys(COMPONENTS, 0)
    unused = 0                           # routed-expert parameters a token does not use
    unused_most = 0                      # ... when its picks fall on zero experts (LongCat)
    matmul = dict.fromkeys(COMPONENTS, 0)  # weights multiplied per token, by component
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    zero = cfg.get(cfg.zero_experts_field, 0) if cfg.zero_experts_field else 0
    k_least = max(k - zero, 0)           # the fewest real experts a token can pick
    for group in layer_groups(cfg):
        n_layers = group.count
        for t in group.tensors:
            if t.buffer:
                continue
            n = prod(t.shape) * t.per_expert * n_layers   # (t.numel, without the property call)
            if t.tied:   # another layer's weights (Zamba's shared blocks): its matmul, not its size
                if t.matmul:
                    matmul[t.component] += n
                continue
            comp[t.component] += n
            if t.routed:
                per_expert = n // E
                unused += per_expert * (E - k)
                unused_most += per_expert * (E - k_least)
                if t.matmul:
                    matmul[t.component] += per_expert * k
            elif t.matmul:
                matmul[t.component] += n
    for t in global_tensors(cfg):
        if t.matmul:
            matmul[t.component] += t.numel
        if not t.tied:
            comp[t.component] += t.numel
    cached = cfg._cache["lm_sums"] = (comp, unused, unused_most, matmul)
    return cached


def weight_shapes(cfg, dtype="bf16"):
    """Every stored tensor, one row each, named as in the model's checkpoint.

    Columns: ``name``, ``shape`` (as stored: out, in for a Linear), ``numel``,
    ``bytes`` (at ``dtype``), ``component``, ``layer`` (-1 outside the layers; for
    LongCat-Flash the attention sublayer, two to each ``model.layers.{b}``),
    ``expert`` (-1 when not a routed expert's), and ``note``: ``tied to
    model.embed_tokens.weight`` for a tied lm_head (listed, as a state dict lists
    it, but not counted again; GPT-2's is ``wte.weight``), ``buffer`` for a stored
    non-parameter (DeepSeek-V3's and GLM's router bias), or ``mtp, not built by
    transformers`` for the multi-token-prediction module a checkpoint ships beside the
    model (GLM-4.5, Qwen3-Next; listed last, with layer -1, and not counted). A multimodal
    wrapper's names are its checkpoint's (``model.language_model.layers.0...`` or
    ``language_model.model.layers.0...``); its vision and audio towers follow the language
    model, with layer -1 (component ``vision`` or ``audio``).

    A listing of more than ``MAX_WEIGHT_ROWS`` (200,000) tensors is refused
    (DeepSeek-V3 has 45,395); :func:`param_count` counts any model.
    """
    cfg = _cfg(cfg)
    bits = dtype_bits(dtype)
    groups = layer_groups(cfg)
    n_rows = len(global_tensors(cfg)) + sum(g.count * sum(t.per_expert for t in g.tensors)
                                            for g in groups)
    n_rows += sum(t.per_expert for _, tensors in mtp_tensors(cfg) for t in tensors)
    towers = tower_tensors(cfg)
    n_rows += sum(t.per_expert for t in towers)
    if n_rows > MAX_WEIGHT_ROWS:
        fields = "num_hidden_layers" + (f" and {cfg.moe_field}" if cfg.is_moe else "")
        if towers:
            fields += " (and the towers' num_hidden_layers)"
        raise ConfigError(f"{fields}: this model stores {n_rows:,} tensors; weight_shapes lists "
                          f"at most {MAX_WEIGHT_ROWS:,} (DeepSeek-V3 has 45,395); param_count "
                          f"counts any model")
    import pandas as pd
    rows = []
    glob = global_tensors(cfg)

    memo = {}  # per distinct tensor: 45k rows of DeepSeek-V3 share a few dozen tensors

    def add(name, t, layer, expert):
        info = memo.get(t)
        if info is None:
            tied_to = t.tied if isinstance(t.tied, str) else checkpoint_name(cfg, glob[0].name)
            note = f"tied to {tied_to}" if t.tied else "buffer" if t.buffer else ""
            info = memo[t] = (t.shape, t.numel, int(t.numel * bits / 8), t.component, note)
        shape, numel, nbytes, component, note = info
        rows.append((name, shape, numel, nbytes, component, layer, expert, note))

    add(checkpoint_name(cfg, glob[0].name), glob[0], -1, -1)
    by_kind = {g.kind: g.tensors for g in groups}
    prefix_of = checkpoint_name(cfg, layer_prefix(cfg))
    for i, kind in enumerate(cfg.layer_schedule.expand()):
        prefix = prefix_of.format(i=i, b=i // 2)
        for t in by_kind[kind]:
            if t.per_expert > 1 or "{e}" in t.name:   # (one expert too: experts.0)
                for e in range(t.per_expert):  # (Qwen4-Exp's n-gram shards: not experts)
                    add(prefix + t.name.format(e=e), t, i, e if t.routed else -1)
            else:
                add(prefix + t.name, t, i, -1)
    for t in glob[1:]:
        add(checkpoint_name(cfg, t.name), t, -1, -1)
    for t in towers:
        for e in range(t.per_expert):  # a tower's layers: {e} is the layer
            add(t.name.format(e=e), t, -1, -1)
    for prefix, tensors in mtp_tensors(cfg):
        prefix = checkpoint_name(cfg, prefix)
        for t in tensors:
            names = ([(t.name.format(e=e), e) for e in range(t.per_expert)]
                     if t.per_expert > 1 or "{e}" in t.name else [(t.name, -1)])
            for name, e in names:
                rows.append((prefix + name, t.shape, t.numel, int(t.numel * bits / 8),
                             t.component, -1, e, "mtp, not built by transformers"))
    return pd.DataFrame(rows, columns=["name", "shape", "numel", "bytes", "component", "layer",
                                       "expert", "note"])


def weight_bytes(cfg, dtype="bf16", experts_dtype=None):
    """Bytes to store the weights at ``dtype`` (rounded up to whole bytes).

    ``experts_dtype`` stores the routed experts differently, as gpt-oss ships
    them (experts in mxfp4, the rest in bf16).
    """
    cfg = _cfg(cfg)
    pc = param_count(cfg)
    bits = dtype_bits(dtype) * (pc.total - pc.routed_experts)
    bits += dtype_bits(experts_dtype or dtype) * pc.routed_experts
    return int(-(-bits // 8))


# --- KV cache ------------------------------------------------------------------------

def kv_cache_bytes_per_token_per_layer(cfg, dtype="bf16"):
    """Bytes one token adds to the cache in one full-attention layer.

    Standard attention (MHA, GQA, MQA) caches a K and a V vector per KV head:
    2 x num_key_value_heads x head_dim values. DeepSeek's MLA caches one
    compressed latent (kv_lora_rank) plus the shared RoPE key (qk_rope_head_dim),
    once, not for K and V separately. Where layer kinds differ (Gemma 4's full layers
    have their own head width and KV heads), the first full-attention layer that stores
    its own K and V. 0 for a model no layer of which caches K and V.
    """
    cfg = _cfg(cfg)
    kinds = cfg.layer_schedule.counts()
    if not any(kv_values_per_token(cfg, k) for k in kinds):
        return 0   # no layer caches K and V (Mamba, RWKV, xLSTM: a fixed state instead)
    if cfg.uses_mla:
        values = cfg.kv_lora_rank + cfg.qk_rope_head_dim
    else:
        full = [k for k in kinds
                if k.attention == "full_attention" and not k.kv_shared]
        values = (kv_values_per_token(cfg, full[0]) if full
                  else 2 * cfg.num_key_value_heads * cfg.head_dim)
    return int(values * dtype_bits(dtype) / 8)


def indexer_cache_bytes_per_token(cfg, dtype="bf16"):
    """Bytes one token adds to the lightning indexers' key caches, all layers together
    (DeepSeek-V3.2, GLM-5: one key of ``index_head_dim`` in every layer that runs its own
    indexer; Qwen4-Exp: one of ``indexer_head_dim`` in every attention layer); 0 for a model
    without sparse attention. ``dtype`` as for the KV cache:
    transformers keeps these keys in the model's dtype, DeepSeek's inference code in fp8
    with one fp32 scale per key (``index_head_dim + 4`` bytes)."""
    cfg = _cfg(cfg)
    n = cfg.layer_schedule.count(indexer=True)
    if not n:
        return 0
    if cfg.layout.indexer == "block_select":  # Qwen4-Exp: indexer_kv_heads (1) keys per token
        return int(n * cfg.indexer_kv_heads * cfg.indexer_head_dim * dtype_bits(dtype) / 8)
    return int(n * cfg.index_head_dim * dtype_bits(dtype) / 8)


# layer kinds that cache K and V (or MLA's latent) per token, and how many tokens each keeps
_KV_KINDS = ("full_attention", "sliding_attention", "chunked_attention", "indexed_attention",
             "compressed_sparse_attention", "heavily_compressed_attention",
             # Falcon-H1: full attention beside a Mamba-2 state; Zamba and Zamba2: a shared
             # attention block before the layer's own Mamba-1 or Mamba-2 mixer
             "parallel_attention_mamba", "shared_attention_mamba1", "shared_attention_mamba")
# kinds that keep at most sliding_window tokens of their own K and V
_COMPRESSED_KINDS = ("compressed_sparse_attention", "heavily_compressed_attention")
_WINDOWED_KINDS = ("sliding_attention",) + _COMPRESSED_KINDS


def kv_values_per_token(cfg, kind):
    """Values one token adds to the cache of one layer of ``kind`` (a LayerKind): 2 x KV
    heads x head_dim (the kind's own, for Gemma 4's full layers; a layer's own heads and
    widths, ``kind.own_fields``; K at head_dim and V at its own width where the layout names
    one, MiMo-V2-Flash's v_head_dim), MLA's latent plus its RoPE key (the layer's own ranks
    in dots3-note's sliding layers), 0 for a layer that caches nothing (linear attention,
    Mamba, a KV-shared Gemma 4 layer)."""
    if kind.attention not in _KV_KINDS or kind.kv_shared:
        return 0
    cfg = layer_config(cfg, kind)   # a layer's own heads, widths and ranks (per_layer_config)
    if cfg.layout.kv_store == "k_eq_v":  # one head, K = V: stored once (DeepSeek-V4)
        return cfg.num_key_value_heads * cfg.head_dim
    if cfg.uses_mla:
        return cfg.kv_lora_rank + cfg.qk_rope_head_dim
    hd = kind.head_dim or cfg.head_dim
    vd = cfg.get(cfg.layout.value_head_dim, hd) if cfg.layout.value_head_dim else hd
    return (kind.kv_heads or cfg.num_key_value_heads) * (hd + vd)


def kv_tokens_kept(cfg, kind, seq_len):
    """Tokens a layer of ``kind`` keeps at context ``seq_len``: all of them, or at most
    its window (sliding; DeepSeek-V4's compressed kinds keep a window beside their
    compressed entries) or chunk (Llama-4's chunked attention)."""
    if kind.attention in _WINDOWED_KINDS:
        return min(seq_len, cfg.sliding_window)
    if kind.attention == "chunked_attention":
        return min(seq_len, cfg.attention_chunk_size)
    return seq_len


def _v4_rate(cfg, kind):
    rates = cfg.get("compress_rates") or {}
    default = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}
    return rates.get(kind, default[kind])


def compressed_cache_values(cfg, seq_len):
    """DeepSeek-V4's compressed entries for one sequence of ``seq_len`` tokens, all layers:
    a CSA layer keeps one entry of head_dim per compress_rates[...] (4) tokens and its
    indexer one key of index_head_dim; an HCA layer one entry per 128 tokens. Whole windows
    only (the inputs of the window still filling, fewer than its rate, are not counted).
    0 for other models."""
    kinds = cfg.layer_schedule.counts()
    if not any(k.attention in _COMPRESSED_KINDS for k in kinds):
        return 0
    values = 0
    for kind, n in kinds.items():
        if kind.attention == "compressed_sparse_attention":
            values += n * (seq_len // _v4_rate(cfg, kind.attention)) * (cfg.head_dim
                                                                         + cfg.index_head_dim)
        elif kind.attention == "heavily_compressed_attention":
            values += n * (seq_len // _v4_rate(cfg, kind.attention)) * cfg.head_dim
    return values


def _layer_type_counts(cfg):
    """How many layers of each kind (full / sliding / chunked / linear attention)."""
    return cfg.layer_types.counts()  # arithmetic over the layer schedule


def kv_cache_bytes(cfg, seq_len, batch=1, dtype="bf16"):
    """Bytes of KV cache for ``batch`` sequences of ``seq_len`` tokens.

    Sliding-window layers (Mistral, Gemma-2/3's local layers, gpt-oss's
    ``layer_types``) keep at most ``sliding_window`` tokens; Llama-4's chunked
    layers at most ``attention_chunk_size`` (a token sees only its own chunk).
    Linear-attention layers (Qwen3-Next's gated DeltaNet) keep no KV cache: their
    fixed-size state is :func:`linear_state_bytes`. Sparse-attention layers
    (``indexed_attention``: DeepSeek-V3.2, GLM-5) keep every token's MLA latent, and
    the layers with their own indexer one indexer key per token besides
    (:func:`indexer_cache_bytes_per_token`). Gemma 4's KV-shared layers store
    nothing (they read an earlier layer's K and V) and its full layers cache at their
    own head width and KV heads. DeepSeek-V4 keeps, in every layer, its window of one
    K = V head and, in its CSA and HCA layers, compressed entries
    (:func:`compressed_cache_values`). Learned position embeddings (GPT-2's ``wpe``) are
    weights, not cache.
    """
    cfg = _cfg(cfg)
    _positive_int("seq_len", seq_len, allow_zero=True)
    _positive_int("batch", batch)
    values = compressed_cache_values(cfg, seq_len)   # DeepSeek-V4's compressed entries
    for kind, n in cfg.layer_schedule.counts().items():   # per kind: per token x tokens kept
        values += n * kv_values_per_token(cfg, kind) * kv_tokens_kept(cfg, kind, seq_len)
    return (int(values * dtype_bits(dtype) / 8)
            + indexer_cache_bytes_per_token(cfg, dtype) * seq_len) * batch


def _delta_heads(cfg):
    """(value heads, key dim, value dim, key heads) of a delta-rule layer: Qwen3-Next's and
    Qwen3.5's gated DeltaNet, or Kimi-Linear's Kimi Delta Attention (linear_num_heads heads
    of linear_head_dim for q, k and v alike)."""
    if cfg.layout.linear_attention == "kda":
        h, d = cfg.linear_num_heads, cfg.linear_head_dim
        return h, d, d, h
    return (cfg.linear_num_value_heads, cfg.linear_key_head_dim, cfg.linear_value_head_dim,
            cfg.linear_num_key_heads)


def linear_state_bytes(cfg, batch=1, dtype="bf16"):
    """Bytes of the fixed-size state of linear-attention layers (Qwen3-Next's and
    Qwen3.5's gated DeltaNet) and Mamba-2 layers (Nemotron-H), for ``batch`` sequences;
    0 for a model without such layers.

    It replaces a KV cache in those layers and does not grow with context length.
    Per layer and sequence: the recurrent state, one ``linear_key_head_dim x
    linear_value_head_dim`` matrix per value head, plus the short convolution's
    state, ``linear_conv_kernel_dim`` positions of its q, k and v channels
    (``2 x key heads x key_head_dim + value heads x value_head_dim``); the shapes
    transformers' cache allocates. A Mamba-2 layer keeps ``mamba_head_dim x
    ssm_state_size`` per head and ``conv_kernel`` positions of its convolved x, B and C
    (``mamba_num_heads x mamba_head_dim + 2 x n_groups x ssm_state_size`` channels).

    Qwen4-Exp's per-layer-embedding layers keep two more: the last ``(ple_conv_kernel_size
    - 1) x ngram_size`` inputs of their dilated convolution over all ``hc_count x
    hidden_size`` stream values, and the last ``ngram_size - 1`` token ids (int64) their
    n-gram hashes continue from.
    An LFM2 short-convolution layer keeps only the convolution's last ``conv_L_cache``
    inputs of ``hidden_size`` channels. Where attention layers keep a state beside their K
    and V (``Layout.layer_state``), it is added: Inkling's four short convolutions'
    windows, ZAYA1's q/k convolution window and delayed value.

    ``dtype`` is the storage type of both states (default bf16, the model's
    weights' type; transformers' reference kernels keep the recurrent state in
    float32: pass ``dtype="fp32"`` for that).
    """
    cfg = _cfg(cfg)
    _positive_int("batch", batch)
    bits = dtype_bits(dtype)
    counts = _layer_type_counts(cfg)
    values = 0
    n = counts.get("linear_attention", 0)
    if n:
        vh, kd, vd, kh = _delta_heads(cfg)
        conv_dim = 2 * kh * kd + vh * vd
        values += n * (vh * kd * vd + conv_dim * cfg.linear_conv_kernel_dim)
    n = counts.get("mamba", 0)
    if n:  # Mamba-2: a head_dim x ssm_state_size state per head, the conv's last inputs
        m = mamba_dims(cfg)
        conv_dim = m.heads * m.head_dim + 2 * m.groups * m.state
        values += n * (m.heads * m.head_dim * m.state + conv_dim * m.kernel)
    n = counts.get("conv", 0)
    if n:  # LFM2's short convolution: its last conv_L_cache inputs of hidden_size channels
        values += n * cfg.hidden_size * cfg.conv_L_cache
    state = LAYER_STATES.get(cfg.layout.layer_state)
    if state:   # a state beside the layer's K and V (short-convolution windows, ...)
        values += sum(n * state(layer_config(cfg, kind), kind)
                      for kind, n in cfg.layer_schedule.counts().items())
    ids = 0
    n = sum(c for kind, c in cfg.layer_schedule.counts().items() if kind.ple)
    if n:
        # a per-layer-embedding layer: its dilated convolution's window over all streams, and
        # the last ngram_size - 1 token ids (int64, 8 bytes each, whatever ``dtype``)
        values += n * cfg.hc_count * cfg.hidden_size * (cfg.ple_conv_kernel_size - 1) \
            * cfg.ngram_size
        ids = n * (cfg.ngram_size - 1) * 8 * batch
    return int(-(-(values * bits * batch) // 8)) + ids


# --- FLOPs -----------------------------------------------------------------------------

class FlopCount:
    """Forward FLOPs per token: ``matmul`` (2 x active weight-matrix parameters,
    lm_head included; for DeepSeek-V4 also its hyper-connections, the same work at any
    context) plus ``attention`` (scores Q.K and the weighted sum of V)."""

    __slots__ = ("matmul", "attention", "mode", "seq_len", "model")

    def __init__(self, model, matmul, attention, mode, seq_len):
        self.model, self.matmul, self.attention = model, matmul, attention
        self.mode, self.seq_len = mode, seq_len

    @property
    def total(self):
        return self.matmul + self.attention

    def __int__(self):
        return self.total

    def __repr__(self):
        return (f"FlopCount({self.model}, {self.mode} at seq_len={self.seq_len}: "
                f"total={self.total:,} = matmul {self.matmul:,} + attention {self.attention:,})")


def flops_per_token(cfg, seq_len, mode="prefill"):
    """Forward FLOPs per token at context length ``seq_len``.

    ``mode="prefill"``: the average over a prompt of ``seq_len`` tokens with a
    causal mask (token i attends to i tokens). ``mode="decode"``: one new token
    attending to ``seq_len`` cached tokens. A sliding-window layer attends to at
    most ``sliding_window`` tokens, a chunked layer (Llama-4) to the tokens of its own
    ``attention_chunk_size`` chunk. Attention costs 2 FLOPs per multiply-add for
    Q.K (qk head_dim) and for the V sum (v head_dim), per query head (DiffLlama's
    differential attention sums ``Layout.value_width`` = 2 head_dim-wide values under each
    score). A
    linear-attention layer (Qwen3-Next's gated DeltaNet) costs the same at any
    context length: per value head, three products the size of its
    ``linear_key_head_dim x linear_value_head_dim`` state (the state's prediction
    of v from k, the rank-one update, the read-out with q), 2 FLOPs per
    multiply-add: 6 x heads x key_dim x value_dim per token; its convolution and
    projections are weights, in ``matmul``. A Mamba-2 layer (Nemotron-H) likewise: two
    products the size of its state (the decayed rank-one update, the read-out with C),
    4 x mamba_num_heads x mamba_head_dim x ssm_state_size. A sparse-attention layer (DeepSeek-V3.2,
    GLM-5) attends to at most ``index_topk`` keys, as a window would, and its lightning
    indexer scores every earlier key: ``index_n_heads`` products of ``index_head_dim``
    plus the weighted sum over those heads, 2 x heads x (head_dim + 1) FLOPs per key.

    DeepSeek-V4: every layer attends to its window; a CSA layer also to the
    ``index_topk`` compressed entries its indexer picks (and the indexer scores every
    entry, as above), an HCA layer to every entry. The step of the i-th token, i a multiple
    of the layer's ``compress_rates`` (4 for CSA, 128 for HCA), closes a compressor window
    and pools it: the softmax-gated sum of its inputs, a multiply-add per input value,
    2 x 2 x rate x (head_dim + index_head_dim) FLOPs in a CSA layer (two overlapping
    series, for the entry and for the indexer's key), 2 x rate x head_dim in an HCA layer.
    ``decode`` counts the step's own work: its pooling only when ``seq_len`` is a multiple
    of the rate, not a mean of it over steps; ``prefill`` averages every step of the
    prompt, so it counts each window the prompt closes, divided by ``seq_len``. The
    hyper-connections of the ``hc_mult`` residual streams are in ``matmul``
    (:func:`_hyper_connection_matmul`): per block, the weight that makes the mixing coefficients
    from all streams, and the mixing itself.

    MiniMax-M3's sparse layers (``indexer == "block_max"``) attend to the keys of the
    ``index_topk_blocks`` blocks of ``index_block_size`` their indexer keeps, its own block
    up to itself among them (every key while they fit), and the indexer scores every key
    (``index_n_heads`` products of ``index_head_dim``). Work the same at any context beyond
    the weights (``Layout.extra_flops``: Inkling's relative-position logits, Inkling 2's
    attention residuals) is added to ``attention``. A layer's own heads and widths
    (``kind.own_fields``) and V's own width (``Layout.value_head_dim``) are its own.

    Qwen4-Exp's attention layers: an indexer scores each complete block of
    ``indexer_compress_ratio`` (r) earlier keys (the mean of their keys, one key head) with
    ``indexer_n_heads`` query heads, 2 x heads x indexer_head_dim FLOPs per block, and the
    query attends to the ``indexer_budget`` keys of the best blocks plus the tail of fewer
    than r keys after the last complete block (every key while they fit the budget). Its
    hyper-connections' weights are in ``matmul``; their elementwise mixing of the streams,
    like norms, is not counted.

    The average is exact; ``.attention`` is rounded down to a whole FLOP.
    """
    cfg = _cfg(cfg)
    _positive_int("seq_len", seq_len)
    if mode not in ("prefill", "decode"):
        raise ConfigError(f"mode: must be 'prefill' or 'decode' (got {mode!r})")
    # 2 x the weights a token multiplies (ParamCount.matmul_active: the language model's
    # alone, so a wrapper's towers are not built for it)
    matmul = 2 * sum(_language_model_sums(cfg)[3].values())
    if cfg.layout.layer_input_streams:   # hyper-connected residual streams (DeepSeek-V4)
        matmul += _hyper_connection_matmul(cfg)
    if cfg.layout.matmul_extra:   # a family's own matmul work beyond its weights once
        matmul += MATMUL_EXTRAS[cfg.layout.matmul_extra](cfg)
    compressed = any(k.attention in _COMPRESSED_KINDS for k in cfg.layer_schedule.counts())
    v4 = _compressed_terms(cfg) if compressed else None
    # FLOPs summed over layers (all layers of one kind attend alike) and, in prefill, over
    # the prompt's positions, then divided by them once: whole numbers throughout. 2 FLOPs
    # per multiply-add, per query head, over q.k (qk head_dim) and the V sum (v head_dim)
    n_tok = seq_len
    total = 0
    extra = EXTRA_FLOPS.get(cfg.layout.extra_flops)
    if extra:   # work beyond the weights and the keys, the same at any context
        total += extra(cfg) * (n_tok if mode == "prefill" else 1)
    for kind, count in cfg.layer_schedule.counts().items():
        lc = layer_config(cfg, kind)   # a layer's own heads, widths and ranks
        if kind.attention not in _KV_KINDS:
            continue
        nh = lc.num_attention_heads
        if cfg.uses_mla:
            per_key = 2 * nh * (lc.qk_nope_head_dim + lc.qk_rope_head_dim + lc.v_head_dim)
        else:
            hd = kind.head_dim or lc.head_dim
            vd = lc.get(cfg.layout.value_head_dim, hd) if cfg.layout.value_head_dim else hd
            # q.k, then the V sum over value_width V-wide vectors (DiffLlama: 2)
            per_key = 2 * nh * (hd + cfg.layout.value_width * vd)
        if v4:
            keys = _v4_key_sum(cfg, kind.attention, n_tok, mode)
            if kind.attention != "sliding_attention":
                rate, pool, per_entry = v4[kind.attention]
                # windows closed: by this step (decode), or in the whole prompt (prefill)
                closed = n_tok // rate if mode == "prefill" else int(n_tok % rate == 0)
                total += count * pool * closed
                if per_entry:  # CSA: the indexer scores every compressed entry
                    total += count * per_entry * _floor_sum(n_tok, rate, mode)
        elif kind.attention == "sliding_attention":
            keys = _key_sum(n_tok, cfg.sliding_window, mode)
        elif kind.attention == "chunked_attention":
            keys = _chunk_key_sum(n_tok, cfg.attention_chunk_size, mode)
        elif kind.attention == "indexed_attention" and cfg.layout.indexer == "block_max":
            keys = _block_max_key_sum(cfg, n_tok, mode)
            # the indexer scores every earlier key: index_n_heads products of index_head_dim
            total += count * 2 * cfg.index_n_heads * cfg.index_head_dim * _key_sum(n_tok, None,
                                                                                   mode)
        elif kind.attention == "indexed_attention" and cfg.layout.indexer == "block_select":
            r = cfg.indexer_compress_ratio
            blocks = _floor_sum(n_tok, r, mode)   # complete blocks of r keys, scored
            keys = (r * _floor_sum(n_tok, r, mode, cap=cfg.indexer_budget // r)
                    + _key_sum(n_tok, None, mode) - r * blocks)  # picked blocks + the tail
            total += count * 2 * cfg.indexer_n_heads * cfg.indexer_head_dim * blocks
        elif kind.attention == "indexed_attention":
            keys = _key_sum(n_tok, cfg.index_topk, mode)
        else:
            keys = _key_sum(n_tok, None, mode)
        total += count * per_key * keys
        if kind.indexer and cfg.layout.indexer == "lightning":
            # the lightning indexer scores every earlier key
            total += count * 2 * cfg.index_n_heads * (cfg.index_head_dim + 1) \
                * _key_sum(n_tok, None, mode)
    n = _layer_type_counts(cfg)
    attention = total // n_tok if mode == "prefill" else total
    if n.get("linear_attention"):  # a fixed cost per token, whatever the context length
        vh, kd, vd, _ = _delta_heads(cfg)
        attention += n["linear_attention"] * 6 * vh * kd * vd
    if n.get("mamba"):  # Mamba-2: decay plus rank-one update, and the read-out with C
        m = mamba_dims(cfg)
        attention += n["mamba"] * 4 * m.heads * m.head_dim * m.state
    return FlopCount(cfg.name, matmul, attention, mode, seq_len)


def _block_max_key_sum(cfg, n, mode):
    """Keys a MiniMax-M3 sparse-attention query attends to: its indexer keeps the
    ``index_topk_blocks`` (T) best blocks of ``index_block_size`` (B) keys, the
    ``index_local_blocks`` blocks up to its own always among them. While the keys fill at
    most T blocks that is every key; past them, T - 1 whole earlier blocks and its own
    block up to itself: (T - 1) x B + ((i - 1) mod B) + 1 at position i (decode: i = n;
    prefill: summed over 1..n). Which blocks a query keeps beyond its local ones depends on
    the scores, but not how many keys they hold; with no local block, or more local blocks
    than T, it does, and the FLOPs are refused."""
    B, T, local = cfg.index_block_size, cfg.index_topk_blocks, cfg.index_local_blocks
    if not 1 <= local <= T:
        raise ConfigError(f"index_local_blocks: with {local} local blocks and "
                          f"index_topk_blocks={T}, how many keys a query attends to depends on "
                          "the indexer's scores; FLOPs are counted for 1 to index_topk_blocks")

    def own(m):   # sum of ((i - 1) mod B) + 1 for i = 1..m
        q, r = divmod(m, B)
        return q * B * (B + 1) // 2 + r * (r + 1) // 2

    full = T * B   # positions whose keys fit in T blocks attend to every key
    if mode == "decode":
        return n if n <= full else (T - 1) * B + (n - 1) % B + 1
    if n <= full:
        return n * (n + 1) // 2
    return full * (full + 1) // 2 + (T - 1) * B * (n - full) + own(n) - own(full)


def _compressed_terms(cfg):
    """The FLOP constants of DeepSeek-V4's compressed attention kinds, counted once per
    (immutable) config: {CSA/HCA: (compress rate, FLOPs of pooling one window, the
    indexer's FLOPs per compressed entry)}."""
    terms = cfg._cache.get("v4_flops")
    if terms is None:
        hd, di = cfg.head_dim, cfg.index_head_dim
        csa, hca = "compressed_sparse_attention", "heavily_compressed_attention"
        r, r2 = _v4_rate(cfg, csa), _v4_rate(cfg, hca)
        terms = cfg._cache["v4_flops"] = {
            # CSA: 2 x rate inputs (two overlapping series) of the entry and the index key;
            # the indexer's heads score each entry and are summed, 2 x heads x (dim + 1)
            csa: (r, 2 * 2 * r * (hd + di), 2 * cfg.index_n_heads * (di + 1)),
            hca: (r2, 2 * r2 * hd, 0)}    # HCA: rate inputs of the entry, no indexer
    return terms


def _hyper_connection_matmul(cfg):
    """Hyper-connections per token (DeepSeek-V4's), FLOPs (2 per multiply-add), all layers.

    The residual is m streams (``Layout.layer_input_streams`` names the field: hc_mult) of hidden_size (H). Around each block
    (attention, MoE: 2 per layer) a hyper-connection makes (m + 2) x m coefficients from
    all m x H stream values (a weight matrix: 2 x (m + 2) x m x m x H), collapses the
    streams into the block's input (pre: m x H multiply-adds) and writes the block's
    output back into m streams (post: m x H) on top of the streams mixed by an m x m
    matrix (comb: m x m x H): 2 x m x H x (m + 1) x (m + 2) per hyper-connection. The head
    collapses them once more: m coefficients (2 x m x m x H) and the collapse (2 x m x H).
    Normalisations, sigmoids and the Sinkhorn iterations over m x m are not counted (nor
    are norms and softmaxes anywhere). HY-V4's hyper-connections (``hyper_connection`` "pre_post")
    make 2m coefficients and have no m x m mix: 4 x m x H x (m + 1) each."""
    m, H = getattr(cfg, cfg.layout.layer_input_streams), cfg.hidden_size
    per_hc = 2 * m * H * (m + 1) * (m + 2)
    if cfg.layout.hyper_connection == "pre_post":
        # HY-V4's: 2m coefficients (2 x 2m x m x H), the collapse and the write-back, no mix
        per_hc = 4 * m * H * (m + 1)
    return 2 * cfg.num_hidden_layers * per_hc + 2 * m * H * (m + 1)


def _floor_sum(n, r, mode, cap=None):
    """Compressed entries visible to a token: floor(i / r) at position i, at most ``cap``;
    decode: at i = n; prefill: summed over i = 1..n."""
    def total(m):  # sum of floor(i / r) for i = 1..m
        q, rem = divmod(m, r)
        return r * q * (q - 1) // 2 + q * (rem + 1)
    if mode == "decode":
        return min(n // r, cap) if cap is not None else n // r
    if cap is None or n < cap * r:
        return total(n)
    return total(cap * r - 1) + (n - cap * r + 1) * cap


def _v4_key_sum(cfg, attention, n, mode):
    """Keys a DeepSeek-V4 token attends to: its window, plus in a CSA layer the index_topk
    compressed entries its indexer picks (of n / 4), in an HCA layer every compressed
    entry (n / 128); summed over positions in prefill."""
    keys = _key_sum(n, cfg.sliding_window, mode)
    if attention == "compressed_sparse_attention":
        keys += _floor_sum(n, _v4_rate(cfg, attention), mode, cap=cfg.index_topk)
    elif attention == "heavily_compressed_attention":
        keys += _floor_sum(n, _v4_rate(cfg, attention), mode)
    return keys


def _chunk_key_sum(n, chunk, mode):
    """Keys a token attends to in chunked attention: the tokens of its own chunk up to
    itself (position i sees ((i - 1) mod chunk) + 1 keys); decode: at n; prefill: summed
    over 1..n."""
    if mode == "decode":
        return (n - 1) % chunk + 1
    q, r = divmod(n, chunk)
    return q * chunk * (chunk + 1) // 2 + r * (r + 1) // 2


def _key_sum(n, window, mode):
    """Keys a token attends to: at position n (decode), or summed over positions 1..n
    (prefill; the flops divide by n once)."""
    if mode == "decode":
        return min(n, window) if window else n
    if not window or window >= n:
        return n * (n + 1) // 2                        # 1 + 2 + ... + n
    # positions 1..w attend to i keys, positions w+1..n attend to w keys
    return window * (window + 1) // 2 + (n - window) * window
