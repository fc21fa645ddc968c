"""Models by their Hugging Face Hub id: the config, and the checkpoint's own sizes.

``lc.load_model("Qwen/Qwen3-32B")`` fetches the repository's ``config.json`` with
``huggingface_hub`` (its cache, ``HF_TOKEN``, ``HF_HUB_OFFLINE`` and ``HF_ENDPOINT``
honoured) and reads it as the zoo's configs are read (a multimodal wrapper through
its ``text_config``), named by its id. Each id is fetched once per session; the
Hub's own cache keeps it for offline use after that.

:func:`checkpoint_report` is a second witness: it reads the checkpoint's
safetensors headers (a range request per file, no weights downloaded) and sets
their bytes and values beside the engine's "as shipped" bytes and parameter count,
explaining a difference by the tensors that make it (a multi-token-prediction layer
transformers does not build, a vision tower, quantization scales, a tied head stored
twice).

``huggingface_hub`` is imported only when a Hub id is used: ``import llmcourse``
stays standard-library only, and the shipped zoo needs no network. Every failure is
a one-line :class:`~llmcourse.config.ConfigError` naming the ``model`` field.
"""

from __future__ import annotations

import json
import os
import re
import struct
from typing import NamedTuple

from .config import ConfigError, config_from_json
from .limits import MAX_FILE_BYTES
from .units import count_of

__all__ = ["is_hub_id", "split_revision", "load_hub_config", "hub_commit",
           "checkpoint_report", "compare_checkpoint", "CheckpointReport", "CheckpointPart",
           "read_safetensors_header"]

# owner/name as the Hub spells it (huggingface_hub's validate_repo_id: letters, digits,
# "-", "_", "."; no "--" or ".."; at most 96 characters)
_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?"
_HUB_ID = re.compile(rf"^{_PART}/{_PART}$")
_REVISION = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")
_configs = {}   # (repo_id, revision) -> ModelConfig, for this session
_commits = {}   # (repo_id, revision) -> the commit the config was read at


def is_hub_id(text):
    """True for a Hub model id, ``owner/name`` (optionally ``owner/name@revision``)."""
    if not isinstance(text, str):
        return False
    repo, _, rev = text.partition("@")
    return (bool(_HUB_ID.match(repo)) and len(repo) <= 96 and "--" not in repo
            and ".." not in repo and (not _ or bool(_REVISION.match(rev))))


def split_revision(text, revision=None):
    """``("owner/name", revision)`` from ``"owner/name@revision"`` (a branch, a tag or a
    commit hash); ``revision=`` may say it instead, not both."""
    repo, at, rev = text.partition("@")
    if at:
        if revision is not None and revision != rev:
            raise ConfigError(f"revision: {text!r} already names revision {rev!r}; "
                              f"pass one of them")
        revision = rev
    if revision is not None and (not isinstance(revision, str)
                                 or not _REVISION.match(revision)):
        raise ConfigError(f"revision: must be a branch, a tag or a commit hash "
                          f"(got {revision!r})")
    return repo, revision


def _label(repo_id, revision):
    return f"{repo_id}@{revision}" if revision else repo_id


def _endpoint():
    from huggingface_hub import constants
    return constants.ENDPOINT


