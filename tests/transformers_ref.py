"""The independent count: Hugging Face transformers builds the model on the meta
device from the same config dict (no weights are allocated, nothing is downloaded)."""

import functools

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

transformers.logging.set_verbosity_error()

# loading-only fields: quantisation of a checkpoint and remote-code pointers
_LOADING_ONLY = ("quantization_config", "auto_map")


def hf_config(d):
    d = {k: v for k, v in d.items() if k not in _LOADING_ONLY}
    return AutoConfig.for_model(d.pop("model_type"), **d)


def meta_model(d):
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(hf_config(d))


@functools.lru_cache(maxsize=None)
def zoo_meta(name):
    """(total parameters, {state-dict name: shape}, routed-expert parameters) of a zoo model."""
    import llmcourse as lc
    m = meta_model(lc.load_model(name).to_hf_config())
    total = sum(p.numel() for p in m.parameters())
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    # routed experts, found by module path in transformers' own model (not our layout)
    routed = sum(p.numel() for n, p in m.named_parameters()
                 if ".experts." in n and "shared_experts" not in n)
    return total, shapes, routed
