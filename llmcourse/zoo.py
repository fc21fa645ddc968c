"""The model zoo: real ``config.json`` files shipped inside the package (no network)."""

from __future__ import annotations

import os

from .config import ConfigError, ModelConfig, from_hf_config

__all__ = ["list_models", "load_model", "as_config", "CONFIG_DIR"]

CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs")
_cache = {}


def list_models():
    """Names of the zoo models (the config files' names), sorted case-insensitively."""
    return sorted((f[:-5] for f in os.listdir(CONFIG_DIR) if f.endswith(".json")), key=str.lower)


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