def _hub_error(e, repo_id, revision=None, what="config.json"):
    """A one-line ConfigError for whatever huggingface_hub raised."""
    from huggingface_hub import constants
    from huggingface_hub.errors import (DisabledRepoError, GatedRepoError, HfHubHTTPError,
                                        LocalEntryNotFoundError, OfflineModeIsEnabled,
                                        RemoteEntryNotFoundError, RepositoryNotFoundError,
                                        RevisionNotFoundError)
    name = _label(repo_id, revision)
    url = f"{_endpoint()}/{repo_id}"
    if isinstance(e, GatedRepoError):
        if _has_token():
            return ConfigError(f"model: {name} is gated and your token has no access yet: "
                               f"accept its licence at {url} as the token's owner")
        return ConfigError(f"model: {name} is gated: accept its licence at {url} and set "
                           "HF_TOKEN (or run `hf auth login`)")
    if isinstance(e, RevisionNotFoundError):
        return ConfigError(f"model: {repo_id} has no revision {revision!r} (a branch, a tag "
                           "or a commit hash)")
    if isinstance(e, DisabledRepoError):
        return ConfigError(f"model: {repo_id} is disabled on the Hub")
    if isinstance(e, RepositoryNotFoundError):
        hint = "" if _has_token() else " (a private one needs HF_TOKEN)"
        return ConfigError(f"model: no model repository {repo_id!r} on the Hub{_where()}{hint}")
    if isinstance(e, RemoteEntryNotFoundError):
        return ConfigError(f"model: {name} has no {what}")
    offline = constants.HF_HUB_OFFLINE or isinstance(e, OfflineModeIsEnabled) \
        or isinstance(e.__cause__, OfflineModeIsEnabled)
    if offline:
        return ConfigError(f"model: {name} is not in the Hugging Face cache and offline mode "
                           "is on (HF_HUB_OFFLINE=1): fetch it once online, or use a zoo model")
    if isinstance(e, LocalEntryNotFoundError) or _unanswered(e):
        return _unreachable(repo_id, revision, e)
    if isinstance(e, HfHubHTTPError) and getattr(e, "response", None) is not None:
        return ConfigError(f"model: the Hub answered HTTP {e.response.status_code} for "
                           f"{name}'s {what}")
    msg = " ".join(str(e).split())[:160]
    return ConfigError(f"model: cannot read {name}'s {what} from the Hub "
                       f"({type(e).__name__}: {msg})")


def _where():
    """`` at <endpoint>`` when HF_ENDPOINT points elsewhere than huggingface.co (a mirror)."""
    return "" if _endpoint() == "https://huggingface.co" else f" at {_endpoint()}"


def _has_token():
    from huggingface_hub import get_token
    return get_token() is not None


def _no_config(repo_id, revision, token):
    """Why a repository has no config.json: a GGUF-only repo says so, with the repo it
    was converted from when its model card names one."""
    from huggingface_hub import HfApi
    name = _label(repo_id, revision)
    try:
        info = HfApi().model_info(repo_id, revision=revision, token=token)
    except Exception:  # the listing is only for a better message
        return ConfigError(f"model: {name} has no config.json; the course reads a "
                           "transformers config.json")
    files = [s.rfilename for s in info.siblings or []]
    weights = [f for f in files if f.endswith((".gguf", ".safetensors", ".bin", ".pt", ".pth",
                                               ".onnx", ".mlmodel"))]
    base = getattr(info.card_data, "base_model", None) if info.card_data else None
    base = base[0] if isinstance(base, list) and base else base
    if weights and all(f.endswith(".gguf") for f in weights):
        tip = f"try the original repo, {base}" if isinstance(base, str) else \
            "try the original repo it was converted from"
        return ConfigError(f"model: {name} ships GGUF files only; the course reads a "
                           f"transformers config.json ({tip})")
    shown = ", ".join(files[:6]) + (", ..." if len(files) > 6 else "")
    return ConfigError(f"model: {name} has no config.json (its files: {shown or 'none'}); "
                       "the course reads a transformers config.json")


