"""The rules a family's entry names: its layer schedule and its own validation steps.

Each function here is named by an entry in :mod:`llmcourse.families` (``layers=``,
``prepare=``, ``derive=``, ``check=``); the generic rules every config keeps are in
:mod:`llmcourse.validation`. ``r`` is the config being resolved: the family's defaults,
overlaid with the config.json's own keys. Standard library only.

Layer schedules return one :class:`~llmcourse.layers.Axis` per layer property they set
(``attention``, ``mlp``, ``rope``, ...), the rule of each transformers ``*Config``
(``__post_init__``, ``layer_types``) written as a pattern; see CONTRIBUTING.md, "Layer
schedules".
"""

from __future__ import annotations

from .layers import Axis
from .limits import MAX_LIST, MAX_SIZE, _fail, _is_int

__all__ = []


# --- layer schedules ---------------------------------------------------------------------

def windowed_by_depth(r):
    """Qwen2/Qwen3: with use_sliding_window, layers from max_window_layers on slide."""
    if not r.get("use_sliding_window"):
        return dict(attention=Axis.constant("full_attention"))
    return dict(attention=Axis.cycle(("sliding_attention", 1),
                                     prefix=[("full_attention", r["max_window_layers"])],
                                     field="max_window_layers"))


def alternating(r):
    """Gemma-2, gpt-oss: sliding, full, sliding, full, ..."""
    return dict(attention=Axis.cycle(("sliding_attention", 1), ("full_attention", 1),
                                     field="layer_types"))


def _qwen_moe_mlp(r):
    """MoE where (i + 1) % decoder_sparse_step == 0, except mlp_only_layers (dense)."""
    step = r["decoder_sparse_step"]
    mlp = Axis.every(step, "moe", "dense", phase=step - 1, field="decoder_sparse_step")
    return mlp.override(r.get("mlp_only_layers") or (), "dense")


def qwen3_moe_layers(r):
    """Qwen3-MoE: the MLP schedule above; attention windowed by depth, as Qwen3."""
    return dict(windowed_by_depth(r), mlp=_qwen_moe_mlp(r))


def deepseek_layers(r):
    """Full attention (MLA); MoE from first_k_dense_replace on. transformers builds
    every later layer as MoE and ignores moe_layer_freq (DeepSeek's own modeling code
    keeps every moe_layer_freq-th; every released model has 1), and so do we."""
    return dict(attention=Axis.constant("full_attention"),
                mlp=Axis.cycle(("moe", 1), prefix=[("dense", r["first_k_dense_replace"])],
                               field="first_k_dense_replace"))


def full_attention_layers(r):
    """Every layer attends to every earlier token, whatever sliding_window says."""
    return dict(attention=Axis.constant("full_attention"))


def _nope_axis(r, layers):
    """SmolLM3 / Llama-4: which layers use RoPE (no_rope_layers: 1 = RoPE, 0 = NoPE; by
    default every no_rope_layer_interval-th layer is NoPE)."""
    nrl = r.get("no_rope_layers")
    if not nrl:  # transformers treats an empty list as absent
        n = r["no_rope_layer_interval"]
        return Axis.every(n, False, True, phase=n - 1, field="no_rope_layer_interval")
    return Axis.from_list([bool(v) for v in nrl[:layers]], field="no_rope_layers")


def gemma3_layers(r):
    """Gemma-3: sliding_window_pattern - 1 sliding layers, then one full."""
    return dict(attention=Axis.cycle(("sliding_attention", r["sliding_window_pattern"] - 1),
                                     ("full_attention", 1), field="sliding_window_pattern"))


def llama4_layers(r):
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


def qwen3_next_layers(r):
    """Qwen3-Next: full_attention_interval - 1 gated-DeltaNet layers, then one full;
    MoE as Qwen3-MoE."""
    n = r["full_attention_interval"]  # (no sliding window: use_sliding_window is not read)
    return dict(mlp=_qwen_moe_mlp(r),
                attention=Axis.cycle(("linear_attention", n - 1), ("full_attention", 1),
                                     field="full_attention_interval"))


def olmo3_layers(r):
    """OLMo 3: three sliding-window layers to one full layer (transformers' default
    layer_types)."""
    return dict(attention=Axis.cycle(("sliding_attention", 3), ("full_attention", 1),
                                     field="layer_types"))


