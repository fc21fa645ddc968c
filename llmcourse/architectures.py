"""Tensor layouts: which weights a model has, with their checkpoint names and shapes.

This module is the single source of truth for architecture facts. Everything
that counts (parameters, bytes, FLOPs) reads the :class:`Tensor` lists built
here. Shapes are as stored: a ``Linear`` weight is ``(out_features, in_features)``.

Layers with the same tensors are grouped, so counting a 61-layer model touches
two groups, not 45,000 tensors; :func:`llmcourse.weight_shapes` expands them.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod
from typing import NamedTuple

from .limits import ConfigError

__all__ = ["Tensor", "LayerGroup", "layer_groups", "kind_tensors", "global_tensors",
           "layer_prefix", "mtp_tensors", "mamba_dims", "COMPONENTS"]

# the order a breakdown is shown in
COMPONENTS = ("embedding", "attention", "mlp", "shared_experts", "experts", "router",
              "norms", "lm_head")


class Tensor(NamedTuple):
    """One stored tensor (or, with ``{e}`` in its name, one per routed expert)."""
    name: str            # relative to the layer prefix for layer tensors; ``{e}`` = expert index
    shape: tuple         # one expert's shape when ``per_expert`` > 1
    component: str       # one of COMPONENTS
    matmul: bool = False  # a weight multiplied with activations (counts for FLOPs)
    routed: bool = False  # belongs to routed experts (a token uses top-k of them)
    per_expert: int = 1   # how many copies (named {e}=0..n-1) are stored
    fused: int = 1        # for a tensor holding all experts at once (gpt-oss): the expert count
    tied: bool = False    # shares storage with another tensor (a tied lm_head)
    buffer: bool = False  # stored in the checkpoint but not a trainable parameter
    out_in: bool = False  # a fused expert tensor stored (experts, out, in) (Gemma 4), not
                          # (experts, in, out) (gpt-oss, Llama-4)

    @property
    def numel(self):
        return prod(self.shape)


def _linear(name, out_f, in_f, component, bias=False, **kw):
    t = [Tensor(f"{name}.weight", (out_f, in_f), component, matmul=True, **kw)]
    if bias:
        t.append(Tensor(f"{name}.bias", (out_f,), component, **kw))
    return t


def _norm(name, dim, bias=False):
    t = [Tensor(f"{name}.weight", (dim,), "norms")]
    if bias:
        t.append(Tensor(f"{name}.bias", (dim,), "norms"))
    return t


# --- attention ---------------------------------------------------------------------

def _attention(c):
    H, nh, kv, hd = c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim
    mt = c.model_type
    if c.family == "deepseek":
        return _mla(c)
    qkv = (nh + 2 * kv) * hd  # 3 x hidden for GPT-2 and GPT-NeoX as shipped (MHA)
    if mt == "gpt2":  # one fused c_attn; Conv1D weights are stored (in, out)
        return [Tensor("attn.c_attn.weight", (H, qkv), "attention", matmul=True),
                Tensor("attn.c_attn.bias", (qkv,), "attention"),
                Tensor("attn.c_proj.weight", (nh * hd, H), "attention", matmul=True),
                Tensor("attn.c_proj.bias", (H,), "attention")]
    if mt == "gpt_neox":  # fused query_key_value (heads interleaved), biases by attention_bias
        bias = c.get("attention_bias", True)
        return (_linear("attention.query_key_value", qkv, H, "attention", bias)
                + _linear("attention.dense", H, nh * hd, "attention", bias))
    if mt == "phi3":  # q, k and v fused in one qkv_proj, no biases
        return (_linear("self_attn.o_proj", H, nh * hd, "attention")
                + _linear("self_attn.qkv_proj", qkv, H, "attention"))
    if c.family == "phi":
        t = (_linear("self_attn.q_proj", nh * hd, H, "attention", True)
             + _linear("self_attn.k_proj", kv * hd, H, "attention", True)
             + _linear("self_attn.v_proj", kv * hd, H, "attention", True)
             + _linear("self_attn.dense", H, nh * hd, "attention", True))
        if c.get("qk_layernorm"):
            t += _norm("self_attn.q_layernorm", hd, True) + _norm("self_attn.k_layernorm", hd, True)
        return t
    qkv_bias = True if mt == "qwen2" else (False if mt in ("mistral", "mixtral", "ministral3")
                                           else c.get("qkv_bias", True) if mt == "qwen2_moe"
                                           else c.get("attention_bias", False))
    o_bias = (False if mt in ("qwen2", "mistral", "mixtral", "qwen2_moe", "glm4_moe", "ministral3")
              else c.get("attention_out_bias", False) if mt == "seed_oss"
              else c.get("attention_bias", False))
    # Qwen3-Next and Qwen3.5: q and an output gate (Qwen3.5's attn_output_gate, on by default)
    gated = mt in ("qwen3_next", "qwen4_exp_text") or (mt in ("qwen3_5_text", "qwen3_5_moe_text")
                                                       and c.get("attn_output_gate", True))
    q_out = 2 * nh * hd if gated else nh * hd
    t = (_linear("self_attn.q_proj", q_out, H, "attention", qkv_bias)
         + _linear("self_attn.k_proj", kv * hd, H, "attention", qkv_bias)
         + _linear("self_attn.v_proj", kv * hd, H, "attention", qkv_bias)
         + _linear("self_attn.o_proj", H, nh * hd, "attention", o_bias))
    if mt in ("qwen3", "qwen3_moe", "gemma3_text", "qwen3_next", "qwen3_5_text",
              "qwen3_5_moe_text", "qwen4_exp_text") or (
            mt == "glm4_moe" and c.get("use_qk_norm")):
        # QK-norm: an RMSNorm over each head's q and k (Llama-4's is a weightless L2 norm)
        t += _norm("self_attn.q_norm", hd) + _norm("self_attn.k_norm", hd)
    if mt in ("olmo2", "olmo3", "minimax_m2"):  # one norm over the whole q and k projections
        t += _norm("self_attn.q_norm", nh * hd) + _norm("self_attn.k_norm", kv * hd)
    if mt == "gpt_oss":  # one learned "attention sink" logit per head
        t.append(Tensor("self_attn.sinks", (nh,), "attention"))
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
    """Qwen3-Next's gated DeltaNet: a fixed-size recurrent state instead of a KV cache."""
    if c.model_type == "kimi_linear":
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
              if c.model_type == "qwen3_next" else  # Qwen3.5 stores the same four unfused
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

