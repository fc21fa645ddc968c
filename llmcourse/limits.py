"""The bounds the engine keeps, in one place, and the error it raises.

Whatever a reader types (a billion layers, a config file of the wrong kind, a
``layer_types`` list of a million entries), every public function answers
within a fraction of a second or raises :class:`ConfigError`, a one-line
``ValueError`` naming the field and the rule. Counting never walks the layers one
by one (see :mod:`llmcourse.layers`), so most sizes have no bound other than
``MAX_SIZE``; what is a list by nature (a per-layer list in a config, the
per-tensor listing of ``weight_shapes``) is refused above the bounds below, each
far above every real model (the largest real models have about 128 layers,
a 262,144-token vocabulary and 46,000 stored tensors).
"""

from __future__ import annotations

__all__ = ["ConfigError", "MAX_SIZE", "MAX_LIST", "MAX_PATTERN_RUNS", "MAX_WEIGHT_ROWS",
           "MAX_JSON_DEPTH", "MAX_JSON_VALUES", "MAX_FILE_BYTES", "LIMITS"]


class ConfigError(ValueError):
    """An impossible or unreadable model configuration (one-line message)."""


#: any whole-number size in a config (hidden_size, num_hidden_layers, vocab_size,
#: experts, ...): at most a trillion
MAX_SIZE = 10**12
#: entries of a per-layer list: an explicit ``layer_types``, ``mlp_only_layers``,
#: and listing a model layer by layer (``list(cfg.layer_types)``)
MAX_LIST = 100_000
#: runs of identical layers in one layer pattern (a prefix and one period)
MAX_PATTERN_RUNS = 100_000
#: rows of :func:`llmcourse.weight_shapes` (one per stored tensor; DeepSeek-V3 has 45,395)
MAX_WEIGHT_ROWS = 200_000
#: nesting levels in a config (real ones use 3 or 4)
MAX_JSON_DEPTH = 32
#: values (numbers, strings, lists, objects) in one config (real ones hold a few hundred)
MAX_JSON_VALUES = 250_000
#: size of a config.json file or pasted text (real ones are under 20 kB)
MAX_FILE_BYTES = 4 * 2**20

LIMITS = {"MAX_SIZE": MAX_SIZE, "MAX_LIST": MAX_LIST, "MAX_PATTERN_RUNS": MAX_PATTERN_RUNS,
          "MAX_WEIGHT_ROWS": MAX_WEIGHT_ROWS, "MAX_JSON_DEPTH": MAX_JSON_DEPTH,
          "MAX_JSON_VALUES": MAX_JSON_VALUES, "MAX_FILE_BYTES": MAX_FILE_BYTES}


def field_name(key):
    """A config key as an error message names it: as is, or quoted when it is not a
    plain name (a key with spaces, a newline or nothing at all)."""
    return key if isinstance(key, str) and key.isidentifier() else show(key, 40)


def show(value, width=60):
    """A short, one-line repr of a value for an error message (never a huge one)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"a whole number of about {int(value.bit_length() * 0.30103):,} digits"
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"a list of {len(value):,} entries"
    if isinstance(value, dict) and len(value) > 8:
        return f"an object of {len(value):,} keys"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"a {type(value).__name__}"
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def _fail(field, rule, value=None, *, show_value=True):
    msg = f"{field}: {rule}"
    if show_value:
        msg += f" (got {show(value)})"
    raise ConfigError(msg)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)
