"""2026's large mixture-of-experts decoders and their new layers.

A.X-K1 and A.X-K2 (SK Telecom), Beam (Reflection), dots3-note (rednote), Flint, Hy3 and
Hy4 (Tencent), Inkling and Inkling 2 (Thinking Machines), Kolibri 1 (Aleph Alpha), Laguna
(poolside), MiMo-V2-Flash (Xiaomi), MiniMax-M3's language model, ZAYA1 (Zyphra) and
Cohere's Compass language model: most are the decoder layer with a few choices changed
(a gate on the attention output, sinks, QK-norm, layers of their own heads, MLA with
a sparse-attention indexer, hyper-connected streams, short convolutions beside
attention); each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding
a family"), each layer shape a builder registered below under what it is. A layer with
heads, widths or ranks of its own (transformers' ``per_layer_config``, a sliding layer's
``swa_*`` fields) carries them as ``LayerKind.own_fields``. Standard library only.
"""

from __future__ import annotations

from ..architectures import (GLOBAL_EXTRAS, Layout, Tensor, _indexer, _linear, _mla, _norm,
                             _swiglu, layer_config, register_block, register_extra_flops,
                             register_layer_state)
from ..family_rules import _mlp_types_axis
from ..layers import Axis
from ..limits import MAX_LIST, MAX_SIZE, _fail, _is_int
from .. import family_rules as rules
from .base import _COMMON, _INDEXER, _MLA, Family


# --- reading a config -------------------------------------------------------------------

def _list_of(r, field, values, what=None):
    """``r[field]`` as a per-layer list of ``values`` (one per layer), or None if absent."""
    L = r["num_hidden_layers"]
    v = r.get(field)
    if v is None:
        return None
    if not isinstance(v, list) or len(v) != L or len(v) > MAX_LIST or not all(
            isinstance(x, str) and x in values for x in v):
        _fail(field, f"must list {what or ' or '.join(values)} for each of the {L:,} layers", v)
    return list(v)


def _whole(r, field, lo=1):
    v = r.get(field)
    if not _is_int(v) or not lo <= v <= MAX_SIZE:
        _fail(field, "must be a whole number" + (", 1 or more" if lo else ", 0 or more"), v)
    return v


def _attention_types(r, default, kinds=("full_attention", "sliding_attention")):
    """The attention kind of each layer: layer_types (read here, so the generic reading
    does not map its names), else ``default(i)``."""
    L = r["num_hidden_layers"]
    lt = _list_of(r, "layer_types", kinds)
    r["layer_types"] = None
    if lt is None:
        if L > MAX_LIST:
            _fail("num_hidden_layers", f"the default layer pattern is listed for at most "
                  f"{MAX_LIST:,} layers", L)
        lt = [default(i) for i in range(L)]
    return lt


def _sparse_mlp(r, default):
    """``mlp_layer_types`` ("dense" / "sparse"), else ``default(i)`` (True: sparse)."""
    L = r["num_hidden_layers"]
    mlt = _list_of(r, "mlp_layer_types", ("dense", "sparse"))
    if mlt is None:
        return [default(i) for i in range(min(L, MAX_LIST))]
    return [v == "sparse" for v in mlt]


def _no_window_refused(r, lt, name):
    if "sliding_attention" in lt and r.get("sliding_window") is None:
        _fail("sliding_window", f"{name}'s sliding-attention layers need a window (transformers "
              "refuses a null one)", None)


def _moe_axis(sparse):
    return Axis.from_list(["moe" if s else "dense" for s in sparse], field="mlp_layer_types")


# --- layers -------------------------------------------------------------------------------

def _qkvo(c, q_out=None, v_width=None, bias=None, o_bias=None, prefix="self_attn."):
    """q, k, v and o projections of a GQA layer (q_out: q's width when it also carries a
    gate; v_width: V's head width where it is not head_dim)."""
    H, nh, kv, hd = c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim
    vd = v_width or hd
    b = bool(c.get("attention_bias")) if bias is None else bias
    ob = b if o_bias is None else o_bias
    return (_linear(prefix + "q_proj", q_out or nh * hd, H, "attention", b)
            + _linear(prefix + "k_proj", kv * hd, H, "attention", b)
            + _linear(prefix + "v_proj", kv * vd, H, "attention", b)
            + _linear(prefix + "o_proj", H, nh * vd, "attention", ob))


def _qk_norm(c, prefix="self_attn."):
    return _norm(prefix + "q_norm", c.head_dim) + _norm(prefix + "k_norm", c.head_dim)


def _experts_one_by_one(c, inter, prefix="mlp.experts.{e}"):
    """Routed experts as the checkpoint stores them, one by one (transformers fuses them
    on load, conversion_mapping.py's qwen2_moe rule)."""
    return _swiglu(prefix, c.hidden_size, inter, "experts", routed=True,
                   per_expert=c.num_experts)


def _experts_fused(c, inter, prefix="mlp.experts."):
    """Routed experts stored fused, (experts, out, in), as transformers holds them."""
    E, H = c.num_experts, c.hidden_size
    fz = dict(routed=True, fused=E, out_in=True)
    return [Tensor(prefix + "gate_up_proj", (E, 2 * inter, H), "experts", True, **fz),
            Tensor(prefix + "down_proj", (E, H, inter), "experts", True, **fz)]


def _router(c, name="mlp.gate", bias_buffer="mlp.gate.e_score_correction_bias", rows=None):
    """A router's weight and its load-balancing bias (a buffer), when it has one."""
    E = rows or c.num_experts
    t = _linear(name, E, c.hidden_size, "router")
    if bias_buffer:
        t.append(Tensor(bias_buffer, (c.num_experts,), "router", buffer=True))
    return t


def _norms(c, *names):
    return [t for n in names for t in _norm(n, c.hidden_size)]


@register_block("gated_attention_moe")
def _gated_attention_layer(c, kind):
    """The GQA decoder layers of Kolibri 1, Laguna, Hy3, Flint, Beam and MiniMax-M3, each
    as its family's data says (``Layout``: QK-norm, sinks, biases; the rest read here):
    attention (q, k, v, o) with its extras, then a dense MLP or routed experts with their
    router and shared experts, and the layer's norms."""
    c = layer_config(c, kind)
    mt = c.model_type
    return _GQA[mt](c, kind)


def _kolibri1(c, kind):
    """Kolibri 1: Exaone-4 attention (QK-norm, no biases), routed experts with a
    load-balancing bias and an ungated shared expert in every layer, four norms (the
    checkpoint's post_attn_norm and post_ffn_norm)."""
    H = c.hidden_size
    t = _qkvo(c, bias=False) + _qk_norm(c)
    t += (_router(c) + _experts_one_by_one(c, c.moe_intermediate_size)
          + _swiglu("mlp.shared_experts", H, c.shared_expert_intermediate_size,
                    "shared_experts"))
    return t + _norms(c, "input_layernorm", "post_attention_layernorm", "post_attn_norm",
                      "post_ffn_norm")


def _laguna(c, kind):
    """Laguna: QK-norm, a softplus gate on the attention output (one per head, or one per
    channel with gating "per-element"), the layer's own head count; the first layer's MLP
    dense, the rest routed experts whose load-balancing bias is a parameter (stored under
    the experts) and one shared expert."""
    H, nh, hd = c.hidden_size, c.num_attention_heads, c.head_dim
    g = c.get("gating", True)
    t = _qkvo(c) + _qk_norm(c)
    t += _linear("self_attn.g_proj", nh if g is True or g == "per-head" else nh * hd, H,
                 "attention")
    if kind.mlp == "moe":
        t += (_router(c, bias_buffer=None)
              + [Tensor("mlp.experts.e_score_correction_bias", (c.num_experts,), "router")]
              + _experts_one_by_one(c, c.moe_intermediate_size)
              + _swiglu("mlp.shared_expert", H, c.shared_expert_intermediate_size,
                        "shared_experts"))
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp")
    return t + _norms(c, "input_layernorm", "post_attention_layernorm")


def _hy_v3(c, kind):
    """Hy3: QK-norm; the first layer's MLP dense, the rest routed experts (the checkpoint's
    mlp.router.gate and expert_bias) with num_shared_experts shared experts fused into one
    MLP (shared_mlp; mlp_bias on both)."""
    H, mb = c.hidden_size, bool(c.get("mlp_bias"))
    t = _qkvo(c) + _qk_norm(c)
    if kind.mlp == "moe":
        # (num_shared_experts 0 falls back to intermediate_size, as HYV3MLP does)
        shared = c.moe_intermediate_size * c.num_shared_experts or c.intermediate_size
        t += (_router(c, "mlp.router.gate", "mlp.expert_bias")
              + _experts_one_by_one(c, c.moe_intermediate_size)
              + _swiglu("mlp.shared_mlp", H, shared, "shared_experts", mb))
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp", mb)
    return t + _norms(c, "input_layernorm", "post_attention_layernorm")


def _flint(c, kind):
    """Flint: QK-norm and a sink per head (the checkpoint's softmax_offset); routed
    experts with an ungated shared expert, or a dense MLP in mlp_only_layers."""
    H = c.hidden_size
    t = _qkvo(c) + _qk_norm(c) + [Tensor("self_attn.softmax_offset", (c.num_attention_heads,),
                                         "attention")]
    if kind.mlp == "moe":
        t += (_router(c, bias_buffer=None) + _experts_one_by_one(c, c.moe_intermediate_size)
              + _swiglu("mlp.shared_expert", H, c.shared_expert_intermediate_size,
                        "shared_experts"))
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp")
    return t + _norms(c, "input_layernorm", "post_attention_layernorm")