def _swiglu(prefix, H, inter, component, bias=False, **kw):
    return (_linear(f"{prefix}.gate_proj", inter, H, component, bias, **kw)
            + _linear(f"{prefix}.up_proj", inter, H, component, bias, **kw)
            + _linear(f"{prefix}.down_proj", H, inter, component, bias, **kw))


def _dense_mlp(c):
    H, inter, mt = c.hidden_size, c.intermediate_size, c.model_type
    if c.family == "phi":  # a plain two-matrix GELU MLP with biases
        return (_linear("mlp.fc1", inter, H, "mlp", True)
                + _linear("mlp.fc2", H, inter, "mlp", True))
    if mt == "gpt2":  # the classic 4x GELU MLP, Conv1D weights stored (in, out)
        return [Tensor("mlp.c_fc.weight", (H, inter), "mlp", matmul=True),
                Tensor("mlp.c_fc.bias", (inter,), "mlp"),
                Tensor("mlp.c_proj.weight", (inter, H), "mlp", matmul=True),
                Tensor("mlp.c_proj.bias", (H,), "mlp")]
    if mt == "gpt_neox":
        return (_linear("mlp.dense_h_to_4h", inter, H, "mlp", True)
                + _linear("mlp.dense_4h_to_h", H, inter, "mlp", True))
    if mt == "phi3":  # gate and up fused in one gate_up_proj
        return (_linear("mlp.gate_up_proj", 2 * inter, H, "mlp")
                + _linear("mlp.down_proj", H, inter, "mlp"))
    if mt == "llama4_text":  # Llama-4's dense layers use their own, wider MLP
        return _swiglu("feed_forward", H, c.intermediate_size_mlp, "mlp")
    return _swiglu("mlp", H, inter, "mlp", c.get("mlp_bias", False))


