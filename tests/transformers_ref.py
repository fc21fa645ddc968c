"""The independent count: Hugging Face transformers builds the model on the meta
device from the same config dict (no weights are allocated, nothing is downloaded)."""

import functools

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

transformers.logging.set_verbosity_error()

# loading-only fields: quantisation of a checkpoint and remote-code pointers
_LOADING_ONLY = ("quantization_config", "auto_map")
# multimodal configs: the course counts their language model, built from text_config
from config_files import TEXT_MODEL as _TEXT_MODEL  # noqa: E402


def hf_config(d):
    d = {k: v for k, v in d.items() if k not in _LOADING_ONLY}
    # as from_pretrained reads a config.json: {"__float__": "Infinity"} is a float (a saved
    # Granite 4.0 config writes its time_step_limit so)
    d = transformers.PreTrainedConfig._decode_special_floats(d)
    if d.get("model_type") in _TEXT_MODEL:
        outer = d["model_type"]
        d = {k: v for k, v in (d.get("text_config") or {}).items() if k not in _LOADING_ONLY}
        d.setdefault("model_type", _TEXT_MODEL[outer])
        if d["model_type"] == "kimi_k2":  # as KimiK25Config reads its text_config
            d["model_type"] = "deepseek_v3"
    return AutoConfig.for_model(d.pop("model_type"), **d)


def is_wrapper(d):
    """A multimodal wrapper's config (Gemma 3, Llama 4, Qwen3.5, ...): built whole."""
    return d.get("model_type") in _TEXT_MODEL


def whole_config(d):
    """A wrapper's config as transformers reads it whole: its class, towers included."""
    d = {k: v for k, v in d.items() if k not in _LOADING_ONLY}
    d = transformers.PreTrainedConfig._decode_special_floats(d)
    return AutoConfig.for_model(d.pop("model_type"), **d)


def whole_model(d):
    """What transformers builds for a wrapper config on the meta device: the class its
    ``architectures`` names where transformers has it (Kimi K2.5's names remote code),
    else the image-text-to-text class its type maps to."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
    arch = (d.get("architectures") or [None])[0]
    name = (arch if isinstance(arch, str) and hasattr(transformers, arch)
            else MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES[d["model_type"]])
    with torch.device("meta"):
        return getattr(transformers, name)(whole_config(d))


def model_of(d):
    """The meta build the engine's counts are checked against: a wrapper whole, else the
    causal LM."""
    return whole_model(d) if is_wrapper(d) else meta_model(d)


def causal_lm(config):
    """AutoModelForCausalLM, or for a type it does not register (mistral4) the
    ``*ForCausalLM`` class its config names, as the config's ``architectures`` would, or the
    causal LM whose config class it is (mllama_text_model: MllamaForCausalLM)."""
    try:
        return AutoModelForCausalLM.from_config(config)
    except ValueError:
        name = type(config).__name__.removesuffix("Config") + "ForCausalLM"
        if hasattr(transformers, name):
            return getattr(transformers, name)(config)
        # a text config registered under its wrapper's type (Llama 3.2 Vision's
        # MllamaTextConfig): the causal LM whose config class it is
        from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
        for cls in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.values():
            cls = getattr(transformers, cls, None)
            if cls is not None and getattr(cls, "config_class", None) is type(config):
                return cls(config)
        raise


def meta_model(d):
    with torch.device("meta"):
        return causal_lm(hf_config(d))


def returned_cache(output):
    """The cache a forward returns: ``past_key_values``, or where a model names it otherwise
    ``cache_params`` (Mamba, Mamba-2, Falcon-Mamba, xLSTM) or ``state`` (RWKV)."""
    for name in ("past_key_values", "cache_params", "state"):
        cache = getattr(output, name, None)
        if cache is not None:
            return cache
    return None


def cache_argument(model):
    """The keyword a model's forward takes its cache by (``cache_params``, ``state`` or
    ``past_key_values``)."""
    import inspect
    params = inspect.signature(model.forward).parameters
    return next((n for n in ("cache_params", "state") if n in params), "past_key_values")


def tiny_prefill(d, seq, batch):
    """A tiny model of config ``d`` (seed 0, eval mode) and the cache it holds after a CPU
    prefill of ``batch`` sequences of ``seq`` random tokens."""
    torch.manual_seed(0)
    model = causal_lm(hf_config(d)).eval()
    with torch.no_grad():
        ids = torch.randint(0, d["vocab_size"], (batch, seq))
        cache = _prefill(model, ids)
    return model, cache


def _prefill(model, ids):
    """The cache after a forward over ``ids``. A model that returns none (RecurrentGemma: its
    caller passes the cache in, and its recurrent blocks keep their states on their modules)
    is run again with a cache given; the states its modules hold come with the cache
    (``module_states``)."""
    cache = returned_cache(model(ids, use_cache=True))
    if cache is None:
        from transformers import DynamicCache
        cache = DynamicCache(config=model.config)
        model(ids, use_cache=True, past_key_values=cache)
    held = _module_states(model)
    if held:
        cache.module_states = held
    return cache


def cache_numbers(cache):
    """(numbers in fixed states, numbers in K and V tensors) that a transformers cache
    holds: the conv and recurrent states of linear-attention and Mamba layers, and every
    layer's keys and values."""
    states = kv = 0
    states += sum(t.numel() for t in _other_states(cache))
    for layer in getattr(cache, "layers", ()):
        for kind in ("conv_states", "recurrent_states"):  # {state index: tensor}
            states += sum(t.numel() for t in (getattr(layer, kind, None) or {}).values()
                          if t is not None)
        kv += sum(t.numel() for t in (getattr(layer, "keys", None),
                                      getattr(layer, "values", None)) if t is not None)
    return states, kv


