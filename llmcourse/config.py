"""Model configurations in the Hugging Face ``config.json`` vocabulary.

A :class:`ModelConfig` is an immutable, validated view of a model's
``config.json``. Field names stay the Hugging Face ones (``hidden_size``,
``num_key_value_heads``, ``moe_intermediate_size`` ...), so what a reader learns
here is what they will read on the model hub.

Every impossible configuration raises :class:`ConfigError` (a ``ValueError``)
whose one-line message names the field and the rule. Nothing in a config is
ever executed: ``auto_map`` and friends are kept as data and ignored.
"""

from __future__ import annotations

import json
import math
import os
from types import MappingProxyType

from .layers import Axis, LayerSchedule, LayerTypes
from .limits import (MAX_FILE_BYTES, MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_LIST, MAX_SIZE,
                     ConfigError, field_name, show)

__all__ = ["ConfigError", "ModelConfig", "from_hf_config", "config_from_json", "as_moe",
           "SUPPORTED_MODEL_TYPES"]


# --- what each model_type reads -------------------------------------------------
# family: which tensor layout (see architectures.py); defaults: Hugging Face's own
# defaults for fields a config.json may leave out (from each transformers
# ``*Config`` class); moe: which field holds the routed expert count; layers: the
# layer schedule, a function of the resolved config returning one Axis per layer
# property (see llmcourse/layers.py and CONTRIBUTING.md, "Layer schedules"):
# ``attention`` (default: every layer sliding when a sliding_window is set, else
# full; with no sliding_window, sliding layers attend fully), ``mlp`` (default:
# every layer MoE for a MoE model, else dense), ``rope`` (default: every layer).
# An explicit ``layer_types`` list replaces ``attention``.

def _windowed_by_depth(r):
    """Qwen2/Qwen3: with use_sliding_window, layers from max_window_layers on slide."""
    if not r.get("use_sliding_window"):
        return dict(attention=Axis.constant("full_attention"))
    return dict(attention=Axis.cycle(("sliding_attention", 1),
                                     prefix=[("full_attention", r["max_window_layers"])],
                                     field="max_window_layers"))


def _alternating(r):
    """Gemma-2, gpt-oss: sliding, full, sliding, full, ..."""
    return dict(attention=Axis.cycle(("sliding_attention", 1), ("full_attention", 1),
                                     field="layer_types"))


def _qwen_moe_mlp(r):
    """MoE where (i + 1) % decoder_sparse_step == 0, except mlp_only_layers (dense)."""
    step = r["decoder_sparse_step"]
    mlp = Axis.every(step, "moe", "dense", phase=step - 1, field="decoder_sparse_step")
    return mlp.override(r.get("mlp_only_layers") or (), "dense")


def _qwen3_moe_layers(r):
    """Qwen3-MoE: the MLP schedule above; attention windowed by depth, as Qwen3."""
    return dict(_windowed_by_depth(r), mlp=_qwen_moe_mlp(r))


def _deepseek_layers(r):
    """Full attention (MLA); MoE from first_k_dense_replace on. transformers builds
    every later layer as MoE and ignores moe_layer_freq (DeepSeek's own modeling code
    keeps every moe_layer_freq-th; every released model has 1), and so do we."""
    return dict(attention=Axis.constant("full_attention"),
                mlp=Axis.cycle(("moe", 1), prefix=[("dense", r["first_k_dense_replace"])],
                               field="first_k_dense_replace"))


def _full_attention(r):
    return dict(attention=Axis.constant("full_attention"))


def _nope_axis(r, layers):
    """SmolLM3 / Llama-4: which layers use RoPE (no_rope_layers: 1 = RoPE, 0 = NoPE; by
    default every no_rope_layer_interval-th layer is NoPE)."""
    nrl = r.get("no_rope_layers")
    if not nrl:  # transformers treats an empty list as absent
        n = r["no_rope_layer_interval"]
        return Axis.every(n, False, True, phase=n - 1, field="no_rope_layer_interval")
    return Axis.from_list([bool(v) for v in nrl[:layers]], field="no_rope_layers")


def _gemma3_layers(r):
    """Gemma-3: sliding_window_pattern - 1 sliding layers, then one full."""
    return dict(attention=Axis.cycle(("sliding_attention", r["sliding_window_pattern"] - 1),
                                     ("full_attention", 1), field="sliding_window_pattern"))


def _llama4_layers(r):
    """Llama-4: RoPE layers attend within chunks, NoPE layers (every 4th) to all; MoE in
    moe_layers (by default every interleave_moe_layer_step-th layer)."""
    rope = _nope_axis(r, r["num_hidden_layers"])
    attention = rope.map(lambda v: "chunked_attention" if v else "full_attention")
    ml = r.get("moe_layers")
    if ml is None:
        step = r["interleave_moe_layer_step"]
        mlp = Axis.every(step, "moe", "dense", phase=step - 1, field="interleave_moe_layer_step")
    else:
        mlp = Axis.constant("dense", field="moe_layers").override(ml, "moe")
    return dict(attention=attention, mlp=mlp, rope=rope)


def _qwen3_next_layers(r):
    """Qwen3-Next: full_attention_interval - 1 gated-DeltaNet layers, then one full;
    MoE as Qwen3-MoE."""
    n = r["full_attention_interval"]  # (no sliding window: use_sliding_window is not read)
    return dict(mlp=_qwen_moe_mlp(r),
                attention=Axis.cycle(("linear_attention", n - 1), ("full_attention", 1),
                                     field="full_attention_interval"))


def _qwen3_5_layers(r):
    """Qwen3.5/3.6: full_attention_interval - 1 gated-DeltaNet layers, then one full
    (transformers' default layer_types; real configs list them); every MLP MoE or dense."""
    n = r["full_attention_interval"]
    return dict(attention=Axis.cycle(("linear_attention", n - 1), ("full_attention", 1),
                                     field="full_attention_interval"))


def _smollm3_layers(r):
    """SmolLM3: a NoPE layer in every 4; with a window, the NoPE layers slide."""
    rope = _nope_axis(r, r["num_hidden_layers"])
    if not r.get("use_sliding_window") or r.get("sliding_window") is None:
        return dict(attention=Axis.constant("full_attention"), rope=rope)
    return dict(attention=rope.map(lambda v: "full_attention" if v else "sliding_attention"),
                rope=rope)


def _qwen2_moe_layers(r):
    """Qwen1.5/2-MoE: with use_sliding_window, even layers below max_window_layers slide."""
    attention = Axis.constant("full_attention")
    if r.get("use_sliding_window"):
        mwl = min(r["max_window_layers"], r["num_hidden_layers"])
        if mwl > MAX_LIST:
            _fail("max_window_layers", f"with use_sliding_window, the course reads at most "
                  f"{MAX_LIST:,} windowed layers", mwl)
        attention = Axis(prefix=[("sliding_attention" if i % 2 == 0 else "full_attention", 1)
                                 for i in range(mwl)], period=[("full_attention", 1)],
                         field="max_window_layers")
    return dict(mlp=_qwen_moe_mlp(r), attention=attention)


def _glm4_moe_layers(r):
    """GLM-4.5: the first first_k_dense_replace layers dense, then MoE."""
    return dict(attention=Axis.constant("full_attention"),
                mlp=Axis.cycle(("moe", 1), prefix=[("dense", r["first_k_dense_replace"])],
                               field="first_k_dense_replace"))


def _mlp_types_axis(r, dense_prefix):
    """transformers 5's ``mlp_layer_types`` ("dense" / "sparse" per layer, as GLM-4.7-Flash,
    DeepSeek-V3.2 and GLM-5 configs write it back), else ``dense_prefix`` dense layers
    and MoE after them."""
    L = r["num_hidden_layers"]
    mlt = r.get("mlp_layer_types")
    if mlt is None:
        return Axis.cycle(("moe", 1), prefix=[("dense", min(dense_prefix, L))],
                          field="first_k_dense_replace")
    if not isinstance(mlt, list) or len(mlt) != L or not all(v in ("dense", "sparse")
                                                             for v in mlt):
        _fail("mlp_layer_types", f"must list 'dense' or 'sparse' for each of the {L:,} layers",
              mlt)
    return Axis.from_list(["moe" if v == "sparse" else "dense" for v in mlt],
                          field="mlp_layer_types")


def _glm4_moe_lite_layers(r):
    """GLM-4.7-Flash: MLA; the first layer dense, every later one MoE (transformers 5.23's
    default mlp_layer_types; it does not read first_k_dense_replace)."""
    return dict(attention=Axis.constant("full_attention"), mlp=_mlp_types_axis(r, 1))


def _dsa_indexer_axis(r):
    """GLM-5: which layers run their own lightning indexer ("full") and which reuse the
    previous layer's top-k ("shared"): ``indexer_types``, else ``index_topk_pattern``
    ("FSS..."), else every ``index_topk_freq``-th layer after ``index_skip_topk_offset``
    (as GlmMoeDsaConfig derives it; by default every layer has its own)."""
    L = r["num_hidden_layers"]
    it = r.get("indexer_types")
    field = "indexer_types"
    if it is None and r.get("index_topk_pattern") is not None:
        pat, field = r["index_topk_pattern"], "index_topk_pattern"
        it = [{"F": "full", "S": "shared"}.get(c) for c in pat] if isinstance(pat, str) else pat
    if it is not None:
        if not isinstance(it, list) or len(it) != L or not all(v in ("full", "shared")
                                                                for v in it):
            _fail(field, f"must give 'full' or 'shared' ('F' or 'S') for each of the {L:,} "
                  "layers", r.get(field))
        return Axis.from_list([v == "full" for v in it], field=field)
    freq, offset = r.get("index_topk_freq", 1), r.get("index_skip_topk_offset", 2)
    for f, v, lo in (("index_topk_freq", freq, 1), ("index_skip_topk_offset", offset, 0)):
        if not _is_int(v) or not lo <= v <= MAX_SIZE:
            _fail(f, f"must be a whole number, {lo} or more", v)
    # layer i runs its indexer when max(i - offset + 1, 0) % freq == 0
    return Axis.cycle((True, 1), (False, freq - 1), prefix=[(True, max(offset - 1, 0))],
                      field="index_topk_freq")


def _dsa_layers(r, indexer):
    """DeepSeek-V3.2 and GLM-5: MLA whose queries attend to the index_topk keys a small
    indexer picks (transformers' layer kind ``indexed_attention``); MoE after
    first_k_dense_replace dense layers, or as mlp_layer_types lists."""
    L = r["num_hidden_layers"]
    return dict(attention=Axis.constant("indexed_attention"),
                mlp=_mlp_types_axis(r, r["first_k_dense_replace"]),
                indexer=indexer(r) if indexer else Axis.constant(True))


