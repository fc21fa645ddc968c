"""Model configurations in the Hugging Face ``config.json`` vocabulary.

A :class:`ModelConfig` is an immutable, validated view of a model's
``config.json``. Field names stay the Hugging Face ones (``hidden_size``,
``num_key_value_heads``, ``moe_intermediate_size`` ...), so what a reader learns
here is what they will read on the model hub.

Every impossible configuration raises :class:`ConfigError` (a ``ValueError``)
whose one-line message names the field and the rule. Nothing in a config is
ever executed: ``auto_map`` and friends are kept as data and ignored.
"""

from __future__ import annotations

import json
import os
import weakref
from types import MappingProxyType

from .families import (_MULTIMODAL, _TEXT_ALIASES, ENTRIES, SUPPORTED_MODEL_TYPES, WRAPPERS,
                       has_kv_heads)
from .limits import MAX_FILE_BYTES, MAX_JSON_DEPTH, MAX_LIST, ConfigError, _is_int, field_name
from .validation import REQUIRED, _plain_json, _validate

__all__ = ["ConfigError", "ModelConfig", "from_hf_config", "config_from_json", "as_moe",
           "SUPPORTED_MODEL_TYPES"]


class ModelConfig:
    """An immutable, validated model configuration.

    Attributes use the Hugging Face names. A few are *resolved*: ``head_dim``
    (given, or hidden_size // num_attention_heads), ``num_key_value_heads``
    (defaults to the head count), ``num_experts`` (the routed experts, whatever
    the model's own field is called; 0 for a dense model), ``layer_types`` (the
    attention kind of each layer, ``full_attention``/``sliding_attention``/
    ``chunked_attention``/``linear_attention``, a read-only sequence whose ``len``,
    ``count``, ``counts()`` and ``[i]`` are arithmetic; listing it is limited to
    ``MAX_LIST`` layers), ``layer_schedule`` (the
    :class:`~llmcourse.layers.LayerSchedule`: how many layers of each kind).

    Use :meth:`replace` for what-if changes and :meth:`to_hf_config` to get a
    ``config.json`` dict back.
    """

    # __dict__ holds the fields as attributes (filled once, in __init__), so reading
    # cfg.hidden_size is a plain attribute lookup: the counts read fields thousands of times
    __slots__ = ("_raw", "_r", "name", "__weakref__", "_cache", "__dict__")

    def __init__(self, raw, name=None):
        if not isinstance(raw, dict):
            raise ConfigError(f"config: must be a JSON object (a dict), got {type(raw).__name__}")
        if name is not None and not isinstance(name, str):
            raise ConfigError(f"name: must be a string, got {type(name).__name__}")
        raw = _plain_json(raw)  # a private deep copy of plain JSON data, bounded
        r = _validate(raw)
        object.__setattr__(self, "_r", r)
        object.__setattr__(self, "_raw", MappingProxyType(raw))
        # what __getattr__ would answer: a field of r, else of the resolved config (a name the
        # class itself has, as a method, stays the class's, as it does for __getattr__)
        fields = {k: v for k, v in r["resolved"].items() if k not in _CLASS_NAMES}
        fields.update((k, v) for k, v in r.items() if k not in _CLASS_NAMES)
        object.__getattribute__(self, "__dict__").update(fields)
        path = raw.get("_name_or_path")
        object.__setattr__(self, "name", name or (path if isinstance(path, str) else None)
                           or raw["model_type"])
        object.__setattr__(self, "_cache", {})

    # --- attribute access in the HF vocabulary --------------------------------
    def __getattr__(self, key):  # (only for what __dict__ does not hold: a missing field)
        r = object.__getattribute__(self, "_r")
        if key in r:
            return r[key]
        res = r["resolved"]
        if key in res:
            return res[key]
        raise AttributeError(f"{type(self).__name__} for {r['model_type']!r} has no field {key!r}")

    def __setattr__(self, key, value):
        raise AttributeError("ModelConfig is immutable; use cfg.replace(...) to make a changed copy")

    def get(self, key, default=None):
        """A field of the resolved config (defaults filled in), or ``default``."""
        v = self._r["resolved"].get(key, default)
        return default if v is None else v

    @property
    def is_moe(self):
        return self._r["num_experts"] > 0

    @property
    def uses_mla(self):
        """Multi-head latent attention (DeepSeek-V2/V3 and the families built on it)."""
        return self._r["layout"].attention == "mla"

    @property
    def has_kv_heads(self):
        """False where transformers builds a K and a V for every query head and reads no
        ``num_key_value_heads`` (GPT-2, GPT-NeoX): the model's KV heads are its heads."""
        return has_kv_heads(self._r["model_type"])

    @property
    def attention_kind(self):
        """``"MHA"`` (a KV head per query head), ``"GQA"`` (groups of query heads share
        one), ``"MQA"`` (one KV head in all) or ``"MLA"`` (DeepSeek's latent cache)."""
        if self.uses_mla:
            return "MLA"
        heads, kv = self._r["num_attention_heads"], self._r["num_key_value_heads"]
        return "MHA" if kv == heads else "MQA" if kv == 1 else "GQA"

    @property
    def is_multimodal(self):
        """True for a multimodal wrapper config (Gemma-3, Llama-4): its fields are its
        language model's (its ``text_config``; ``text_model_of`` names the outer type), its
        counts the whole model's, vision and audio towers included (:attr:`text_model`
        is the language model alone)."""
        return self._r["text_model_of"] is not None

    @property
    def text_model(self):
        """The language model as its own config, named "<name> (text model)": a wrapper's
        ``text_config`` with its head tied as inside the wrapper (and its quantization and
        dtype); for a text model, the config itself. Use it where you mean the language
        model (its parameters, bytes); the wrapper's counts add the towers."""
        outer = self._r["text_model_of"]
        if outer is None:
            return self
        cached = self._cache.get("text_model")
        if cached is None:
            raw = self._raw
            text = WRAPPERS[outer].text_of(raw)
            text.setdefault("model_type", _MULTIMODAL[outer])
            text["model_type"] = _TEXT_ALIASES.get((outer, text["model_type"]), text["model_type"])
            text["tie_word_embeddings"] = self._r["tie_word_embeddings"]
            for f in ("quantization_config", "torch_dtype", "dtype"):
                if raw.get(f) is not None and text.get(f) is None:
                    text[f] = raw[f]
            cached = self._cache["text_model"] = ModelConfig(text, name=f"{self.name} (text model)")
        return cached

    def __repr__(self):
        r = self._r
        moe = f", experts={r['num_experts']} top-{r['num_experts_per_tok']}" if self.is_moe else ""
        mm = f" (text model of a {r['text_model_of']} config)" if r["text_model_of"] else ""
        return (f"ModelConfig({self.name!r}: {r['model_type']}{mm}, layers={r['num_hidden_layers']}, "
                f"hidden={r['hidden_size']}, heads={r['num_attention_heads']}/"
                f"kv={r['num_key_value_heads']}, head_dim={r['head_dim']}, "
                f"intermediate={r['intermediate_size']}{moe})")

    def __eq__(self, other):
        return isinstance(other, ModelConfig) and dict(self._raw) == dict(other._raw)

    def __hash__(self):
        return hash(json.dumps(dict(self._raw), sort_keys=True))

    def __reduce__(self):
        return (ModelConfig, (dict(self._raw), self.name))

    # --- what-if --------------------------------------------------------------
    def replace(self, **changes):
        """A new, validated config with ``changes`` (Hugging Face field names).

        Changing ``num_hidden_layers`` on a model that lists ``layer_types``
        repeats its pattern to the new depth unless you pass ``layer_types`` too.
        A field the model's config does not know raises ``ValueError``. For a
        multimodal config (Gemma-3, Llama-4) the changes go to its ``text_config``;
        for GPT-2 the standard names (``hidden_size``) change its own (``n_embd``).

        The config is immutable, so the same changes give the same config: the last
        ``_REPLACED_KEPT`` configs made for changes whose values are plain numbers,
        strings or None are kept and given again, their counts already made (an explorer
        asks for the same what-if on every redraw).
        """
        if all(type(v) in _PLAIN for v in changes.values()):
            key = (id(self),) + tuple(sorted(
                (k, type(v), repr(v) if type(v) is float else v) for k, v in changes.items()))
            hit = _REPLACED.pop(key, None)
            if hit is not None and hit[0]() is self:   # (not a dead config's id, reused)
                _REPLACED[key] = hit                  # the most recent last
                return hit[1]
            new = self._replace(changes)
            _REPLACED[key] = (weakref.ref(self), new)
            if len(_REPLACED) > _REPLACED_KEPT:
                _REPLACED.pop(next(iter(_REPLACED)))  # the least recently used
            return new
        return self._replace(changes)

    def _replace(self, changes):
        raw = dict(self._raw)
        outer = raw["model_type"] if raw["model_type"] in _MULTIMODAL else None
        if outer:
            target = WRAPPERS[outer].text_of(raw)
            target.setdefault("model_type", _MULTIMODAL[outer])
        else:
            target = raw
        mt = target["model_type"]
        mt = _TEXT_ALIASES.get((outer, mt), mt)
        fam = ENTRIES[mt]
        amap = fam.attribute_map
        known = set(target) | set(fam.defaults) | set(REQUIRED) | set(fam.required) \
            | set(amap) | {"model_type"}
        if "model_type" in changes and not outer:
            new_mt = changes["model_type"]
            if isinstance(new_mt, str) and new_mt in ENTRIES:
                new = ENTRIES[new_mt]
                known |= set(new.defaults) | set(new.required) | set(new.attribute_map)
        for k in changes:
            if k not in known or (outer and k == "model_type"):
                raise ConfigError(
                    f"{field_name(k)}: not a field of a {mt!r} config "
                    f"(its fields include: {', '.join(sorted(known - {'model_type'})[:12])}, ...)")
        def key_for(k):  # a change lands in the key the file already uses for that field
            own = amap.get(k, k)
            std = next((a for a, o in amap.items() if o == own), None)
            return std if std is not None and std in target and own not in target else own

        changes = {key_for(k): v for k, v in changes.items()}
        for std, own in amap.items():  # one key per field: drop the other name
            if own in changes:
                target.pop(std, None)
            elif std in changes:
                target.pop(own, None)
        target.update(changes)
        n = changes.get("num_hidden_layers", changes.get(amap.get("num_hidden_layers")))
        if _is_int(n) and n > 0:  # per-layer fields follow the new depth
            for key, how in dict(_DEPTH_LISTS, **fam.depth_lists).items():
                if key not in changes:
                    _follow_depth(target, key, how, n)
        if outer:
            raw["text_config"] = target
            if "tie_word_embeddings" in changes and WRAPPERS[outer].tie is not None:
                raw["tie_word_embeddings"] = changes["tie_word_embeddings"]  # the wrapper's own
        name = self.name if not changes or self.name.endswith(" (edited)") else f"{self.name} (edited)"
        return ModelConfig(raw, name=name)

    def to_hf_config(self):
        """The config as a ``config.json`` dict (a fresh copy)."""
        return json.loads(json.dumps(dict(self._raw)))

    def save(self, path):
        """Write the config as a ``config.json`` file (a folder gets ``config.json`` inside)."""
        path = os.fspath(path)
        if os.path.isdir(path):
            path = os.path.join(path, "config.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_hf_config(), fh, indent=2, sort_keys=True)
            fh.write("\n")
        return path


_CLASS_NAMES = frozenset(dir(ModelConfig))


# replace() keeps the configs it made for changes of these value types (a list or dict
# value, as layer_types may be, is not kept: it could change after the call), the
# least recently used dropped first; the configs they were made from are not kept alive
_PLAIN = (int, float, str, bool, type(None))
_REPLACED_KEPT = 256
_REPLACED = {}  # (id of the config, changes) -> (weak reference to it, the new config)

# how replace(num_hidden_layers=n) carries a per-layer field of any family to the new depth
# (a family adds its own: Family.depth_lists): "repeat_or_refuse" repeats the pattern and
# refuses beyond MAX_LIST layers, "repeat" repeats it (up to MAX_LIST), "extend" keeps the
# leading entries and adds layers like the last, "clip" keeps the layer indices below n
_DEPTH_LISTS = {"layer_types": "repeat_or_refuse", "no_rope_layers": "repeat_or_refuse",
                "indexer_types": "repeat", "mlp_layer_types": "extend"}


def _follow_depth(target, key, how, n):
    """Carry ``target[key]``, a per-layer field, to ``n`` layers (see ``_DEPTH_LISTS``; a
    family's own rule may be a function ``f(value, n) -> value``)."""
    pattern = target.get(key)
    if callable(how):
        target[key] = how(pattern, n)
    elif how == "repeat_or_refuse":
        if isinstance(pattern, list) and pattern:
            if n > MAX_LIST:
                raise ConfigError(
                    f"num_hidden_layers: this config lists {key}, one entry per layer, "
                    f"so the course repeats it for at most {MAX_LIST:,} layers (got "
                    f"{n:,}); pass {key}=None to use the family's own pattern")
            target[key] = [pattern[i % len(pattern)] for i in range(n)]
    elif how == "repeat":
        if isinstance(pattern, (str, list)) and pattern and n <= MAX_LIST:
            target[key] = pattern * (n // len(pattern)) + pattern[:n % len(pattern)]
    elif how == "extend":  # the dense layers lead; a deeper model adds layers like its last
        if isinstance(pattern, list) and pattern and n <= MAX_LIST:
            target[key] = pattern[:n] + [pattern[-1]] * (n - len(pattern))
    elif how == "clip":
        if isinstance(pattern, list):
            target[key] = [i for i in pattern if _is_int(i) and 0 <= i < n]


def _sniff(data):
    """What a file that is not a config.json probably is (None if it may be one)."""
    if data[:4] == b"GGUF":
        return "a GGUF weights file"
    if data[:4] == b"PK\x03\x04":
        return "a zip archive (a PyTorch .bin/.pt checkpoint?)"
    if data[:2] == b"\x80\x02" or data[:1] == b"\x80" and data[1:2] in (b"\x03", b"\x04", b"\x05"):
        return "a pickle file (a PyTorch checkpoint?)"
    if len(data) >= 10 and data[8:10] in (b'{"', b"{ ") and int.from_bytes(data[:8], "little") > 1:
        return "a safetensors weights file"
    return None


def config_from_json(data, name=None, source="config"):
    """A :class:`ModelConfig` from the text of a ``config.json`` (``str`` or ``bytes``,
    e.g. an uploaded or pasted file). A UTF-8 byte-order mark is accepted, as
    transformers accepts it; text that is not a config gets a one-line
    :class:`ConfigError` saying what it is (``source`` names it in the message)."""
    return _from_json(data, name, source, source)


def _from_json(data, name, source, field_source):
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        if len(data) > MAX_FILE_BYTES:
            raise ConfigError(f"{source}: {len(data):,} bytes is too large for a config.json "
                              f"(at most {MAX_FILE_BYTES // 2**20} MiB; a config.json is a few kB)")
        what = _sniff(data)
        if what:
            raise ConfigError(f"{source}: {what}, not a config.json")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ConfigError(f"{source}: not UTF-8 text (byte {e.start:,}); a config.json is "
                              "UTF-8 JSON") from None
    elif isinstance(data, str):
        text = data
        if len(text) > MAX_FILE_BYTES:
            raise ConfigError(f"{source}: {len(text):,} characters is too large for a config.json "
                              f"(at most {MAX_FILE_BYTES // 2**20} MiB; a config.json is a few kB)")
        text = text.removeprefix("\ufeff")
    else:
        raise ConfigError(f"{source}: must be the text of a config.json (str or bytes), "
                          f"got {type(data).__name__}")
    if not text.strip():
        raise ConfigError(f"{source}: empty; paste or choose a config.json")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{source}: not valid JSON ({e.msg} at line {e.lineno}, "
                          f"column {e.colno})") from None
    except RecursionError:
        raise ConfigError(f"{source}: nested deeper than {MAX_JSON_DEPTH} levels; a config.json "
                          "uses 3 or 4") from None
    except ValueError as e:  # e.g. a number of more than 4,300 digits
        raise ConfigError(f"{source}: not valid JSON ({' '.join(str(e).split())[:80]})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: must hold a JSON object, got {type(raw).__name__}")
    try:
        return ModelConfig(raw, name=name)
    except ConfigError as e:
        raise ConfigError(f"{field_source}: {e}") from None


def from_hf_config(source, name=None):
    """Read a Hugging Face config: a dict, a path to a ``config.json``, or a folder holding one."""
    if isinstance(source, ModelConfig):
        return source
    if isinstance(source, dict):
        return ModelConfig(source, name=name)
    if not isinstance(source, (str, os.PathLike)):
        raise ConfigError(f"source: must be a dict, a config.json path or a folder, "
                          f"got {type(source).__name__}")
    path = os.fspath(source)
    if not isinstance(path, str):
        raise ConfigError("source: a path must be text, not bytes")
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, "config.json")):
            raise ConfigError(f"config file {path}: a folder without a config.json")
        path = os.path.join(path, "config.json")
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            kind = "a safetensors weights file" if path.endswith(".safetensors") else "a file"
            raise ConfigError(f"config file {path}: {kind} of {size:,} bytes, too large for a "
                              f"config.json (at most {MAX_FILE_BYTES // 2**20} MiB)")
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"config file {path}: not found") from None
    except OSError as e:
        raise ConfigError(f"config file {path}: cannot be read ({e.strerror or e})") from None
    if name is None:  # a folder's name, or the file's stem for e.g. Qwen3-8B.json
        base = os.path.basename(path)
        name = (os.path.basename(os.path.dirname(os.path.abspath(path))) if base == "config.json"
                else os.path.splitext(base)[0])
    return _from_json(data, name, f"config file {path}", os.path.basename(path))


