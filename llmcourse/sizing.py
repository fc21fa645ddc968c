"""Sizing rules and comparisons used by the GQA/KV-cache and FFN lessons.

Pure functions over the engine (standard library only): the Llama FFN sizing
rule, an MHA baseline for a model's KV cache, the total-memory saving of GQA,
and the split of parameters and FLOPs between attention and the FFN.
"""

from __future__ import annotations

from fractions import Fraction

from .config import ConfigError, from_hf_config
from .counts import flops_per_token, kv_cache_bytes, param_count, weight_bytes
from .zoo import as_config

__all__ = ["llama_intermediate_size", "llama_intermediate_steps", "mha_baseline",
           "gqa_memory_saving", "tokens_for_total_saving", "ffn_attention_split",
           "ffn_share_rows", "gqa_saving_rows", "FFN_COMPONENTS"]

# the parts of a layer that are the feed-forward network (dense MLP or MoE)
FFN_COMPONENTS = ("mlp", "shared_experts", "experts", "router")


# --- the Llama FFN sizing rule ---------------------------------------------------------

def llama_intermediate_steps(hidden, multiple_of=256, ffn_dim_multiplier=None):
    """The steps of Meta's rule (``FeedForward`` in the Llama reference code), as
    ``[(step, value), ...]``; the last value is the intermediate_size.

    ``h = 4*hidden``; ``h = int(2*h/3)``; if a multiplier is given, ``h = int(m*h)``;
    then round ``h`` up to a multiple of ``multiple_of``.
    """
    for name, v in (("hidden", hidden), ("multiple_of", multiple_of)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ConfigError(f"{name}: must be a positive whole number (got {v!r})")
    steps = [("4 x hidden", 4 * hidden)]
    h = int(Fraction(2 * 4 * hidden, 3))              # int() truncates, as Meta's code does
    steps.append(("int(2/3 x 4 x hidden)", h))
    if ffn_dim_multiplier is not None:
        m = Fraction(str(ffn_dim_multiplier))         # 1.3 exactly, not 1.30000000000000004
        if m <= 0:
            raise ConfigError(f"ffn_dim_multiplier: must be positive (got {ffn_dim_multiplier!r})")
        steps.append((f"{ffn_dim_multiplier} x that", float(m * h)))  # display only
        h = int(m * h)
        steps.append((f"int({ffn_dim_multiplier} x that)", h))
    h = multiple_of * ((h + multiple_of - 1) // multiple_of)
    steps.append((f"rounded up to a multiple of {multiple_of}", h))
    return steps


def llama_intermediate_size(hidden, multiple_of=256, ffn_dim_multiplier=None):
    """Meta's SwiGLU sizing: about 8/3 x hidden (times a multiplier), rounded up.

    >>> llama_intermediate_size(4096, 256)              # LLaMA-2 7B
    11008
    >>> llama_intermediate_size(4096, 1024, 1.3)        # Llama-3-8B
    14336
    """
    return llama_intermediate_steps(hidden, multiple_of, ffn_dim_multiplier)[-1][1]


# --- KV cache: an MHA baseline and what GQA saves ----------------------------------------

def mha_baseline(cfg, full_attention=False):
    """The same model with one KV head per query head (plain multi-head attention);
    with ``full_attention=True`` also without sliding-window layers.

    For MLA (DeepSeek) the baseline is the DeepSeek-V2 paper's: a standard MHA
    cache of ``num_attention_heads`` heads of ``v_head_dim`` (d_h = 128) per
    layer, built as a Llama-layout config of the same hidden size and depth. Use
    it for the cache only: its weights are not DeepSeek's.
    """
    cfg = as_config(cfg)
    if cfg.uses_mla:
        return from_hf_config({
            "model_type": "llama", "hidden_size": cfg.hidden_size,
            "num_hidden_layers": cfg.num_hidden_layers,
            "num_attention_heads": cfg.num_attention_heads,
            "num_key_value_heads": cfg.num_attention_heads, "head_dim": cfg.v_head_dim,
            "intermediate_size": cfg.intermediate_size, "vocab_size": cfg.vocab_size,
        }, name=f"{cfg.name} MHA baseline")
    changes = {}
    if cfg.num_key_value_heads != cfg.num_attention_heads:
        changes["num_key_value_heads"] = cfg.num_attention_heads
    if full_attention and "sliding_attention" in cfg.layer_types:
        changes["layer_types"] = ["full_attention"] * cfg.num_hidden_layers
    return cfg.replace(**changes) if changes else cfg


def gqa_memory_saving(cfg, seq_len, batch=1, dtype="bf16"):
    """What this model saves against its MHA baseline at one context and batch.

    Returns a dict of exact integers (bytes) and two exact fractions:
    ``cache_saving`` = 1 - cache / MHA cache, ``total_saving`` = 1 - (weights +
    cache) / (MHA weights + MHA cache). GQA also shrinks the k/v projections, so
    the baseline's weights are larger. For MLA the weights are held equal (the
    baseline is a cache baseline only).
    """
    cfg = as_config(cfg)
    base = mha_baseline(cfg)
    w = weight_bytes(cfg, dtype)
    wb = w if cfg.uses_mla else weight_bytes(base, dtype)
    c, cb = kv_cache_bytes(cfg, seq_len, batch, dtype), kv_cache_bytes(base, seq_len, batch, dtype)
    return {"model": cfg.name, "seq_len": seq_len, "batch": batch, "weights": w, "cache": c,
            "mha_weights": wb, "mha_cache": cb,
            "cache_saving": Fraction(cb - c, cb) if cb else Fraction(0),
            "total_saving": Fraction((wb + cb) - (w + c), wb + cb)}


def gqa_saving_rows(cfg, settings, dtype="bf16"):
    """One dict per ``(seq_len, batch)`` in ``settings`` for a table: bytes in GiB
    (2**30, 3 decimals) and the savings against MHA in percent (2 decimals)."""
    gib = 2**30
    rows = []
    for seq_len, batch in settings:
        s = gqa_memory_saving(cfg, seq_len, batch, dtype)
        rows.append({
            "context": seq_len, "batch": batch, "tokens cached": seq_len * batch,
            "weights (GiB)": round(s["weights"] / gib, 3),
            "KV cache (GiB)": round(s["cache"] / gib, 3),
            "MHA weights (GiB)": round(s["mha_weights"] / gib, 3),
            "MHA KV cache (GiB)": round(s["mha_cache"] / gib, 3),
            "cache saved (%)": round(100 * float(s["cache_saving"]), 2),
            "weights + cache saved (%)": round(100 * float(s["total_saving"]), 2),
        })
    return rows


def tokens_for_total_saving(cfg, target, dtype="bf16", max_tokens=2**30):
    """The fewest cached tokens (seq_len x batch, batch 1) at which GQA's saving of
    total memory (weights + cache) reaches ``target`` (e.g. ``Fraction(3, 10)``);
    ``0`` if it does with an empty cache, ``None`` if never within ``max_tokens``."""
    target = Fraction(str(target)) if isinstance(target, float) else Fraction(target)

    def ok(n):
        return gqa_memory_saving(cfg, n, 1, dtype)["total_saving"] >= target
    if ok(0):
        return 0
    if not ok(max_tokens):
        return None
    lo, hi = 0, max_tokens              # ok(lo) is False, ok(hi) is True
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


# --- FFN versus attention -------------------------------------------------------------

def ffn_attention_split(cfg, seq_len=4096, mode="prefill"):
    """Parameters and forward FLOPs per token split into attention, FFN and the rest.

    Parameters come from ``param_count(cfg).components`` (FFN = mlp + experts +
    shared experts + router; the rest = embedding, norms, lm_head). FLOPs: 2 per
    multiplied weight (attention projections, FFN, lm_head) plus the attention
    scores and weighted sum of ``flops_per_token`` (counted as attention). The
    parts sum to ``flops_per_token(cfg, seq_len, mode).total`` exactly.
    Shares are floats (fractions of the total).
    """
    cfg = as_config(cfg)
    comp = param_count(cfg).components
    total = sum(comp.values())
    ffn_p = sum(comp[c] for c in FFN_COMPONENTS)
    attn_p = comp["attention"]
    fl = flops_per_token(cfg, seq_len, mode)
    mm = param_count(cfg).matmul_components
    ffn_f = 2 * sum(mm.get(c, 0) for c in FFN_COMPONENTS)
    proj_f = 2 * mm.get("attention", 0)
    attn_f = proj_f + fl.attention
    return {
        "model": cfg.name, "layers": cfg.num_hidden_layers, "hidden_size": cfg.hidden_size,
        "intermediate_size": cfg.intermediate_size,
        "ffn_ratio": cfg.intermediate_size / cfg.hidden_size,
        "attention_params": attn_p, "ffn_params": ffn_p, "other_params": total - attn_p - ffn_p,
        "total_params": total,
        "ffn_param_share": ffn_p / total, "attention_param_share": attn_p / total,
        "ffn_layer_share": ffn_p / (ffn_p + attn_p),
        "attention_projection_flops": proj_f, "attention_score_flops": fl.attention,
        "attention_flops": attn_f, "ffn_flops": ffn_f,
        "other_flops": fl.total - attn_f - ffn_f, "total_flops": fl.total,
        "ffn_flop_share": ffn_f / fl.total, "attention_flop_share": attn_f / fl.total,
        "seq_len": seq_len, "mode": mode,
    }


def ffn_share_rows(models, seq_len=4096, mode="prefill"):
    """One dict per model for a table: FFN and attention parameters (exact) and
    their shares of parameters and of FLOPs per token, in percent (2 decimals)."""
    rows = []
    for m in models:
        s = ffn_attention_split(as_config(m), seq_len, mode)
        rows.append({
            "model": s["model"], "intermediate/hidden": round(s["ffn_ratio"], 3),
            "FFN params": s["ffn_params"], "attention params": s["attention_params"],
            "FFN % of params": round(100 * s["ffn_param_share"], 2),
            "attention % of params": round(100 * s["attention_param_share"], 2),
            "FFN % of layer params": round(100 * s["ffn_layer_share"], 2),
            f"FFN % of FLOPs ({seq_len:,})": round(100 * s["ffn_flop_share"], 2),
            f"attention % of FLOPs ({seq_len:,})": round(100 * s["attention_flop_share"], 2),
        })
    return rows
