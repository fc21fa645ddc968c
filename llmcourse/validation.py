"""The rules every ``config.json`` must keep before the engine reads it.

The generic rules are here; a family's own (its defaults, required and positive fields,
hooks) are its entry in :mod:`llmcourse.families`. Every rule raises
:class:`~llmcourse.limits.ConfigError` (a ``ValueError``) with a one-line message naming the
field and the rule. Nothing in a config is executed. Standard library only.
"""

from __future__ import annotations

import math

from .families import (_MULTIMODAL, _TEXT_ALIASES, ENTRIES, NOT_DECODERS, NOT_SIZED,
                       SUPPORTED_MODEL_TYPES, WRAPPERS)
from .towers import resolve_towers
from .layers import Axis, LayerSchedule, LayerTypes
from .limits import (MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_LIST, MAX_SIZE, ConfigError, _fail,
                     _is_int, field_name, show)

# fields every config must give (a family's entry adds its own: Family.required)
REQUIRED = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
            "intermediate_size")
# fields whose value must be a positive whole number when present (and not null)
POSITIVE = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
            "intermediate_size", "num_key_value_heads", "head_dim", "moe_intermediate_size",
            "num_experts_per_tok", "kv_lora_rank", "qk_rope_head_dim", "v_head_dim",
            "q_lora_rank", "sliding_window", "decoder_sparse_step", "moe_layer_freq",
            "num_experts", "num_local_experts", "n_routed_experts", "max_window_layers",
            "max_position_embeddings", "experts_per_token", "n_group", "topk_group",
            "attention_chunk_size")
NON_NEGATIVE = ("n_shared_experts", "first_k_dense_replace", "qk_nope_head_dim")
# fields read elsewhere in the course, checked for their type when present
NUMBER = ("rope_theta", "rms_norm_eps", "layer_norm_eps", "partial_rotary_factor")
STRING = ("torch_dtype", "dtype", "hidden_act", "hidden_activation", "_name_or_path")
OBJECT = ("text_config", "rope_scaling", "quantization_config", "compress_rates")
BOOLEAN = ("tie_word_embeddings", "attention_bias", "mlp_bias", "use_sliding_window",
           "use_conv_bias", "use_bias", "attention_k_eq_v", "enable_moe_block",
           "attention_out_bias", "use_double_wide_mlp", "qk_layernorm", "qkv_bias",
           "use_qk_norm", "add_cross_attention", "use_bidirectional_attention",
           "norm_topk_prob", "router_bias", "mamba_conv_bias", "mamba_proj_bias", "conv_bias",
           "use_expert_bias", "tie_embedding")
# a null in a config.json is refused where the family's default is a value (Family.nullable
# lists the exceptions), except for these, whose null transformers derives: KV heads =
# heads, head_dim = hidden / heads, no MLP-only layers, the family's own layer pattern ...
NULL_DERIVES = ("num_key_value_heads", "head_dim", "mlp_only_layers", "no_rope_layers",
                "moe_layers", "layer_types", "pad_token_id", "n_shared_experts",
                "sliding_window", "mlp_layer_types", "indexer_types", "q_lora_rank",
                "moe_latent_size", "hybrid_override_pattern", "layers_block_type",
                "global_head_dim", "compress_rates", "compress_ratios", "num_hash_layers",
                "num_global_key_value_heads", "per_layer_config", "ple_layer_ids",
                "ple_embed_dim")
# multi-token-prediction layers a checkpoint ships (listed by weight_shapes, never counted):
# every released model has 1; a bound keeps a what-if listing finite
MAX_MTP_LAYERS = 1000
_MTP_FIELDS = ("num_nextn_predict_layers", "mtp_num_hidden_layers")
# the names these had before the rules moved into the family entries
_REQUIRED, _POSITIVE, _NON_NEGATIVE = REQUIRED, POSITIVE, NON_NEGATIVE
_NUMBER, _STRING, _OBJECT, _BOOLEAN = NUMBER, STRING, OBJECT, BOOLEAN


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


