"""Tables for lesson 07: the accelerators, weights per scheme, and limits per model."""

from __future__ import annotations

from ..hardware import as_gpu, list_gpus
from ..inference import decode_step_time, max_batch, max_context
from ..quantization import AS_SHIPPED, list_schemes, stored_weights
from ..zoo import as_config
from . import fmt

__all__ = ["gpu_table", "weights_table", "limits_table", "kv_dtypes_table"]


def gpu_table(gpus=None, formatted=True):
    """One row per accelerator: memory (GB = 1e9 B, the datasheet's), what the runtime
    reports (GiB = 2^30 B, from a cited log or device query; "runtime unknown" where none was
    found, and "unified" where the CPU shares it), bandwidth (TB/s), dense peak TFLOP/s per
    dtype (blank: no such tensor cores), and the ridge point in FLOPs per byte at bf16 (above
    it a kernel is compute-bound)."""
    import pandas as pd
    rows, stand_ins = [], {}
    for name in gpus or list_gpus():
        g = as_gpu(name)
        p = g.peak_flops
        if "bf16" not in p and "fp16" not in p:     # no 16-bit rate published (Apple): bf16
            stand_ins[g.name] = g.peak("bf16")      # bounds use the figure the chip has
        rows.append({"gpu": g.name, "vendor": g.vendor, "memory (GB)": g.memory_bytes / 1e9,
                     "runtime reports (GiB)": (g.runtime_memory_bytes / 2**30
                                               if g.runtime_memory_known else float("nan")),
                     "bandwidth (TB/s)": g.bandwidth_bytes_per_s / 1e12,
                     "bf16 TFLOP/s": p.get("bf16", p.get("fp16", float("nan"))) / 1e12,
                     "fp8 TFLOP/s": p.get("fp8", float("nan")) / 1e12,
                     "int8 TOP/s": p.get("int8", float("nan")) / 1e12,
                     "FLOPs/byte (bf16)": g.critical_intensity("bf16")})
    df = pd.DataFrame(rows).set_index("gpu")
    if not formatted:
        return df
    out = fmt(df)
    for name in df.index:                  # say so beside the figure when it is unknown
        g = as_gpu(name)
        if not g.runtime_memory_known:
            out.loc[name, "runtime reports (GiB)"] = ("runtime unknown (unified)"
                                                       if g.unified_memory else
                                                       "runtime unknown")
        elif g.unified_memory:             # known total, shared with the CPU and the OS
            out.loc[name, "runtime reports (GiB)"] = (
                f"{df.loc[name, 'runtime reports (GiB)']:,.2f} (unified)")
    for gpu, flops in stand_ins.items():   # say which figure the ridge point was taken from
        out.loc[gpu, "bf16 TFLOP/s"] = f"{flops / 1e12:,.1f} ({as_gpu(gpu).peak_dtype('bf16')})"
    return out


def weights_table(model, schemes=None, formatted=True):
    """One row per weight scheme for ``model``: bytes as stored (values + scales +
    tensors kept in 16-bit) next to the idealised figure (every parameter at the scheme's
    value width, no scales: one definition for every scheme, so mxfp4's scales count as
    overhead like int4's) and the bytes over it."""
    import pandas as pd
    cfg = as_config(model)
    rows = []
    for s in schemes or list_schemes():
        sw = stored_weights(cfg, s)
        rows.append({"weights": s if s != AS_SHIPPED else f"as shipped ({sw.scheme})",
                     "stored (GB)": sw.total / 1e9, "low-bit values (GB)": sw.values / 1e9,
                     "scales+zeros (GB)": sw.scales / 1e9, "kept 16-bit (GB)": sw.kept / 1e9,
                     "idealised (GB)": sw.ideal / 1e9,
                     "over idealised": f"{100 * sw.overhead / sw.ideal:.1f}%"})
    df = pd.DataFrame(rows).set_index("weights")
    return fmt(df) if formatted else df


def limits_table(models, gpu, n_gpus=1, weights=AS_SHIPPED, kv_dtype="bf16", batch=1,
                 seq_len=8192, formatted=True):
    """One row per model on one setup: weights, the longest context at ``batch`` (memory)
    beside ``max_position_embeddings``, the largest batch at ``seq_len``, and the
    decode bound at batch 1 and ``seq_len`` -- blank when the weights alone do not fit (a
    setup that cannot load has no speed)."""
    import pandas as pd
    rows = []
    for m in models:
        cfg = as_config(m)
        row = {"model": cfg.name}
        weights_fit = True
        try:
            lim = max_context(cfg, gpu, n_gpus, weights, kv_dtype, batch=batch)
            row[f"longest context in memory, batch {batch}"] = ("no limit" if lim.tokens is None
                                                                else f"{lim.tokens:,}")
        except ValueError as e:
            field = str(e).split(':')[0]
            weights_fit = field != "weights"
            row[f"longest context in memory, batch {batch}"] = f"none ({field})"
        mpe = cfg.get("max_position_embeddings")
        row["max_position_embeddings"] = f"{mpe:,}" if mpe else "?"
        try:
            row[f"largest batch at {seq_len:,}"] = f"{max_batch(cfg, gpu, n_gpus, weights, kv_dtype, seq_len=seq_len):,}"
        except ValueError as e:
            row[f"largest batch at {seq_len:,}"] = f"none ({str(e).split(':')[0]})"
        if mpe and seq_len > mpe:
            row[f"largest batch at {seq_len:,}"] += " (beyond max_position_embeddings)"
        row["decode tokens/s, batch 1 (bound)"] = (decode_step_time(
            cfg, gpu, n_gpus, weights, kv_dtype, seq_len, 1).tokens_per_s_per_user
            if weights_fit else float("nan"))
        rows.append(row)
    df = pd.DataFrame(rows).set_index("model")
    return fmt(df) if formatted else df


def kv_dtypes_table(model="Llama-3.1-8B"):
    """vLLM's cache dtypes (:data:`llmcourse.vllm_kv.KV_CACHE_DTYPES`): the first release that
    accepts each, the attention backend that reads it, the bytes one token takes in ``model``'s
    cache (values and the scales the page holds) and where that is written."""
    import re

    import pandas as pd
    from ..vllm_kv import KV_CACHE_DTYPES
    from ..zoo import as_config
    cfg = as_config(model)
    rows = []
    for name, d in KV_CACHE_DTYPES.items():
        if name in ("bfloat16", "float16"):
            continue
        per_head = d.bytes_per_token_head(cfg.head_dim)
        rows.append({"kv_cache_dtype": name, "first release": d.since,
                     "backend": d.backend or "any", "bytes per token": (
                         cfg.num_hidden_layers * cfg.num_key_value_heads * per_head),
                     "where": ("vLLM PR " + ", ".join(re.findall(r"pull/(\d+)", d.source))
                               if "pull/" in d.source else "vllm/config/cache.py")})
    return pd.DataFrame(rows).set_index("kv_cache_dtype")