# Nemotron-H's blocks: M a Mamba-2 mixer, * attention, E routed experts, - a dense MLP
# (transformers 5.23 writes them back in layers_block_type as linear_attention,
# full_attention, moe, mlp); each block is one of the four, with one norm before it
_NEMOTRON_BLOCKS = {"M": ("mamba", "none"), "*": ("full_attention", "none"),
                    "E": ("none", "moe"), "-": ("none", "dense")}
_NEMOTRON_TYPES = {"linear_attention": "M", "full_attention": "*", "moe": "E", "mlp": "-"}


def _nemotron_pattern(r):
    """The block pattern as a string of M * E -: layers_block_type (the saved form; also
    read as layer_types), else hybrid_override_pattern, else transformers' default."""
    lbt = r.get("layers_block_type")
    if lbt is not None:
        if not isinstance(lbt, list) or not lbt or len(lbt) > MAX_LIST or not all(
                isinstance(v, str) and v in _NEMOTRON_TYPES for v in lbt):
            _fail("layers_block_type", "must list each block as one of "
                  f"{', '.join(_NEMOTRON_TYPES)} (at most {MAX_LIST:,})", lbt)
        return "".join(_NEMOTRON_TYPES[v] for v in lbt)
    pat = r.get("hybrid_override_pattern")
    if pat is None:
        return "ME*-"
    if not isinstance(pat, str) or not pat or len(pat) > MAX_LIST or set(pat) - set(_NEMOTRON_BLOCKS):
        _fail("hybrid_override_pattern", "must be a string of M (Mamba-2), * (attention), "
              f"E (experts) and - (MLP), one per block, at most {MAX_LIST:,}", pat)
    return pat


def _nemotron_h_layers(r):
    pat = _nemotron_pattern(r)
    return dict(attention=Axis.from_list([_NEMOTRON_BLOCKS[c][0] for c in pat],
                                         field="hybrid_override_pattern"),
                mlp=Axis.from_list([_NEMOTRON_BLOCKS[c][1] for c in pat],
                                   field="hybrid_override_pattern"),
                # its attention blocks use no position code (NoPE): the Mamba blocks carry order
                rope=Axis.from_list([c != "*" for c in pat], field="hybrid_override_pattern"))


def _gemma4_layers(r):
    """Gemma 4: five sliding-window layers to one full layer (or layer_types), the last layer
    always full (transformers forces it); the last num_kv_shared_layers layers reuse the
    K and V of the last earlier layer of their kind; full layers have their own head width
    (global_head_dim) and, with attention_k_eq_v, their own KV-head count
    (num_global_key_value_heads) - or, in the form transformers writes back, whatever
    per_layer_config says for each layer."""
    L = r["num_hidden_layers"]
    lt = r.pop("layer_types", None)  # read here: the last layer is forced to full
    r["layer_types"] = None
    if lt is None:
        attn = Axis.cycle(("sliding_attention", 5), ("full_attention", 1), field="layer_types")
        first = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(min(L, 7))]
    else:
        if not isinstance(lt, list) or len(lt) != L or not all(
                v in ("sliding_attention", "full_attention") for v in lt):
            _fail("layer_types", f"must list sliding_attention or full_attention for each of the "
                  f"{L:,} layers", lt)
        attn = Axis.from_list(lt, field="layer_types")
        first = list(lt)
    attn = attn.override([L - 1], "full_attention")
    n = r["num_kv_shared_layers"]
    if n > L - 1 and n:
        _fail("num_kv_shared_layers", f"must leave at least one layer that stores K and V "
              f"(num_hidden_layers={L:,})", n)
    if n:  # the layers that store K and V must include every kind the sharing layers need
        stored = set(first[:L - n]) if L - n <= len(first) else set(first)
        kinds = set(first) | {"full_attention"}
        if stored != kinds:
            _fail("num_kv_shared_layers", "the layers before the shared ones must include "
                  "every attention kind (transformers: the set of layer types producing a "
                  "cache is different than the set using them)", n)
    shared = Axis.cycle((True, 1), prefix=[(False, L - n)], field="num_kv_shared_layers")
    plc = r.get("per_layer_config")
    if plc is not None:  # the saved form: {"05": {"head_dim": 512, "num_key_value_heads": 2}}
        if not isinstance(plc, dict) or len(plc) > MAX_LIST:
            _fail("per_layer_config", "must map layer indices to their own settings", plc)
        hd, kv = Axis.constant(0, field="per_layer_config"), Axis.constant(0,
                                                                            field="per_layer_config")
        by_hd, by_kv = {}, {}
        for key, ov in plc.items():
            try:
                i = int(key)
            except (TypeError, ValueError):
                i = -1
            if not 0 <= i < L or not isinstance(ov, dict):
                _fail("per_layer_config", f"keys must be layer indices in 0..{L - 1:,}, each "
                      "with an object of settings", key)
            extra = set(ov) - {"head_dim", "num_key_value_heads", "skip"}
            if extra or ov.get("skip"):
                _fail("per_layer_config", "only a layer's own head_dim and num_key_value_heads "
                      f"are modelled here (layer {i}: {', '.join(sorted(extra)) or 'skip'})",
                      show_value=False)
            for f, out in (("head_dim", by_hd), ("num_key_value_heads", by_kv)):
                v = ov.get(f)
                if v is None:
                    continue
                if not _is_int(v) or not 0 < v <= MAX_SIZE:
                    _fail(f"per_layer_config.{key}.{f}", "must be a positive whole number", v)
                out.setdefault(v, []).append(i)
        for v, idx in by_hd.items():
            hd = hd.override(idx, v)
        for v, idx in by_kv.items():
            kv = kv.override(idx, v)
    else:
        ghd = r.get("global_head_dim", 512)
        ghd = 512 if ghd is None else ghd
        if not _is_int(ghd) or not 0 < ghd <= MAX_SIZE:
            _fail("global_head_dim", "must be a positive whole number", ghd)
        gkv = r.get("num_global_key_value_heads") if r.get("attention_k_eq_v") else None
        if gkv is not None and (not _is_int(gkv) or not 0 < gkv <= MAX_SIZE):
            _fail("num_global_key_value_heads", "must be a positive whole number", gkv)
        hd = attn.map(lambda v: ghd if v == "full_attention" else 0)
        kv = attn.map(lambda v: gkv or 0 if v == "full_attention" else 0)
    return dict(attention=attn, kv_shared=shared, head_dim=hd, kv_heads=kv,
                mlp=Axis.constant("moe" if r.get("enable_moe_block") else "dense"))


def _kimi_linear_layers(r):
    """Kimi-Linear: Kimi Delta Attention layers (transformers: linear_attention) and MLA
    layers (full_attention), listed 1-indexed in linear_attn_config (full_attn_layers,
    kda_layers), else every 4th layer after the first full; the first
    first_k_dense_replace layers dense (or mlp_layer_types)."""
    L = r["num_hidden_layers"]
    lac = r.get("linear_attn_config") or {}
    if not isinstance(lac, dict):
        _fail("linear_attn_config", "must be a JSON object", lac)
    if r.get("layer_types") is None and "full_attn_layers" in lac and "kda_layers" in lac:
        kinds = [None] * L
        for key, kind in (("full_attn_layers", "full_attention"), ("kda_layers",
                                                                   "linear_attention")):
            idx = lac[key]
            if not isinstance(idx, list) or not all(_is_int(i) and 1 <= i <= L for i in idx):
                _fail(f"linear_attn_config.{key}", f"must list layer numbers 1..{L:,} "
                      "(1-indexed)", idx)
            for i in idx:
                kinds[i - 1] = kind
        if None in kinds:
            _fail("linear_attn_config", f"full_attn_layers and kda_layers must name each of the "
                  f"{L:,} layers (layer {kinds.index(None) + 1} is in neither)",
                  show_value=False)
        attn = Axis.from_list(kinds, field="linear_attn_config")
    else:   # transformers' default: full when i and i % 4 == 0 (layers 4, 8, ...)
        attn = Axis.cycle(("full_attention", 1), ("linear_attention", 3),
                          prefix=[("linear_attention", 4)], field="layer_types")
    return dict(attention=attn, mlp=_mlp_types_axis(r, r.get("first_k_dense_replace", 1)))


_V4_RATIO_KINDS = {0: "sliding_attention", 4: "compressed_sparse_attention",
                   128: "heavily_compressed_attention"}
V4_ATTENTION_KINDS = ("sliding_attention", "compressed_sparse_attention",
                      "heavily_compressed_attention")


def _deepseek_v4_layers(r):
    """DeepSeek-V4: every layer attends within a sliding window of one shared K = V head;
    compressed sparse (CSA: every compress_rates[...] = 4 tokens become one entry, an
    indexer picks index_topk of them) and heavily compressed (HCA: 128 tokens to one)
    layers add compressed entries. layer_types, else the checkpoint's compress_ratios
    (0 / 4 / 128 per layer), else 2 HCA layers then CSA and HCA in turn; the first
    num_hash_layers (3) MoE layers route by a fixed token-id hash (mlp_layer_types)."""
    L = r["num_hidden_layers"]
    lt = r.pop("layer_types", None)
    r["layer_types"] = None
    field = "layer_types"
    if lt is None and r.get("compress_ratios") is not None:
        cr, field = r["compress_ratios"], "compress_ratios"
        if not isinstance(cr, list) or len(cr) < L or any(v not in _V4_RATIO_KINDS for v in cr):
            _fail("compress_ratios", f"must give 0, 4 or 128 for each of the {L:,} layers", cr)
        lt = [_V4_RATIO_KINDS[v] for v in cr[:L]]
    if lt is None:
        # transformers: 2 HCA, then HCA where (i - 2) is even, CSA where it is odd
        attn = Axis.cycle(("compressed_sparse_attention", 1), ("heavily_compressed_attention", 1),
                          prefix=[("heavily_compressed_attention", min(L, 3))],
                          field="layer_types")
    else:
        if not isinstance(lt, list) or len(lt) < L or any(v not in V4_ATTENTION_KINDS for v in lt):
            _fail(field, f"must list one of {', '.join(V4_ATTENTION_KINDS)} for each of the "
                  f"{L:,} layers", lt)
        attn = Axis.from_list(list(lt[:L]), field=field)
    mlt = r.get("mlp_layer_types")
    if mlt is None:
        n_hash = r.get("num_hash_layers")
        n_hash = 3 if n_hash is None else n_hash
        if not _is_int(n_hash) or n_hash < 0:
            _fail("num_hash_layers", "must be a whole number, 0 or more", n_hash)
        mlp = Axis.cycle(("moe", 1), prefix=[("hash_moe", min(L, n_hash))],
                         field="num_hash_layers")
    else:
        if not isinstance(mlt, list) or len(mlt) < L or any(v not in ("moe", "hash_moe")
                                                           for v in mlt):
            _fail("mlp_layer_types", f"must list moe or hash_moe for each of the {L:,} layers",
                  mlt)
        mlp = Axis.from_list(list(mlt[:L]), field="mlp_layer_types")
    return dict(attention=attn, mlp=mlp)


