"""Rules of thumb next to the exact counts, and the comparison tables of lessons 4 and 5.

The pure functions here (``approx_params_12Ld2``, ``layer_params`` ...) use the
standard library only. The ``*_table`` functions return pandas DataFrames and
import pandas when called (as :func:`llmcourse.weight_shapes` does).

An approximation is always shown next to the exact engine figure:

    >>> import llmcourse as lc
    >>> from llmcourse import approx
    >>> cfg = lc.load_model("Meta-Llama-3-8B")
    >>> approx.approx_params_12Ld2(cfg), approx.layer_params(cfg)
    (6442450944, 6979584000)
"""

from __future__ import annotations

from fractions import Fraction

from .architectures import global_tensors, layer_groups
from .counts import flops_per_token, kv_cache_bytes_per_token_per_layer, param_count, weight_bytes
from .units import GiB
from .zoo import as_config, list_models, load_model

__all__ = ["approx_params_12Ld2", "layer_params", "outside_layers_params", "moe_layer_count",
           "dense_models", "moe_models", "twelve_ld2_table", "embedding_table",
           "depth_change_table", "depth_width_table", "moe_table", "active_conventions_table",
           "mla_check_table", "mla_kv_table", "PUBLISHED", "SEQ_LEN"]

SEQ_LEN = 4096  # the prompt length the lessons quote FLOPs per token at


def _labelled(m):
    """A zoo name, a config, or a ``(label, config)`` pair -> (label, config)."""
    if isinstance(m, tuple):
        return m[0], as_config(m[1])
    cfg = as_config(m)
    return cfg.name, cfg


# --- pure formulas ------------------------------------------------------------------

def approx_params_12Ld2(cfg):
    """The textbook estimate of the parameters in the decoder layers: 12 * L * d**2.

    Per layer it assumes 4 d x d attention matrices (q, k, v, o: one KV head per
    query head, heads x head_dim = d) and a 2-matrix MLP 4x wider than d
    (2 x 4d x d = 8 d**2). Embedding, lm_head, norms and biases are left out.
    """
    cfg = as_config(cfg)
    return 12 * cfg.num_hidden_layers * cfg.hidden_size ** 2


def outside_layers_params(cfg):
    """Exact parameters outside the decoder layers: embedding, final norm and an
    untied lm_head (a tied lm_head shares the embedding and counts once)."""
    cfg = as_config(cfg)
    return sum(t.numel for t in global_tensors(cfg) if not t.tied)


def layer_params(cfg):
    """Exact parameters inside the decoder layers (what 12 * L * d**2 estimates)."""
    cfg = as_config(cfg)
    return param_count(cfg).total - outside_layers_params(cfg)


def moe_layer_count(cfg):
    """How many layers hold routed experts (the rest have a dense MLP)."""
    cfg = as_config(cfg)
    return sum(len(idx) for idx, ts in layer_groups(cfg) if any(t.routed for t in ts))


def dense_models():
    """Zoo models without experts."""
    return [m for m in list_models() if not load_model(m).is_moe]


def moe_models():
    """Zoo models with routed experts."""
    return [m for m in list_models() if load_model(m).is_moe]


# --- tables -------------------------------------------------------------------------

def _frame(rows, formatted, index="model", sort=None):
    import pandas as pd
    df = pd.DataFrame(rows).set_index(index)
    if sort:
        df = df.sort_values(sort, kind="stable")
    if formatted:
        from .tables import fmt
        df = fmt(df)
    return df


def _pct(a, b, digits=2):
    return float(round(Fraction(100 * a, b), digits))


def twelve_ld2_table(models=None, formatted=True):
    """12 * L * d**2 next to the exact parameters in the layers, per model.

    ``error %`` is (estimate - exact) / exact. The ``/ (L·d²)`` columns say how
    many d x d matrices' worth each part really holds per layer (the rule assumes
    attention 4 and MLP 8).
    """
    rows = []
    for m in (models if models is not None else dense_models()):
        cfg = as_config(m)
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
            "exact / (L·d²)": float(round(Fraction(exact, ld2), 2)),
            "exact total": pc.total,
            "error % vs total": _pct(est - pc.total, pc.total),
        })
    return _frame(rows, formatted)


