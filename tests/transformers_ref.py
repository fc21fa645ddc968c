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
_TEXT_MODEL = {"gemma3": "gemma3_text", "llama4": "llama4_text",
               "qwen3_5": "qwen3_5_text", "qwen3_5_moe": "qwen3_5_moe_text",
               "kimi_k25": "deepseek_v3", "mistral3": "ministral3", "gemma4": "gemma4_text"}


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


def causal_lm(config):
    """AutoModelForCausalLM, or for a type it does not register (mistral4) the
    ``*ForCausalLM`` class its config names, as the config's ``architectures`` would."""
    try:
        return AutoModelForCausalLM.from_config(config)
    except ValueError:
        name = type(config).__name__.removesuffix("Config") + "ForCausalLM"
        return getattr(transformers, name)(config)


def meta_model(d):
    with torch.device("meta"):
        return causal_lm(hf_config(d))


def tiny_prefill(d, seq, batch):
    """A tiny model of config ``d`` (seed 0, eval mode) and the cache it holds after a CPU
    prefill of ``batch`` sequences of ``seq`` random tokens."""
    torch.manual_seed(0)
    model = causal_lm(hf_config(d)).eval()
    with torch.no_grad():
        ids = torch.randint(0, d["vocab_size"], (batch, seq))
        cache = model(ids, use_cache=True).past_key_values
    return model, cache


def cache_numbers(cache):
    """(numbers in fixed states, numbers in K and V tensors) that a transformers cache
    holds: the conv and recurrent states of linear-attention and Mamba layers, and every
    layer's keys and values."""
    states = kv = 0
    for layer in cache.layers:
        for kind in ("conv_states", "recurrent_states"):  # {state index: tensor}
            states += sum(t.numel() for t in (getattr(layer, kind, None) or {}).values()
                          if t is not None)
        kv += sum(t.numel() for t in (getattr(layer, "keys", None),
                                      getattr(layer, "values", None)) if t is not None)
    return states, kv


def routed_expert_params(m):
    """Routed-expert parameters, found by module path in transformers' own model."""
    return sum(p.numel() for n, p in m.named_parameters()
               if ".experts." in n and "shared_expert" not in n)


@functools.lru_cache(maxsize=None)
def zoo_meta(name):
    """(total parameters, {state-dict name: shape}, routed-expert parameters) of a zoo model."""
    import llmcourse as lc
    m = meta_model(lc.load_model(name).to_hf_config())
    total = sum(p.numel() for p in m.parameters())
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    return total, shapes, routed_expert_params(m)