_COMMON = dict(num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
               attention_bias=False, sliding_window=None, layer_types=None)

_FAMILIES = {
    "llama": dict(family="llama", defaults=dict(_COMMON, mlp_bias=False)),
    "mistral": dict(family="llama", defaults=dict(_COMMON, sliding_window=4096)),
    "qwen2": dict(family="llama", layers=_windowed_by_depth, defaults=dict(_COMMON, use_sliding_window=False,
                                                max_window_layers=28)),
    "qwen3": dict(family="llama", layers=_windowed_by_depth, defaults=dict(_COMMON, use_sliding_window=False,
                                                max_window_layers=28)),
    # transformers 5 stores Qwen3-MoE's expert count as num_local_experts (num_experts is
    # its alias) and writes that key back: a saved fine-tune has no num_experts
    "qwen3_moe": dict(family="llama", moe="num_experts", layers=_qwen3_moe_layers,
                      attribute_map=dict(num_experts="num_local_experts"),
                      own_wins=("num_experts",),
                      defaults=dict(_COMMON, use_sliding_window=False, max_window_layers=28,
                                    decoder_sparse_step=1, mlp_only_layers=[],
                                    num_local_experts=128, num_experts_per_tok=8,
                                    moe_intermediate_size=768)),
    "mixtral": dict(family="llama", moe="num_local_experts",
                    attribute_map=dict(num_experts="num_local_experts"),
                    defaults=dict(_COMMON, num_local_experts=8, num_experts_per_tok=2)),
    "gemma2": dict(family="llama", layers=_alternating, defaults=dict(_COMMON, tie_word_embeddings=True,
                                                 sliding_window=4096)),
    "phi": dict(family="phi", layers=_full_attention, defaults=dict(_COMMON, qk_layernorm=False)),
    "gpt_oss": dict(family="llama", moe="num_local_experts", layers=_alternating,
                    attribute_map=dict(num_experts="num_local_experts"),
                    defaults=dict(_COMMON, attention_bias=True, sliding_window=128,
                                  num_local_experts=128, num_experts_per_tok=4)),
    "deepseek_v2": dict(family="deepseek", moe="n_routed_experts", layers=_deepseek_layers,
                        attribute_map=dict(num_experts="n_routed_experts"),
                        defaults=dict(_COMMON, first_k_dense_replace=0, n_shared_experts=None,
                                      q_lora_rank=1536, moe_layer_freq=1)),
    "deepseek_v3": dict(family="deepseek", moe="n_routed_experts", layers=_deepseek_layers,
                        attribute_map=dict(num_local_experts="n_routed_experts",
                                           num_mtp_layers="num_nextn_predict_layers"),
                        own_wins=("num_mtp_layers",),
                        defaults=dict(_COMMON, first_k_dense_replace=3, n_shared_experts=1,
                                      q_lora_rank=1536, moe_layer_freq=1)),
    # --- more families (issue 12). Defaults: each transformers 5 ``*Config`` class, so a
    # config.json that leaves a key out reads as transformers reads it.
    "gpt2": dict(family="gpt2", layers=_full_attention,
                 # GPT-2's own names for the standard fields (transformers' attribute_map)
                 attribute_map=dict(hidden_size="n_embd", num_hidden_layers="n_layer",
                                    num_attention_heads="n_head",
                                    max_position_embeddings="n_positions",
                                    intermediate_size="n_inner"),
                 defaults=dict(num_key_value_heads=None, head_dim=None, vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12,
                               n_head=12, n_inner=None, tie_word_embeddings=True,
                               add_cross_attention=False, layer_types=None, sliding_window=None)),
    "gpt_neox": dict(family="neox", layers=_full_attention,
                     defaults=dict(num_key_value_heads=None, head_dim=None, vocab_size=50432,
                                   hidden_size=6144, num_hidden_layers=44,
                                   num_attention_heads=64, intermediate_size=24576,
                                   max_position_embeddings=2048, tie_word_embeddings=False,
                                   attention_bias=True, layer_types=None, sliding_window=None)),
    "gemma": dict(family="llama", layers=_full_attention,
                  defaults=dict(_COMMON, vocab_size=256000, hidden_size=3072,
                                intermediate_size=24576, num_hidden_layers=28,
                                num_attention_heads=16, num_key_value_heads=16, head_dim=256,
                                max_position_embeddings=8192, tie_word_embeddings=True,
                                pad_token_id=0)),
    "gemma3_text": dict(family="llama", divisible_heads=True, layers=_gemma3_layers,
                        defaults=dict(_COMMON, vocab_size=262208, hidden_size=2304,
                                      intermediate_size=9216, num_hidden_layers=26,
                                      num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                                      max_position_embeddings=131072, tie_word_embeddings=True,
                                      sliding_window=4096, sliding_window_pattern=6,
                                      use_bidirectional_attention=False, pad_token_id=0)),
    "phi3": dict(family="llama",
                 defaults=dict(_COMMON, vocab_size=32064, hidden_size=3072, intermediate_size=8192,
                               num_hidden_layers=32, num_attention_heads=32,
                               max_position_embeddings=4096, pad_token_id=32000)),
    "qwen2_moe": dict(family="llama", moe="num_experts", layers=_qwen2_moe_layers,
                      defaults=dict(_COMMON, vocab_size=151936, hidden_size=2048,
                                    intermediate_size=5632, num_hidden_layers=24,
                                    num_attention_heads=16, num_key_value_heads=16,
                                    max_position_embeddings=32768, use_sliding_window=False,
                                    sliding_window=4096, max_window_layers=28,
                                    decoder_sparse_step=1, moe_intermediate_size=1408,
                                    shared_expert_intermediate_size=5632, num_experts_per_tok=4,
                                    num_experts=60, mlp_only_layers=[], qkv_bias=True)),
    "olmo2": dict(family="llama", layers=_full_attention,
                  defaults=dict(_COMMON, vocab_size=50304, hidden_size=4096, intermediate_size=11008,
                                num_hidden_layers=32, num_attention_heads=32,
                                max_position_embeddings=2048, pad_token_id=1)),
    "granite": dict(family="llama", layers=_full_attention,
                    defaults=dict(_COMMON, vocab_size=32000, hidden_size=4096,
                                  intermediate_size=11008, num_hidden_layers=32,
                                  num_attention_heads=32, max_position_embeddings=2048,
                                  mlp_bias=False)),
    "smollm3": dict(family="llama", layers=_smollm3_layers,
                    defaults=dict(_COMMON, vocab_size=128256, hidden_size=2048,
                                  intermediate_size=11008, num_hidden_layers=36,
                                  num_attention_heads=16, num_key_value_heads=4,
                                  max_position_embeddings=32768, tie_word_embeddings=True,
                                  mlp_bias=False, use_sliding_window=False, no_rope_layers=None,
                                  pad_token_id=128004,
                                  no_rope_layer_interval=4)),
    "glm4_moe": dict(family="llama", moe="n_routed_experts", layers=_glm4_moe_layers,
                     attribute_map=dict(num_local_experts="n_routed_experts",
                                        num_mtp_layers="num_nextn_predict_layers"),
                     own_wins=("num_mtp_layers",),
                     defaults=dict(_COMMON, vocab_size=151552, hidden_size=4096,
                                   intermediate_size=10944, num_hidden_layers=46,
                                   num_attention_heads=96, num_key_value_heads=8,
                                   max_position_embeddings=131072, moe_intermediate_size=1408,
                                   num_experts_per_tok=8, n_shared_experts=1,
                                   n_routed_experts=128, first_k_dense_replace=1,
                                   use_qk_norm=False, num_nextn_predict_layers=1)),
    "llama4_text": dict(family="llama", moe="num_local_experts", layers=_llama4_layers,
                        defaults=dict(_COMMON, vocab_size=202048, hidden_size=5120,
                                      intermediate_size=8192, intermediate_size_mlp=16384,
                                      num_hidden_layers=48, num_attention_heads=40,
                                      num_key_value_heads=8, head_dim=128,
                                      max_position_embeddings=131072, num_experts_per_tok=1,
                                      num_local_experts=16, moe_layers=None,
                                      interleave_moe_layer_step=1, use_qk_norm=True,
                                      no_rope_layers=None, no_rope_layer_interval=4,
                                      attention_chunk_size=8192)),
    "qwen3_next": dict(family="llama", moe="num_experts", layers=_qwen3_next_layers,
                       defaults=dict(_COMMON, vocab_size=151936, hidden_size=2048,
                                     intermediate_size=5632, num_hidden_layers=48,
                                     num_attention_heads=16, num_key_value_heads=2, head_dim=256,
                                     max_position_embeddings=32768, linear_conv_kernel_dim=4,
                                     linear_key_head_dim=128, linear_value_head_dim=128,
                                     linear_num_key_heads=16, linear_num_value_heads=32,
                                     decoder_sparse_step=1, moe_intermediate_size=512,
                                     shared_expert_intermediate_size=512, num_experts_per_tok=10,
                                     num_experts=512, mlp_only_layers=[],
                                     full_attention_interval=4)),
    # --- 2026 families (issue 21): Qwen3.5 and Qwen3.6, Qwen3-Next's layout (3 gated-DeltaNet
    # layers, then one full-attention layer with an output gate) as a dense model and as MoE.
    # Defaults: transformers 5.23's Qwen3_5TextConfig / Qwen3_5MoeTextConfig.
    "qwen3_5_text": dict(family="llama", layers=_qwen3_5_layers,
                         defaults=dict(_COMMON, vocab_size=248320, hidden_size=4096,
                                       intermediate_size=12288, num_hidden_layers=32,
                                       num_attention_heads=16, num_key_value_heads=4,
                                       head_dim=256, max_position_embeddings=32768,
                                       linear_conv_kernel_dim=4, linear_key_head_dim=128,
                                       linear_value_head_dim=128, linear_num_key_heads=16,
                                       linear_num_value_heads=32, full_attention_interval=4)),
    # no dense MLP anywhere: intermediate_size is not a field (read as the expert width)
    "qwen3_5_moe_text": dict(family="llama", moe="num_experts", layers=_qwen3_5_layers,
                             defaults=dict(_COMMON, vocab_size=248320, hidden_size=2048,
                                           num_hidden_layers=40, num_attention_heads=16,
                                           num_key_value_heads=2, head_dim=256,
                                           max_position_embeddings=32768,
                                           linear_conv_kernel_dim=4, linear_key_head_dim=128,
                                           linear_value_head_dim=128, linear_num_key_heads=16,
                                           linear_num_value_heads=32, full_attention_interval=4,
                                           moe_intermediate_size=512,
                                           shared_expert_intermediate_size=512,
                                           num_experts_per_tok=8, num_experts=256)),
    # DeepSeek-V3's MLA and MoE in four 2026 families (defaults: each transformers 5.23
    # *Config class). GLM-4.7-Flash and Mistral Small 4: MLA + MoE. DeepSeek-V3.2 and GLM-5:
    # DeepSeek Sparse Attention, a lightning indexer per layer that picks index_topk keys.
    "glm4_moe_lite": dict(family="deepseek", moe="n_routed_experts", layers=_glm4_moe_lite_layers,
                          attribute_map=dict(num_local_experts="n_routed_experts",
                                             head_dim="qk_rope_head_dim"),
                          defaults=dict(_COMMON, vocab_size=154880, hidden_size=2048,
                                        intermediate_size=10240, moe_intermediate_size=1536,
                                        num_hidden_layers=47, num_attention_heads=20,
                                        num_key_value_heads=20, n_shared_experts=1,
                                        n_routed_experts=64, kv_lora_rank=512, q_lora_rank=768,
                                        qk_rope_head_dim=64, v_head_dim=256,
                                        qk_nope_head_dim=192, num_experts_per_tok=4,
                                        max_position_embeddings=202752, mlp_layer_types=None,
                                        num_nextn_predict_layers=0)),
    "mistral4": dict(family="deepseek", moe="n_routed_experts", layers=_deepseek_layers,
                     attribute_map=dict(num_local_experts="n_routed_experts"),
                     defaults=dict(_COMMON, vocab_size=131072, hidden_size=4096,
                                   intermediate_size=12288, moe_intermediate_size=2048,
                                   num_hidden_layers=36, num_attention_heads=32,
                                   n_shared_experts=1, n_routed_experts=128, kv_lora_rank=256,
                                   q_lora_rank=1024, qk_rope_head_dim=64, v_head_dim=128,
                                   qk_nope_head_dim=64, num_experts_per_tok=4,
                                   first_k_dense_replace=0, max_position_embeddings=1048576,
                                   pad_token_id=11)),
    "deepseek_v32": dict(family="deepseek", moe="n_routed_experts",
                         layers=lambda r: _dsa_layers(r, None),
                         attribute_map=dict(num_local_experts="n_routed_experts"),
                         defaults=dict(_COMMON, vocab_size=129280, hidden_size=7168,
                                       intermediate_size=18432, moe_intermediate_size=2048,
                                       num_hidden_layers=61, num_attention_heads=128,
                                       num_key_value_heads=128, n_shared_experts=1,
                                       n_routed_experts=256, kv_lora_rank=512, q_lora_rank=1536,
                                       qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128,
                                       num_experts_per_tok=8, max_position_embeddings=163840,
                                       index_topk=2048, index_head_dim=128, index_n_heads=64,
                                       first_k_dense_replace=3, mlp_layer_types=None,
                                       num_nextn_predict_layers=0)),
    "glm_moe_dsa": dict(family="deepseek", moe="n_routed_experts",
                        layers=lambda r: _dsa_layers(r, _dsa_indexer_axis),
                        attribute_map=dict(num_local_experts="n_routed_experts"),
                        defaults=dict(_COMMON, vocab_size=154880, hidden_size=6144,
                                      intermediate_size=12288, moe_intermediate_size=2048,
                                      num_hidden_layers=78, num_attention_heads=64,
                                      num_key_value_heads=64, n_shared_experts=1,
                                      n_routed_experts=256, kv_lora_rank=512, q_lora_rank=2048,
                                      qk_rope_head_dim=64, v_head_dim=256, qk_nope_head_dim=192,
                                      num_experts_per_tok=8, max_position_embeddings=202752,
                                      index_topk=2048, index_head_dim=128, index_n_heads=32,
                                      first_k_dense_replace=3, mlp_layer_types=None,
                                      indexer_types=None, num_nextn_predict_layers=0)),
    # Nemotron 3 (Nemotron-H): Mamba-2 blocks, a few attention blocks and MoE blocks of
    # non-gated ReLU^2 experts with a shared expert, each block one of them
    # (hybrid_override_pattern); num_hidden_layers is the pattern's length
    "nemotron_h": dict(family="nemotron_h", moe="n_routed_experts", layers=_nemotron_h_layers,
                       attribute_map=dict(num_local_experts="n_routed_experts"),
                       defaults=dict(_COMMON, vocab_size=131072, hidden_size=4096,
                                     num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                                     max_position_embeddings=4096, intermediate_size=21504,
                                     mlp_bias=False, ssm_state_size=128, mamba_num_heads=128,
                                     mamba_head_dim=64, n_groups=8, conv_kernel=4,
                                     use_conv_bias=True, mamba_proj_bias=False, use_bias=False,
                                     n_routed_experts=8, n_shared_experts=1,
                                     moe_intermediate_size=7688,
                                     moe_shared_expert_intermediate_size=7688,
                                     moe_latent_size=None, num_experts_per_tok=2,
                                     hybrid_override_pattern=None, layers_block_type=None,
                                     pad_token_id=0, num_nextn_predict_layers=0)),
    # OLMo 3: OLMo-2's layout (norms after each sublayer, one norm over all q and over all
    # k) with three sliding-window layers to one full layer (default layer_types)
    "olmo3": dict(family="llama",
                  layers=lambda r: dict(attention=Axis.cycle(
                      ("sliding_attention", 3), ("full_attention", 1), field="layer_types")),
                  defaults=dict(_COMMON, vocab_size=50304, hidden_size=4096,
                                intermediate_size=11008, num_hidden_layers=32,
                                num_attention_heads=32, max_position_embeddings=2048,
                                pad_token_id=1, sliding_window=4096)),
    # Ministral 3 and Devstral 2: Mistral's layout (no biases, a given head_dim)
    "ministral3": dict(family="llama", layers=_full_attention,
                       defaults=dict(_COMMON, vocab_size=131072, hidden_size=4096,
                                     intermediate_size=14336, num_hidden_layers=34,
                                     num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                                     max_position_embeddings=262144, pad_token_id=11)),
    # Gemma 4 (text model): sliding and full layers of different widths, KV shared across
    # the last layers, K = V on full layers (26B, 31B), per-layer embeddings (E2B, E4B),
    # and in the 26B-A4B a dense MLP beside 128 routed experts in every layer
    "gemma4_text": dict(family="llama", moe="num_experts", layers=_gemma4_layers,
                        attribute_map=dict(num_experts_per_tok="top_k_experts"),
                        defaults=dict(_COMMON, vocab_size=262144, hidden_size=2304,
                                      intermediate_size=9216, num_hidden_layers=30,
                                      num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                                      max_position_embeddings=131072, tie_word_embeddings=True,
                                      sliding_window=512, pad_token_id=0,
                                      vocab_size_per_layer_input=262144,
                                      hidden_size_per_layer_input=256, attention_k_eq_v=False,
                                      num_kv_shared_layers=0, enable_moe_block=False,
                                      use_double_wide_mlp=False, num_experts=None,
                                      top_k_experts=None, moe_intermediate_size=None,
                                      global_head_dim=512, num_global_key_value_heads=None,
                                      per_layer_config=None)),
    # Seed-OSS: Llama's layout with biases on q, k and v (attention_bias) and, separately,
    # on o_proj (attention_out_bias); defaults from SeedOssConfig (not the 36B's sizes)
    "seed_oss": dict(family="llama", layers=_full_attention,
                     defaults=dict(_COMMON, vocab_size=155136, hidden_size=4096,
                                   intermediate_size=27648, num_hidden_layers=64,
                                   num_attention_heads=80, num_key_value_heads=8, head_dim=128,
                                   max_position_embeddings=524288, pad_token_id=1,
                                   attention_bias=True, attention_out_bias=False, mlp_bias=False)),
    # Kimi-Linear: three Kimi Delta Attention layers (a gated delta rule with a decay per
    # channel) to one MLA layer, and DeepSeek-V3's MoE; transformers' own names for its keys
    "kimi_linear": dict(family="deepseek", moe="num_experts", layers=_kimi_linear_layers,
                        attribute_map=dict(max_position_embeddings="model_max_length",
                                           n_group="num_expert_group",
                                           num_local_experts="num_experts",
                                           num_experts_per_tok="num_experts_per_token",
                                           n_shared_experts="num_shared_experts"),
                        # every standard name is a declared field, set before the file's own
                        # key: given both, the file's own (num_experts_per_token) wins
                        own_wins=("max_position_embeddings", "n_group", "num_local_experts",
                                  "num_experts_per_tok", "n_shared_experts"),
                        defaults=dict(_COMMON, vocab_size=163840, hidden_size=2304,
                                      intermediate_size=9216, moe_intermediate_size=1024,
                                      num_hidden_layers=27, num_attention_heads=32,
                                      num_key_value_heads=32, num_shared_experts=1,
                                      kv_lora_rank=512, q_lora_rank=None, qk_rope_head_dim=64,
                                      v_head_dim=128, qk_nope_head_dim=128,
                                      num_experts_per_token=8, model_max_length=1048576,
                                      num_experts=256, pad_token_id=163839,
                                      mlp_layer_types=None, linear_attn_config=None,
                                      first_k_dense_replace=1, linear_head_dim=128,
                                      linear_num_heads=32, linear_conv_kernel_dim=4)),
    # DeepSeek-V4: one shared K = V head of 512 per layer, sliding windows plus compressed
    # entries (CSA with an indexer, HCA), a grouped low-rank output projection, attention
    # sinks, 4-stream hyper-connections around each sublayer, and MoE with hash-routed
    # first layers. Names as transformers loads them (the checkpoint's own are DeepSeek's:
    # attn.wq_a, ffn.experts.N.w1, ...)
    "deepseek_v4": dict(family="deepseek_v4", moe="n_routed_experts", layers=_deepseek_v4_layers,
                        attribute_map=dict(num_local_experts="n_routed_experts",
                                           intermediate_size="moe_intermediate_size"),
                        defaults=dict(_COMMON, vocab_size=129280, hidden_size=4096,
                                      moe_intermediate_size=2048, num_hidden_layers=43,
                                      num_attention_heads=64, num_key_value_heads=1,
                                      head_dim=512, q_lora_rank=1024, num_experts_per_tok=6,
                                      n_routed_experts=256, n_shared_experts=1,
                                      max_position_embeddings=1048576, compress_rates=None,
                                      hc_mult=4, mlp_layer_types=None, sliding_window=128,
                                      o_groups=8, o_lora_rank=1024, index_n_heads=64,
                                      index_head_dim=128, index_topk=512,
                                      num_nextn_predict_layers=1, compress_ratios=None,
                                      num_hash_layers=None)),
    # MiniMax-M2: GQA with one RMSNorm over all query heads and one over all key heads
    # (OLMo-2's QK-norm), 256 experts top-8 in every layer, no shared expert
    "minimax_m2": dict(family="llama", moe="num_local_experts",
                       attribute_map=dict(num_experts="num_local_experts"),
                       defaults=dict(_COMMON, vocab_size=200064, hidden_size=3072,
                                     intermediate_size=1536, num_hidden_layers=62,
                                     num_attention_heads=48, num_key_value_heads=8, head_dim=128,
                                     max_position_embeddings=196608, num_experts_per_tok=8,
                                     num_local_experts=256)),
}

