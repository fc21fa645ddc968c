"""Comparisons the GQA/KV-cache and FFN lessons draw on (pure, standard library only).

The lessons' arithmetic (bytes per token, the Llama FFN rounding rule, the
break-even of GQA's saving, FLOP shares) is written by the reader in the
notebook cells and checked against the engine; this module holds what the
explorers, tables and figures need to compare many settings: an MHA baseline,
the saving of GQA against it, and the split of parameters and FLOPs between
attention and the FFN.
"""

from __future__ import annotations

from fractions import Fraction

from .config import from_hf_config
from .counts import flops_per_token, kv_cache_bytes, param_count, weight_bytes
from .families import family_of
from .zoo import as_config

__all__ = ["mha_baseline", "plain_mha_cache_bytes", "gqa_memory_saving", "full_attention_twin",
           "all_full_attention", "ffn_attention_split", "mlp_is_gated", "mlp_twin",
           "context_within_max", "FFN_COMPONENTS"]

# the parts of a layer that are the feed-forward network (dense MLP or MoE)
FFN_COMPONENTS = ("mlp", "shared_experts", "experts", "router")


# --- KV cache: an MHA baseline and what GQA saves ----------------------------------------

def mha_baseline(cfg, full_attention=False):
    """The same model with one KV head per query head (plain multi-head attention);
    with ``full_attention=True`` also with every layer full attention (no sliding,
    chunked or linear-attention layers).

    For MLA (DeepSeek) the baseline is the DeepSeek-V2 paper's: a standard MHA
    cache of ``num_attention_heads`` heads of ``v_head_dim`` (d_h = 128) per
    layer, built as a Llama-layout config of the same depth (its hidden size
    heads x head width, which Llama's config requires the heads to divide). Use
    it for the cache only: its weights are not DeepSeek's.
    """
    cfg = as_config(cfg)
    if cfg.uses_mla or cfg.layout.kv_store == "k_eq_v":
        # a cache baseline only: MHA over every token with the same heads (MLA's v_head_dim;
        # DeepSeek-V4's one K = V head of head_dim), as a Llama layout
        width = cfg.v_head_dim if cfg.uses_mla else cfg.head_dim
        return from_hf_config({   # a hidden size the heads divide, as Llama's config asks
            "model_type": "llama", "hidden_size": cfg.num_attention_heads * width,
            "num_hidden_layers": cfg.num_hidden_layers,
            "num_attention_heads": cfg.num_attention_heads,
            "num_key_value_heads": cfg.num_attention_heads,
            "head_dim": width,
            "intermediate_size": cfg.intermediate_size, "vocab_size": cfg.vocab_size,
            "max_position_embeddings": cfg.get("max_position_embeddings"),
        }, name=f"{cfg.name} MHA baseline")
    changes = {}
    if cfg.num_key_value_heads != cfg.num_attention_heads:
        changes["num_key_value_heads"] = cfg.num_attention_heads
    own = family_of(cfg.model_type).mha_baseline
    if own is not None:   # the family's own fields for it (Gemma 4, Nemotron-H)
        changes.update(own(cfg, full_attention))
    elif full_attention and any(t != "full_attention" for t in cfg.layer_types):
        # sliding, chunked and linear-attention layers all become full attention
        changes["layer_types"] = ["full_attention"] * cfg.num_hidden_layers
    return cfg.replace(**changes) if changes else cfg


def plain_mha_cache_bytes(cfg, seq_len, batch=1, dtype="bf16"):
    """The KV cache of *plain MHA*, the one baseline every "N× smaller than MHA" in the
    course is measured against: every layer that attends or mixes tokens (full, sliding,
    chunked, sparse, linear attention, Mamba-2) caches every token's K and V with one KV
    head per query head, each at **that layer's own head width** (Gemma 4's full layers
    at ``global_head_dim``, its sliding ones at ``head_dim``; MLA at ``v_head_dim``, the
    DeepSeek-V2 paper's baseline). No window, no sharing across layers, no latent, no
    fixed state. A block with no token mixing (Nemotron-H's MLP-only blocks) caches
    nothing. Exact bytes for ``batch`` sequences of ``seq_len`` tokens."""
    from .architectures import layer_config
    from .counts import dtype_bits
    cfg = as_config(cfg)
    values = 0
    for kind, n in cfg.layer_schedule.counts().items():
        if kind.attention == "none":
            continue
        lc = layer_config(cfg, kind)   # a layer's own heads and widths (per_layer_config)
        heads = lc.num_attention_heads
        width = kind.head_dim or (lc.v_head_dim if cfg.uses_mla else lc.head_dim)
        v_width = (lc.get(cfg.layout.value_head_dim, width) if cfg.layout.value_head_dim
                   and not cfg.uses_mla else width)   # V narrower than K (MiMo-V2-Flash)
        values += n * heads * (width + v_width)
    return int(values * dtype_bits(dtype) / 8) * seq_len * batch