def _unsupported_hint(mt=None):
    """Where to look instead: the closest supported names to ``mt`` (a typo, a newer
    version of a family) and where the whole list is. Its length does not grow with the
    number of supported types."""
    near = []
    if isinstance(mt, str) and len(mt) <= 100:
        from difflib import get_close_matches
        near = get_close_matches(mt.lower(), SUPPORTED_MODEL_TYPES, n=3, cutoff=0.6)
    head = f"closest supported: {', '.join(near)}; " if near else ""
    return (f"{head}all {len(SUPPORTED_MODEL_TYPES)} supported types are in "
            f"lc.SUPPORTED_MODEL_TYPES and docs/model-types.md; to add one: 'Adding a family' in "
            f"CONTRIBUTING.md")


def _validate(raw):
    """Check ``raw`` (a plain dict) and return the resolved fields as a dict: the family's
    own steps (its entry's prepare, derive and check hooks) around the generic rules."""
    mt = raw.get("model_type")
    if mt is None:
        _fail("model_type", "missing; a config.json must say which architecture it is "
              f"({_unsupported_hint()})", show_value=False)
    if not isinstance(mt, str):
        _fail("model_type", f"must be a string naming the architecture ({_unsupported_hint()})",
              mt)
    if mt in WRAPPERS:
        return _validate_text_config(raw, mt)
    if mt in NOT_DECODERS:
        _fail("model_type", f"{mt} is {NOT_DECODERS[mt]}; the course sizes decoder LLMs",
              show_value=False)
    if mt in NOT_SIZED:   # a decoder with a part the course does not size
        _fail("model_type", f"{mt}: {NOT_SIZED[mt]}", show_value=False)
    if mt not in ENTRIES:
        _fail("model_type", f"unsupported; {_unsupported_hint(mt)}", mt)
    fam = ENTRIES[mt]
    r, label = _resolve(raw, fam)
    for step in fam.prepare:
        step(r, raw)
    _refuse_nulls(raw, r, fam, label)
    for step in fam.derive:
        step(r, raw)
    for f in REQUIRED + fam.required:
        if raw.get(f) is None and r.get(f) is None:
            _fail(label(f), f"required for model_type {mt!r} but missing", show_value=False)
    moe_field = _moe_field(r, fam, label)
    _check_field_types(r, fam, moe_field, label)
    heads, kv, head_dim = _check_heads(r, fam, mt, label)
    layers = r["num_hidden_layers"]
    experts, top_k = _check_experts(raw, r, fam, moe_field, label)
    if fam.layout.attention == "mla" or fam.layout.shared_experts == "n_shared":
        if r.get("n_shared_experts") is None:
            r["n_shared_experts"] = 0
    for step in fam.check:
        step(r, head_dim)
    schedule = _layer_schedule(fam, r, layers)
    lt = LayerTypes(schedule)
    if "chunked_attention" in lt and r.get("attention_chunk_size") is None:
        _fail("attention_chunk_size", "layer_types has chunked_attention layers, so a chunk "
              "size is required", None)
    r["layer_types"] = lt
    return dict(
        model_type=mt, layout=fam.layout, moe_field=moe_field, zero_experts_field=fam.zero_experts,
        hidden_size=r["hidden_size"], num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=kv, head_dim=head_dim, vocab_size=r["vocab_size"],
        intermediate_size=r["intermediate_size"],
        tie_word_embeddings=bool(r["tie_word_embeddings"]),
        num_experts=experts or 0, num_experts_per_tok=top_k or 0,
        layer_types=lt, layer_schedule=schedule, sliding_window=r.get("sliding_window"),
        text_model_of=None, resolved=r,
    )


def _resolve(raw, fam):
    """The family's defaults overlaid with the config's keys, its own names for standard
    fields filled both ways; and ``label(field)``, the name the config.json uses for it."""
    r = dict(fam.defaults)
    r.update(raw)  # a null num_key_value_heads / head_dim means: derive it
    amap = fam.attribute_map
    for std, own in amap.items():  # GPT-2 reads n_embd for hidden_size, and so on
        # both given: the one transformers sets last wins (the alias, except where the
        # class takes the alias as a named argument: Qwen3-MoE's num_experts)
        if std in raw and not (std in fam.own_wins and own in raw):
            r[own] = raw[std]
        r[std] = r.get(own)
    std_of = {own: std for std, own in amap.items()}

    def label(f):  # name a field as the config.json writes it
        own, std = amap.get(f), std_of.get(f)
        if own and f not in raw:
            return own
        return std if std and std in raw and f not in raw else f

    return r, label