def as_moe(cfg, num_experts, num_experts_per_tok, moe_intermediate_size=None):
    """The what-if "this dense model, but with routed experts".

    Llama and Mistral become Mixtral (identical attention, the MLP replaced by
    ``num_experts`` SwiGLU experts of ``intermediate_size``); Qwen3 becomes
    Qwen3-MoE (experts of ``moe_intermediate_size``, default ``intermediate_size``).
    A model that is already MoE just gets the new expert counts.
    """
    cfg = from_hf_config(cfg)
    if cfg.is_moe:
        changes = {cfg.moe_field: num_experts, "num_experts_per_tok": num_experts_per_tok}
        if moe_intermediate_size is not None:
            changes["moe_intermediate_size"] = moe_intermediate_size
        return cfg.replace(**changes)
    variant = ENTRIES[cfg.model_type].moe_variant
    if variant is None:
        dense = sorted(t for t, e in ENTRIES.items() if e.moe_variant)
        raise ConfigError(f"model_type: {cfg.model_type!r} has no mixture-of-experts variant here "
                          f"(supported: {', '.join(dense)}, or a model that is already MoE)")
    mt, field = variant
    changes = {"model_type": mt, field: num_experts, "num_experts_per_tok": num_experts_per_tok}
    if "moe_intermediate_size" in ENTRIES[mt].defaults:  # its experts' own width (Qwen3-MoE)
        changes["moe_intermediate_size"] = moe_intermediate_size or cfg.intermediate_size
    elif moe_intermediate_size is not None:
        changes["intermediate_size"] = moe_intermediate_size
    if cfg.head_dim != cfg.hidden_size // cfg.num_attention_heads or "head_dim" in cfg.to_hf_config():
        changes["head_dim"] = cfg.head_dim
    return cfg.replace(**changes)