def load_hub_config(repo_id, revision=None, token=None):
    """The :class:`~llmcourse.config.ModelConfig` of a Hub model, named by its id
    (``"owner/name"``, or ``"owner/name@revision"``; ``revision=`` says the same).

    Fetched with ``huggingface_hub.hf_hub_download`` (its cache, ``HF_TOKEN``,
    ``HF_HUB_OFFLINE`` and ``HF_ENDPOINT``), once per session; a one-line
    :class:`ConfigError` says why when it cannot be read: not found, gated (with the
    link to accept the licence), offline and not cached, a GGUF-only repo, an
    unsupported ``model_type`` (with the closest supported ones)."""
    if not isinstance(repo_id, str) or not is_hub_id(repo_id):
        raise ConfigError(f"model: {repo_id!r} is not a Hub id; a Hub id is owner/name, "
                          "e.g. Qwen/Qwen3-32B")
    repo_id, revision = split_revision(repo_id, revision)
    key = (repo_id, revision)
    if key in _configs:
        return _configs[key]
    try:
        from huggingface_hub.errors import RemoteEntryNotFoundError
    except ImportError:
        raise ConfigError("model: reading a Hub id needs huggingface_hub (pip install "
                          "-r requirements.txt)") from None
    try:
        path = _config_path(repo_id, revision, token)
    except RemoteEntryNotFoundError:
        raise _no_config(repo_id, revision, token) from None
    except ConfigError:
        raise
    except Exception as e:
        raise _hub_error(e, repo_id, revision) from None
    with open(path, "rb") as fh:
        data = fh.read(MAX_FILE_BYTES + 1)
    name = _label(repo_id, revision)
    cfg = config_from_json(data, name=name, source=f"model: {name}'s config.json")
    _configs[key] = cfg
    # the cache stores a file under snapshots/<commit>/: the commit it was read at
    parent = os.path.basename(os.path.dirname(path))
    _commits[key] = parent if re.fullmatch(r"[0-9a-f]{40}", parent) else None
    return cfg


def _unanswered(e):
    """No answer from the Hub: no connection, a timeout, a proxy, or an overloaded Hub
    (huggingface_hub would retry these for about 20 seconds before using its cache)."""
    import httpx2
    from huggingface_hub.errors import HfHubHTTPError
    if isinstance(e, httpx2.TransportError):
        return True
    status = getattr(getattr(e, "response", None), "status_code", 0)
    return isinstance(e, HfHubHTTPError) and (status == 429 or status >= 500)


def _config_path(repo_id, revision, token):
    """The cached path of the repo's config.json, fetched when the Hub answers. A first
    request without retries says whether it does: when it does not, the cached copy
    is used at once (or a one-line error says so), where huggingface_hub alone would
    retry for about 20 seconds, printing a warning each time."""
    from huggingface_hub import (constants, get_hf_file_metadata, hf_hub_download, hf_hub_url,
                                 try_to_load_from_cache)
    if not constants.HF_HUB_OFFLINE:
        try:
            get_hf_file_metadata(hf_hub_url(repo_id, "config.json", revision=revision),
                                 token=token)
        except Exception as e:  # any other answer: hf_hub_download raises it below
            if _unanswered(e):
                cached = try_to_load_from_cache(repo_id, "config.json", revision=revision)
                if isinstance(cached, str):
                    return cached
                raise _unreachable(repo_id, revision, e) from None
    return hf_hub_download(repo_id, "config.json", revision=revision, token=token)


def _unreachable(repo_id, revision, e):
    status = getattr(getattr(e, "response", None), "status_code", None)
    why = f"the Hub answered HTTP {status}" if status else f"cannot reach the Hub ({_endpoint()})"
    return ConfigError(f"model: {why} and {_label(repo_id, revision)} is not in the Hugging "
                       "Face cache; check the connection (or HF_ENDPOINT), or use a zoo model")


def hub_commit(model, revision=None):
    """The commit a Hub model's config was read at (None before it is read)."""
    repo_id, revision = split_revision(model, revision)
    return _commits.get((repo_id, revision))


# --- the checkpoint as a second witness -------------------------------------------

#: a multimodal checkpoint's language model, under the names the engine uses
_WRAPPER_PREFIXES = (("model.language_model.", "model."), ("language_model.model.", "model."),
                     ("language_model.lm_head.", "lm_head."), ("model.text_model.", "model."))
#: top-level modules of vision and audio towers (and their projectors)
_TOWERS = ("vision_tower", "vision_model", "visual", "multi_modal_projector", "audio_tower",
           "audio_model", "embed_vision", "embed_audio", "mm_projector", "vision_encoder",
           "image_newline", "audio_encoder", "vision_embed_tokens")
