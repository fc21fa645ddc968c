"""What each ``model_type`` reads: the family table and the layer schedules.

One entry per Hugging Face ``model_type`` in ``_FAMILIES``: which tensor layout it has
(:mod:`llmcourse.architectures`), the defaults its transformers ``*Config`` class gives
fields a ``config.json`` may leave out, where its routed expert count lives, and its layer
schedule (:mod:`llmcourse.layers`). :mod:`llmcourse.config` reads a config through this
table; :mod:`llmcourse.validation` holds the rules a config must keep.
Standard library only.
"""

from __future__ import annotations

from .layers import Axis, LayerSchedule
from .limits import MAX_LIST, MAX_SIZE, _fail, _is_int

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


def _qwen4_layers(r):
    """Qwen4-Exp (Qwen3.8-Flash-Next): full_attention_interval - 1 gated-DeltaNet layers, then
    one attention layer whose queries attend only to the tokens a small indexer selects
    (transformers rewrites every full_attention of layer_types to indexed_attention, and
    writes that back); per-layer embeddings (a hashed n-gram table each) in the layers
    ple_layer_ids lists, one-indexed, each table the k-th of them (its own size)."""
    L = r["num_hidden_layers"]
    lt = r.pop("layer_types", None)  # read here: full_attention is renamed
    r["layer_types"] = None
    if lt is None:
        n = r["full_attention_interval"]
        attn = Axis.cycle(("linear_attention", n - 1), ("indexed_attention", 1),
                          field="full_attention_interval")
    else:
        kinds = ("linear_attention", "full_attention", "indexed_attention")
        if not isinstance(lt, list) or len(lt) != L or not all(v in kinds for v in lt):
            _fail("layer_types", f"must list one of {', '.join(kinds)} for each of the "
                  f"{L:,} layers", lt)
        attn = Axis.from_list(["indexed_attention" if v == "full_attention" else v for v in lt],
                              field="layer_types")
    ids = r.get("ple_layer_ids")
    ids = [] if ids is None else ids
    if not isinstance(ids, list) or len(ids) > MAX_LIST or not all(
            _is_int(i) and 1 <= i <= L for i in ids):
        _fail("ple_layer_ids", f"must list one-indexed layer numbers in 1..{L:,}", ids)
    ids = sorted(set(ids))  # as Qwen4ExpTextConfig keeps them
    bad = [i for i in ids if attn.value_at(i - 1) != "linear_attention"]
    if bad:
        _fail("ple_layer_ids", "per-layer embeddings are only supported on linear_attention "
              f"layers (layer {bad[0]} is not one)", ids)
    r["ple_layer_ids"] = ids
    ple = Axis.constant(0, field="ple_layer_ids")
    for k, i in enumerate(ids):
        ple = ple.override([i - 1], k + 1)
    return dict(attention=attn, indexer=attn.map(lambda v: v == "indexed_attention"), ple=ple)


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


# Granite 4.0's mixers: the hub's names and the ones transformers 5.23 writes back
_GRANITE_MIXERS = {"mamba": "mamba", "linear_attention": "mamba",
                   "attention": "full_attention", "full_attention": "full_attention"}


def _granite_hybrid_layers(r):
    """Granite 4.0-H: each layer a Mamba-2 mixer or attention, as layer_types lists them
    ("mamba"/"attention" on the hub, "linear_attention"/"full_attention" as transformers
    5.23 writes them back; layers_block_type is its alias and wins), else every layer
    Mamba-2; then routed experts beside a shared MLP, or the shared MLP alone with
    num_local_experts 0. Attention uses RoPE only with position_embedding_type "rope"
    (Granite 4.0-H: "nope")."""
    L = r["num_hidden_layers"]
    lt, field = r.get("layers_block_type"), "layers_block_type"
    if lt is None:
        lt, field = r.get("layer_types"), "layer_types"
    r["layer_types"] = None  # read here: Granite's own names
    if lt is None:
        attn = Axis.constant("mamba", field="layer_types")
    else:
        if not isinstance(lt, list) or len(lt) != L or not all(
                isinstance(v, str) and v in _GRANITE_MIXERS for v in lt):
            _fail(field, f"must list mamba or attention (or linear_attention, full_attention) "
                  f"for each of the {L:,} layers", lt)
        attn = Axis.from_list([_GRANITE_MIXERS[v] for v in lt], field=field)
    pe = r.get("position_embedding_type")
    if pe is not None and not isinstance(pe, str):
        _fail("position_embedding_type", "must be a string (\"rope\" or \"nope\") or null", pe)
    return dict(attention=attn,
                mlp=Axis.constant("moe" if r["num_local_experts"] else "dense",
                                  field="num_local_experts"),
                rope=attn.map(lambda v: v != "full_attention" or pe == "rope"))


