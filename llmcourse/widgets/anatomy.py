"""Lesson 0, the anatomy of a decoder: a tensor-by-tensor trace of one layer, an
expandable per-layer view, the weight listing, the seeds' tied-embedding counts,
and the layer-anatomy explorer."""

from __future__ import annotations

import html

from ..config import ConfigError
from ..counts import dtype_bits, param_count, weight_bytes, weight_shapes
from ..units import MB, MiB, human_bytes, human_count
from ..zoo import as_config, load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection

__all__ = ["decoder_trace", "layer_view", "weight_listing", "top_tensors", "tied_count_table",
           "layer_anatomy_rows", "layer_anatomy_explorer", "SEED_TOTALS"]

# What the seed documents print as a model's total (both count the tied lm_head again).
SEED_TOTALS = {
    "Llama-3.2-3B": ("seed 002 (parameter census)", "3.6B"),
    "Qwen3-0.6B": ("seed 003 (weight listing)", "751,632,384"),
}


def _wide(df):
    """``df`` shown with its text columns in full (pandas cuts cells at 50 characters
    by default, which would cut checkpoint names and notes)."""
    import pandas as pd

    class WideFrame(pd.DataFrame):
        def _repr_html_(self):
            with pd.option_context("display.max_colwidth", None):
                return super()._repr_html_()

        def __repr__(self):
            with pd.option_context("display.max_colwidth", None, "display.width", 250):
                return super().__repr__()
    return WideFrame(df)


def _attention_kind(cfg):
    h, kv = cfg.num_attention_heads, cfg.num_key_value_heads
    kind = cfg.attention_kind
    return f"{kind}, {h} heads" if kind in ("MLA", "MHA") else f"{kind} {h}:{kv}"


def _shape(s):
    return "(" + ", ".join(f"{d:,}" for d in s) + ("," if len(s) == 1 else "") + ")"


# --- the trace of one layer ---------------------------------------------------------