def cache_baseline_only(cfg):
    """True where :func:`mha_baseline` is a cache baseline only, a Llama layout whose
    weights are not the model's: MLA's latent, and a cache of one K = V head
    (DeepSeek-V4). A saving of weights + cache then holds the weights equal."""
    cfg = as_config(cfg)
    return cfg.uses_mla or cfg.layout.kv_store == "k_eq_v"


def gqa_memory_saving(cfg, seq_len, batch=1, dtype="bf16"):
    """What this model saves against its MHA baseline at one context and batch.

    Returns a dict of exact integers (bytes) and two exact fractions:
    ``cache_saving`` = 1 - cache / MHA cache, ``total_saving`` = 1 - (weights +
    cache) / (MHA weights + MHA cache). GQA also shrinks the k/v projections, so
    the baseline's weights are larger. Where the baseline is a cache baseline only
    (MLA, DeepSeek-V4's K = V head: :func:`cache_baseline_only`) the weights are held
    equal: comparing the model's weights with a stand-in's would say nothing. Weights
    and cache are both at ``dtype``.
    """
    cfg = as_config(cfg)
    base = mha_baseline(cfg)
    w = weight_bytes(cfg, dtype)
    wb = w if cache_baseline_only(cfg) else weight_bytes(base, dtype)
    c, cb = kv_cache_bytes(cfg, seq_len, batch, dtype), kv_cache_bytes(base, seq_len, batch, dtype)
    return {"model": cfg.name, "seq_len": seq_len, "batch": batch, "weights": w, "cache": c,
            "mha_weights": wb, "mha_cache": cb,
            "cache_saving": Fraction(cb - c, cb) if cb else Fraction(0),
            "total_saving": Fraction((wb + cb) - (w + c), wb + cb)}


def full_attention_twin(cfg):
    """A cache stand-in for ``cfg`` with every layer full: each layer that mixes tokens
    (attention of any kind, linear attention, Mamba-2, a short convolution) caches every
    token's K and V with ``cfg``'s own KV heads of ``head_dim``: no window, no fixed
    state, no layer reusing another's K and V, K and V apart, one head width. A block
    that only holds an MLP or experts (Nemotron-H's) caches nothing and is left out.
    Built as a Llama layout of the same heads and maximum context (its hidden size heads x
    head_dim, which Llama's config requires the heads to divide), as the MLA baseline is:
    use it for the cache only, its weights are not the model's."""
    cfg = as_config(cfg)
    mixing = sum(n for kind, n in cfg.layer_schedule.counts().items() if kind.attention != "none")
    return from_hf_config({
        "model_type": "llama", "hidden_size": cfg.num_attention_heads * cfg.head_dim,
        "num_hidden_layers": mixing,
        "num_attention_heads": cfg.num_attention_heads,
        "num_key_value_heads": cfg.num_key_value_heads, "head_dim": cfg.head_dim,
        "intermediate_size": cfg.get("intermediate_size") or cfg.hidden_size,
        "vocab_size": cfg.vocab_size,
        "max_position_embeddings": cfg.get("max_position_embeddings"),
    }, name=f"{cfg.name} with every layer full")


def all_full_attention(cfg):
    """``cfg`` as a what-if with every layer that mixes tokens full attention, the rest
    kept: sliding, chunked, linear-attention and Mamba-2 layers become the family's full
    attention layers (Gemma 4's at its ``global_head_dim``); a block that only holds an
    MLP or experts (Nemotron-H's) stays that block, written as its MLP kind. The engine
    judges it: a family that cannot take it refuses in one line."""
    cfg = as_config(cfg)
    kinds = cfg.layer_schedule.expand("kinds")
    return cfg.replace(layer_types=["full_attention" if k.attention != "none"
                                    else "moe" if k.mlp == "moe" else "mlp" for k in kinds])


def context_within_max(cfg, seq_len):
    """``seq_len``, or the model's ``max_position_embeddings`` if that is shorter (a
    model is never sized past the context it was trained for)."""
    top = as_config(cfg).get("max_position_embeddings")
    return min(seq_len, top) if top else seq_len


