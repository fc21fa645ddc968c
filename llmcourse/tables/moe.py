"""Tables of lesson 7 (mixture of experts versus dense): many models side by side.

The lesson computes total and active parameters in its own cells for one model;
these tables repeat the engine's exact figures for every MoE model of the zoo,
and set them next to what each publisher says.
"""

from __future__ import annotations

from fractions import Fraction

from ..approx import SEQ_LEN, expert_size_field, moe_models
from ..counts import (flops_per_token, kv_cache_bytes_per_token_per_layer, param_count,
                      weight_bytes)
from ..units import GiB
from ..zoo import as_config, load_model
from .depth import _frame, _pct

__all__ = ["moe_table", "layer_kinds", "active_conventions_table", "mla_check_table",
           "mla_kv_table", "PUBLISHED", "LinkedTable"]


def _labelled(m):
    """A zoo name, a config, or a ``(label, config)`` pair -> (label, config)."""
    if isinstance(m, tuple):
        return m[0], as_config(m[1])
    cfg = as_config(m)
    return cfg.name, cfg


def _attention_kind(cfg):
    kind = cfg.attention_kind
    return kind if kind in ("MLA", "MHA") else \
        f"{kind} {cfg.num_attention_heads}:{cfg.num_key_value_heads}"


# how the appendix's layer-kinds column names each kind of layer (llmcourse.layers kinds)
_KIND_WORDS = {"full_attention": "full", "sliding_attention": "sliding",
               "linear_attention": "linear", "indexed_attention": "indexed",
               "compressed_sparse_attention": "compressed",
               "heavily_compressed_attention": "heavily compressed", "mamba": "Mamba-2",
               "none": "MLP-only"}


def layer_kinds(cfg):
    """'30 linear + 10 full', '78 indexed', '23 Mamba-2 + 23 MLP-only + 6 full': how many
    layers (blocks) of each kind the model stacks, in the order they first appear."""
    cfg = as_config(cfg)
    sched = cfg.layer_schedule
    counts = {}
    for i in range(cfg.num_hidden_layers):
        kind = sched.kind_at(i).attention
        counts[kind] = counts.get(kind, 0) + 1
    return " + ".join(f"{n} {_KIND_WORDS.get(k, k)}" for k, n in counts.items())


def moe_table(models=None, seq_len=SEQ_LEN, formatted=True, kinds=False):
    """Experts, top-k, shared experts, dense layers; total vs active; bytes; FLOPs/token.

    ``models``: zoo names, configs or ``(label, config)`` pairs (for what-ifs).
    ``kinds``: add a column of layer kinds (linear, indexed, sliding, Mamba-2 ...), which
    the attention column alone hides. GiB and GFLOP always with two decimals."""
    rows = []
    for m in (models if models is not None else moe_models()):
        name, cfg = _labelled(m)
        pc = param_count(cfg)
        kind_col = {"layer kinds": layer_kinds(cfg)} if kinds else {}
        rows.append({
            "model": name, "attention": _attention_kind(cfg), **kind_col,
            # Nemotron-H counts blocks: a Mamba-2 or attention block has no MLP at all
            "layers": cfg.num_hidden_layers,
            "dense-MLP layers": cfg.layer_schedule.count(mlp="dense"),
            "experts": cfg.num_experts, "top-k": cfg.num_experts_per_tok,
            "expert intermediate": cfg.get(expert_size_field(cfg)) if cfg.is_moe else 0,
            "shared-expert params": pc.components["shared_experts"],
            "total params": pc.total, "active params": pc.active,
            "active %": _pct(pc.active, pc.total),
            "bf16 GiB": float(round(Fraction(weight_bytes(cfg, "bf16"), GiB), 2)),
            "GFLOP/token": float(round(Fraction(flops_per_token(cfg, seq_len).total, 10**9), 2)),
        })
    df = _frame(rows, formatted)
    if formatted:   # the same two decimals in every row (not "47", "437.9", "1,249.88")
        raw = _frame(rows, False)
        for col in ("bf16 GiB", "GFLOP/token"):
            df[col] = raw[col].map("{:,.2f}".format)
    return df


# What the publishers say (quoted from the model cards / papers, for comparison only).
# What each publisher says: (total, active, the source's name, its address). Each figure
# is quoted as its source writes it.
PUBLISHED = {
    "DeepSeek-V3": ("671B", "37B", "DeepSeek-V3 technical report",
                    "https://arxiv.org/abs/2412.19437"),
    "DeepSeek-V2": ("236B", "21B", "DeepSeek-V2 paper", "https://arxiv.org/abs/2405.04434"),
    "Qwen3-30B-A3B": ("30.5B", "3.3B", "Qwen3-30B-A3B model card",
                      "https://huggingface.co/Qwen/Qwen3-30B-A3B"),
    "Qwen3-235B-A22B": ("235B", "22B", "Qwen3-235B-A22B model card",
                        "https://huggingface.co/Qwen/Qwen3-235B-A22B"),
    "Mixtral-8x7B-v0.1": ("46.7B", "12.9B", "Mistral AI, Mixtral of experts",
                          "https://mistral.ai/news/mixtral-of-experts"),
    "gpt-oss-20b": ("21B", "3.6B", "OpenAI gpt-oss model card",
                    "https://arxiv.org/abs/2508.10925"),
    "Qwen1.5-MoE-A2.7B-Chat": ("14.3B", "2.7B", "Qwen1.5-MoE-A2.7B model card",
                               "https://huggingface.co/Qwen/Qwen1.5-MoE-A2.7B"),
    "GLM-4.5-Air": ("106B", "12B", "GLM-4.5-Air model card",
                    "https://huggingface.co/zai-org/GLM-4.5-Air"),
    # Meta's 109B total includes the vision encoder, as the engine's total does
    "Llama-4-Scout-17B-16E-Instruct": ("109B", "17B", "Meta Llama 4 model card",
                                       "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct"),
}