#: what a quantized checkpoint stores beside each matrix's values
_SCALE_SUFFIXES = ("weight_scale_inv", "weight_scale", "weight_scale_2", "input_scale",
                   "input_scale_inv", "weight_global_scale", "input_global_scale",
                   "weight_zero_point", "weight_g_idx", "weight_shape", "qzeros", "scales",
                   "g_idx", "absmax", "quant_map", "nested_absmax", "nested_quant_map",
                   "quant_state", "k_scale", "v_scale", "input_zero_point")
#: packed low-bit values: suffix -> how the values are packed
_PACKED = {"weight_packed": "int", "qweight": "int", "_blocks": "mxfp4"}
_DTYPE_BITS = {"F64": 64, "F32": 32, "F16": 16, "BF16": 16, "I64": 64, "I32": 32, "U32": 32,
               "I16": 16, "U16": 16, "I8": 8, "U8": 8, "F8_E4M3": 8, "F8_E5M2": 8,
               "F8_E8M0": 8, "BOOL": 8}


class CheckpointPart(NamedTuple):
    """One part of a checkpoint: its tensors, bytes and stored values."""
    key: str
    label: str
    tensors: int = 0
    bytes: int = 0
    values: int = 0           # stored elements, packed low-bit values unpacked
    names: tuple = ()         # a few of its tensor names, for the explanation