def _other_states(cache):
    """The fixed states a cache keeps outside its layers' conv and recurrent states: MiniMax's
    lightning-attention states (``linear_cache``, one tensor per lightning layer), those the
    model's own modules hold (``module_states``, set by :func:`tiny_prefill`), xLSTM's
    (``rnn_state``: each layer's memory, normaliser and stabiliser), or RWKV's state, a list
    of tensors that is the whole cache."""
    if isinstance(cache, (list, tuple)):   # RWKV: its state, five tensors for all layers
        return [t for t in cache if isinstance(t, torch.Tensor)]
    xlstm = [t for states in (getattr(cache, "rnn_state", None) or {}).values() for t in states]
    return [t for t in (*getattr(cache, "linear_cache", ()), *getattr(cache, "module_states", ()),
                        *xlstm) if isinstance(t, torch.Tensor)]


def _module_states(model):
    """States a model keeps on its modules rather than in its cache: RecurrentGemma's
    convolution inputs and RG-LRU states."""
    return [t for m in model.modules() for name in ("conv1d_state", "recurrent_states")
            if isinstance(t := getattr(m, name, None), torch.Tensor)]


def cache_bytes(cache):
    """(bytes in fixed states, bytes in K and V tensors, bytes of the lightning indexers'
    keys) that a transformers cache holds (token positions it keeps for bookkeeping are
    not counted)."""
    states = kv = indexer = 0
    states += sum(t.numel() * t.element_size() for t in _other_states(cache))
    for layer in getattr(cache, "layers", ()):
        for kind in ("conv_states", "recurrent_states"):  # {state index: tensor}
            states += sum(t.numel() * t.element_size()
                          for t in (getattr(layer, kind, None) or {}).values() if t is not None)
        for kind in ("keys", "values"):
            t = getattr(layer, kind, None)
            kv += t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0
        for kind in ("indexer_keys", "idx_keys"):   # (MiniMax-M3's: idx_keys)
            t = getattr(layer, kind, None)
            indexer += t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0
    return states, kv, indexer


def routed_expert_params(m):
    """Routed-expert parameters, found by module path in transformers' own model."""
    return sum(p.numel() for n, p in m.named_parameters()
               if ".experts." in n and "shared_expert" not in n)