def _beam(c, kind):
    """Beam: QK-norm and a sigmoid gate on the attention output (gate_proj, a bias per
    head); routed experts with a load-balancing bias and no shared expert, or a dense MLP
    in the first layers; Gemma's four norms."""
    H, nh, hd = c.hidden_size, c.num_attention_heads, c.head_dim
    t = (_qkvo(c) + _qk_norm(c) + _linear("self_attn.gate_proj", nh * hd, H, "attention")
         + [Tensor("self_attn.gate_bias", (nh,), "attention")])
    if kind.mlp == "moe":
        t += _router(c) + _experts_one_by_one(c, c.moe_intermediate_size)
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp")
    return t + _norms(c, "input_layernorm", "post_attention_layernorm",
                      "pre_feedforward_layernorm", "post_feedforward_layernorm")


def _mimo_v2_flash(c, kind):
    """MiMo-V2-Flash: q and k of head_dim, v of v_head_dim; sliding layers twice the KV
    heads and a sink per head (the checkpoint's attention_sink_bias); the first layer's MLP
    dense, the rest routed experts with a load-balancing bias, no shared expert."""
    H = c.hidden_size
    t = _qkvo(c, v_width=c.v_head_dim, o_bias=False)
    if kind.attention == "sliding_attention":
        t.append(Tensor("self_attn.attention_sink_bias", (c.num_attention_heads,), "attention"))
    if kind.mlp == "moe":
        t += _router(c) + _experts_one_by_one(c, c.moe_intermediate_size)
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp")
    return t + _norms(c, "input_layernorm", "post_attention_layernorm")


def _minimax_m3(c, kind):
    """MiniMax-M3's language model: QK-norm per head; a sparse layer's block indexer
    (index_n_heads query heads and one key of index_head_dim, each normed); routed experts
    stored fused (the experts' width is intermediate_size) with a load-balancing bias and
    a shared expert of shared_intermediate_size, or a dense MLP of dense_intermediate_size,
    both with gate and up in one matrix."""
    H = c.hidden_size
    t = _qkvo(c, bias=False) + _qk_norm(c)
    if kind.indexer:
        n, d, a = c.index_n_heads, c.index_head_dim, "self_attn.indexer."
        t += (_linear(a + "q_proj", n * d, H, "attention")
              + _linear(a + "k_proj", d, H, "attention")
              + _norm(a + "q_norm", d) + _norm(a + "k_norm", d))
    if kind.mlp == "moe":
        S = c.shared_intermediate_size
        t += (_router(c) + _experts_fused(c, c.intermediate_size)
              + _linear("mlp.shared_experts.gate_up_proj", 2 * S, H, "shared_experts")
              + _linear("mlp.shared_experts.down_proj", H, S, "shared_experts"))
    else:
        D = c.dense_intermediate_size
        t += (_linear("mlp.gate_up_proj", 2 * D, H, "mlp")
              + _linear("mlp.down_proj", H, D, "mlp"))
    return t + _norms(c, "input_layernorm", "post_attention_layernorm")


_GQA = {"kolibri1": _kolibri1, "laguna": _laguna, "hy_v3": _hy_v3, "flint": _flint,
        "beam": _beam, "mimo_v2_flash": _mimo_v2_flash, "minimax_m3_vl_text": _minimax_m3}


# --- MLA layers -----------------------------------------------------------------------------

def _deepseek_moe(c, shared_width):
    """DeepSeek-V3's MoE as these families store it: the router and its load-balancing
    bias, experts one by one, the shared experts in one MLP of ``shared_width``."""
    return (_router(c) + _experts_one_by_one(c, c.moe_intermediate_size)
            + _swiglu("mlp.shared_experts", c.hidden_size, shared_width, "shared_experts"))


def _gated_norm(c, name):
    """A-X K2's gated RMSNorm: the norm and a low-rank sigmoid gate (the checkpoint's W_down,
    W_up; transformers' mlp.fc1, mlp.fc2)."""
    H, r = c.hidden_size, c.gated_norm_rank
    return (_norm(f"{name}.norm", H) + _linear(f"{name}.W_down", r, H, "norms")
            + _linear(f"{name}.W_up", H, r, "norms"))


@register_block("latent_attention_moe")
def _latent_layer(c, kind):
    """The MLA decoder layers of A.X-K1, A.X-K2, Hy4 and dots3-note, each as its family's
    data says: DeepSeek's multi-head latent attention with the family's extras (a gate on
    the output, sinks, the sparse-attention indexer), a dense MLP or DeepSeek-V3's MoE,
    the layer's norms."""
    c = layer_config(c, kind)
    return _MLA_LAYERS[c.model_type](c, kind)


def _axk1(c, kind):
    """A.X-K1: DeepSeek-V3 (a low-rank query always) with an RMSNorm on the MoE's output
    (post_mlp_layernorm: the checkpoint stores it in the layer; transformers in mlp)."""
    H = c.hidden_size
    t = _mla(c)
    if kind.mlp == "moe":
        t += (_deepseek_moe(c, c.moe_intermediate_size * c.n_shared_experts)
              + _norm("post_mlp_layernorm", H))
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp")
    return t + _norms(c, "input_layernorm", "post_attention_layernorm")


def _axk2(c, kind):
    """A.X-K2: DeepSeek-V3.2's sparse attention with the query up-projection and a sigmoid
    output gate in one matrix (q_b_proj, transformers' q_gate_proj, from the query latent
    and its norm side by side), a gated input norm in every layer and a gated MoE norm."""
    H, nh, qr = c.hidden_size, c.num_attention_heads, c.q_lora_rank
    nope, rope, vd = c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim
    b = bool(c.get("attention_bias"))
    t = (_linear("self_attn.q_a_proj", qr, H, "attention", b)
         + _norm("self_attn.q_a_layernorm", qr)
         + _linear("self_attn.q_b_proj", nh * (nope + rope + vd), 2 * qr, "attention")
         + _linear("self_attn.kv_a_proj_with_mqa", c.kv_lora_rank + rope, H, "attention", b)
         + _norm("self_attn.kv_a_layernorm", c.kv_lora_rank)
         + _linear("self_attn.kv_b_proj", nh * (nope + vd), c.kv_lora_rank, "attention")
         + _linear("self_attn.o_proj", H, nh * vd, "attention", b)
         + _indexer(c))
    t += _gated_norm(c, "input_layernorm")
    if kind.mlp == "moe":
        t += (_deepseek_moe(c, c.moe_intermediate_size * c.n_shared_experts)
              + _gated_norm(c, "post_attention_layernorm"))
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp") + _norm("post_attention_layernorm", H)
    return t


def _hy_v4(c, kind):
    """Hy4: GLM-5's sparse MLA (layers with their own indexer or reusing the previous one's
    choice) with a sigmoid output gate (gate_proj, v_head_dim per head) and a sink per
    head; a dense MLP in the first layer, DeepSeek-V3's MoE (experts fused) after; two
    pre/post hyper-connections (fn, base, scale) over hc_mult streams."""
    H, nh, m = c.hidden_size, c.num_attention_heads, c.hc_mult
    t = (_mla(c) + (_indexer(c) if kind.indexer else [])
         + _linear("self_attn.gate_proj", nh * c.v_head_dim, H, "attention")
         + [Tensor("self_attn.sinks", (nh,), "attention")])
    if kind.mlp == "moe":
        t += (_router(c) + _experts_fused(c, c.moe_intermediate_size)
              + _swiglu("mlp.shared_experts", H, c.moe_intermediate_size * c.n_shared_experts,
                        "shared_experts"))
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp")
    t += _norms(c, "input_layernorm", "post_attention_layernorm")
    for hc in ("attn_hc", "ffn_hc"):
        t += [Tensor(f"{hc}.fn", (2 * m, m * H), "norms"), Tensor(f"{hc}.base", (2 * m,), "norms"),
              Tensor(f"{hc}.scale", (2,), "norms")]
    return t


def _dots3(c, kind):
    """dots3-note: MLA (a low-rank query) with an RMSNorm on the shared RoPE key and a
    sigmoid gate per head (g_proj); sparse layers run GLM-5's indexer, sliding layers have
    their own heads and ranks; DeepSeek-V3's MoE with shared experts of
    shared_experts_intermediate_size each, or a dense MLP."""
    H = c.hidden_size
    t = (_mla(c) + _norm("self_attn.k_rope_only_layernorm", c.qk_rope_head_dim)
         + _linear("self_attn.g_proj", c.num_attention_heads, H, "attention")
         + (_indexer(c) if kind.indexer else []))
    if kind.mlp == "moe":
        t += _deepseek_moe(c, c.shared_experts_intermediate_size * c.n_shared_experts)
    else:
        t += _swiglu("mlp", H, c.intermediate_size, "mlp")
    return t + _norms(c, "input_layernorm", "post_attention_layernorm")


_MLA_LAYERS = {"axk1": _axk1, "axk2": _axk2, "hy_v4": _hy_v4, "dots3_note": _dots3,
               "dots3_note_text": _dots3}


