"""Tensor layouts: which weights a model has, with their checkpoint names and shapes.

This module is the single source of truth for architecture facts. Everything
that counts (parameters, bytes, FLOPs) reads the :class:`Tensor` lists built
here. Shapes are as stored: a ``Linear`` weight is ``(out_features, in_features)``.

A family says how its layers are built in one :class:`Layout` (its entry in
:mod:`llmcourse.families`): which attention, MLP and norms, their checkpoint names, which
biases. Most families are the standard decoder layer with a few choices changed; a family
whose layers are not attention-plus-MLP names its own layer builder (``Layout.block``).

Layers with the same tensors are grouped, so counting a 61-layer model touches
two groups, not 45,000 tensors; :func:`llmcourse.weight_shapes` expands them.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod
from typing import NamedTuple

from .layers import LayerKind

from .limits import ConfigError

__all__ = ["Tensor", "Layout", "LayerGroup", "layer_groups", "kind_tensors", "global_tensors",
           "layer_prefix", "mtp_tensors", "mamba_dims", "COMPONENTS", "BLOCKS", "EXPERTS",
           "register_block", "register_global_extras", "NO_WEIGHT_NORMS", "layer_config",
           "LAYER_STATES", "EXTRA_FLOPS", "register_layer_state", "register_extra_flops",
           "register_experts", "OUTSIDE", "register_outside", "MATMUL_EXTRAS",
           "register_matmul_extra"]

# the order a breakdown is shown in
COMPONENTS = ("embedding", "attention", "mlp", "shared_experts", "experts", "router",
              "norms", "lm_head", "vision", "audio")


class Layout(NamedTuple):
    """How a family's layers are built: its choices, with Llama's as the defaults.

    A bias or switch is ``True``/``False``, the name of the config field that says (absent
    or null: off), or ``(field, value when absent or null)``. Names are the checkpoint's,
    relative to the layer prefix; weights are stored ``(out, in)`` unless
    ``stored_in_out`` (GPT-2's ``Conv1D``)."""
    # --- the layer's shape: "decoder" (attention, then an MLP or routed experts, each after a
    # norm), or another shape's own builder (BLOCKS, named by what the layer is)
    block: str = "decoder"
    # --- attention: "qkvo" (q, k, v and o projections), "fused_qkv" (one tensor for q, k
    # and v, then o) or "mla" (DeepSeek's multi-head latent attention, its own names)
    attention: str = "qkvo"
    attention_prefix: str = "self_attn."
    attention_names: tuple = ("q_proj", "k_proj", "v_proj", "o_proj")  # fused_qkv: (qkv, o)
    qkv_bias: object = "attention_bias"
    o_bias: object = "attention_bias"
    o_first: bool = False             # fused_qkv: o is defined (and listed) first (Phi-3)
    output_gate: object = False       # q_proj also gives an output gate: twice as wide
    qk_norm: str | None = None        # "shared": one head_dim-wide norm applied to each head's
                                      # q and k; "per_head": each head its own weights, stored
                                      # (heads, head_dim); "all": one over all of q, one over k
    qk_norm_if: object = True
    qk_norm_names: tuple = ("q_norm", "k_norm")
    # the q/k norm's width where it is not head_dim: "hidden_over_heads" (Phi's LayerNorms,
    # hidden / heads wide whatever head_dim says)
    qk_norm_width: str | None = None
    # how many of each head's dimensions RoPE rotates: (field, fraction when absent), None: all
    partial_rotary: tuple | None = None
    rope_if: tuple | None = None      # (field, value): RoPE only when the field has the value
    rope_per_attention_kind: bool = False  # one rotary table per attention kind (Gemma 3)
    # the cache: "kv" (K and V per KV head) or "k_eq_v" (one K = V head, stored once)
    kv_store: str = "kv"
    # sparse attention's indexer: "lightning" (DeepSeek Sparse Attention: one key of
    # index_head_dim per token) or "block_select" (scores blocks of keys: indexer_kv_heads
    # keys of indexer_head_dim per token, blocks of indexer_compress_ratio)
    indexer: str = "lightning"
    # logit softcapping as transformers runs it: the final logits (final_logit_softcapping),
    # and the attention scores in eager attention (attn_logit_softcapping)
    final_softcap: bool = False
    attention_softcap_eager: bool = False
    # transformers' SDPA path is given an explicit sliding-window mask (once the sequence
    # reaches the window)
    sdpa_sliding_mask: bool = False
    sinks: bool = False               # one learned "attention sink" logit per head
    # how many head_dim-wide value vectors each query head's weighted sum runs over, under
    # one set of scores (DiffLlama's differential attention: 2, both halves of V)
    value_width: int = 1
    stored_in_out: bool = False       # weights stored (in, out): GPT-2's Conv1D
    # --- linear-attention layers: "deltanet" (Qwen3.5: q, k, v, z, b, a unfused),
    # "deltanet_fused" (Qwen3-Next: qkvz and ba fused), "kda" (Kimi Delta Attention)
    linear_attention: str = "deltanet"
    # --- the dense MLP: "gated" (gate, up, down: SwiGLU, GeGLU), "plain" (up, down) or
    # "fused_gated" (gate and up in one tensor, down)
    mlp: str = "gated"
    mlp_prefix: str = "mlp"
    mlp_names: tuple = ("gate_proj", "up_proj", "down_proj")  # plain, fused_gated: (in, out)
    mlp_bias: object = "mlp_bias"
    mlp_width: str = "intermediate_size"
    # --- routed experts: how they are stored (EXPERTS), whether the router's
    # load-balancing bias (e_score_correction_bias, a buffer) is there, and the shared
    # experts beside them: "n_shared" (DeepSeek's: n_shared_experts x the expert width; built
    # even when n_shared_experts is 0, as transformers builds it: then it holds nothing) or
    # "one_gated" (Qwen's: one sigmoid-gated shared expert of shared_expert_intermediate_size)
    experts: str = "separate"
    router_buffer: bool = False
    shared_experts: str | None = None
    # how the router scores and weights as transformers runs it: "softmax" (over all
    # experts, then top-k), "grouped" (DeepSeek-V3-style group-limited sigmoid scores, as
    # DeepSeek-V3.2, GLM-5 and Kimi-Linear implement it), "topk_softmax" (top-k of the
    # logits, then a softmax over those k) or "sigmoid" (sigmoid scores in the activations'
    # dtype); whether the top-k weights are renormalized when the config does not say
    # (norm_topk_prob), and whether the routing weight is kept in fp32
    router: str = "softmax"
    router_norm_topk: bool = False
    router_weight_fp32: bool = False
    # --- Mamba-2 mixers: the config fields for (heads, head_dim, groups, state, kernel,
    # conv bias, projection biases)
    mamba_fields: tuple = ("mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size",
                           "conv_kernel", "use_conv_bias", "use_bias", "chunk_size")
    # --- norms: "rms" (RMSNorm), "rms_one_plus_w" (RMSNorm scaling by 1 + w, in fp32:
    # Gemma 1-3, Qwen3.5), "rms_fp32_weight" (RMSNorm whose fp32 w scales the fp32 normalized
    # value: Nemotron-H), "layer" (LayerNorm with a bias), "layer_no_bias" (LayerNorm, a weight
    # only), "rms_no_weight" / "layer_no_weight" (no learned parameters: nanochat, OLMo-1);
    # the norms of each layer, in order
    norm: str = "rms"
    layer_norms: tuple = ("input_layernorm", "post_attention_layernorm")
    parallel: bool = False            # attention and MLP side by side after one norm (Phi)
    # --- outside the layers
    layer_prefix: str = "model.layers.{i}."   # ({b}: the index halved, LongCat-Flash)
    embedding: str = "model.embed_tokens"
    position_embedding: str | None = None     # learned positions, a weight (GPT-2's wpe)
    final_norm: str | None = "model.norm"
    extra_globals: str | None = None          # GLOBAL_EXTRAS: tensors beside the head
    # OUTSIDE: a builder of every tensor outside the layers, in place of the standard ones
    # above (OPT's narrower embedding and its projections, BLOOM's embedding LayerNorm)
    outside: str | None = None
    # MATMUL_EXTRAS: matmul FLOPs per token beyond 2 x each matmul weight once (a weight used
    # twice, products of activations with activations: Gemma 3n's AltUp stream mixing)
    matmul_extra: str | None = None
    lm_head: str = "lm_head"
    lm_head_bias: object = False      # a switch (a bool, or the field that says)
    never_tied: bool = False          # transformers never ties this head, whatever the config
    mtp: str | None = None            # a multi-token-prediction module the checkpoint ships
    # the field counting the residual streams a layer's input holds (DeepSeek-V4's
    # hyper-connections: hc_mult streams of hidden_size), None: one
    layer_input_streams: str | None = None
    # the config fields naming the MLP's activation function, the first one set wins
    activation_field: tuple = ("hidden_activation", "hidden_act")
    # the config field giving V's head width where it differs from q and k's head_dim
    # (MiMo-V2-Flash's v_head_dim: 192-wide q and k, 128-wide v), None: head_dim
    value_head_dim: str | None = None
    # how the hyper-connections around each block mix the streams: "mixed" (DeepSeek-V4:
    # pre, post and an m x m residual mix) or "pre_post" (HY-V4's: pre and post only)
    hyper_connection: str = "mixed"
    # a name in LAYER_STATES: a fixed state per sequence a layer keeps beside its K and V
    # (Inkling's short-convolution windows, ZAYA's convolution window and delayed value)
    layer_state: str | None = None
    # a name in EXTRA_FLOPS: work per token beyond the weights and the attention over the
    # keys, the same at any context (Inkling's relative-position logits, Inkling 2's
    # attention over the earlier blocks' outputs)
    extra_flops: str | None = None


def _flag(c, spec):
    """A layout switch: a bool, a config field (absent or null: off), or (field, value
    when absent or null)."""
    if isinstance(spec, bool):
        return spec
    if isinstance(spec, tuple):
        return c.get(spec[0], spec[1])
    return c.get(spec, False)


class Tensor(NamedTuple):
    """One stored tensor (or, with ``{e}`` in its name, one per routed expert)."""
    name: str            # relative to the layer prefix for layer tensors; ``{e}`` = expert index
    shape: tuple         # one expert's shape when ``per_expert`` > 1
    component: str       # one of COMPONENTS
    matmul: bool = False  # a weight multiplied with activations (counts for FLOPs)
    routed: bool = False  # belongs to routed experts (a token uses top-k of them)
    per_expert: int = 1   # how many copies (named {e}=0..n-1) are stored
    fused: int = 1        # for a tensor holding all experts at once (gpt-oss): the expert count
    tied: bool = False    # shares storage with another tensor (a tied lm_head); in a layer,
                          # the full name of the tensor it is (Zamba's shared blocks)
    buffer: bool = False  # stored in the checkpoint but not a trainable parameter
    out_in: bool = False  # a fused expert tensor stored (experts, out, in) (Gemma 4), not
                          # (experts, in, out) (gpt-oss, Llama-4)

    @property
    def numel(self):
        return prod(self.shape)


def _linear(name, out_f, in_f, component, bias=False, in_out=False, **kw):
    t = [Tensor(f"{name}.weight", (in_f, out_f) if in_out else (out_f, in_f), component,
                matmul=True, **kw)]
    if bias:
        t.append(Tensor(f"{name}.bias", (out_f,), component, **kw))
    return t


def _norm(name, dim, kind="rms"):
    """A norm's tensors: a weight of ``dim`` (an int, or a shape), and a bias for a
    LayerNorm with one (``kind`` "layer"); none for a norm without learned parameters
    (``kind`` in NO_WEIGHT_NORMS: OLMo-1's LayerNorm, nanochat's RMSNorm)."""
    if kind in NO_WEIGHT_NORMS:
        return []
    shape = dim if isinstance(dim, tuple) else (dim,)
    t = [Tensor(f"{name}.weight", shape, "norms")]
    if kind == "layer":
        t.append(Tensor(f"{name}.bias", shape, "norms"))
    return t


#: norm kinds that normalise without a learned weight or bias: no tensors at all
NO_WEIGHT_NORMS = ("rms_no_weight", "layer_no_weight")


# --- attention ---------------------------------------------------------------------

def _attention(c):
    """The attention tensors of a layer, as its family's layout says."""
    L = c.layout
    if L.attention == "mla":
        return _mla(c)
    H, nh, kv, hd = c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim
    a, io = L.attention_prefix, L.stored_in_out
    qkv_bias, o_bias = _flag(c, L.qkv_bias), _flag(c, L.o_bias)
    if L.attention == "fused_qkv":  # 3 x hidden for GPT-2 and GPT-NeoX as shipped (MHA)
        qkv, o = L.attention_names
        qkv = _linear(a + qkv, (nh + 2 * kv) * hd, H, "attention", qkv_bias, io)
        o = _linear(a + o, H, nh * hd, "attention", o_bias, io)
        t = o + qkv if L.o_first else qkv + o
    else:
        q, k, v, o = L.attention_names
        q_out = 2 * nh * hd if _flag(c, L.output_gate) else nh * hd  # q and an output gate
        t = (_linear(a + q, q_out, H, "attention", qkv_bias, io)
             + _linear(a + k, kv * hd, H, "attention", qkv_bias, io)
             + _linear(a + v, kv * hd, H, "attention", qkv_bias, io)
             + _linear(a + o, H, nh * hd, "attention", o_bias, io))
    if L.qk_norm and _flag(c, L.qk_norm_if):
        qn, kn = L.qk_norm_names
        if L.qk_norm == "shared":  # one head_dim-wide weight, applied to every head
            w = H // nh if L.qk_norm_width == "hidden_over_heads" else hd
            t += _norm(a + qn, w, L.norm) + _norm(a + kn, w, L.norm)
        elif L.qk_norm == "per_head":  # each head its own weights (Cohere's use_qk_norm)
            t += _norm(a + qn, (nh, hd), L.norm) + _norm(a + kn, (kv, hd), L.norm)
        else:  # one norm over the whole q and k projections (OLMo-2, MiniMax-M2)
            t += _norm(a + qn, nh * hd) + _norm(a + kn, kv * hd)
    if L.sinks:
        t.append(Tensor(a + "sinks", (nh,), "attention"))
    return t


def _indexer(c):
    """DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, GLM-5): a few small
    heads score every earlier token, and the layer's MLA attends to the index_topk best.
    It reads the query latent (q_lora_rank) and caches one key of index_head_dim per token."""
    H, n, d = c.hidden_size, c.index_n_heads, c.index_head_dim
    return (_linear("self_attn.indexer.wq_b", n * d, c.q_lora_rank, "attention")
            + _linear("self_attn.indexer.wk", d, H, "attention")
            + [Tensor("self_attn.indexer.k_norm.weight", (d,), "norms"),
               Tensor("self_attn.indexer.k_norm.bias", (d,), "norms")]
            + _linear("self_attn.indexer.weights_proj", n, H, "attention"))


def _kimi_delta_attention(c):
    """Kimi-Linear's Kimi Delta Attention: a gated delta rule like Qwen3-Next's, with a decay
    per channel from a low-rank forget gate (f_a, f_b) and a low-rank output gate (g_a, g_b);
    q, k and v each through their own short convolution. Checkpoint names (transformers
    stacks the three convolutions and moves the forget gate into a submodule on load)."""
    H, h, d = c.hidden_size, c.linear_num_heads, c.linear_head_dim
    qkv, k = h * d, c.linear_conv_kernel_dim
    t = []
    for x in "qkv":
        t += _linear(f"self_attn.{x}_proj", qkv, H, "attention")
    for x in "qkv":
        t.append(Tensor(f"self_attn.{x}_conv1d.weight", (qkv, 1, k), "attention", matmul=True))
    return (t + _linear("self_attn.f_a_proj", d, H, "attention")
            + _linear("self_attn.f_b_proj", qkv, d, "attention")
            + [Tensor("self_attn.dt_bias", (qkv,), "attention"),
               Tensor("self_attn.A_log", (1, 1, h, 1), "attention")]
            + _linear("self_attn.b_proj", h, H, "attention")
            + _linear("self_attn.g_a_proj", d, H, "attention")
            + _linear("self_attn.g_b_proj", qkv, d, "attention")
            + _norm("self_attn.o_norm", d)
            + _linear("self_attn.o_proj", H, qkv, "attention"))


def _linear_attention(c):
    """A linear-attention layer: Qwen3-Next's gated DeltaNet (a fixed-size recurrent state
    instead of a KV cache; Qwen3.5 stores its projections unfused) or Kimi Delta Attention."""
    kind = c.layout.linear_attention
    if kind == "kda":
        return _kimi_delta_attention(c)
    H = c.hidden_size
    kh, vh = c.linear_num_key_heads, c.linear_num_value_heads
    kd, vd = c.linear_key_head_dim, c.linear_value_head_dim
    key_dim, value_dim = kh * kd, vh * vd
    conv_dim, kernel = 2 * key_dim + value_dim, c.linear_conv_kernel_dim
    return [Tensor("linear_attn.dt_bias", (vh,), "attention"),
            Tensor("linear_attn.A_log", (vh,), "attention"),
            # a depthwise causal convolution over q, k and v: kernel weights per channel
            Tensor("linear_attn.conv1d.weight", (conv_dim, 1, kernel), "attention", matmul=True),
            *(_linear("linear_attn.in_proj_qkvz", 2 * key_dim + 2 * value_dim, H, "attention")
              + _linear("linear_attn.in_proj_ba", 2 * vh, H, "attention")
              if kind == "deltanet_fused" else
              _linear("linear_attn.in_proj_qkv", 2 * key_dim + value_dim, H, "attention")
              + _linear("linear_attn.in_proj_z", value_dim, H, "attention")
              + _linear("linear_attn.in_proj_b", vh, H, "attention")
              + _linear("linear_attn.in_proj_a", vh, H, "attention")),
            *_norm("linear_attn.norm", vd),
            *_linear("linear_attn.out_proj", H, value_dim, "attention")]


def _mla(c):
    """DeepSeek multi-head latent attention: low-rank q and a compressed, cached kv latent."""
    H, nh = c.hidden_size, c.num_attention_heads
    nope, rope, vd = c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim
    qr, kvr, bias = c.get("q_lora_rank"), c.kv_lora_rank, c.get("attention_bias", False)
    if qr:
        t = (_linear("self_attn.q_a_proj", qr, H, "attention", bias)
             + _norm("self_attn.q_a_layernorm", qr)
             + _linear("self_attn.q_b_proj", nh * (nope + rope), qr, "attention"))
    else:
        t = _linear("self_attn.q_proj", nh * (nope + rope), H, "attention")
    return (t + _linear("self_attn.kv_a_proj_with_mqa", kvr + rope, H, "attention", bias)
            + _norm("self_attn.kv_a_layernorm", kvr)
            + _linear("self_attn.kv_b_proj", nh * (nope + vd), kvr, "attention")
            + _linear("self_attn.o_proj", H, nh * vd, "attention", bias))


# --- feed-forward --------------------------------------------------------------------

def _swiglu(prefix, H, inter, component, bias=False, names=("gate_proj", "up_proj", "down_proj"),
            **kw):
    gate, up, down = names
    return (_linear(f"{prefix}.{gate}", inter, H, component, bias, **kw)
            + _linear(f"{prefix}.{up}", inter, H, component, bias, **kw)
            + _linear(f"{prefix}.{down}", H, inter, component, bias, **kw))


def _dense_mlp(c):
    """The dense MLP, as the family's layout says: gated (SwiGLU, GeGLU: gate, up, down),
    plain (up, down: GPT-2, Phi, StarCoder2) or with gate and up fused (Phi-3)."""
    L = c.layout
    H, inter = c.hidden_size, getattr(c, L.mlp_width)
    bias, io = _flag(c, L.mlp_bias), L.stored_in_out
    p = L.mlp_prefix + "." if L.mlp_prefix else ""   # "": fc1, fc2 in the layer itself (OPT)
    if L.mlp == "plain":
        up, down = L.mlp_names
        return (_linear(f"{p}{up}", inter, H, "mlp", bias, io)
                + _linear(f"{p}{down}", H, inter, "mlp", bias, io))
    if L.mlp == "fused_gated":
        gate_up, down = L.mlp_names
        return (_linear(f"{p}{gate_up}", 2 * inter, H, "mlp", bias)
                + _linear(f"{p}{down}", H, inter, "mlp", bias))
    return _swiglu(p[:-1], H, inter, "mlp", bias, L.mlp_names)


def _experts_separate(c, fused=False):
    """A router (mlp.gate) and each expert's own gate, up and down projections (DeepSeek,
    Qwen-MoE, GLM), or (``fused``) all experts' in two tensors, gate and up together,
    stored (experts, out, in) as transformers 5 holds them (Mistral 4); the load-balancing
    bias and the shared experts as the layout says."""
    L, H, E = c.layout, c.hidden_size, c.num_experts
    inter = c.moe_intermediate_size
    t = _linear("mlp.gate", E, H, "router")
    if L.router_buffer:  # the load-balancing bias: stored, not trained by SGD
        t.append(Tensor("mlp.gate.e_score_correction_bias", (E,), "router", buffer=True))
    if fused:
        fz = dict(routed=True, fused=E, out_in=True)
        t += [Tensor("mlp.experts.gate_up_proj", (E, 2 * inter, H), "experts", True, **fz),
              Tensor("mlp.experts.down_proj", (E, H, inter), "experts", True, **fz)]
    else:
        t += _swiglu("mlp.experts.{e}", H, inter, "experts", routed=True, per_expert=E)
    shared = c.get("n_shared_experts", 0)
    if L.shared_experts == "n_shared":
        # (built even when n_shared_experts is 0 where transformers does: it holds nothing)
        t += _swiglu("mlp.shared_experts", H, inter * shared, "shared_experts")
    elif L.shared_experts == "one_gated":  # one shared expert, sigmoid-gated
        t += (_swiglu("mlp.shared_expert", H, c.shared_expert_intermediate_size,
                      "shared_experts")
              + _linear("mlp.shared_expert_gate", 1, H, "shared_experts"))
    return t


def _experts_block_sparse(c):
    """Mixtral's checkpoint names: block_sparse_moe.gate and experts.{e}.w1 (gate), w2
    (down), w3 (up), each intermediate_size wide; MiniMax's load-balancing bias beside."""
    p, H, E, inter = "block_sparse_moe", c.hidden_size, c.num_experts, c.intermediate_size
    ex = dict(routed=True, per_expert=E)
    bias = ([Tensor(f"{p}.e_score_correction_bias", (E,), "router", buffer=True)]
            if c.layout.router_buffer else [])  # MiniMax's load-balancing bias: not trained
    return (_linear(f"{p}.gate", E, H, "router") + bias
            + _linear(f"{p}.experts.{{e}}.w1", inter, H, "experts", **ex)
            + _linear(f"{p}.experts.{{e}}.w2", H, inter, "experts", **ex)
            + _linear(f"{p}.experts.{{e}}.w3", inter, H, "experts", **ex))


def _experts_block_sparse_shared(c):
    """Kimi-Linear's checkpoint names: block_sparse_moe.gate (its load-balancing bias under
    it), experts.{e}.w1 (gate), w2 (down), w3 (up) of moe_intermediate_size, and DeepSeek's
    shared experts under block_sparse_moe.shared_experts (transformers renames
    block_sparse_moe to mlp on load and fuses the experts)."""
    p, H, E, inter = "block_sparse_moe", c.hidden_size, c.num_experts, c.moe_intermediate_size
    ex = dict(routed=True, per_expert=E)
    t = _linear(f"{p}.gate", E, H, "router")
    if c.layout.router_buffer:   # the load-balancing bias: stored, not trained by SGD
        t.append(Tensor(f"{p}.gate.e_score_correction_bias", (E,), "router", buffer=True))
    t += (_linear(f"{p}.experts.{{e}}.w1", inter, H, "experts", **ex)
          + _linear(f"{p}.experts.{{e}}.w2", H, inter, "experts", **ex)
          + _linear(f"{p}.experts.{{e}}.w3", inter, H, "experts", **ex))
    return t + _swiglu(f"{p}.shared_experts", H, inter * c.get("n_shared_experts", 0),
                       "shared_experts")


def _experts_fused_biased(c):
    """gpt-oss: all experts in one tensor each, with biases, stored (experts, in, out)."""
    H, E, inter = c.hidden_size, c.num_experts, c.intermediate_size
    fz = dict(routed=True, fused=E)
    return (_linear("mlp.router", E, H, "router", True)
            + [Tensor("mlp.experts.gate_up_proj", (E, H, 2 * inter), "experts", True, **fz),
               Tensor("mlp.experts.gate_up_proj_bias", (E, 2 * inter), "experts", **fz),
               Tensor("mlp.experts.down_proj", (E, inter, H), "experts", True, **fz),
               Tensor("mlp.experts.down_proj_bias", (E, H), "experts", **fz)])


def _experts_fused_shared(c):
    """Llama-4: experts fused, stored (experts, in, out); a shared expert in every MoE layer."""
    H, E, inter = c.hidden_size, c.num_experts, c.intermediate_size
    fz = dict(routed=True, fused=E)
    return (_linear("feed_forward.router", E, H, "router")
            + [Tensor("feed_forward.experts.gate_up_proj", (E, H, 2 * inter), "experts",
                      True, **fz),
               Tensor("feed_forward.experts.down_proj", (E, inter, H), "experts", True, **fz)]
            + _swiglu("feed_forward.shared_expert", H, inter, "shared_experts"))


#: how a family's routed experts are stored (``Layout.experts``)
EXPERTS = {"separate": _experts_separate,
           "fused": lambda c: _experts_separate(c, fused=True),
           "block_sparse": _experts_block_sparse,
           "block_sparse_shared": _experts_block_sparse_shared,
           "fused_biased": _experts_fused_biased, "fused_shared": _experts_fused_shared}


def register_experts(name):
    """Register a routed-experts builder ``f(cfg) -> [Tensor, ...]`` (router, experts, the
    shared experts beside them) under ``name`` (how the experts are stored), for a family's
    ``Layout(experts=name)``."""
    def add(f):
        if name in EXPERTS:
            raise ValueError(f"an experts builder named {name!r} exists already")
        EXPERTS[name] = f
        return f
    return add


def _moe(c):
    return EXPERTS[c.layout.experts](c)


def _layer_norms(c):
    """The norms of a decoder layer, in order: before attention and before the MLP (OLMo-2
    and -3: after each; Gemma-2 and -3: both; Phi: one, the sublayers side by side)."""
    L, H = c.layout, c.hidden_size
    return [t for name in L.layer_norms for t in _norm(name, H, L.norm)]


# --- Nemotron-H and Granite 4.0: Mamba-2 ----------------------------------------------

class MambaDims(NamedTuple):
    """A Mamba-2 mixer's sizes, whatever a model type calls them."""
    heads: int
    head_dim: int
    groups: int      # B and C are shared by the heads of a group
    state: int       # ssm_state_size: the state per head is head_dim x state
    kernel: int      # the causal convolution's width
    conv_bias: bool
    proj_bias: bool  # in_proj and out_proj
    chunk: int       # the chunked scan's chunk length (a training-time detail)


def mamba_dims(c):
    """:class:`MambaDims` of a model with Mamba-2 layers, read from the fields its layout
    names (Nemotron-H: mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size,
    conv_kernel; Granite 4.0: mamba_n_heads, mamba_d_head, mamba_n_groups, mamba_d_state,
    mamba_d_conv): the same module, the same tensors."""
    heads, head_dim, groups, state, kernel, conv_bias, proj_bias, chunk = c.layout.mamba_fields
    return MambaDims(getattr(c, heads), getattr(c, head_dim), getattr(c, groups),
                     getattr(c, state), getattr(c, kernel), bool(c.get(conv_bias, True)),
                     bool(c.get(proj_bias)), c.get(chunk))


def _mamba2(c, prefix="mixer."):
    """A Mamba-2 mixer: one in_proj gives the gate z, the convolved x, B and C, and one
    step size per head; its state per sequence is a head_dim x ssm_state_size matrix
    per head (plus the convolution's last conv_kernel inputs), whatever the context."""
    m, H = mamba_dims(c), c.hidden_size
    nh, inner = m.heads, m.heads * m.head_dim
    conv_dim = inner + 2 * m.groups * m.state
    t = _linear(prefix + "in_proj", inner + conv_dim + nh, H, "attention", m.proj_bias)
    t.append(Tensor(prefix + "conv1d.weight", (conv_dim, 1, m.kernel), "attention",
                    matmul=True))
    if m.conv_bias:
        t.append(Tensor(prefix + "conv1d.bias", (conv_dim,), "attention"))
    t += [Tensor(prefix + "dt_bias", (nh,), "attention"), Tensor(prefix + "A_log", (nh,), "attention"),
          Tensor(prefix + "D", (nh,), "attention"), *_norm(prefix + "norm", inner)]
    return t + _linear(prefix + "out_proj", H, inner, "attention", m.proj_bias)


def _granite_hybrid_layer(c, kind):
    """A Granite 4.0 layer: a norm, a Mamba-2 mixer (Nemotron-H's, under ``mamba.``) or
    attention (q, k, v, o, biases by attention_bias), a norm, then routed SwiGLU experts
    (the checkpoint's fused block_sparse_moe.input_linear: gate and up of every expert,
    (experts, 2 x intermediate_size, hidden); output_linear (experts, hidden,
    intermediate_size)) beside a shared MLP (shared_mlp: gate and up fused, down), or the
    shared MLP alone in a model without experts (then the layer's only MLP)."""
    H = c.hidden_size
    t = _norm("input_layernorm", H) + _norm("post_attention_layernorm", H)
    if kind.attention == "mamba":
        t += _mamba2(c, "mamba.")
    else:
        nh, kv, hd, bias = (c.num_attention_heads, c.num_key_value_heads, c.head_dim,
                            c.get("attention_bias", False))
        t += (_linear("self_attn.q_proj", nh * hd, H, "attention", bias)
              + _linear("self_attn.k_proj", kv * hd, H, "attention", bias)
              + _linear("self_attn.v_proj", kv * hd, H, "attention", bias)
              + _linear("self_attn.o_proj", H, nh * hd, "attention", bias))
    S = c.shared_intermediate_size
    if kind.mlp == "moe":
        E, inter = c.num_experts, c.intermediate_size
        fz = dict(routed=True, fused=E, out_in=True)
        t += (_linear("block_sparse_moe.router.layer", E, H, "router")
              + [Tensor("block_sparse_moe.input_linear.weight", (E, 2 * inter, H), "experts",
                        True, **fz),
                 Tensor("block_sparse_moe.output_linear.weight", (E, H, inter), "experts",
                        True, **fz)])
        shared = "shared_experts"
    else:
        shared = "mlp"
    return (t + _linear("shared_mlp.input_linear", 2 * S, H, shared)
            + _linear("shared_mlp.output_linear", H, S, shared))


def _nemotron_block(c, kind):
    """Nemotron-H: a norm and one mixer (Mamba-2, attention, routed experts or an MLP);
    its MLPs and experts are non-gated (up, ReLU^2, down)."""
    H, bias = c.hidden_size, c.get("mlp_bias", False)
    t = _norm("norm", H)
    if kind.attention == "mamba":
        return t + _mamba2(c)
    if kind.attention == "full_attention":  # q, k, v, o without biases, no QK-norm
        nh, kv, hd = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        return (t + _linear("mixer.q_proj", nh * hd, H, "attention")
                + _linear("mixer.k_proj", kv * hd, H, "attention")
                + _linear("mixer.v_proj", kv * hd, H, "attention")
                + _linear("mixer.o_proj", H, nh * hd, "attention"))
    if kind.mlp == "dense":
        return (t + _linear("mixer.up_proj", c.intermediate_size, H, "mlp", bias)
                + _linear("mixer.down_proj", H, c.intermediate_size, "mlp", bias))
    E, inter = c.num_experts, c.moe_intermediate_size
    latent = c.get("moe_latent_size")   # Nemotron 3 Super: experts work in a smaller width
    d_in = latent or H
    ex = dict(routed=True, per_expert=E)
    t += (_linear("mixer.gate", E, H, "router")
          + [Tensor("mixer.gate.e_score_correction_bias", (E,), "router", buffer=True)]
          + _linear("mixer.experts.{e}.up_proj", inter, d_in, "experts", **ex)
          + _linear("mixer.experts.{e}.down_proj", d_in, inter, "experts", **ex))
    shared = c.moe_shared_expert_intermediate_size
    t += (_linear("mixer.shared_experts.up_proj", shared, H, "shared_experts", bias)
          + _linear("mixer.shared_experts.down_proj", H, shared, "shared_experts", bias))
    if latent:
        t += (_linear("mixer.fc1_latent_proj", latent, H, "experts", bias)
              + _linear("mixer.fc2_latent_proj", H, latent, "experts", bias))
    return t


# --- LFM2-MoE ----------------------------------------------------------------------------

def _lfm2_moe_layer(c, kind):
    """An LFM2-MoE layer: operator_norm, then a gated short convolution (in_proj to the gates
    B and C and the input x, a depthwise causal conv1d of conv_L_cache taps over B x x, C
    gating its output, out_proj; biases by conv_bias) or GQA attention (q, k, v, out_proj
    without biases, an RMSNorm over each head's q and k); ffn_norm, then a dense SwiGLU
    (w1, w3, w2) or a sigmoid router (gate, with its expert_bias buffer by use_expert_bias)
    over experts stored one by one in the checkpoint (transformers fuses them on load)."""
    H, bias = c.hidden_size, c.get("conv_bias", False)
    t = _norm("operator_norm", H) + _norm("ffn_norm", H)
    if kind.attention == "conv":
        t += ([Tensor("conv.conv.weight", (H, 1, c.conv_L_cache), "attention", matmul=True)]
              + ([Tensor("conv.conv.bias", (H,), "attention")] if bias else [])
              + _linear("conv.in_proj", 3 * H, H, "attention", bias)
              + _linear("conv.out_proj", H, H, "attention", bias))
    else:
        nh, kv, hd = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        t += (_linear("self_attn.q_proj", nh * hd, H, "attention")
              + _linear("self_attn.k_proj", kv * hd, H, "attention")
              + _linear("self_attn.v_proj", kv * hd, H, "attention")
              + _linear("self_attn.out_proj", H, nh * hd, "attention")
              + _norm("self_attn.q_layernorm", hd) + _norm("self_attn.k_layernorm", hd))
    if kind.mlp == "dense":
        inter = c.intermediate_size
        return (t + _linear("feed_forward.w1", inter, H, "mlp")
                + _linear("feed_forward.w3", inter, H, "mlp")
                + _linear("feed_forward.w2", H, inter, "mlp"))
    E, inter = c.num_experts, c.moe_intermediate_size
    ex = dict(routed=True, per_expert=E)
    t += _linear("feed_forward.gate", E, H, "router")
    if c.get("use_expert_bias", True):  # the load-balancing bias: stored, not trained by SGD
        t.append(Tensor("feed_forward.expert_bias", (E,), "router", buffer=True))
    return (t + _linear("feed_forward.experts.{e}.w1", inter, H, "experts", **ex)
            + _linear("feed_forward.experts.{e}.w3", inter, H, "experts", **ex)
            + _linear("feed_forward.experts.{e}.w2", H, inter, "experts", **ex))


# --- Gemma 4 -----------------------------------------------------------------------------

def _gemma4_layer(c, kind):
    """A Gemma 4 layer. Attention: q and its norm always; k, v and their norms only in a
    layer that computes its own K and V (a KV-shared layer reads an earlier layer's); no v
    projection where K = V (attention_k_eq_v, full layers: V is the normed k projection);
    the head width and KV heads of its kind. A GeGLU MLP, twice as wide in a KV-shared
    layer with use_double_wide_mlp; with enable_moe_block, 128 routed experts beside it.
    Gemma's four norms, a per-layer scalar, and with per-layer embeddings (E2B, E4B) a
    gate and projection of the layer's own embedding slice."""
    H, nh, bias = c.hidden_size, c.num_attention_heads, c.get("attention_bias", False)
    hd = kind.head_dim or c.head_dim
    kv = kind.kv_heads or c.num_key_value_heads
    t = _linear("self_attn.q_proj", nh * hd, H, "attention", bias) + _norm("self_attn.q_norm", hd)
    if not kind.kv_shared:
        t += _norm("self_attn.k_norm", hd) + _linear("self_attn.k_proj", kv * hd, H, "attention",
                                                     bias)
        if not (c.get("attention_k_eq_v") and kind.attention == "full_attention"):
            t += _linear("self_attn.v_proj", kv * hd, H, "attention", bias)
    t += _linear("self_attn.o_proj", H, nh * hd, "attention", bias)
    wide = 2 if c.get("use_double_wide_mlp") and kind.kv_shared else 1
    t += _swiglu("mlp", H, c.intermediate_size * wide, "mlp")
    t += (_norm("input_layernorm", H) + _norm("post_attention_layernorm", H)
          + _norm("pre_feedforward_layernorm", H) + _norm("post_feedforward_layernorm", H)
          + [Tensor("layer_scalar", (1,), "norms", buffer=True)])
    hpl = c.get("hidden_size_per_layer_input")
    if hpl:  # the per-layer embedding's slice enters the residual through a gated projection
        t += (_linear("per_layer_input_gate", hpl, H, "mlp")
              + _linear("per_layer_projection", H, hpl, "mlp")
              + _norm("post_per_layer_input_norm", H))
    if kind.mlp == "moe":
        E, inter = c.num_experts, c.moe_intermediate_size
        fz = dict(routed=True, fused=E, out_in=True)
        t += (_linear("router.proj", E, H, "router")
              + [Tensor("router.scale", (H,), "router"),
                 Tensor("router.per_expert_scale", (E,), "router"),
                 Tensor("experts.gate_up_proj", (E, 2 * inter, H), "experts", True, **fz),
                 Tensor("experts.down_proj", (E, H, inter), "experts", True, **fz)]
              + _norm("post_feedforward_layernorm_1", H) + _norm("post_feedforward_layernorm_2", H)
              + _norm("pre_feedforward_layernorm_2", H))
    return t


# --- DeepSeek-V4 -------------------------------------------------------------------------

def _deepseek_v4_layer(c, kind):
    """A DeepSeek-V4 layer. Attention: low-rank q (q_a, norm, q_b to heads x head_dim), one
    K = V head (kv_proj), a grouped low-rank output (o_a: o_groups blocks to o_lora_rank
    each, o_b), one sink logit per head; a CSA layer's compressor (kv and gate to 2 x
    head_dim, a bias per window position) with its lightning indexer (its own compressor at
    index_head_dim, q_b from the query latent, per-head weights), an HCA layer's compressor
    (head_dim, 128 positions). MoE: a router (a fixed token-to-expert table in hash layers),
    routed experts fused (experts, out, in), one shared expert. Two hyper-connections mix
    hc_mult residual streams around attention and MoE."""
    H, nh, hd = c.hidden_size, c.num_attention_heads, c.head_dim
    q_r, g, o_r, m = c.q_lora_rank, c.o_groups, c.o_lora_rank, c.hc_mult
    a = "self_attn."
    t = ([Tensor(a + "sinks", (nh,), "attention")]
         + _linear(a + "q_a_proj", q_r, H, "attention") + _norm(a + "q_a_norm", q_r)
         + _linear(a + "q_b_proj", nh * hd, q_r, "attention")
         + _linear(a + "kv_proj", hd, H, "attention") + _norm(a + "kv_norm", hd)
         + _linear(a + "o_a_proj", g * o_r, nh * hd // g, "attention")
         + _linear(a + "o_b_proj", H, g * o_r, "attention"))
    if kind.attention == "compressed_sparse_attention":
        rate = (c.get("compress_rates") or {}).get("compressed_sparse_attention", 4)
        ci, di, ni = a + "compressor.indexer.", c.index_head_dim, c.index_n_heads
        t += ([Tensor(a + "compressor.position_bias", (rate, 2 * hd), "attention")]
              + _linear(a + "compressor.kv_proj", 2 * hd, H, "attention")
              + _linear(a + "compressor.gate_proj", 2 * hd, H, "attention")
              + _norm(a + "compressor.kv_norm", hd)
              + [Tensor(ci + "position_bias", (rate, 2 * di), "attention")]
              + _linear(ci + "kv_proj", 2 * di, H, "attention")
              + _linear(ci + "gate_proj", 2 * di, H, "attention")
              + _norm(ci + "kv_norm", di)
              + _linear(ci + "q_b_proj", ni * di, q_r, "attention")
              + _linear(ci + "scorer.weights_proj", ni, H, "attention"))
    elif kind.attention == "heavily_compressed_attention":
        rate = (c.get("compress_rates") or {}).get("heavily_compressed_attention", 128)
        t += ([Tensor(a + "compressor.position_bias", (rate, hd), "attention")]
              + _linear(a + "compressor.kv_proj", hd, H, "attention")
              + _linear(a + "compressor.gate_proj", hd, H, "attention")
              + _norm(a + "compressor.kv_norm", hd))
    E, inter = c.num_experts, c.moe_intermediate_size
    fz = dict(routed=True, fused=E, out_in=True)
    t += _linear("mlp.gate", E, H, "router")
    if kind.mlp == "hash_moe":  # a fixed token-id -> experts table (int64 in transformers)
        t.append(Tensor("mlp.gate.tid2eid", (c.vocab_size, c.num_experts_per_tok), "router",
                        buffer=True))
    else:
        t.append(Tensor("mlp.gate.e_score_correction_bias", (E,), "router", buffer=True))
    t += ([Tensor("mlp.experts.gate_up_proj", (E, 2 * inter, H), "experts", True, **fz),
           Tensor("mlp.experts.down_proj", (E, H, inter), "experts", True, **fz)]
          + _swiglu("mlp.shared_experts", H, inter, "shared_experts")
          + _norm("input_layernorm", H) + _norm("post_attention_layernorm", H))
    n_mix = (2 + m) * m     # pre (m), post (m) and the m x m residual mix, per token
    for hc in ("attn_hc", "ffn_hc"):
        t += [Tensor(f"{hc}.fn", (n_mix, m * H), "norms"), Tensor(f"{hc}.base", (n_mix,), "norms"),
              Tensor(f"{hc}.scale", (3,), "norms")]
    return t


# --- Qwen4-Exp -----------------------------------------------------------------------------

def _is_prime(n):
    """Deterministic Miller-Rabin (exact for every n below 3.3e24; config sizes are far
    below): the primality transformers' n-gram tables test by trial division."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in small:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@lru_cache(maxsize=64)
def _primes_from(base, count):
    """The first ``count`` primes of at least ``base`` (transformers: the n-th prime after
    ngram_vocab_size_base - 1)."""
    out, n = [], base - 1
    while len(out) < count:
        n += 1
        if _is_prime(n):
            out.append(n)
    return tuple(out)


def ngram_table_rows(c, k):
    """Rows of the k-th (1-based) n-gram embedding table of Qwen4-Exp: one hashed vocabulary
    per head, (ngram_size - 1) x heads_per_ngram heads, each a distinct prime from
    ngram_vocab_size_base on (the k-th table continues where the previous ended), summed
    and padded up to a multiple of make_ngram_vocab_size_divisible_by."""
    heads = (c.ngram_size - 1) * c.heads_per_ngram
    total = sum(_primes_from(c.ngram_vocab_size_base, k * heads)[(k - 1) * heads:])
    div = c.make_ngram_vocab_size_divisible_by
    return -(-total // div) * div


def ngram_shards(rows, parts):
    """The checkpoint's shards of an n-gram table, as save_pretrained writes them (torch.chunk
    into split_ngram_parts along the rows): [(rows per shard, how many shards), ...]."""
    size = -(-rows // parts)
    n = -(-rows // size)
    last = rows - size * (n - 1)
    return [(size, n - 1), (last, 1)] if last != size else [(size, n)]


def _qwen4_layer(c, kind):
    """A Qwen4-Exp layer. Its token mixer: Qwen3.5's gated DeltaNet, or Qwen3.5's gated
    attention with QK-norm plus a query-selection indexer (index_qk_proj to indexer_n_heads
    query heads and one key head of indexer_head_dim, a norm on each). MoE: a router,
    routed experts stored one by one, a sigmoid-gated shared expert. No layer norms: two
    hyper-connections (hc_count residual streams) normalise and mix the streams around the
    mixer and the MoE, each an RMSNorm over all streams, a low-rank (hc_lowrank) input mix
    and the weights injecting the output back into every stream (matmuls, with the norms).
    A per-layer-embedding layer adds its hashed n-gram table (a lookup, stored in
    split_ngram_parts shards), key and value projections, three norms and a dilated
    depthwise convolution; its hash constants are buffers."""
    H, m, r = c.hidden_size, c.hc_count, c.hc_lowrank
    if kind.attention == "linear_attention":
        t = _linear_attention(c)
    else:
        d, a = c.indexer_head_dim, "self_attn.indexer."
        t = (_attention(c)
             + _linear(a + "index_qk_proj", (c.indexer_n_heads + c.indexer_kv_heads) * d, H,
                       "attention")
             + _norm(a + "q_layernorm", d) + _norm(a + "k_layernorm", d))
    t += _moe(c)
    if kind.ple:
        p, ped = "ple.", c.ple_embed_dim
        heads = (c.ngram_size - 1) * c.heads_per_ngram
        first = 0
        for rows, n in ngram_shards(ngram_table_rows(c, kind.ple), c.split_ngram_parts):
            name = p + "ple_embedding.ngram_embedding.shard_{e}.weight"
            if n == 1:  # a single shard (or the smaller last one): its own index in its name
                name = name.format(e=first)
            t.append(Tensor(name, (rows, ped // heads), "embedding", per_expert=n))
            first += n
        t += [Tensor(p + "ple_embedding.layer_multipliers", (c.ngram_size,), "embedding",
                     buffer=True),
              Tensor(p + "ple_embedding.ngram_heads_vocab_sizes", (heads,), "embedding",
                     buffer=True),
              Tensor(p + "ple_embedding.ngram_heads_offsets", (heads,), "embedding",
                     buffer=True)]
        t += (_linear(p + "key_proj", m * H, ped, "mlp") + _linear(p + "value_proj", H, ped, "mlp")
              + _norm(p + "norm_key", m * H) + _norm(p + "norm_query", m * H)
              + _norm(p + "norm_conv", m * H)
              + [Tensor(p + "conv1d.weight", (m * H, 1, c.ple_conv_kernel_size), "mlp",
                        matmul=True)])
    for hc in ("attn_hyper_connection", "mlp_hyper_connection"):
        t += _qwen4_hyper_connection(hc, H, m, r, inject=True)
    return t


def _qwen4_hyper_connection(name, H, m, r, inject):
    t = (_norm(f"{name}.hc_norm", m * H)
         + _linear(f"{name}.input_mix_weight_down", r, m * H, "norms")
         + _linear(f"{name}.input_mix_weight_up", m * H, r, "norms"))
    if inject:
        t += _linear(f"{name}.block_inject_weight", m, m * H, "norms")
    return t


# --- LongCat-Flash ------------------------------------------------------------------------

def _longcat_sublayer(c, kind):
    """One of the two sublayers of a LongCat-Flash layer (transformers: model.layers.{b}, the
    sublayer j = 0 or 1 its index within): an MLA attention (always a low-rank query; q_b_proj
    to qk_head_dim per head), its two norms and a dense MLP, each the j-th of two. The first
    sublayer also holds the layer's MoE: a router over n_routed_experts + zero_expert_num
    (its e_score_correction_bias a buffer) and the n_routed_experts real experts, stored one
    by one in the checkpoint. The zero-computation experts return their input and hold no
    weights (transformers 5.23 nevertheless allocates gate_up_proj for them: not counted)."""
    H, j = c.hidden_size, 0 if kind.mlp == "moe" else 1
    qk = c.get("qk_head_dim") or c.qk_nope_head_dim + c.qk_rope_head_dim
    a = f"self_attn.{j}."
    t = []
    for x in _mla(c):  # DeepSeek's MLA tensors, under self_attn.{j}
        x = x._replace(name=a + x.name[len("self_attn."):])
        if x.name.endswith("q_b_proj.weight"):
            x = x._replace(shape=(c.num_attention_heads * qk, c.q_lora_rank))
        t.append(x)
    t += (_swiglu(f"mlps.{j}", H, c.intermediate_size, "mlp")
          + _norm(f"input_layernorm.{j}", H) + _norm(f"post_attention_layernorm.{j}", H))
    if kind.mlp == "moe":
        E, slots = c.num_experts, c.num_experts + c.zero_expert_num
        t += (_linear("mlp.router.classifier", slots, H, "router", c.get("router_bias", False))
              + [Tensor("mlp.router.e_score_correction_bias", (slots,), "router", buffer=True)]
              + _swiglu("mlp.experts.{e}", H, c.moe_intermediate_size, "experts", routed=True,
                        per_expert=E))
    return t

class LayerGroup(NamedTuple):
    """The layers of one :class:`~llmcourse.layers.LayerKind` and their tensors.

    ``indices`` is a :class:`~llmcourse.layers.LayerIndices` view: ``len``, ``in``,
    ``[0]`` and ``[-1]`` are arithmetic, so a billion-layer model costs nothing."""
    indices: object
    tensors: tuple

    @property
    def kind(self):
        return self.indices.kind

    @property
    def count(self):
        return len(self.indices)


_MIXERS = {"full_attention": _attention, "sliding_attention": _attention,
           "chunked_attention": _attention, "linear_attention": _linear_attention,
           "indexed_attention": _attention}


def _decoder_layer(cfg, kind):
    """The standard layer: its token mixer (attention of any kind, or linear attention),
    a lightning indexer where the layer runs one, its MLP (dense or routed experts) and
    its norms."""
    mixer = _MIXERS.get(kind.attention)
    if mixer is None:
        raise ConfigError(f"layer_types: {kind.attention} layers have no tensor layout "
                          f"for model_type {cfg.model_type!r}")
    mlp = {"dense": _dense_mlp, "moe": _moe}.get(kind.mlp)
    if mlp is None:
        raise ConfigError(f"layer_types: {kind.mlp} MLP layers have no tensor layout for "
                          f"model_type {cfg.model_type!r}")
    indexer = _indexer(cfg) if kind.indexer else []
    return mixer(cfg) + indexer + mlp(cfg) + _layer_norms(cfg)


#: layer builders (``Layout.block``): the standard decoder layer, and the families whose
#: layers are of another shape, each built whole by its own function
BLOCKS = {"decoder": _decoder_layer,
          # Nemotron-H: each block one mixer (Mamba-2, attention, experts or an MLP)
          "one_mixer_per_block": _nemotron_block,
          # Granite 4.0: Mamba-2 or attention, then experts beside a shared MLP
          "hybrid_shared_mlp": _granite_hybrid_layer,
          # LFM2-MoE: a gated short convolution or attention, then an MLP or experts
          "short_conv_hybrid": _lfm2_moe_layer,
          # Gemma 4: per-kind head widths and KV heads, KV shared across the last layers
          "per_kind_heads_kv_shared": _gemma4_layer,
          # DeepSeek-V4: hyper-connected streams, a K = V head with compressed entries
          "hyper_connected_compressed": _deepseek_v4_layer,
          # LongCat-Flash: two MLA sublayers per layer, a shortcut MoE
          "two_mla_sublayers": _longcat_sublayer,
          # Qwen4-Exp: hyper-connected streams, n-gram embeddings in some layers
          "hyper_connected_ngram": _qwen4_layer}


#: fixed states per sequence beside a layer's K and V (``Layout.layer_state``):
#: ``f(cfg, kind) -> values`` for one layer of ``kind`` and one sequence (0: none)
LAYER_STATES = {}
#: work per token beyond the weights and the attention over the keys, the same at any
#: context (``Layout.extra_flops``): ``f(cfg) -> FLOPs`` for one token, the whole model
EXTRA_FLOPS = {}


def register_layer_state(name):
    """Register ``f(cfg, kind) -> values`` under ``name``, for ``Layout(layer_state=name)``."""
    def add(f):
        if name in LAYER_STATES:
            raise ValueError(f"a layer state named {name!r} exists already")
        LAYER_STATES[name] = f
        return f
    return add


def register_extra_flops(name):
    """Register ``f(cfg) -> FLOPs`` under ``name``, for ``Layout(extra_flops=name)``."""
    def add(f):
        if name in EXTRA_FLOPS:
            raise ValueError(f"extra FLOPs named {name!r} exist already")
        EXTRA_FLOPS[name] = f
        return f
    return add


class _LayerConfig:
    """A config as one layer of a kind sees it: the kind's ``own_fields`` over the model's
    (transformers' per_layer_config). Read-only; everything else is the model's."""

    __slots__ = ("_cfg", "_own")

    def __init__(self, cfg, own):
        object.__setattr__(self, "_cfg", cfg)
        object.__setattr__(self, "_own", own)

    def __getattr__(self, key):
        own = object.__getattribute__(self, "_own")
        if key in own:
            return own[key]
        return getattr(object.__getattribute__(self, "_cfg"), key)

    def get(self, key, default=None):
        own = object.__getattribute__(self, "_own")
        if key in own:
            return default if own[key] is None else own[key]
        return object.__getattribute__(self, "_cfg").get(key, default)


def layer_config(cfg, kind):
    """``cfg`` as a layer of ``kind`` reads it: its own heads, head width, ranks
    (``LayerKind.own_fields``) over the model's; ``cfg`` itself where it has none."""
    return _LayerConfig(cfg, dict(kind.own_fields)) if kind.own_fields else cfg


def register_block(name):
    """Register a layer builder ``f(cfg, kind) -> [Tensor, ...]`` under ``name`` (what the
    layer is), for a family's ``Layout(block=name)``."""
    def add(f):
        if name in BLOCKS:
            raise ValueError(f"a layer builder named {name!r} exists already")
        BLOCKS[name] = f
        return f
    return add


def kind_tensors(cfg, kind):
    """The tensors of one layer of ``kind`` (a :class:`~llmcourse.layers.LayerKind`), built
    by the family's layer builder (``cfg.layout.block``)."""
    return tuple(BLOCKS[cfg.layout.block](cfg, kind))


def layer_groups(cfg):
    """``[LayerGroup(indices, tensors), ...]``: one group per layer kind, in the order
    the kinds first appear; unpacks as ``for indices, tensors in layer_groups(cfg)``.

    Cached on the (immutable) config.
    """
    cached = cfg._cache.get("layer_groups")
    if cached is not None:
        return cached
    sched = cfg.layer_schedule
    groups = [LayerGroup(sched.indices(kind), kind_tensors(cfg, kind))
              for kind in sched.counts()]
    cfg._cache["layer_groups"] = groups
    return groups


def layer_prefix(cfg):
    """The checkpoint name prefix of layer ``i``, as a format string with ``{i}`` (or
    ``{b}``, ``i // 2``: LongCat-Flash's layers hold two of the schedule's sublayers)."""
    return cfg.layout.layer_prefix


def _per_layer_embeddings(cfg):
    """Gemma 4's per-layer embeddings: a second table, hidden_size_per_layer_input values per
    layer per token, projected from the token embedding as well and normed."""
    hpl, H = cfg.get("hidden_size_per_layer_input"), cfg.hidden_size
    if not hpl:
        return []
    L = cfg.num_hidden_layers
    return [Tensor("model.embed_tokens_per_layer.weight",
                   (cfg.vocab_size_per_layer_input, L * hpl), "embedding"),
            *_linear("model.per_layer_model_projection", L * hpl, H, "mlp"),
            *_norm("model.per_layer_projection_norm", hpl)]


def _hc_head(cfg):
    """DeepSeek-V4: before the head, the hc_mult residual streams collapse into one."""
    m, H = cfg.hc_mult, cfg.hidden_size
    return [Tensor("model.hc_head.hc_fn", (m, m * H), "norms"),
            Tensor("model.hc_head.hc_base", (m,), "norms"),
            Tensor("model.hc_head.hc_scale", (1,), "norms")]


def _hyper_connection_mixer(cfg):
    """Qwen4-Exp: the streams' final mix, in place of a final norm."""
    return _qwen4_hyper_connection("model.hyper_connection_mixer", cfg.hidden_size,
                                   cfg.hc_count, cfg.hc_lowrank, inject=False)


#: tensors outside the layers that a few families add (``Layout.extra_globals``):
#: (builder, True to list them before the final norm, False after it)
GLOBAL_EXTRAS = {"per_layer_embeddings": (_per_layer_embeddings, True),
                 "hc_head": (_hc_head, False),
                 "hyper_connection_mixer": (_hyper_connection_mixer, False)}


def register_global_extras(name, before_norm):
    """Register ``f(cfg) -> [Tensor, ...]`` under ``name`` (what the tensors are): tensors
    outside the layers that a family's ``Layout(extra_globals=name)`` adds, listed before
    the final norm (``before_norm``) or after it."""
    def add(f):
        if name in GLOBAL_EXTRAS:
            raise ValueError(f"global tensors named {name!r} exist already")
        GLOBAL_EXTRAS[name] = (f, before_norm)
        return f
    return add


#: builders of every tensor outside the layers (``Layout.outside``), for families whose
#: embedding, positions or head are not the standard ones: ``f(cfg) -> [Tensor, ...]``, the
#: token embedding first (a tied head is marked ``tied``)
OUTSIDE = {}


def register_outside(name):
    """Register a builder of the tensors outside the layers under ``name`` (what they are),
    for a family's ``Layout(outside=name)``."""
    def add(f):
        if name in OUTSIDE:
            raise ValueError(f"an outside-the-layers builder named {name!r} exists already")
        OUTSIDE[name] = f
        return f
    return add


#: per-token matmul FLOPs a family does beyond using each matmul weight once
#: (``Layout.matmul_extra``): ``f(cfg) -> FLOPs``
MATMUL_EXTRAS = {}


def register_matmul_extra(name):
    """Register ``f(cfg) -> FLOPs per token`` under ``name`` for ``Layout(matmul_extra=name)``."""
    def add(f):
        if name in MATMUL_EXTRAS:
            raise ValueError(f"a matmul extra named {name!r} exists already")
        MATMUL_EXTRAS[name] = f
        return f
    return add


def global_tensors(cfg):
    """The tensors outside the layers: embedding, final norm, lm_head (full names).

    The first is the token embedding (a tied lm_head shares its storage).
    """
    L, H, V = cfg.layout, cfg.hidden_size, cfg.vocab_size
    if L.outside:
        return OUTSIDE[L.outside](cfg)
    tied = cfg.tie_word_embeddings and not L.never_tied
    t = [Tensor(f"{L.embedding}.weight", (V, H), "embedding")]
    if L.position_embedding:  # learned positions: a weight (n_positions x d), not a cache
        t.append(Tensor(f"{L.position_embedding}.weight", (cfg.max_position_embeddings, H),
                        "embedding"))
    extra, before_norm = GLOBAL_EXTRAS.get(L.extra_globals, (None, False))
    if extra and before_norm:
        t += extra(cfg)
    if L.final_norm:
        t += _norm(L.final_norm, H, L.norm)
    if extra and not before_norm:
        t += extra(cfg)
    t.append(Tensor(f"{L.lm_head}.weight", (V, H), "lm_head", matmul=True, tied=tied))
    if _flag(cfg, L.lm_head_bias):   # (True, or the config field that says: ZAYA1's)
        t.append(Tensor(f"{L.lm_head}.bias", (V,), "lm_head"))
    return t


def _mtp_deepseek(cfg):
    """Like DeepSeek-V3's: a whole MoE layer (with its indexer under sparse attention) plus
    its own embedding and head, num_nextn_predict_layers of them (GLM-4.5, GLM-4.7-Flash,
    DeepSeek-V3.2, GLM-5)."""

    H, V = cfg.hidden_size, cfg.vocab_size
    sparse = "indexed_attention" in cfg.layer_types
    block = list(kind_tensors(cfg, LayerKind(
        attention="indexed_attention" if sparse else "full_attention", mlp="moe",
        indexer=sparse)))
    out = []
    for j in range(cfg.get("num_nextn_predict_layers", 0)):
        extra = [Tensor("embed_tokens.weight", (V, H), "embedding"),
                 *_norm("enorm", H), *_norm("hnorm", H),
                 *_linear("eh_proj", H, 2 * H, "mlp"),
                 *_norm("shared_head.norm", H),
                 Tensor("shared_head.head.weight", (V, H), "lm_head", matmul=True)]
        out.append((f"model.layers.{cfg.num_hidden_layers + j}.", tuple(block + extra)))
    return out


def _mtp_qwen3_next(cfg):
    """Qwen3-Next and Qwen3.5: one full-attention layer (MoE or dense, as the model) under
    mtp.layers, sharing the model's embedding and head."""

    H = cfg.hidden_size
    head = [*_linear("fc", H, 2 * H, "mlp"), *_norm("pre_fc_norm_embedding", H),
            *_norm("pre_fc_norm_hidden", H), *_norm("norm", H)]
    block = kind_tensors(cfg, LayerKind(attention="full_attention",
                                        mlp="moe" if cfg.is_moe else "dense"))
    n = cfg.get("num_nextn_predict_layers", cfg.get("mtp_num_hidden_layers", 1))  # 1 shipped
    return [("mtp.", tuple(head))] + [(f"mtp.layers.{j}.", tuple(block)) for j in range(n)]


#: multi-token-prediction modules a checkpoint ships (``Layout.mtp``)
MTP = {
    # DeepSeek-V3's: num_nextn_predict_layers whole layers after the last, each with its own
    # embedding, projection and head (GLM-4.5, GLM-4.7-Flash, DeepSeek-V3.2, GLM-5)
    "nextn_layers": _mtp_deepseek,
    # Qwen3-Next's: mtp.layers under its own prefix, sharing the model's embedding and head
    "mtp_layers": _mtp_qwen3_next}


def mtp_tensors(cfg):
    """``[(prefix, tensors), ...]``: the multi-token-prediction module a checkpoint ships
    beside the model (GLM-4.5's ``num_nextn_predict_layers``, Qwen3-Next's ``mtp.*``).
    transformers does not build it, so the counts leave it out; ``weight_shapes`` lists
    it with the note ``mtp, not built by transformers``.
    """
    mtp = MTP.get(cfg.layout.mtp)
    return mtp(cfg) if mtp else []