def _refuse_nulls(raw, r, fam, label):
    """A null where transformers needs a value: refused, naming the default to fall back on."""
    for f, default in fam.defaults.items():
        if default is not None and r.get(f) is None and f not in fam.nullable \
                and (f not in NULL_DERIVES or f in fam.never_null):
            _fail(label(f), f"must not be null (leave it out for the default, {default!r})",
                  None)


def _moe_field(r, fam, label):
    """The field holding the routed-expert count, or None for a model without experts."""
    moe_field = fam.moe
    if moe_field and fam.moe_when and not fam.moe_when(r):
        moe_field = None  # experts are built only when the family says so (Gemma 4)
    if moe_field and fam.dense_when_no_experts and r.get(moe_field) == 0:
        moe_field = None  # no experts: the shared MLP alone (Granite 4.0-H-350M, -1B, -Micro)
    if moe_field and r.get(moe_field) == 0:
        _fail(label(moe_field), "a mixture-of-experts model needs at least one expert", 0)
    if moe_field:  # null where transformers needs a number: refused, not a TypeError
        for f in (moe_field, "num_experts_per_tok"):
            if r.get(f) is None:
                # (a class whose own default is null, DeepSeek-V2's top-k: it must be given)
                hint = ("give one: its config class's default is null" if
                        fam.defaults.get(fam.attribute_map.get(f, f)) is None
                        else "leave it out for the default")
                _fail(label(f), "a mixture-of-experts model needs a whole number here, not "
                      f"null ({hint})", None)
    return moe_field


def _check_field_types(r, fam, moe_field, label):
    """Each field of a known kind holds a value of that kind: positive or non-negative
    whole numbers at most MAX_SIZE, booleans, numbers, strings, objects."""
    if r.get("use_sliding_window") and "max_window_layers" in fam.defaults \
            and r.get("max_window_layers") is None:
        _fail("max_window_layers", "must be a whole number when use_sliding_window is true "
              "(the layers from this index on slide)", None)
    for f in POSITIVE + fam.positive:
        v = r.get(f)
        if v is None or (v == 0 and moe_field is None and fam.dense_when_no_experts
                         and f in (fam.moe, "num_experts_per_tok")):
            continue
        if not _is_int(v):
            _fail(label(f), "must be a whole number", v)
        if v <= 0:
            _fail(label(f), "must be positive", v)
        if v > MAX_SIZE:
            _fail(label(f), f"at most {MAX_SIZE:,} (a trillion) here; no real model comes near", v)
    for f in NON_NEGATIVE + fam.non_negative:
        v = r.get(f)
        if v is None:
            continue
        if not _is_int(v):
            _fail(f, "must be a whole number", v)
        if v < 0:
            _fail(f, "must be zero or positive", v)
        if v > MAX_SIZE:
            _fail(f, f"at most {MAX_SIZE:,} (a trillion) here; no real model comes near", v)
    for f in _MTP_FIELDS:
        if f in fam.non_negative and (r.get(f) or 0) > MAX_MTP_LAYERS:
            _fail(f, f"at most {MAX_MTP_LAYERS} multi-token-prediction layers (released models "
                  "have 1)", r[f])
    for f in BOOLEAN:
        v = r.get(f)
        if f in fam.enums:  # a mode, not a flag
            if v not in fam.enums[f]:
                _fail(f, f"must be {_one_of(fam.enums[f])}", v)
            continue
        if v is not None and not isinstance(v, bool):
            _fail(f, "must be true or false", v)
    for f in NUMBER:
        v = r.get(f)
        if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)
                              or not math.isfinite(v) or v < 0):
            _fail(f, "must be a finite number, zero or more", v)
    for f in STRING:
        v = r.get(f)
        if v is not None and not isinstance(v, str):
            _fail(f, "must be a string", v)
    for f in OBJECT:
        v = r.get(f)
        if v is not None and not isinstance(v, dict):
            _fail(f, "must be a JSON object or null", v)