# --- attention beside short convolutions (ZAYA, Inkling, Inkling 2) ------------------------------

def _conv(name, channels, kernel, component="attention", bias=False):
    """A depthwise causal convolution's taps (a weight per channel and tap: FLOPs, matmul)."""
    t = [Tensor(f"{name}.weight", (channels, 1, kernel), component, matmul=True)]
    if bias:
        t.append(Tensor(f"{name}.bias", (channels,), component))
    return t


@register_block("compressed_convolutional_attention")
def _zaya_layer(c, kind):
    """A ZAYA1 layer. Compressed convolutional attention: q and k projections mixed by a
    causal depthwise convolution (cca_time0 taps) and a grouped one (cca_time1 taps, a
    group per head of q and k), v half from the current token and half from the previous
    one (two projections), a learned key scale per KV head; then top-1 routing over the
    experts and one "skip" choice, by a router MLP on a down-projection (its state carried
    from the previous layer's router, scaled, from layer 1 on); learned scales and biases
    on both residual adds."""
    c = layer_config(c, kind)
    H, nh, kv, hd = c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim
    R, E, b = c.router_hidden_size, c.num_experts, bool(c.get("attention_bias"))
    C = (nh + kv) * hd
    a = "self_attn.qkv_proj."
    t = (_linear("self_attn.o_proj", H, nh * hd, "attention", b)
         + _linear(a + "q_proj", nh * hd, H, "attention", b)
         + _linear(a + "k_proj", kv * hd, H, "attention", b)
         + _linear(a + "v_proj_current", kv * hd // 2, H, "attention", b)
         + _linear(a + "v_proj_delayed", kv * hd // 2, H, "attention", b)
         + _conv(a + "conv_qk_depthwise", C, c.cca_time0, bias=True)
         + [Tensor(a + "conv_qk_grouped.weight", (C, hd, c.cca_time1), "attention", matmul=True),
            Tensor(a + "conv_qk_grouped.bias", (C,), "attention"),
            Tensor("self_attn.qk_norm.temp", (kv,), "attention")])
    g = "mlp.gate."
    t += _linear(g + "down_proj", R, H, "router", True)
    if c.get("use_eda", True):   # from layer 1 on: the previous router's state, scaled
        t.append(Tensor(g + "router_states_scale", (R,), "router"))
    t += (_norm(g + "router_mlp.norm", R) + _linear(g + "router_mlp.fc1", R, R, "router", True)
          + _linear(g + "router_mlp.fc2", R, R, "router", True)
          + _linear(g + "router_mlp.out_proj", E + 1, R, "router")
          + [Tensor(g + "balancing_biases", (E + 1,), "router", buffer=True)]
          + _experts_fused(c, c.moe_intermediate_size))
    t += _norms(c, "input_layernorm", "post_attention_layernorm")
    for r in ("post_attention_residual_scale", "post_mlp_residual_scale"):
        for x in ("hidden_states_scale", "hidden_states_bias", "residual_scale", "residual_bias"):
            t.append(Tensor(f"{r}.{x}", (H,), "norms"))
    return t


@register_layer_state("compressed_convolution")
def _zaya_state(c, kind):
    """ZAYA1's convolution window, (cca_time0 - 1) + (cca_time1 - 1) positions of q and k,
    and the previous token's delayed-value projection (half of v)."""
    if kind.attention not in ("full_attention", "sliding_attention"):
        return 0
    C = (c.num_attention_heads + c.num_key_value_heads) * c.head_dim
    return C * (c.cca_time0 - 1 + c.cca_time1 - 1) + c.num_key_value_heads * c.head_dim // 2


def _zaya_globals(cfg):
    """ZAYA1: a learned scale and bias on the embeddings (before the final norm), and the
    head's bias with lm_head_bias (after it)."""
    H = cfg.hidden_size
    return [Tensor("model.input_hidden_states_scale", (H,), "embedding"),
            Tensor("model.input_hidden_states_bias", (H,), "embedding")]


@register_block("short_convolution_attention")
def _inkling_layer(c, kind):
    """An Inkling layer: GQA (the sliding layers' own heads and head width) with q and k
    RMS-normed per head, short causal convolutions over k and v, a relative-position bias
    made per token (r_proj to d_rel per head, mixed by a learned table over rel_extent
    distances, the window in a sliding layer); short convolutions over the attention's
    and the MLP's outputs; routed experts whose router also scores n_shared_experts shared
    experts (stored stacked) and keeps a global scale, or a dense MLP with one."""
    c = layer_config(c, kind)
    H, nh, kv, hd, K = (c.hidden_size, c.num_attention_heads, c.num_key_value_heads,
                        c.head_dim, c.conv_kernel_size)
    t = (_qkvo(c, bias=False) + _linear("self_attn.r_proj", nh * c.d_rel, H, "attention")
         + _conv("self_attn.k_sconv.conv1d", kv * hd, K)
         + _conv("self_attn.v_sconv.conv1d", kv * hd, K) + _qk_norm(c)
         + [Tensor("self_attn.rel_logits_proj.proj", (c.d_rel, c.rel_extent), "attention")])
    if kind.mlp == "moe":
        E, S, I = c.num_experts, c.n_shared_experts, c.moe_intermediate_size
        t += (_linear("mlp.gate", E + S, H, "router")
              + [Tensor("mlp.gate.global_scale", (1,), "router"),
                 Tensor("mlp.gate.e_score_correction_bias", (E,), "router", buffer=True)]
              + _experts_fused(c, I)
              + [Tensor("mlp.shared_experts.gate_proj", (S, I, H), "shared_experts", True),
                 Tensor("mlp.shared_experts.up_proj", (S, I, H), "shared_experts", True),
                 Tensor("mlp.shared_experts.down_proj", (S, H, I), "shared_experts", True)])
    else:
        t += (_swiglu("mlp", H, c.intermediate_size, "mlp")
              + [Tensor("mlp.global_scale", (1,), "mlp")])
    return (t + _norms(c, "input_layernorm", "post_attention_layernorm")
            + _conv("attn_sconv.conv1d", H, K, "norms") + _conv("mlp_sconv.conv1d", H, K, "norms"))


@register_layer_state("short_convolutions")
def _sconv_state(c, kind):
    """Inkling's and Inkling 2's four short convolutions: the last conv_kernel_size inputs
    of each (k and v: KV heads x head_dim channels; the attention's and the MLP's
    outputs: hidden_size)."""
    return (2 * c.num_key_value_heads * c.head_dim + 2 * c.hidden_size) * c.conv_kernel_size


@register_extra_flops("relative_position_logits")
def _rel_logits_flops(cfg):
    """Inkling's relative-position bias: each token's relative state (d_rel per head) mixed
    by the learned table into a bias for each of rel_extent distances, 2 x heads x d_rel x
    rel_extent FLOPs per layer, whatever the context."""
    total = 0
    for kind, n in cfg.layer_schedule.counts().items():
        c = layer_config(cfg, kind)
        total += n * 2 * c.num_attention_heads * c.d_rel * c.rel_extent
    return total


def _inkling2_block_states(cfg):
    """(block states entering layer i, ...) of Inkling 2's attention residuals: every
    n_layers_per_attn_res_block-th layer from 0 adds its input to them."""
    n = cfg.n_layers_per_attn_res_block
    return lambda i: 0 if i == 0 else (i - 1) // n + 1


@register_extra_flops("relative_logits_block_residuals")
def _inkling2_flops(cfg):
    """Inkling 2: the relative-position bias (as Inkling's), and its attention residuals:
    before attention (from layer 1; 3 queries in a full layer, for q, k and v's inputs; 1
    in a sliding one) and before the MLP (1 query), each query attends over the block
    states so far and the layer's input (hidden_size each: 2 x 2 x hidden_size FLOPs per
    state), as the final one before the head does."""
    total = _rel_logits_flops(cfg)
    H, L, n = cfg.hidden_size, cfg.num_hidden_layers, cfg.n_layers_per_attn_res_block
    if L > MAX_LIST:
        _fail("num_hidden_layers", "Inkling 2's attention residuals are counted for at most "
              f"{MAX_LIST:,} layers", L)
    states = _inkling2_block_states(cfg)
    for i in range(L):
        full = cfg.layer_schedule.kind_at(i).attention == "full_attention"
        nb = states(i)
        if i > 0:
            total += (3 if full else 1) * 4 * H * (nb + 1)
        total += 4 * H * (nb + (i % n == 0) + 1)
    return total + 4 * H * (states(L) + 1)


@register_block("short_convolution_attention_residuals")
def _inkling2_layer(c, kind):
    """An Inkling 2 layer. Attention (the sliding layers' own heads and width): q, k, v, o,
    a per-token relative-position bias (r_proj and its table), a sigmoid output gate, a sink
    logit per head made per token (sink_proj), learned scales before clipping q's and the
    relative states' norms; short convolutions over k and v (static in a sliding layer;
    in a full layer static taps plus taps projected per token, and q, k and v each from its
    own normed input); short convolutions over the attention's and the MLP's outputs;
    routed experts in every layer. Attention residuals: a learned query (three in a full
    layer) per input attends over the earlier blocks' outputs (none before layer 0's
    attention)."""
    c = layer_config(c, kind)
    H, nh, kv, hd, K = (c.hidden_size, c.num_attention_heads, c.num_key_value_heads,
                        c.head_dim, c.conv_kernel_size)
    full = kind.attention == "full_attention"
    a = "self_attn."
    t = (_qkvo(c, bias=False) + _linear(a + "r_proj", nh * c.d_rel, H, "attention")
         + [Tensor(a + "rel_logits_proj.proj", (c.d_rel, c.rel_extent), "attention")]
         + _linear(a + "gate_proj", nh * hd, H, "attention")
         + _linear(a + "sink_proj", nh, H, "attention")
         + [Tensor(a + "q_l2_clip.scale", (nh, hd), "attention"),
            Tensor(a + "rel_l2_clip.scale", (nh, c.d_rel), "attention")])
    for x in ("k", "v"):
        if full:   # static taps plus per-token taps: K multiply-adds per channel, as a conv
            t += ([Tensor(f"{a}{x}_sconv.static_weight", (K, kv * hd), "attention", matmul=True)]
                  + _linear(f"{a}{x}_sconv.weight_proj", kv * K, H, "attention"))
        else:
            t += _conv(f"{a}{x}_sconv.conv1d", kv * hd, K)
    if c.get("attention_input", True):
        t.append(Tensor("attention_input.query", (3, H) if full else (H,), "norms"))
    t += [Tensor("mlp_input.query", (H,), "norms")]
    t += (_router(c) + _experts_fused(c, c.moe_intermediate_size)
          + _norms(c, *(("q_input_layernorm", "k_input_layernorm", "v_input_layernorm")
                        if full else ("input_layernorm",)), "post_attention_layernorm")
          + _conv("post_attention_convolution.conv1d", H, K, "norms")
          + _conv("post_mlp_convolution.conv1d", H, K, "norms"))
    return t


def _embed_norm(cfg):
    """Inkling: an RMSNorm on the token embedding (and Inkling 2's learned query of the
    final attention residual)."""
    t = _norm("model.embed_tokens.embed_norm", cfg.hidden_size)
    if cfg.layout.block == "short_convolution_attention_residuals":
        t.append(Tensor("model.final_input.query", (cfg.hidden_size,), "norms"))
    return t


for _name, _extra in (("input_scale_bias", (_zaya_globals, True)),
                      ("embedding_norm", (_embed_norm, True))):
    if _name in GLOBAL_EXTRAS:
        raise ValueError(f"global tensors named {_name!r} exist already")
    GLOBAL_EXTRAS[_name] = _extra


# --- layer schedules and rules -----------------------------------------------------------------

def _kolibri1_layers(r):
    """Kolibri 1: four sliding-window layers to one full (layer_types); RoPE on the sliding
    layers only (Exaone 4's rule); routed experts in every layer."""
    lt = _attention_types(r, lambda i: "full_attention" if (i + 1) % 5 == 0
                          else "sliding_attention")
    _no_window_refused(r, lt, "Kolibri 1")
    return dict(attention=Axis.from_list(lt, field="layer_types"),
                rope=Axis.from_list([v == "sliding_attention" for v in lt], field="layer_types"),
                mlp=Axis.constant("moe"))


def _laguna_layers(r):
    """Laguna: layer_types (full by default), mlp_layer_types (the first dense), and each
    layer's own head count (num_attention_heads_per_layer)."""
    if r.get("moe_apply_router_weight_on_input"):
        _fail("moe_apply_router_weight_on_input", "transformers' Laguna does not implement it "
              "(it refuses true)", True)
    lt = _attention_types(r, lambda i: "full_attention")
    L = r["num_hidden_layers"]
    heads = r.get("num_attention_heads_per_layer")
    if heads is not None:
        if not isinstance(heads, list) or len(heads) != L or not all(
                _is_int(h) and 0 < h <= MAX_SIZE for h in heads):
            _fail("num_attention_heads_per_layer", f"must give a positive head count for each "
                  f"of the {L:,} layers", heads)
        own = Axis.from_list([(("num_attention_heads", h),) if h != r["num_attention_heads"]
                              else () for h in heads], field="num_attention_heads_per_layer")
    else:
        own = Axis.constant(())
    return dict(attention=Axis.from_list(lt, field="layer_types"),
                mlp=_moe_axis(_sparse_mlp(r, lambda i: i > 0)), own_fields=own)


def _hy_v3_layers(r):
    return dict(attention=Axis.constant("full_attention"),
                mlp=_moe_axis(_sparse_mlp(r, lambda i: i > 0)))


def _flint_layers(r):
    """Flint: full attention in the first two layers, every fourth from layer 1 and the
    last, sliding windows elsewhere (layer_types); RoPE on the sliding layers only (a full
    layer is NoPE); experts except in mlp_only_layers ([0, 1]) and where (i + 1) does not
    divide by decoder_sparse_step."""
    L = r["num_hidden_layers"]
    lt = _attention_types(r, lambda i: "full_attention" if i < 2 or i % 4 == 1 or i == L - 1
                          else "sliding_attention")
    mol = r.get("mlp_only_layers")
    mol = [0, 1] if mol is None else mol
    if not isinstance(mol, list) or len(mol) > MAX_LIST or not all(_is_int(i) for i in mol):
        _fail("mlp_only_layers", "must be a list of layer indices", mol)
    step = _whole(r, "decoder_sparse_step")
    mlp = Axis.every(step, "moe", "dense", phase=step - 1, field="decoder_sparse_step")
    mlp = mlp.override([i for i in mol if 0 <= i < L], "dense")
    window = r.get("sliding_window") is not None
    return dict(attention=Axis.from_list(lt, field="layer_types"), mlp=mlp,
                rope=Axis.from_list([v == "sliding_attention" and window for v in lt],
                                    field="layer_types"))


def _beam_layers(r):
    """Beam: five sliding-window layers to one full, the last full (layer_types); the first
    three MLPs dense (mlp_layer_types); RoPE where rope_parameters gives the layer type one
    (the full layers are NoPE by default)."""
    L = r["num_hidden_layers"]
    given = r.get("layer_types") is not None
    lt = _attention_types(r, lambda i: "sliding_attention" if (i + 1) % 6 else "full_attention")
    if not given and lt:
        lt[-1] = "full_attention"
    rp = r.get("rope_parameters")
    rope = {"sliding_attention": True, "full_attention": False}
    if isinstance(rp, dict) and set(rp) & set(rope):
        rope = {k: rp.get(k) is not None for k in rope}
    return dict(attention=Axis.from_list(lt, field="layer_types"),
                rope=Axis.from_list([rope[v] for v in lt], field="layer_types"),
                mlp=_moe_axis(_sparse_mlp(r, lambda i: i >= min(3, L))))


def _mimo_prepare(r, raw):
    """transformers reads the hub's sliding_window_size as the window less one, and builds
    nothing from its moe_layer_freq list (mlp_layer_types or the default say)."""
    r.pop("moe_layer_freq", None)
    v = raw.get("sliding_window_size")
    if v is not None:
        if not _is_int(v) or not 0 < v < MAX_SIZE:
            _fail("sliding_window_size", "must be a positive whole number", v)
        r["sliding_window"] = v + 1


def _mimo_layers(r):
    """MiMo-V2-Flash: full attention in the first layer and every sixth, sliding windows
    elsewhere (with twice the KV heads); the first MLP dense, the rest MoE."""
    lt = _attention_types(r, lambda i: "full_attention" if i == 0 or (i + 1) % 6 == 0
                          else "sliding_attention")
    kv = r.get("num_key_value_heads") or r["num_attention_heads"]
    own = [(("num_key_value_heads", 2 * kv),) if v == "sliding_attention" else () for v in lt]
    return dict(attention=Axis.from_list(lt, field="layer_types"),
                own_fields=Axis.from_list(own, field="layer_types"),
                mlp=_moe_axis(_sparse_mlp(r, lambda i: i > 0)))


def _mimo_check(r, head_dim):
    """A sliding layer's 2 x num_key_value_heads must divide the query heads at runtime;
    transformers builds any, so only the width is checked."""
    vd = r.get("v_head_dim")
    if not _is_int(vd) or vd <= 0:
        _fail("v_head_dim", "must be a positive whole number", vd)


_M3_SPARSE = {"sparse_num_index_heads": "index_n_heads", "sparse_index_dim": "index_head_dim",
              "sparse_block_size": "index_block_size", "sparse_topk_blocks": "index_topk_blocks",
              "sparse_local_block": "index_local_blocks"}


def _minimax_m3_prepare(r, raw):
    """The hub's sparse_attention_config and moe_layer_freq, read as MiniMaxM3VLTextConfig
    reads them."""
    sc = raw.get("sparse_attention_config")
    if sc is not None and not isinstance(sc, dict):
        _fail("sparse_attention_config", "must be a JSON object", sc)
    sc = sc or {}
    for legacy, flat in _M3_SPARSE.items():
        if legacy in sc:
            r[flat] = sc[legacy]
    L = r["num_hidden_layers"]
    freq = sc.get("sparse_attention_freq")
    if r.get("layer_types") is None and freq is not None:
        if not isinstance(freq, list) or len(freq) > MAX_LIST:
            _fail("sparse_attention_config.sparse_attention_freq", "must list one flag per layer",
                  freq)
        r["layer_types"] = ["minimax_m3_sparse" if f else "full_attention" for f in freq]
    mlf = r.pop("moe_layer_freq", None)   # (read here: a list, not the generic number)
    if r.get("mlp_layer_types") is None and mlf is not None:
        if not isinstance(mlf, list) or len(mlf) > MAX_LIST:
            _fail("moe_layer_freq", "must list one flag per layer", mlf)
        r["mlp_layer_types"] = ["sparse" if f else "dense" for f in mlf]
    del L


def _minimax_m3_layers(r):
    """MiniMax-M3: full attention, or block-sparse attention with its own indexer
    ("minimax_m3_sparse", transformers' name; the engine's indexed_attention); every MLP
    MoE unless mlp_layer_types says dense."""
    lt = _attention_types(r, lambda i: "full_attention",
                          kinds=("full_attention", "minimax_m3_sparse"))
    attn = Axis.from_list(["indexed_attention" if v == "minimax_m3_sparse" else v for v in lt],
                          field="layer_types")
    return dict(attention=attn, indexer=attn.map(lambda v: v == "indexed_attention"),
                mlp=_moe_axis(_sparse_mlp(r, lambda i: True)))


def _legacy_dense_prefix(r):
    """first_k_dense_replace and moe_layer_freq (legacy keys, not fields): sparse where
    i >= first_k_dense_replace and i % moe_layer_freq == 0 (A.X-K1, A.X-K2)."""
    fk = r.get("first_k_dense_replace")
    fk = 1 if fk is None else fk
    freq = r.get("moe_layer_freq")
    freq = 1 if freq is None else freq
    if not _is_int(fk) or fk < 0:
        _fail("first_k_dense_replace", "must be a whole number, 0 or more", fk)
    if not _is_int(freq) or freq <= 0:
        _fail("moe_layer_freq", "must be a positive whole number", freq)
    return lambda i: i >= fk and i % freq == 0


def _axk1_layers(r):
    return dict(attention=Axis.constant("full_attention"),
                mlp=_moe_axis(_sparse_mlp(r, _legacy_dense_prefix(r))))


def _axk2_layers(r):
    _attention_types(r, lambda i: "indexed_attention", kinds=("indexed_attention",))
    return dict(attention=Axis.constant("indexed_attention"), indexer=Axis.constant(True),
                mlp=_moe_axis(_sparse_mlp(r, _legacy_dense_prefix(r))))


def _axk2_check(r, head_dim):
    """A.X-K2Config.validate_architecture: grouped routing set whole, dividing the experts."""
    ng, tg = r.get("n_group"), r.get("topk_group")
    if (ng is None) != (tg is None):
        _fail("n_group" if ng is None else "topk_group", "n_group and topk_group must be set "
              "together (both null: routing over all experts)", ng if ng is None else tg)
    if ng is not None:
        if not _is_int(ng) or ng <= 0 or r["n_routed_experts"] % ng:
            _fail("n_group", f"must divide n_routed_experts={r['n_routed_experts']}", ng)
        if not _is_int(tg) or not 0 < tg <= ng:
            _fail("topk_group", f"must be 1 to n_group={ng}", tg)


def _hy_v4_layers(r):
    """Hy4: sparse MLA in every layer; the first and every fourth from layer 1 run their
    own indexer, the others reuse the last one's choice (indexer_types "full"/"shared");
    the first MLP dense."""
    _attention_types(r, lambda i: "indexed_attention", kinds=("indexed_attention",))
    it = _list_of(r, "indexer_types", ("full", "shared"))
    if it is None:
        L = r["num_hidden_layers"]
        own = Axis.cycle((True, 1), (False, 3), prefix=[(True, min(L, 1))], field="indexer_types")
    else:
        own = Axis.from_list([v == "full" for v in it], field="indexer_types")
    return dict(attention=Axis.constant("indexed_attention"), indexer=own,
                mlp=_moe_axis(_sparse_mlp(r, lambda i: i > 0)))


def _hy_v4_derive(r, raw):
    """HYV4Config sets num_key_value_heads to the head count (MLA has no KV heads)."""
    r["num_key_value_heads"] = r["num_attention_heads"]


# dots3-note's sliding layers: their own MLA (the hub's swa_* keys, Dots3NoteTextConfig's
# defaults), transformers' per_layer_config saves them per layer
_DOTS3_SWA = dict(num_attention_heads=64, num_key_value_heads=64, q_lora_rank=1024,
                  kv_lora_rank=1024, head_dim=256, qk_nope_head_dim=192, v_head_dim=128)
_DOTS3_FIELDS = tuple(_DOTS3_SWA) + ("qk_rope_head_dim",)


def _dots3_prepare(r, raw):
    """A dots3_note config holds its text model at the top level; a saved one (or a
    dots3_note_text) may nest it in text_config, which then wins, as Dots3NoteConfig reads
    it."""
    tc = raw.get("text_config")
    if r["model_type"] == "dots3_note" and tc is not None:
        if not isinstance(tc, dict):
            _fail("text_config", "must be a JSON object", tc)
        keep = {k: r[k] for k in ("model_type",)}
        from . import frontier   # (this module's own entry: its defaults)
        defaults = frontier.ENTRIES["dots3_note"].defaults
        r.clear()
        r.update(defaults)
        r.update(tc)
        r.update(keep)
    if r["model_type"] == "dots3_note":
        for k in ("vision_config", "audio_config"):
            if raw.get(k) is not None:
                _fail(k, "dots3-note's vision and audio encoders have no builder here (its "
                      "causal LM, which transformers builds for the type, leaves them out); "
                      "remove it to size the language model", show_value=False)
    # moe_layer_freq: a number or a flag per layer (read by the layer schedule)
    r["moe_layer_freq_read"] = r.pop("moe_layer_freq", None)


def _dots3_layers(r):
    """dots3-note: sparse MLA (GLM-5's indexer) in the first two layers and every fourth
    from layer 1, sliding-window MLA elsewhere with the sliding layers' own heads and ranks
    (the hub's swa_* keys, or per_layer_config as transformers saves it); MoE from
    first_k_dense_replace (1) on, where moe_layer_freq says."""
    L = r["num_hidden_layers"]
    use_dsa = r.get("use_dsa")
    plc = r.get("per_layer_config")
    if use_dsa is None and plc is None:
        use_dsa = True
    full = "full_attention" if use_dsa is False else "indexed_attention"
    window = r.get("use_sliding_window", True)
    given = r.get("layer_types")
    lt = _attention_types(r, lambda i: full if not window or i < 2 or i % 4 == 1
                          else "sliding_attention",
                          kinds=("full_attention", "indexed_attention", "sliding_attention"))
    if use_dsa is not None and given is not None:   # use_dsa renames the given ones
        old, new = ("full_attention", "indexed_attention") if use_dsa else (
            "indexed_attention", "full_attention")
        lt = [new if v == old else v for v in lt]
    if r.get("sliding_window") is None:
        r["sliding_window"] = r.get("sliding_window_size", 512)
    swa = {k: r.get("swa_" + k, v) for k, v in _DOTS3_SWA.items()}
    swa["qk_rope_head_dim"] = r.get("swa_qk_rope_head_dim",
                                    swa["head_dim"] - swa["qk_nope_head_dim"])
    by_layer = {}
    if plc is None:
        by_layer = {i: swa for i, v in enumerate(lt) if v == "sliding_attention"}
    else:
        if not isinstance(plc, dict) or len(plc) > MAX_LIST:
            _fail("per_layer_config", "must map layer indices to their own settings", plc)
        for key, ov in plc.items():
            try:
                i = int(key)
            except (TypeError, ValueError):
                i = -1
            if not 0 <= i < L or not isinstance(ov, dict):
                _fail("per_layer_config", f"keys must be layer indices in 0..{L - 1:,}, each "
                      "with an object of settings", key)
            extra = set(ov) - set(_DOTS3_FIELDS)
            if extra:
                _fail("per_layer_config", f"only a layer's own MLA heads and ranks are modelled "
                      f"here (layer {i}: {', '.join(sorted(extra))})", show_value=False)
            by_layer[i] = ov
    own = []
    for i in range(L):
        ov = by_layer.get(i, {})
        for f, v in ov.items():
            if not _is_int(v) or not 0 < v <= MAX_SIZE:
                _fail(f"per_layer_config.{i}.{f}" if plc is not None else f"swa_{f}",
                      "must be a positive whole number", v)
        own.append(tuple(sorted((f, v) for f, v in ov.items() if v != r.get(f))))
    fk = r.get("first_k_dense_replace", 1)
    freq = r.get("moe_layer_freq_read")
    freq = 1 if freq is None else freq
    if isinstance(freq, list):
        if len(freq) < L:
            _fail("moe_layer_freq", f"must give a flag for each of the {L:,} layers", freq)
        sparse = lambda i: i >= fk and bool(freq[i])   # noqa: E731
    else:
        if not _is_int(freq) or freq <= 0:
            _fail("moe_layer_freq", "must be a positive whole number or a list", freq)
        sparse = lambda i: i >= fk and i % freq == 0   # noqa: E731
    if not _is_int(fk) or fk < 0:
        _fail("first_k_dense_replace", "must be a whole number, 0 or more", fk)
    by_type = {}
    for v, o in zip(lt, own):
        if by_type.setdefault(v, o) != o:
            _fail("per_layer_config", f"its {v} layers must share one shape (transformers reads "
                  "the settings per layer type)", show_value=False)
    for i, v in enumerate(lt):
        c = dict(r, **dict(own[i]))
        c.setdefault("head_dim", None)
        c["head_dim"] = 256 if c["head_dim"] is None else c["head_dim"]   # the class's
        if c.get("num_key_value_heads", c["num_attention_heads"]) != c["num_attention_heads"]:
            _fail("num_key_value_heads", "must match num_attention_heads (dots3-note's MLA)",
                  c.get("num_key_value_heads"))
        if v == "indexed_attention" and c["qk_rope_head_dim"] > r["index_head_dim"]:
            _fail("qk_rope_head_dim", f"must not exceed index_head_dim={r['index_head_dim']}",
                  c["qk_rope_head_dim"])
        if v == "sliding_attention" and c["head_dim"] != c["qk_nope_head_dim"] + c[
                "qk_rope_head_dim"]:
            _fail("swa_head_dim", "must equal the sliding layers' qk_nope_head_dim + "
                  "qk_rope_head_dim", c["head_dim"])
    return dict(attention=Axis.from_list(lt, field="layer_types"),
                indexer=Axis.from_list([v == "indexed_attention" for v in lt],
                                       field="layer_types"),
                own_fields=Axis.from_list(own, field="per_layer_config"),
                mlp=_moe_axis(_sparse_mlp(r, sparse)))


def _dots3_check(r, head_dim):
    """Dots3NoteTextConfig.validate_architecture's rules beyond the layers'; a dots3_note
    config's default vision and audio adapters write 5120-wide vectors, which its text
    model must take (Dots3NoteConfig's rule)."""
    if r["model_type"] == "dots3_note" and r["hidden_size"] != 5120:
        _fail("hidden_size", "must be 5120 in a dots3_note config (the width its default "
              "vision and audio adapters write; dots3_note_text has no such rule)",
              r["hidden_size"])
    if (r.get("n_shared_experts") or 0) < 1:
        _fail("n_shared_experts", "dots3-note needs at least one shared expert",
              r.get("n_shared_experts"))
    ng, tg, E = r["n_group"], r["topk_group"], r["n_routed_experts"]
    if not _is_int(ng) or ng < 1 or E % ng:
        _fail("n_group", f"must divide n_routed_experts={E}", ng)
    if E // ng < 2:
        _fail("n_group", "grouped routing needs at least two experts per group", ng)
    if not _is_int(tg) or not 1 <= tg <= ng:
        _fail("topk_group", f"must be 1 to n_group={ng}", tg)


def _hybrid_types(r, default):
    """ZAYA1's and Inkling's layer_types: "hybrid" (full attention beside the layer's fixed
    state) and "hybrid_sliding" (in a window), read as full and sliding attention."""
    L = r["num_hidden_layers"]
    lt = _list_of(r, "layer_types", ("hybrid", "hybrid_sliding"))
    r["layer_types"] = None
    if lt is None:
        if L > MAX_LIST:
            _fail("num_hidden_layers", f"the default layer pattern is listed for at most "
                  f"{MAX_LIST:,} layers", L)
        lt = [default(i) for i in range(L)]
    return ["sliding_attention" if v == "hybrid_sliding" else "full_attention" for v in lt]


def _zaya_layers(r):
    """ZAYA1: every layer "hybrid" (full attention; "hybrid_sliding" layers need a window),
    routed experts in every layer; layer 0's router has no state from a previous one."""
    if r.get("num_experts_per_tok") != 1:
        _fail("num_experts_per_tok", "ZAYA1 routes each token to one expert (or none): "
              "transformers supports 1 only", r.get("num_experts_per_tok"))
    lt = _hybrid_types(r, lambda i: "hybrid")
    _no_window_refused(r, lt, "ZAYA1")
    L = r["num_hidden_layers"]
    own = Axis.cycle(((), 1), prefix=[((("use_eda", False),), min(L, 1))], field="layers")
    return dict(attention=Axis.from_list(lt, field="layer_types"), mlp=Axis.constant("moe"),
                own_fields=own)


def _zaya_derive(r, raw):
    """The router's extra choice: no expert at all (top-1 of num_experts + 1)."""
    r["skip_experts"] = 1


def _inkling_prepare(r, raw):
    """InklingTextConfig's legacy keys: dense_intermediate_size (the dense MLP's width; then
    intermediate_size is the experts'), dense_mlp_idx (the first layers dense)."""
    if raw.get("dense_intermediate_size") is not None:
        r["moe_intermediate_size"] = r["intermediate_size"]
        r["intermediate_size"] = raw["dense_intermediate_size"]


def _swa_fields(r, pairs):
    """A sliding layer's own values of fields: ((field, value), ...) where they differ."""
    return tuple(sorted((f, r[swa]) for f, swa in pairs if r.get(swa) != r.get(f)))


def _inkling_layers(r):
    """Inkling: five sliding-window layers ("hybrid_sliding", local_layer_ids) to one full
    ("hybrid"); the sliding ones with their own heads, KV heads and head width (swa_*) and a
    relative bias over the window; the first dense_mlp_idx MLPs dense (mlp_layer_types)."""
    L = r["num_hidden_layers"]
    local = r.get("local_layer_ids")
    if local is not None:
        if not isinstance(local, list) or len(local) > MAX_LIST or not all(
                _is_int(i) for i in local):
            _fail("local_layer_ids", "must be a list of layer indices", local)
        local = set(local)
    lt = _hybrid_types(r, lambda i: "hybrid_sliding" if (
        i in local if local is not None else (i + 1) % 6) else "hybrid")
    swa = _swa_fields(r, (("num_attention_heads", "swa_num_attention_heads"),
                          ("num_key_value_heads", "swa_num_key_value_heads"),
                          ("head_dim", "swa_head_dim")))
    if r.get("sliding_window_size") != r.get("rel_extent"):
        swa = tuple(sorted(swa + (("rel_extent", r.get("sliding_window_size")),)))
    for f, v in swa:
        if not _is_int(v) or not 0 < v <= MAX_SIZE:
            _fail("swa_" + f if f != "rel_extent" else "sliding_window_size",
                  "must be a positive whole number", v)
    dense = r.get("dense_mlp_idx")
    dense = 0 if dense is None else dense
    if not _is_int(dense):
        _fail("dense_mlp_idx", "must be a whole number", dense)
    return dict(attention=Axis.from_list(lt, field="layer_types"),
                own_fields=Axis.from_list([swa if v == "sliding_attention" else ()
                                           for v in lt], field="layer_types"),
                mlp=_moe_axis(_sparse_mlp(r, lambda i: i >= dense)))


def _inkling2_layers(r):
    """Inkling 2: five sliding-window layers to one full (layer_types), the sliding ones
    with their own heads, KV heads, head width and the window as their relative extent;
    experts in every layer; layer 0 without the attention residual before its attention."""
    lt = _hybrid_types(r, lambda i: "hybrid" if (i + 1) % 6 == 0 else "hybrid_sliding")
    swa = _swa_fields(r, (("num_attention_heads", "swa_num_attention_heads"),
                          ("num_key_value_heads", "swa_num_key_value_heads"),
                          ("head_dim", "swa_head_dim")))
    if r.get("sliding_window_size") != r.get("rel_extent"):
        swa = tuple(sorted(swa + (("rel_extent", r.get("sliding_window_size")),)))
    first = (("attention_input", False),)
    own = [tuple(sorted((swa if v == "sliding_attention" else ()) + (first if i == 0 else ())))
           for i, v in enumerate(lt)]
    return dict(attention=Axis.from_list(lt, field="layer_types"),
                own_fields=Axis.from_list(own, field="layer_types"), mlp=Axis.constant("moe"))


def _cohere_compass_layers(r):
    """Cohere Compass: every layer full attention unless layer_types says (sliding layers
    in a window); RoPE where rope_parameters gives the layer's type settings. transformers
    builds only with rope_parameters keyed by layer type (its rotary tables are per type)."""
    lt = _attention_types(r, lambda i: "full_attention")
    rp = r.get("rope_parameters")
    if not isinstance(rp, dict) or not set(lt) <= set(rp):
        _fail("rope_parameters", "Cohere Compass needs an entry (settings or null) for each "
              f"layer type ({', '.join(sorted(set(lt)))}): transformers cannot build it "
              "otherwise", show_value=False)
    for k in set(lt):
        if rp[k] is not None and not isinstance(rp[k], dict):
            _fail(f"rope_parameters.{k}", "must be an object or null", rp[k])
    return dict(attention=Axis.from_list(lt, field="layer_types"),
                rope=Axis.from_list([rp[v] is not None for v in lt], field="layer_types"))


def _cohere_compass_derive(r, raw):
    """CohereCompassTextConfig's head_dim without one given: hidden_size //
    num_attention_heads, rounded down (a given one wins)."""
    h, n = r.get("hidden_size"), r.get("num_attention_heads")
    if r.get("head_dim") is None and _is_int(h) and _is_int(n) and n > 0:
        r["head_dim"] = h // n


# --- the entries ---------------------------------------------------------------------------

def _common(*drop):
    """The common keys less those the family's class does not have."""
    return {k: v for k, v in _COMMON.items() if k not in drop}


def _laguna_check(r, head_dim):
    """Laguna's gate: true, "per-head" or "per-element" (anything else: per element)."""
    g = r.get("gating")
    if not (isinstance(g, bool) or isinstance(g, str)):
        _fail("gating", "must be true/false, \"per-head\" or \"per-element\"", g)


ENTRIES = {
    # Kolibri 1 (Aleph Alpha): Exaone 4's attention in windows, 384 routed experts and an
    # ungated shared expert in every layer, four norms per layer. No dense MLP:
    # intermediate_size is not a field (read as the experts' width)
    "kolibri1": Family(
        layout=Layout(block="gated_attention_moe", qk_norm="shared", qkv_bias=False,
                      o_bias=False, router="sigmoid", router_buffer=True),
        moe="num_experts",
        layers=_kolibri1_layers,
        attribute_map=dict(num_experts="num_local_experts"),
        own_wins=("num_experts",),
        positive=("shared_expert_intermediate_size",),
        derive=(rules.experts_only_derive,),
        defaults=dict(_common("attention_bias"), vocab_size=128000, hidden_size=2560,
                      num_hidden_layers=50, num_attention_heads=48, num_key_value_heads=4,
                      head_dim=128, max_position_embeddings=262144, sliding_window=513,
                      moe_intermediate_size=512, shared_expert_intermediate_size=512,
                      num_experts_per_tok=6, num_local_experts=384, norm_topk_prob=False)),
    # Laguna (poolside): QK-norm, a softplus gate on the attention output, layers with
    # their own head counts, the first MLP dense and routed experts with a shared expert
    "laguna": Family(
        layout=Layout(block="gated_attention_moe", qk_norm="shared", output_gate=False,
                      router="sigmoid", router_norm_topk=True),
        moe="num_experts",
        layers=_laguna_layers,
        never_null=("sliding_window",),
        attention_kinds=("full_attention", "sliding_attention"),
        positive=("shared_expert_intermediate_size", "moe_intermediate_size"),
        enums=dict(),
        depth_lists=dict(num_attention_heads_per_layer="repeat"),
        check=(_laguna_check,),
        defaults=dict(_COMMON, vocab_size=100352, hidden_size=2048, intermediate_size=8192,
                      num_hidden_layers=40, num_attention_heads=48, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=131072, sliding_window=512,
                      moe_intermediate_size=512, shared_expert_intermediate_size=512,
                      num_experts_per_tok=8, num_experts=256, gating=True,
                      num_attention_heads_per_layer=None, mlp_layer_types=None,
                      moe_apply_router_weight_on_input=False)),
    # Hy3 (Tencent): QK-norm, the first MLP dense, 192 routed experts with a
    # load-balancing bias and one shared expert
    "hy_v3": Family(
        layout=Layout(block="gated_attention_moe", qk_norm="shared", router="sigmoid",
                      router_norm_topk=True, router_buffer=True),
        moe="num_experts",
        layers=_hy_v3_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_local_experts="num_experts"),
        non_negative=("num_shared_experts",),
        defaults=dict(_COMMON, vocab_size=120832, hidden_size=4096, intermediate_size=13312,
                      num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=131072, mlp_bias=False,
                      num_experts=192, num_experts_per_tok=8, num_shared_experts=1,
                      moe_intermediate_size=1536, mlp_layer_types=None)),
    # Flint: QK-norm and sinks, sliding windows with RoPE and full NoPE layers, routed
    # experts with an ungated shared expert after two dense layers
    "flint": Family(
        layout=Layout(block="gated_attention_moe", qk_norm="shared", sinks=True,
                      router="sigmoid", router_norm_topk=True),
        moe="num_experts",
        layers=_flint_layers,
        never_null=("sliding_window",),
        positive=("shared_expert_intermediate_size", "moe_intermediate_size",
                  "decoder_sparse_step"),
        nullable=("mlp_only_layers",),
        defaults=dict(_COMMON, vocab_size=150144, hidden_size=2048, intermediate_size=6144,
                      num_hidden_layers=49, num_attention_heads=32, num_key_value_heads=4,
                      head_dim=128, max_position_embeddings=262144, sliding_window=513,
                      decoder_sparse_step=1, moe_intermediate_size=512,
                      shared_expert_intermediate_size=1024, num_experts_per_tok=6,
                      num_experts=256, norm_topk_prob=True, mlp_only_layers=None)),
    # Beam (Reflection): QK-norm, a sigmoid gate on the attention output, sliding layers
    # with RoPE and full NoPE layers, Gemma's four norms, experts without a shared expert
    "beam": Family(
        layout=Layout(block="gated_attention_moe", qk_norm="shared", final_softcap=True,
                      layer_norms=("input_layernorm", "post_attention_layernorm",
                                   "pre_feedforward_layernorm", "post_feedforward_layernorm"),
                      router="grouped", router_norm_topk=True, router_buffer=True),
        moe="num_experts",
        layers=_beam_layers,
        positive=("moe_intermediate_size",),
        defaults=dict(_COMMON, vocab_size=151936, hidden_size=5120, intermediate_size=20480,
                      num_hidden_layers=52, num_attention_heads=48, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=8192, sliding_window=512,
                      moe_intermediate_size=2560, num_experts_per_tok=8, num_experts=256,
                      norm_topk_prob=True, mlp_layer_types=None, n_group=8, topk_group=4,
                      final_logit_softcapping=30.0)),
    # MiMo-V2-Flash (Xiaomi): 192-wide q and k, 128-wide v; five sliding layers (twice the
    # KV heads, sinks) to one full; the first MLP dense, 256 routed experts after
    "mimo_v2_flash": Family(
        layout=Layout(block="gated_attention_moe", value_head_dim="v_head_dim",
                      router="grouped", router_norm_topk=True, router_buffer=True),
        moe="n_routed_experts",
        layers=_mimo_layers,
        never_null=("sliding_window",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        positive=("v_head_dim", "moe_intermediate_size"),
        prepare=(_mimo_prepare,),
        defaults=dict(_COMMON, vocab_size=152576, hidden_size=4096, intermediate_size=16384,
                      num_hidden_layers=48, num_attention_heads=64, num_key_value_heads=4,
                      head_dim=192, v_head_dim=128, max_position_embeddings=131072,
                      sliding_window=129, moe_intermediate_size=2048, num_experts_per_tok=8,
                      n_routed_experts=256, n_group=1, topk_group=1, norm_topk_prob=True,
                      mlp_layer_types=None)),
    # MiniMax-M3's language model: QK-norm, block-sparse attention (an indexer keeps the
    # best blocks of keys) in some layers, MoE with a fused shared expert
    "minimax_m3_vl_text": Family(
        group="MiniMax",
        layout=Layout(block="gated_attention_moe", qk_norm="shared", norm="rms_one_plus_w",
                      indexer="block_max", router="sigmoid", router_norm_topk=True,
                      router_buffer=True),
        moe="num_local_experts",
        layers=_minimax_m3_layers,
        attention_kinds=("full_attention", "indexed_attention"),
        attribute_map=dict(num_experts="num_local_experts"),
        own_wins=("num_experts",),
        positive=("dense_intermediate_size", "shared_intermediate_size", "index_n_heads",
                  "index_head_dim", "index_block_size", "index_topk_blocks"),
        non_negative=("index_local_blocks",),
        prepare=(_minimax_m3_prepare,),
        defaults=dict(_COMMON, vocab_size=200064, hidden_size=6144, intermediate_size=3072,
                      num_hidden_layers=60, num_attention_heads=64, num_key_value_heads=4,
                      head_dim=128, max_position_embeddings=524288, num_experts_per_tok=4,
                      num_local_experts=128, dense_intermediate_size=12288,
                      shared_intermediate_size=3072, mlp_layer_types=None, index_n_heads=4,
                      index_head_dim=128, index_block_size=128, index_topk_blocks=16,
                      index_local_blocks=1)),
    # A.X-K1 (SK Telecom): DeepSeek-V3 with an RMSNorm on the MoE output
    "axk1": Family(
        layout=Layout(block="latent_attention_moe", attention="mla", router_buffer=True,
                      shared_experts="n_shared", router="grouped", router_norm_topk=True),
        moe="n_routed_experts",
        layers=_axk1_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA + ("q_lora_rank",),
        never_null=("q_lora_rank",),
        defaults=dict(_common("head_dim"), vocab_size=163840, hidden_size=7168,
                      intermediate_size=18432,
                      moe_intermediate_size=2048, num_hidden_layers=61, num_attention_heads=64,
                      num_key_value_heads=64, n_shared_experts=1, n_routed_experts=192,
                      kv_lora_rank=512, q_lora_rank=1536, qk_rope_head_dim=64,
                      v_head_dim=128, qk_nope_head_dim=128, n_group=8, topk_group=4,
                      num_experts_per_tok=8, max_position_embeddings=32768,
                      mlp_layer_types=None)),
    # A.X-K2 (SK Telecom): DeepSeek-V3.2's sparse attention with a gated query, gated norms
    "axk2": Family(
        layout=Layout(block="latent_attention_moe", attention="mla", router_buffer=True,
                      shared_experts="n_shared", router="grouped", router_norm_topk=True),
        moe="n_routed_experts",
        layers=_axk2_layers,
        attention_kinds=("indexed_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA + ("q_lora_rank",) + _INDEXER,
        never_null=("q_lora_rank",),
        positive=("index_topk", "index_head_dim", "index_n_heads", "gated_norm_rank"),
        nullable=(),
        check=(_axk2_check,),
        defaults=dict(_common("head_dim"), vocab_size=163840, hidden_size=2048,
                      intermediate_size=5120,
                      moe_intermediate_size=512, num_hidden_layers=48, num_attention_heads=32,
                      num_key_value_heads=32, n_shared_experts=1, n_routed_experts=128,
                      kv_lora_rank=128, q_lora_rank=384, qk_rope_head_dim=32, v_head_dim=64,
                      qk_nope_head_dim=64, n_group=None, topk_group=None, num_experts_per_tok=8,
                      max_position_embeddings=131072, mlp_layer_types=None, index_topk=2048,
                      index_head_dim=128, index_n_heads=16, gated_norm_rank=16)),
    # Hy4 (Tencent): GLM-5's sparse MLA with a gate and sinks, hyper-connected streams
    "hy_v4": Family(
        layout=Layout(block="latent_attention_moe", attention="mla", router_buffer=True,
                      shared_experts="n_shared", extra_globals="hc_head",
                      layer_input_streams="hc_mult", hyper_connection="pre_post",
                      router="grouped", router_norm_topk=True, sinks=True),
        moe="n_routed_experts",
        layers=_hy_v4_layers,
        attention_kinds=("indexed_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA + ("q_lora_rank",) + _INDEXER,
        never_null=("q_lora_rank",),
        positive=("index_topk", "index_head_dim", "index_n_heads", "hc_mult"),
        derive=(_hy_v4_derive,),
        defaults=dict(_common("head_dim"), vocab_size=120832, hidden_size=2816,
                      intermediate_size=6912,
                      moe_intermediate_size=768, num_hidden_layers=34, num_attention_heads=32,
                      num_key_value_heads=32, pad_token_id=120002, n_routed_experts=256,
                      n_shared_experts=1, num_experts_per_tok=8, n_group=1, topk_group=1,
                      q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=192,
                      qk_rope_head_dim=64, v_head_dim=256, mlp_layer_types=None,
                      index_topk=2048, index_head_dim=128, index_n_heads=16, indexer_types=None,
                      max_position_embeddings=262144, hc_mult=4)),
}

_DOTS3_DEFAULTS = dict(
    _common("head_dim"), vocab_size=152064, hidden_size=5120, intermediate_size=13824,
    moe_intermediate_size=1536, num_hidden_layers=46, num_attention_heads=128,
    num_key_value_heads=128, n_shared_experts=1, n_routed_experts=256, kv_lora_rank=512,
    q_lora_rank=1024, qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128, n_group=1,
    topk_group=1, num_experts_per_tok=8, max_position_embeddings=524288, pad_token_id=151659,
    mlp_layer_types=None, index_topk=2048, index_head_dim=128, index_n_heads=64,
    shared_experts_intermediate_size=1536)
_DOTS3 = dict(
    layout=Layout(block="latent_attention_moe", attention="mla", router_buffer=True,
                  router="grouped", router_norm_topk=True),
    moe="n_routed_experts",
    layers=_dots3_layers,
    attention_kinds=("full_attention", "indexed_attention", "sliding_attention"),
    attribute_map=dict(num_local_experts="n_routed_experts"),
    required=_MLA + ("q_lora_rank",) + _INDEXER,
    never_null=("q_lora_rank",),
    positive=("index_topk", "index_head_dim", "index_n_heads",
              "shared_experts_intermediate_size", "n_group", "topk_group"),
    prepare=(_dots3_prepare,),
    check=(_dots3_check,))
# dots3-note (rednote): sparse MLA with a gate per head, sliding MLA layers of their own
# shape, DeepSeek-V3's MoE. Its causal LM: dots3_note holds the text model at the top
# level (a saved one in text_config), dots3_note_text is it alone
ENTRIES["dots3_note_text"] = Family(defaults=_DOTS3_DEFAULTS, **_DOTS3)
ENTRIES["dots3_note"] = Family(defaults=dict(_DOTS3_DEFAULTS, text_config=None), **_DOTS3)

# ZAYA1 (Zyphra): compressed convolutional attention, top-1 routing with a "skip" choice
ENTRIES["zaya"] = Family(
    layout=Layout(block="compressed_convolutional_attention", layer_state="compressed_convolution",
                  extra_globals="input_scale_bias", lm_head_bias="lm_head_bias"),
    moe="num_experts",
    zero_experts="skip_experts",
    layers=_zaya_layers,
    attention_kinds=("hybrid", "hybrid_sliding"),
    positive=("router_hidden_size", "cca_time0", "cca_time1", "moe_intermediate_size"),
    derive=(rules.experts_only_derive, _zaya_derive),
    defaults=dict(_COMMON, vocab_size=262272, hidden_size=2048, num_hidden_layers=40,
                  num_attention_heads=8, num_key_value_heads=2, head_dim=128,
                  max_position_embeddings=131072, tie_word_embeddings=True,
                  moe_intermediate_size=2048, num_experts_per_tok=1, num_experts=16,
                  pad_token_id=0, lm_head_bias=False, router_hidden_size=256, cca_time0=2,
                  cca_time1=2))
_INKLING_MAP = dict(sliding_window="sliding_window_size", num_local_experts="n_routed_experts",
                    sconv_kernel_size="conv_kernel_size",
                    model_max_length="max_position_embeddings")
# Inkling (Thinking Machines): GQA with short convolutions and a per-token relative bias,
# sliding layers of their own shape, experts with shared experts the router also scores
ENTRIES["inkling_text"] = Family(
    layout=Layout(block="short_convolution_attention", layer_state="short_convolutions",
                  extra_flops="relative_position_logits", extra_globals="embedding_norm",
                  qk_norm="shared", never_tied=True, router="sigmoid", router_buffer=True),
    moe="n_routed_experts",
    layers=_inkling_layers,
    attention_kinds=("hybrid", "hybrid_sliding"),
    attribute_map=_INKLING_MAP,
    positive=("swa_num_attention_heads", "swa_num_key_value_heads", "swa_head_dim",
              "sliding_window_size", "d_rel", "rel_extent", "conv_kernel_size",
              "moe_intermediate_size"),
    non_negative=("n_shared_experts",),
    prepare=(_inkling_prepare,),
    defaults=dict(_common("attention_bias", "sliding_window"), vocab_size=201024,
                  hidden_size=6144, num_hidden_layers=66, num_attention_heads=64,
                  num_key_value_heads=8, head_dim=128, swa_num_attention_heads=64,
                  swa_num_key_value_heads=16, swa_head_dim=128, sliding_window_size=512,
                  d_rel=16, rel_extent=1024, local_layer_ids=None,
                  max_position_embeddings=131072, conv_kernel_size=4, mlp_layer_types=None,
                  intermediate_size=24576, moe_intermediate_size=3072, n_routed_experts=256,
                  num_experts_per_tok=6, n_shared_experts=2))
# Inkling 2: Inkling's layers with gated attention, sinks made per token, dynamic
# convolutions in the full layers and attention residuals over the earlier blocks
ENTRIES["inkling2_text"] = Family(
    layout=Layout(block="short_convolution_attention_residuals",
                  layer_state="short_convolutions", extra_globals="embedding_norm",
                  extra_flops="relative_logits_block_residuals", never_tied=True,
                  router="sigmoid", router_buffer=True, final_softcap=True),
    moe="n_routed_experts",
    layers=_inkling2_layers,
    attention_kinds=("hybrid", "hybrid_sliding"),
    attribute_map=dict(_INKLING_MAP, intermediate_size="moe_intermediate_size",
                       routed_scaling_factor="route_scale"),
    positive=("swa_num_attention_heads", "swa_num_key_value_heads", "swa_head_dim",
              "sliding_window_size", "d_rel", "rel_extent", "conv_kernel_size",
              "n_layers_per_attn_res_block"),
    defaults=dict(_common("attention_bias", "sliding_window"), vocab_size=201024,
                  hidden_size=4608, num_hidden_layers=48, num_attention_heads=48,
                  num_key_value_heads=8, head_dim=128, swa_num_attention_heads=48,
                  swa_num_key_value_heads=8, swa_head_dim=128, sliding_window_size=1024,
                  d_rel=16, rel_extent=1024, max_position_embeddings=1048576,
                  conv_kernel_size=4, moe_intermediate_size=2304, n_routed_experts=384,
                  num_experts_per_tok=8, n_layers_per_attn_res_block=6,
                  final_logit_softcapping=30.0))
# Cohere Compass's language model: Cohere 2's parallel block (attention and MLP side by
# side after one LayerNorm without a bias), rotary tables per layer type
ENTRIES["cohere_compass_text"] = Family(
    layout=Layout(parallel=True, layer_norms=("input_layernorm",), norm="layer_no_bias"),
    layers=_cohere_compass_layers,
    derive=(_cohere_compass_derive,),
    defaults=dict(_COMMON, vocab_size=256000, hidden_size=8192, intermediate_size=22528,
                  num_hidden_layers=40, num_attention_heads=64, max_position_embeddings=8192,
                  pad_token_id=0, tie_word_embeddings=True, sliding_window=4096))
