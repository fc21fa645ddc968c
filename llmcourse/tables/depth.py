"""Tables of lesson 6 (depth and width): many models side by side.

The lesson derives 12·L·d² and the exact layer count in its own cells for one
model; these tables repeat that arithmetic for the whole zoo, where retyping it
would teach nothing. Numbers come from the engine (:mod:`llmcourse.counts`) and
the pure helpers of :mod:`llmcourse.approx`.
"""

from __future__ import annotations

from fractions import Fraction

from ..approx import (SEQ_LEN, approx_params_12Ld2, dense_models, layer_params,
                      outside_layers_params, prompt_len)
from ..counts import flops_per_token, kv_cache_bytes, param_count
from ..zoo import as_config

__all__ = ["twelve_ld2_table", "embedding_table", "depth_change_table", "depth_width_table"]


def _frame(rows, formatted, index="model", sort=None):
    import pandas as pd
    df = pd.DataFrame(rows).set_index(index)
    if sort:
        df = df.sort_values(sort, kind="stable")
    return _fmt(df) if formatted else df


def _fmt(df):
    """Thousands separators; percentages with one decimal, d x d multiples with two."""
    from . import fmt
    out = fmt(df)
    for col in df.columns:
        if "%" in col:
            out[col] = df[col].map("{:.1f}".format)
        elif "/ (L·d²)" in col:
            out[col] = df[col].map("{:.2f}".format)
    return out


def _pct(a, b, digits=1):
    return float(round(Fraction(100 * a, b), digits))


def twelve_ld2_table(models=None, formatted=True):
    """12 * L * d**2 next to the exact parameters in the layers, per model.

    ``error %`` is (estimate - exact) / exact, one decimal. The ``/ (L·d²)``
    columns say how many d x d matrices' worth each part really holds per layer
    (the rule assumes attention 4 and MLP 8).
    """
    rows = []
    for m in (models if models is not None else dense_models()):
        cfg = as_config(m).text_model   # the language model: a wrapper's towers aside
        pc = param_count(cfg)
        L, d = cfg.num_hidden_layers, cfg.hidden_size
        exact, est = layer_params(cfg), approx_params_12Ld2(cfg)
        ld2 = L * d * d
        rows.append({
            "model": cfg.name, "layers L": L, "hidden d": d,
            "exact, in layers": exact, "12·L·d²": est,
            "error %": _pct(est - exact, exact),
            "attention / (L·d²)": float(round(Fraction(pc.components["attention"], ld2), 2)),
            "MLP / (L·d²)": float(round(Fraction(pc.components["mlp"], ld2), 2)),
            "exact total": pc.total,
            "error % vs total": _pct(est - pc.total, pc.total),
        })
    return _frame(rows, formatted)


def embedding_table(models=None, formatted=True):
    """How much of each model is its token embedding (and an untied lm_head)."""
    rows = []
    for m in (models if models is not None else dense_models()):
        cfg = as_config(m).text_model   # the language model: a wrapper's towers aside
        pc = param_count(cfg)
        head = pc.components["lm_head"]
        rows.append({"model": cfg.name, "vocab": cfg.vocab_size, "hidden d": cfg.hidden_size,
                     "tied": cfg.tie_word_embeddings, "total": pc.total,
                     "embedding": pc.embedding, "lm_head (untied)": head,
                     "embedding %": _pct(pc.embedding, pc.total),
                     "embedding + lm_head %": _pct(pc.embedding + head, pc.total)})
    return _frame(rows, formatted, sort="total")


def depth_change_table(model, num_hidden_layers, seq_len=SEQ_LEN, formatted=True):
    """A model at its own depth and at ``num_hidden_layers``: params, FLOPs, KV cache."""
    import pandas as pd
    from . import fmt
    base = as_config(model).text_model
    new = base.replace(num_hidden_layers=num_hidden_layers)
    n = prompt_len(base, seq_len)   # never past the model's context (gpt2: 1,024)
    prompt = f"{n:,}-token prompt" + ("" if n == seq_len else ", the model's whole context")
    out = {}
    for label, cfg in ((f"{base.num_hidden_layers} layers", base),
                       (f"{num_hidden_layers} layers", new)):
        pc = param_count(cfg)
        fl = flops_per_token(cfg, n)
        out[label] = {
            "params in the layers": layer_params(cfg),
            "embedding + lm_head + final norm": outside_layers_params(cfg),
            "total - token embedding": pc.non_embedding,
            "total params": pc.total,
            "matmul FLOPs/token": fl.matmul,
            f"attention FLOPs/token ({prompt})": fl.attention,
            "FLOPs/token, total": fl.total,
            "KV cache bytes/token (bf16, all layers)": kv_cache_bytes(cfg, 1),
        }
    df = pd.DataFrame(out)
    a, b = df.columns
    ratio = [float(round(Fraction(int(y), int(x)), 3)) for x, y in zip(df[a], df[b])]
    df = df.astype("int64")
    if formatted:
        df = fmt(df)
        df["ratio"] = [f"{r:.3f}" for r in ratio]
    else:
        df["ratio"] = ratio
    df.index.name = base.name
    return df


def depth_width_table(models, seq_len=SEQ_LEN, formatted=True):
    """Where the parameters go in models of similar size but different shape."""
    rows = []
    for m in models:
        cfg = as_config(m).text_model
        pc = param_count(cfg)
        L = cfg.num_hidden_layers
        inside = layer_params(cfg)
        rows.append({"model": cfg.name, "layers L": L, "hidden d": cfg.hidden_size,
                     "heads×head_dim": cfg.num_attention_heads * cfg.head_dim,
                     "kv heads": cfg.num_key_value_heads,
                     "intermediate": cfg.intermediate_size,
                     "params per layer": inside // L,
                     "params in layers": inside,
                     "embedding + lm_head": pc.embedding + pc.components["lm_head"],
                     "total": pc.total,
                     "GFLOP/token": float(round(Fraction(flops_per_token(cfg, seq_len).total,
                                                         10**9), 2))})
    return _frame(rows, formatted)