def _moe(c):
    H, E, mt = c.hidden_size, c.num_experts, c.model_type
    ex = dict(routed=True, per_expert=E)
    if mt in ("mixtral", "minimax_m2"):  # checkpoint names: block_sparse_moe.experts.{e}.w1/w2/w3
        p = "block_sparse_moe"
        inter = c.intermediate_size
        bias = ([Tensor(f"{p}.e_score_correction_bias", (E,), "router", buffer=True)]
                if mt == "minimax_m2" else [])  # MiniMax's load-balancing bias: not trained
        return (_linear(f"{p}.gate", E, H, "router") + bias
                + _linear(f"{p}.experts.{{e}}.w1", inter, H, "experts", **ex)
                + _linear(f"{p}.experts.{{e}}.w2", H, inter, "experts", **ex)
                + _linear(f"{p}.experts.{{e}}.w3", inter, H, "experts", **ex))
    if mt == "gpt_oss":  # all experts in one tensor each, with biases (stored as in, out)
        inter = c.intermediate_size
        fz = dict(routed=True, fused=E)
        return (_linear("mlp.router", E, H, "router", True)
                + [Tensor("mlp.experts.gate_up_proj", (E, H, 2 * inter), "experts", True, **fz),
                   Tensor("mlp.experts.gate_up_proj_bias", (E, 2 * inter), "experts", **fz),
                   Tensor("mlp.experts.down_proj", (E, inter, H), "experts", True, **fz),
                   Tensor("mlp.experts.down_proj_bias", (E, H), "experts", **fz)])
    if mt == "llama4_text":  # experts fused, stored (E, in, out); a shared expert in every MoE layer
        inter = c.intermediate_size
        fz = dict(routed=True, fused=E)
        return (_linear("feed_forward.router", E, H, "router")
                + [Tensor("feed_forward.experts.gate_up_proj", (E, H, 2 * inter), "experts",
                          True, **fz),
                   Tensor("feed_forward.experts.down_proj", (E, inter, H), "experts", True, **fz)]
                + _swiglu("feed_forward.shared_expert", H, inter, "shared_experts"))
    inter = c.moe_intermediate_size
    t = _linear("mlp.gate", E, H, "router")
    if mt in ("deepseek_v3", "glm4_moe", "glm4_moe_lite", "deepseek_v32", "glm_moe_dsa",
              "kimi_linear"):
        # the load-balancing bias: stored, not trained by SGD
        t.append(Tensor("mlp.gate.e_score_correction_bias", (E,), "router", buffer=True))
    t += _swiglu("mlp.experts.{e}", H, inter, "experts", **ex)
    shared = c.get("n_shared_experts", 0) if c.family == "deepseek" or mt == "glm4_moe" else 0
    if mt in ("glm4_moe", "glm4_moe_lite", "mistral4", "deepseek_v32", "glm_moe_dsa",
              "kimi_linear"):
        # built even when n_shared_experts is 0 (then it holds nothing)
        t += _swiglu("mlp.shared_experts", H, inter * shared, "shared_experts")
    elif shared:
        t += _swiglu("mlp.shared_experts", H, inter * shared, "shared_experts")
    if mt in ("qwen2_moe", "qwen3_next", "qwen3_5_moe_text", "qwen4_exp_text"):
        # one shared expert, sigmoid-gated
        t += (_swiglu("mlp.shared_expert", H, c.shared_expert_intermediate_size,
                      "shared_experts")
              + _linear("mlp.shared_expert_gate", 1, H, "shared_experts"))
    return t


def _layer_norms(c):
    H, mt = c.hidden_size, c.model_type
    if c.family == "phi":  # attention and MLP run in parallel after one LayerNorm
        return _norm("input_layernorm", H, True)
    if mt == "gpt2":  # LayerNorms with biases before attention (ln_1) and MLP (ln_2)
        return _norm("ln_1", H, True) + _norm("ln_2", H, True)
    if mt == "gpt_neox":
        return _norm("input_layernorm", H, True) + _norm("post_attention_layernorm", H, True)
    if mt in ("olmo2", "olmo3"):  # OLMo-2/3 norm each sublayer's output, not its input
        return _norm("post_attention_layernorm", H) + _norm("post_feedforward_layernorm", H)
    t = _norm("input_layernorm", H) + _norm("post_attention_layernorm", H)
    if mt in ("gemma2", "gemma3_text"):  # Gemma-2/3 also norm before and after the MLP
        t += _norm("pre_feedforward_layernorm", H) + _norm("post_feedforward_layernorm", H)
    return t


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


