"""Explorer for the GQA / KV-cache lesson."""

from __future__ import annotations

from ..counts import kv_cache_bytes, kv_cache_bytes_per_token, weight_bytes
from ..units import human_bytes
from ..zoo import load_model
from .base import Explorer, Row, divisors, dropdown, model_dropdown, register, selection

__all__ = ["kv_cache_explorer", "kv_cache_rows"]

SEQ_LENS = [2**k for k in range(9, 18)]
BATCHES = [1, 2, 4, 8, 16, 32, 64]


def kv_cache_rows(cfg, seq_len, batch, dtype="bf16"):
    """The summary rows for one setting (pure: the explorer and tests both call this)."""
    heads, kv = cfg.num_attention_heads, cfg.num_key_value_heads
    cache = kv_cache_bytes(cfg, seq_len, batch, dtype)
    weights = weight_bytes(cfg, dtype)
    per_tok = kv_cache_bytes_per_token(cfg, dtype) * cfg.num_hidden_layers
    kind = ("MLA (latent)" if cfg.uses_mla else "MHA" if kv == heads else
            "MQA" if kv == 1 else "GQA")
    return [
        Row("attention", "kind", kind, f"{kind}: {heads} query heads, {kv} KV heads"
            + ("" if cfg.uses_mla else f" ({heads // kv}:1)")),
        Row("cache per token, all layers", "bytes_per_token", per_tok, f"{per_tok:,} B"),
        Row(f"KV cache at {seq_len:,} tokens x batch {batch}", "kv_cache_bytes", cache,
            f"{human_bytes(cache)} ({cache:,} B)"),
        Row(f"weights ({dtype})", "weight_bytes", weights, human_bytes(weights)),
        Row("cache / weights", "cache_over_weights", round(cache / weights, 4),
            f"{cache / weights:.2f}x"),
    ]


@register("kv_cache")
def kv_cache_explorer(model="Meta-Llama-3-8B", seq_len=8192, batch=1, dtype="bf16"):
    """Change the KV-head count, context and batch of a real model; watch the cache."""
    base = {"cfg": load_model(model)}
    heads = base["cfg"].num_attention_heads
    controls = {
        "model": model_dropdown(model),
        "num_key_value_heads": selection("KV heads", divisors(heads),
                                         base["cfg"].num_key_value_heads),
        "seq_len": selection("context", SEQ_LENS, seq_len),
        "batch": selection("batch", BATCHES, batch),
        "dtype": dropdown("cache dtype", ["bf16", "fp8", "fp32"], dtype, width="200px"),
    }

    def config(v):
        cfg = base["cfg"]
        if cfg.uses_mla:  # MLA caches a latent: KV heads do not set the cache size
            return cfg
        return cfg.replace(num_key_value_heads=v["num_key_value_heads"])

    def compute(v):
        return kv_cache_rows(config(v), v["seq_len"], v["batch"], v["dtype"])

    def draw(fig, v, rows):
        from ..plots.kvcache import draw_kv_cache_vs_context
        cfg = config(v)
        h = cfg.num_attention_heads
        variants = [(f"this setting ({cfg.num_key_value_heads} KV heads)", cfg)]
        if not cfg.uses_mla:
            for label, kv in ((f"MHA ({h} KV heads)", h), ("MQA (1 KV head)", 1)):
                if kv != cfg.num_key_value_heads:
                    variants.append((label, cfg.replace(num_key_value_heads=kv)))
        draw_kv_cache_vs_context(fig, variants, v["batch"], v["dtype"],
                                 mark_seq_len=v["seq_len"], weights_bytes=rows[3].value,
                                 title=f"{base['cfg'].name}: KV cache vs context, batch {v['batch']}")

    ex = Explorer("kv_cache", controls, compute, draw, title="KV-cache explorer")

    def on_model(change):  # a new model: reset the KV-head slider to its divisors
        base["cfg"] = load_model(change["new"])
        h = base["cfg"].num_attention_heads
        with ex.hold():
            c = controls["num_key_value_heads"]
            c.options = divisors(h)
            c.value = base["cfg"].num_key_value_heads
    controls["model"].observe(on_model, names="value")
    return ex