def tower_params(m):
    """Parameters of a wrapper's vision and audio towers and projectors, found by module
    path in transformers' own model: everything outside its language model and head."""
    return sum(p.numel() for n, p in m.named_parameters()
               if "language_model" not in n and not n.startswith("lm_head"))


@functools.lru_cache(maxsize=None)
def zoo_model(name):
    """The meta build of a zoo model (a multimodal wrapper built whole), kept for the tests
    that read it."""
    import llmcourse as lc
    return model_of(lc.load_model(name).to_hf_config())


def _zoo_build(name):
    import llmcourse as lc
    m = zoo_model(name)
    total = sum(p.numel() for p in m.parameters())
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    return total, shapes, routed_expert_params(m), tower_params(m) if is_wrapper(
        lc.load_model(name).to_hf_config()) else 0


def zoo_meta(name):
    """(total parameters, {state-dict name: shape}, routed-expert parameters) of a zoo model
    (a multimodal wrapper built whole)."""
    return _zoo_build(name)[:3]


def zoo_towers(name):
    """The parameters of a zoo wrapper's towers as built (0 for a text model)."""
    return _zoo_build(name)[3]


# --- the checkpoint, read as transformers reads one -----------------------------------------

def loaded_shapes(model, checkpoint):
    """``{state-dict name: shape}`` that transformers' ``from_pretrained`` makes of a
    checkpoint ``{name: shape}``: its own renamings and weight converters for the model
    (``conversion_mapping.py``: experts stored one by one merged into one tensor, prefixes
    changed, q/k/v convolutions stacked ...) and its base-model prefix rule, applied to meta
    tensors of those shapes. A tensor two checkpoint names would load into is an error."""
    from copy import deepcopy

    from transformers.conversion_mapping import get_model_conversion_mapping
    from transformers.core_model_loading import (WeightConverter, WeightRenaming,
                                                 dot_natural_key, rename_source_key)
    mapping = get_model_conversion_mapping(model)
    renamings = [t for t in mapping if isinstance(t, WeightRenaming)]
    converters = [t for t in mapping if isinstance(t, WeightConverter)]
    by_pattern = {p: c for c in converters for p in c.source_patterns}
    meta, prefix = model.state_dict(), model.base_model_prefix
    out, pending = {}, {}
    for key, shape in sorted(checkpoint.items(), key=lambda kv: dot_natural_key(kv[0])):
        new, pattern = rename_source_key(key, renamings, converters, prefix, meta)
        if new not in meta and key in meta:   # as from_pretrained: keep the name as it is
            new, pattern = rename_source_key(key, [], [], prefix, meta)
        if pattern is None:
            assert new not in out, f"{key} and another checkpoint tensor both load as {new}"
            out[new] = tuple(shape)
            continue
        converter = pending.setdefault(new, deepcopy(by_pattern[pattern]))
        converter.add_tensor(new, key, pattern, torch.empty(tuple(shape), device="meta"))
    for name, converter in pending.items():
        for target, t in converter.convert(name, model=model, config=model.config).items():
            out[target] = tuple((t[0] if isinstance(t, list) else t).shape)
    return out


def engine_checkpoint(cfg):
    """``{name: shape}``: the checkpoint as the engine lists it (``weight_shapes``), without
    the multi-token-prediction modules transformers does not build."""
    import llmcourse as lc
    ws = lc.weight_shapes(cfg)
    ws = ws[~ws["note"].str.contains("mtp, not built by transformers", regex=False)]
    listing = dict(zip(ws["name"], ws["shape"]))
    assert len(listing) == len(ws), "two tensors of one name"
    return listing


def tensors_as_built(cfg, model, oversized=None):
    """Every tensor the engine lists, loaded as transformers loads a checkpoint, is in the
    meta build under that name with that shape, and the build holds no other
    (``oversized``: ``{name: shape}``, built tensors larger than any checkpoint's, with the
    shape a checkpoint fills: LongCat-Flash's zero-expert slots)."""
    ours = loaded_shapes(model, engine_checkpoint(cfg))
    theirs = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    for k, shape in (oversized or {}).items():
        assert k in theirs, f"{k} is not in the build"
        theirs[k] = shape
    extra, missing = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
    assert not extra and not missing, f"listed, not built: {extra[:5]}; built, not listed: {missing[:5]}"
    wrong = {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k]}
    assert not wrong, f"(engine, transformers) shapes differ: {dict(list(wrong.items())[:5])}"