def _lfm2_moe_layers(r):
    """LFM2-MoE: short-convolution and attention layers as layer_types lists them ("conv",
    "full_attention"; transformers has no default and cannot build without it), the first
    num_dense_layers with a dense MLP, every later one with routed experts."""
    if r.get("layer_types") is None:
        _fail("layer_types", "required for model_type 'lfm2_moe' (conv or full_attention for "
              "each layer; transformers 5.23 gives no default)", None)
    n = r["num_dense_layers"]
    return dict(mlp=Axis.cycle(("moe", 1), prefix=[("dense", min(n, r["num_hidden_layers"]))],
                               field="num_dense_layers"))


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


def _longcat_layers(r):
    """LongCat-Flash: every layer holds two MLA attention sublayers, each followed by its own
    dense MLP; the first sublayer's input to its MLP also feeds one MoE whose output joins
    after the second (the shortcut-connected MoE). Sublayers are the schedule's layers, as
    transformers counts them (num_hidden_layers = 2 x num_layers): the even one holds the MoE."""
    return dict(attention=Axis.constant("full_attention"),
                mlp=Axis.cycle(("moe", 1), ("dense", 1), field="num_layers"))


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
    # Qwen4-Exp (Qwen3.8-Flash-Next): Qwen3.5's gated-DeltaNet and gated attention layers with
    # a query-selection indexer, 4 residual streams mixed by low-rank hyper-connections, hashed
    # n-gram embedding tables in a few layers, MoE with a shared expert in every layer.
    # Defaults: transformers 5.23's Qwen4ExpTextConfig (full_attention_interval: its default)
    "qwen4_exp_text": dict(family="llama", moe="num_experts", layers=_qwen4_layers,
                           defaults=dict(_COMMON, vocab_size=248320, hidden_size=2048,
                                         num_hidden_layers=40, num_attention_heads=16,
                                         num_key_value_heads=2, head_dim=256,
                                         max_position_embeddings=32768,
                                         linear_conv_kernel_dim=4, linear_key_head_dim=128,
                                         linear_value_head_dim=128, linear_num_key_heads=16,
                                         linear_num_value_heads=32, full_attention_interval=4,
                                         moe_intermediate_size=512,
                                         shared_expert_intermediate_size=512,
                                         num_experts_per_tok=10, num_experts=512, hc_count=4,
                                         hc_lowrank=320, ple_layer_ids=None, ple_embed_dim=None,
                                         ple_conv_kernel_size=4, ngram_size=3,
                                         heads_per_ngram=8, ngram_vocab_size_base=20_000_000,
                                         make_ngram_vocab_size_divisible_by=128, seed=1234,
                                         split_ngram_parts=512, indexer_n_heads=None,
                                         indexer_kv_heads=None, indexer_head_dim=None,
                                         indexer_budget=None, indexer_compress_ratio=None,
                                         output_gate_type=None, eos_token_id=None)),
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
                                     chunk_size=128, use_conv_bias=True, mamba_proj_bias=False, use_bias=False,
                                     n_routed_experts=8, n_shared_experts=1,
                                     moe_intermediate_size=7688,
                                     moe_shared_expert_intermediate_size=7688,
                                     moe_latent_size=None, num_experts_per_tok=2,
                                     hybrid_override_pattern=None, layers_block_type=None,
                                     pad_token_id=0, num_nextn_predict_layers=0)),
    # Granite 4.0 (IBM): Mamba-2 layers and a few attention layers (NoPE), each followed by
    # routed experts (fused, SwiGLU) beside a shared MLP, or by the shared MLP alone (dense
    # Granite 4.0-H-350M/1B/Micro: num_local_experts 0). Defaults: GraniteMoeHybridConfig
    "granitemoehybrid": dict(family="granitemoehybrid", moe="num_local_experts",
                             layers=_granite_hybrid_layers,
                             defaults=dict(_COMMON, vocab_size=32000, hidden_size=4096,
                                           intermediate_size=11008, num_hidden_layers=32,
                                           num_attention_heads=32, max_position_embeddings=2048,
                                           num_local_experts=8, num_experts_per_tok=2,
                                           shared_intermediate_size=1024,
                                           position_embedding_type=None, layers_block_type=None,
                                           mamba_n_heads=128, mamba_n_groups=1,
                                           mamba_d_state=256, mamba_d_head="auto",
                                           mamba_d_conv=4, mamba_expand=2, mamba_conv_bias=True,
                                           mamba_proj_bias=False, mamba_chunk_size=256)),
    # LFM2-8B-A1B (LiquidAI): gated short-convolution layers (a depthwise causal convolution of
    # conv_L_cache taps between two gates) and a few GQA layers with QK-norm; the first
    # num_dense_layers with a dense SwiGLU MLP, then sigmoid-routed experts. Defaults:
    # Lfm2MoeConfig
    "lfm2_moe": dict(family="lfm2_moe", moe="num_experts", layers=_lfm2_moe_layers,
                     defaults=dict(_COMMON, vocab_size=65536, hidden_size=2048,
                                   intermediate_size=7168, moe_intermediate_size=1792,
                                   num_hidden_layers=32, num_attention_heads=32,
                                   num_key_value_heads=8, max_position_embeddings=128000,
                                   tie_word_embeddings=True, pad_token_id=0, conv_bias=False,
                                   conv_L_cache=3, num_dense_layers=2, num_experts_per_tok=4,
                                   num_experts=32, use_expert_bias=True)),
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
    # LongCat-Flash: two MLA sublayers per layer (num_layers; transformers' num_hidden_layers is
    # twice it, and a config's num_hidden_layers sets num_layers to half of it), a dense MLP
    # after each, one MoE per layer whose router also picks among zero_expert_num
    # "zero-computation" experts: identities without weights
    "longcat_flash": dict(family="deepseek", moe="n_routed_experts", layers=_longcat_layers,
                          attribute_map=dict(num_local_experts="n_routed_experts",
                                             num_experts_per_tok="moe_topk",
                                             intermediate_size="ffn_hidden_size",
                                             moe_intermediate_size="expert_ffn_hidden_size"),
                          defaults=dict(_COMMON, vocab_size=131072, hidden_size=6144,
                                        num_layers=28, num_attention_heads=64,
                                        max_position_embeddings=131072, ffn_hidden_size=12288,
                                        q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128,
                                        qk_rope_head_dim=64, head_dim=64, v_head_dim=128,
                                        qk_head_dim=None, moe_topk=12, n_routed_experts=512,
                                        zero_expert_num=256, expert_ffn_hidden_size=2048,
                                        router_bias=False)),
}

