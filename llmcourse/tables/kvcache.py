"""Tables for the GQA / KV-cache lesson: many models at once (the reader computes one
model by hand in the notebook; these serve the comparison)."""

from __future__ import annotations

from ..counts import kv_cache_bytes
from ..sizing import full_attention_twin
from ..units import GiB
from ..zoo import as_config

__all__ = ["kv_cache_grid", "sliding_window_table", "context_label"]


def context_label(n):
    """8192 -> '8K', 131072 -> '128K', 40960 -> '40K', 1000 -> '1,000'."""
    return f"{n // 1024:,}K" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def kv_cache_grid(models, contexts=(8192, 32768, 131072), batches=(1, 8), dtype="bf16",
                  weights=None):
    """KV cache in GiB for each model at each (context, batch), as text with two
    decimals. A context beyond the model's ``max_position_embeddings`` is marked with a
    dagger, "4.00 †" (short, so that eight columns fit a 1280-pixel screen): the model was
    not trained for it, the bytes are a what-if.

    ``weights``: optional ``{model name: (bytes, "how stored")}`` to add a column
    of weight sizes next to the cache.
    """
    import pandas as pd
    cfgs = [as_config(m) for m in models]
    tops = [c.get("max_position_embeddings") or float("inf") for c in cfgs]
    data = {"max context": [f"{t:,}" if t != float("inf") else "not given" for t in tops]}
    for b in batches:
        for n in contexts:
            col = []
            for c, top in zip(cfgs, tops):
                gib = kv_cache_bytes(c, n, b, dtype) / GiB
                col.append(f"{gib:,.2f}" + (" †" if n > top else ""))
            data[f"{context_label(n)} × {b} (GiB)"] = col
    if weights:
        data["weights (GiB)"] = [f"{weights[c.name][0] / GiB:,.2f} ({weights[c.name][1]})"
                                 if c.name in weights else "" for c in cfgs]
    return pd.DataFrame(data, index=pd.Index([c.name for c in cfgs], name="model"))


def sliding_window_table(models, contexts=(4096, 8192, 32768, 131072), dtype="bf16"):
    """Each model's cache as shipped, as a percentage of the same model with every
    layer full attention and its own KV heads (:func:`~llmcourse.sizing.full_attention_twin`;
    one decimal); contexts past the model's maximum say so."""
    import pandas as pd
    rows = {}
    for m in models:
        c = as_config(m)
        top = c.get("max_position_embeddings") or float("inf")
        full = full_attention_twin(c)
        row = {"window": f"{c.sliding_window:,}" if c.sliding_window else "none",
               "sliding layers": f"{c.layer_types.count('sliding_attention')} of "
                                 f"{c.num_hidden_layers}",
               "max context": f"{top:,}" if top != float("inf") else "not given"}
        for n in contexts:
            if n > top:
                row[f"{context_label(n)} tokens"] = "beyond max"
            else:
                share = kv_cache_bytes(c, n, 1, dtype) / kv_cache_bytes(full, n, 1, dtype)
                row[f"{context_label(n)} tokens"] = f"{100 * share:.1f}%"
        rows[c.name] = row
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("model")