def decoder_trace(model, layer=0):
    """One dense Llama-style decoder traced tensor by tensor, as a table.

    Each row is a step of the forward pass: the operation, the checkpoint tensor
    it uses (shapes from :func:`llmcourse.weight_shapes`, stored ``(out, in)``),
    its parameters, and the activation shape after the step. Supports the dense
    SwiGLU family (llama, qwen2, qwen3, mistral); others raise a one-line ``ValueError``.
    """
    import pandas as pd
    cfg = as_config(model)
    if cfg.family != "llama" or cfg.is_moe or cfg.model_type == "gemma2":
        raise ConfigError(f"model: decoder_trace covers dense llama-style models "
                          f"(llama, qwen2, qwen3, mistral), not {cfg.model_type!r}")
    ws = weight_shapes(cfg).set_index("name")
    H, V, I = cfg.hidden_size, cfg.vocab_size, cfg.intermediate_size
    nh, kv, hd, L = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.num_hidden_layers
    p = f"model.layers.{layer}."
    rows = []

    def add(step, op, tensor=None, act=""):
        if tensor is None:
            rows.append((step, op, "", "", "", act))
            return
        r = ws.loc[tensor]
        count = "tied: no new parameters" if r["note"] else f"{r['numel']:,}"
        rows.append((step, op, tensor, _shape(r["shape"]), count, act))

    bsH = f"[batch, seq, {H:,}]"
    add("tokens", "token ids in", act="[batch, seq]")
    add("embedding", "look up one row per token", "model.embed_tokens.weight", bsH)
    add("attention", "RMSNorm (scale only)", p + "input_layernorm.weight", bsH)
    add("attention", f"q = x·Wqᵀ: {nh} query heads × head_dim {hd}", p + "self_attn.q_proj.weight",
        f"[batch, seq, {nh * hd:,}] → [batch, {nh}, seq, {hd}]")
    add("attention", f"k = x·Wkᵀ: {kv} KV heads × head_dim {hd}", p + "self_attn.k_proj.weight",
        f"[batch, seq, {kv * hd:,}] → [batch, {kv}, seq, {hd}]")
    add("attention", f"v = x·Wvᵀ: {kv} KV heads × head_dim {hd}", p + "self_attn.v_proj.weight",
        f"[batch, seq, {kv * hd:,}] → [batch, {kv}, seq, {hd}]")
    if p + "self_attn.q_norm.weight" in ws.index:
        add("attention", "QK-norm: RMSNorm over each query head", p + "self_attn.q_norm.weight",
            f"[batch, {nh}, seq, {hd}]")
        add("attention", "QK-norm: RMSNorm over each key head", p + "self_attn.k_norm.weight",
            f"[batch, {kv}, seq, {hd}]")
    theta = cfg.get("rope_theta")
    add("attention", "RoPE: rotate q and k by position" + (f" (rope_theta={theta:,g})" if theta else ""),
        act="shapes unchanged")
    add("attention", f"softmax(q·kᵀ/√{hd})·v; each KV head serves {nh // kv} query heads (GQA)",
        act=f"[batch, {nh}, seq, {hd}] → [batch, seq, {nh * hd:,}]")
    add("attention", "out = attn·Woᵀ", p + "self_attn.o_proj.weight", bsH)
    add("residual", "x = x + attention(x)", act=bsH)
    add("MLP", "RMSNorm (scale only)", p + "post_attention_layernorm.weight", bsH)
    add("MLP", "gate = x·Wgᵀ", p + "mlp.gate_proj.weight", f"[batch, seq, {I:,}]")
    add("MLP", "up = x·Wuᵀ", p + "mlp.up_proj.weight", f"[batch, seq, {I:,}]")
    add("MLP", "SwiGLU: SiLU(gate) ⊙ up", act=f"[batch, seq, {I:,}]")
    add("MLP", "down = h·Wdᵀ", p + "mlp.down_proj.weight", bsH)
    add("residual", "x = x + MLP(x)", act=bsH)
    add("layers", f"the same block again: {L} layers in all (0 … {L - 1})", act=bsH)
    add("output", "final RMSNorm", "model.norm.weight", bsH)
    add("output", "logits = x·Wᵀ (W = the embedding when tied)" if cfg.tie_word_embeddings
        else "logits = x·Wᵀ", "lm_head.weight", f"[batch, seq, {V:,}]")
    return _wide(pd.DataFrame(rows, columns=["part", "operation", "tensor (checkpoint name)",
                                             "shape (out, in)", "parameters",
                                             "activation after"]))


# --- layer tensors as rows ----------------------------------------------------------

def _tensor_rows(cfg, layer):
    from ..plots.anatomy import layer_tensors
    out = []
    for t in layer_tensors(cfg, layer):
        copies = f" × {t['copies']} experts" if t["copies"] > 1 and "*" in t["name"] else (
            f" (all {t['copies']} experts)" if t["copies"] > 1 else "")
        out.append((t["name"], _shape(t["shape"]) + copies, t["numel"], t["component"], t["buffer"]))
    return out


def _layer_kind(cfg, layer):
    from ..plots.anatomy import layer_tensors
    attn = _attention_kind(cfg)
    if cfg.layer_types[layer] == "sliding_attention":
        attn += f", sliding window {cfg.sliding_window:,}"
    if any(t["component"] == "experts" for t in layer_tensors(cfg, layer)):
        shared = cfg.get("n_shared_experts", 0) if cfg.uses_mla else 0
        mlp = f"MoE: {cfg.num_experts} routed experts, top-{cfg.num_experts_per_tok}" + (
            f", {shared} shared" if shared else "")
    elif cfg.family == "phi":
        mlp = "GELU MLP (fc1, fc2)"
    else:
        mlp = "SwiGLU MLP"
    return f"{attn} · {mlp}"


