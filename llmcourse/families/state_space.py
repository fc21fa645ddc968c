"""State-space and recurrent models, and their hybrids with attention.

Mamba and Falcon-Mamba (Mamba-1's selective scan), Mamba-2, Bamba and Falcon-H1 (Mamba-2
beside attention), Jamba (Mamba-1, attention and experts), Zamba and Zamba2 (Mamba with a
shared attention block), LFM2 and LFM3 (short convolutions), OLMo-Hybrid (gated DeltaNet),
RecurrentGemma (Griffin's RG-LRU), RWKV-4, xLSTM (mLSTM), Bailing-Hybrid and MiniMax-01
(linear attention beside softmax attention). Each entry is a
:class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a family"); the layer builders
of the new token mixers are registered here (``register_block``), with each mixer's fixed
state per sequence and its work per token (:data:`MIXERS`, read through the
``Layout.layer_state`` and ``Layout.extra_flops`` named ``state_space_mixers``). Standard
library only.
"""

from __future__ import annotations

from math import ceil

from .. import family_rules as rules
from ..architectures import (GLOBAL_EXTRAS, Layout, Tensor, _experts_block_sparse, _linear,
                             _norm, mamba_dims, register_block, register_extra_flops,
                             register_layer_state)
from ..layers import Axis
from ..limits import MAX_LIST, MAX_SIZE, _fail, _is_int
from .base import _COMMON, Family

__all__ = []


#: the token mixers defined here: ``{layer kind: (values, flops)}``, each ``f(cfg)``: the
#: values one layer keeps per sequence, whatever the context, and its FLOPs per token beyond
#: its weights' matmuls (and beyond its attention's over the keys, where it has one)
MIXERS = {}


@register_layer_state("state_space_mixers")
def _mixer_state(c, kind):
    """A layer's fixed state, for counts.linear_state_bytes (0 for the kinds counts.py knows:
    Mamba-2, linear attention, LFM2's convolution, plain attention)."""
    mixer = MIXERS.get(kind.attention)
    return mixer[0](c) if mixer else 0


@register_extra_flops("state_space_mixers")
def _mixer_flops(c):
    """The mixers' fixed work per token, all layers, for counts.flops_per_token."""
    return sum(n * MIXERS[k.attention][1](c) for k, n in c.layer_schedule.counts().items()
               if k.attention in MIXERS)


# --- Mamba-1's selective scan ------------------------------------------------------------
# A Mamba-1 mixer keeps, per sequence, a d_inner x d_state state (one d_state vector per
# channel) and its convolution's last d_conv inputs of d_inner channels. Its sizes are read
# into the resolved fields below by each family's rules (Mamba: expand, state_size,
# conv_kernel, time_step_rank; Jamba and Zamba: mamba_expand, mamba_d_state, ...).

def _mamba1_dims(r, rank_field, inner, state, kernel, conv_bias, proj_bias):
    """Check a Mamba-1 mixer's sizes and keep them in the resolved config under one set of
    names, whatever the family calls them (``rank_field``: its step-size rank, "auto" for
    ceil(hidden_size / 16))."""
    rank = r[rank_field]
    if rank == "auto":
        rank = ceil(r["hidden_size"] / 16)
    elif not _is_int(rank) or not 0 < rank <= MAX_SIZE:
        _fail(rank_field, "must be a positive whole number or \"auto\"", rank)
    r.update(mamba1_d_inner=inner, mamba1_d_state=state, mamba1_d_conv=kernel,
             mamba1_dt_rank=rank, mamba1_conv_bias=bool(conv_bias),
             mamba1_proj_bias=bool(proj_bias))


def _mamba1(c, prefix):
    """Mamba-1's mixer: in_proj to x and the gate z (2 x d_inner), a depthwise causal
    convolution over x, x_proj to the step size's low-rank input (dt_rank) and to B and C
    (d_state each), dt_proj up to one step size per channel (with a bias), A (as A_log,
    d_inner x d_state) and D, out_proj."""
    H, d, N, k, R = (c.hidden_size, c.mamba1_d_inner, c.mamba1_d_state, c.mamba1_d_conv,
                     c.mamba1_dt_rank)
    t = (_linear(prefix + "in_proj", 2 * d, H, "attention", c.mamba1_proj_bias)
         + [Tensor(prefix + "conv1d.weight", (d, 1, k), "attention", matmul=True)])
    if c.mamba1_conv_bias:
        t.append(Tensor(prefix + "conv1d.bias", (d,), "attention"))
    return (t + _linear(prefix + "x_proj", R + 2 * N, d, "attention")
            + _linear(prefix + "dt_proj", d, R, "attention", bias=True)
            + [Tensor(prefix + "A_log", (d, N), "attention"),
               Tensor(prefix + "D", (d,), "attention")]
            + _linear(prefix + "out_proj", H, d, "attention", c.mamba1_proj_bias))


def _mamba1_state(c):
    """A d_state vector per channel, and the convolution's last d_conv inputs."""
    return c.mamba1_d_inner * (c.mamba1_d_state + c.mamba1_d_conv)


def _mamba1_flops(c):
    """As Mamba-2's: the decayed rank-one update of the state (a multiply-add per state
    value) and its read-out with C (another), 2 FLOPs each: 4 x d_inner x d_state."""
    return 4 * c.mamba1_d_inner * c.mamba1_d_state


MIXERS["mamba1"] = (_mamba1_state, _mamba1_flops)


@register_block("norm_and_ssm_mixer")
def _norm_and_mixer(c, kind):
    """A Mamba or Mamba-2 block: an RMSNorm, then the mixer (the residual around it)."""
    t = _norm("norm", c.hidden_size)
    if kind.attention == "mamba1":
        return t + _mamba1(c, "mixer.")
    return t + _mamba2_mixer(c, "mixer.", mamba_dims(c).proj_bias)


def _attention_free(r, raw):
    """No attention anywhere: one notional head (its width the hidden size) stands for the
    head count a config of an attention-free model does not have."""
    if r.get("num_attention_heads") is None:
        r["num_attention_heads"] = 1


def mamba_derive(r, raw):
    """Mamba and Falcon-Mamba: intermediate_size is the config's, else expand x
    hidden_size (as MambaConfig sets it: a given value wins)."""
    _attention_free(r, raw)
    if r.get("intermediate_size") is None and _is_int(r.get("hidden_size")) and _is_int(
            r.get("expand")):
        r["intermediate_size"] = r["expand"] * r["hidden_size"]


def mamba_check(r, head_dim):
    _mamba1_dims(r, "time_step_rank", r["intermediate_size"], r["state_size"], r["conv_kernel"],
                 r["use_conv_bias"], r["use_bias"])


def mamba2_derive(r, raw):
    """Mamba-2 has no MLP: intermediate_size, which no Mamba2Config field holds, is read as
    the mixer's width, expand x hidden_size."""
    _attention_free(r, raw)
    if _is_int(r.get("hidden_size")) and _is_int(r.get("expand")):
        r["intermediate_size"] = r["expand"] * r["hidden_size"]


def mamba2_check(r, head_dim):
    """Mamba-2: its heads times their width are expand x hidden_size (Mamba2Config's rule)."""
    inner = r["expand"] * r["hidden_size"]
    if r["num_heads"] * r["head_dim"] != inner:
        _fail("num_heads", f"times head_dim={r['head_dim']:,} must equal expand x hidden_size "
              f"= {inner:,} (the Mamba-2 width)", r["num_heads"])


_MAMBA_LAYOUT = Layout(block="norm_and_ssm_mixer", layer_prefix="backbone.layers.{i}.",
                       embedding="backbone.embeddings", final_norm="backbone.norm_f",
                       layer_state="state_space_mixers", extra_flops="state_space_mixers")
# MambaConfig's and FalconMambaConfig's defaults
_MAMBA1 = dict(vocab_size=50280, hidden_size=768, state_size=16, num_hidden_layers=32,
               pad_token_id=0, expand=2, conv_kernel=4, use_bias=False, use_conv_bias=True,
               time_step_rank="auto", tie_word_embeddings=True)

ENTRIES = {
    # Mamba (state-spaces): every block an RMSNorm and a Mamba-1 mixer; no attention, no MLP
    "mamba": Family(
        layout=_MAMBA_LAYOUT,
        layers=lambda r: dict(attention=Axis.constant("mamba1", field="num_hidden_layers"),
                              mlp=Axis.constant("none", field="num_hidden_layers")),
        attention_kinds=("mamba1",),
        positive=("state_size", "conv_kernel", "expand"),
        derive=(mamba_derive,),
        check=(mamba_check,),
        defaults=dict(_MAMBA1)),
    # Falcon-Mamba (TII): Mamba-1 with weightless RMSNorms on B, C and the step size
    "falcon_mamba": Family(
        layout=_MAMBA_LAYOUT,
        layers=lambda r: dict(attention=Axis.constant("mamba1", field="num_hidden_layers"),
                              mlp=Axis.constant("none", field="num_hidden_layers")),
        attention_kinds=("mamba1",),
        positive=("state_size", "conv_kernel", "expand"),
        derive=(mamba_derive,),
        check=(mamba_check,),
        defaults=dict(_MAMBA1)),
    # Mamba-2 (state-spaces; Mamba-Codestral): every block an RMSNorm and a Mamba-2 mixer
    "mamba2": Family(
        layout=_MAMBA_LAYOUT._replace(
            mamba_fields=("num_heads", "head_dim", "n_groups", "state_size", "conv_kernel",
                          "use_conv_bias", "use_bias", "chunk_size")),
        layers=lambda r: dict(attention=Axis.constant("mamba", field="num_hidden_layers"),
                              mlp=Axis.constant("none", field="num_hidden_layers")),
        attention_kinds=("mamba",),
        positive=("num_heads", "state_size", "conv_kernel", "expand", "n_groups", "chunk_size"),
        derive=(mamba2_derive,),
        check=(mamba2_check,),
        defaults=dict(num_heads=128, head_dim=64, vocab_size=32768, hidden_size=4096,
                      state_size=128, num_hidden_layers=64, pad_token_id=1, expand=2,
                      conv_kernel=4, n_groups=8, use_bias=False, use_conv_bias=True,
                      time_step_rank="auto", chunk_size=256, tie_word_embeddings=False)),
}


