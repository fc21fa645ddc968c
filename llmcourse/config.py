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
from types import MappingProxyType

__all__ = ["ConfigError", "ModelConfig", "from_hf_config", "as_moe", "SUPPORTED_MODEL_TYPES"]


class ConfigError(ValueError):
    """An impossible or unreadable model configuration (one-line message)."""


# --- what each model_type reads -------------------------------------------------
# family: which tensor layout (see architectures.py); defaults: Hugging Face's own
# defaults for fields a config.json may leave out (from each transformers
# ``*Config`` class); moe: which field holds the routed expert count.

_COMMON = dict(num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
               attention_bias=False, sliding_window=None, layer_types=None)

_FAMILIES = {
    "llama": dict(family="llama", defaults=dict(_COMMON, mlp_bias=False)),
    "mistral": dict(family="llama", defaults=dict(_COMMON, sliding_window=4096)),
    "qwen2": dict(family="llama", defaults=dict(_COMMON, use_sliding_window=False,
                                                max_window_layers=28)),
    "qwen3": dict(family="llama", defaults=dict(_COMMON, use_sliding_window=False,
                                                max_window_layers=28)),
    "qwen3_moe": dict(family="llama", moe="num_experts",
                      defaults=dict(_COMMON, use_sliding_window=False, max_window_layers=28,
                                    decoder_sparse_step=1, mlp_only_layers=[],
                                    num_experts=128, num_experts_per_tok=8,
                                    moe_intermediate_size=768)),
    "mixtral": dict(family="llama", moe="num_local_experts",
                    defaults=dict(_COMMON, num_local_experts=8, num_experts_per_tok=2)),
    "gemma2": dict(family="llama", defaults=dict(_COMMON, tie_word_embeddings=True,
                                                 sliding_window=4096)),
    "phi": dict(family="phi", defaults=dict(_COMMON, qk_layernorm=False)),
    "gpt_oss": dict(family="llama", moe="num_local_experts",
                    defaults=dict(_COMMON, attention_bias=True, sliding_window=128,
                                  num_local_experts=128, num_experts_per_tok=4)),
    "deepseek_v2": dict(family="deepseek", moe="n_routed_experts",
                        defaults=dict(_COMMON, first_k_dense_replace=0, n_shared_experts=None,
                                      q_lora_rank=1536, moe_layer_freq=1)),
    "deepseek_v3": dict(family="deepseek", moe="n_routed_experts",
                        defaults=dict(_COMMON, first_k_dense_replace=3, n_shared_experts=1,
                                      q_lora_rank=1536, moe_layer_freq=1)),
}

SUPPORTED_MODEL_TYPES = tuple(sorted(_FAMILIES))

_REQUIRED = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
             "intermediate_size")
_REQUIRED_BY_TYPE = {
    "qwen3_moe": ("moe_intermediate_size",),
    "deepseek_v2": ("moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim",
                    "qk_nope_head_dim", "v_head_dim", "n_routed_experts", "num_experts_per_tok"),
    "deepseek_v3": ("moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim",
                    "qk_nope_head_dim", "v_head_dim", "n_routed_experts", "num_experts_per_tok"),
}
# fields whose value must be a positive whole number when present (and not null)
_POSITIVE = ("hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
             "intermediate_size", "num_key_value_heads", "head_dim", "moe_intermediate_size",
             "num_experts_per_tok", "kv_lora_rank", "qk_rope_head_dim", "v_head_dim",
             "q_lora_rank", "sliding_window", "decoder_sparse_step", "moe_layer_freq",
             "num_experts", "num_local_experts", "n_routed_experts", "max_window_layers")
_NON_NEGATIVE = ("n_shared_experts", "first_k_dense_replace", "qk_nope_head_dim")
_BOOLEAN = ("tie_word_embeddings", "attention_bias", "mlp_bias", "use_sliding_window",
            "qk_layernorm")
_LAYER_TYPES = ("full_attention", "sliding_attention")


