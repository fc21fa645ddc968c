"""The model zoo: real ``config.json`` files shipped inside the package (no network)."""

from __future__ import annotations

import os

from .config import ConfigError, ModelConfig, from_hf_config
from .families import zoo_groups

__all__ = ["list_models", "load_model", "as_config", "model_family", "model_families",
           "FAMILIES", "CONFIG_DIR"]

# family -> the model types it ships as, in the order pickers show the families (each
# type's entry in llmcourse/families.py names its group)
FAMILIES = zoo_groups()
_FAMILY_OF = {mt: fam for fam, types in FAMILIES.items() for mt in types}

CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs")
_cache = {}


def list_models(grouped=False):
    """Names of the zoo models (the config files' names), sorted case-insensitively;
    ``grouped=True``: the same names ordered family by family (see :func:`model_families`)."""
    names = sorted((f[:-5] for f in os.listdir(CONFIG_DIR) if f.endswith(".json")),
                   key=str.lower)
    if grouped:
        return [n for group in model_families(names).values() for n in group]
    return names


def model_family(model):
    """The family a model belongs to (``"Llama"``, ``"Qwen"``, ``"GPT-2"`` ...), from its
    ``model_type``; a type outside :data:`FAMILIES` is its own family."""
    cfg = as_config(model)
    outer = cfg.text_model_of  # Kimi K2.5 wraps DeepSeek-V3's layout: it is Kimi's
    return _FAMILY_OF.get(outer) or _FAMILY_OF.get(cfg.model_type, cfg.model_type)


def model_families(models=None):
    """``{family: [model names]}`` for the zoo (or ``models``): families in the order of
    :data:`FAMILIES`, names sorted case-insensitively within each."""
    names = list_models() if models is None else [as_config(m).name for m in models]
    groups = {}
    for n in sorted(names, key=str.lower):
        groups.setdefault(model_family(n), []).append(n)
    order = list(FAMILIES)
    return dict(sorted(groups.items(),
                       key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))


def load_model(name):
    """A zoo model's :class:`~llmcourse.config.ModelConfig`; ``name`` is matched
    case-insensitively (``"qwen3-8b"`` finds ``Qwen3-8B``)."""
    if not isinstance(name, str):
        raise ConfigError(f"name: must be a model name string, got {type(name).__name__}")
    key = name.lower().removesuffix(".json")
    if key not in _cache:
        names = {n.lower(): n for n in list_models()}
        if key not in names:
            raise ConfigError(f"name: no zoo model {name!r}; choose one of: "
                              f"{', '.join(list_models())}")
        real = names[key]
        _cache[key] = from_hf_config(os.path.join(CONFIG_DIR, real + ".json"), name=real)
    return _cache[key]


def as_config(model):
    """A :class:`~llmcourse.config.ModelConfig` from a config, a zoo name, a
    ``config.json`` dict, or a path to a config file or folder."""
    if isinstance(model, ModelConfig):
        return model
    if isinstance(model, str) and not model.endswith(".json") and not os.path.exists(model):
        return load_model(model)
    return from_hf_config(model)
