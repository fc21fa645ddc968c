"""Tables for lesson 0, the anatomy of a decoder: a tensor-by-tensor trace of one
layer, an expandable per-layer view, and weight listings in MiB and MB.

These are presentation tables (many rows a reader should not retype). The lesson's
own arithmetic, one layer's parameters and the whole model's, is done in the
notebook's cells and checked against the engine there.
"""

from __future__ import annotations

from ..units import count_of

import html

from ..config import ConfigError
from ..architectures import kind_tensors
from ..counts import weight_shapes
from ..towers import checkpoint_name
from ..units import MB, MiB
from ..zoo import as_config

__all__ = ["decoder_trace", "layer_view", "weight_listing", "top_tensors", "layer_kind"]


def wide(df):
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


def shape_text(s):
    """``(3072, 1024)`` -> ``'(3072, 1024)'``, as Python prints a shape: no thousands
    separators inside a tuple, where "(128,256, 3,072)" would read as four dimensions;
    a vector keeps its trailing comma."""
    return "(" + ", ".join(f"{d}" for d in s) + ("," if len(s) == 1 else "") + ")"


def attention_text(cfg):
    """'GQA 24:8', 'MHA, 32 heads', 'MLA, 128 heads'."""
    h, kv = cfg.num_attention_heads, cfg.num_key_value_heads
    kind = cfg.attention_kind
    return f"{kind}, {h} heads" if kind in ("MLA", "MHA") else f"{kind} {h}:{kv}"


# activation functions by their transformers (ACT2FN) names: (name, a note)
_ACT_NAMES = {"silu": ("SiLU", ""), "swish": ("SiLU", ""), "relu": ("ReLU", ""),
              "relu2": ("ReLU²", ""), "gelu": ("GELU", ""), "gelu_new": ("GELU", "tanh GELU"),
              "gelu_pytorch_tanh": ("GELU", "tanh GELU"), "gelu_fast": ("GELU", "tanh GELU"),
              "quick_gelu": ("GELU", "quick GELU")}
_GATED = {"SiLU": "SwiGLU", "GELU": "GeGLU", "ReLU": "ReGLU"}


def _mlp_text(cfg, tensors):
    """The dense MLP of a layer in words, read off its tensors (gated: gate, up, down;
    plain: two matrices) and the activation its config names: 'SwiGLU MLP',
    'GeGLU MLP (tanh GELU)', 'GELU MLP (fc1, fc2, with biases; tanh GELU)'."""
    from ..activations import mlp_width
    act = next((str(cfg.get(f)) for f in cfg.layout.activation_field if cfg.get(f)), "")
    name, note = _ACT_NAMES.get(act, (act or "unnamed activation", ""))
    _, gated = mlp_width(tensors, cfg.hidden_size, "mlp")
    biased = any(t.component == "mlp" and t.name.endswith(".bias") for t in tensors)
    if gated:
        notes = [n for n in (note, "with biases" if biased else "") if n]
        return f"{_GATED.get(name, name + '-gated')} MLP" + (f" ({'; '.join(notes)})" if notes else "")
    names = [t.name.split(".")[-2] for t in tensors if t.component == "mlp" and t.matmul
             and len(t.shape) == 2 and "per_layer" not in t.name]
    inside = ", ".join(names) + (", with biases" if biased else "") + (f"; {note}" if note else "")
    return f"{name} MLP ({inside})"


def is_standard_block(cfg):
    """Whether a model's layers are the standard pre-norm decoder block traced by
    :func:`decoder_trace`: RMSNorm, q/k/v/o attention (biases and a QK-norm shared by the
    heads allowed), a gated MLP under Llama's names, no experts."""
    L, std = cfg.layout, type(cfg.layout)()
    same = ("block", "attention", "attention_prefix", "attention_names", "output_gate", "sinks",
            "stored_in_out", "mlp", "mlp_prefix", "mlp_names", "norm", "layer_norms",
            "parallel", "layer_prefix", "embedding", "position_embedding", "final_norm",
            "extra_globals", "lm_head")
    return (all(getattr(L, f) == getattr(std, f) for f in same)
            and L.qk_norm in (None, "shared") and not cfg.is_moe)


# --- the trace of one layer ---------------------------------------------------------