def _fail(field, rule, value=None, *, show_value=True):
    msg = f"{field}: {rule}"
    if show_value:
        msg += f" (got {value!r})"
    raise ConfigError(msg)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _validate(raw):
    """Check ``raw`` (a plain dict) and return the resolved fields as a dict."""
    mt = raw.get("model_type")
    if mt is None:
        _fail("model_type", "missing; a config.json must say which architecture it is "
              f"(supported: {', '.join(SUPPORTED_MODEL_TYPES)})", show_value=False)
    if mt not in _FAMILIES:
        _fail("model_type", f"unsupported; supported: {', '.join(SUPPORTED_MODEL_TYPES)}", mt)
    spec = _FAMILIES[mt]
    r = dict(spec["defaults"])
    r.update(raw)  # a null num_key_value_heads / head_dim means: derive it (below)

    for f in _REQUIRED + _REQUIRED_BY_TYPE.get(mt, ()):
        if raw.get(f) is None and r.get(f) is None:
            _fail(f, f"required for model_type {mt!r} but missing", show_value=False)
    moe_field = spec.get("moe")
    if moe_field and r.get(moe_field) == 0:
        _fail(moe_field, "a mixture-of-experts model needs at least one expert", 0)
    for f in _POSITIVE:
        v = r.get(f)
        if v is None:
            continue
        if not _is_int(v):
            _fail(f, "must be a whole number", v)
        if v <= 0:
            _fail(f, "must be positive", v)
    for f in _NON_NEGATIVE:
        v = r.get(f)
        if v is None:
            continue
        if not _is_int(v):
            _fail(f, "must be a whole number", v)
        if v < 0:
            _fail(f, "must be zero or positive", v)
    for f in _BOOLEAN:
        v = r.get(f)
        if v is not None and not isinstance(v, bool):
            _fail(f, "must be true or false", v)

    heads = r["num_attention_heads"]
    hidden = r["hidden_size"]
    pad = r.get("pad_token_id")
    if _is_int(pad) and pad >= r["vocab_size"]:  # the embedding could not hold it
        _fail("pad_token_id", f"must be below vocab_size={r['vocab_size']}", pad)
    kv = r["num_key_value_heads"] if r["num_key_value_heads"] is not None else heads
    if kv > heads:
        _fail("num_key_value_heads", f"cannot exceed num_attention_heads={heads}", kv)
    if heads % kv:
        _fail("num_key_value_heads", f"must divide num_attention_heads={heads} "
              "(each KV head serves a whole group of query heads)", kv)
    if spec["family"] == "deepseek":
        head_dim = r["qk_nope_head_dim"] + r["qk_rope_head_dim"]
    elif r["head_dim"] is not None:
        head_dim = r["head_dim"]
    else:
        if hidden % heads:
            _fail("hidden_size", f"must be divisible by num_attention_heads={heads} "
                  "when no head_dim is given", hidden)
        head_dim = hidden // heads
    layers = r["num_hidden_layers"]

    experts = r[moe_field] if moe_field else 0
    top_k = r.get("num_experts_per_tok") if moe_field else 0
    if mt == "gpt_oss" and raw.get("num_experts_per_tok") is None and _is_int(raw.get("experts_per_token")):
        top_k = raw["experts_per_token"]
    if moe_field:
        if top_k > experts:
            _fail("num_experts_per_tok", f"cannot exceed the {experts} experts ({moe_field})",
                  top_k)
    if spec["family"] == "deepseek":
        fk = r["first_k_dense_replace"]
        if fk > layers:
            _fail("first_k_dense_replace", f"cannot exceed num_hidden_layers={layers}", fk)
        if r.get("n_shared_experts") is None:
            r["n_shared_experts"] = 0
    if mt == "qwen3_moe":
        mol = r.get("mlp_only_layers") or []
        if not isinstance(mol, list) or not all(_is_int(i) and 0 <= i < layers for i in mol):
            _fail("mlp_only_layers", f"must be a list of layer indices in 0..{layers - 1}", mol)

    sw = r.get("sliding_window")
    lt = r.get("layer_types")
    if lt is not None:
        if not isinstance(lt, list) or len(lt) != layers:
            _fail("layer_types", f"must list one entry per layer (num_hidden_layers={layers})",
                  f"{len(lt)} entries" if isinstance(lt, list) else lt)
        bad = [t for t in lt if t not in _LAYER_TYPES]
        if bad:
            _fail("layer_types", f"entries must be one of {', '.join(_LAYER_TYPES)}", bad[0])
        if "sliding_attention" in lt and sw is None:
            _fail("sliding_window", "layer_types has sliding_attention layers, so a window "
                  "size is required", sw)
    else:
        lt = _default_layer_types(mt, r, layers)
    r["layer_types"] = lt

    return dict(
        model_type=mt, family=spec["family"], moe_field=moe_field,
        hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=kv, head_dim=head_dim, vocab_size=r["vocab_size"],
        intermediate_size=r["intermediate_size"],
        tie_word_embeddings=bool(r["tie_word_embeddings"]),
        num_experts=experts or 0, num_experts_per_tok=top_k or 0,
        layer_types=tuple(lt), sliding_window=sw, resolved=r,
    )


def _default_layer_types(mt, r, layers):
    """Which layers use a sliding window when the config has no ``layer_types``
    (the same rule as each transformers ``*Config``)."""
    sw = r.get("sliding_window")
    if sw is None or mt in ("phi", "deepseek_v2", "deepseek_v3"):
        return ["full_attention"] * layers
    if mt in ("qwen2", "qwen3", "qwen3_moe"):
        if not r.get("use_sliding_window"):
            return ["full_attention"] * layers
        mwl = r.get("max_window_layers")
        return ["sliding_attention" if i >= mwl else "full_attention" for i in range(layers)]
    if mt == "gemma2":
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(layers)]
    if mt == "gpt_oss":
        return ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)]
    return ["sliding_attention"] * layers  # llama-style with a window: mistral, mixtral


