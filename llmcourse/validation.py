"""The rules a ``config.json`` must keep before the engine reads it.

Every rule raises :class:`~llmcourse.limits.ConfigError` (a ``ValueError``) with a one-line
message naming the field and the rule. Nothing in a config is executed. Standard library only.
"""

from __future__ import annotations

import math

from .families import (_FAMILIES, _MULTIMODAL, _TEXT_ALIASES, DELTANET_TYPES, DSA_TYPES,
                       SUPPORTED_MODEL_TYPES, _layer_schedule, _nemotron_pattern)
from .layers import LayerTypes
from .limits import (MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_LIST, MAX_SIZE, ConfigError, _fail,
                     _is_int, field_name, show)




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
# LongCat-Flash's MLA always has a low-rank query (q_a_proj)
_REQUIRED_BY_TYPE["longcat_flash"] = ("moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim",
                                      "qk_nope_head_dim", "v_head_dim", "q_lora_rank")
# Qwen4-Exp: transformers builds the query-selection indexer on every attention layer, so
# it cannot build a model without its sizes
_REQUIRED_BY_TYPE["qwen4_exp_text"] = ("indexer_n_heads", "indexer_kv_heads", "indexer_head_dim",
                                       "indexer_budget", "indexer_compress_ratio")
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
            "use_bidirectional_attention", "norm_topk_prob", "router_bias", "mamba_conv_bias",
            "mamba_proj_bias", "conv_bias", "use_expert_bias", "tie_embedding")
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
    "qwen4_exp_text": ("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                       "linear_num_key_heads", "linear_num_value_heads",
                       "full_attention_interval", "shared_expert_intermediate_size", "hc_count",
                       "hc_lowrank", "ple_embed_dim", "ple_conv_kernel_size", "ngram_size",
                       "heads_per_ngram", "make_ngram_vocab_size_divisible_by",
                       "split_ngram_parts", "indexer_n_heads", "indexer_kv_heads",
                       "indexer_head_dim", "indexer_budget", "indexer_compress_ratio"),
    "llama4_text": ("intermediate_size_mlp", "interleave_moe_layer_step", "attention_chunk_size",
                    "no_rope_layer_interval"),
    "smollm3": ("no_rope_layer_interval",),
    "deepseek_v32": ("index_topk", "index_head_dim", "index_n_heads"),
    "gemma4_text": ("vocab_size_per_layer_input",),
    "kimi_linear": ("linear_head_dim", "linear_num_heads", "linear_conv_kernel_dim"),
    "deepseek_v4": ("q_lora_rank", "hc_mult", "o_groups", "o_lora_rank", "index_n_heads",
                    "index_head_dim", "index_topk"),
    "nemotron_h": ("ssm_state_size", "mamba_num_heads", "mamba_head_dim", "n_groups",
                   "conv_kernel", "moe_shared_expert_intermediate_size", "moe_latent_size",
                   "chunk_size"),
    "glm_moe_dsa": ("index_topk", "index_head_dim", "index_n_heads"),
    "longcat_flash": ("num_layers", "qk_head_dim"),
    "granitemoehybrid": ("shared_intermediate_size", "mamba_n_heads", "mamba_n_groups",
                         "mamba_d_state", "mamba_d_conv", "mamba_expand", "mamba_chunk_size"),
    "lfm2_moe": ("conv_L_cache",),
}
# null in a config.json: derive it (KV heads = heads, head_dim = hidden / heads, no MLP-only
# layers, no position code pattern given) rather than a value it cannot be
_NULL_IS_AN_ERROR = ("gpt2", "gpt_neox", "gemma", "gemma3_text", "phi3", "qwen2_moe", "olmo2",
                     "granite", "smollm3", "glm4_moe", "llama4_text", "qwen3_next",
                     "qwen3_5_text", "qwen3_5_moe_text", "deepseek_v32", "glm_moe_dsa",
                     "minimax_m2", "glm4_moe_lite", "mistral4", "nemotron_h", "olmo3",
                     "ministral3", "gemma4_text", "seed_oss", "kimi_linear", "deepseek_v4",
                     "longcat_flash", "qwen4_exp_text", "granitemoehybrid", "lfm2_moe")
_NULL_DERIVES = ("num_key_value_heads", "head_dim", "mlp_only_layers", "no_rope_layers",
                 "moe_layers", "layer_types", "pad_token_id", "n_shared_experts", "sliding_window",
                 "mlp_layer_types", "indexer_types", "q_lora_rank", "moe_latent_size",
                 "hybrid_override_pattern", "layers_block_type", "global_head_dim",
                 "compress_rates", "compress_ratios", "num_hash_layers",
                 "num_global_key_value_heads", "per_layer_config", "ple_layer_ids",
                 "ple_embed_dim")