class CheckpointReport:
    """The checkpoint's own sizes beside the engine's (see :func:`checkpoint_report`).

    ``checkpoint_bytes``: the bytes of every tensor in the safetensors files (what a
    download holds, less a few kB of headers); ``index_total_size``: what
    ``model.safetensors.index.json`` states (None for a single file). ``parts``:
    ``language_model``, ``scales``, ``mtp``, ``towers``. ``engine_bytes``:
    ``lc.stored_weights(cfg, "as shipped").total``; ``engine_params``:
    ``lc.param_count(cfg).total``. ``rows()`` pairs them with the reason for each
    difference; ``table()`` is the same as a DataFrame."""

    __slots__ = ("model", "config", "source", "checkpoint_bytes", "index_total_size",
                 "tensor_count", "dtypes", "parts", "engine_bytes", "engine_scales",
                 "engine_params", "engine_buffers", "only_in_checkpoint", "only_in_engine",
                 "commit")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))

    def __repr__(self):
        return (f"CheckpointReport({self.model}: {self.checkpoint_bytes:,} B in "
                f"{self.tensor_count:,} tensors; as shipped {self.engine_bytes:,} B; "
                f"{'explained' if self.explained else 'not fully explained'})")

    @property
    def difference(self):
        """Checkpoint bytes less the engine's "as shipped" bytes."""
        return self.checkpoint_bytes - self.engine_bytes

    @property
    def explained(self):
        """True when the parts the engine leaves out (MTP, towers) account for the whole
        difference in bytes and the language model's values equal the engine's count."""
        return not self._lm_bytes_gap() and not self._values_gap()

    def _lm_bytes_gap(self):
        p = self.parts
        return p["language_model"].bytes + p["scales"].bytes - self.engine_bytes

    def _values_gap(self):
        return self.parts["language_model"].values - self.engine_params - self.engine_buffers

    def rows(self):
        """``[(what, checkpoint, engine, difference, why), ...]``; bytes, then values."""
        p = self.parts
        out = [("bytes, all tensors", self.checkpoint_bytes, self.engine_bytes,
                self.difference, self._total_why())]
        for key, why in (("mtp", "a multi-token-prediction module transformers does not build "
                                 "(speculative decoding's draft); the course leaves it out"),
                         ("towers", "the vision or audio tower of a multimodal model; the course "
                                    "counts its language model")):
            if p[key].tensors:
                out.append((f"bytes, {p[key].label}", p[key].bytes, 0, p[key].bytes,
                            f"{why}: {_names(p[key])}"))
        if p["scales"].tensors or self.engine_scales:
            out.append(("bytes, quantization scales", p["scales"].bytes, self.engine_scales,
                        p["scales"].bytes - self.engine_scales, self._scales_why()))
        lm = p["language_model"].bytes
        engine_lm = self.engine_bytes - self.engine_scales
        out.append(("bytes, language model's values", lm, engine_lm, lm - engine_lm,
                    self._names_why(lm - engine_lm)))
        engine_values = self.engine_params + self.engine_buffers
        vals = p["language_model"].values
        why = self._names_why(vals - engine_values, values=True)
        if self.engine_buffers:
            why = (f"the course's {self.engine_params:,} parameters plus "
                   f"{self.engine_buffers:,} stored buffer values (a router's bias); " + why)
        out.append(("values, language model", vals, engine_values, vals - engine_values, why))
        return out

    def _total_why(self):
        if not self.difference:
            return "equal"
        parts = [f"{self.parts[k].label} {self.parts[k].bytes:,}" for k in ("mtp", "towers")
                 if self.parts[k].tensors]
        gap = self._lm_bytes_gap()
        if gap:
            parts.append(f"language model {gap:+,}")
        return "the difference is " + " + ".join(parts) if parts else ""

    def _scales_why(self):
        d = self.parts["scales"].bytes - self.engine_scales
        kinds = sorted({n.rsplit(".", 1)[-1] for n in self.parts["scales"].names})
        head = f"stored as {', '.join(kinds)}" if kinds else "none stored"
        return head + ("; equal" if not d else "")

    def _names_why(self, gap, values=False):
        if not gap:
            return "equal"
        lines = []
        for pattern, n, vals, nbytes in self.only_in_checkpoint[:4]:
            what = f"{vals:,} values" if values else f"{nbytes:,} B"
            note = ""
            if pattern == "lm_head.weight" and self.config.tie_word_embeddings:
                note = ": the tied head stored a second time; transformers loads one tensor"
            lines.append(f"only in the checkpoint: {pattern} ({count_of(n, 'tensor')}, "
                         f"{what}){note}")
        for pattern, n, vals in self.only_in_engine[:4]:
            lines.append(f"only in the course's count: {pattern} ({count_of(n, 'tensor')}, "
                         f"{vals:,} values)")
        return "; ".join(lines) if lines else "same tensors, other sizes"

    def table(self):
        """The rows as a pandas DataFrame (what, checkpoint, engine, difference, why)."""
        import pandas as pd
        return pd.DataFrame(self.rows(), columns=["what", "checkpoint", "course (as shipped)",
                                                  "difference", "why"]).set_index("what")

    def to_dict(self):
        """Plain data (for ``--json``)."""
        return {"model": self.model, "commit": self.commit, "source": self.source,
                "checkpoint_bytes": self.checkpoint_bytes,
                "index_total_size": self.index_total_size, "tensors": self.tensor_count,
                "dtypes": {k: {"values": v[0], "bytes": v[1]} for k, v in self.dtypes.items()},
                "parts": {k: {"tensors": v.tensors, "bytes": v.bytes, "values": v.values}
                          for k, v in self.parts.items()},
                "engine": {"bytes_as_shipped": self.engine_bytes, "scales": self.engine_scales,
                           "params": self.engine_params, "buffers": self.engine_buffers},
                "explained": self.explained,
                "rows": [dict(zip(("what", "checkpoint", "course", "difference", "why"), r))
                         for r in self.rows()]}

    def __str__(self):
        lines = [f"checkpoint of {self.model}: {self.tensor_count:,} tensors, "
                 f"{self.checkpoint_bytes:,} B ({self.source})"]
        for what, ck, en, diff, why in self.rows():
            lines.append(f"  {what}: checkpoint {ck:,}, course {en:,}, difference {diff:+,}"
                         + (f" ({why})" if why else ""))
        return "\n".join(lines)


def _names(part, n=3):
    heads = sorted({_pattern(x).split(".*")[0] + (".*" if ".*" in _pattern(x) else "")
                    for x in part.names})
    return ", ".join(heads[:n]) + (", ..." if len(heads) > n else "")


def _pattern(name):
    """A tensor name with its layer and expert numbers as ``*``."""
    return ".".join("*" if p.isdigit() else p for p in name.split("."))


def _strip_wrapper(name):
    for old, new in _WRAPPER_PREFIXES:
        if name.startswith(old):
            return new + name[len(old):]
    return name