# multimodal configs whose language model is read from their ``text_config``
_MULTIMODAL = {"gemma3": "gemma3_text", "llama4": "llama4_text",
               "qwen3_5": "qwen3_5_text", "qwen3_5_moe": "qwen3_5_moe_text",
               "qwen4_exp": "qwen4_exp_text",
               "kimi_k25": "deepseek_v3",   # Kimi K2.5: DeepSeek-V3's layout, 384 experts
               "mistral3": "ministral3",    # Ministral 3 (Mistral Small 3.x: mistral inside)
               "gemma4": "gemma4_text"}
# text_config model types a wrapper also accepts, read as the one it maps to
_TEXT_ALIASES = {("kimi_k25", "kimi_k2"): "deepseek_v3", ("mistral3", "mistral"): "mistral"}
# DeepSeek Sparse Attention: an indexer beside MLA
DSA_TYPES = ("deepseek_v32", "glm_moe_dsa")
# Qwen3-Next's gated-DeltaNet layout: the types that share its tensors
DELTANET_TYPES = ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen4_exp_text")

SUPPORTED_MODEL_TYPES = tuple(sorted(set(_FAMILIES) | set(_MULTIMODAL)))


_LAYER_TYPES = ("full_attention", "sliding_attention")
_LAYER_TYPES_BY_TYPE = {"llama4_text": ("full_attention", "chunked_attention"),
                        "kimi_linear": ("full_attention", "linear_attention"),
                        "deepseek_v32": ("indexed_attention",),
                        "glm_moe_dsa": ("indexed_attention",),
                        "glm4_moe_lite": ("full_attention",), "mistral4": ("full_attention",),
                        "minimax_m2": ("full_attention",),
                        "longcat_flash": ("full_attention",),
                        "lfm2_moe": ("conv", "full_attention"),
                        "qwen3_next": ("full_attention", "linear_attention"),
                        "qwen3_5_text": ("full_attention", "linear_attention"),
                        "qwen3_5_moe_text": ("full_attention", "linear_attention")}
# model types whose attention never slides, whatever a config's sliding_window says
_NO_WINDOW = ("phi", "deepseek_v2", "deepseek_v3", "gpt2", "gpt_neox", "gemma", "olmo2",
              "granite", "glm4_moe", "glm4_moe_lite", "mistral4", "deepseek_v32", "glm_moe_dsa",
              "minimax_m2", "nemotron_h", "seed_oss", "kimi_linear", "deepseek_v4",
              "longcat_flash", "qwen4_exp_text", "granitemoehybrid", "lfm2_moe")


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


