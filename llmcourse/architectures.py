"""Tensor layouts: which weights a model has, with their checkpoint names and shapes.

This module is the single source of truth for architecture facts. Everything
that counts (parameters, bytes, FLOPs) reads the :class:`Tensor` lists built
here. Shapes are as stored: a ``Linear`` weight is ``(out_features, in_features)``.

Layers with the same tensors are grouped, so counting a 61-layer model touches
two groups, not 45,000 tensors; :func:`llmcourse.weight_shapes` expands them.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Tensor", "layer_groups", "global_tensors", "COMPONENTS"]

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

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


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
    if c.family == "phi":
        t = (_linear("self_attn.q_proj", nh * hd, H, "attention", True)
             + _linear("self_attn.k_proj", kv * hd, H, "attention", True)
             + _linear("self_attn.v_proj", kv * hd, H, "attention", True)
             + _linear("self_attn.dense", H, nh * hd, "attention", True))
        if c.get("qk_layernorm"):
            t += _norm("self_attn.q_layernorm", hd, True) + _norm("self_attn.k_layernorm", hd, True)
        return t
    qkv_bias = True if mt == "qwen2" else (False if mt in ("mistral", "mixtral")
                                           else c.get("attention_bias", False))
    o_bias = False if mt in ("qwen2", "mistral", "mixtral") else c.get("attention_bias", False)
    t = (_linear("self_attn.q_proj", nh * hd, H, "attention", qkv_bias)
         + _linear("self_attn.k_proj", kv * hd, H, "attention", qkv_bias)
         + _linear("self_attn.v_proj", kv * hd, H, "attention", qkv_bias)
         + _linear("self_attn.o_proj", H, nh * hd, "attention", o_bias))
    if mt in ("qwen3", "qwen3_moe"):  # QK-norm: an RMSNorm over each head's q and k
        t += _norm("self_attn.q_norm", hd) + _norm("self_attn.k_norm", hd)
    if mt == "gpt_oss":  # one learned "attention sink" logit per head
        t.append(Tensor("self_attn.sinks", (nh,), "attention"))
    return t


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
    H, inter = c.hidden_size, c.intermediate_size
    if c.family == "phi":  # a plain two-matrix GELU MLP with biases
        return (_linear("mlp.fc1", inter, H, "mlp", True)
                + _linear("mlp.fc2", H, inter, "mlp", True))
    return _swiglu("mlp", H, inter, "mlp", c.get("mlp_bias", False))


def _moe(c):
    H, E, mt = c.hidden_size, c.num_experts, c.model_type
    ex = dict(routed=True, per_expert=E)
    if mt == "mixtral":  # checkpoint names: block_sparse_moe.experts.{e}.w1/w2/w3
        p = "block_sparse_moe"
        inter = c.intermediate_size
        return (_linear(f"{p}.gate", E, H, "router")
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
    inter = c.moe_intermediate_size
    t = _linear("mlp.gate", E, H, "router")
    if mt == "deepseek_v3":  # the load-balancing bias: in the checkpoint, not trained by SGD
        t.append(Tensor("mlp.gate.e_score_correction_bias", (E,), "router", buffer=True))
    t += _swiglu("mlp.experts.{e}", H, inter, "experts", **ex)
    shared = c.get("n_shared_experts", 0) if c.family == "deepseek" else 0
    if shared:
        t += _swiglu("mlp.shared_experts", H, inter * shared, "shared_experts")
    return t


def _is_moe_layer(c, i):
    if not c.is_moe:
        return False
    if c.family == "deepseek":
        return i >= c.get("first_k_dense_replace", 0) and i % c.get("moe_layer_freq", 1) == 0
    if c.model_type == "qwen3_moe":
        return i not in (c.get("mlp_only_layers") or []) and (i + 1) % c.get("decoder_sparse_step", 1) == 0
    return True


def _layer_norms(c):
    H = c.hidden_size
    if c.family == "phi":  # attention and MLP run in parallel after one LayerNorm
        return _norm("input_layernorm", H, True)
    t = _norm("input_layernorm", H) + _norm("post_attention_layernorm", H)
    if c.model_type == "gemma2":  # Gemma-2 also norms before and after the MLP
        t += _norm("pre_feedforward_layernorm", H) + _norm("post_feedforward_layernorm", H)
    return t


def layer_groups(cfg):
    """``[(layer_indices, tensors), ...]``: layers that share one tensor list.

    Cached on the (immutable) config.
    """
    cached = cfg._cache.get("layer_groups")
    if cached is not None:
        return cached
    attn, norms = _attention(cfg), _layer_norms(cfg)
    dense_idx, moe_idx = [], []
    for i in range(cfg.num_hidden_layers):
        (moe_idx if _is_moe_layer(cfg, i) else dense_idx).append(i)
    groups = []
    if dense_idx:
        groups.append((tuple(dense_idx), tuple(attn + _dense_mlp(cfg) + norms)))
    if moe_idx:
        groups.append((tuple(moe_idx), tuple(attn + _moe(cfg) + norms)))
    groups.sort(key=lambda g: g[0][0])
    cfg._cache["layer_groups"] = groups
    return groups


def global_tensors(cfg):
    """The tensors outside the layers: embedding, final norm, lm_head (full names)."""
    H, V = cfg.hidden_size, cfg.vocab_size
    tied = cfg.tie_word_embeddings
    t = [Tensor("model.embed_tokens.weight", (V, H), "embedding")]
    if cfg.family == "phi":
        t += _norm("model.final_layernorm", H, True)
        t += [Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied),
              Tensor("lm_head.bias", (V,), "lm_head")]
    else:
        t += _norm("model.norm", H)
        t.append(Tensor("lm_head.weight", (V, H), "lm_head", matmul=True, tied=tied))
    return t