def mamba_dims(c):
    """:class:`MambaDims` of a model with Mamba-2 layers: Nemotron-H's fields
    (mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size, conv_kernel) or Granite
    4.0's (mamba_n_heads, mamba_d_head, mamba_n_groups, mamba_d_state, mamba_d_conv): the
    same module, the same tensors."""
    if c.model_type == "granitemoehybrid":
        return MambaDims(c.mamba_n_heads, c.mamba_d_head, c.mamba_n_groups, c.mamba_d_state,
                         c.mamba_d_conv, bool(c.get("mamba_conv_bias", True)),
                         bool(c.get("mamba_proj_bias")))
    return MambaDims(c.mamba_num_heads, c.mamba_head_dim, c.n_groups, c.ssm_state_size,
                     c.conv_kernel, bool(c.get("use_conv_bias", True)), bool(c.get("use_bias")))


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


def kind_tensors(cfg, kind):
    """The tensors of one layer of ``kind`` (a :class:`~llmcourse.layers.LayerKind`):
    its token mixer (attention of any kind, or Qwen3-Next's linear attention), its MLP
    (dense or routed experts) and its norms."""
    if cfg.model_type == "nemotron_h":
        return tuple(_nemotron_block(cfg, kind))
    if cfg.model_type == "granitemoehybrid":
        return tuple(_granite_hybrid_layer(cfg, kind))
    if cfg.model_type == "lfm2_moe":
        return tuple(_lfm2_moe_layer(cfg, kind))
    if cfg.model_type == "gemma4_text":
        return tuple(_gemma4_layer(cfg, kind))
    if cfg.model_type == "deepseek_v4":
        return tuple(_deepseek_v4_layer(cfg, kind))
    if cfg.model_type == "longcat_flash":
        return tuple(_longcat_sublayer(cfg, kind))
    if cfg.model_type == "qwen4_exp_text":
        return tuple(_qwen4_layer(cfg, kind))
    mixer = _MIXERS.get(kind.attention)
    if mixer is None:
        raise ConfigError(f"layer_types: {kind.attention} layers have no tensor layout "
                          f"for model_type {cfg.model_type!r}")
    mlp = {"dense": _dense_mlp, "moe": _moe}.get(kind.mlp)
    if mlp is None:
        raise ConfigError(f"layer_types: {kind.mlp} MLP layers have no tensor layout for "
                          f"model_type {cfg.model_type!r}")
    indexer = _indexer(cfg) if kind.indexer else []
    return tuple(mixer(cfg) + indexer + mlp(cfg) + _layer_norms(cfg))


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
    return {"gpt2": "h.{i}.", "gpt_neox": "gpt_neox.layers.{i}.",
            "nemotron_h": "backbone.layers.{i}.",
            "longcat_flash": "model.layers.{b}."}.get(cfg.model_type, "model.layers.{i}.")


# families whose head transformers 5.23 never ties, whatever tie_word_embeddings says
# (their *ForCausalLM has _tied_weights_keys = {})
_NEVER_TIED = ("nemotron_h", "kimi_linear")


