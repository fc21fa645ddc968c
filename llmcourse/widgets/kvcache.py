"""Explorer for the GQA / KV-cache lesson."""

from __future__ import annotations

from ..counts import kv_cache_bytes, linear_state_bytes
from ..families import kv_heads_fixed
from ..sizing import (all_full_attention, cache_baseline_only, full_attention_twin,
                      gqa_memory_saving, mha_baseline, plain_mha_cache_bytes)
from ..units import count_of, human_bytes
from ..zoo import load_model
from .base import (Explorer, Row, divisors, dropdown, int_text, model_dropdown, register,
                   selection)

__all__ = ["kv_cache_explorer", "kv_cache_rows", "kv_variants", "LAYER_PATTERNS",
           "with_layer_pattern", "layer_patterns_for", "kv_head_options", "heads_text"]

SEQ_LENS = [2**k for k in range(9, 19)]
BATCHES = [1, 2, 4, 8, 16, 32, 64]
LAYER_PATTERNS = ["as shipped", "all full attention", "alternate sliding/full",
                  "all sliding window"]



def _pattern_types(cfg, pattern):
    n = cfg.num_hidden_layers
    return {"all full attention": ["full_attention"] * n,   # the window box's rule only
            "alternate sliding/full": ["sliding_attention" if i % 2 == 0 else "full_attention"
                                       for i in range(n)],
            "all sliding window": ["sliding_attention"] * n}[pattern]


def with_layer_pattern(cfg, pattern, sliding_window):
    """``cfg`` with its attention layers set by ``pattern`` (one of
    :data:`LAYER_PATTERNS`) and, where it then has sliding-window layers, its window set
    to ``sliding_window`` (validated by the engine: a window must be a positive whole
    number). "as shipped" keeps the model's own layers untouched."""
    if pattern not in LAYER_PATTERNS:
        raise ValueError(f"layers: must be one of {', '.join(LAYER_PATTERNS)} (got {pattern!r})")
    if pattern == "all full attention":   # MLP-only blocks stay (Nemotron-H)
        return all_full_attention(cfg)
    if pattern != "as shipped":
        types = _pattern_types(cfg, pattern)
        changes = {"layer_types": types}
        if "sliding_attention" in types:
            changes["sliding_window"] = sliding_window
        return cfg.replace(**changes)
    if _has_window(cfg) and sliding_window != cfg.sliding_window:
        return cfg.replace(sliding_window=sliding_window)
    return cfg


def _has_window(cfg):
    """True where a layer keeps only a window, so the window box changes something."""
    return "sliding_attention" in cfg.layer_types


def layer_patterns_for(cfg):
    """The patterns of :data:`LAYER_PATTERNS` this model's family can take (its engine
    rules, the same as its transformers config's), "as shipped" first."""
    out = ["as shipped"]
    for pattern in LAYER_PATTERNS[1:]:
        try:
            with_layer_pattern(cfg, pattern, _window(cfg))
        except ValueError:
            continue
        out.append(pattern)
    return out


def kv_head_options(cfg):
    """The KV-head counts to offer: the divisors of the query heads, or only the model's
    own where its family has no KV heads in transformers (GPT-2, GPT-NeoX: MHA only)."""
    if not cfg.has_kv_heads:
        return [cfg.num_key_value_heads]
    return divisors(cfg.num_attention_heads)


def _fixed_kv(cfg):
    """MLA (a latent), DeepSeek-V4 (one K = V head), GPT-2 and GPT-NeoX (MHA only in
    transformers): no KV heads to choose (the engine refuses a what-if that sets them)."""
    return kv_heads_fixed(cfg)


def _kind(cfg):
    return "MLA (latent)" if cfg.uses_mla else cfg.attention_kind