_NON_NEGATIVE_BY_TYPE = {"glm4_moe": ("num_nextn_predict_layers",),
                         "gemma4_text": ("num_kv_shared_layers", "hidden_size_per_layer_input"),
                         "glm4_moe_lite": ("num_nextn_predict_layers",),
                         "deepseek_v32": ("num_nextn_predict_layers",),
                         "glm_moe_dsa": ("num_nextn_predict_layers",),
                         "qwen3_next": ("num_nextn_predict_layers", "mtp_num_hidden_layers"),
                         "qwen3_5_text": ("mtp_num_hidden_layers",),
                         "qwen3_5_moe_text": ("mtp_num_hidden_layers",),
                         "qwen4_exp_text": ("mtp_num_hidden_layers", "ngram_vocab_size_base"),
                         "longcat_flash": ("zero_expert_num",),
                         "lfm2_moe": ("num_dense_layers",)}
# multi-token-prediction layers a checkpoint ships (listed by weight_shapes, never counted):
# every released model has 1; a bound keeps a what-if listing finite
MAX_MTP_LAYERS = 1000



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
            f"lc.SUPPORTED_MODEL_TYPES and the README; to add one: 'Adding a family' in "
            f"CONTRIBUTING.md")


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
        _fail("model_type", f"unsupported; {_unsupported_hint(mt)}", mt)
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

    if mt == "lfm2_moe" and "tie_embedding" in raw:  # LFM2's own name wins, as Lfm2MoeConfig reads it
        r["tie_word_embeddings"] = raw["tie_embedding"]
    if mt == "longcat_flash" and r.get("zero_expert_num") is None:
        r["zero_expert_num"] = 0  # transformers reads a null as no zero-computation experts
    if mt in _NULL_IS_AN_ERROR:  # a null where transformers needs a value
        for f, default in spec["defaults"].items():
            if default is not None and r.get(f) is None and f not in _NULL_DERIVES:
                _fail(label(f), f"must not be null (leave it out for the default, {default!r})",
                      None)
    if mt == "longcat_flash":
        # transformers' num_hidden_layers is a property, 2 x num_layers (two attention
        # sublayers per layer); given in a config, it sets num_layers to half of it
        v = raw.get("num_hidden_layers")
        if v is not None:
            r["num_layers"] = v // 2 if _is_int(v) else v
        n = r["num_layers"]
        if _is_int(n) and n < 1:
            _fail("num_hidden_layers" if v is not None else "num_layers",
                  "must give at least one layer of two attention sublayers (num_layers = "
                  "num_hidden_layers // 2)", v if v is not None else n)
        r["num_hidden_layers"] = 2 * n if _is_int(n) else n
    if mt == "qwen4_exp_text" and r.get("ple_embed_dim") is None:
        r["ple_embed_dim"] = r.get("hidden_size")  # as Qwen4ExpTextConfig defaults it
    if mt in ("qwen3_5_moe_text", "qwen4_exp_text") and r.get("intermediate_size") is None:
        r["intermediate_size"] = r.get("moe_intermediate_size")  # no dense MLP to size
    for f in _REQUIRED + _REQUIRED_BY_TYPE.get(mt, ()):
        if raw.get(f) is None and r.get(f) is None:
            _fail(label(f), f"required for model_type {mt!r} but missing", show_value=False)
    moe_field = spec.get("moe")
    if mt == "gemma4_text" and not r.get("enable_moe_block"):
        moe_field = None  # experts are built only with enable_moe_block
    if mt == "granitemoehybrid" and r.get("num_local_experts") == 0:
        moe_field = None  # no experts: the shared MLP alone (Granite 4.0-H-350M, -1B, -Micro)
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
        if v is None or (v == 0 and moe_field is None and mt == "granitemoehybrid"
                         and f in ("num_local_experts", "num_experts_per_tok")):
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
    if mt == "granitemoehybrid":
        _granite_mamba_head(r)
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
        # LongCat-Flash's router picks among its experts and its zero-computation experts
        pool = experts + (r["zero_expert_num"] if mt == "longcat_flash" else 0)
        if top_k > pool:
            noun = "expert" if pool == 1 else "experts"
            _fail(label("num_experts_per_tok"), f"cannot exceed the {pool:,} {noun} ("
                  f"{moe_field}{' + zero_expert_num' if pool != experts else ''})", top_k)
    if (spec["family"] == "deepseek" or mt == "glm4_moe") and mt not in ("glm4_moe_lite",
                                                                           "longcat_flash"):
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

    if mt == "qwen4_exp_text":
        _qwen4_rules(r, head_dim)
    schedule = _layer_schedule(mt, spec, r, layers)
    if mt == "qwen4_exp_text" and r["ple_layer_ids"]:
        _qwen4_ple_rules(r)
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


def _qwen4_rules(r, head_dim):
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


def _granite_mamba_head(r):
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