# --- LFM2 and LFM3: gated short convolutions beside attention ------------------------------

def _short_conv(c, kernel):
    """A gated short convolution (LFM2, LFM3): in_proj to the gates B and C and the input x
    (3 x hidden), a depthwise causal convolution of ``kernel`` taps over B x x, C gating its
    output, out_proj; biases by conv_bias."""
    H, bias = c.hidden_size, bool(c.get("conv_bias"))
    return ([Tensor("conv.conv.weight", (H, 1, kernel), "attention", matmul=True)]
            + ([Tensor("conv.conv.bias", (H,), "attention")] if bias else [])
            + _linear("conv.in_proj", 3 * H, H, "attention", bias)
            + _linear("conv.out_proj", H, H, "attention", bias))


def _swiglu_w(c, width):
    """LFM's SwiGLU MLP: w1 (gate), w3 (up), w2 (down)."""
    H = c.hidden_size
    return (_linear("feed_forward.w1", width, H, "mlp")
            + _linear("feed_forward.w3", width, H, "mlp")
            + _linear("feed_forward.w2", H, width, "mlp"))


@register_block("short_conv_or_attention_dense_mlp")
def _lfm2_layer(c, kind):
    """An LFM2 layer: operator_norm, a gated short convolution of conv_L_cache taps or GQA
    attention (q, k, v, out_proj without biases, an RMSNorm over each head's q and k);
    ffn_norm, then a SwiGLU MLP of the width LFM2 derives from intermediate_size."""
    H = c.hidden_size
    t = _norm("operator_norm", H) + _norm("ffn_norm", H)
    if kind.attention == "conv":
        t += _short_conv(c, c.conv_L_cache)
    else:
        nh, kv, hd = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        t += (_linear("self_attn.q_proj", nh * hd, H, "attention")
              + _linear("self_attn.k_proj", kv * hd, H, "attention")
              + _linear("self_attn.v_proj", kv * hd, H, "attention")
              + _linear("self_attn.out_proj", H, nh * hd, "attention")
              + _norm("self_attn.q_layernorm", hd) + _norm("self_attn.k_layernorm", hd))
    return t + _swiglu_w(c, c.lfm2_mlp_width)


def lfm2_prepare(r, raw):
    """LFM2's own names win, as Lfm2Config reads them: tie_embedding ties the head,
    block_ff_dim is intermediate_size."""
    if "tie_embedding" in raw:
        r["tie_word_embeddings"] = raw["tie_embedding"]
    if "block_ff_dim" in raw:
        r["intermediate_size"] = raw["block_ff_dim"]


def lfm2_layers(r):
    """LFM2: layer_types (conv or full_attention), else full attention at full_attn_idxs,
    else at every layer (Lfm2Config's default)."""
    if r.get("layer_types") is not None:
        return {}
    L, idxs = r["num_hidden_layers"], r.get("full_attn_idxs")
    if idxs is None:
        return dict(attention=Axis.constant("full_attention", field="full_attn_idxs"))
    if not isinstance(idxs, list) or len(idxs) > MAX_SIZE or not all(_is_int(i) for i in idxs):
        _fail("full_attn_idxs", "must list the indices of the attention layers", idxs)
    return dict(attention=Axis.constant("conv", field="full_attn_idxs").override(
        [i for i in idxs if 0 <= i < L], "full_attention"))


def booleans(*fields):
    """A check that each of ``fields``, when given, is true or false (as transformers' typed
    config classes require)."""
    def check(r, head_dim):
        for f in fields:
            v = r.get(f)
            if v is not None and not isinstance(v, bool):
                _fail(f, "must be true or false", v)
    return check