def kv_cache_rows(cfg, seq_len, batch, dtype="bf16"):
    """The summary rows for one setting (pure: the explorer and tests both call this)."""
    heads, kv = cfg.num_attention_heads, cfg.num_key_value_heads
    cache = kv_cache_bytes(cfg, seq_len, batch, dtype)
    per_tok = kv_cache_bytes(cfg, 1, 1, dtype)   # one token: no window is full yet
    s = gqa_memory_saving(cfg, seq_len, batch, dtype)
    weights = s["weights"]
    kind = _kind(cfg)
    n_sliding = cfg.layer_types.count("sliding_attention")
    top = cfg.get("max_position_embeddings")
    state = linear_state_bytes(cfg, batch, dtype)
    layers = _layers_text(cfg)
    what = (f"MLA: caches kv_lora_rank {cfg.kv_lora_rank} + rope {cfg.qk_rope_head_dim} "
            "per layer, once" if cfg.uses_mla else
            f"{kind}: {heads} query heads, {count_of(kv, 'KV head')} ({heads // kv}:1)"
            + ("; MHA only: transformers' config for this family has no KV heads"
               if not cfg.has_kv_heads else ""))
    plain = plain_mha_cache_bytes(cfg, seq_len, batch, dtype)
    saved = 1 - cache / plain if plain else 0.0
    beyond = (f" at {seq_len:,} tokens, beyond its maximum (a what-if)"
              if top is not None and seq_len > top else "")
    return [
        Row("attention", "kind", kind, what),
        Row("layers", "sliding_layers", n_sliding, layers),
        Row("max context (max_position_embeddings)", "max_context", top,
            "not given in this config" if top is None else
            f"{top:,} tokens" + (f": {seq_len:,} is beyond it (a what-if)" if seq_len > top
                                 else "")),
        Row("cache per token, all layers (before any window fills)", "bytes_per_token",
            per_tok, f"{per_tok:,} B"),
        Row(f"KV cache at {seq_len:,} tokens x batch {batch}", "kv_cache_bytes", cache,
            f"{human_bytes(cache)} ({cache:,} B)"),
        Row("fixed state of linear-attention and Mamba-2 layers (the same at any context)",
            "linear_state_bytes", state,
            f"{human_bytes(state, 'MiB')} ({state:,} B)" if state
            else "none (no linear-attention or Mamba-2 layers)"),
        Row("KV cache of plain MHA (every layer caches every token, a KV head per query "
            "head, each layer's own head width)", "mha_cache_bytes", plain,
            f"{human_bytes(plain)} ({plain:,} B)"),
        Row("KV cache vs plain MHA", "cache_saving", round(100 * saved, 1),
            (f"{100 * saved:.1f}% smaller ({plain / cache:,.1f}× less)" if cache else
             "100% smaller (no KV cache)") + beyond),
        Row(f"weights (all {dtype})", "weight_bytes", weights, human_bytes(weights)),
        Row("weights + cache saved against MHA in every layer (same weights: the "
            "baseline is a cache baseline)" if cache_baseline_only(cfg) else
            "weights + cache saved by its KV heads, same layers (lesson 2)",
            "total_saving", round(100 * float(s["total_saving"]), 1),
            f"{100 * float(s['total_saving']):.1f}%" + beyond),
        Row("cache / weights", "cache_over_weights", round(cache / weights, 4),
            f"{cache / weights:.2f}×"),
    ]


def _rate(cfg, which):
    """DeepSeek-V4's compression rate of its CSA ("c") or HCA ("h") layers."""
    kind = {"c": "compressed_sparse_attention", "h": "heavily_compressed_attention"}[which]
    return (cfg.get("compress_rates") or {}).get(kind, {"c": 4, "h": 128}[which])