class LinkedTable:
    """A formatted table whose ``source`` column names each row's source: it prints as
    its DataFrame (``.frame``) does, and in a notebook each name is a link to the source.
    Everything else (``.loc``, ``[col]``, ``.index`` ...) is the DataFrame's."""

    def __init__(self, frame, links):
        self.frame, self.links = frame, dict(links)

    def __repr__(self):
        return repr(self.frame)

    def _repr_html_(self):
        import html
        df = self.frame.copy()
        df["source"] = [f'<a href="{html.escape(self.links[s])}" target="_blank">{html.escape(s)}</a>'
                        if s in self.links else html.escape(str(s)) for s in df["source"]]
        for col in df.columns:   # the other cells are text too: escaped, as pandas does
            if col != "source":
                df[col] = [html.escape(str(v)) for v in df[col]]
        df.index = [html.escape(str(i)) for i in df.index]
        df.index.name = self.frame.index.name
        import pandas as pd
        with pd.option_context("display.max_colwidth", None):   # a link is never cut short
            return df.to_html(escape=False, notebook=True)

    def __getitem__(self, key):
        return self.frame[key]

    def __getattr__(self, name):
        if name in ("frame", "links"):
            raise AttributeError(name)
        return getattr(self.frame, name)


def active_conventions_table(models=None, formatted=True, totals=True):
    """Published 'active' figures next to the engine's active count, the same count
    without the input embedding, and without the embedding and the lm_head, with the
    source of each published figure (a link in a notebook). ``totals=False`` leaves out
    the published and engine totals."""
    rows = []
    from ..zoo import list_models
    zoo = set(list_models())
    for m in (models if models is not None else [m for m in PUBLISHED if m in zoo]):
        cfg = as_config(m)
        pc = param_count(cfg)
        pub_total, pub_active, src, _url = PUBLISHED.get(cfg.name, ("", "", "", ""))
        head = pc.components["lm_head"]
        row = {"model": cfg.name, "published total": pub_total,
               "published active": pub_active,
               "engine total": pc.total,
               "engine active": pc.active,
               "active - input embedding": pc.active - pc.embedding,
               "active - embedding - lm_head": pc.active - pc.embedding - head,
               "source": src}
        if not totals:
            del row["published total"], row["engine total"]
        rows.append(row)
    df = _frame(rows, formatted)
    if not formatted:
        return df
    return LinkedTable(df, {v[2]: v[3] for v in PUBLISHED.values()})


# A widely shared DeepSeek-V3 walk-through lists these attention matrices (in, out)
_WALKTHROUGH_ATTENTION = [
    ("Q 7168×16384", 7168 * 16384), ("K 7168×16384", 7168 * 16384),
    ("V 7168×16384", 7168 * 16384), ("O 16384×7168", 16384 * 7168),
    ("Q LoRA 7168×1536", 7168 * 1536), ("Q LoRA 1536×16384", 1536 * 16384),
    ("KV LoRA 7168×512", 7168 * 512), ("KV LoRA 512×16384", 512 * 16384)]
WALKTHROUGH = "walk-through"


def mla_check_table(model="DeepSeek-V3", formatted=True):
    """Attention parameters per layer: the walk-through's list (full Q/K/V plus
    low-rank) against the checkpoint's MLA tensors (low-rank only, RMSNorm weights)."""
    import pandas as pd
    from . import fmt
    from ..counts import weight_shapes
    cfg = as_config(model)
    ws = weight_shapes(cfg)
    first = ws[(ws.layer == 0) & ws.name.str.contains(".self_attn.")]
    rows = [("checkpoint", r.name.split("self_attn.")[1], str(tuple(r.shape)), int(r.numel))
            for r in first.itertuples()]
    rows += [(WALKTHROUGH, label, "", n) for label, n in _WALKTHROUGH_ATTENTION]
    df = pd.DataFrame(rows, columns=["source", "tensor", "shape (out, in)", "params"])
    sums = df.groupby("source", sort=False)["params"].sum()
    df = pd.concat([df, pd.DataFrame(
        [("checkpoint", "per layer, sum", "", int(sums["checkpoint"])),
         (WALKTHROUGH, "per layer, sum", "", int(sums[WALKTHROUGH]))],
        columns=df.columns)], ignore_index=True)
    df = df.sort_values("source", kind="stable").set_index(["source", "tensor"])
    return fmt(df) if formatted else df


def mla_kv_table(formatted=True):
    """KV cache per token per layer (bf16): DeepSeek-V3's MLA latent against MHA with
    the same 128 heads (head_dim 128 for K and V), and against GQA models of the zoo."""
    ds = load_model("DeepSeek-V3")
    mla = kv_cache_bytes_per_token_per_layer(ds)
    mha = 2 * ds.num_attention_heads * ds.v_head_dim * 2   # K and V, 128 heads of 128, bf16
    rows = [{"cache of": "DeepSeek-V3 MLA: latent 512 + RoPE key 64", "bytes/token/layer": mla},
            {"cache of": "MHA with the same 128 heads (head_dim 128)", "bytes/token/layer": mha}]
    for m in ("Meta-Llama-3-70B", "Qwen3-235B-A22B"):
        c = load_model(m)
        rows.append({"cache of": f"{m} ({_attention_kind(c)}, head_dim {c.head_dim})",
                     "bytes/token/layer": kv_cache_bytes_per_token_per_layer(c)})
    for r in rows:
        r["MLA saves %"] = _pct(r["bytes/token/layer"] - mla, r["bytes/token/layer"])
    return _frame(rows, formatted, index="cache of")