def qwen3_5_layers(r):
    """Qwen3.5/3.6: full_attention_interval - 1 gated-DeltaNet layers, then one full
    (transformers' default layer_types; real configs list them); every MLP MoE or dense."""
    n = r["full_attention_interval"]
    return dict(attention=Axis.cycle(("linear_attention", n - 1), ("full_attention", 1),
                                     field="full_attention_interval"))


def qwen4_layers(r):
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
    if ids:
        _qwen4_ple_rules(r)
    ple = Axis.constant(0, field="ple_layer_ids")
    for k, i in enumerate(ids):
        ple = ple.override([i - 1], k + 1)
    return dict(attention=attn, indexer=attn.map(lambda v: v == "indexed_attention"), ple=ple)


def _qwen4_ple_rules(r):
    """Qwen4-Exp's per-layer embeddings: the n-gram heads split ple_embed_dim evenly, and the
    n-gram hashing needs an end-of-sequence token."""
    heads = (r["ngram_size"] - 1) * r["heads_per_ngram"]
    if heads <= 0 or r["ple_embed_dim"] % heads:
        _fail("ple_embed_dim", f"must be a multiple of the {heads} n-gram heads "
              "((ngram_size - 1) x heads_per_ngram)", r["ple_embed_dim"])
    eos = r.get("eos_token_id")
    if isinstance(eos, list):
        eos = eos[0] if eos else None
    if not _is_int(eos):
        _fail("eos_token_id", "must be set (a token id) when ple_layer_ids enables per-layer "
              "embeddings", r.get("eos_token_id"))


def smollm3_layers(r):
    """SmolLM3: a NoPE layer in every 4; with a window, the NoPE layers slide."""
    rope = _nope_axis(r, r["num_hidden_layers"])
    if not r.get("use_sliding_window") or r.get("sliding_window") is None:
        return dict(attention=Axis.constant("full_attention"), rope=rope)
    return dict(attention=rope.map(lambda v: "full_attention" if v else "sliding_attention"),
                rope=rope)


def qwen2_moe_layers(r):
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


def glm4_moe_layers(r):
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


def glm4_moe_lite_layers(r):
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


def deepseek_v32_layers(r):
    """DeepSeek-V3.2: every layer runs its own indexer."""
    return _dsa_layers(r, None)


def glm_moe_dsa_layers(r):
    """GLM-5: some layers reuse the previous layer's indexer choice (indexer_types)."""
    return _dsa_layers(r, _dsa_indexer_axis)


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


def nemotron_h_layers(r):
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


def granite_hybrid_layers(r):
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


def lfm2_moe_layers(r):
    """LFM2-MoE: short-convolution and attention layers as layer_types lists them ("conv",
    "full_attention"; transformers has no default and cannot build without it), the first
    num_dense_layers with a dense MLP, every later one with routed experts."""
    if r.get("layer_types") is None:
        _fail("layer_types", "required for model_type 'lfm2_moe' (conv or full_attention for "
              "each layer; transformers 5.23 gives no default)", None)
    n = r["num_dense_layers"]
    return dict(mlp=Axis.cycle(("moe", 1), prefix=[("dense", min(n, r["num_hidden_layers"]))],
                               field="num_dense_layers"))


def gemma4_layers(r):
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


def kimi_linear_layers(r):
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


def longcat_layers(r):
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


def deepseek_v4_layers(r):
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


def gemma4_has_experts(r):
    """Gemma 4 builds its routed experts only with enable_moe_block."""
    return bool(r.get("enable_moe_block"))


# --- prepare: a family's own spellings, read before the generic rules ----------------------
# (r, raw): r the config being resolved, raw the config.json as given

def nemotron_h_prepare(r, raw):
    """layer_types is transformers' alias of layers_block_type; the blocks' count is the
    pattern's length, whatever num_hidden_layers says (transformers warns and ignores it)."""
    if raw.get("layer_types") is not None and raw.get("layers_block_type") is None:
        r["layers_block_type"] = raw["layer_types"]
    r["layer_types"] = None
    r["num_hidden_layers"] = len(_nemotron_pattern(r))


def kimi_linear_prepare(r, raw):
    """linear_attn_config's values win, as KimiLinearConfig reads them."""
    lac = r.get("linear_attn_config")
    if lac is not None and not isinstance(lac, dict):
        _fail("linear_attn_config", "must be a JSON object", lac)
    for key, field in (("head_dim", "linear_head_dim"), ("num_heads", "linear_num_heads"),
                       ("short_conv_kernel_size", "linear_conv_kernel_dim")):
        if lac and key in lac:
            r[field] = lac[key]