def _is_tower(name):
    parts = name.split(".")
    return parts[0] in _TOWERS or (parts[0] == "model" and len(parts) > 1 and parts[1] in _TOWERS)


def _scale_suffix(name):
    last = name.rsplit(".", 1)[-1]
    if last in _SCALE_SUFFIXES or last.endswith("_scales") or ".quant_state." in name:
        return last
    return None


def _packing(cfg, name, dtype):
    """How many values one stored element holds (a packed low-bit tensor holds several)."""
    last = name.rsplit(".", 1)[-1]
    bits = _DTYPE_BITS.get(dtype, 16)
    if last.endswith("_blocks") and dtype == "U8":  # mxfp4: two e2m1 values per byte
        return 2
    if last == "weight" and dtype == "U8":  # ModelOpt's NVFP4 / MXFP4: two e2m1 a byte
        q = cfg.to_hf_config().get("quantization_config") or {}
        if str(q.get("quant_method", "")).lower() in ("modelopt", "modelopt_fp4") or \
                isinstance(q.get("quantization"), dict):   # hf_quant_config.json's layout
            return 2
    if last in ("weight_packed", "qweight") and dtype in ("I32", "U32", "I8", "U8"):
        q = cfg.to_hf_config().get("quantization_config") or {}
        vb = q.get("bits") or q.get("w_bit")
        for g in (q.get("config_groups") or {}).values():
            vb = vb or ((g or {}).get("weights") or {}).get("num_bits")
        return max(1, bits // int(vb or 4))
    return 1


def _engine_patterns(cfg):
    """``{name pattern: (tensors, values)}`` of what the engine counts, named as stored."""
    from .architectures import global_tensors, layer_groups, layer_prefix
    prefix = layer_prefix(cfg).format(i="*", b="*")
    out = {}
    for group in layer_groups(cfg):
        for t in group.tensors:
            if t.tied:
                continue
            key = _pattern(prefix + t.name.format(e="*"))
            n, v = out.get(key, (0, 0))
            out[key] = (n + t.per_expert * group.count, v + t.numel * t.per_expert * group.count)
    for t in global_tensors(cfg):
        if not t.tied:
            n, v = out.get(_pattern(t.name), (0, 0))
            out[_pattern(t.name)] = (n + 1, v + t.numel)
    return out


def _mtp_prefixes(cfg):
    from .architectures import layer_prefix, mtp_tensors
    prefixes = [p for p, _ in mtp_tensors(cfg)]
    L = cfg.num_hidden_layers
    per_layer = layer_prefix(cfg)
    layer_re = None
    if "{i}" in per_layer:
        layer_re = re.compile("^" + re.escape(per_layer).replace(r"\{i\}", r"(\d+)"))
    return prefixes, layer_re, L


def compare_checkpoint(cfg, tensors, total_size=None, source="", model=None, commit=None):
    """A :class:`CheckpointReport` from a checkpoint's tensors (pure: no network).

    ``tensors``: ``{name: (dtype, shape, nbytes)}`` as the safetensors headers give
    them (``nbytes`` = the tensor's data span). Tensors are sorted into the
    language model, its quantization scales, a multi-token-prediction module
    (``model.layers.{L}`` and above, ``mtp.*``), vision and audio towers, and compared
    with ``lc.stored_weights(cfg, "as shipped")`` and ``lc.param_count(cfg)``."""
    from .counts import param_count
    from .quantization import stored_weights
    from .zoo import as_config
    cfg = as_config(cfg)
    mtp_prefixes, layer_re, L = _mtp_prefixes(cfg)
    buckets = {k: [0, 0, 0, []] for k in ("language_model", "scales", "mtp", "towers")}
    dtypes = {}
    found = {}
    for raw_name, (dtype, shape, nbytes) in tensors.items():
        n_el = 1
        for d in shape:
            n_el *= d
        vals = n_el * _packing(cfg, raw_name, dtype)
        ev, eb = dtypes.get(dtype, (0, 0))
        dtypes[dtype] = (ev + n_el, eb + nbytes)
        if _is_tower(raw_name):
            key = "towers"
        else:
            name = _strip_wrapper(raw_name)
            m = layer_re.match(name) if layer_re else None
            if (m and int(m.group(1)) >= L) or any(name.startswith(p) for p in mtp_prefixes) \
                    or name.startswith(("mtp.", "model.mtp")):
                key = "mtp"
            elif _scale_suffix(name):
                key = "scales"
            else:
                key = "language_model"
                stem = name
                for suffix in _PACKED:  # packed values are the weight they stand for
                    if stem.endswith("." + suffix):
                        stem = stem[: -len(suffix)] + "weight"
                    elif suffix.startswith("_") and stem.endswith(suffix):
                        stem = stem[: -len(suffix)]
                pat = _pattern(stem)
                c = found.get(pat, (0, 0, 0))
                found[pat] = (c[0] + 1, c[1] + vals, c[2] + nbytes)
        b = buckets[key]
        b[0] += 1
        b[1] += nbytes
        b[2] += vals
        if len(b[3]) < 200:
            b[3].append(raw_name)
    labels = {"language_model": "language model", "scales": "quantization scales",
              "mtp": "multi-token prediction", "towers": "vision and audio towers"}
    parts = {k: CheckpointPart(k, labels[k], b[0], b[1], b[2], tuple(b[3]))
             for k, b in buckets.items()}
    engine = stored_weights(cfg)
    expected = _engine_patterns(cfg)
    only_ck = sorted(((p, n, v, nb) for p, (n, v, nb) in found.items() if p not in expected),
                     key=lambda r: -r[3])
    only_en = sorted(((p, n, v) for p, (n, v) in expected.items() if p not in found),
                     key=lambda r: -r[2])
    return CheckpointReport(
        model=model or cfg.name, config=cfg, source=source,
        checkpoint_bytes=sum(b[1] for b in buckets.values()), index_total_size=total_size,
        tensor_count=len(tensors), dtypes=dtypes, parts=parts, engine_bytes=engine.total,
        engine_scales=engine.scales, engine_params=param_count(cfg).total,
        engine_buffers=engine.buffers // 4, only_in_checkpoint=only_ck,
        only_in_engine=only_en, commit=commit)


def read_safetensors_header(data, filename="model.safetensors"):
    """``{name: (dtype, shape, nbytes)}`` from the first bytes of a safetensors file
    (an 8-byte little-endian header length, then the JSON header)."""
    if len(data) < 8:
        raise ConfigError(f"checkpoint: {filename} is too short to be a safetensors file")
    (n,) = struct.unpack("<Q", data[:8])
    if n > 100 * 2**20 or len(data) < 8 + n:
        raise ConfigError(f"checkpoint: {filename}'s safetensors header is cut short or "
                          f"too large ({n:,} bytes)")
    try:
        header = json.loads(data[8:8 + n])
        return {k: (v["dtype"], tuple(v["shape"]), v["data_offsets"][1] - v["data_offsets"][0])
                for k, v in header.items() if k != "__metadata__"}
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        raise ConfigError(f"checkpoint: {filename}'s safetensors header is not valid") from None


def _local_tensors(folder):
    """Tensors and index total of a local checkpoint folder (headers read, not weights)."""
    index = os.path.join(folder, "model.safetensors.index.json")
    total, files = None, []
    if os.path.isfile(index):
        with open(index, encoding="utf-8") as fh:
            meta = json.load(fh)
        total = (meta.get("metadata") or {}).get("total_size")
        files = sorted(set((meta.get("weight_map") or {}).values()))
    elif os.path.isfile(os.path.join(folder, "model.safetensors")):
        files = ["model.safetensors"]
    else:
        raise ConfigError(f"checkpoint: {folder} holds no model.safetensors or "
                          "model.safetensors.index.json")
    tensors = {}
    for f in files:
        with open(os.path.join(folder, f), "rb") as fh:
            head = fh.read(8)
            n = struct.unpack("<Q", head)[0] if len(head) == 8 else 0
            tensors.update(read_safetensors_header(head + fh.read(min(n, 100 * 2**20)), f))
    return tensors, total, files


def _hub_tensors(repo_id, revision, token):
    """Tensors and index total of a Hub checkpoint, from its safetensors headers
    (huggingface_hub's range requests: about 100 kB per file, no weights)."""
    from concurrent.futures import ThreadPoolExecutor

    from huggingface_hub import HfApi, hf_hub_download
    api = HfApi()
    if api.file_exists(repo_id, "model.safetensors", revision=revision, token=token):
        files, total = ["model.safetensors"], None
    elif api.file_exists(repo_id, "model.safetensors.index.json", revision=revision,
                         token=token):
        path = hf_hub_download(repo_id, "model.safetensors.index.json", revision=revision,
                               token=token)
        with open(path, encoding="utf-8") as fh:
            meta = json.load(fh)
        total = (meta.get("metadata") or {}).get("total_size")
        files = sorted(set((meta.get("weight_map") or {}).values()))
    else:
        raise ConfigError(f"model: {_label(repo_id, revision)} has no safetensors weights "
                          "(model.safetensors or model.safetensors.index.json), so its "
                          "checkpoint's sizes cannot be read without downloading it")

    def header(f):
        meta = api.parse_safetensors_file_metadata(repo_id, f, revision=revision, token=token)
        return {k: (t.dtype, tuple(t.shape), t.data_offsets[1] - t.data_offsets[0])
                for k, t in meta.tensors.items()}

    tensors = {}
    with ThreadPoolExecutor(max_workers=min(8, len(files))) as pool:
        for part in pool.map(header, files):
            tensors.update(part)
    return tensors, total, files


# the safetensors header of Qwen3-0.6B's checkpoint (a header-only file: no weights), as the
# widely shared listing of its 311 tensors gives it; lesson 8 reads it offline
EXAMPLE_CHECKPOINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                                  "checkpoint_headers", "Qwen3-0.6B")


