"""pandas tables of real models, formatted for reading (thousands separators, units).

``model_table(models, columns)`` builds one row per model from the engine;
``columns`` are names from :data:`COLUMNS` (config fields or derived figures).
With ``formatted=False`` the numbers stay numbers, for plotting or checking.
"""

from __future__ import annotations

from fractions import Fraction

from ..counts import kv_cache_bytes, param_count, weight_bytes
from ..units import GiB
from ..zoo import as_config, list_models

__all__ = ["COLUMNS", "model_table", "fmt", "census"]


def _pc(c):
    return param_count(c)


# name -> (header, function of a ModelConfig)
COLUMNS = {
    "model_type": ("model_type", lambda c: c.model_type),
    "hidden_size": ("hidden_size", lambda c: c.hidden_size),
    "num_hidden_layers": ("layers", lambda c: c.num_hidden_layers),
    "num_attention_heads": ("heads", lambda c: c.num_attention_heads),
    "num_key_value_heads": ("kv_heads", lambda c: c.num_key_value_heads),
    "head_dim": ("head_dim", lambda c: c.head_dim),
    "heads_x_head_dim": ("heads×head_dim", lambda c: c.num_attention_heads * c.head_dim),
    "gqa_ratio": ("q:kv", lambda c: "MLA (latent cache)" if c.uses_mla else
                  f"{c.num_attention_heads}:{c.num_key_value_heads} = "
                  f"{c.num_attention_heads // c.num_key_value_heads}:1"),
    "intermediate_size": ("intermediate_size", lambda c: c.intermediate_size),
    "ffn_ratio": ("intermediate/hidden", lambda c: round(c.intermediate_size / c.hidden_size, 3)),
    "moe_intermediate_size": ("moe_intermediate", lambda c: c.get("moe_intermediate_size", 0)),
    "vocab_size": ("vocab_size", lambda c: c.vocab_size),
    "tie_word_embeddings": ("tied", lambda c: c.tie_word_embeddings),
    "num_experts": ("experts", lambda c: c.num_experts),
    "num_experts_per_tok": ("top_k", lambda c: c.num_experts_per_tok),
    "total": ("total params", lambda c: _pc(c).total),
    "active": ("active params", lambda c: _pc(c).active),
    "embedding": ("embedding params", lambda c: _pc(c).embedding),
    "non_embedding": ("non-embedding", lambda c: _pc(c).non_embedding),
    "embedding_share": ("embedding %", lambda c: round(100 * _pc(c).embedding / _pc(c).total, 1)),
    "weights_bf16_gib": ("bf16 weights (GiB)", lambda c: round(weight_bytes(c, "bf16") / GiB, 2)),
    "kv_bytes_per_token": ("KV bytes/token (bf16)",  # every caching layer, one token
                           lambda c: kv_cache_bytes(c, 1)),
}


def model_table(models=None, columns=("hidden_size", "num_hidden_layers", "num_attention_heads",
                                      "num_key_value_heads", "head_dim", "intermediate_size",
                                      "total"), formatted=True):
    """One row per model (zoo names or configs), one column per name in ``columns``."""
    import pandas as pd
    cfgs = [as_config(m) for m in (models if models is not None else list_models())]
    unknown = [c for c in columns if c not in COLUMNS]
    if unknown:
        raise ValueError(f"columns: unknown {unknown}; choose from {', '.join(COLUMNS)}")
    data = {COLUMNS[c][0]: [COLUMNS[c][1](cfg) for cfg in cfgs] for c in columns}
    df = pd.DataFrame(data, index=pd.Index([c.name for c in cfgs], name="model"))
    return fmt(df) if formatted else df


def fmt(df):
    """A copy with integers as '1,234,567' and floats with two decimals (for reading)."""
    out = df.copy()
    for col in out.columns:
        s = out[col]
        if s.dtype.kind in "iu":
            out[col] = s.map("{:,}".format)
        elif s.dtype.kind == "f":
            out[col] = s.map(lambda v: f"{v:,.2f}".rstrip("0").rstrip(".") if v == v else "")
    return out


def census(cfg, formatted=True):
    """Parameters per component with their share of the total (sums to the total)."""
    import pandas as pd
    pc = param_count(as_config(cfg))
    rows = [(k, v, Fraction(100 * v, pc.total)) for k, v in pc.components.items() if v]
    df = pd.DataFrame([(k, v, float(round(p, 1))) for k, v, p in rows],
                      columns=["component", "parameters", "% of total"]).set_index("component")
    df.loc["total"] = [pc.total, 100.0]
    df["parameters"] = df["parameters"].astype("int64")
    if not formatted:
        return df
    out = fmt(df)
    out["% of total"] = df["% of total"].map("{:.1f}".format)   # the course's one decimal
    return out


from .anatomy import *  # noqa: E402,F401,F403  (lesson 0's tables)
from .heads import *  # noqa: E402,F401,F403  (lesson 1's tables)
from .kvcache import *  # noqa: E402,F401,F403  (lessons 2-4's tables)
from .ffn import *  # noqa: E402,F401,F403  (lesson 5's tables)
from .depth import *  # noqa: E402,F401,F403  (lesson 6's tables)
from .moe import *  # noqa: E402,F401,F403  (lesson 7's tables)
from .inference import gpu_table, limits_table, weights_table  # noqa: E402,F401  (lesson 9 and its appendix)