def embedding_table(models=None, formatted=True):
    """How much of each model is its token embedding (and an untied lm_head)."""
    rows = []
    for m in (models if models is not None else dense_models()):
        cfg = as_config(m)
        pc = param_count(cfg)
        head = pc.components["lm_head"]
        rows.append({"model": cfg.name, "vocab": cfg.vocab_size, "hidden d": cfg.hidden_size,
                     "tied": cfg.tie_word_embeddings, "total": pc.total,
                     "embedding": pc.embedding, "lm_head (untied)": head,
                     "embedding %": _pct(pc.embedding, pc.total, 1),
                     "embedding + lm_head %": _pct(pc.embedding + head, pc.total, 1)})
    return _frame(rows, formatted, sort="total")


def depth_change_table(model, num_hidden_layers, seq_len=SEQ_LEN, formatted=True):
    """A model at its own depth and at ``num_hidden_layers``: params, FLOPs, KV cache."""
    import pandas as pd
    base = as_config(model)
    new = base.replace(num_hidden_layers=num_hidden_layers)
    out = {}
    for label, cfg in ((f"{base.num_hidden_layers} layers", base),
                       (f"{num_hidden_layers} layers", new)):
        pc = param_count(cfg)
        fl = flops_per_token(cfg, seq_len)
        out[label] = {
            "params in the layers": layer_params(cfg),
            "embedding + lm_head + final norm": outside_layers_params(cfg),
            "non-embedding (total - embedding)": pc.non_embedding,
            "total params": pc.total,
            "matmul FLOPs/token": fl.matmul,
            f"attention FLOPs/token ({seq_len:,}-token prompt)": fl.attention,
            "FLOPs/token, total": fl.total,
            "KV cache bytes/token (bf16, all layers)":
                kv_cache_bytes_per_token_per_layer(cfg) * cfg.num_hidden_layers,
        }
    df = pd.DataFrame(out)
    a, b = df.columns
    ratio = [float(round(Fraction(int(y), int(x)), 4)) for x, y in zip(df[a], df[b])]
    df = df.astype("int64")
    if formatted:
        from .tables import fmt
        df = fmt(df)
    df["ratio"] = ratio if not formatted else [f"{r:.4f}" for r in ratio]
    df.index.name = base.name
    return df


def depth_width_table(models, seq_len=SEQ_LEN, formatted=True):
    """Where the parameters go in models of similar size but different shape."""
    rows = []
    for m in models:
        cfg = as_config(m)
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
                     "FLOPs/token": flops_per_token(cfg, seq_len).total})
    return _frame(rows, formatted)


def _attention_kind(cfg):
    kind = cfg.attention_kind
    return kind if kind in ("MLA", "MHA") else \
        f"{kind} {cfg.num_attention_heads}:{cfg.num_key_value_heads}"


def moe_table(models=None, seq_len=SEQ_LEN, formatted=True):
    """Experts, top-k, shared experts, dense layers; total vs active; bytes; FLOPs/token.

    ``models``: zoo names, configs or ``(label, config)`` pairs (for what-ifs)."""
    rows = []
    for m in (models if models is not None else moe_models()):
        name, cfg = _labelled(m)
        pc = param_count(cfg)
        moe_layers = moe_layer_count(cfg)
        size = (cfg.get("moe_intermediate_size") if cfg.model_type in
                ("qwen3_moe", "deepseek_v2", "deepseek_v3") else cfg.intermediate_size)
        rows.append({
            "model": name, "attention": _attention_kind(cfg),
            "layers": cfg.num_hidden_layers, "dense-MLP layers": cfg.num_hidden_layers - moe_layers,
            "experts": cfg.num_experts, "top-k": cfg.num_experts_per_tok,
            "shared": cfg.get("n_shared_experts", 0) if cfg.uses_mla else 0,
            "expert intermediate": size if cfg.is_moe else 0,
            "total params": pc.total, "active params": pc.active,
            "active %": _pct(pc.active, pc.total, 1),
            "bf16 GiB": float(round(Fraction(weight_bytes(cfg, "bf16"), GiB), 2)),
            "fp8 GiB": float(round(Fraction(weight_bytes(cfg, "fp8"), GiB), 2)),
            "GFLOPs/token": float(round(Fraction(flops_per_token(cfg, seq_len).total, 10**9), 2)),
        })
    return _frame(rows, formatted)