# --- FFN versus attention -------------------------------------------------------------

def mlp_is_gated(cfg):
    """True if a dense model's MLP multiplies three hidden x intermediate matrices per
    layer (gate, up, down: SwiGLU/GeGLU, fused or not), False for two (fc1, fc2: the
    classic GELU MLP of GPT-2, Pythia, phi-2). Read from the engine's tensor list,
    so it holds for every family."""
    cfg = as_config(cfg)
    per_layer = cfg.hidden_size * cfg.intermediate_size
    dense_layers = param_count(cfg).matmul_components["mlp"] // per_layer
    return dense_layers == 3 * cfg.num_hidden_layers


def mlp_twin(cfg, gated):
    """A minimal config whose MLP is ``cfg``'s width and depth in the other layout:
    gated (Llama: gate/up/down, no biases) or plain (phi-2: fc1/fc2 with biases).
    Only its MLP is meant: pass it as ``mlp_cfg`` to :func:`ffn_attention_split`."""
    cfg = as_config(cfg)
    return from_hf_config({
        "model_type": "llama" if gated else "phi", "hidden_size": cfg.hidden_size,
        "intermediate_size": cfg.intermediate_size, "num_hidden_layers": cfg.num_hidden_layers,
        "num_attention_heads": 1, "num_key_value_heads": 1, "vocab_size": 1,
    }, name=f"{cfg.name} with a {'gated' if gated else 'plain'} MLP")


def ffn_attention_split(cfg, seq_len=4096, mode="prefill", mlp_cfg=None):
    """Parameters and forward FLOPs per token split into attention, FFN and the rest.

    Parameters come from ``param_count(cfg).components`` (FFN = mlp + experts +
    shared experts + router; the rest = embedding, norms, lm_head). FLOPs: 2 per
    multiplied weight (attention projections, FFN, lm_head) plus the attention
    scores and weighted sum of ``flops_per_token`` (counted as attention; in
    ``prefill`` mode averaged over a causal prompt, (n+1)/2 keys per token). The
    parts sum to ``flops_per_token(cfg, seq_len, mode).total`` exactly.

    ``mlp_cfg``: take the FFN's parameters and FLOPs from this config instead (the
    same model with another MLP layout, e.g. a plain two-matrix MLP), so that
    switching the MLP changes the MLP alone; attention and the rest stay ``cfg``'s.
    Shares are floats (fractions of the total).
    """
    cfg = as_config(cfg)
    if mlp_cfg is not None and cfg.is_moe:
        raise ValueError("mlp_cfg: only for dense models (an MoE layer has experts, not one MLP)")
    pc = param_count(cfg)
    ffn_src = param_count(as_config(mlp_cfg)) if mlp_cfg is not None else pc
    comp, mm = pc.components, pc.matmul_components   # matmul: routed experts top-k only
    attn_p = comp["attention"]
    ffn_p = sum(ffn_src.components[c] for c in FFN_COMPONENTS)
    other_p = sum(comp.values()) - attn_p - sum(comp[c] for c in FFN_COMPONENTS)
    total = attn_p + ffn_p + other_p
    fl = flops_per_token(cfg, seq_len, mode)
    own_ffn_f = 2 * sum(mm.get(c, 0) for c in FFN_COMPONENTS)
    ffn_f = 2 * sum(ffn_src.matmul_components.get(c, 0) for c in FFN_COMPONENTS)
    proj_f = 2 * mm.get("attention", 0)
    attn_f = proj_f + fl.attention
    total_f = fl.total - own_ffn_f + ffn_f
    inter = (mlp_cfg or cfg).intermediate_size
    return {
        "model": cfg.name, "layers": cfg.num_hidden_layers, "hidden_size": cfg.hidden_size,
        "intermediate_size": inter, "ffn_ratio": inter / cfg.hidden_size,
        "attention_params": attn_p, "ffn_params": ffn_p, "other_params": other_p,
        "total_params": total,
        "ffn_param_share": ffn_p / total, "attention_param_share": attn_p / total,
        "ffn_layer_share": ffn_p / (ffn_p + attn_p),
        "attention_projection_flops": proj_f, "attention_score_flops": fl.attention,
        "attention_flops": attn_f, "ffn_flops": ffn_f,
        "other_flops": total_f - attn_f - ffn_f, "total_flops": total_f,
        "ffn_flop_share": ffn_f / total_f, "attention_flop_share": attn_f / total_f,
        "seq_len": seq_len, "mode": mode,
    }