def checkpoint_report(model, revision=None, token=None, config=None):
    """The checkpoint's own sizes beside the engine's, without downloading weights.

    ``model``: a Hub id (``"owner/name"``, ``"owner/name@revision"``) or a local
    checkpoint folder. Reads the safetensors headers (per-tensor dtypes, shapes and
    byte spans; a sharded checkpoint's ``model.safetensors.index.json`` for its
    ``metadata.total_size`` too) and returns a :class:`CheckpointReport`: bytes and
    values by part beside ``lc.stored_weights(cfg, "as shipped")`` and
    ``lc.param_count(cfg)``, each difference explained by the tensors that make it.
    ``config``: for a folder without its ``config.json``, the model's config (a zoo name,
    a path, a dict); e.g. ``checkpoint_report(EXAMPLE_CHECKPOINT, config="Qwen3-0.6B")``."""
    if isinstance(model, (str, os.PathLike)) and os.path.isdir(model):
        from .config import from_hf_config
        folder = os.fspath(model)
        if config is not None:
            from .zoo import as_config
            cfg = as_config(config)
        else:
            cfg = from_hf_config(folder)
        tensors, total, files = _local_tensors(folder)
        return compare_checkpoint(cfg, tensors, total, _source(files, total), model=cfg.name)
    if not isinstance(model, str) or not is_hub_id(model):
        raise ConfigError(f"model: {model!r} is neither a Hub id (owner/name) nor a checkpoint "
                          "folder")
    repo_id, revision = split_revision(model, revision)
    cfg = load_hub_config(repo_id, revision, token)
    try:
        tensors, total, files = _hub_tensors(repo_id, revision, token)
    except ConfigError:
        raise
    except Exception as e:
        raise _hub_error(e, repo_id, revision, what="safetensors headers") from None
    return compare_checkpoint(cfg, tensors, total, _source(files, total),
                              model=_label(repo_id, revision),
                              commit=_commits.get((repo_id, revision)))


def _source(files, total):
    if total is None:
        return f"the safetensors header of {files[0]}"
    return (f"the safetensors headers of {len(files)} shards; the index states "
            f"total_size {total:,}")