def layer_view(model):
    """An expandable view of every layer (HTML ``<details>`` per layer, as seed 002
    shows Llama-3.2-3B): click a layer to see its tensors, shapes and parameters."""
    from IPython.display import HTML
    cfg = as_config(model)
    esc = html.escape
    td = "<td style='text-align:{a};padding:1px 10px'>{v}</td>"

    def table(rows):
        body = "".join("<tr>" + td.format(a="left", v=f"<code>{esc(n)}</code>")
                       + td.format(a="left", v=esc(s))
                       + td.format(a="right", v="buffer" if b else f"{k:,}") + "</tr>"
                       for n, s, k, _, b in rows)
        return ("<table style='font-size:13px'><tr><th style='text-align:left'>tensor</th>"
                "<th style='text-align:left'>shape (as stored)</th><th>parameters</th></tr>"
                + body + "</table>")

    glob = weight_shapes_globals(cfg)
    parts = [f"<div style='font-size:14px'><b>{esc(cfg.name)}</b>: {cfg.num_hidden_layers} "
             f"decoder layers, hidden_size {cfg.hidden_size:,}, "
             f"{esc(_attention_kind(cfg))}, head_dim {cfg.head_dim}</div>",
             "<div style='margin:6px 0'><b>input</b>: token ids [batch, seq] → "
             f"embedding → [batch, seq, {cfg.hidden_size:,}]</div>", table(glob[:1])]
    for i in range(cfg.num_hidden_layers):
        rows = _tensor_rows(cfg, i)
        n = sum(k for _, _, k, _, b in rows if not b)
        parts.append(f"<details style='margin:2px 0'><summary><b>Layer {i}</b> · "
                     f"{esc(_layer_kind(cfg, i))} · {n:,} parameters</summary>"
                     f"{table([(f'model.layers.{i}.' + r[0],) + r[1:] for r in rows])}</details>")
    parts.append(f"<div style='margin:6px 0'><b>output</b>: final norm → lm_head → logits "
                 f"[batch, seq, {cfg.vocab_size:,}]</div>")
    parts.append(table(glob[1:]))
    return HTML("<div class='lc-layer-view'>" + "".join(parts) + "</div>")


def weight_shapes_globals(cfg):
    """The tensors outside the layers as ``(name, shape, parameters, component, buffer)``
    rows; a tied lm_head shows 0 new parameters."""
    from ..architectures import global_tensors
    return [(t.name, _shape(t.shape) + (" tied to model.embed_tokens.weight" if t.tied else ""),
             0 if t.tied else t.numel, t.component, False) for t in global_tensors(cfg)]


# --- weight listings ----------------------------------------------------------------

def weight_listing(model, dtype="bf16"):
    """Every stored tensor (as :func:`llmcourse.weight_shapes`), with its size in MiB
    (2**20 bytes) at ``dtype``: the listing seed 003 prints for Qwen3-0.6B (formatted
    for reading; use ``lc.weight_shapes`` for numbers)."""
    cfg = as_config(model)
    df = weight_shapes(cfg, dtype)
    df[f"MiB ({dtype})"] = (df["bytes"] / MiB).map("{:,.2f}".format)
    df["numel"] = df["numel"].map("{:,}".format)
    return _wide(df[["name", "shape", "numel", f"MiB ({dtype})", "note"]])


def top_tensors(model, n=20, dtype="bf16"):
    """The ``n`` largest stored tensors, in MiB (2**20 B) and MB (10**6 B) at ``dtype``.
    A tied lm_head is listed (a state dict lists it) with its note: it is the same
    storage as the embedding."""
    cfg = as_config(model)
    df = weight_shapes(cfg, dtype)
    df = df.sort_values("numel", ascending=False, kind="stable").head(n).reset_index(drop=True)
    df.index = df.index + 1
    df[f"MiB ({dtype})"] = (df["bytes"] / MiB).map("{:,.2f}".format)
    df[f"MB ({dtype})"] = (df["bytes"] / MB).map("{:,.2f}".format)
    df["numel"] = df["numel"].map("{:,}".format)
    return _wide(df[["name", "shape", "numel", f"MiB ({dtype})", f"MB ({dtype})", "note"]])