def decoder_trace(model, layer=0):
    """One dense Llama-style decoder traced tensor by tensor, as a table.

    Each row is a step of the forward pass: the operation, the checkpoint tensor
    it uses (shapes from :func:`llmcourse.weight_shapes`, stored ``(out, in)``),
    its parameters, and the activation shape after the step. Supports the dense
    SwiGLU family with this exact block (see :func:`is_standard_block`); others, whose blocks
    differ (Gemma's four norms and GeGLU, OLMo-2's post-norms, Phi's fused or parallel
    blocks, MoE), raise a one-line ``ValueError``.
    """
    import pandas as pd
    cfg = as_config(model)
    if not is_standard_block(cfg):
        raise ConfigError(f"model: decoder_trace covers dense models with the standard "
                          f"pre-norm block (RMSNorm, q/k/v/o attention, a gated MLP), not "
                          f"{cfg.name}'s ({cfg.model_type})")
    ws = weight_shapes(cfg).set_index("name")
    H, V, I = cfg.hidden_size, cfg.vocab_size, cfg.intermediate_size
    nh, kv, hd, L = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.num_hidden_layers
    p = f"model.layers.{layer}."
    rows = []

    def add(step, op, tensor=None, act=""):
        if tensor is None:
            rows.append((step, op, "", "", "", act))
            return
        tensor = checkpoint_name(cfg, tensor)   # a multimodal wrapper's own names
        r = ws.loc[tensor]
        count = "tied: no new parameters" if r["note"] else f"{r['numel']:,}"
        rows.append((step, op, tensor, shape_text(r["shape"]), count, act))

    def add_linear(step, op, weight, act):  # the weight, then its bias where the model has one
        add(step, op, weight, act)
        bias = weight.removesuffix(".weight") + ".bias"
        if checkpoint_name(cfg, bias) in ws.index:
            add(step, f"+ bias ({weight.split('.')[-2]})", bias, act)

    bsH = f"[batch, seq, {H:,}]"
    add("tokens", "token ids in", act="[batch, seq]")
    add("embedding", "look up one row per token", "model.embed_tokens.weight", bsH)
    add("attention", "RMSNorm (scale only)", p + "input_layernorm.weight", bsH)
    add_linear("attention", f"q = x·Wqᵀ: {count_of(nh, 'query head')} × head_dim {hd}", p + "self_attn.q_proj.weight",
        f"[batch, seq, {nh * hd:,}] → [batch, {nh}, seq, {hd}]")
    add_linear("attention", f"k = x·Wkᵀ: {count_of(kv, 'KV head')} × head_dim {hd}", p + "self_attn.k_proj.weight",
        f"[batch, seq, {kv * hd:,}] → [batch, {kv}, seq, {hd}]")
    add_linear("attention", f"v = x·Wvᵀ: {count_of(kv, 'KV head')} × head_dim {hd}", p + "self_attn.v_proj.weight",
        f"[batch, seq, {kv * hd:,}] → [batch, {kv}, seq, {hd}]")
    if p + "self_attn.q_norm.weight" in ws.index:
        add("attention", "QK-norm: RMSNorm over each query head", p + "self_attn.q_norm.weight",
            f"[batch, {nh}, seq, {hd}]")
        add("attention", "QK-norm: RMSNorm over each key head", p + "self_attn.k_norm.weight",
            f"[batch, {kv}, seq, {hd}]")
    theta = cfg.get("rope_theta")
    nope = cfg.get("no_rope_layers")
    if isinstance(nope, list) and layer < len(nope) and not nope[layer]:
        add("attention", "no RoPE in this layer (NoPE): q and k carry no position", act="shapes unchanged")
    else:
        add("attention", "RoPE: rotate q and k by position" + (f" (rope_theta={theta:,g})" if theta else ""),
            act="shapes unchanged")
    group = "" if nh == kv else f"; each KV head serves {count_of(nh // kv, 'query head')} (GQA)"
    add("attention", f"causal softmax(q·kᵀ/√{hd})·v: token i attends to tokens 0…i "
        f"(later positions masked){group}",
        act=f"[batch, {nh}, seq, {hd}] → [batch, seq, {nh * hd:,}]")
    add_linear("attention", "out = attn·Woᵀ", p + "self_attn.o_proj.weight", bsH)
    add("residual", "x = x + attention(x)", act=bsH)
    add("MLP", "RMSNorm (scale only)", p + "post_attention_layernorm.weight", bsH)
    add_linear("MLP", "gate = x·Wgᵀ", p + "mlp.gate_proj.weight", f"[batch, seq, {I:,}]")
    add_linear("MLP", "up = x·Wuᵀ", p + "mlp.up_proj.weight", f"[batch, seq, {I:,}]")
    add("MLP", "SwiGLU: SiLU(gate) ⊙ up", act=f"[batch, seq, {I:,}]")
    add_linear("MLP", "down = h·Wdᵀ", p + "mlp.down_proj.weight", bsH)
    add("residual", "x = x + MLP(x)", act=bsH)
    add("layers", f"the same block again: {L} layers in all (0 … {L - 1})", act=bsH)
    add("output", "final RMSNorm", "model.norm.weight", bsH)
    add("output", "logits = x·Wᵀ (W = the embedding when tied)" if cfg.tie_word_embeddings
        else "logits = x·Wᵀ", "lm_head.weight", f"[batch, seq, {V:,}]")
    return wide(pd.DataFrame(rows, columns=["part", "operation", "tensor (checkpoint name)",
                                            "shape (out, in)", "parameters",
                                            "activation after"]))