# multimodal configs whose language model is read from their ``text_config``
_MULTIMODAL = {"gemma3": "gemma3_text", "llama4": "llama4_text",
               "qwen3_5": "qwen3_5_text", "qwen3_5_moe": "qwen3_5_moe_text",
               "kimi_k25": "deepseek_v3",   # Kimi K2.5: DeepSeek-V3's layout, 384 experts
               "mistral3": "ministral3",    # Ministral 3 (Mistral Small 3.x: mistral inside)
               "gemma4": "gemma4_text"}
# text_config model types a wrapper also accepts, read as the one it maps to
_TEXT_ALIASES = {("kimi_k25", "kimi_k2"): "deepseek_v3", ("mistral3", "mistral"): "mistral"}
# DeepSeek Sparse Attention: an indexer beside MLA
DSA_TYPES = ("deepseek_v32", "glm_moe_dsa")
# Qwen3-Next's gated-DeltaNet layout: the types that share its tensors
DELTANET_TYPES = ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text")

SUPPORTED_MODEL_TYPES = tuple(sorted(set(_FAMILIES) | set(_MULTIMODAL)))


_REQUIRED = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
             "intermediate_size")
_REQUIRED_BY_TYPE = {
    "qwen3_moe": ("moe_intermediate_size",),
    "deepseek_v2": ("moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim",
                    "qk_nope_head_dim", "v_head_dim", "n_routed_experts", "num_experts_per_tok"),
    "deepseek_v3": ("moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim",
                    "qk_nope_head_dim", "v_head_dim", "n_routed_experts", "num_experts_per_tok"),
}
for _mt in ("glm4_moe_lite", "mistral4", "deepseek_v32", "glm_moe_dsa"):
    _REQUIRED_BY_TYPE[_mt] = _REQUIRED_BY_TYPE["deepseek_v3"] + (
        ("q_lora_rank", "index_topk", "index_head_dim", "index_n_heads") if _mt in DSA_TYPES
        else ())