def global_tensors(cfg):
    """The tensors outside the layers: embedding, final norm, lm_head (full names).

    The first is the token embedding (a tied lm_head shares its storage).
    """
    H, V = cfg.hidden_size, cfg.vocab_size
    tied = cfg.tie_word_embeddings and cfg.model_type not in _NEVER_TIED
    if cfg.model_type == "gpt2":  # GPT-2's checkpoint names have no prefix
        # the learned position embedding is a weight (n_positions x d), not a cache
        return [Tensor("wte.weight", (V, H), "embedding"),
                Tensor("wpe.weight", (cfg.max_position_embeddings, H), "embedding"),
                *_norm("ln_f", H, True),
                Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied)]
    if cfg.model_type == "gpt_neox":  # Pythia's checkpoint calls the lm_head embed_out
        return [Tensor("gpt_neox.embed_in.weight", (V, H), "embedding"),
                *_norm("gpt_neox.final_layer_norm", H, True),
                Tensor("embed_out.weight", (V, H), "lm_head", matmul=True, tied=tied)]
    if cfg.model_type == "nemotron_h":  # the checkpoint's backbone (transformers: model.)
        return [Tensor("backbone.embeddings.weight", (V, H), "embedding"),
                *_norm("backbone.norm_f", H),
                Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied)]
    t = [Tensor("model.embed_tokens.weight", (V, H), "embedding")]
    hpl = cfg.get("hidden_size_per_layer_input") if cfg.model_type == "gemma4_text" else 0
    if hpl:  # Gemma 4's per-layer embeddings: a second table, hpl values per layer per token
        L = cfg.num_hidden_layers
        t += [Tensor("model.embed_tokens_per_layer.weight",
                     (cfg.vocab_size_per_layer_input, L * hpl), "embedding"),
              *_linear("model.per_layer_model_projection", L * hpl, H, "mlp"),
              *_norm("model.per_layer_projection_norm", hpl)]
    if cfg.model_type == "deepseek_v4":  # the head first collapses the hc_mult streams
        m = cfg.hc_mult
        t += [*_norm("model.norm", H), Tensor("model.hc_head.hc_fn", (m, m * H), "norms"),
              Tensor("model.hc_head.hc_base", (m,), "norms"),
              Tensor("model.hc_head.hc_scale", (1,), "norms"),
              Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied)]
        return t
    if cfg.model_type == "qwen4_exp_text":  # the streams' final mix in place of model.norm
        t += _qwen4_hyper_connection("model.hyper_connection_mixer", H, cfg.hc_count,
                                     cfg.hc_lowrank, inject=False)
        t.append(Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied))
        return t
    if cfg.model_type == "lfm2_moe":  # LFM2's final norm is called embedding_norm
        return t + [*_norm("model.embedding_norm", H),
                    Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied)]
    if cfg.family == "phi":
        t += _norm("model.final_layernorm", H, True)
        t += [Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied),
              Tensor("lm_head.bias", (V,), "lm_head")]
    else:
        t += _norm("model.norm", H)
        t.append(Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied))
    return t


def mtp_tensors(cfg):
    """``[(prefix, tensors), ...]``: the multi-token-prediction module a checkpoint ships
    beside the model (GLM-4.5's ``num_nextn_predict_layers``, Qwen3-Next's ``mtp.*``).
    transformers does not build it, so the counts leave it out; ``weight_shapes`` lists
    it with the note ``mtp, not built by transformers``.
    """
    H, V, mt = cfg.hidden_size, cfg.vocab_size, cfg.model_type
    if mt in ("glm4_moe", "glm4_moe_lite", "deepseek_v32", "glm_moe_dsa"):
        # like DeepSeek-V3's: a whole MoE layer (with its indexer under sparse attention)
        # plus its own embedding and head
        out = []
        block = _attention(cfg) + (_indexer(cfg) if mt in ("deepseek_v32", "glm_moe_dsa")
                                   else []) + _moe(cfg) + _layer_norms(cfg)
        for j in range(cfg.get("num_nextn_predict_layers", 0)):
            extra = [Tensor("embed_tokens.weight", (V, H), "embedding"),
                     *_norm("enorm", H), *_norm("hnorm", H),
                     *_linear("eh_proj", H, 2 * H, "mlp"),
                     *_norm("shared_head.norm", H),
                     Tensor("shared_head.head.weight", (V, H), "lm_head", matmul=True)]
            out.append((f"model.layers.{cfg.num_hidden_layers + j}.", tuple(block + extra)))
        return out
    if mt in ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"):
        # one full-attention layer (MoE or dense, as the model); shares the embedding and head
        head = [*_linear("fc", H, 2 * H, "mlp"), *_norm("pre_fc_norm_embedding", H),
                *_norm("pre_fc_norm_hidden", H), *_norm("norm", H)]
        block = (_attention(cfg) + (_moe(cfg) if cfg.is_moe else _dense_mlp(cfg))
                 + _layer_norms(cfg))
        n = cfg.get("num_nextn_predict_layers", cfg.get("mtp_num_hidden_layers", 1))  # 1 shipped
        return [("mtp.", tuple(head))] + [(f"mtp.layers.{j}.", tuple(block)) for j in range(n)]
    return []
