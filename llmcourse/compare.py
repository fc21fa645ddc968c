"""Two configs side by side: the what-if lab's numbers, as plain data.

``size_summary(cfg, seq_len, batch)`` gives the headline sizes of one model as a
dict of exact integers; ``compare_configs(original, edited, ...)`` puts two of them
side by side with the change in percent (a pandas DataFrame); ``config_diff``
lists the ``config.json`` fields that differ. Imports only the core (pandas is
imported by ``compare_configs`` when it is called).
"""

from __future__ import annotations

from .config import ModelConfig, from_hf_config
from .counts import flops_per_token, kv_cache_bytes, param_count, weight_bytes
from .quantization import stored_weights
from .units import human_bytes, human_count
from .zoo import as_config

__all__ = ["SUMMARY_KEYS", "size_summary", "compare_configs", "config_diff", "change_percent",
           "readable"]

# key -> label; every value is an exact integer (a count, bytes, or FLOPs)
SUMMARY_KEYS = {
    "total_params": "total parameters",
    "active_params": "active parameters per token",
    "embedding_params": "embedding parameters",
    "weights_bf16": "weights in bf16",
    "weights_fp8": "weights in fp8",
    "weights_int4": "weights in int4, idealised",
    "weights_int4_g128": "weights in int4, as AWQ/GPTQ store them",
    "kv_cache_bytes": "KV cache in bf16",
    "flops_prefill": "FLOPs per token, prefill",
    "flops_decode": "FLOPs per token, decode",
}
_BYTES = ("weights_bf16", "weights_fp8", "weights_int4", "weights_int4_g128", "kv_cache_bytes")
_FLOPS = ("flops_prefill", "flops_decode")


def readable(key, value):
    """A summary value for reading: ``'16,060,522,496 B (14.96 GiB)'``,
    ``'8,030,261,248 (8.03B)'`` or ``'17,157,062,656 (17.16 GFLOP)'``."""
    if key in _BYTES:
        return f"{value:,} B ({human_bytes(value, 'GiB')})"
    if key in _FLOPS:
        return f"{value:,} ({value / 1e9:,.2f} GFLOP)"
    return f"{value:,} ({human_count(value)})"


def size_summary(cfg, seq_len=8192, batch=1):
    """The headline sizes of one model, exact: ``{key: int}`` for every key of
    :data:`SUMMARY_KEYS`. The KV cache is for ``batch`` sequences of ``seq_len``
    tokens in bf16; FLOPs are per token at context ``seq_len`` (prefill: the
    average over a prompt of that length; decode: one new token after it).
    ``weights_int4`` is the idealised figure (every parameter at 4 bits, nothing
    else); ``weights_int4_g128`` is int4 as GPTQ/AWQ checkpoints store it
    (:func:`llmcourse.stored_weights`, scheme ``int4-g128``)."""
    cfg = as_config(cfg)
    pc = param_count(cfg)
    return {
        "total_params": pc.total,
        "active_params": pc.active,
        "embedding_params": pc.embedding,
        "weights_bf16": weight_bytes(cfg, "bf16"),
        "weights_fp8": weight_bytes(cfg, "fp8"),
        "weights_int4": weight_bytes(cfg, "int4"),
        "weights_int4_g128": stored_weights(cfg, "int4-g128").total,
        "kv_cache_bytes": kv_cache_bytes(cfg, seq_len, batch, "bf16"),
        "flops_prefill": flops_per_token(cfg, seq_len, "prefill").total,
        "flops_decode": flops_per_token(cfg, seq_len, "decode").total,
    }


def change_percent(original, edited):
    """``(edited - original) / original`` in percent (0.0 when both are 0)."""
    if original == edited:
        return 0.0
    if not original:
        return float("inf")
    return 100.0 * (edited - original) / original


def compare_configs(original, edited, seq_len=8192, batch=1, formatted=True):
    """Original vs edited, one row per :data:`SUMMARY_KEYS` entry.

    Columns ``original`` and ``edited`` (exact integers: counts, bytes, FLOPs) and
    ``change %``. With ``formatted=True`` each number is written out exactly with its
    readable size beside it (``16,060,522,496 B (14.96 GiB)``) and the change gets a
    sign (``+63.41 %``); ``formatted=False`` keeps numbers.
    """
    import pandas as pd
    a, b = size_summary(original, seq_len, batch), size_summary(edited, seq_len, batch)
    df = pd.DataFrame(
        {"original": [a[k] for k in SUMMARY_KEYS], "edited": [b[k] for k in SUMMARY_KEYS],
         "change %": [round(change_percent(a[k], b[k]), 2) for k in SUMMARY_KEYS]},
        index=pd.Index(list(SUMMARY_KEYS.values()), name=f"context {seq_len:,} x batch {batch}"))
    df["original"] = df["original"].astype("int64")
    df["edited"] = df["edited"].astype("int64")
    if not formatted:
        return df
    out = df.copy()
    out["original"] = [readable(k, a[k]) for k in SUMMARY_KEYS]
    out["edited"] = [readable(k, b[k]) for k in SUMMARY_KEYS]
    out["change %"] = df["change %"].map("{:+,.2f} %".format)
    return out


def config_diff(original, edited):
    """The ``config.json`` fields that differ: ``[(field, old, new), ...]`` sorted by
    field name; a field one side lacks has ``None`` there (JSON's null). A nested
    object is compared field by field, its fields named by their path: a multimodal
    wrapper with half the layers differs in ``text_config.num_hidden_layers`` (48 → 24),
    not in a whole ``text_config``."""
    return _diff(_as_dict(original), _as_dict(edited), "")


def _diff(a, b, prefix):
    out = []
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if x == y:
            continue
        if isinstance(x, dict) and isinstance(y, dict):
            out.extend(_diff(x, y, f"{prefix}{k}."))
        else:
            out.append((f"{prefix}{k}", x, y))
    return out


def _as_dict(c):
    if isinstance(c, dict):
        return c
    return from_hf_config(c).to_hf_config()