# What the publishers say (quoted from the model cards / papers, for comparison only).
PUBLISHED = {
    "DeepSeek-V3": ("671B", "37B", "DeepSeek-V3 technical report"),
    "DeepSeek-V2": ("236B", "21B", "DeepSeek-V2 paper"),
    "Qwen3-30B-A3B": ("30.5B", "3.3B", "Qwen3-30B-A3B model card"),
    "Qwen3-235B-A22B": ("235B", "22B", "Qwen3-235B-A22B model card"),
    "Mixtral-8x7B-v0.1": ("46.7B", "12.9B", "Mistral AI, Mixtral of experts"),
    "gpt-oss-20b": ("21B", "3.6B", "OpenAI gpt-oss model card"),
}


def active_conventions_table(models=None, formatted=True):
    """Published 'active' figures next to the engine's active count with and
    without the embedding and the lm_head (unembedding)."""
    rows = []
    for m in (models if models is not None else list(PUBLISHED)):
        cfg = as_config(m)
        pc = param_count(cfg)
        pub_total, pub_active, _src = PUBLISHED.get(cfg.name, ("", "", ""))
        head = pc.components["lm_head"]
        rows.append({"model": cfg.name, "published total": pub_total,
                     "published active": pub_active,
                     "engine total": pc.total,
                     "engine active (embedding + lm_head in)": pc.active,
                     "active - embedding": pc.active - pc.embedding,
                     "active - embedding - lm_head": pc.active - pc.embedding - head})
    return _frame(rows, formatted)


# seed 001's attention matrices for DeepSeek-V3, as the seed lists them (in, out)
_SEED001_ATTENTION = [("Q 7168×16384", 7168 * 16384), ("K 7168×16384", 7168 * 16384),
                      ("V 7168×16384", 7168 * 16384), ("O 16384×7168", 16384 * 7168),
                      ("Q LoRA 7168×1536", 7168 * 1536), ("Q LoRA 1536×16384", 1536 * 16384),
                      ("KV LoRA 7168×512", 7168 * 512), ("KV LoRA 512×16384", 512 * 16384)]


def mla_check_table(model="DeepSeek-V3", formatted=True):
    """Attention parameters per layer: seed 001's list (full Q/K/V plus low-rank)
    against the checkpoint's MLA tensors (low-rank only, RMSNorm weights)."""
    import pandas as pd
    cfg = as_config(model)
    from .counts import weight_shapes
    ws = weight_shapes(cfg)
    first = ws[(ws.layer == 0) & ws.name.str.contains(".self_attn.")]
    rows = [("checkpoint", r.name.split("self_attn.")[1], str(tuple(r.shape)), int(r.numel))
            for r in first.itertuples()]
    rows += [("seed 001", label, "", n) for label, n in _SEED001_ATTENTION]
    df = pd.DataFrame(rows, columns=["source", "tensor", "shape (out, in)", "params"])
    sums = df.groupby("source", sort=False)["params"].sum()
    df = pd.concat([df, pd.DataFrame(
        [("checkpoint", "per layer, sum", "", int(sums["checkpoint"])),
         ("seed 001", "per layer, sum", "", int(sums["seed 001"]))],
        columns=df.columns)], ignore_index=True)
    df = df.sort_values("source", kind="stable").set_index(["source", "tensor"])
    if formatted:
        from .tables import fmt
        df = fmt(df)
    return df


def mla_kv_table(formatted=True):
    """KV cache per token per layer (bf16): DeepSeek-V3's MLA latent against full
    multi-head K and V for its 128 heads, and against GQA models of the zoo."""
    ds = load_model("DeepSeek-V3")
    mla = kv_cache_bytes_per_token_per_layer(ds)
    # full K (qk_nope + qk_rope = 192) and V (128) for each of the 128 heads, 2 bytes each
    full = ds.num_attention_heads * (ds.qk_nope_head_dim + ds.qk_rope_head_dim + ds.v_head_dim) * 2
    rows = [{"cache of": "DeepSeek-V3 MLA: latent 512 + RoPE key 64", "bytes/token/layer": mla},
            {"cache of": "DeepSeek-V3 if it cached K and V of 128 heads",
             "bytes/token/layer": full}]
    for m in ("Meta-Llama-3-70B", "Qwen3-235B-A22B", "Qwen3-30B-A3B"):
        c = load_model(m)
        rows.append({"cache of": f"{m} ({_attention_kind(c)}, head_dim {c.head_dim})",
                     "bytes/token/layer": kv_cache_bytes_per_token_per_layer(c)})
    for r in rows:
        r["MLA saves %"] = _pct(r["bytes/token/layer"] - mla, r["bytes/token/layer"], 1)
    return _frame(rows, formatted, index="cache of")
