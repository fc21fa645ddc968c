"""The model zoo: real ``config.json`` files shipped inside the package (no network)."""

from __future__ import annotations

import os

from .config import ConfigError, ModelConfig, from_hf_config
from .families import ENTRIES, WRAPPERS, zoo_groups

__all__ = ["list_models", "load_model", "as_config", "model_family", "model_families",
           "FAMILIES", "CONFIG_DIR"]

# family -> the model types it ships as, in the order pickers show the families (each
# type's entry in llmcourse/families.py names its group)
FAMILIES = zoo_groups()

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
    group = WRAPPERS[outer].group if outer else None
    return group or ENTRIES[cfg.model_type].group or cfg.model_type


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


def load_model(name, revision=None):
    """A model's :class:`~llmcourse.config.ModelConfig`: a zoo model by name, matched
    case-insensitively (``"qwen3-8b"`` finds ``Qwen3-8B``), or any model on the
    Hugging Face Hub by its id, ``"owner/name"`` (``revision=`` a branch, a tag or a
    commit hash, or ``"owner/name@revision"``). A Hub config is fetched once per
    session with ``huggingface_hub`` (its cache, ``HF_TOKEN``, ``HF_HUB_OFFLINE`` and
    ``HF_ENDPOINT`` honoured; see :mod:`llmcourse.hub`) and named by its id; the zoo
    needs no network."""
    if not isinstance(name, str):
        raise ConfigError(f"name: must be a model name string, got {type(name).__name__}")
    key = name.lower().removesuffix(".json")
    if revision is None and key in _cache:
        return _cache[key]
    names = {n.lower(): n for n in list_models()}
    if key in names and revision is None:
        real = names[key]
        _cache[key] = from_hf_config(os.path.join(CONFIG_DIR, real + ".json"), name=real)
        return _cache[key]
    from .hub import is_hub_id, load_hub_config
    if is_hub_id(name):
        return load_hub_config(name, revision)
    if revision is not None and key in names:
        raise ConfigError(f"revision: {names[key]} is a zoo model, which has no revisions; "
                          "a revision goes with a Hub id (owner/name)")
    import difflib
    starts = [k for k in names if k.startswith(key)]   # "Llama-4": Llama-4-Scout first
    close = [names[k] for k in (starts + [k for k in difflib.get_close_matches(
        key, list(names), n=3, cutoff=0.5) if k not in starts])[:3]]
    raise ConfigError(f"name: no zoo model {name!r} and not a Hub id (owner/name, e.g. "
                      f"Qwen/Qwen3-32B); " + (f"closest in the zoo: {', '.join(close)}" if close
                                              else f"lc.list_models() lists the zoo's "
                                                   f"{len(names)} models"))


def as_config(model):
    """A :class:`~llmcourse.config.ModelConfig` from what a function is given: a config,
    a ``config.json`` dict, a path to a config file or a folder holding one, a zoo
    name, or a Hub id. A string is read in this order: a path that exists (or ends in
    ``.json``) is a file or folder; then a zoo name; then ``owner/name`` (optionally
    ``owner/name@revision``) is fetched from the Hub (:func:`load_model`)."""
    if isinstance(model, ModelConfig):
        return model
    if isinstance(model, str) and not model.endswith(".json") and not os.path.exists(model):
        return load_model(model)
    return from_hf_config(model)