def gpt2_prepare(r, raw):
    """n_inner = None: the classic 4 x d MLP. (GPT-2 and GPT-NeoX have no
    num_key_value_heads or head_dim field: every head has its own K and V, head_dim =
    hidden / heads. A config that sets them is a what-if, GPT-2 with GQA, that the course
    counts and transformers cannot build.)"""
    if r["intermediate_size"] is None and _is_int(r["hidden_size"]):
        r["intermediate_size"] = 4 * r["hidden_size"]


def qwen2_moe_prepare(r, raw):
    """Without use_sliding_window transformers sets sliding_window to 0: no window at all."""
    if r.get("use_sliding_window") is False:
        r["sliding_window"] = None


def lfm2_moe_prepare(r, raw):
    """LFM2's own name for tying the head wins, as Lfm2MoeConfig reads it."""
    if "tie_embedding" in raw:
        r["tie_word_embeddings"] = raw["tie_embedding"]


def longcat_prepare(r, raw):
    """transformers reads a null zero_expert_num as no zero-computation experts."""
    if r.get("zero_expert_num") is None:
        r["zero_expert_num"] = 0


# --- derive: fields computed from others, once nulls are refused -------------------------

def longcat_derive(r, raw):
    """transformers' num_hidden_layers is a property, 2 x num_layers (two attention sublayers
    per layer); given in a config, it sets num_layers to half of it."""
    v = raw.get("num_hidden_layers")
    if v is not None:
        r["num_layers"] = v // 2 if _is_int(v) else v
    n = r["num_layers"]
    if _is_int(n) and n < 1:
        _fail("num_hidden_layers" if v is not None else "num_layers",
              "must give at least one layer of two attention sublayers (num_layers = "
              "num_hidden_layers // 2)", v if v is not None else n)
    r["num_hidden_layers"] = 2 * n if _is_int(n) else n


def head_dim_floored(r, raw):
    """Where transformers reads ``getattr(config, "head_dim", hidden_size //
    num_attention_heads)`` and the config class declares no head_dim: a config without
    head_dim gets the floor of the division (GLM-4.5's class defaults: 4096 // 96 = 42), and
    a null one builds nothing (transformers fails on head_dim ** -0.5)."""
    if "head_dim" in raw and raw["head_dim"] is None:
        _fail("head_dim", "must not be null (leave it out for hidden_size // "
              "num_attention_heads)", None)
    hidden, heads = r.get("hidden_size"), r.get("num_attention_heads")
    if r.get("head_dim") is None and _is_int(hidden) and _is_int(heads) and heads > 0 \
            and hidden >= heads:
        r["head_dim"] = hidden // heads


def experts_only_derive(r, raw):
    """No dense MLP anywhere: intermediate_size is not a field, read as the experts' width."""
    if r.get("intermediate_size") is None:
        r["intermediate_size"] = r.get("moe_intermediate_size")


def qwen4_derive(r, raw):
    """ple_embed_dim defaults to hidden_size, as Qwen4ExpTextConfig sets it."""
    if r.get("ple_embed_dim") is None:
        r["ple_embed_dim"] = r.get("hidden_size")
    experts_only_derive(r, raw)


# --- check: a family's own rules, after the generic ones --------------------------------
# (r, head_dim): head_dim as the engine resolved it

def no_cross_attention(r, head_dim):
    """GPT-2 with cross-attention is an encoder-decoder's decoder, not a language model."""
    if r.get("add_cross_attention"):
        _fail("add_cross_attention", "a decoder with cross-attention to an encoder is not a "
              "language model this course counts; set it to false", True)


_NO_KV_HEADS = {"gpt2": "GPT-2", "gpt_neox": "GPT-NeoX (Pythia)", "persimmon": "Persimmon",
                "modernbert-decoder": "ModernBERT-decoder"}