def lfm2_check(r, head_dim):
    """The MLP's width, as Lfm2MLP derives it: with block_auto_adjust_ff_dim, two thirds of
    intermediate_size, times block_ffn_dim_multiplier rounded up to block_multiple_of (no
    multiplier: no rounding)."""
    width = r["intermediate_size"]
    if r.get("block_auto_adjust_ff_dim"):
        width = int(2 * width / 3)
        m = r.get("block_ffn_dim_multiplier")
        if m is not None:
            if not isinstance(m, (int, float)) or isinstance(m, bool) or not m > 0:
                _fail("block_ffn_dim_multiplier", "must be a positive number or null", m)
            multiple = r["block_multiple_of"]
            width = int(m * width)
            width = multiple * ((width + multiple - 1) // multiple)
        if not 0 < width <= MAX_SIZE:
            _fail("intermediate_size", "leaves the MLP no width after LFM2's adjustment "
                  "(two thirds of it, times block_ffn_dim_multiplier)", r["intermediate_size"])
    r["lfm2_mlp_width"] = width


@register_block("short_conv_or_gated_attention_sandwich")
def _lfm3_layer(c, kind):
    """An LFM3 layer: operator_norm, a gated short convolution of conv_L_cache taps or
    attention (sliding or full: q, k, v, o with attention_bias, an RMSNorm over each head's q
    and k, and with use_attention_gate a sigmoid gate per head, stored as gate_proj); ffn_norm,
    a SwiGLU MLP; with use_sandwich_norm a norm after the mixer and after the MLP too."""
    H = c.hidden_size
    t = _norm("operator_norm", H) + _norm("ffn_norm", H)
    if c.get("use_sandwich_norm"):
        t += _norm("post_operator_norm", H) + _norm("post_ffn_norm", H)
    if kind.attention == "conv":
        t += _short_conv(c, c.conv_L_cache)
    else:
        nh, kv, hd, bias = (c.num_attention_heads, c.num_key_value_heads, c.head_dim,
                            bool(c.get("attention_bias")))
        t += (_linear("self_attn.q_proj", nh * hd, H, "attention", bias)
              + _linear("self_attn.k_proj", kv * hd, H, "attention", bias)
              + _linear("self_attn.v_proj", kv * hd, H, "attention", bias)
              + _linear("self_attn.o_proj", H, nh * hd, "attention", bias)
              + _norm("self_attn.q_norm", hd) + _norm("self_attn.k_norm", hd))
        if c.get("use_attention_gate"):   # (transformers renames it g_proj on load)
            t += _linear("self_attn.gate_proj", nh, H, "attention")
    return t + _swiglu_w(c, c.intermediate_size)


def lfm3_layers(r):
    """LFM3: layer_types, else a short convolution in three of every four layers, full
    attention at layer 4k + 2 and sliding attention at 4k (k > 0)."""
    if r.get("layer_types") is not None:
        return {}
    return dict(attention=Axis.cycle(
        ("sliding_attention", 1), ("conv", 1), ("full_attention", 1), ("conv", 1),
        prefix=[("conv", 2), ("full_attention", 1), ("conv", 1)], field="layer_types"))


ENTRIES.update({
    # LFM2 (LiquidAI): gated short-convolution layers and a few GQA layers with QK-norm, each
    # followed by a SwiGLU MLP. Defaults: Lfm2Config
    "lfm2": Family(
        layout=Layout(block="short_conv_or_attention_dense_mlp", final_norm="model.embedding_norm"),
        layers=lfm2_layers,
        attention_kinds=("conv", "full_attention"),
        positive=("conv_L_cache", "block_multiple_of"),
        prepare=(lfm2_prepare,),
        check=(booleans("block_auto_adjust_ff_dim"), lfm2_check),
        depth_lists=dict(full_attn_idxs="clip"),
        defaults=dict(_COMMON, vocab_size=65536, hidden_size=2560, intermediate_size=12288,
                      num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                      max_position_embeddings=128000, pad_token_id=0, tie_word_embeddings=True,
                      conv_bias=False, conv_L_cache=3, block_multiple_of=256,
                      block_ffn_dim_multiplier=1.0, block_auto_adjust_ff_dim=True,
                      full_attn_idxs=None)),
    # LFM3 (LiquidAI): short convolutions of 7 taps, sliding and full attention layers with
    # QK-norm and a sigmoid gate per head, sandwich norms. Defaults: Lfm3Config
    "lfm3": Family(
        layout=Layout(block="short_conv_or_gated_attention_sandwich",
                      final_norm="model.embedding_norm"),
        layers=lfm3_layers,
        attention_kinds=("conv", "sliding_attention", "full_attention"),
        positive=("conv_L_cache",),
        check=(booleans("use_sandwich_norm", "use_attention_gate"),),
        defaults=dict(_COMMON, vocab_size=128000, hidden_size=2048, intermediate_size=7680,
                      num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=4,
                      max_position_embeddings=128000, pad_token_id=124893,
                      tie_word_embeddings=True, conv_bias=False, conv_L_cache=7, head_dim=128,
                      sliding_window=256, use_sandwich_norm=True, use_attention_gate=True)),
})


# --- Bamba, Falcon-H1, Jamba: Mamba layers and attention, each followed by an MLP -----------

def _mamba2_mixer(c, prefix, out_bias, norm=True):
    """A Mamba-2 mixer (architectures._mamba2's tensors, the sizes mamba_dims reads through
    the family's ``Layout.mamba_fields``), its out_proj bias by ``out_bias`` (Falcon-H1:
    projectors_bias, not the in_proj's), its gated RMSNorm only with ``norm``."""
    m, H = mamba_dims(c), c.hidden_size
    nh, inner = m.heads, m.heads * m.head_dim
    conv_dim = inner + 2 * m.groups * m.state
    t = _linear(prefix + "in_proj", inner + conv_dim + nh, H, "attention", m.proj_bias)
    t.append(Tensor(prefix + "conv1d.weight", (conv_dim, 1, m.kernel), "attention", matmul=True))
    if m.conv_bias:
        t.append(Tensor(prefix + "conv1d.bias", (conv_dim,), "attention"))
    t += [Tensor(prefix + "dt_bias", (nh,), "attention"),
          Tensor(prefix + "A_log", (nh,), "attention"), Tensor(prefix + "D", (nh,), "attention")]
    if norm:
        t += _norm(prefix + "norm", inner)
    return t + _linear(prefix + "out_proj", H, inner, "attention", out_bias)


def _mamba2_state(c):
    """A Mamba-2 mixer's state per sequence, as counts.linear_state_bytes counts the mamba
    kind's: a head_dim x state matrix per head, the convolution's last inputs of x, B, C."""
    m = mamba_dims(c)
    return (m.heads * m.head_dim * m.state
            + (m.heads * m.head_dim + 2 * m.groups * m.state) * m.kernel)


def _mamba2_flops(c):
    m = mamba_dims(c)
    return 4 * m.heads * m.head_dim * m.state


# Falcon-H1's layers: attention (a KV cache, counted as full attention) beside a Mamba-2 mixer
MIXERS["parallel_attention_mamba"] = (_mamba2_state, _mamba2_flops)


def _gqa(c, prefix="self_attn."):
    """q, k, v and o projections, biases by attention_bias."""
    H, nh, kv, hd = c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim
    bias = bool(c.get("attention_bias"))
    return (_linear(prefix + "q_proj", nh * hd, H, "attention", bias)
            + _linear(prefix + "k_proj", kv * hd, H, "attention", bias)
            + _linear(prefix + "v_proj", kv * hd, H, "attention", bias)
            + _linear(prefix + "o_proj", H, nh * hd, "attention", bias))


def _gated_mlp(c, prefix, width, component="mlp", **kw):
    H, bias = c.hidden_size, bool(c.get("mlp_bias"))
    return (_linear(prefix + "gate_proj", width, H, component, bias, **kw)
            + _linear(prefix + "up_proj", width, H, component, bias, **kw)
            + _linear(prefix + "down_proj", H, width, component, bias, **kw))


@register_block("ssm_or_attention_then_mlp")
def _ssm_hybrid_layer(c, kind):
    """A Bamba, Falcon-H1 or Jamba layer: input_layernorm, a mixer under ``mamba.`` (Mamba-2
    for Bamba and Falcon-H1; Jamba's Mamba-1 with RMSNorms on the step size, B and C) and/or
    attention under ``self_attn.`` (Falcon-H1: both, side by side), pre_ff_layernorm, then a
    gated MLP (feed_forward) or Jamba's routed experts (a router, each expert's gate, up and
    down in the checkpoint: transformers fuses them on load)."""
    H = c.hidden_size
    t = _norm("input_layernorm", H) + _norm("pre_ff_layernorm", H)
    if kind.attention == "mamba1":
        t += _mamba1(c, "mamba.")
        t += (_norm("mamba.dt_layernorm", c.mamba1_dt_rank)
              + _norm("mamba.b_layernorm", c.mamba1_d_state)
              + _norm("mamba.c_layernorm", c.mamba1_d_state))
    elif kind.attention == "mamba":
        t += _mamba2_mixer(c, "mamba.", mamba_dims(c).proj_bias)
    if kind.attention == "parallel_attention_mamba":
        t += _mamba2_mixer(c, "mamba.", bool(c.get("projectors_bias")),
                           norm=bool(c.get("mamba_rms_norm")))
    if kind.attention in ("full_attention", "parallel_attention_mamba"):
        t += _gqa(c)
    if kind.mlp == "moe":
        E = c.num_experts
        return (t + _linear("feed_forward.router", E, H, "router")
                + _gated_mlp(c, "feed_forward.experts.{e}.", c.intermediate_size, "experts",
                             routed=True, per_expert=E))
    return t + _gated_mlp(c, "feed_forward.", c.intermediate_size)


def _no_layer_types(name, where):
    """A layer schedule that refuses a layer_types list (a property without a setter in the
    config class: transformers refuses it too) and reads the pattern from ``where``."""
    def layers(r):
        if r.get("layer_types") is not None:
            _fail("layer_types", f"{name} does not take a layer_types list (transformers "
                  f"refuses it); its layers follow {where}", r["layer_types"])
        return _SCHEDULES[name](r)
    return layers


def _bamba_layers(r):
    """Bamba: attention at attn_layer_indices, Mamba-2 elsewhere; a dense MLP in every layer."""
    idx = r.get("attn_layer_indices")
    if idx is not None and (not isinstance(idx, list) or not all(_is_int(i) for i in idx)):
        _fail("attn_layer_indices", "must list the indices of the attention layers", idx)
    L = r["num_hidden_layers"]
    return dict(attention=Axis.constant("mamba", field="attn_layer_indices").override(
        [i for i in (idx or ()) if 0 <= i < L], "full_attention"))


def _every(r, period, offset, value, otherwise):
    """``value`` at the layers i with i % period == offset (Jamba's attention and experts)."""
    p, o = r[period], r[offset]
    if o >= p:
        _fail(offset, f"must be less than {period}={p:,} (JambaConfig's rule)", o)
    return Axis.every(p, value, otherwise, phase=o, field=period)


def _jamba_layers(r):
    """Jamba: attention where i % attn_layer_period == attn_layer_offset, else Mamba-1;
    routed experts where i % expert_layer_period == expert_layer_offset (with more than one
    expert), else a dense MLP."""
    mlp = (_every(r, "expert_layer_period", "expert_layer_offset", "moe", "dense")
           if r["num_experts"] > 1 else Axis.constant("dense", field="num_experts"))
    return dict(attention=_every(r, "attn_layer_period", "attn_layer_offset", "full_attention",
                                 "mamba1"),
                mlp=mlp, rope=False)


_SCHEDULES = {
    "Bamba": _bamba_layers,
    "Jamba": _jamba_layers,
    "Falcon-H1": lambda r: dict(attention=Axis.constant("parallel_attention_mamba",
                                                        field="num_hidden_layers")),
}


def falcon_h1_mamba_head(r, head_dim):
    """Falcon-H1's Mamba-2 width is mamba_d_ssm (null: mamba_expand x hidden_size), in
    mamba_n_heads heads of mamba_d_head ("auto": the width / heads), as FalconH1Config
    checks it."""
    inner = r["mamba_d_ssm"] if r.get("mamba_d_ssm") is not None else \
        r["mamba_expand"] * r["hidden_size"]
    nh, dh = r["mamba_n_heads"], r["mamba_d_head"]
    if inner % nh:
        _fail("mamba_n_heads", f"must divide the Mamba-2 width {inner:,} (mamba_d_ssm, or "
              "mamba_expand x hidden_size)", nh)
    if dh == "auto":
        dh = inner // nh
    elif not _is_int(dh) or not 0 < dh <= MAX_SIZE:
        _fail("mamba_d_head", "must be a positive whole number or \"auto\"", dh)
    if dh * nh != inner:
        _fail("mamba_d_head", f"times mamba_n_heads={nh:,} must equal the Mamba-2 width "
              f"{inner:,} (mamba_d_ssm, or mamba_expand x hidden_size)", dh)
    r["mamba_d_head"] = dh


def no_attention_bias(r, head_dim):
    """Attention without biases, whatever attention_bias says (Jamba's and MiniMax's classes
    have no such field and build none)."""
    r["attention_bias"] = False


def jamba_check(r, head_dim):
    _mamba1_dims(r, "mamba_dt_rank", r["mamba_expand"] * r["hidden_size"], r["mamba_d_state"],
                 r["mamba_d_conv"], r["mamba_conv_bias"], r["mamba_proj_bias"])


# the common keys, less attention_bias (a class without the field builds no biases)
_NO_BIAS = {k: v for k, v in _COMMON.items() if k != "attention_bias"}
# Granite 4.0's names for a Mamba-2 mixer's sizes, which Bamba and Falcon-H1 share
_GRANITE_MAMBA = ("mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state",
                  "mamba_d_conv", "mamba_conv_bias", "mamba_proj_bias", "mamba_chunk_size")
_HYBRID = Layout(block="ssm_or_attention_then_mlp", final_norm="model.final_layernorm",
                 mamba_fields=_GRANITE_MAMBA, layer_state="state_space_mixers",
                 extra_flops="state_space_mixers")
_MAMBA2_POSITIVE = ("mamba_n_heads", "mamba_n_groups", "mamba_d_state", "mamba_d_conv",
                    "mamba_expand", "mamba_chunk_size")

ENTRIES.update({
    # Bamba (IBM): Mamba-2 layers and a few attention layers (attn_layer_indices), each
    # followed by a SwiGLU MLP. Defaults: BambaConfig
    "bamba": Family(
        layout=_HYBRID,
        layers=_no_layer_types("Bamba", "attn_layer_indices"),
        attention_kinds=(),
        positive=_MAMBA2_POSITIVE,
        check=(rules.granite_mamba_head, booleans("mamba_conv_bias", "mamba_proj_bias")),
        on_width=dict(mamba_d_head="auto"),
        depth_lists=dict(attn_layer_indices="clip"),
        defaults=dict(_COMMON, vocab_size=128000, hidden_size=4096, intermediate_size=14336,
                      num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                      max_position_embeddings=262144, pad_token_id=0, attn_layer_indices=None,
                      mamba_n_heads=128, mamba_d_head="auto", mamba_n_groups=1,
                      mamba_d_state=256, mamba_d_conv=4, mamba_expand=2, mamba_chunk_size=256,
                      mamba_conv_bias=True, mamba_proj_bias=False, mlp_bias=False)),
    # Falcon-H1 (TII): in every layer attention and a Mamba-2 mixer side by side, then a
    # SwiGLU MLP; muP multipliers (no weights). Defaults: FalconH1Config
    "falcon_h1": Family(
        layout=_HYBRID,
        layers=_no_layer_types("Falcon-H1", "attention beside Mamba-2 in every layer"),
        attention_kinds=(),
        positive=_MAMBA2_POSITIVE + ("mamba_d_ssm",),
        check=(falcon_h1_mamba_head, booleans("mamba_conv_bias", "mamba_proj_bias",
                                              "mamba_rms_norm", "projectors_bias")),
        on_width=dict(mamba_d_head="auto"),
        nullable=("mamba_d_ssm",),
        defaults=dict(_COMMON, vocab_size=128000, hidden_size=4096, intermediate_size=14336,
                      num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                      max_position_embeddings=8192, pad_token_id=0, mamba_d_ssm=1024,
                      mamba_n_heads=128, mamba_d_head="auto", mamba_n_groups=1,
                      mamba_d_state=256, mamba_d_conv=4, mamba_expand=2, mamba_chunk_size=256,
                      mamba_conv_bias=True, mamba_proj_bias=False, mamba_rms_norm=False,
                      projectors_bias=False, mlp_bias=False)),
    # Jamba (AI21): Mamba-1 layers (RMSNorms on the step size, B and C) and one attention
    # layer in attn_layer_period (no position code), routed experts every
    # expert_layer_period-th layer. Defaults: JambaConfig
    "jamba": Family(
        layout=_HYBRID,
        moe="num_experts",
        moe_when=lambda r: r.get("num_experts") != 1,
        layers=_no_layer_types("Jamba", "attn_layer_period and attn_layer_offset"),
        attention_kinds=(),
        attribute_map=dict(num_local_experts="num_experts"),
        positive=("attn_layer_period", "expert_layer_period", "mamba_d_state", "mamba_d_conv",
                  "mamba_expand"),
        non_negative=("attn_layer_offset", "expert_layer_offset"),
        check=(jamba_check, no_attention_bias),
        defaults=dict(_NO_BIAS, vocab_size=65536, hidden_size=4096, intermediate_size=14336,
                      num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                      max_position_embeddings=262144, pad_token_id=0, num_experts_per_tok=2,
                      num_experts=16, expert_layer_period=2, expert_layer_offset=1,
                      attn_layer_period=8, attn_layer_offset=4, mamba_d_state=16,
                      mamba_d_conv=4, mamba_expand=2, mamba_dt_rank="auto",
                      mamba_conv_bias=True, mamba_proj_bias=False)),
})


# --- OLMo-Hybrid: gated DeltaNet layers and OLMo-3 attention layers -------------------------

@register_block("deltanet_or_attention_olmo")
def _olmo_hybrid_layer(c, kind):
    """An OLMo-Hybrid layer. Linear attention: a norm before it and one before the MLP
    (stored attention_layer_norm and feedforward_layer_norm), a gated DeltaNet with q, k, v,
    a, b, g and o projections, q, k and v each through its own depthwise convolution (stored
    apart, stacked on load), A_log and dt_bias per value head, a gated RMSNorm of a value
    head's width. Attention: OLMo 3's (q, k, v, o with attention_bias, an RMSNorm over all of
    q and all of k), its norms after attention and after the MLP. Then a SwiGLU MLP."""
    H = c.hidden_size
    if kind.attention != "linear_attention":
        nh, kv, hd = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        return (_gqa(c) + _norm("self_attn.q_norm", nh * hd) + _norm("self_attn.k_norm", kv * hd)
                + _norm("post_attention_layernorm", H) + _norm("post_feedforward_layernorm", H)
                + _gated_mlp(c, "mlp.", c.intermediate_size))
    kh, vh = c.linear_num_key_heads, c.linear_num_value_heads
    kd, vd, k = c.linear_key_head_dim, c.linear_value_head_dim, c.linear_conv_kernel_dim
    a = "linear_attn."
    t = (_linear(a + "q_proj", kh * kd, H, "attention")
         + _linear(a + "k_proj", kh * kd, H, "attention")
         + _linear(a + "v_proj", vh * vd, H, "attention")
         + _linear(a + "a_proj", vh, H, "attention") + _linear(a + "b_proj", vh, H, "attention")
         + _linear(a + "g_proj", vh * vd, H, "attention")
         + _linear(a + "o_proj", H, vh * vd, "attention"))
    for x, width in (("q", kh * kd), ("k", kh * kd), ("v", vh * vd)):
        t.append(Tensor(f"{a}{x}_conv1d.weight", (width, 1, k), "attention", matmul=True))
    return (t + [Tensor(a + "A_log", (vh,), "attention"), Tensor(a + "dt_bias", (vh,), "attention")]
            + _norm(a + "o_norm", vd) + _norm("attention_layer_norm", H)
            + _norm("feedforward_layer_norm", H) + _gated_mlp(c, "mlp.", c.intermediate_size))


def olmo_hybrid_derive(r, raw):
    """The DeltaNet's heads and widths OlmoHybridConfig derives: key and value heads the
    attention heads, key head width int(0.75 x hidden_size / key heads), value head width
    twice that."""
    if r.get("linear_num_key_heads") is None:
        r["linear_num_key_heads"] = r.get("num_attention_heads")
    if r.get("linear_num_value_heads") is None:
        r["linear_num_value_heads"] = r.get("num_attention_heads")
    kh, hidden = r.get("linear_num_key_heads"), r.get("hidden_size")
    if r.get("linear_key_head_dim") is None and _is_int(kh) and _is_int(hidden) and kh > 0:
        r["linear_key_head_dim"] = int(0.75 * hidden / kh)
    if r.get("linear_value_head_dim") is None and _is_int(r.get("linear_key_head_dim")):
        r["linear_value_head_dim"] = 2 * r["linear_key_head_dim"]


def olmo_hybrid_layers(r):
    """OLMo-Hybrid: layer_types, else full attention in every fourth layer (i % 4 == 3) and
    the last layer when that gives none; gated DeltaNet elsewhere. transformers refuses a
    model without a layer of each kind."""
    lt, L = r.get("layer_types"), r["num_hidden_layers"]
    if lt is not None:
        if isinstance(lt, list) and all(isinstance(v, str) for v in lt):
            for kind in ("linear_attention", "full_attention"):
                if kind not in lt:
                    _fail("layer_types", f"OLMo-Hybrid needs at least one {kind} layer "
                          "(OlmoHybridConfig's rule)", lt)
        return {}
    axis = Axis.cycle(("linear_attention", 3), ("full_attention", 1), field="num_hidden_layers")
    if L < 4:
        axis = axis.override([L - 1], "full_attention")
        if L == 1:
            _fail("num_hidden_layers", "OLMo-Hybrid needs a linear-attention and an attention "
                  "layer: at least 2 layers (OlmoHybridConfig's rule)", L)
    return dict(attention=axis)


ENTRIES.update({
    # OLMo-Hybrid (AllenAI): three gated DeltaNet layers to one OLMo 3 attention layer, each
    # followed by a SwiGLU MLP. Defaults: OlmoHybridConfig
    "olmo_hybrid": Family(
        layout=Layout(block="deltanet_or_attention_olmo"),
        layers=olmo_hybrid_layers,
        attention_kinds=("linear_attention", "full_attention"),
        positive=("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                  "linear_value_head_dim", "linear_conv_kernel_dim"),
        derive=(olmo_hybrid_derive,),
        check=(rules.deltanet_heads,),
        defaults=dict(_COMMON, vocab_size=100352, hidden_size=3840, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=30,
                      max_position_embeddings=65536, pad_token_id=100277,
                      linear_num_key_heads=None, linear_num_value_heads=None,
                      linear_key_head_dim=None, linear_value_head_dim=None,
                      linear_conv_kernel_dim=4)),
})


# --- MiniMax-01: lightning attention beside softmax attention, routed experts -------------

def _lightning_state(c):
    """One head_dim x head_dim matrix per head (the decayed sum of k^T v)."""
    return c.num_attention_heads * c.head_dim * c.head_dim


def _lightning_flops(c):
    """Per head, the rank-one k^T v added to the decayed state (a multiply-add per state value)
    and the read-out q . state (another), 2 FLOPs each: 4 x heads x head_dim^2."""
    return 4 * c.num_attention_heads * c.head_dim * c.head_dim


MIXERS["lightning_attention"] = (_lightning_state, _lightning_flops)


@register_block("lightning_or_softmax_attention_moe")
def _minimax_layer(c, kind):
    """A MiniMax-01 layer: input_layernorm; lightning attention (one qkv_proj, a SiLU, the
    decayed linear recurrence, an RMSNorm over all heads, a sigmoid output gate, out_proj; its
    decay rates per head and per position in a block of block_size are buffers transformers
    saves) or GQA softmax attention; post_attention_layernorm; routed experts (Mixtral's
    checkpoint names)."""
    H, nh, hd = c.hidden_size, c.num_attention_heads, c.head_dim
    t = _norm("input_layernorm", H) + _norm("post_attention_layernorm", H)
    if kind.attention == "lightning_attention":
        b, a = c.block_size, "self_attn."
        t += (_linear(a + "qkv_proj", 3 * nh * hd, H, "attention")
              + _linear(a + "out_proj", H, nh * hd, "attention")
              + _linear(a + "output_gate", nh * hd, H, "attention") + _norm(a + "norm", nh * hd)
              + [Tensor(a + "slope_rate", (nh, 1, 1), "attention", buffer=True),
                 Tensor(a + "query_decay", (nh, b, 1), "attention", buffer=True),
                 Tensor(a + "key_decay", (nh, b, 1), "attention", buffer=True),
                 Tensor(a + "diagonal_decay", (1, nh, b, b), "attention", buffer=True)])
    else:
        t += _gqa(c)
    return t + _experts_block_sparse(c)


def minimax_layers(r):
    """MiniMax-01: layer_types ("linear_attention" is lightning attention), else softmax
    attention in the even layers and lightning attention in the odd ones (MiniMaxConfig's
    default); a sliding window, where set, bounds the softmax layers' span."""
    lt, L = r.get("layer_types"), r["num_hidden_layers"]
    names = {"linear_attention": "lightning_attention", "full_attention": "full_attention"}
    if lt is None:
        attn = Axis.cycle(("full_attention", 1), ("lightning_attention", 1), field="layer_types")
    else:
        if not isinstance(lt, list) or len(lt) != L or not all(
                isinstance(v, str) and v in names for v in lt):
            _fail("layer_types", f"must list full_attention or linear_attention for each of the "
                  f"{L:,} layers", lt)
        attn = Axis.from_list([names[v] for v in lt], field="layer_types")
    r["layer_types"] = None   # read here: "linear_attention" is MiniMax's lightning attention
    if r.get("sliding_window") is not None:
        attn = attn.map(lambda v: "sliding_attention" if v == "full_attention" else v)
    return dict(attention=attn)


ENTRIES.update({
    # MiniMax-01 (MiniMax-Text-01): lightning attention in seven of eight layers, softmax
    # attention in the others, routed experts in every layer. Defaults: MiniMaxConfig
    "minimax": Family(
        layout=Layout(block="lightning_or_softmax_attention_moe", experts="block_sparse",
                      layer_state="state_space_mixers", extra_flops="state_space_mixers"),
        group="MiniMax",
        moe="num_local_experts",
        layers=minimax_layers,
        attribute_map=dict(num_experts="num_local_experts"),
        positive=("block_size",),
        check=(no_attention_bias,),
        depth_lists=dict(layer_types="repeat_or_refuse"),
        defaults=dict(_NO_BIAS, vocab_size=32000, hidden_size=4096, intermediate_size=14336,
                      num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                      max_position_embeddings=4096 * 32, num_experts_per_tok=2,
                      num_local_experts=8, block_size=256)),
})


# --- RecurrentGemma: Griffin's RG-LRU and local attention ----------------------------------

def _rg_lru_state(c):
    """The recurrence's state, lru_width values (transformers keeps it in fp32), and the
    convolution's last conv1d_width - 1 inputs of lru_width channels."""
    return c.lru_width * c.conv1d_width


def _rg_lru_flops(c):
    """The recurrence h = a * h + x: a multiply-add per channel, 2 x lru_width FLOPs (its gates
    are weights, in matmul)."""
    return 2 * c.lru_width


MIXERS["rg_lru"] = (_rg_lru_state, _rg_lru_flops)


@register_block("rg_lru_or_local_attention")
def _recurrent_gemma_layer(c, kind):
    """A RecurrentGemma (Griffin) layer: temporal_pre_norm, then a recurrent block (linear_y
    and linear_x to lru_width, a depthwise convolution of conv1d_width taps over x, the
    RG-LRU: its input and recurrence gates block-diagonal, one lru_width / heads block per
    head, with biases, and recurrent_param; linear_out; all with biases) or local attention
    (q, k, v by attention_bias, o with a bias); channel_pre_norm, then a gated MLP of half
    intermediate_size, with biases."""
    H, W = c.hidden_size, c.lru_width
    t = _norm("temporal_pre_norm", H) + _norm("channel_pre_norm", H)
    a = "temporal_block."
    if kind.attention == "rg_lru":
        nh = c.num_attention_heads
        bw = W // nh
        t += (_linear(a + "linear_y", W, H, "attention", True)
              + _linear(a + "linear_x", W, H, "attention", True)
              + _linear(a + "linear_out", H, W, "attention", True)
              + [Tensor(a + "conv_1d.weight", (W, 1, c.conv1d_width), "attention", matmul=True),
                 Tensor(a + "conv_1d.bias", (W,), "attention"),
                 Tensor(a + "rg_lru.recurrent_param", (W,), "attention")])
        for gate in ("input_gate", "recurrent_gate"):
            t += [Tensor(f"{a}rg_lru.{gate}_weight", (nh, bw, bw), "attention", matmul=True),
                  Tensor(f"{a}rg_lru.{gate}_bias", (nh, bw), "attention")]
    else:
        nh, kv, hd, bias = (c.num_attention_heads, c.num_key_value_heads, c.head_dim,
                            bool(c.get("attention_bias")))
        t += (_linear(a + "q_proj", nh * hd, H, "attention", bias)
              + _linear(a + "k_proj", kv * hd, H, "attention", bias)
              + _linear(a + "v_proj", kv * hd, H, "attention", bias)
              + _linear(a + "o_proj", H, nh * hd, "attention", True))
    inter = c.intermediate_size // 2
    return t + [x for name in ("gate_proj", "up_proj") for x in
                _linear("mlp_block." + name, inter, H, "mlp", True)] + _linear(
        "mlp_block.down_proj", H, inter, "mlp", True)


def recurrent_gemma_derive(r, raw):
    """RecurrentGemmaConfig: head_dim is hidden_size // heads unless a config gives it (the
    class derives it, but a given value is set after and wins); lru_width defaults to
    hidden_size."""
    h, n = r.get("hidden_size"), r.get("num_attention_heads")
    if raw.get("head_dim") is None and _is_int(h) and _is_int(n) and n > 0:
        r["head_dim"] = h // n
    if r.get("lru_width") is None:
        r["lru_width"] = h


def recurrent_gemma_layers(r):
    """RecurrentGemma: block_types ("recurrent", "attention") repeated to the depth (at most
    100 times over, as transformers repeats them); attention layers attend to the last
    attention_window_size tokens."""
    bt, L = r.get("block_types"), r["num_hidden_layers"]
    if r.get("layer_types") is not None:
        _fail("layer_types", "RecurrentGemma's layers follow block_types (transformers refuses "
              "a layer_types list)", r["layer_types"])
    names = {"recurrent": "rg_lru", "attention": "sliding_attention"}
    if not isinstance(bt, (list, tuple)) or not bt or not all(
            isinstance(v, str) and v in names for v in bt):
        _fail("block_types", "must list \"recurrent\" or \"attention\" blocks, a pattern "
              "repeated through the layers", bt)
    if L > 100 * len(bt):
        _fail("num_hidden_layers", f"at most 100 x len(block_types) = {100 * len(bt):,} "
              "(transformers repeats the pattern 100 times)", L)
    return dict(attention=Axis.cycle(*[(names[v], 1) for v in bt], field="block_types"))


ENTRIES.update({
    # RecurrentGemma (Google; Griffin): two recurrent (RG-LRU) blocks to one local attention
    # block (MQA in the released models), each followed by a gated MLP. Defaults:
    # RecurrentGemmaConfig
    "recurrent_gemma": Family(
        layout=Layout(block="rg_lru_or_local_attention", final_norm="model.final_norm",
                      norm="rms_one_plus_w", layer_state="state_space_mixers",
                      extra_flops="state_space_mixers"),
        group="Gemma",
        layers=recurrent_gemma_layers,
        attention_kinds=(),
        attribute_map=dict(sliding_window="attention_window_size"),
        positive=("lru_width", "conv1d_width", "attention_window_size"),
        derive=(recurrent_gemma_derive,),
        defaults=dict(_COMMON, num_hidden_layers=26, vocab_size=256000, hidden_size=2560,
                      intermediate_size=3 * 2560, num_attention_heads=10, lru_width=None,
                      attention_window_size=2048, conv1d_width=4, pad_token_id=0,
                      block_types=("recurrent", "recurrent", "attention"),
                      tie_word_embeddings=True)),
})


# --- RWKV-4: time mixing and channel mixing ------------------------------------------------

def _rwkv_state(c):
    """Per layer: the last token's input to the time mix and to the channel mix (hidden_size
    each), and the time mix's numerator, denominator and running maximum (one per channel
    of attention_hidden_size)."""
    return 2 * c.hidden_size + 3 * c.attention_hidden_size


def _rwkv_flops(c):
    """The time mix's recurrence per channel: the numerator and the denominator each updated
    (a multiply-add) and read out with the current token's bonus (another), 2 FLOPs each:
    8 x attention_hidden_size (the exponentials, the maximum and the division, like norms,
    not counted)."""
    return 8 * c.attention_hidden_size


MIXERS["rwkv"] = (_rwkv_state, _rwkv_flops)


@register_block("rwkv_time_and_channel_mix")
def _rwkv_block(c, kind):
    """An RWKV-4 block: ln1, the time mix (its token-shift mixing weights for key, value and
    receptance, per-channel decay and first-token bonus, key, value, receptance and output
    projections to and from attention_hidden_size), ln2, the channel mix (its token-shift
    weights, key up to intermediate_size, a squared ReLU, value back, a receptance gate).
    LayerNorms with biases."""
    H, A, inter = c.hidden_size, c.attention_hidden_size, c.intermediate_size
    a, f = "attention.", "feed_forward."
    return (_norm("ln1", H, "layer") + _norm("ln2", H, "layer")
            + [Tensor(a + "time_decay", (A,), "attention"),
               Tensor(a + "time_first", (A,), "attention")]
            + [Tensor(a + f"time_mix_{x}", (1, 1, H), "attention")
               for x in ("key", "value", "receptance")]
            + _linear(a + "key", A, H, "attention") + _linear(a + "value", A, H, "attention")
            + _linear(a + "receptance", A, H, "attention")
            + _linear(a + "output", H, A, "attention")
            + [Tensor(f + f"time_mix_{x}", (1, 1, H), "mlp") for x in ("key", "receptance")]
            + _linear(f + "key", inter, H, "mlp") + _linear(f + "receptance", H, H, "mlp")
            + _linear(f + "value", H, inter, "mlp"))


def _rwkv_pre_ln(c):
    """RWKV's first block also normalises the embeddings (its pre_ln, a LayerNorm)."""
    return _norm("rwkv.blocks.0.pre_ln", c.hidden_size, "layer")


GLOBAL_EXTRAS["rwkv_pre_ln"] = (_rwkv_pre_ln, True)


def rwkv_derive(r, raw):
    """RwkvConfig: attention_hidden_size defaults to hidden_size, intermediate_size to four
    times it."""
    _attention_free(r, raw)
    h = r.get("hidden_size")
    if r.get("attention_hidden_size") is None:
        r["attention_hidden_size"] = h
    if r.get("intermediate_size") is None and _is_int(h):
        r["intermediate_size"] = 4 * h


ENTRIES.update({
    # RWKV-4 (RWKV): every block a time mix (a linear recurrence per channel) and a channel
    # mix, each after a LayerNorm. Defaults: RwkvConfig
    "rwkv": Family(
        layout=Layout(block="rwkv_time_and_channel_mix", layer_prefix="rwkv.blocks.{i}.",
                      embedding="rwkv.embeddings", final_norm="rwkv.ln_out", lm_head="head",
                      norm="layer", extra_globals="rwkv_pre_ln",
                      layer_state="state_space_mixers", extra_flops="state_space_mixers"),
        layers=lambda r: dict(attention=Axis.constant("rwkv", field="num_hidden_layers")),
        attention_kinds=("rwkv",),
        attribute_map=dict(max_position_embeddings="context_length"),
        positive=("attention_hidden_size",),
        derive=(rwkv_derive,),
        defaults=dict(vocab_size=50277, context_length=1024, hidden_size=4096,
                      num_hidden_layers=32, attention_hidden_size=None, intermediate_size=None,
                      tie_word_embeddings=False)),
})


# --- xLSTM: the matrix-memory LSTM (mLSTM) -------------------------------------------------

def _round_up(x, multiple):
    """xLSTM's round_up_to_next_multiple_of, as transformers computes it."""
    return int(((x + multiple - 1) // multiple) * multiple)


def _mlstm_state(c):
    """Per head, the d_qk x d_v memory C, the normaliser n (d_qk) and the stabiliser m."""
    nh, dqk, dv = c.num_heads, c.xlstm_qk_dim // c.num_heads, c.xlstm_v_dim // c.num_heads
    return nh * (dqk * dv + dqk + 1)


def _mlstm_flops(c):
    """Per head: the memory's gated rank-one update k v^T (a multiply-add per value) and its
    read-out with q (another), the normaliser's update (a multiply-add per value) and its dot
    product with q (another), 2 FLOPs each: 4 x heads x d_qk x (d_v + 1)."""
    nh, dqk, dv = c.num_heads, c.xlstm_qk_dim // c.num_heads, c.xlstm_v_dim // c.num_heads
    return 4 * nh * dqk * (dv + 1)


MIXERS["mlstm"] = (_mlstm_state, _mlstm_flops)


@register_block("mlstm_then_gated_mlp")
def _xlstm_block(c, kind):
    """An xLSTM (7B-style) block: norm_mlstm, the mLSTM layer (q and k to qk_dim, v and the
    output gate to v_dim, an input and a forget gate per head with biases; with weight_mode
    "fused" q, k, v and the output gate in one tensor and the two gates in another; a
    multi-head LayerNorm over v_dim; out_proj), norm_ffn, a SwiGLU MLP of the rounded-up
    ffn_proj_factor x hidden_size (up and gate fused with "fused"). Biases and the norms'
    biases by use_bias."""
    H, nh, bias = c.hidden_size, c.num_heads, bool(c.get("use_bias"))
    qk, v, up = c.xlstm_qk_dim, c.xlstm_v_dim, c.intermediate_size
    m, f = "mlstm_layer.", "ffn."
    norm = "layer" if bias else "rms"   # (a weight, and with use_bias a bias)
    t = _norm("norm_mlstm", H, norm) + _norm("norm_ffn", H, norm)
    if c.weight_mode == "fused":
        t += (_linear(m + "qkv_opreact", 2 * qk + 2 * v, H, "attention", bias)
              + _linear(m + "ifgate_preact", 2 * nh, H, "attention", True)
              + _linear(f + "proj_up_gate_z", 2 * up, H, "mlp", bias))
    else:
        t += (_linear(m + "q", qk, H, "attention", bias)
              + _linear(m + "k", qk, H, "attention", bias)
              + _linear(m + "v", v, H, "attention", bias)
              + _linear(m + "ogate_preact", v, H, "attention", bias)
              + _linear(m + "igate_preact", nh, H, "attention", True)
              + _linear(m + "fgate_preact", nh, H, "attention", True)
              + _linear(f + "proj_up_gate", up, H, "mlp", bias)
              + _linear(f + "proj_up", up, H, "mlp", bias))
    # (the multi-head norm spans heads x (v_dim // heads))
    return (t + _norm(m + "multihead_norm", nh * (v // nh), norm)
            + _linear(m + "out_proj", H, v, "attention", bias)
            + _linear(f + "proj_down", H, up, "mlp", bias))


def xlstm_prepare(r, raw):
    """xLSTMConfig's own names: num_blocks, the blocks it builds (read through the attribute
    map: given, it wins; neither given, 32), and embedding_dim, the embedding's width, which
    must be the blocks' hidden_size."""
    if r.get("num_hidden_layers") is None and "num_hidden_layers" not in raw \
            and "num_blocks" not in raw:
        r["num_hidden_layers"] = r["num_blocks"] = 32
    ed = raw.get("embedding_dim")
    if ed is not None and ed != r.get("hidden_size"):
        _fail("embedding_dim", f"must equal hidden_size={r.get('hidden_size')} (transformers "
              "builds the embedding at embedding_dim and the blocks at hidden_size)", ed)


def xlstm_derive(r, raw):
    """The MLP's width (intermediate_size, which no xLSTMConfig field holds; checked with the
    rest in :func:`xlstm_check`)."""
    _attention_free(r, raw)
    r["intermediate_size"] = 1


def xlstm_check(r, head_dim):
    """The mLSTM's widths, as xLSTMLayer derives them (int(hidden_size x factor)), and the
    MLP's, ffn_proj_factor x hidden_size rounded up to ffn_round_up_to_multiple_of."""
    if r["weight_mode"] not in ("single", "fused"):
        _fail("weight_mode", 'must be "single" or "fused"', r["weight_mode"])
    h = r["hidden_size"]
    for f in ("qk_dim_factor", "v_dim_factor", "ffn_proj_factor"):
        v = r[f]
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 < v <= MAX_SIZE:
            _fail(f, "must be a positive number", v)
    for f in ("qk_dim_factor", "v_dim_factor"):
        width = int(h * r[f])
        if width < 1:
            _fail(f, "leaves the mLSTM no width (int(hidden_size x factor) is 0)", r[f])
        r["xlstm_" + f.replace("_factor", "")] = width
    r["intermediate_size"] = _round_up(h * r["ffn_proj_factor"], r["ffn_round_up_to_multiple_of"])
    if not 0 < r["intermediate_size"] <= MAX_SIZE:
        _fail("ffn_proj_factor", "leaves the MLP no width", r["ffn_proj_factor"])


ENTRIES.update({
    # xLSTM (NX-AI; xLSTM-7B): every block an mLSTM layer and a SwiGLU MLP, each after an
    # RMSNorm; no attention. Defaults: xLSTMConfig
    "xlstm": Family(
        layout=Layout(block="mlstm_then_gated_mlp", layer_prefix="backbone.blocks.{i}.",
                      embedding="backbone.embeddings", final_norm="backbone.out_norm",
                      never_tied=True, layer_state="state_space_mixers",
                      extra_flops="state_space_mixers"),
        layers=lambda r: dict(attention=Axis.constant("mlstm", field="num_hidden_layers")),
        attention_kinds=("mlstm",),
        attribute_map=dict(num_hidden_layers="num_blocks"),
        own_wins=("num_hidden_layers",),
        positive=("num_heads", "ffn_round_up_to_multiple_of", "num_blocks", "embedding_dim"),
        prepare=(xlstm_prepare,),
        derive=(xlstm_derive,),
        check=(booleans("use_bias"), xlstm_check),
        defaults=dict(vocab_size=50304, hidden_size=4096, embedding_dim=None,
                      num_hidden_layers=32, num_blocks=None, num_heads=8, use_bias=False,
                      tie_word_embeddings=False, qk_dim_factor=0.5, v_dim_factor=1.0,
                      ffn_proj_factor=2.667, ffn_round_up_to_multiple_of=64,
                      weight_mode="single", pad_token_id=1, intermediate_size=None)),
})


# --- Bailing-Hybrid (Ling): Kimi-style delta attention beside gated MLA, routed experts -----

@register_block("delta_or_gated_mla_moe")
def _bailing_hybrid_layer(c, kind):
    """A Bailing-Hybrid layer, with the names of Ling's checkpoints (transformers renames
    attention to self_attn, dense to o_proj, moves f_proj, dt_bias and A_log under
    forget_gate, stacks the q, k and v convolutions and fuses the experts on load).
    Linear attention: q, k and v (linear_num_heads x linear_head_dim each), each through its
    own depthwise convolution, a forget gate (f_proj, a dt_bias per channel, A_log per head),
    b_proj, a gated RMSNorm of a head's width, g_proj, the output projection. Attention:
    multi-head latent attention with a plain q_proj, its kv_a, norm and kv_b, biases by
    attention_bias on kv_a and o, and a sigmoid gate per head (g_proj). Then a SwiGLU MLP, or
    routed experts (a router with its load-balancing bias, stored expert_bias) beside shared
    experts of n_shared_experts x moe_intermediate_size."""
    H, a = c.hidden_size, "attention."
    t = _norm("input_layernorm", H) + _norm("post_attention_layernorm", H)
    if kind.attention == "linear_attention":
        h, d, k = c.linear_num_heads, c.linear_head_dim, c.linear_conv_kernel_dim
        qkv = h * d
        for x in "qkv":
            t += _linear(f"{a}{x}_proj", qkv, H, "attention")
            t.append(Tensor(f"{a}{x}_conv1d.weight", (qkv, 1, k), "attention", matmul=True))
        t += ([Tensor(a + "A_log", (h,), "attention"), Tensor(a + "dt_bias", (qkv,), "attention")]
              + _linear(a + "f_proj", qkv, H, "attention")
              + _linear(a + "b_proj", h, H, "attention")
              + _norm(a + "o_norm", d) + _linear(a + "dense", H, qkv, "attention")
              + _linear(a + "g_proj", qkv, H, "attention"))
    else:
        nh, kvr, rope = c.num_attention_heads, c.kv_lora_rank, c.qk_rope_head_dim
        nope, vd, bias = c.qk_nope_head_dim, c.v_head_dim, bool(c.get("attention_bias"))
        t += (_linear(a + "q_proj", nh * (nope + rope), H, "attention")
              + _linear(a + "kv_a_proj_with_mqa", kvr + rope, H, "attention", bias)
              + _norm(a + "kv_a_layernorm", kvr)
              + _linear(a + "kv_b_proj", nh * (nope + vd), kvr, "attention")
              + _linear(a + "dense", H, nh * vd, "attention", bias)
              + _linear(a + "g_proj", nh, H, "attention"))
    if kind.mlp == "dense":
        return t + _gated_mlp(c, "mlp.", c.intermediate_size)
    E, inter = c.num_experts, c.moe_intermediate_size
    return (t + _linear("mlp.gate", E, H, "router")
            + [Tensor("mlp.gate.expert_bias", (E,), "router", buffer=True)]
            + _gated_mlp(c, "mlp.experts.{e}.", inter, "experts", routed=True, per_expert=E)
            + _gated_mlp(c, "mlp.shared_experts.", inter * c.n_shared_experts, "shared_experts"))


def bailing_hybrid_derive(r, raw):
    """BailingHybridConfig: the linear attention's heads are the attention heads, its head
    width head_dim (which the class then sets to qk_rope_head_dim), its convolution
    short_conv_kernel_size; a config.json the class wrote gives the three itself
    (linear_num_heads, linear_head_dim, linear_conv_kernel_dim), and they win."""
    for f, src in (("linear_num_heads", "num_attention_heads"), ("linear_head_dim", "head_dim"),
                   ("linear_conv_kernel_dim", "short_conv_kernel_size")):
        r[f] = raw[f] if raw.get(f) is not None else r.get(src)


def bailing_hybrid_layers(r):
    """Bailing-Hybrid: layer_types, else MLA in every layer_group_size-th layer (the last of
    each group) and linear attention in the others; mlp_layer_types ("dense", "sparse"), else
    dense for the first first_k_dense_replace layers, then routed experts."""
    L = r["num_hidden_layers"]
    out = {}
    if r.get("layer_types") is None:
        g = r["layer_group_size"]
        out["attention"] = Axis.cycle(("linear_attention", g - 1), ("full_attention", 1),
                                      field="layer_group_size")
    mlt = r.get("mlp_layer_types")
    if mlt is None:
        out["mlp"] = Axis.cycle(("moe", 1), prefix=[("dense", min(r["first_k_dense_replace"], L))],
                                field="first_k_dense_replace")
    else:
        if not isinstance(mlt, list) or len(mlt) != L or not all(v in ("dense", "sparse")
                                                                  for v in mlt):
            _fail("mlp_layer_types", f"must list dense or sparse for each of the {L:,} layers",
                  mlt)
        out["mlp"] = Axis.from_list(["moe" if v == "sparse" else "dense" for v in mlt],
                                    field="mlp_layer_types")
    return out


ENTRIES.update({
    # Bailing-Hybrid (inclusionAI, Ling): five Kimi-style delta-attention layers to one gated
    # MLA layer, the first layers dense, then routed experts with shared ones (DeepSeek-V3's
    # sigmoid, group-limited routing). Defaults: BailingHybridConfig
    "bailing_hybrid": Family(
        layout=Layout(block="delta_or_gated_mla_moe", attention="mla", linear_attention="kda",
                      embedding="model.word_embeddings", never_tied=True, router="grouped",
                      router_norm_topk=True),
        moe="num_experts",
        layers=bailing_hybrid_layers,
        attention_kinds=("linear_attention", "full_attention"),
        attribute_map=dict(max_position_embeddings="model_max_length",
                           norm_topk_prob="moe_renormalize", n_group="num_expert_group",
                           num_local_experts="num_experts",
                           num_experts_per_tok="num_experts_per_token",
                           n_shared_experts="num_shared_experts",
                           num_mtp_layers="num_nextn_predict_layers"),
        required=("kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
                  "moe_intermediate_size"),
        positive=("layer_group_size", "short_conv_kernel_size", "kv_lora_rank", "v_head_dim",
                  "qk_rope_head_dim", "linear_num_heads", "linear_head_dim",
                  "linear_conv_kernel_dim"),
        non_negative=("first_k_dense_replace", "num_shared_experts", "num_nextn_predict_layers"),
        derive=(bailing_hybrid_derive,),
        depth_lists=dict(mlp_layer_types="extend"),
        defaults=dict(_COMMON, vocab_size=157184, hidden_size=2560, intermediate_size=6144,
                      moe_intermediate_size=768, num_hidden_layers=42, num_attention_heads=32,
                      num_key_value_heads=32, num_shared_experts=1, kv_lora_rank=512,
                      qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128,
                      num_expert_group=8, topk_group=4, num_experts_per_token=8,
                      first_k_dense_replace=2, moe_renormalize=True, model_max_length=262144,
                      pad_token_id=156892, num_nextn_predict_layers=1, num_experts=512,
                      head_dim=128, short_conv_kernel_size=4, layer_group_size=6,
                      mlp_layer_types=None)),
})


# --- Zamba and Zamba2: Mamba layers and a shared attention block ---------------------------
# A hybrid layer runs a transformer block (attention over the concatenated hidden state and
# original embedding, 2 x hidden_size wide, and an MLP) whose weights all hybrid layers share
# (Zamba2: num_mem_blocks blocks in turn), adds it through its own linear layer, then runs
# its own Mamba layer. The block's tensors are listed at every layer that runs it, as
# transformers' state dict lists them, and counted once, at their first user (the others
# are tied to it); their work is done at every use. Each hybrid layer keeps its own K and V.
# transformers 5.23 ties the blocks only with tie_word_embeddings (every released Zamba
# ties): untied, each hybrid layer holds its own copy, and so does the count.

def _zamba_mamba(c, prefix):
    """Zamba's Mamba-1 mixer, split into n_mamba_heads heads: in_proj, the convolution and
    out_proj as Mamba's; per head its own x_proj, dt_proj (with a bias), A_log and D."""
    H, d, N, k, R = (c.hidden_size, c.mamba1_d_inner, c.mamba1_d_state, c.mamba1_d_conv,
                     c.mamba1_dt_rank)
    nh = c.n_mamba_heads
    hd = d // nh
    t = (_linear(prefix + "in_proj", 2 * d, H, "attention", c.mamba1_proj_bias)
         + [Tensor(prefix + "conv1d.weight", (d, 1, k), "attention", matmul=True)])
    if c.mamba1_conv_bias:
        t.append(Tensor(prefix + "conv1d.bias", (d,), "attention"))
    return (t + [Tensor(prefix + "x_proj_weight", (nh, R + 2 * N, hd), "attention", matmul=True),
                 Tensor(prefix + "dt_proj_weight", (nh, hd, R), "attention", matmul=True),
                 Tensor(prefix + "dt_proj_bias", (nh, hd), "attention"),
                 Tensor(prefix + "A_log", (nh, hd, N), "attention"),
                 Tensor(prefix + "D", (nh, hd), "attention")]
            + _linear(prefix + "out_proj", H, d, "attention", c.mamba1_proj_bias))


def _zamba2_mamba(c, prefix):
    """Zamba2's Mamba-2 mixer: int(mamba_expand x hidden_size) wide in n_mamba_heads heads,
    the convolution always with a bias, in_proj and out_proj biases by add_bias_linear."""
    return _mamba2_mixer(c, prefix, bool(c.get("add_bias_linear")))


def _adapter(name, out_f, in_f, component, matmul):
    return [Tensor(f"{name}.weight", (out_f, in_f), component, matmul=matmul)]


def _shared_block(c, kind, name):
    """The shared transformer block of a hybrid layer: attention from attention_hidden_size
    (2 x hidden_size unless given; attention_head_dim = 2 x hidden_size / heads unless given),
    its norm over that width, an MLP after
    pre_ff_layernorm (Zamba: gate, up, down; Zamba2: gate and up fused, biases by
    add_bias_linear, and the per-use low-rank adapters of this block: of the MLP's gate and
    up, and with use_shared_attention_adapter of q, k and v)."""
    H, A = c.hidden_size, c.attention_hidden_size
    nh, kv, hd = c.num_attention_heads, c.num_key_value_heads, c.head_dim
    a, f = "self_attn.", "feed_forward."
    t = (_linear(a + "q_proj", nh * hd, A, "attention")
         + _linear(a + "k_proj", kv * hd, A, "attention")
         + _linear(a + "v_proj", kv * hd, A, "attention")
         + _linear(a + "o_proj", H, nh * hd, "attention")
         + _norm("input_layernorm", A) + _norm("pre_ff_layernorm", H))
    I = c.intermediate_size
    if c.layout.block == "mamba_then_shared_attention":
        t += _gated_mlp(c, f, I)
    else:
        bias, r = bool(c.get("add_bias_linear")), c.adapter_rank
        t += (_linear(f + "gate_up_proj", 2 * I, H, "mlp", bias)
              + _linear(f + "down_proj", H, I, "mlp", bias))
        b, m = kind.shared_block - 1, c.num_mem_blocks
        for i in range(b, c.zamba2_hybrid_layers, m):   # this block's uses, in hybrid order
            # each use runs its own adapters only: one set (all are the same size) counts as
            # multiplied in each layer, the others are weights it holds
            mm = dict(matmul=i == b)
            t += (_adapter(f"{f}gate_up_proj_adapter_list.{i}.0", r, H, "mlp", **mm)
                  + _adapter(f"{f}gate_up_proj_adapter_list.{i}.1", 2 * I, r, "mlp", **mm))
            if c.get("use_shared_attention_adapter"):
                for x in "qkv":
                    t += (_adapter(f"{a}linear_{x}_adapter_list.{i}.0", r, A, "attention", **mm)
                          + _adapter(f"{a}linear_{x}_adapter_list.{i}.1", A, r, "attention", **mm))
    t = [x._replace(name=name + "." + x.name) for x in t]
    if kind.shared_tied:   # the block's first user holds these weights
        owner = c.layer_schedule.first_index(kind._replace(shared_tied=False))
        prefix = c.layout.layer_prefix.format(i=owner)
        t = [x._replace(tied=prefix + x.name) for x in t]
    return t


@register_block("mamba_then_shared_attention")
def _zamba_layer(c, kind):
    """A Zamba layer: a Mamba layer (input_layernorm, Zamba's Mamba-1), or a hybrid layer:
    the shared block (shared_transf), its own linear, its own Mamba layer (mamba_decoder)."""
    H = c.hidden_size
    mamba = _norm("input_layernorm", H) + _zamba_mamba(c, "mamba.")
    if not kind.shared_block:
        return mamba
    return (_shared_block(c, kind, "shared_transf") + _linear("linear", H, H, "attention")
            + [x._replace(name="mamba_decoder." + x.name) for x in mamba])


@register_block("mamba2_then_shared_attention")
def _zamba2_layer(c, kind):
    """A Zamba2 layer: a Mamba layer (input_layernorm, a Mamba-2 mixer), or a hybrid layer:
    its shared block (shared_transformer, one of num_mem_blocks in turn), its own linear, its
    own Mamba layer (mamba_decoder)."""
    H = c.hidden_size
    mamba = _norm("input_layernorm", H) + _zamba2_mamba(c, "mamba.")
    if not kind.shared_block:
        return mamba
    return (_shared_block(c, kind, "shared_transformer") + _linear("linear", H, H, "attention")
            + [x._replace(name="mamba_decoder." + x.name) for x in mamba])


def _zamba_schedule(types, blocks, mamba, tied_blocks):
    """The layer axes of a Zamba list of "linear_attention" and "hybrid" layers: the i-th
    hybrid layer runs shared block i % blocks + 1, tied after its first use where
    ``tied_blocks`` (transformers ties them only with tie_word_embeddings: else every hybrid
    layer holds its own copy)."""
    kinds, shared, tied, n = [], [], [], 0
    hybrid = f"shared_attention_{mamba}"
    for t in types:
        if t == "hybrid":
            kinds.append(hybrid)
            shared.append(n % blocks + 1)
            tied.append(tied_blocks and n >= blocks)
            n += 1
        else:
            kinds.append(mamba)
            shared.append(0)
            tied.append(False)
    f = "layers_block_type"
    return dict(attention=Axis.from_list(kinds, field=f),
                shared_block=Axis.from_list(shared, field=f),
                shared_tied=Axis.from_list(tied, field=f),
                mlp=Axis.from_list(["dense" if s else "none" for s in shared], field=f))


_ZAMBA_TYPES = {"linear_attention": "linear_attention", "mamba": "linear_attention",
                "hybrid": "hybrid"}


def _zamba_types(r):
    """layers_block_type (layer_types is its alias), its legacy "mamba" read as
    "linear_attention"; None when the config gives none."""
    lt = r.get("layers_block_type")
    if lt is None:
        return None
    if not isinstance(lt, list) or not lt or len(lt) > MAX_LIST or not all(
            isinstance(v, str) and v in _ZAMBA_TYPES for v in lt):
        _fail("layers_block_type", "must list linear_attention (or mamba) and hybrid layers, "
              f"at most {MAX_LIST:,}", lt)
    return [_ZAMBA_TYPES[v] for v in lt]


def zamba_prepare(r, raw):
    """layer_types is Zamba's alias of layers_block_type."""
    if raw.get("layer_types") is not None and raw.get("layers_block_type") is None:
        r["layers_block_type"] = raw["layer_types"]
    r["layer_types"] = None


def _zamba_types_checked(r, types, shared_ties):
    """The layer list, one entry per layer (transformers' rule); with ``shared_ties`` (Zamba)
    more than one hybrid layer or none (transformers 5.23 cannot tie a single one's block)."""
    L = r["num_hidden_layers"]
    if len(types) != L:
        _fail("layers_block_type", f"must list one entry per layer (num_hidden_layers={L:,}; "
              f"Zamba2Config's default lists {len(_ZAMBA2_DEFAULT)})", f"{len(types):,} entries",
              show_value=True)
    if shared_ties and types.count("hybrid") == 1 and r["tie_word_embeddings"]:
        _fail("layers_block_type", "has a single hybrid layer: with tied embeddings "
              "transformers 5.23 cannot tie its shared block to another layer's (untie them, "
              "or give two hybrid layers or none)", types)
    return types


def zamba_layers(r):
    """Zamba: layers_block_type, else two Mamba layers, a hybrid layer, then a hybrid layer
    where (i - 3) % attn_layer_period == attn_layer_offset (ZambaConfig's default)."""
    types = _zamba_types(r)
    if types is None:
        L, p, o = r["num_hidden_layers"], r["attn_layer_period"], r["attn_layer_offset"]
        if L < 3:
            _fail("num_hidden_layers", "at least 3 for Zamba's default layer pattern (transformers "
                  "builds its first 3 layers whatever the count; give layers_block_type)", L)
        if L > MAX_LIST:
            _fail("num_hidden_layers", f"at most {MAX_LIST:,} with Zamba's listed layers", L)
        types = ["linear_attention", "linear_attention", "hybrid"] + [
            "hybrid" if i % p == o else "linear_attention" for i in range(L - 3)]
    return _zamba_schedule(_zamba_types_checked(r, types, True), 1, "mamba1",
                           r["tie_word_embeddings"])


# Zamba2Config's default layers: 54, whatever num_hidden_layers says
_ZAMBA2_DEFAULT = (["linear_attention"] + (["linear_attention"] * 5 + ["hybrid"]) * 7
                   + ["linear_attention"] * 4 + ["hybrid"] + ["linear_attention"] * 3 + ["hybrid"]
                   + ["linear_attention"] * 2)


def zamba2_layers(r):
    """Zamba2: layers_block_type, else Zamba2Config's 54 layers; the i-th hybrid layer runs
    block i % num_mem_blocks."""
    types = _zamba_types_checked(r, _zamba_types(r) or _ZAMBA2_DEFAULT, False)
    r["zamba2_hybrid_layers"] = types.count("hybrid")
    return _zamba_schedule(types, r["num_mem_blocks"], "mamba", r["tie_word_embeddings"])


def zamba_derive(r, raw):
    """ZambaConfig and Zamba2Config: attention reads attention_hidden_size, 2 x hidden_size
    unless given; a head is attention_head_dim (head_dim is its alias), 2 x hidden_size /
    heads unless given (Zamba2Config derives both, but a value a config gives is set after
    and wins); Zamba2's MLP is 4 x hidden_size wide unless given."""
    h, n = r.get("hidden_size"), r.get("num_attention_heads")
    if r.get("attention_hidden_size") is None and _is_int(h):
        r["attention_hidden_size"] = 2 * h
    if r.get("attention_head_dim") is None and _is_int(h) and _is_int(n) and n > 0:
        r["attention_head_dim"] = 2 * h // n
    r["head_dim"] = r.get("attention_head_dim")
    if "adapter_rank" in r and r.get("intermediate_size") is None and _is_int(h):
        r["intermediate_size"] = 4 * h


def zamba_check(r, head_dim):
    """Zamba's Mamba-1 width mamba_expand x hidden_size divides into n_mamba_heads heads."""
    inner = r["mamba_expand"] * r["hidden_size"]
    if inner % r["n_mamba_heads"]:
        _fail("n_mamba_heads", f"must divide mamba_expand x hidden_size = {inner:,} "
              "(ZambaConfig's rule)", r["n_mamba_heads"])
    _mamba1_dims(r, "mamba_dt_rank", inner, r["mamba_d_state"], r["mamba_d_conv"],
                 r["mamba_conv_bias"], r["mamba_proj_bias"])


def zamba2_check(r, head_dim):
    """Zamba2's Mamba-2 width int(mamba_expand x hidden_size) in n_mamba_heads heads of
    mamba_headdim (their quotient); the engine needs the heads to divide it (transformers
    builds, but cannot run, a model whose heads leave a remainder)."""
    inner = r["mamba_expand"] * r["hidden_size"]
    if inner % r["n_mamba_heads"]:
        _fail("n_mamba_heads", f"must divide mamba_expand x hidden_size = {inner:,} (the "
              "Mamba-2 width)", r["n_mamba_heads"])
    r["zamba2_head_dim"] = inner // r["n_mamba_heads"]
    given = r.get("mamba_headdim")
    if given is not None and given != r["zamba2_head_dim"]:
        _fail("mamba_headdim", f"must be mamba_expand x hidden_size / n_mamba_heads = "
              f"{r['zamba2_head_dim']:,} (transformers reads it as given and cannot run "
              "another)", given)
    r["zamba2_conv_bias"] = True   # Zamba2's convolution always has a bias


MIXERS["shared_attention_mamba1"] = (_mamba1_state, _mamba1_flops)
MIXERS["shared_attention_mamba"] = (_mamba2_state, _mamba2_flops)

_ZAMBA_COMMON = dict(_NO_BIAS, tie_word_embeddings=True, pad_token_id=0,
                     max_position_embeddings=4096, layers_block_type=None, mamba_d_conv=4,
                     mamba_expand=2)

ENTRIES.update({
    # Zamba (Zyphra): Mamba-1 layers (split into heads) and hybrid layers that run one shared
    # attention-and-MLP block, each through its own linear, before their own Mamba layer.
    # Defaults: ZambaConfig
    "zamba": Family(
        layout=Layout(block="mamba_then_shared_attention", final_norm="model.final_layernorm",
                      layer_state="state_space_mixers", extra_flops="state_space_mixers"),
        layers=zamba_layers,
        attention_kinds=(),
        attribute_map=dict(head_dim="attention_head_dim"),
        positive=("n_mamba_heads", "mamba_d_state", "mamba_d_conv", "mamba_expand",
                  "attn_layer_period", "attention_head_dim"),
        non_negative=("attn_layer_offset",),
        prepare=(zamba_prepare,),
        derive=(zamba_derive,),
        check=(zamba_check,),
        depth_lists=dict(layers_block_type="repeat"),
        defaults=dict(_ZAMBA_COMMON, vocab_size=32000, hidden_size=3712, intermediate_size=14848,
                      num_hidden_layers=76, num_attention_heads=16, attention_head_dim=None,
                      attention_hidden_size=None,
                      num_key_value_heads=16, n_mamba_heads=2, attn_layer_period=6,
                      attn_layer_offset=4, mamba_d_state=16, mamba_dt_rank="auto",
                      mamba_conv_bias=True, mamba_proj_bias=False)),
    # Zamba2 (Zyphra): Mamba-2 layers and hybrid layers running num_mem_blocks shared blocks in
    # turn, each use with its own low-rank adapters. Defaults: Zamba2Config
    "zamba2": Family(
        layout=Layout(block="mamba2_then_shared_attention", final_norm="model.final_layernorm",
                      layer_state="state_space_mixers", extra_flops="state_space_mixers",
                      mamba_fields=("n_mamba_heads", "zamba2_head_dim", "mamba_ngroups",
                                    "mamba_d_state", "mamba_d_conv", "zamba2_conv_bias",
                                    "add_bias_linear", "chunk_size")),
        layers=zamba2_layers,
        attention_kinds=(),
        attribute_map=dict(head_dim="attention_head_dim"),
        positive=("n_mamba_heads", "mamba_d_state", "mamba_d_conv", "mamba_expand",
                  "mamba_ngroups", "num_mem_blocks", "adapter_rank", "chunk_size"),
        prepare=(zamba_prepare,),
        derive=(zamba_derive,),
        check=(booleans("use_shared_attention_adapter", "add_bias_linear"), zamba2_check),
        nullable=("intermediate_size",),
        depth_lists=dict(layers_block_type="repeat"),
        defaults=dict(_ZAMBA_COMMON, vocab_size=32000, hidden_size=2560, num_hidden_layers=54,
                      mamba_d_state=64, mamba_ngroups=1, n_mamba_heads=8, chunk_size=256,
                      add_bias_linear=False, intermediate_size=None, num_attention_heads=32,
                      num_key_value_heads=None, num_mem_blocks=1,
                      use_shared_attention_adapter=False, adapter_rank=128)),
})