def _one_of(values):
    """'"all", "vision" or null' for ("all", "vision", None)."""
    words = [f'"{v}"' if isinstance(v, str) else "null" if v is None else str(v)
             for v in values]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def _check_heads(r, fam, mt, label):
    """Heads, KV heads and head_dim fit together; the padding row fits in the vocabulary.
    Returns (heads, KV heads, head_dim)."""
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
    if fam.divisible_heads and hidden % heads:  # Gemma-3's own rule
        _fail("hidden_size", f"must be divisible by num_attention_heads={heads} "
              f"(a {mt} rule, even with head_dim given)", hidden)
    if fam.layout.attention == "mla":  # q.k over the no-RoPE and RoPE parts of each head
        head_dim = r["qk_nope_head_dim"] + r["qk_rope_head_dim"]
    elif r.get("head_dim") is not None:
        head_dim = r["head_dim"]
    else:
        if hidden % heads:
            _fail(label("hidden_size"), f"must be divisible by num_attention_heads={heads} "
                  "when no head_dim is given", hidden)
        head_dim = hidden // heads
    return heads, kv, head_dim


def _check_experts(raw, r, fam, moe_field, label):
    """(routed experts, experts per token): top-k no more than the router can pick from."""
    experts = r[moe_field] if moe_field else 0
    top_k = r.get("num_experts_per_tok") if moe_field else 0
    fb = fam.top_k_fallback
    if fb and raw.get("num_experts_per_tok") is None and _is_int(raw.get(fb)):
        top_k = raw[fb]
    if moe_field:
        # LongCat-Flash's router picks among its experts and its zero-computation experts
        pool = experts + (r[fam.zero_experts] if fam.zero_experts else 0)
        if top_k > pool:
            noun = "expert" if pool == 1 else "experts"
            _fail(label("num_experts_per_tok"), f"cannot exceed the {pool:,} {noun} ("
                  f"{moe_field}{f' + {fam.zero_experts}' if pool != experts else ''})", top_k)
    return experts, top_k


def _layer_schedule(fam, r, layers):
    """The :class:`~llmcourse.layers.LayerSchedule` of a resolved config: the family's
    declaration (``layers=`` in its entry, the same rule as each transformers ``*Config``),
    an explicit ``layer_types`` in place of its attention."""
    axes = fam.layers(r) if fam.layers else {}
    sw = r.get("sliding_window")
    allowed = fam.attention_kinds
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
        if sw is None:
            axes["attention"] = Axis.constant("full_attention")
        else:  # llama-style with a window: mistral, mixtral, phi3
            axes["attention"] = Axis.constant("sliding_attention", field="sliding_window")
    elif sw is None:  # a sliding layer without a window attends to everything
        axes["attention"] = axes["attention"].map(
            lambda v: "full_attention" if v == "sliding_attention" else v)
    axes.setdefault("mlp", Axis.constant("moe" if fam.moe else "dense"))
    return LayerSchedule(layers, **axes)


def _validate_text_config(raw, mt):
    """A multimodal config (Gemma-3, Llama-4): its language model, read from ``text_config``
    (transformers' text defaults fill what it leaves out), and its towers
    (:func:`llmcourse.towers.resolve_towers`); the wrapper's own tie_word_embeddings ties
    the head of the language model inside it."""
    for f in ("quantization_config",):  # the checkpoint's own fields, read outside the text model
        v = raw.get(f)
        if v is not None and not isinstance(v, dict):
            _fail(f, "must be a JSON object or null", v)
    for f in ("torch_dtype", "dtype"):
        v = raw.get(f)
        if v is not None and not isinstance(v, str):
            _fail(f, "must be a string", v)
    wrapper = WRAPPERS[mt]
    text = wrapper.text_of(raw)
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
    r["towers"] = resolve_towers(mt, wrapper.towers, raw)
    tie = raw.get("tie_word_embeddings", wrapper.tie)
    if wrapper.tie is not None:  # the wrapper's own setting ties the head inside it
        if tie is not None and not isinstance(tie, bool):
            _fail("tie_word_embeddings", "must be true or false", tie)
        r["tie_word_embeddings"] = r["resolved"]["tie_word_embeddings"] = bool(tie)
    return r