def one_kv_per_head(r, head_dim):
    """GPT-2, GPT-NeoX, Persimmon, ModernBERT-decoder and the other multi-head-only GPT-style
    families: transformers builds one k and one v for every head (GPT-2's fused c_attn,
    GPT-NeoX's and Persimmon's query_key_value, 3 x hidden wide; ModernBERT-decoder's q, k
    and v, hidden wide each) and reads neither num_key_value_heads nor head_dim. A config or a
    what-if that sets them otherwise describes a model transformers
    does not build, so it is refused rather than counted."""
    name = _NO_KV_HEADS.get(r["model_type"], r["model_type"])
    heads, hidden = r["num_attention_heads"], r["hidden_size"]
    kv = r.get("num_key_value_heads")
    if kv is not None and kv != heads:
        _fail("num_key_value_heads", f"{name} in transformers has no KV heads: every head keeps "
              f"its own k and v (leave it out, or {heads:,} = num_attention_heads)", kv)
    hd = r.get("head_dim")
    if hd is not None and hd * heads != hidden:
        _fail("head_dim", f"{name} in transformers has no head_dim of its own: a head is "
              f"hidden_size / num_attention_heads = {hidden // heads:,} wide (leave it out)", hd)


def one_kv_head(r, head_dim):
    """DeepSeek-V4 attends with one K = V head shared by every query head; transformers does
    not read num_key_value_heads, so a value other than 1 changes nothing it builds."""
    kv = r.get("num_key_value_heads")
    if kv is not None and kv != 1:
        _fail("num_key_value_heads", "DeepSeek-V4 attends with one K = V head shared by every "
              "query head; transformers does not read this field (leave it at 1)", kv)


def granite_mamba_head(r, head_dim):
    """Granite's Mamba-2 width is mamba_expand x hidden_size, in mamba_n_heads heads of
    mamba_d_head ("auto": the width / heads), as GraniteMoeHybridConfig derives and checks it."""
    inner, nh, dh = r["mamba_expand"] * r["hidden_size"], r["mamba_n_heads"], r["mamba_d_head"]
    if inner % nh:
        _fail("mamba_n_heads", f"must divide mamba_expand x hidden_size = {inner:,} (the "
              "Mamba-2 width)", nh)
    if dh == "auto":
        dh = inner // nh
    elif not _is_int(dh) or not 0 < dh <= MAX_SIZE:
        _fail("mamba_d_head", "must be a positive whole number or \"auto\"", dh)
    if dh * nh != inner:
        _fail("mamba_d_head", f"times mamba_n_heads={nh:,} must equal mamba_expand x "
              f"hidden_size = {inner:,} (the Mamba-2 width)", dh)
    r["mamba_d_head"] = dh


def dense_prefix_fits(r, head_dim):
    """The first_k_dense_replace dense layers must fit in the model (transformers builds
    the rest as MoE)."""
    fk, layers = r["first_k_dense_replace"], r["num_hidden_layers"]
    if fk > layers:
        _fail("first_k_dense_replace", f"cannot exceed num_hidden_layers={layers}", fk)


def mlp_only_layers(r, head_dim):
    """Qwen-MoE's mlp_only_layers: indices of layers with a dense MLP instead of experts."""
    layers = r["num_hidden_layers"]
    mol = r.get("mlp_only_layers")
    mol = [] if mol is None else mol
    if not isinstance(mol, list) or len(mol) > MAX_LIST or not all(
            _is_int(i) and 0 <= i < layers for i in mol):
        _fail("mlp_only_layers", f"must be a list of layer indices in 0..{layers - 1:,}"
              f" (at most {MAX_LIST:,} of them)", mol)
    r["mlp_only_layers"] = mol


def deltanet_heads(r, head_dim):
    """Gated DeltaNet: value heads are grouped over key heads."""
    if r["linear_num_value_heads"] % r["linear_num_key_heads"]:
        _fail("linear_num_value_heads", "must be a multiple of linear_num_key_heads="
              f"{r['linear_num_key_heads']} (value heads are grouped over key heads)",
              r["linear_num_value_heads"])


def llama4_moe_layers(r, head_dim):
    """Llama-4's moe_layers (None: every interleave_moe_layer_step-th layer, in the schedule)."""
    layers = r["num_hidden_layers"]
    ml = r.get("moe_layers")
    if ml is not None and (not isinstance(ml, list) or len(ml) > MAX_LIST or not all(
            _is_int(i) and 0 <= i < layers for i in ml)):
        _fail("moe_layers", f"must be a list of layer indices in 0..{layers - 1:,}"
              f" (at most {MAX_LIST:,} of them)", ml)