_REQUIRED_BY_TYPE["deepseek_v4"] = ("q_lora_rank", "sliding_window")
_REQUIRED_BY_TYPE["kimi_linear"] = ("moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim",
                                    "qk_nope_head_dim", "v_head_dim")
# fields whose value must be a positive whole number when present (and not null)
_POSITIVE = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
             "intermediate_size", "num_key_value_heads", "head_dim", "moe_intermediate_size",
             "num_experts_per_tok", "kv_lora_rank", "qk_rope_head_dim", "v_head_dim",
             "q_lora_rank", "sliding_window", "decoder_sparse_step", "moe_layer_freq",
             "num_experts", "num_local_experts", "n_routed_experts", "max_window_layers",
             "max_position_embeddings", "experts_per_token", "n_group", "topk_group",
             "attention_chunk_size")
_NON_NEGATIVE = ("n_shared_experts", "first_k_dense_replace", "qk_nope_head_dim")
# fields read elsewhere in the course, checked for their type when present
_NUMBER = ("rope_theta", "rms_norm_eps", "layer_norm_eps", "partial_rotary_factor")
_STRING = ("torch_dtype", "dtype", "hidden_act", "hidden_activation", "_name_or_path")
_OBJECT = ("text_config", "rope_scaling", "quantization_config")
_BOOLEAN = ("tie_word_embeddings", "attention_bias", "mlp_bias", "use_sliding_window",
            "use_conv_bias", "use_bias", "attention_k_eq_v", "enable_moe_block",
            "attention_out_bias",
            "use_double_wide_mlp",
            "qk_layernorm", "qkv_bias", "use_qk_norm", "add_cross_attention",
            "use_bidirectional_attention", "norm_topk_prob")
_LAYER_TYPES = ("full_attention", "sliding_attention")
_LAYER_TYPES_BY_TYPE = {"llama4_text": ("full_attention", "chunked_attention"),
                        "kimi_linear": ("full_attention", "linear_attention"),
                        "deepseek_v32": ("indexed_attention",),
                        "glm_moe_dsa": ("indexed_attention",),
                        "glm4_moe_lite": ("full_attention",), "mistral4": ("full_attention",),
                        "minimax_m2": ("full_attention",),
                        "qwen3_next": ("full_attention", "linear_attention"),
                        "qwen3_5_text": ("full_attention", "linear_attention"),
                        "qwen3_5_moe_text": ("full_attention", "linear_attention")}
# model types whose attention never slides, whatever a config's sliding_window says
_NO_WINDOW = ("phi", "deepseek_v2", "deepseek_v3", "gpt2", "gpt_neox", "gemma", "olmo2",
              "granite", "glm4_moe", "glm4_moe_lite", "mistral4", "deepseek_v32", "glm_moe_dsa",
              "minimax_m2", "nemotron_h", "seed_oss", "kimi_linear", "deepseek_v4")