# --- layer tensors as rows ----------------------------------------------------------

def layer_rows(cfg, layer):
    """``(name, shape text, parameters, component, buffer)`` for each tensor of one layer
    (names without the ``model.layers.<i>.`` prefix; ``*`` stands for an expert)."""
    from ..plots.anatomy import layer_tensors
    out = []
    for t in layer_tensors(cfg, layer):
        copies = f" × {t['copies']} experts" if t["copies"] > 1 and "*" in t["name"] else (
            f" (all {t['copies']} experts)" if t["copies"] > 1 else "")
        out.append((t["name"], shape_text(t["shape"]) + copies, t["numel"], t["component"],
                    t["buffer"]))
    return out


def layer_kind(cfg, layer):
    """One line describing a layer: its attention and its MLP, e.g.
    'GQA 8:4, sliding window 4,096 · GeGLU MLP (tanh GELU)'."""
    from ..plots.anatomy import layer_tensors
    k = cfg.layer_schedule.kind_at(layer)
    kind = k.attention
    if kind == "linear_attention" and cfg.layout.linear_attention == "kda":
        attn = (f"Kimi Delta Attention (linear attention), {cfg.linear_num_heads} heads of "
                f"{cfg.linear_head_dim}")
    elif kind == "linear_attention":  # Qwen3-Next's gated DeltaNet: no KV heads, no cache
        attn = (f"gated DeltaNet (linear attention), {cfg.linear_num_key_heads} key and "
                f"{cfg.linear_num_value_heads} value heads")
    elif kind == "mamba":             # Nemotron-H, Granite 4.0: a fixed state per sequence
        from ..architectures import mamba_dims
        m = mamba_dims(cfg)
        attn = f"Mamba-2, {m.heads} heads of {m.head_dim}, state {m.state}"
    elif kind == "conv":              # LFM2: a fixed state of conv_L_cache inputs
        attn = f"gated short convolution, {cfg.conv_L_cache} taps over {cfg.hidden_size:,} channels"
    elif kind == "none":
        attn = "no attention (an MLP block)"
    else:
        attn = attention_text(cfg)
        if k.kv_heads or k.head_dim:  # Gemma 4's full layers
            attn += (f", here {count_of(k.kv_heads or cfg.num_key_value_heads, 'KV head')} of "
                     f"{k.head_dim or cfg.head_dim}")
        if k.own_fields:   # a layer's own heads, widths, ranks (per_layer_config, swa_*)
            attn += ", here " + ", ".join(f"{f} {v:,}" if isinstance(v, int) and not
                                          isinstance(v, bool) else f"{f} {v}"
                                          for f, v in k.own_fields)
    k_eq_v = cfg.layout.kv_store == "k_eq_v"
    if kind == "sliding_attention" and not k_eq_v:
        attn += f", sliding window {cfg.sliding_window:,}"
    if kind == "chunked_attention":
        attn += f", chunks of {cfg.attention_chunk_size:,}"
    if k_eq_v:   # DeepSeek-V4: every layer a window, the compressed kinds more
        attn = f"one K = V head of {cfg.head_dim}, {cfg.num_attention_heads} query heads"
        attn += f", sliding window {cfg.sliding_window:,}" if kind == "sliding_attention" else ""
        if kind == "compressed_sparse_attention":
            attn += (f", window {cfg.sliding_window:,} + compressed entries (1 per "
                     f"{cfg.compress_rates['compressed_sparse_attention'] if cfg.get('compress_rates') else 4}"
                     f" tokens), the top {cfg.index_topk:,} by an indexer")
        if kind == "heavily_compressed_attention":
            attn += (f", window {cfg.sliding_window:,} + all compressed entries (1 per "
                     f"{cfg.compress_rates['heavily_compressed_attention'] if cfg.get('compress_rates') else 128}"
                     " tokens)")
    if kind == "indexed_attention" and cfg.layout.indexer == "block_select":
        # Qwen4-Exp's indexer picks blocks of indexer_compress_ratio keys, up to a budget
        attn += (f", sparse: {cfg.indexer_budget:,} keys in blocks of "
                 f"{cfg.indexer_compress_ratio} chosen by an indexer")
    elif kind == "indexed_attention":
        attn += (f", sparse: the top {cfg.index_topk:,} keys by "
                 + ("its own indexer" if k.indexer else "the previous layer's indexer"))
    if k.kv_shared:
        attn += ", K and V of an earlier layer"
    tensors = layer_tensors(cfg, layer)
    layer_t = kind_tensors(cfg, k)
    if any(t["component"] == "experts" for t in tensors):
        shared = (cfg.get("n_shared_experts") or 1) if any(
            t["component"] == "shared_experts" for t in tensors) else 0
        routed = "hash-routed" if k.mlp == "hash_moe" else "routed"
        mlp = f"MoE: {cfg.num_experts} {routed} experts, top-{cfg.num_experts_per_tok}" + (
            f", {count_of(shared, 'shared expert')}" if shared else "")
        L = cfg.layout
        down = f"{L.mlp_prefix}.{L.mlp_names[-1]}.weight"
        if any(t.name == down for t in layer_t):   # a dense MLP beside the experts (Gemma 4)
            mlp = f"{_mlp_text(cfg, layer_t)} and {mlp}"
    elif k.mlp == "none":
        mlp = "no MLP"
    else:
        mlp = _mlp_text(cfg, layer_t)
    return f"{attn} · {mlp}"


