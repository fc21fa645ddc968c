"""Tables for lessons 9 and 10 and the serving appendix: the accelerators, weights per scheme,
limits per model, vLLM's cache dtypes, and the published startup logs and decode speeds the
engine is checked against."""

from __future__ import annotations

from ..hardware import as_gpu, list_gpus
from ..inference import decode_step_time, max_batch, max_context
from ..quantization import AS_SHIPPED, list_schemes, stored_weights
from ..zoo import as_config
from . import fmt

__all__ = ["gpu_table", "weights_table", "limits_table", "kv_dtypes_table", "decode_speeds_table",
           "vllm_logs_table", "layout_checks_table"]


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


_MONTH = ("(January|February|March|April|May|June|July|August|September|October|November|"
          "December) \\d{4}")


def _short_version(text):
    """An engine version as a table cell: the release number where there is one ("0.6.3"),
    else what the source says in a few words ("source build, May 2024")."""
    import re
    m = re.match(r"v?\d+\.\d+[\w.]*", text)
    if m:
        return m.group(0)
    when = re.search(_MONTH, text)
    head = text.split(",")[0].split(" (")[0].replace("llama.cpp built from source",
                                                      "source build")
    return f"{head}, {when.group(0)}" if when and when.group(0) not in head else head


def _gguf_format(row):
    """The GGUF file type a row's checkpoint is ("gguf-q4_k_m"), if the engine stores it."""
    from ..quantization import GGUF_FTYPES
    fmt = str(row.get("weight_format") or "")
    if fmt.upper().startswith("GGUF "):
        name = "gguf-" + fmt.split(" ", 1)[1].lower()
        if name in GGUF_FTYPES:
            return name
    return None


def decode_speeds_table(formatted=True):
    """One row per published batch-1 decode speed (``llmcourse/data/decode_speeds.json``):
    engine and version, model, GPU (as the GPU table names it) and how many, the checkpoint's
    format and its weights in GB (a scheme's exact bytes; a GGUF file's tensors by
    llama.cpp's own type rule, ``stored_weights(cfg, "gguf-q4_k_m")``), the context, the
    measured tokens/s beside lesson 10's estimate made without the row (leave-one-out) and
    its band, and whether the nested out-of-sample check holds it."""
    import pandas as pd
    from ..decode_speed import (_fixture_configs, decode_speed_band_check, decode_speed_loo,
                                decode_speeds)
    loo = {x.id: x for x in decode_speed_loo()}
    check = decode_speed_band_check()
    lo, hi = check.band
    configs = _fixture_configs()
    rows = []
    for r in decode_speeds()["rows"]:
        cfg = configs.get(r["config"]) or as_config(r["config"])
        scheme = _gguf_format(r) or r.get("weights") or AS_SHIPPED
        x = loo[r["id"]]
        rows.append({"id": r["id"], "engine": r["engine"],
                     "version": _short_version(r["engine_version"]),
                     "model": r["model"].split("/")[-1], "GPU": r["gpu"],
                     "GPUs": r["tensor_parallel_size"], "format": r.get("weight_format") or scheme,
                     "weights (GB)": stored_weights(cfg, scheme).total / 1e9,
                     "context": r["seq_len"], "tokens/s": x.measured_tokens_per_s,
                     "estimate": x.predicted_tokens_per_s,
                     "band": f"{x.predicted_tokens_per_s * lo:,.0f}-{x.predicted_tokens_per_s * hi:,.0f}",
                     "in band": r["id"] not in check.outside})
    df = pd.DataFrame(rows).set_index("id")
    return fmt(df) if formatted else df


def _gpu_name(gpu):
    name = gpu["name"] if isinstance(gpu, dict) else str(gpu)
    return name.split(" (")[0]


def vllm_logs_table(formatted=True):
    """One row per published vLLM startup log the plan is checked against
    (``llmcourse.serving.vllm_logs(usable=True)``): model, GPU, TP, the release whose
    accounting it ran, the outcome, and the KV budget the log prints beside lesson 9's plan
    for the same launch (GiB, as vLLM prints it)."""
    import pandas as pd
    from ..serving import log_plan, vllm_logs
    rows = []
    for r in vllm_logs(usable=True):
        plan = log_plan(r)
        logged = r["logged"].get("kv_gib")
        planned = plan.kv_budget_bytes / 2**30
        rows.append({"id": r["id"], "model": r["model"].split("/")[-1],
                     "GPU": _gpu_name(r["gpu"]), "TP": r.get("tensor_parallel_size") or 1,
                     "vLLM": plan.vllm_version, "outcome": r["outcome"],
                     "logged KV (GiB)": logged, "plan KV (GiB)": planned,
                     "plan - logged": ("" if logged is None else
                                       f"{100 * (planned - logged) / logged:+.1f}%")})
    df = pd.DataFrame(rows).set_index("id")
    return fmt(df) if formatted else df


def layout_checks_table(formatted=True):
    """The published logs kept as checks of vLLM's KV cache layout (rows of
    ``vllm_logs.json`` with ``layout_check``: hybrid and sliding-window models whose budget
    the plan does not model whole): from the logged "Available KV cache memory", the plan's
    layout gives "GPU KV cache size" and "Maximum concurrency", beside the logged ones."""
    import pandas as pd
    from ..serving import GiB, log_configs, vllm_logs, vllm_plan
    rows = []
    carried = log_configs()
    for r in vllm_logs():
        if "layout_check" not in r:
            continue
        kv = r["logged"]["kv_gib"]
        # the layout does not depend on the GPU: a row whose GPU is not named is laid out on
        # a stand-in with the same defaults for the settings the row leaves out
        plan = vllm_plan(carried.get(r["config"], r["config"]), r["gpu"] or "H200",
                         vllm_version=r["budget_release"],
                         kv_cache_memory_bytes=round(kv * GiB), **r["layout_check"])
        rows.append({"id": r["id"], "model": plan.model,
                     "GPU": _gpu_name(r["gpu"]) if r["gpu"] else "not named",
                     "vLLM": plan.vllm_version, "max_model_len": plan.max_model_len,
                     "logged KV (GiB)": kv, "logged tokens": r["logged"]["kv_tokens"],
                     "plan tokens": plan.kv_tokens,
                     "logged concurrency": r["logged"].get("max_concurrency"),
                     "plan concurrency": round(plan.max_concurrency, 2)})
    df = pd.DataFrame(rows).set_index("id")
    return fmt(df) if formatted else df