_POSITIVE_BY_TYPE = {
    "gpt2": ("n_embd", "n_layer", "n_head", "n_positions", "n_inner"),
    "gemma3_text": ("sliding_window_pattern",),
    "qwen2_moe": ("shared_expert_intermediate_size",),
    "qwen3_next": ("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                   "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval",
                   "shared_expert_intermediate_size"),
    "qwen3_5_text": ("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                     "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval"),
    "qwen3_5_moe_text": ("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                         "linear_num_key_heads", "linear_num_value_heads",
                         "full_attention_interval", "shared_expert_intermediate_size"),
    "llama4_text": ("intermediate_size_mlp", "interleave_moe_layer_step", "attention_chunk_size",
                    "no_rope_layer_interval"),
    "smollm3": ("no_rope_layer_interval",),
    "deepseek_v32": ("index_topk", "index_head_dim", "index_n_heads"),
    "gemma4_text": ("vocab_size_per_layer_input",),
    "kimi_linear": ("linear_head_dim", "linear_num_heads", "linear_conv_kernel_dim"),
    "deepseek_v4": ("q_lora_rank", "hc_mult", "o_groups", "o_lora_rank", "index_n_heads",
                    "index_head_dim", "index_topk"),
    "nemotron_h": ("ssm_state_size", "mamba_num_heads", "mamba_head_dim", "n_groups",
                   "conv_kernel", "moe_shared_expert_intermediate_size", "moe_latent_size"),
    "glm_moe_dsa": ("index_topk", "index_head_dim", "index_n_heads"),
}
# null in a config.json: derive it (KV heads = heads, head_dim = hidden / heads, no MLP-only
# layers, no position code pattern given) rather than a value it cannot be
_NULL_IS_AN_ERROR = ("gpt2", "gpt_neox", "gemma", "gemma3_text", "phi3", "qwen2_moe", "olmo2",
                     "granite", "smollm3", "glm4_moe", "llama4_text", "qwen3_next",
                     "qwen3_5_text", "qwen3_5_moe_text", "deepseek_v32", "glm_moe_dsa",
                     "minimax_m2", "glm4_moe_lite", "mistral4", "nemotron_h", "olmo3",
                     "ministral3", "gemma4_text", "seed_oss", "kimi_linear", "deepseek_v4")
_NULL_DERIVES = ("num_key_value_heads", "head_dim", "mlp_only_layers", "no_rope_layers",
                 "moe_layers", "layer_types", "pad_token_id", "n_shared_experts", "sliding_window",
                 "mlp_layer_types", "indexer_types", "q_lora_rank", "moe_latent_size",
                 "hybrid_override_pattern", "layers_block_type", "global_head_dim",
                 "compress_rates", "compress_ratios", "num_hash_layers",
                 "num_global_key_value_heads", "per_layer_config")
_NON_NEGATIVE_BY_TYPE = {"glm4_moe": ("num_nextn_predict_layers",),
                         "gemma4_text": ("num_kv_shared_layers", "hidden_size_per_layer_input"),
                         "glm4_moe_lite": ("num_nextn_predict_layers",),
                         "deepseek_v32": ("num_nextn_predict_layers",),
                         "glm_moe_dsa": ("num_nextn_predict_layers",),
                         "qwen3_next": ("num_nextn_predict_layers", "mtp_num_hidden_layers"),
                         "qwen3_5_text": ("mtp_num_hidden_layers",),
                         "qwen3_5_moe_text": ("mtp_num_hidden_layers",)}
# multi-token-prediction layers a checkpoint ships (listed by weight_shapes, never counted):
# every released model has 1; a bound keeps a what-if listing finite
MAX_MTP_LAYERS = 1000


def _fail(field, rule, value=None, *, show_value=True):
    msg = f"{field}: {rule}"
    if show_value:
        msg += f" (got {show(value)})"
    raise ConfigError(msg)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


_FLAT = frozenset((str, int, float, bool, type(None)))


def _plain_json(obj, where="config"):
    """A deep copy of ``obj`` as plain JSON data (dict, list, str, int, float, bool,
    None), refusing what a config.json cannot hold: other types, non-string keys,
    nesting deeper than MAX_JSON_DEPTH, more than MAX_JSON_VALUES values, whole
    numbers of more than 1,000 digits. Iterative: no RecursionError."""
    from collections.abc import Mapping, Sequence

    def convert(value, path):
        if value is None or isinstance(value, (str, bool, float)):
            return value, None
        if isinstance(value, int):
            if value.bit_length() > 3300:  # about 1,000 digits
                _fail(path, "a whole number with more than 1,000 digits cannot be a config value",
                      value)
            return int(value), None
        if isinstance(value, Mapping):
            return {}, list(value.items())
        if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
            if len(value) > MAX_LIST:
                _fail(path, f"a list longer than {MAX_LIST:,} entries cannot be read", value)
            if all(type(x) in _FLAT for x in value):  # a flat list (layer_types): one pass
                if any(type(x) is int and x.bit_length() > 3300 for x in value):
                    _fail(path, "a whole number with more than 1,000 digits cannot be a config "
                          "value", show_value=False)
                return list(value), None
            return [], list(enumerate(value))
        _fail(path, f"must be a JSON value (number, string, true/false, null, list or object), "
              f"not a {type(value).__name__}", show_value=False)

    root, items = convert(obj, where)
    if items is None:
        return root
    stack = [(root, items, 1, where, None)]
    count = 0
    while stack:
        container, items, depth, path, top = stack.pop()
        for key, value in items:
            count += 1
            if count > MAX_JSON_VALUES:
                _fail(where, f"holds more than {MAX_JSON_VALUES:,} values; a config.json has a "
                      "few hundred", show_value=False)
            if isinstance(container, dict) and not isinstance(key, str):
                if not _is_int(key):  # transformers' to_dict() keys id2label by int;
                    _fail(path, f"keys must be strings (got {show(key)})", show_value=False)
                key = str(key)  # as json.dumps writes them
            sub = field_name(key) if path == where else (
                f"{path}.{field_name(key)}" if isinstance(container, dict) else f"{path}[{key}]")
            copy, sub_items = convert(value, sub)
            if sub_items is None and type(copy) is list:
                count += len(copy)
            if isinstance(container, dict):
                container[key] = copy
            else:
                container.append(copy)
            if sub_items is not None:
                if depth + 1 > MAX_JSON_DEPTH:
                    _fail(top, f"nested deeper than {MAX_JSON_DEPTH} levels; a config.json uses "
                          "3 or 4", show_value=False)
                if sub_items:  # each container fills its own items in order
                    stack.append((copy, sub_items, depth + 1, sub, top or sub))
    return root


def _unsupported_hint():
    # a wrapper's text type (gemma4_text) is named with its wrapper, to keep the line short
    texts = set(_MULTIMODAL.values())
    names = [t + ("(_text)" if t + "_text" in texts else "") for t in SUPPORTED_MODEL_TYPES
             if not (t.endswith("_text") and t[:-5] in _MULTIMODAL)]
    return f"supported: {', '.join(names)}; see 'Adding a family' in CONTRIBUTING.md"


def _validate(raw):
    """Check ``raw`` (a plain dict) and return the resolved fields as a dict."""
    mt = raw.get("model_type")
    if mt is None:
        _fail("model_type", "missing; a config.json must say which architecture it is "
              f"({_unsupported_hint()})", show_value=False)
    if not isinstance(mt, str):
        _fail("model_type", f"must be a string naming the architecture ({_unsupported_hint()})",
              mt)
    if mt in _MULTIMODAL:
        return _validate_text_config(raw, mt)
    if mt not in _FAMILIES:
        _fail("model_type", f"unsupported; {_unsupported_hint()}", mt)
    spec = _FAMILIES[mt]
    r = dict(spec["defaults"])
    r.update(raw)  # a null num_key_value_heads / head_dim means: derive it (below)
    amap = spec.get("attribute_map", {})
    own_wins = spec.get("own_wins", ())
    for std, own in amap.items():  # GPT-2 reads n_embd for hidden_size, and so on
        # both given: the one transformers sets last wins (the alias, except where the
        # class takes the alias as a named argument: Qwen3-MoE's num_experts)
        if std in raw and not (std in own_wins and own in raw):
            r[own] = raw[std]
        r[std] = r.get(own)

    def label(f):  # name a field as the config.json writes it
        own = amap.get(f)
        return own if own and f not in raw else f

    if mt == "nemotron_h":
        # layer_types is transformers' alias of layers_block_type; the blocks' count is the
        # pattern's length, whatever num_hidden_layers says (transformers warns and ignores it)
        if raw.get("layer_types") is not None and raw.get("layers_block_type") is None:
            r["layers_block_type"] = raw["layer_types"]
        r["layer_types"] = None
        r["num_hidden_layers"] = len(_nemotron_pattern(r))
    if mt == "kimi_linear":  # linear_attn_config's values win, as KimiLinearConfig reads them
        lac = r.get("linear_attn_config")
        if lac is not None and not isinstance(lac, dict):
            _fail("linear_attn_config", "must be a JSON object", lac)
        for key, field in (("head_dim", "linear_head_dim"), ("num_heads", "linear_num_heads"),
                           ("short_conv_kernel_size", "linear_conv_kernel_dim")):
            if lac and key in lac:
                r[field] = lac[key]
    if mt == "gpt2" and r["intermediate_size"] is None and _is_int(r["hidden_size"]):
        r["intermediate_size"] = 4 * r["hidden_size"]  # n_inner = None: the classic 4 x d
    if mt == "qwen2_moe" and r.get("use_sliding_window") is False:
        r["sliding_window"] = None  # transformers sets it to 0: no window at all
    # GPT-2 and GPT-NeoX have no num_key_value_heads or head_dim field: every head has its
    # own K and V, head_dim = hidden / heads (the defaults). A config that sets them is a
    # what-if (GPT-2 with GQA) that the course counts and transformers cannot build.

    if mt in _NULL_IS_AN_ERROR:  # a null where transformers needs a value
        for f, default in spec["defaults"].items():
            if default is not None and r.get(f) is None and f not in _NULL_DERIVES:
                _fail(label(f), f"must not be null (leave it out for the default, {default!r})",
                      None)
    if mt == "qwen3_5_moe_text" and r.get("intermediate_size") is None:
        r["intermediate_size"] = r.get("moe_intermediate_size")  # no dense MLP to size
    for f in _REQUIRED + _REQUIRED_BY_TYPE.get(mt, ()):
        if raw.get(f) is None and r.get(f) is None:
            _fail(label(f), f"required for model_type {mt!r} but missing", show_value=False)
    moe_field = spec.get("moe")
    if mt == "gemma4_text" and not r.get("enable_moe_block"):
        moe_field = None  # experts are built only with enable_moe_block
    if moe_field and r.get(moe_field) == 0:
        _fail(label(moe_field), "a mixture-of-experts model needs at least one expert", 0)
    if moe_field:  # null where transformers needs a number (issue 20: no TypeError)
        for f in (moe_field, "num_experts_per_tok"):
            if r.get(f) is None and not (f == "num_experts_per_tok" and mt == "gpt_oss"
                                         and _is_int(raw.get("experts_per_token"))):
                _fail(label(f), "a mixture-of-experts model needs a whole number here, not "
                      "null (leave it out for the default)", None)
    for f in ("first_k_dense_replace", "decoder_sparse_step"):
        if f in spec["defaults"] and r.get(f) is None:
            _fail(f, f"must not be null (leave it out for the default, "
                  f"{spec['defaults'][f]!r})", None)
    if r.get("use_sliding_window") and "max_window_layers" in spec["defaults"] \
            and r.get("max_window_layers") is None:
        _fail("max_window_layers", "must be a whole number when use_sliding_window is true "
              "(the layers from this index on slide)", None)
    for f in _POSITIVE + _POSITIVE_BY_TYPE.get(mt, ()):
        v = r.get(f)
        if v is None:
            continue
        if not _is_int(v):
            _fail(label(f), "must be a whole number", v)
        if v <= 0:
            _fail(label(f), "must be positive", v)
        if v > MAX_SIZE:
            _fail(label(f), f"at most {MAX_SIZE:,} (a trillion) here; no real model comes near", v)
    for f in _NON_NEGATIVE + _NON_NEGATIVE_BY_TYPE.get(mt, ()):
        v = r.get(f)
        if v is None:
            continue
        if not _is_int(v):
            _fail(f, "must be a whole number", v)
        if v < 0:
            _fail(f, "must be zero or positive", v)
        if v > MAX_SIZE:
            _fail(f, f"at most {MAX_SIZE:,} (a trillion) here; no real model comes near", v)
    for f in ("num_nextn_predict_layers", "mtp_num_hidden_layers"):
        if f in _NON_NEGATIVE_BY_TYPE.get(mt, ()) and (r.get(f) or 0) > MAX_MTP_LAYERS:
            _fail(f, f"at most {MAX_MTP_LAYERS} multi-token-prediction layers (released models "
                  "have 1)", r[f])
    for f in _BOOLEAN:
        v = r.get(f)
        if f == "use_bidirectional_attention" and mt == "gemma4_text":  # a mode, not a flag
            if v not in (None, "all", "vision"):
                _fail(f, "must be \"all\", \"vision\" or null", v)
            continue
        if v is not None and not isinstance(v, bool):
            _fail(f, "must be true or false", v)
    for f in _NUMBER:
        v = r.get(f)
        if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)
                              or not math.isfinite(v) or v < 0):
            _fail(f, "must be a finite number, zero or more", v)
    for f in _STRING:
        v = r.get(f)
        if v is not None and not isinstance(v, str):
            _fail(f, "must be a string", v)
    for f in _OBJECT:
        v = r.get(f)
        if v is not None and not isinstance(v, dict):
            _fail(f, "must be a JSON object or null", v)
    if mt == "gpt2" and r.get("add_cross_attention"):
        _fail("add_cross_attention", "a decoder with cross-attention to an encoder is not a "
              "language model this course counts; set it to false", True)

    heads = r["num_attention_heads"]
    hidden = r["hidden_size"]
    pad = r.get("pad_token_id")
    if pad is not None and not _is_int(pad):
        _fail("pad_token_id", "must be a whole number or null", pad)
    if _is_int(pad) and pad >= r["vocab_size"]:  # the embedding could not hold it
        _fail("pad_token_id", f"must be below vocab_size={r['vocab_size']}", pad)
    kv = r["num_key_value_heads"] if r.get("num_key_value_heads") is not None else heads
    if kv > heads:
        _fail("num_key_value_heads", f"cannot exceed num_attention_heads={heads}", kv)
    if heads % kv:
        _fail("num_key_value_heads", f"must divide num_attention_heads={heads} "
              "(each KV head serves a whole group of query heads)", kv)
    if spec.get("divisible_heads") and hidden % heads:  # Gemma-3's own rule
        _fail("hidden_size", f"must be divisible by num_attention_heads={heads} "
              f"(a {mt} rule, even with head_dim given)", hidden)
    if spec["family"] == "deepseek":
        head_dim = r["qk_nope_head_dim"] + r["qk_rope_head_dim"]
    elif r.get("head_dim") is not None:
        head_dim = r["head_dim"]
    else:
        if hidden % heads:
            _fail(label("hidden_size"), f"must be divisible by num_attention_heads={heads} "
                  "when no head_dim is given", hidden)
        head_dim = hidden // heads
    layers = r["num_hidden_layers"]

    experts = r[moe_field] if moe_field else 0
    top_k = r.get("num_experts_per_tok") if moe_field else 0
    if mt == "gpt_oss" and raw.get("num_experts_per_tok") is None and _is_int(raw.get("experts_per_token")):
        top_k = raw["experts_per_token"]
    if moe_field:
        if top_k > experts:
            noun = "expert" if experts == 1 else "experts"
            _fail("num_experts_per_tok", f"cannot exceed the {experts:,} {noun} ({moe_field})",
                  top_k)
    if (spec["family"] == "deepseek" or mt == "glm4_moe") and mt != "glm4_moe_lite":
        fk = r["first_k_dense_replace"]
        if fk > layers and mt not in DSA_TYPES + ("kimi_linear",):  # (these clip it)
            _fail("first_k_dense_replace", f"cannot exceed num_hidden_layers={layers}", fk)
    if spec["family"] == "deepseek" or mt == "glm4_moe":
        if r.get("n_shared_experts") is None:
            r["n_shared_experts"] = 0
    if mt in ("qwen3_moe", "qwen2_moe", "qwen3_next"):
        mol = r.get("mlp_only_layers")
        mol = [] if mol is None else mol
        if not isinstance(mol, list) or len(mol) > MAX_LIST or not all(
                _is_int(i) and 0 <= i < layers for i in mol):
            _fail("mlp_only_layers", f"must be a list of layer indices in 0..{layers - 1:,}"
                  f" (at most {MAX_LIST:,} of them)", mol)
        r["mlp_only_layers"] = mol
    if mt in DELTANET_TYPES and r["linear_num_value_heads"] % r["linear_num_key_heads"]:
        _fail("linear_num_value_heads", "must be a multiple of linear_num_key_heads="
              f"{r['linear_num_key_heads']} (value heads are grouped over key heads)",
              r["linear_num_value_heads"])
    if mt == "llama4_text":  # (None: every interleave_moe_layer_step-th layer, in the schedule)
        ml = r.get("moe_layers")
        if ml is not None and (not isinstance(ml, list) or len(ml) > MAX_LIST or not all(
                _is_int(i) and 0 <= i < layers for i in ml)):
            _fail("moe_layers", f"must be a list of layer indices in 0..{layers - 1:,}"
                  f" (at most {MAX_LIST:,} of them)", ml)
    if mt in ("smollm3", "llama4_text"):  # 1 = the layer uses RoPE, 0 = NoPE (no position code)
        nrl = r.get("no_rope_layers")  # empty or null: every no_rope_layer_interval-th is NoPE
        if nrl and (not isinstance(nrl, list) or len(nrl) < layers or len(nrl) > MAX_LIST
                    or not all(_is_int(v) and v in (0, 1) for v in nrl)):
            _fail("no_rope_layers", f"must list a 0 or 1 for each of the {layers:,} layers "
                  f"(at most {MAX_LIST:,})", nrl)
    if mt == "gemma4_text" and moe_field and r.get("moe_intermediate_size") is None:
        _fail("moe_intermediate_size", "required with enable_moe_block (the experts' width)",
              None)
    if mt == "gemma4_text" and r.get("use_bidirectional_attention") == "all" \
            and _is_int(r["sliding_window"]):
        r["sliding_window"] = r["sliding_window"] // 2 + 1  # as Gemma4TextConfig does
    if mt == "gemma3_text" and r.get("use_bidirectional_attention") and _is_int(r["sliding_window"]):
        r["sliding_window"] = r["sliding_window"] // 2 + 1  # as Gemma3TextConfig does

    schedule = _layer_schedule(mt, spec, r, layers)
    lt = LayerTypes(schedule)
    if "chunked_attention" in lt and r.get("attention_chunk_size") is None:
        _fail("attention_chunk_size", "layer_types has chunked_attention layers, so a chunk "
              "size is required", None)
    r["layer_types"] = lt

    return dict(
        model_type=mt, family=spec["family"], moe_field=moe_field,
        hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=kv, head_dim=head_dim, vocab_size=r["vocab_size"],
        intermediate_size=r["intermediate_size"],
        tie_word_embeddings=bool(r["tie_word_embeddings"]),
        num_experts=experts or 0, num_experts_per_tok=top_k or 0,
        layer_types=lt, layer_schedule=schedule, sliding_window=r.get("sliding_window"),
        text_model_of=None, resolved=r,
    )


