"""Layer schedules: the kind of every layer, without a list per layer.

A model's layers follow a pattern. DeepSeek-V3's first 3 layers are dense and the
other 58 mixture-of-experts; Gemma-2 alternates sliding-window and full attention;
Qwen2 with a window uses full attention for its first ``max_window_layers``
layers. A :class:`LayerSchedule` stores such a pattern as a *prefix* (runs of
identical layers, e.g. 3 dense), a *period* repeated up to ``num_hidden_layers``
(e.g. sliding, full) and a few single-layer *overrides* (Qwen3-MoE's
``mlp_only_layers``). How many layers of each kind a model has is arithmetic over
the prefix and one period, so a billion-layer what-if costs what a 32-layer one
costs.

A model family declares each property of its layers along the depth as an
:class:`Axis` (which attention, which MLP, RoPE or not); the schedule combines the
axes into :class:`LayerKind` values. Examples (``r`` is the resolved config)::

    Axis.constant("dense")                                          # every layer
    Axis.cycle(("sliding_attention", 1), ("full_attention", 1))      # Gemma-2, gpt-oss
    Axis.cycle(("sliding_attention", 5), ("full_attention", 1))      # Gemma-3
    Axis.cycle(("moe", 1), prefix=[("dense", first_k_dense)])        # DeepSeek, GLM-4.5
    Axis.every(2, "moe", "dense", phase=1)                           # MoE every other layer
    Axis.every(4, False, True, phase=3)                              # a NoPE layer in 4
    Axis.from_list(r["layer_types"], field="layer_types")            # an explicit list
    Axis.every(step, "moe", "dense", phase=step - 1).override(mlp_only_layers, "dense")
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from math import gcd
from typing import NamedTuple

from .limits import MAX_LIST, MAX_PATTERN_RUNS, ConfigError

__all__ = ["LayerKind", "Axis", "LayerSchedule", "LayerIndices", "LayerTypes",
           "ATTENTION_KINDS", "MLP_KINDS", "STATE_KINDS", "STATE_AND_KV_KINDS"]

#: attention kinds a layer may have (``layer_types`` values in transformers)
ATTENTION_KINDS = (  # layer kinds, not model types
                   "full_attention", "sliding_attention", "chunked_attention",
                   "linear_attention", "indexed_attention",
                   "mamba",   # Nemotron-H's Mamba-2 blocks (transformers: linear_attention)
                   "conv",    # LFM2's gated short convolution: a fixed state per sequence
                   # Llama 3.2 Vision's cross-attention layers: they attend to an image's
                   # states, not to the text tokens, and are skipped without an image
                   "cross_attention",
                   "none",    # a Nemotron-H block that is only an MLP or experts
                   # DeepSeek-V4: a window plus compressed entries, sparse (CSA) or heavy (HCA)
                   "compressed_sparse_attention", "heavily_compressed_attention",
                   # token mixers with a fixed state per sequence and no KV cache:
                   "mamba1",   # Mamba-1's selective scan (Mamba, Falcon-Mamba, Jamba, Zamba)
                   "rwkv",     # RWKV-4's time mixing
                   "mlstm",    # xLSTM's matrix-memory LSTM
                   "rg_lru",   # Griffin's real-gated linear recurrence (RecurrentGemma)
                   "lightning_attention",   # MiniMax-01's lightning attention (linear, decayed)
                   # Falcon-H1: attention and a Mamba-2 mixer side by side (a KV cache and a state)
                   "parallel_attention_mamba",
                   # Zamba, Zamba2: a shared attention block, then a Mamba-1 or Mamba-2 mixer
                   "shared_attention_mamba1", "shared_attention_mamba")
#: kinds whose layers keep a fixed state per sequence and no KV cache
STATE_KINDS = ("linear_attention", "mamba", "conv",  # layer kinds, not model types
               "mamba1", "rwkv", "mlstm", "rg_lru", "lightning_attention")
#: kinds whose layers keep a Mamba state beside their attention's K and V
STATE_AND_KV_KINDS = ("parallel_attention_mamba", "shared_attention_mamba1",
                      "shared_attention_mamba")
#: MLP kinds: a dense feed-forward block, routed experts, or none (a Nemotron-H mixer block)
MLP_KINDS = ("dense", "moe", "none", "hash_moe")  # hash_moe: DeepSeek-V4's hash-routed MoE


class LayerKind(NamedTuple):
    """What one layer is. Layers of one kind have the same tensors and the same cost."""
    attention: str = "full_attention"  # one of ATTENTION_KINDS
    mlp: str = "dense"                 # one of MLP_KINDS
    rope: bool = True                  # False: a NoPE layer (no rotary position embedding)
    # DeepSeek-V3.2 / GLM-5 sparse attention: the layer runs its own lightning indexer
    # (False on an indexed_attention layer: it reuses the previous layer's top-k choice)
    indexer: bool = False
    # Gemma 4: the layer reuses an earlier layer's K and V (num_kv_shared_layers): it stores
    # no cache and has no k/v projections
    kv_shared: bool = False
    # a per-layer head width and KV-head count (Gemma 4's full-attention layers:
    # global_head_dim, num_global_key_value_heads); 0 = the model's head_dim / KV heads
    head_dim: int = 0
    kv_heads: int = 0
    # Qwen4-Exp's per-layer embedding (PLE): 0 = none, k = the layer holds the k-th hashed
    # n-gram table (ple_layer_ids, in order; each table's size differs)
    ple: int = 0
    # False: the layer has no norm before its attention (ModernBERT's first decoder layer,
    # whose input is the embedding's own norm)
    attention_norm: bool = True
    # the layer's own values of config fields, ((field, value), ...), as transformers'
    # per_layer_config gives them (a sliding layer's own heads, head width, MLA ranks);
    # read through :func:`llmcourse.architectures.layer_config`. () = the model's
    own_fields: tuple = ()
    # Zamba's shared transformer blocks: 0 = none, b = the layer runs shared block b (1-based);
    # shared_tied: the block's weights are its first user's (tied: listed, counted once there)
    shared_block: int = 0
    shared_tied: bool = False

    def describe(self):
        """``'sliding_attention, moe'`` (``', NoPE'`` appended for a layer without RoPE,
        ``', own indexer'`` for a sparse-attention layer that runs its own indexer,
        ``', KV shared'`` for a layer that reuses another's K and V, and its own head
        width and KV heads where they differ from the model's; ``', no attention norm'``
        for a layer without a norm before its attention)."""
        text = f"{self.attention}, {self.mlp}"
        if self.indexer:
            text += ", own indexer"
        if self.kv_shared:
            text += ", KV shared"
        if self.head_dim:
            text += f", head_dim {self.head_dim}"
        if self.kv_heads:
            text += f", {self.kv_heads} KV heads"
        if self.ple:
            text += f", n-gram embedding {self.ple}"
        if not self.attention_norm:
            text += ", no attention norm"
        for field, value in self.own_fields:
            text += f", {field} {value}"
        if self.shared_block:
            text += f", shared block {self.shared_block}" + (" (tied)" if self.shared_tied else "")
        return text if self.rope else text + ", NoPE"


def _runs(pairs):
    """Merge ``(value, count)`` pairs: drop empty runs, join neighbours of equal value."""
    out = []
    for value, count in pairs:
        if count < 0:
            raise ConfigError(f"layer pattern: a run of {count} layers")
        if count == 0:
            continue
        if out and out[-1][0] == value:
            out[-1] = (value, out[-1][1] + count)
        else:
            out.append((value, count))
    return tuple(out)


def _starts(runs):
    starts, pos = [], 0
    for _, n in runs:
        starts.append(pos)
        pos += n
    return starts, pos


class Axis:
    """One property of the layers along the depth (``prefix`` runs, then ``period``
    runs repeated forever, then single-layer ``overrides``). ``field`` names the
    config field it comes from, for error messages."""

    __slots__ = ("prefix", "period", "overrides", "field", "_pre", "_per")

    def __init__(self, prefix=(), period=(), overrides=None, field="layers"):
        self.prefix = _runs(prefix)
        self.period = _runs(period)
        self.overrides = dict(overrides or {})
        self.field = field
        self._pre = _starts(self.prefix)
        self._per = _starts(self.period)

    @property
    def prefix_len(self):
        return self._pre[1]

    @property
    def period_len(self):
        return self._per[1]

    # --- the declarations a family uses ------------------------------------------
    @classmethod
    def constant(cls, value, field="layers"):
        """Every layer has ``value``."""
        return cls(period=[(value, 1)], field=field)

    @classmethod
    def cycle(cls, *runs, prefix=(), field="layers"):
        """``runs`` ((value, count), ...) repeated from layer ``len(prefix)`` on."""
        return cls(prefix=prefix, period=runs, field=field)

    @classmethod
    def every(cls, step, value, otherwise, *, start=0, phase=0, field="layers"):
        """Layer ``i`` has ``value`` when ``i >= start`` and ``i % step == phase``,
        else ``otherwise`` (MoE every other layer from layer 1:
        ``every(2, "moe", "dense", phase=1)``)."""
        first = start + (phase - start) % step
        return cls(prefix=[(otherwise, first)], period=[(value, 1), (otherwise, step - 1)],
                   field=field)

    @classmethod
    def from_list(cls, values, field="layer_types"):
        """One value per layer, as a config lists them (at most ``MAX_LIST``)."""
        if len(values) > MAX_LIST:
            raise ConfigError(f"{field}: lists {len(values):,} layers; the course reads "
                              f"per-layer lists of at most {MAX_LIST:,} entries")
        values = list(values)
        # a list that repeats a short cycle is stored as the cycle (the caller checks
        # that the list has one entry per layer, so nothing past its end is read)
        for p in range(1, min(8, len(values) // 2) + 1):
            if values[p:] == values[:-p]:
                return cls(period=[(v, 1) for v in values[:p]], field=field)
        return cls(prefix=[(v, 1) for v in values], field=field)

    def map(self, fn):
        """The same axis with every value ``v`` replaced by ``fn(v)``."""
        return Axis(prefix=[(fn(v), n) for v, n in self.prefix],
                    period=[(fn(v), n) for v, n in self.period],
                    overrides={i: fn(v) for i, v in self.overrides.items()}, field=self.field)

    def override(self, indices, value):
        """The same axis with layers ``indices`` set to ``value``."""
        over = dict(self.overrides)
        over.update(dict.fromkeys(indices, value))
        axis = Axis(field=self.field)
        axis.prefix, axis.period, axis._pre, axis._per = self.prefix, self.period, self._pre, self._per
        axis.overrides = over
        return axis

    # --- reading ---------------------------------------------------------------------
    def base_at(self, i):
        """The value of layer ``i`` before overrides."""
        starts, plen = self._pre
        if i < plen:
            return self.prefix[bisect_right(starts, i) - 1][0]
        starts, qlen = self._per
        if not qlen:
            raise ConfigError(f"{self.field}: gives no value for layer {i}")
        return self.period[bisect_right(starts, (i - plen) % qlen) - 1][0]

    def value_at(self, i):
        return self.overrides[i] if i in self.overrides else self.base_at(i)

    def _walk(self):
        """Yield ``(value, count)`` runs from layer 0 on (without overrides)."""
        yield from self.prefix
        if self.period:
            while True:
                yield from self.period


class LayerSchedule:
    """The kind of each of ``num_layers`` layers: runs of :class:`LayerKind` in a
    prefix, a period repeated to the depth, and single-layer overrides.

    Built from one :class:`Axis` per :class:`LayerKind` field (a plain value means
    that value on every layer). Cost: the runs of one prefix and one period, never
    one step per layer.
    """

    __slots__ = ("num_layers", "prefix", "period", "overrides", "_pre", "_per", "_counts")

    def __init__(self, num_layers, **axes):
        self.num_layers = L = num_layers
        axes = {k: a if isinstance(a, Axis) else Axis.constant(a) for k, a in axes.items()}
        unknown = set(axes) - set(LayerKind._fields)
        if unknown:
            raise TypeError(f"LayerSchedule: unknown layer properties {sorted(unknown)}")
        names = list(axes)
        P = min(L, max((a.prefix_len for a in axes.values()), default=0))
        for a in axes.values():
            if not a.period_len and a.prefix_len < L:
                raise ConfigError(f"{a.field}: gives values for {a.prefix_len:,} layers, "
                                  f"but num_hidden_layers={L:,}")
        Q = 1
        for a in axes.values():
            if a.period_len:
                Q = Q * a.period_len // gcd(Q, a.period_len)
                if P + Q >= L:
                    break
        end = min(L, P + Q)
        # walk all axes together, one step per run boundary of any axis
        walkers = [a._walk() for a in axes.values()]
        cur = [next(w) for w in walkers]
        left = [n for _, n in cur]
        pre, per, pos, steps = [], [], 0, 0
        while pos < end:
            boundary = P if pos < P else end
            n = min(min(left), boundary - pos)
            kind = LayerKind(**{name: c[0] for name, c in zip(names, cur)})
            (pre if pos < P else per).append((kind, n))
            pos += n
            steps += 1
            if steps > MAX_PATTERN_RUNS:
                busiest = max(axes.values(), key=lambda a: len(a.period) / max(a.period_len, 1))
                raise ConfigError(
                    f"{busiest.field}: the layer pattern has more than {MAX_PATTERN_RUNS:,} runs "
                    f"of identical layers before it repeats (num_hidden_layers={L:,}); the course "
                    f"handles patterns up to that length")
            for j in range(len(cur)):
                left[j] -= n
                if left[j] == 0 and pos < end:
                    cur[j] = next(walkers[j])
                    left[j] = cur[j][1]
        if end == L:  # the pattern never repeats within the model: all of it is prefix
            pre, per = pre + per, []
        self.prefix, self.period = _runs(pre), _runs(per)
        self._pre, self._per = _starts(self.prefix), _starts(self.period)
        over = {}
        for a in axes.values():
            for i in a.overrides:
                if 0 <= i < L:
                    over[i] = None
        for i in over:
            over[i] = LayerKind(**{name: a.value_at(i) for name, a in axes.items()})
        self.overrides = {i: k for i, k in over.items() if k != self._base_at(i)}
        self._counts = None

    # --- per layer ---------------------------------------------------------------------
    def _base_at(self, i):
        starts, plen = self._pre
        if i < plen:
            return self.prefix[bisect_right(starts, i) - 1][0]
        starts, qlen = self._per
        return self.period[bisect_right(starts, (i - plen) % qlen) - 1][0]

    def kind_at(self, i):
        """The :class:`LayerKind` of layer ``i`` (0-based; negative counts from the end)."""
        L = self.num_layers
        if not isinstance(i, int) or isinstance(i, bool):
            raise TypeError(f"layer index must be an int, not {type(i).__name__}")
        if i < 0:
            i += L
        if not 0 <= i < L:
            raise IndexError(f"layer {i} out of range for {L:,} layers")
        return self.overrides[i] if i in self.overrides else self._base_at(i)

    # --- per kind ------------------------------------------------------------------------
    def counts(self):
        """``{LayerKind: number of layers}``, kinds in the order they first appear."""
        if self._counts is not None:
            return self._counts
        counts = self._counts_upto(self.num_layers)
        first = {k: self.first_index(k) for k, n in counts.items() if n}
        self._counts = {k: counts[k] for k in sorted(first, key=first.get)}
        return self._counts

    def counts_between(self, start, stop):
        """``{LayerKind: number of layers}`` among layers ``start .. stop - 1`` (a
        pipeline stage's share): arithmetic on the prefix, the period and the overrides."""
        L = self.num_layers
        if not (0 <= start <= stop <= L):
            raise IndexError(f"layers {start}..{stop} out of range for {L:,} layers")
        hi, lo = self._counts_upto(stop), self._counts_upto(start)
        out = {k: hi.get(k, 0) - lo.get(k, 0) for k in self.counts()}
        return {k: n for k, n in out.items() if n}

    def _counts_upto(self, stop):
        """Kinds of layers ``0 .. stop - 1``."""
        counts, left = {}, stop
        for k, n in self.prefix:
            m = min(n, left)
            counts[k] = counts.get(k, 0) + m
            left -= m
        if left and self.period:
            full, part = divmod(left, self._per[1])
            for k, n in self.period:
                counts[k] = counts.get(k, 0) + n * full + max(0, min(n, part))
                part -= n
        for i, k in self.overrides.items():
            if i < stop:
                base = self._base_at(i)
                counts[base] -= 1
                counts[k] = counts.get(k, 0) + 1
        return counts

    def count(self, **props):
        """How many layers have these properties: ``count(attention="sliding_attention")``."""
        return sum(n for k, n in self.counts().items()
                   if all(getattr(k, p) == v for p, v in props.items()))

    def _scan(self, kind, reverse):
        """The first (or last) layer of ``kind`` outside the overrides, or None."""
        L, over = self.num_layers, self.overrides
        plen, qlen = self._pre[1], self._per[1]
        spans = []   # (start, stop) of base runs of ``kind``, in the order to search
        pre = [(s, s + n) for (k, n), s in zip(self.prefix, self._pre[0]) if k == kind]
        per_runs = [(s, s + n) for (k, n), s in zip(self.period, self._per[0]) if k == kind]
        bases = []
        if per_runs and L > plen:
            # each period searched in vain holds an override, so len(over) + 1 periods suffice
            tries = len(over) + 1
            if reverse:
                last = plen + (L - 1 - plen) // qlen * qlen
                bases = [b for b in range(last, max(plen, last - tries * qlen) - 1, -qlen)]
            else:
                bases = list(range(plen, min(L, plen + tries * qlen), qlen))
        if reverse:
            spans = [(b + s, min(b + e, L)) for b in bases for s, e in reversed(per_runs)]
            spans += list(reversed(pre))
        else:
            spans = pre + [(b + s, min(b + e, L)) for b in bases for s, e in per_runs]
        for start, stop in spans:
            rng = range(stop - 1, start - 1, -1) if reverse else range(start, stop)
            for i in rng:     # skips at most len(over) overridden layers in all
                if i not in over:
                    return i
        return None

    def first_index(self, kind):
        """The first layer of ``kind`` (None if no layer has it)."""
        found = [i for i in (self._scan(kind, False),) if i is not None]
        found += [i for i, k in self.overrides.items() if k == kind]
        return min(found, default=None)

    def last_index(self, kind):
        """The last layer of ``kind`` (None if no layer has it)."""
        found = [i for i in (self._scan(kind, True),) if i is not None]
        found += [i for i, k in self.overrides.items() if k == kind]
        return max(found, default=None)

    def indices(self, kind):
        """The layers of ``kind``, as a :class:`LayerIndices` view (no list is built)."""
        return LayerIndices(self, kind)

    def expand(self, what="layers"):
        """All kinds, one per layer, as a tuple (refused above ``MAX_LIST`` layers)."""
        if self.num_layers > MAX_LIST:
            raise ConfigError(f"num_hidden_layers: listing {what} one by one is limited to "
                              f"{MAX_LIST:,} layers (got {self.num_layers:,}); counts per kind "
                              f"have no such limit")
        return tuple(self.kind_at(i) for i in range(self.num_layers))

    def __repr__(self):
        def fmt(runs):
            return ", ".join(f"{n}×({k.describe()})" for k, n in runs)
        text = f"LayerSchedule({self.num_layers:,} layers: prefix [{fmt(self.prefix)}]"
        if self.period:
            text += f", then [{fmt(self.period)}] repeated"
        if self.overrides:
            text += f", {len(self.overrides)} overridden"
        return text + ")"


class _View(Sequence):
    """A read-only sequence over the layers that never builds a list unasked."""

    __slots__ = ("_s",)

    def _expand(self):
        raise NotImplementedError

    def __iter__(self):
        return iter(self._expand())

    def __eq__(self, other):
        if isinstance(other, _View):
            other = tuple(other) if len(other) == len(self) else ()
        if not isinstance(other, (tuple, list)):
            return NotImplemented
        return len(other) == len(self) and tuple(self) == tuple(other)

    def __hash__(self):
        return hash(tuple(self))

    def __reversed__(self):
        return reversed(self._expand())

    def index(self, value):
        return self._expand().index(value)


class LayerIndices(_View):
    """The indices of the layers of one kind (a view: ``len``, ``in``, ``[0]``,
    ``[-1]`` are arithmetic; iterating lists them, up to ``MAX_LIST`` layers)."""

    __slots__ = ("kind",)

    def __init__(self, schedule, kind):
        self._s, self.kind = schedule, kind

    def __len__(self):
        return self._s.counts().get(self.kind, 0)

    def __contains__(self, i):
        return (isinstance(i, int) and not isinstance(i, bool) and 0 <= i < self._s.num_layers
                and self._s.kind_at(i) == self.kind)

    def __getitem__(self, j):
        if j == 0 and len(self):
            return self._s.first_index(self.kind)
        if j == -1 and len(self):
            return self._s.last_index(self.kind)
        return self._expand()[j]

    def _expand(self):
        s, kind, n = self._s, self.kind, len(self)
        if n > MAX_LIST:
            raise ConfigError(f"num_hidden_layers: listing the {n:,} layers of one kind is "
                              f"limited to {MAX_LIST:,} layers; counts have no such limit")
        L, over = s.num_layers, s.overrides
        out = [i for (k, m), st in zip(s.prefix, s._pre[0]) if k == kind for i in range(st, st + m)]
        runs = [(st, st + m) for (k, m), st in zip(s.period, s._per[0]) if k == kind]
        if runs:  # each period holds at least one layer of the kind: at most n + overrides
            plen, qlen = s._pre[1], s._per[1]
            for base in range(plen, L, qlen):
                out.extend(i for a, b in runs for i in range(base + a, min(base + b, L)))
                if len(out) > n + len(over):
                    break
        out = [i for i in out if i not in over] + [i for i, k in over.items() if k == kind]
        return tuple(sorted(out))

    def __repr__(self):
        n = len(self)
        if n <= 12:
            return f"LayerIndices({tuple(self)})"
        return f"LayerIndices({n:,} layers, first {self[0]}, last {self[-1]})"


class LayerTypes(_View):
    """``cfg.layer_types``: the attention kind of each layer (``"full_attention"``,
    ``"sliding_attention"``, ...), as a read-only sequence. ``len``, ``count``,
    ``in`` and ``[i]`` are arithmetic; iterating or ``list(...)`` lists them, up
    to ``MAX_LIST`` layers."""

    __slots__ = ()

    def __init__(self, schedule):
        self._s = schedule

    def __len__(self):
        return self._s.num_layers

    def count(self, value):
        return self._s.count(attention=value)

    def __contains__(self, value):
        return self.count(value) > 0

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self._expand()[i]
        return self._s.kind_at(i).attention

    def _expand(self):
        return tuple(k.attention for k in self._s.expand("layer_types"))

    def __repr__(self):
        if len(self) <= 12:
            return repr(self._expand())
        parts = ", ".join(f"{k}: {n:,}" for k, n in self.counts().items())
        return f"LayerTypes({len(self):,} layers; {parts})"

    def counts(self):
        """``{attention kind: number of layers}``."""
        out = {}
        for k, n in self._s.counts().items():
            out[k.attention] = out.get(k.attention, 0) + n
        return out