# --- the checks every exactness test makes, in one place ---------------------------------

def built(d):
    """(total parameters, routed-expert parameters, {state-dict name: shape}) of the model
    transformers builds from config ``d`` on the meta device (a wrapper whole)."""
    m = model_of(d)
    return (sum(p.numel() for p in m.parameters()), routed_expert_params(m),
            {k: tuple(v.shape) for k, v in m.state_dict().items()})


def meta_counts(d):
    """(total parameters, routed-expert parameters) as built (a wrapper whole)."""
    m = model_of(d)
    return sum(p.numel() for p in m.parameters()), routed_expert_params(m)


def meta_total(d):
    return meta_counts(d)[0]


def active_as_built(total, routed, cfg):
    """Active parameters of the build: total less the routed experts a token skips."""
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    return total - routed // E * (E - k)


def counts_as_built(d, uncounted=None, routed_component=True, tensors=True, routed_params=None,
                    row=None):
    """The engine's total, active and routed-expert parameters of ``d`` equal transformers'
    meta build (less ``uncounted(model, cfg)``: ``{name: shape a checkpoint fills}`` of
    tensors the build allocates larger, LongCat-Flash's zero-expert slots), and
    (``tensors``) its checkpoint listing loads into that build tensor by tensor.
    ``routed_component``: the breakdown's "experts" component is the routed experts alone;
    ``routed_params(model)``: the build's routed-expert parameters where their module paths do
    not say (JetMoE's attention experts). ``row``: a type's ``family_rows.Row``, whose
    ``uncounted``, ``routed_component`` and ``routed`` say these. Returns the engine's config."""
    import llmcourse as lc
    from math import prod
    if row is not None:
        uncounted, routed_component, routed_params = row.uncounted, row.routed_component, row.routed
    cfg = lc.from_hf_config(d)
    m = model_of(d)
    total = sum(p.numel() for p in m.parameters())
    routed = (routed_params or routed_expert_params)(m)
    oversized = uncounted(m, cfg) if uncounted is not None else {}
    if tensors:
        tensors_as_built(cfg, m, oversized)
    built = dict(m.named_parameters())
    extra = sum(built[k].numel() - prod(shape) for k, shape in oversized.items())
    total, routed = total - extra, routed - extra
    pc = lc.param_count(cfg)
    assert pc.total == total
    towers = tower_params(m) if is_wrapper(d) else 0  # no text token uses them
    if cfg.is_moe:
        assert pc.routed_experts == routed or not routed_component
        assert pc.active == active_as_built(total, routed, cfg) - towers
    else:
        assert routed == 0 and pc.active == total - towers
    return cfg


def saved(d, path):
    """The config.json transformers writes after reading ``d`` (its class, save_pretrained)."""
    import json
    (whole_config(d) if is_wrapper(d) else hf_config(d)).save_pretrained(path)
    with open(path / "config.json", encoding="utf-8") as fh:
        return json.load(fh)


def figures(cfg):
    """Everything a reader reads off a config: parameters, cache, state, FLOPs, experts."""
    import llmcourse as lc
    pc = lc.param_count(cfg)
    return dict(total=pc.total, active=pc.active,
                kv_bytes=lc.kv_cache_bytes(cfg, seq_len=4096),
                linear_state=lc.linear_state_bytes(cfg),
                prefill_flops=lc.flops_per_token(cfg, 4096).total,
                decode_flops=lc.flops_per_token(cfg, 4096, mode="decode").total,
                experts=cfg.num_experts if cfg.is_moe else 0,
                top_k=cfg.num_experts_per_tok if cfg.is_moe else 0)