def _validate_text_config(raw, mt):
    """A multimodal config (Gemma-3, Llama-4): its language model, read from ``text_config``
    (transformers' text defaults fill what it leaves out)."""
    for f in ("quantization_config",):  # the checkpoint's own fields, read outside the text model
        v = raw.get(f)
        if v is not None and not isinstance(v, dict):
            _fail(f, "must be a JSON object or null", v)
    for f in ("torch_dtype", "dtype"):
        v = raw.get(f)
        if v is not None and not isinstance(v, str):
            _fail(f, "must be a string", v)
    text = raw.get("text_config")
    text = {} if text is None else text
    if not isinstance(text, dict):
        _fail("text_config", "must be a JSON object holding the language model's config", text)
    text = dict(text)
    text.setdefault("model_type", _MULTIMODAL[mt])
    if _TEXT_ALIASES.get((mt, text["model_type"])):  # Kimi's kimi_k2 is read as deepseek_v3
        text["model_type"] = _TEXT_ALIASES[(mt, text["model_type"])]
    if text["model_type"] != _MULTIMODAL[mt] and (mt, text["model_type"]) not in _TEXT_ALIASES:
        _fail("text_config.model_type", f"must be {_MULTIMODAL[mt]!r} in a {mt!r} config",
              text["model_type"])
    try:
        r = _validate(text)
    except ConfigError as e:
        raise ConfigError(f"text_config.{e}") from None
    r["text_model_of"] = mt
    return r


def _layer_schedule(mt, spec, r, layers):
    """The :class:`~llmcourse.layers.LayerSchedule` of a resolved config: the family's
    declaration (``layers=`` in ``_FAMILIES``, the same rule as each transformers
    ``*Config``), an explicit ``layer_types`` in place of its attention."""
    axes = spec["layers"](r) if "layers" in spec else {}
    sw = r.get("sliding_window")
    allowed = _LAYER_TYPES_BY_TYPE.get(mt, _LAYER_TYPES)
    lt = r.get("layer_types")
    if lt is not None:
        if not isinstance(lt, list):
            _fail("layer_types", "must be a list with one entry per layer", lt)
        if len(lt) != layers:
            _fail("layer_types", f"must list one entry per layer (num_hidden_layers={layers:,})",
                  f"{len(lt):,} entries", show_value=True)
        kinds = set()
        for t in lt:
            if not isinstance(t, str) or t not in allowed:
                _fail("layer_types", f"entries must be one of {', '.join(allowed)}", t)
            kinds.add(t)
        if "sliding_attention" in kinds and sw is None:
            _fail("sliding_window", "layer_types has sliding_attention layers, so a window "
                  "size is required", sw)
        axes["attention"] = Axis.from_list(lt, field="layer_types")
    elif "attention" not in axes:
        if sw is None or mt in _NO_WINDOW:
            axes["attention"] = Axis.constant("full_attention")
        else:  # llama-style with a window: mistral, mixtral, phi3
            axes["attention"] = Axis.constant("sliding_attention", field="sliding_window")
    elif sw is None:  # a sliding layer without a window attends to everything
        axes["attention"] = axes["attention"].map(
            lambda v: "full_attention" if v == "sliding_attention" else v)
    axes.setdefault("mlp", Axis.constant("moe" if spec.get("moe") else "dense"))
    return LayerSchedule(layers, **axes)