def _layers_text(cfg):
    """'12 full, 36 linear (fixed state)': each kind of layer and what it keeps."""
    kinds = (("full_attention", "full"), ("sliding_attention", f"sliding (≤ {cfg.get('sliding_window') or 0:,})"),
             ("chunked_attention", f"chunked (≤ {cfg.get('attention_chunk_size') or 0:,})"),
             ("linear_attention", "linear (fixed state)"),
             ("indexed_attention", f"sparse (top {cfg.get('index_topk') or cfg.get('indexer_budget') or 0:,} keys, all cached)"),
             ("mamba", "Mamba-2 (fixed state)"),  # layer kinds, not model types
             ("conv", "short conv (fixed state)"),
             ("none", "MLP-only"),
             ("compressed_sparse_attention", f"CSA (window + 1 entry per {_rate(cfg, 'c')} tokens)"),
             ("heavily_compressed_attention", f"HCA (window + 1 entry per {_rate(cfg, 'h')} tokens)"))
    if set(cfg.layer_types) == {"full_attention"}:
        return f"all {cfg.num_hidden_layers} full attention"
    parts = [f"{cfg.layer_types.count(t)} {what}" for t, what in kinds if t in cfg.layer_types]
    text = ", ".join(parts) + f" of {cfg.num_hidden_layers}"
    shared = cfg.layer_schedule.count(kv_shared=True)
    if shared:  # Gemma 4: these store nothing
        text += f"; the last {shared} reuse earlier layers' K and V"
    return text


_KIND_WORDS = {"full_attention": "full", "sliding_attention": "sliding",
               "chunked_attention": "chunked", "indexed_attention": "sparse"}


def heads_text(cfg):
    """The KV heads a config caches, in words: "8 KV heads of 128", and where some layers
    have their own ("16 KV heads of 256; full layers 4 of 512": Gemma 4)."""
    kv, hd = cfg.num_key_value_heads, cfg.head_dim
    text = f"{count_of(kv, 'KV head')} of {hd}"
    own = sorted({(k.attention, k.kv_heads or kv, k.head_dim or hd)
                  for k in cfg.layer_schedule.counts() if k.kv_heads or k.head_dim})
    for attention, n, width in own:
        if (n, width) != (kv, hd):
            text += f"; {_KIND_WORDS.get(attention, attention)} layers {n} of {width}"
    return text


def kv_variants(cfg):
    """``[(label, cfg), ...]`` to compare on the figure, each label saying what its
    config is: this setting; MHA with the same layers (lesson 2's baseline: one KV head
    per query head); MQA with the same layers; and, where some layer keeps less than
    every token (a window, a fixed state, K and V shared or equal), every layer full with
    this setting's KV heads (:func:`~llmcourse.sizing.full_attention_twin`, a cache
    stand-in). MLA and DeepSeek-V4's one K = V head have no KV heads to vary: their
    baseline is MHA over every token in every layer."""
    h, kv = cfg.num_attention_heads, cfg.num_key_value_heads
    if cfg.layout.kv_store == "k_eq_v":   # DeepSeek-V4: one K = V head, a window
        return [(f"this setting: window of {cfg.sliding_window:,} + compressed entries", cfg),
                (f"MHA in every layer: {h} KV heads of {cfg.head_dim}", mha_baseline(cfg))]
    if cfg.uses_mla:
        return [(f"MLA latent ({cfg.kv_lora_rank}+{cfg.qk_rope_head_dim} per layer)", cfg),
                (f"MHA in every layer: {h} KV heads of {cfg.v_head_dim}", mha_baseline(cfg))]
    out = [(f"this setting ({_kind(cfg)}: {heads_text(cfg)})", cfg)]
    if kv != h:
        base = mha_baseline(cfg)
        out.append((f"MHA ({heads_text(base)}), same layers", base))
    if kv != 1 and cfg.has_kv_heads:   # GPT-2, GPT-NeoX: transformers builds
        mqa = cfg.replace(num_key_value_heads=1)   # no MQA for them
        out.append((f"MQA ({heads_text(mqa)}), same layers", mqa))
    if _keeps_less(cfg):
        out.append((f"every layer full: {count_of(kv, 'KV head')} of {cfg.head_dim}",
                    full_attention_twin(cfg)))
    return out