def decode_step_flops(d, n=20):
    """(FLOPs PyTorch counts in one decode step of a tiny model of config ``d``, the
    engine's FlopCount): the new token after n - 1 cached ones, on the CPU, eager attention,
    experts computed one by one (FlopCounterMode has no formula for grouped expert matmuls)."""
    import llmcourse as lc
    from torch.utils.flop_counter import FlopCounterMode
    torch.manual_seed(0)
    hf = hf_config(d)
    hf._attn_implementation = "eager"
    hf._experts_implementation = "eager"
    model = causal_lm(hf).eval()
    ids = torch.randint(0, d["vocab_size"], (1, n))
    with torch.no_grad():
        cache = _prefill(model, ids[:, :n - 1])
        counter = FlopCounterMode(display=False)
        with counter:
            model(ids[:, n - 1:], use_cache=True, **{cache_argument(model): cache})
    return counter.get_total_flops(), lc.flops_per_token(lc.from_hf_config(d), n, mode="decode")


# --- a wrapper checkpoint's names as transformers loads them -------------------------------
# (transformers' conversion_mapping.py: "llava" for gemma3, mistral3 and got_ocr2,
# SiglipVisionModel's PrefixChange, "kimi_k25", "fuyu" and "mllama"; the other wrappers'
# checkpoints use transformers' own names)
_LLAVA = (("language_model.model.", "model.language_model."),
          ("language_model.lm_head.", "lm_head."))
_LOADED = {
    "gemma3": _LLAVA + (("vision_tower.vision_model.", "model.vision_tower."),
                        ("multi_modal_projector.", "model.multi_modal_projector.")),
    "mistral3": _LLAVA + (("vision_tower.", "model.vision_tower."),
                          ("multi_modal_projector.", "model.multi_modal_projector.")),
    # (conversion_mapping.py's "fuyu", "got_ocr2" (llava's) and "mllama" renamings)
    "fuyu": _LLAVA + (("vision_embed_tokens.", "model.vision_embed_tokens."),),
    "got_ocr2": _LLAVA + (("vision_tower.", "model.vision_tower."),
                          ("multi_modal_projector.", "model.multi_modal_projector.")),
    "mllama": _LLAVA + (("vision_model.", "model.vision_model."),
                        ("multi_modal_projector.", "model.multi_modal_projector.")),
    "kimi_k25": _LLAVA + (("vision_tower.encoder.blocks.", "model.vision_tower.layers."),
                          ("vision_tower.encoder.", "model.vision_tower."),
                          ("vision_tower.patch_embed.pos_emb.weight",
                           "model.vision_tower.patch_embed.pos_emb.position_embeddings"),
                          ("vision_tower.", "model.vision_tower."),
                          ("mm_projector.proj.0.", "model.mm_projector.in_proj."),
                          ("mm_projector.proj.2.", "model.mm_projector.out_proj."),
                          ("mm_projector.", "model.mm_projector.")),
}
_KIMI_BLOCK = (("norm0.", "norm1."), ("norm1.", "norm2."), ("mlp.fc0.", "mlp.fc1."),
               ("mlp.fc1.", "mlp.fc2."), ("wo.", "attn.proj."))


def as_loaded(model_type, name, shape):
    """``[(name, shape), ...]``: a wrapper checkpoint's tensor as transformers' state dict
    holds it (Kimi K2.5's fused wqkv: three tensors, q, k and v)."""
    for old, new in _LOADED.get(model_type, ()):
        if name.startswith(old):
            name = new + name[len(old):]
            break
    if model_type == "kimi_k25" and name.startswith("model.vision_tower.layers."):
        head, rest = name.split(".", 4)[:4], name.split(".", 4)[4]
        stem = ".".join(head) + "."
        if rest.startswith("wqkv."):
            third = (shape[0] // 3,) + tuple(shape[1:])
            return [(f"{stem}attn.{x}_proj.{rest[5:]}", third) for x in "qkv"]
        for old, new in _KIMI_BLOCK:
            if rest.startswith(old):
                return [(stem + new + rest[len(old):], shape)]
    return [(name, shape)]
