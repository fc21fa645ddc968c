"""State-space and recurrent models, and their hybrids with attention.

Mamba and Falcon-Mamba (Mamba-1's selective scan), Mamba-2, Bamba and Falcon-H1 (Mamba-2
beside attention), Jamba (Mamba-1, attention and experts), Zamba and Zamba2 (Mamba with a
shared attention block), LFM2 and LFM3 (short convolutions), OLMo-Hybrid (gated DeltaNet),
RecurrentGemma (Griffin's RG-LRU), RWKV-4, xLSTM (mLSTM), Bailing-Hybrid and MiniMax-01
(linear attention beside softmax attention). Each entry is a
:class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a family"); the layer builders
of the new token mixers are registered here (``register_block``), with each mixer's fixed
state per sequence and its work per token (``register_state``). Standard library only.
"""

from __future__ import annotations

from math import ceil

from ..architectures import (Layout, Tensor, _linear, _mamba2, _norm, register_block,
                             register_state)
from ..layers import Axis
from ..limits import MAX_SIZE, _fail, _is_int
from .base import Family

__all__ = []


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
            + [Tensor(prefix + "A_log", (d, N), "attention"), Tensor(prefix + "D", (d,), "attention")]
            + _linear(prefix + "out_proj", H, d, "attention", c.mamba1_proj_bias))


def _mamba1_state(c):
    """A d_state vector per channel, and the convolution's last d_conv inputs."""
    return c.mamba1_d_inner * (c.mamba1_d_state + c.mamba1_d_conv)


def _mamba1_flops(c):
    """As Mamba-2's: the decayed rank-one update of the state (a multiply-add per state
    value) and its read-out with C (another), 2 FLOPs each: 4 x d_inner x d_state."""
    return 4 * c.mamba1_d_inner * c.mamba1_d_state


register_state("mamba1", _mamba1_state, _mamba1_flops)


@register_block("norm_and_ssm_mixer")
def _norm_and_mixer(c, kind):
    """A Mamba or Mamba-2 block: an RMSNorm, then the mixer (the residual around it)."""
    t = _norm("norm", c.hidden_size)
    if kind.attention == "mamba1":
        return t + _mamba1(c, "mixer.")
    return t + _mamba2(c)


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
                       embedding="backbone.embeddings", final_norm="backbone.norm_f")
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