class ModelConfig:
    """An immutable, validated model configuration.

    Attributes use the Hugging Face names. A few are *resolved*: ``head_dim``
    (given, or hidden_size // num_attention_heads), ``num_key_value_heads``
    (defaults to the head count), ``num_experts`` (the routed experts, whatever
    the model's own field is called; 0 for a dense model), ``layer_types`` (one
    ``full_attention``/``sliding_attention`` per layer).

    Use :meth:`replace` for what-if changes and :meth:`to_hf_config` to get a
    ``config.json`` dict back.
    """

    __slots__ = ("_raw", "_r", "name", "__weakref__", "_cache")

    def __init__(self, raw, name=None):
        if not isinstance(raw, dict):
            raise ConfigError(f"config: must be a JSON object (a dict), got {type(raw).__name__}")
        raw = json.loads(json.dumps(raw))  # a private deep copy of plain JSON data
        object.__setattr__(self, "_r", _validate(raw))
        object.__setattr__(self, "_raw", MappingProxyType(raw))
        object.__setattr__(self, "name", name or raw.get("_name_or_path") or raw["model_type"])
        object.__setattr__(self, "_cache", {})

    # --- attribute access in the HF vocabulary --------------------------------
    def __getattr__(self, key):
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
        """Multi-head latent attention (DeepSeek-V2/V3)."""
        return self._r["family"] == "deepseek"

    @property
    def attention_kind(self):
        """``"MHA"`` (a KV head per query head), ``"GQA"`` (groups of query heads share
        one), ``"MQA"`` (one KV head in all) or ``"MLA"`` (DeepSeek's latent cache)."""
        if self.uses_mla:
            return "MLA"
        heads, kv = self._r["num_attention_heads"], self._r["num_key_value_heads"]
        return "MHA" if kv == heads else "MQA" if kv == 1 else "GQA"

    def __repr__(self):
        r = self._r
        moe = f", experts={r['num_experts']} top-{r['num_experts_per_tok']}" if self.is_moe else ""
        return (f"ModelConfig({self.name!r}: {r['model_type']}, layers={r['num_hidden_layers']}, "
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
        A field the model's config does not know raises ``ValueError``.
        """
        raw = dict(self._raw)
        known = set(raw) | set(_FAMILIES[raw["model_type"]]["defaults"]) | set(_REQUIRED) \
            | set(_REQUIRED_BY_TYPE.get(raw["model_type"], ())) | {"model_type"}
        if "model_type" in changes:
            mt = changes["model_type"]
            if mt in _FAMILIES:
                known |= set(_FAMILIES[mt]["defaults"]) | set(_REQUIRED_BY_TYPE.get(mt, ()))
        for k in changes:
            if k not in known:
                raise ConfigError(
                    f"{k}: not a field of a {raw['model_type']!r} config "
                    f"(its fields include: {', '.join(sorted(known - {'model_type'})[:12])}, ...)")
        raw.update(changes)
        if ("num_hidden_layers" in changes and "layer_types" not in changes
                and isinstance(raw.get("layer_types"), list) and raw["layer_types"]
                and _is_int(changes["num_hidden_layers"]) and changes["num_hidden_layers"] > 0):
            pattern = raw["layer_types"]
            n = changes["num_hidden_layers"]
            raw["layer_types"] = [pattern[i % len(pattern)] for i in range(n)]
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
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ConfigError(f"config file {path}: not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"config file {path}: cannot be read ({e})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"config file {path}: not valid JSON ({e.msg} at line {e.lineno}, "
                          f"column {e.colno})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"config file {path}: must hold a JSON object, got {type(raw).__name__}")
    if name is None:  # a folder's name, or the file's stem for e.g. Qwen3-8B.json
        base = os.path.basename(path)
        name = (os.path.basename(os.path.dirname(os.path.abspath(path))) if base == "config.json"
                else os.path.splitext(base)[0])
    try:
        return ModelConfig(raw, name=name)
    except ConfigError as e:
        raise ConfigError(f"{os.path.basename(path)}: {e}") from None


# a dense model_type and the MoE model_type with the same attention and norms
_MOE_OF = {"llama": ("mixtral", "num_local_experts"), "mistral": ("mixtral", "num_local_experts"),
           "qwen3": ("qwen3_moe", "num_experts")}


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
    if cfg.model_type not in _MOE_OF:
        raise ConfigError(f"model_type: {cfg.model_type!r} has no mixture-of-experts variant here "
                          f"(supported: {', '.join(sorted(_MOE_OF))}, or a model that is already MoE)")
    mt, field = _MOE_OF[cfg.model_type]
    changes = {"model_type": mt, field: num_experts, "num_experts_per_tok": num_experts_per_tok}
    if mt == "qwen3_moe":
        changes["moe_intermediate_size"] = moe_intermediate_size or cfg.intermediate_size
    elif moe_intermediate_size is not None:
        changes["intermediate_size"] = moe_intermediate_size
    if cfg.head_dim != cfg.hidden_size // cfg.num_attention_heads or "head_dim" in cfg.to_hf_config():
        changes["head_dim"] = cfg.head_dim
    return cfg.replace(**changes)