def tied_count_table():
    """The seeds' totals next to the exact counts: both seeds add the tied lm_head
    again. ``sum of every listed tensor`` is what summing a state dict gives."""
    import pandas as pd
    rows = []
    for name, (src, said) in SEED_TOTALS.items():
        cfg = load_model(name)
        pc = param_count(cfg)
        listed = int(weight_shapes(cfg)["numel"].sum())
        rows.append((name, src, said, pc.total, pc.embedding, listed, listed - pc.total))
    df = pd.DataFrame(rows, columns=["model", "seed", "seed says", "exact (unique) parameters",
                                     "embedding V×H", "sum of every listed tensor",
                                     "listed − exact"]).set_index("model")
    from ..tables import fmt
    return _wide(fmt(df))


# --- the explorer -------------------------------------------------------------------

def layer_anatomy_rows(cfg, layer=0, dtype="bf16"):
    """Summary rows of one layer (pure; the explorer and tests call it)."""
    from ..plots.anatomy import layer_modules
    rows = [Row("layer", "kind", _layer_kind(cfg, layer), f"{layer}: {_layer_kind(cfg, layer)}")]
    for name, shape, n, _comp, buf in _tensor_rows(cfg, layer):
        rows.append(Row(name, name, n, f"{shape} = " + ("buffer" if buf else f"{n:,}")))
    mods = layer_modules(cfg, layer)
    by_comp = {}
    for _, c, n in mods:
        by_comp[c] = by_comp.get(c, 0) + n
    for c, n in by_comp.items():
        rows.append(Row(f"{c} (this layer)", f"layer_{c}", n, f"{n:,}"))
    n_layer = sum(by_comp.values())
    total = param_count(cfg).total
    nbytes = int(n_layer * dtype_bits(dtype) / 8)
    rows += [
        Row("this layer", "layer_params", n_layer, f"{n_layer:,} ({human_count(n_layer)})"),
        Row(f"this layer in {dtype}", "layer_bytes", nbytes,
            f"{human_bytes(nbytes, 'MiB')} ({nbytes:,} B)"),
        Row("whole model", "total", total, f"{total:,} ({human_count(total)})"),
        Row(f"whole model in {dtype}", "weight_bytes", weight_bytes(cfg, dtype),
            human_bytes(weight_bytes(cfg, dtype))),
    ]
    return rows


@register("layer_anatomy")
def layer_anatomy_explorer(model="Llama-3.2-3B", layer=0, dtype="bf16"):
    """Pick a zoo model and a layer: see its tensors and where its parameters sit.
    The KV-heads box takes any number: one that does not divide the head count shows
    the engine's message."""
    base = {"cfg": load_model(model)}
    n = base["cfg"].num_hidden_layers
    controls = {
        "model": model_dropdown(model),
        "layer": selection("layer", list(range(n)), layer),
        "num_key_value_heads": int_text("KV heads", base["cfg"].num_key_value_heads, width="170px"),
        "dtype": dropdown("dtype", ["bf16", "fp32", "fp8"], dtype, width="160px"),
    }

    def config(v):
        cfg = base["cfg"]
        if v["num_key_value_heads"] == cfg.num_key_value_heads:
            return cfg
        return cfg.replace(num_key_value_heads=v["num_key_value_heads"])

    def compute(v):
        return layer_anatomy_rows(config(v), v["layer"], v["dtype"])

    def draw(fig, v, rows):
        from ..plots.anatomy import draw_layer_components
        draw_layer_components(fig, config(v), v["layer"])

    ex = Explorer("layer_anatomy", controls, compute, draw, title="Layer anatomy explorer",
                  figsize=(10, 4.8))

    def on_model(change):  # a new model: its layers and its own KV-head count
        base["cfg"] = load_model(change["new"])
        with ex.hold():
            c = controls["layer"]
            c.options = list(range(base["cfg"].num_hidden_layers))
            c.value = 0
            controls["num_key_value_heads"].value = base["cfg"].num_key_value_heads
    ex.on_change("model", on_model)
    return ex