def no_rope_layers(r, head_dim):
    """no_rope_layers: 1 = the layer uses RoPE, 0 = NoPE (no position code); empty or null:
    every no_rope_layer_interval-th layer is NoPE."""
    layers = r["num_hidden_layers"]
    nrl = r.get("no_rope_layers")
    if nrl and (not isinstance(nrl, list) or len(nrl) < layers or len(nrl) > MAX_LIST
                or not all(_is_int(v) and v in (0, 1) for v in nrl)):
        _fail("no_rope_layers", f"must list a 0 or 1 for each of the {layers:,} layers "
              f"(at most {MAX_LIST:,})", nrl)


def gemma3_bidirectional(r, head_dim):
    """With bidirectional attention the window is half of sliding_window, as
    Gemma3TextConfig sets it."""
    if r.get("use_bidirectional_attention") and _is_int(r["sliding_window"]):
        r["sliding_window"] = r["sliding_window"] // 2 + 1


def gemma4_rules(r, head_dim):
    """Experts need their width; "all"-bidirectional attention halves the window, as
    Gemma4TextConfig does."""
    if r.get("enable_moe_block") and r.get("moe_intermediate_size") is None:
        _fail("moe_intermediate_size", "required with enable_moe_block (the experts' width)",
              None)
    if r.get("use_bidirectional_attention") == "all" and _is_int(r["sliding_window"]):
        r["sliding_window"] = r["sliding_window"] // 2 + 1


def qwen4_rules(r, head_dim):
    """Qwen4ExpTextConfig.validate_architecture's rules that do not need the layer schedule."""
    if r["hc_count"] < 2:
        _fail("hc_count", "must be 2 or more (Qwen4-Exp mixes several residual streams)",
              r["hc_count"])
    gate = r.get("output_gate_type") or r.get("hidden_act") or "silu"
    if gate not in ("sigmoid", "silu"):
        _fail("output_gate_type" if r.get("output_gate_type") else "hidden_act",
              "the linear-attention output gate must be sigmoid or silu", gate)
    if r["indexer_kv_heads"] != 1:
        _fail("indexer_kv_heads", "must be 1 (the indexer keeps one key head)",
              r["indexer_kv_heads"])
    if r["indexer_budget"] % r["indexer_compress_ratio"]:
        _fail("indexer_budget", "must be a multiple of indexer_compress_ratio="
              f"{r['indexer_compress_ratio']} (it selects whole blocks)", r["indexer_budget"])
    rope = r.get("rope_parameters")
    prf = rope.get("partial_rotary_factor", 1.0) if isinstance(rope, dict) else 1.0
    if not isinstance(prf, (int, float)) or isinstance(prf, bool) or not 0 <= prf <= 1:
        _fail("rope_parameters.partial_rotary_factor", "must be a number from 0 to 1", prf)
    if int(head_dim * prf) > r["indexer_head_dim"]:
        _fail("indexer_head_dim", f"must hold the attention's rotary dimensions "
              f"({int(head_dim * prf)} = head_dim x partial_rotary_factor)", r["indexer_head_dim"])


# --- an MHA baseline (llmcourse.sizing.mha_baseline): a family's own fields -----------------

def gemma4_mha(cfg, full_attention):
    """Gemma 4's MHA baseline: full layers with a KV head per query head too; with
    ``full_attention``, every layer also stores its own K and V (no KV sharing)."""
    changes = {}
    if full_attention and cfg.get("num_kv_shared_layers"):
        changes["num_kv_shared_layers"] = 0
    if cfg.get("attention_k_eq_v") and cfg.get("per_layer_config") is None:
        changes["num_global_key_value_heads"] = cfg.num_attention_heads
    return changes


def nemotron_h_mha(cfg, full_attention):
    """Nemotron-H's: with ``full_attention`` the Mamba-2 blocks become attention blocks;
    the MLP and MoE blocks stay."""
    if not full_attention:
        return {}
    pattern = "".join("*" if k.attention == "mamba" else
                      "E" if k.mlp == "moe" else "-" if k.mlp == "dense" else "*"
                      for k in cfg.layer_schedule.expand("kinds"))
    return {"hybrid_override_pattern": pattern, "layers_block_type": None}


def granite_hidden_multiple(cfg):
    """Granite 4.0: hidden_size keeps its Mamba-2 part (mamba_expand x hidden) in whole heads:
    a multiple of mamba_n_heads / gcd(mamba_n_heads, mamba_expand)."""
    from math import gcd
    heads, expand = cfg.mamba_n_heads, cfg.mamba_expand
    return heads // gcd(heads, expand)