class ModelConfig:
    """An immutable, validated model configuration.

    Attributes use the Hugging Face names. A few are *resolved*: ``head_dim``
    (given, or hidden_size // num_attention_heads), ``num_key_value_heads``
    (defaults to the head count), ``num_experts`` (the routed experts, whatever
    the model's own field is called; 0 for a dense model), ``layer_types`` (the
    attention kind of each layer, ``full_attention``/``sliding_attention``/
    ``chunked_attention``/``linear_attention``, a read-only sequence whose ``len``,
    ``count``, ``counts()`` and ``[i]`` are arithmetic; listing it is limited to
    ``MAX_LIST`` layers), ``layer_schedule`` (the
    :class:`~llmcourse.layers.LayerSchedule`: how many layers of each kind).

    Use :meth:`replace` for what-if changes and :meth:`to_hf_config` to get a
    ``config.json`` dict back.
    """

    __slots__ = ("_raw", "_r", "name", "__weakref__", "_cache")

    def __init__(self, raw, name=None):
        if not isinstance(raw, dict):
            raise ConfigError(f"config: must be a JSON object (a dict), got {type(raw).__name__}")
        if name is not None and not isinstance(name, str):
            raise ConfigError(f"name: must be a string, got {type(name).__name__}")
        raw = _plain_json(raw)  # a private deep copy of plain JSON data, bounded
        object.__setattr__(self, "_r", _validate(raw))
        object.__setattr__(self, "_raw", MappingProxyType(raw))
        path = raw.get("_name_or_path")
        object.__setattr__(self, "name", name or (path if isinstance(path, str) else None)
                           or raw["model_type"])
        object.__setattr__(self, "_cache", {})

    # --- attribute access in the HF vocabulary --------------------------------
    def __getattr__(self, key):
        r = object.__getattribute__(self, "_r")
        if key in r:
            return r[key]
        res = r["resolved"]
        if key in res:
            return res[key]
        raise AttributeError(f"{type(self).__name__} for {r['model_type']!r} has no field {key!r}")

    def __setattr__(self, key, value):
        raise AttributeError("ModelConfig is immutable; use cfg.replace(...) to make a changed copy")

    def get(self, key, default=None):
        """A field of the resolved config (defaults filled in), or ``default``."""
        v = self._r["resolved"].get(key, default)
        return default if v is None else v

    @property
    def is_moe(self):
        return self._r["num_experts"] > 0

    @property
    def uses_mla(self):
        """Multi-head latent attention (DeepSeek-V2/V3)."""
        return self._r["family"] == "deepseek"

    @property
    def attention_kind(self):
        """``"MHA"`` (a KV head per query head), ``"GQA"`` (groups of query heads share
        one), ``"MQA"`` (one KV head in all) or ``"MLA"`` (DeepSeek's latent cache)."""
        if self.uses_mla:
            return "MLA"
        heads, kv = self._r["num_attention_heads"], self._r["num_key_value_heads"]
        return "MHA" if kv == heads else "MQA" if kv == 1 else "GQA"

    @property
    def is_multimodal(self):
        """True for a multimodal config (Gemma-3, Llama-4) read through its ``text_config``:
        the counts are its language model's (``text_model_of`` names the outer type)."""
        return self._r["text_model_of"] is not None

    def __repr__(self):
        r = self._r
        moe = f", experts={r['num_experts']} top-{r['num_experts_per_tok']}" if self.is_moe else ""
        mm = f" (text model of a {r['text_model_of']} config)" if r["text_model_of"] else ""
        return (f"ModelConfig({self.name!r}: {r['model_type']}{mm}, layers={r['num_hidden_layers']}, "
                f"hidden={r['hidden_size']}, heads={r['num_attention_heads']}/"
                f"kv={r['num_key_value_heads']}, head_dim={r['head_dim']}, "
                f"intermediate={r['intermediate_size']}{moe})")

    def __eq__(self, other):
        return isinstance(other, ModelConfig) and dict(self._raw) == dict(other._raw)

    def __hash__(self):
        return hash(json.dumps(dict(self._raw), sort_keys=True))

    def __reduce__(self):
        return (ModelConfig, (dict(self._raw), self.name))

    # --- what-if --------------------------------------------------------------
    def replace(self, **changes):
        """A new, validated config with ``changes`` (Hugging Face field names).

        Changing ``num_hidden_layers`` on a model that lists ``layer_types``
        repeats its pattern to the new depth unless you pass ``layer_types`` too.
        A field the model's config does not know raises ``ValueError``. For a
        multimodal config (Gemma-3, Llama-4) the changes go to its ``text_config``;
        for GPT-2 the standard names (``hidden_size``) change its own (``n_embd``).
        """
        raw = dict(self._raw)
        outer = raw["model_type"] if raw["model_type"] in _MULTIMODAL else None
        if outer:
            target = dict(raw.get("text_config") or {})
            target.setdefault("model_type", _MULTIMODAL[outer])
        else:
            target = raw
        mt = target["model_type"]
        mt = _TEXT_ALIASES.get((outer, mt), mt)
        spec = _FAMILIES[mt]
        amap = spec.get("attribute_map", {})
        known = set(target) | set(spec["defaults"]) | set(_REQUIRED) \
            | set(_REQUIRED_BY_TYPE.get(mt, ())) | set(amap) | {"model_type"}
        if "model_type" in changes and not outer:
            new_mt = changes["model_type"]
            if isinstance(new_mt, str) and new_mt in _FAMILIES:
                known |= (set(_FAMILIES[new_mt]["defaults"]) | set(_REQUIRED_BY_TYPE.get(new_mt, ()))
                          | set(_FAMILIES[new_mt].get("attribute_map", {})))
        for k in changes:
            if k not in known or (outer and k == "model_type"):
                raise ConfigError(
                    f"{field_name(k)}: not a field of a {mt!r} config "
                    f"(its fields include: {', '.join(sorted(known - {'model_type'})[:12])}, ...)")
        def key_for(k):  # a change lands in the key the file already uses for that field
            own = amap.get(k, k)
            std = next((a for a, o in amap.items() if o == own), None)
            return std if std is not None and std in target and own not in target else own

        changes = {key_for(k): v for k, v in changes.items()}
        for std, own in amap.items():  # one key per field: drop the other name
            if own in changes:
                target.pop(std, None)
            elif std in changes:
                target.pop(own, None)
        target.update(changes)
        n = changes.get("num_hidden_layers", changes.get(amap.get("num_hidden_layers")))
        if _is_int(n) and n > 0:  # per-layer lists repeat their pattern to the new depth
            for key in ("layer_types", "no_rope_layers"):
                pattern = target.get(key)
                if key not in changes and isinstance(pattern, list) and pattern:
                    if n > MAX_LIST:
                        raise ConfigError(
                            f"num_hidden_layers: this config lists {key}, one entry per layer, "
                            f"so the course repeats it for at most {MAX_LIST:,} layers (got "
                            f"{n:,}); pass {key}=None to use the family's own pattern")
                    target[key] = [pattern[i % len(pattern)] for i in range(n)]
            for key in ("hybrid_override_pattern", "layers_block_type"):  # Nemotron-H's blocks
                pattern = target.get(key)
                if mt == "nemotron_h" and key not in changes and pattern and n <= MAX_LIST \
                        and isinstance(pattern, (str, list)):
                    target[key] = pattern * (n // len(pattern)) + pattern[:n % len(pattern)]
            if "indexer_types" not in changes and isinstance(target.get("indexer_types"), list) \
                    and target["indexer_types"] and n <= MAX_LIST:
                pattern = target["indexer_types"]
                target["indexer_types"] = [pattern[i % len(pattern)] for i in range(n)]
            mlt = target.get("mlp_layer_types")
            if "mlp_layer_types" not in changes and isinstance(mlt, list) and mlt and n <= MAX_LIST:
                # the dense layers lead; a deeper model adds layers like its last one
                target["mlp_layer_types"] = mlt[:n] + [mlt[-1]] * (n - len(mlt))
            if mt == "llama4_text" and "moe_layers" not in changes \
                    and isinstance(target.get("moe_layers"), list):
                target["moe_layers"] = [i for i in target["moe_layers"]
                                        if _is_int(i) and 0 <= i < n]
        if outer:
            raw["text_config"] = target
        name = self.name if not changes or self.name.endswith(" (edited)") else f"{self.name} (edited)"
        return ModelConfig(raw, name=name)

    def to_hf_config(self):
        """The config as a ``config.json`` dict (a fresh copy)."""
        return json.loads(json.dumps(dict(self._raw)))

    def save(self, path):
        """Write the config as a ``config.json`` file (a folder gets ``config.json`` inside)."""
        path = os.fspath(path)
        if os.path.isdir(path):
            path = os.path.join(path, "config.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_hf_config(), fh, indent=2, sort_keys=True)
            fh.write("\n")
        return path


def _sniff(data):
    """What a file that is not a config.json probably is (None if it may be one)."""
    if data[:4] == b"GGUF":
        return "a GGUF weights file"
    if data[:4] == b"PK\x03\x04":
        return "a zip archive (a PyTorch .bin/.pt checkpoint?)"
    if data[:2] == b"\x80\x02" or data[:1] == b"\x80" and data[1:2] in (b"\x03", b"\x04", b"\x05"):
        return "a pickle file (a PyTorch checkpoint?)"
    if len(data) >= 10 and data[8:10] in (b'{"', b"{ ") and int.from_bytes(data[:8], "little") > 1:
        return "a safetensors weights file"
    return None


def config_from_json(data, name=None, source="config"):
    """A :class:`ModelConfig` from the text of a ``config.json`` (``str`` or ``bytes``,
    e.g. an uploaded or pasted file). A UTF-8 byte-order mark is accepted, as
    transformers accepts it; text that is not a config gets a one-line
    :class:`ConfigError` saying what it is (``source`` names it in the message)."""
    return _from_json(data, name, source, source)


def _from_json(data, name, source, field_source):
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        if len(data) > MAX_FILE_BYTES:
            raise ConfigError(f"{source}: {len(data):,} bytes is too large for a config.json "
                              f"(at most {MAX_FILE_BYTES // 2**20} MiB; a config.json is a few kB)")
        what = _sniff(data)
        if what:
            raise ConfigError(f"{source}: {what}, not a config.json")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ConfigError(f"{source}: not UTF-8 text (byte {e.start:,}); a config.json is "
                              "UTF-8 JSON") from None
    elif isinstance(data, str):
        text = data
        if len(text) > MAX_FILE_BYTES:
            raise ConfigError(f"{source}: {len(text):,} characters is too large for a config.json "
                              f"(at most {MAX_FILE_BYTES // 2**20} MiB; a config.json is a few kB)")
        text = text.removeprefix("\ufeff")
    else:
        raise ConfigError(f"{source}: must be the text of a config.json (str or bytes), "
                          f"got {type(data).__name__}")
    if not text.strip():
        raise ConfigError(f"{source}: empty; paste or choose a config.json")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{source}: not valid JSON ({e.msg} at line {e.lineno}, "
                          f"column {e.colno})") from None
    except RecursionError:
        raise ConfigError(f"{source}: nested deeper than {MAX_JSON_DEPTH} levels; a config.json "
                          "uses 3 or 4") from None
    except ValueError as e:  # e.g. a number of more than 4,300 digits
        raise ConfigError(f"{source}: not valid JSON ({' '.join(str(e).split())[:80]})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: must hold a JSON object, got {type(raw).__name__}")
    try:
        return ModelConfig(raw, name=name)
    except ConfigError as e:
        raise ConfigError(f"{field_source}: {e}") from None


def from_hf_config(source, name=None):
    """Read a Hugging Face config: a dict, a path to a ``config.json``, or a folder holding one."""
    if isinstance(source, ModelConfig):
        return source
    if isinstance(source, dict):
        return ModelConfig(source, name=name)
    if not isinstance(source, (str, os.PathLike)):
        raise ConfigError(f"source: must be a dict, a config.json path or a folder, "
                          f"got {type(source).__name__}")
    path = os.fspath(source)
    if not isinstance(path, str):
        raise ConfigError("source: a path must be text, not bytes")
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, "config.json")):
            raise ConfigError(f"config file {path}: a folder without a config.json")
        path = os.path.join(path, "config.json")
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            kind = "a safetensors weights file" if path.endswith(".safetensors") else "a file"
            raise ConfigError(f"config file {path}: {kind} of {size:,} bytes, too large for a "
                              f"config.json (at most {MAX_FILE_BYTES // 2**20} MiB)")
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"config file {path}: not found") from None
    except OSError as e:
        raise ConfigError(f"config file {path}: cannot be read ({e.strerror or e})") from None
    if name is None:  # a folder's name, or the file's stem for e.g. Qwen3-8B.json
        base = os.path.basename(path)
        name = (os.path.basename(os.path.dirname(os.path.abspath(path))) if base == "config.json"
                else os.path.splitext(base)[0])
    return _from_json(data, name, f"config file {path}", os.path.basename(path))


# a dense model_type and the MoE model_type with the same attention and norms
_MOE_OF = {"llama": ("mixtral", "num_local_experts"), "mistral": ("mixtral", "num_local_experts"),
           "qwen3": ("qwen3_moe", "num_experts")}


def as_moe(cfg, num_experts, num_experts_per_tok, moe_intermediate_size=None):
    """The what-if "this dense model, but with routed experts".

    Llama and Mistral become Mixtral (identical attention, the MLP replaced by
    ``num_experts`` SwiGLU experts of ``intermediate_size``); Qwen3 becomes
    Qwen3-MoE (experts of ``moe_intermediate_size``, default ``intermediate_size``).
    A model that is already MoE just gets the new expert counts.
    """
    cfg = from_hf_config(cfg)
    if cfg.is_moe:
        changes = {cfg.moe_field: num_experts, "num_experts_per_tok": num_experts_per_tok}
        if moe_intermediate_size is not None:
            changes["moe_intermediate_size"] = moe_intermediate_size
        return cfg.replace(**changes)
    if cfg.model_type not in _MOE_OF:
        raise ConfigError(f"model_type: {cfg.model_type!r} has no mixture-of-experts variant here "
                          f"(supported: {', '.join(sorted(_MOE_OF))}, or a model that is already MoE)")
    mt, field = _MOE_OF[cfg.model_type]
    changes = {"model_type": mt, field: num_experts, "num_experts_per_tok": num_experts_per_tok}
    if mt == "qwen3_moe":
        changes["moe_intermediate_size"] = moe_intermediate_size or cfg.intermediate_size
    elif moe_intermediate_size is not None:
        changes["intermediate_size"] = moe_intermediate_size
    if cfg.head_dim != cfg.hidden_size // cfg.num_attention_heads or "head_dim" in cfg.to_hf_config():
        changes["head_dim"] = cfg.head_dim
    return cfg.replace(**changes)