def _global_rows(cfg):
    """The tensors outside the layers; a tied lm_head shows 0 new parameters."""
    from ..architectures import global_tensors
    return [(t.name, shape_text(t.shape) + (" tied to model.embed_tokens.weight" if t.tied else ""),
             0 if t.tied else t.numel, t.component, False) for t in global_tensors(cfg)]


def layer_view(model):
    """An expandable view of every layer (an HTML ``<details>`` per layer, as a widely
    shared Llama-3.2-3B anatomy draws it): click a layer to see its tensors, shapes
    and parameters."""
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

    glob = _global_rows(cfg)
    parts = [f"<div style='font-size:14px'><b>{esc(cfg.name)}</b>: {cfg.num_hidden_layers} "
             f"decoder layers, hidden_size {cfg.hidden_size:,}, "
             f"{esc(attention_text(cfg))}, head_dim {cfg.head_dim}</div>",
             "<div style='margin:6px 0'><b>input</b>: token ids [batch, seq] → "
             f"embedding → [batch, seq, {cfg.hidden_size:,}]</div>", table(glob[:1])]
    for i in range(cfg.num_hidden_layers):
        rows = layer_rows(cfg, i)
        n = sum(k for _, _, k, _, b in rows if not b)
        parts.append(f"<details style='margin:2px 0'><summary><b>Layer {i}</b> · "
                     f"{esc(layer_kind(cfg, i))} · {n:,} parameters</summary>"
                     f"{table([(f'model.layers.{i}.' + r[0],) + r[1:] for r in rows])}</details>")
    parts.append(f"<div style='margin:6px 0'><b>output</b>: final norm → lm_head → logits "
                 f"[batch, seq, {cfg.vocab_size:,}]</div>")
    parts.append(table(glob[1:]))
    return HTML("<div class='lc-layer-view'>" + "".join(parts) + "</div>")


# --- weight listings ----------------------------------------------------------------

def weight_listing(model, dtype="bf16"):
    """Every stored tensor (as :func:`llmcourse.weight_shapes`), with its size in MiB
    (2**20 bytes) at ``dtype``, as a widely shared Qwen3-0.6B weight listing prints it
    (formatted for reading; use ``lc.weight_shapes`` for numbers)."""
    cfg = as_config(model)
    df = weight_shapes(cfg, dtype)
    df[f"MiB ({dtype})"] = (df["bytes"] / MiB).map("{:,.2f}".format)
    df["numel"] = df["numel"].map("{:,}".format)
    return wide(df[["name", "shape", "numel", f"MiB ({dtype})", "note"]])


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
    return wide(df[["name", "shape", "numel", f"MiB ({dtype})", f"MB ({dtype})", "note"]])