def _keeps_less(cfg):
    """True where some layer keeps less than every token's own K and V at the model's
    KV heads and head_dim: a window or chunk, a fixed state, KV shared across layers,
    a layer with its own heads (Gemma 4's full layers)."""
    return any(k.attention not in ("full_attention", "none") or k.kv_shared or k.kv_heads
               or k.head_dim for k in cfg.layer_schedule.counts())


def _state_bytes(cfg, batch, dtype):
    """The fixed-size state of linear-attention layers (0 for a model without them)."""
    return linear_state_bytes(cfg, batch, dtype)


def _window(cfg):
    return cfg.sliding_window if "sliding_attention" in cfg.layer_types else 4096


@register("kv_cache")
def kv_cache_explorer(model="Meta-Llama-3-8B", seq_len=8192, batch=1, dtype="bf16"):
    """Change the KV-head count, attention layers, context and batch of a real model;
    watch the cache against its MHA baseline. The menus offer what the model's family
    can take; the KV slider is off where there are no KV heads to choose (MLA's latent,
    DeepSeek-V4's one K = V head, GPT-2), the window box where no layer slides."""
    base = {"cfg": load_model(model)}
    cfg0 = base["cfg"]
    controls = {
        "model": model_dropdown(model),
        "num_key_value_heads": selection("KV heads", kv_head_options(cfg0),
                                         cfg0.num_key_value_heads),
        "seq_len": selection("context", SEQ_LENS, seq_len),
        "batch": selection("batch", BATCHES, batch),
        "dtype": dropdown("cache dtype", ["bf16", "fp8", "fp32"], dtype, width="200px"),
        "layers": dropdown("layers", layer_patterns_for(cfg0), "as shipped", width="330px"),
        "sliding_window": int_text("sliding window (tokens)", _window(cfg0), width="260px"),
    }
    controls["num_key_value_heads"].disabled = _fixed_kv(cfg0)
    controls["sliding_window"].disabled = not _has_window(cfg0)

    def config(v):
        cfg = base["cfg"]
        if not _fixed_kv(cfg) and v["num_key_value_heads"] != cfg.num_key_value_heads:
            cfg = cfg.replace(num_key_value_heads=v["num_key_value_heads"])
        return with_layer_pattern(cfg, v["layers"], v["sliding_window"])

    def compute(v):
        return kv_cache_rows(config(v), v["seq_len"], v["batch"], v["dtype"])

    def draw(fig, v, rows):
        from ..plots.kvcache import draw_kv_cache_vs_context
        weights = next(r.value for r in rows if r.key == "weight_bytes")
        draw_kv_cache_vs_context(fig, kv_variants(config(v)), v["batch"], v["dtype"],
                                 mark_seq_len=v["seq_len"], weights_bytes=weights,
                                 state_bytes=_state_bytes(config(v), v["batch"], v["dtype"]),
                                 title=f"{base['cfg'].name}: KV cache vs context, "
                                       f"batch {v['batch']}")

    ex = Explorer("kv_cache", controls, compute, draw, title="KV-cache explorer")

    def on_model(change):  # a new model: reset the dependent controls, one redraw
        base["cfg"] = cfg = load_model(change["new"])
        with ex.hold():
            c = controls["num_key_value_heads"]
            c.options = kv_head_options(cfg)
            c.value = cfg.num_key_value_heads
            c.disabled = _fixed_kv(cfg)
            controls["layers"].options = layer_patterns_for(cfg)
            controls["layers"].value = "as shipped"
            controls["sliding_window"].value = _window(cfg)
            controls["sliding_window"].disabled = not _has_window(cfg)

    def on_layers(change):  # the window box works only where some layer slides
        pattern = change["new"]
        sliding = (_has_window(base["cfg"]) if pattern == "as shipped"
                   else "sliding_attention" in _pattern_types(base["cfg"], pattern))
        controls["sliding_window"].disabled = not sliding
    ex.on_change("model", on_model)
    ex.on_change("layers", on_layers)
    return ex
