"""How fast will one user's tokens come? A fitted estimate of batch-1 decode speed, with a band
checked out of sample against published measurements.

The bound (:func:`llmcourse.serving.decode_step_per_gpu`) reads one GPU's weights and KV cache
over its bandwidth; no engine reaches it. Published batch-1 speeds
(``llmcourse/data/decode_speeds.json``, :func:`decode_speeds`: engines vLLM, SGLang and
llama.cpp; GPUs from an L4 to eight B200s and Apple's M2 Ultra/M3 Max; 16-bit, 8-bit and 4-bit
weights) show two costs in a step:

    t_token = a x t_memory  +  c_engine x num_hidden_layers

* ``a`` x ``t_memory``: the bytes read over the bandwidth, times one factor ``a`` (> 1: no
  kernel streams at the datasheet's bandwidth) shared by every engine and GPU;
* ``c_engine`` x layers: a fixed cost per layer and token (kernel launches, synchronisation,
  the all-reduces' latency with TP), one figure per engine family
  (:data:`ENGINE_FAMILIES`: "vLLM" for the V1 engine of 0.8 and later, "vLLM V0" for 0.6/0.7,
  "SGLang", "llama.cpp"). It is why one efficiency per engine misses fast GPUs and small
  (4-bit) weights: the faster the read, the larger the fixed share.

Fitted to the 38 rows: a = 1.19; per layer and token, vLLM 0.042 ms, vLLM V0 0.134 ms, SGLang
0.064 ms, llama.cpp 0.111 ms (:func:`decode_speed_model`). Llama-3.1-8B on one H100 SXM with
vLLM at 512 tokens: 1.19 x 4.50 ms + 32 x 0.042 ms = 6.69 ms, ~149 tokens/s, band 122-176
(bound 222; published: 154, 1 / the 6.48 ms TPOT of a vLLM 0.21 sweep).

A separate all-reduce term per layer with TP was tried and fitted to zero beside the per-layer
cost, so it is left out. The fit is non-negative least squares on relative error (each row
weighted by 1 / its measured time), exact here (every support of the coefficients solved, the
best non-negative one kept), in pure Python.

The answer is an ESTIMATE with a BAND: :func:`decode_speed_loo` leaves each published row out,
fits the rest and predicts it; the band is the 5th-95th percentile of those out-of-sample
ratios (measured / predicted): 0.82-1.18. Checked out of sample (:func:`decode_speed_band_check`,
nested: the band for a row is made without it), it contains the measurement on 33 of 38 rows
(87%); the central figure lands within 25% on 36 of 38 (median error 5.2%). Leaving out a
whole source at a time (``leave_out="source"``) is harsher: 27 of 38 within 25%. Every llama.cpp
speed comes from one source, so without it llama.cpp's per-layer cost is unknown, and the two
8 x B200 SGLang rows, the only TP=8 rows, come out at a third of their speed when their source
is left out: the model is checked, but on few engines and GPU setups.
tests/test_decode_speeds.py recomputes every figure from the rows.
"""

from __future__ import annotations

import itertools
import json
import os
from typing import NamedTuple

from .config import ConfigError
from .quantization import AS_SHIPPED
from .zoo import as_config

__all__ = ["DECODE_SPEEDS", "decode_speeds", "ENGINE_FAMILIES", "engine_family",
           "DecodeSpeedModel", "fit_decode_speed", "decode_speed_model", "decode_speed_loo",
           "LooRow", "LEAVE_OUT", "decode_speed_band_check", "BandCheck", "ExpectedDecode",
           "expected_decode_speed", "typical_decode_efficiency", "BAND_PERCENTILES",
           "outside_the_data", "wide_band", "OutsideCheck", "decode_speed_outside_check"]

DECODE_SPEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                             "decode_speeds.json")
ENGINE_FAMILIES = ("vLLM", "vLLM V0", "SGLang", "llama.cpp")
BAND_PERCENTILES = (5, 95)
_DECODE = {}
_CACHE = {}


def decode_speeds():
    """The published batch-1 decode speeds of ``llmcourse/data/decode_speeds.json``: a dict
    with ``rows`` (engine and version, model, GPU, context, weights, measured tokens/s,
    source, quote) and ``model`` (the form fitted to them)."""
    if not _DECODE:
        with open(DECODE_SPEEDS, encoding="utf-8") as fh:
            _DECODE.update(json.load(fh))
    return _DECODE


def engine_family(engine, version=None):
    """The family whose per-layer cost a row or a question uses: ``"vLLM"`` (the V1 engine,
    default from vLLM 0.8.0), ``"vLLM V0"`` (vLLM before 0.8: pass ``version``, e.g. "0.6.3",
    or name the family), ``"SGLang"``, ``"llama.cpp"``."""
    if engine in ENGINE_FAMILIES and not (engine == "vLLM" and version):
        return engine
    if engine == "vLLM" and isinstance(version, str):
        try:
            major, minor = (int(p) for p in version.lstrip("vV").split(".")[:2])
        except ValueError:
            raise ConfigError(f"version: a vLLM release such as '0.6.3' (got {version!r})") \
                from None
        return "vLLM V0" if (major, minor) < (0, 8) else "vLLM"
    raise ConfigError(f"engine: one of {', '.join(ENGINE_FAMILIES)} (got {engine!r}); no "
                      f"published batch-1 speeds of other engines are in the data")


def _row_cfg(row, configs=None):
    name = row["config"]
    if configs and name in configs:
        return configs[name]
    if name.startswith("fixture:"):
        raise ConfigError(f"config: row {row['id']!r} needs the config {name!r}; pass configs=")
    return as_config(name)


def _row_terms(row, cfg):
    """(t_memory seconds, layers) of one published row: the bound's read time on one GPU."""
    from .serving import decode_step_per_gpu
    w = row.get("weight_bytes") or row.get("weights") or AS_SHIPPED
    b = decode_step_per_gpu(cfg, row["gpu"], row["tensor_parallel_size"], w, "bf16",
                            row["seq_len"], 1)
    return b.t_memory, cfg.num_hidden_layers


def _features(t_mem, layers, family):
    return [t_mem] + [float(layers) if family == f else 0.0 for f in ENGINE_FAMILIES]


def _solve(a, b):
    """Gaussian elimination with partial pivoting; None when singular."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-30:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[r][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def _nnls(xtx, xty, yty):
    """Non-negative least squares from the normal equations: every support solved, the
    feasible solution with the least residual kept (exact for a handful of coefficients).
    When the unconstrained solution is already non-negative it is the least residual of
    all (the problem is convex), and the search is skipped."""
    n = len(xty)
    full = _solve(xtx, xty)
    if full is not None and min(full) >= 0:
        return full
    best, best_r = [0.0] * n, yty
    for k in range(1, n + 1):
        for s in itertools.combinations(range(n), k):
            sol = _solve([[xtx[i][j] for j in s] for i in s], [xty[i] for i in s])
            if sol is None or min(sol) < 0:
                continue
            x = [0.0] * n
            for i, v in zip(s, sol):
                x[i] = v
            r = yty - 2 * sum(x[i] * xty[i] for i in range(n)) + sum(
                x[i] * xtx[i][j] * x[j] for i in range(n) for j in range(n))
            if r < best_r - 1e-15:
                best, best_r = x, r
    return best


def _normal(points):
    """X'X, X'y, y'y of rows weighted by 1 / measured time (relative error)."""
    n = 1 + len(ENGINE_FAMILIES)
    xtx = [[0.0] * n for _ in range(n)]
    xty = [0.0] * n
    yty = 0.0
    for f, t in points:
        fw = [v / t for v in f]
        for i in range(n):
            xty[i] += fw[i]
            for j in range(n):
                xtx[i][j] += fw[i] * fw[j]
        yty += 1.0
    return xtx, xty, yty


class DecodeSpeedModel(NamedTuple):
    """``t_token = bandwidth_factor x t_memory + per_layer_s[family] x num_hidden_layers``,
    fitted to ``rows`` published speeds."""
    bandwidth_factor: float       # a: how much slower than the datasheet bandwidth
    per_layer_s: dict             # engine family -> seconds per layer and token
    rows: int

    def seconds(self, t_memory, layers, family):
        return self.bandwidth_factor * t_memory + self.per_layer_s[family] * layers


def _model(coef, n):
    return DecodeSpeedModel(coef[0], dict(zip(ENGINE_FAMILIES, coef[1:])), n)


def _points(rows, configs=None):
    configs = {**_fixture_configs(), **(configs or {})}
    pts = []
    for r in rows:
        t_mem, layers = _row_terms(r, _row_cfg(r, configs))
        fam = engine_family(r["engine"], r.get("engine_version")
                            if r["engine"] == "vLLM" else None)
        pts.append((_features(t_mem, layers, fam), 1.0 / r["measured_tokens_per_s"]))
    return pts


def fit_decode_speed(rows, configs=None):
    """Fit :class:`DecodeSpeedModel` to published rows (dicts as in :func:`decode_speeds`;
    ``configs``: {"fixture:FILE": config} for rows naming a checkpoint neither in the zoo nor
    under the data file's ``configs``)."""
    pts = _points(rows, configs)
    if not pts:
        raise ConfigError("rows: at least one published speed is needed to fit")
    return _model(_nnls(*_normal(pts)), len(pts))


class LooRow(NamedTuple):
    """One published row predicted by the model fitted without it."""
    id: str
    measured_tokens_per_s: float
    predicted_tokens_per_s: float

    @property
    def ratio(self):
        """measured / predicted: 1.10 = the measurement is 10% faster."""
        return self.measured_tokens_per_s / self.predicted_tokens_per_s

    @property
    def error(self):
        """predicted / measured - 1."""
        return self.predicted_tokens_per_s / self.measured_tokens_per_s - 1


def _loo(pts, ids, measured, groups=None):
    """Each point predicted by the fit without it (or without its whole group)."""
    full = _normal(pts)
    n = len(full[1])
    groups = groups or list(range(len(pts)))
    coefs = {}
    for g in set(groups):
        xtx = [row[:] for row in full[0]]
        xty, yty = full[1][:], full[2]
        for (f, t), h in zip(pts, groups):
            if h != g:
                continue
            fw = [v / t for v in f]
            for i in range(n):
                xty[i] -= fw[i]
                for j in range(n):
                    xtx[i][j] -= fw[i] * fw[j]
            yty -= 1.0
        coefs[g] = _nnls(xtx, xty, yty)
    out = []
    for k, ((f, _), g) in enumerate(zip(pts, groups)):
        pred_t = sum(c * v for c, v in zip(coefs[g], f))
        out.append(LooRow(ids[k], measured[k], 1.0 / pred_t if pred_t > 0 else float("inf")))
    return out


def _rows_of(rows):
    return decode_speeds()["rows"] if rows is None else rows


LEAVE_OUT = ("row", "source")


def decode_speed_loo(rows=None, configs=None, leave_out="row"):
    """Leave-one-out: each published row predicted by the model fitted to all the others, a
    list of :class:`LooRow` (default: the rows of :func:`decode_speeds`). ``leave_out=
    "source"``: fitted without every row of the same source (a harder test: one benchmark's
    habits cannot help predict itself)."""
    if leave_out not in LEAVE_OUT:
        raise ConfigError(f"leave_out: 'row' or 'source' (got {leave_out!r})")
    key = ("loo", leave_out)
    if rows is None and key in _CACHE:
        return _CACHE[key]
    rs = _rows_of(rows)
    groups = [r["source"] for r in rs] if leave_out == "source" else None
    out = _loo(_points(rs, configs), [r["id"] for r in rs],
               [r["measured_tokens_per_s"] for r in rs], groups)
    if rows is None:
        _CACHE[key] = out
    return out


def _percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    v = sorted(values)
    pos = (len(v) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def _band(ratios):
    return tuple(_percentile(ratios, q) for q in BAND_PERCENTILES)


class BandCheck(NamedTuple):
    """The band checked out of sample: for each row, the model and the band are both made
    without it (nested leave-one-out), then the row is compared with them."""
    rows: int
    inside: int                   # rows whose measurement falls inside their band
    within_25pct: int             # rows whose out-of-sample prediction is within 25%
    median_abs_error: float       # |predicted / measured - 1|, out of sample
    max_abs_error: float
    band: tuple                   # (low, high) ratio measured / predicted, all rows' LOO
    outside: tuple                # ids of the rows outside their band

    @property
    def coverage(self):
        return self.inside / self.rows


def decode_speed_band_check(rows=None, configs=None):
    """The out-of-sample check of :func:`expected_decode_speed`'s band (default: the rows of
    :func:`decode_speeds`). For each row r: leave r out, compute the leave-one-out ratios of
    the other rows among themselves, take their 5th-95th percentile as the band, fit the other
    rows, predict r, and see whether r's measured / predicted falls in the band."""
    key = ("check",)
    if rows is None and key in _CACHE:
        return _CACHE[key]
    rs = _rows_of(rows)
    pts = _points(rs, configs)
    ids = [r["id"] for r in rs]
    meas = [r["measured_tokens_per_s"] for r in rs]
    loo = _loo(pts, ids, meas)
    inside, outside = 0, []
    for k in range(len(rs)):
        rest = [j for j in range(len(rs)) if j != k]
        inner = _loo([pts[j] for j in rest], [ids[j] for j in rest], [meas[j] for j in rest])
        lo, hi = _band([x.ratio for x in inner])
        if lo <= loo[k].ratio <= hi:
            inside += 1
        else:
            outside.append(ids[k])
    errs = [abs(x.error) for x in loo]
    out = BandCheck(len(rs), inside, sum(e <= 0.25 for e in errs), _percentile(errs, 50),
                    max(errs), _band([x.ratio for x in loo]), tuple(outside))
    if rows is None:
        _CACHE[key] = out
    return out


class OutsideCheck(NamedTuple):
    """The band as :func:`expected_decode_speed` gives it, checked out of sample: each row
    left out, judged against the rows left (inside the data, outside: band widened, or
    withheld), and compared with the band it would get."""
    rows: int
    inside_data: int          # rows whose setup the other rows cover
    widened: int              # rows outside the data (their band widened)
    withheld: int             # rows that would get no estimate
    held: int                 # rows whose measurement falls in the band they get
    flagged: tuple            # ids of the rows outside the data or withheld

    @property
    def coverage(self):
        """Share of the rows given a band whose band held the measurement."""
        given = self.rows - self.withheld
        return self.held / given if given else 0.0


def decode_speed_outside_check(rows=None, configs=None):
    """Leave each published row out and ask :func:`expected_decode_speed`'s question of it
    with only the other rows: is its setup inside their data (the nested band applies), outside
    (the band widens to the other rows' :func:`wide_band`) or withheld? Then whether the
    measurement falls in the band it gets. The issue this answers: does the band hold out of
    sample, and does it say "outside the data" where it is."""
    key = ("outside",)
    if rows is None and key in _CACHE:
        return _CACHE[key]
    rs = _rows_of(rows)
    cfgs = {**_fixture_configs(), **(configs or {})}
    pts = _points(rs, configs)
    ids = [r["id"] for r in rs]
    meas = [r["measured_tokens_per_s"] for r in rs]
    loo = _loo(pts, ids, meas)
    inside_data = widened = withheld = held = 0
    flagged = []
    for k, r in enumerate(rs):
        rest = [x for j, x in enumerate(rs) if j != k]
        cfg = _row_cfg(r, cfgs)
        fam = engine_family(r["engine"], r.get("engine_version")
                            if r["engine"] == "vLLM" else None)
        withhold, widen = outside_the_data(cfg, r["gpu"], fam, r["tensor_parallel_size"], rest)
        if withhold:
            withheld += 1
            flagged.append(r["id"])
            continue
        if widen:
            widened += 1
            flagged.append(r["id"])
            lo, hi = _band([x.ratio for x in decode_speed_loo(rest, configs,
                                                                leave_out="source")])
        else:
            inside_data += 1
            inner = _loo([pts[j] for j in range(len(rs)) if j != k],
                         [ids[j] for j in range(len(rs)) if j != k],
                         [meas[j] for j in range(len(rs)) if j != k])
            lo, hi = _band([x.ratio for x in inner])
        held += lo <= loo[k].ratio <= hi
    out = OutsideCheck(len(rs), inside_data, widened, withheld, held, tuple(flagged))
    if rows is None:
        _CACHE[key] = out
    return out


def decode_speed_model():
    """The model fitted to every row of :func:`decode_speeds` (cached)."""
    if "model" not in _CACHE:
        _CACHE["model"] = fit_decode_speed(decode_speeds()["rows"])
    return _CACHE["model"]


def _fixture_configs():
    """Rows naming a checkpoint absent from the zoo carry its config in the data file
    (``configs``), so the engine can fit them without the test fixtures."""
    from .config import from_hf_config
    if "configs" in _CACHE:
        return _CACHE["configs"]
    out = _CACHE["configs"] = {}
    for name, entry in decode_speeds().get("configs", {}).items():
        out[name] = from_hf_config(entry["config"], name=name.split(":", 1)[1].rsplit(".", 1)[0])
    return out


class ExpectedDecode(NamedTuple):
    """An ESTIMATE of one user's decode speed (batch 1): the fitted model's central figure and
    the band that held out of sample (:func:`decode_speed_band_check`), beside the bound no
    engine reaches."""
    model: str
    gpu: str
    engine: str
    tensor_parallel_size: int
    seq_len: int
    bound_tokens_per_s: float     # a bound: no engine reaches it
    efficiency: float             # expected / bound (what the fitted costs leave of the bound)
    label: str = "estimate, not exact"
    low_tokens_per_s: float = 0.0   # the band's 5th percentile
    high_tokens_per_s: float = 0.0  # the band's 95th percentile
    memory_s: float = 0.0           # a x t_memory
    fixed_s: float = 0.0            # per-layer cost x layers
    outside: tuple = ()             # why the setup is outside the measured rows (band widened)
    withheld: str = ""              # why no estimate is given ("" when one is)

    @property
    def expected_tokens_per_s(self):
        """The central estimate; None when it is withheld."""
        if self.withheld:
            return None
        return self.bound_tokens_per_s * self.efficiency

    @property
    def in_data(self):
        """True when the setup is inside the measured rows (the band that held out of sample
        applies as it is)."""
        return not self.outside and not self.withheld

    @property
    def band(self):
        return self.low_tokens_per_s, self.high_tokens_per_s

    def __repr__(self):
        if self.withheld:
            return (f"ExpectedDecode({self.model} on {self.tensor_parallel_size} x {self.gpu}, "
                    f"{self.engine}, batch 1: no estimate ({self.withheld}); bound "
                    f"{self.bound_tokens_per_s:,.0f} tokens/s)")
        why = f"; {'; '.join(self.outside)}: band widened" if self.outside else ""
        return (f"ExpectedDecode({self.model} on {self.tensor_parallel_size} x {self.gpu}, "
                f"{self.engine}, batch 1, {self.seq_len:,} tokens{why}: ~"
                f"{self.expected_tokens_per_s:,.0f} tokens/s ({self.label}), band "
                f"{self.low_tokens_per_s:,.0f}-{self.high_tokens_per_s:,.0f}; bound "
                f"{self.bound_tokens_per_s:,.0f}; step {1e3 * self.memory_s:.2f} ms reading + "
                f"{1e3 * self.fixed_s:.2f} ms fixed)")


def _coverage(rows=None):
    """(engine family, GPU) pairs, MLA rows, and (family) with a MoE row at TP >= 4, of the
    measured rows."""
    rs = _rows_of(rows)
    configs = _fixture_configs()
    pairs, mla, moe_tp = set(), False, set()
    for r in rs:
        fam = engine_family(r["engine"], r.get("engine_version")
                            if r["engine"] == "vLLM" else None)
        from .hardware import as_gpu
        pairs.add((fam, as_gpu(r["gpu"]).name))
        cfg = _row_cfg(r, configs)
        mla = mla or cfg.uses_mla
        if cfg.is_moe and r["tensor_parallel_size"] >= 4:
            moe_tp.add(fam)
    return pairs, mla, moe_tp


def outside_the_data(cfg, gpu, engine="vLLM", tensor_parallel_size=1, rows=None):
    """(withhold, widen): why an estimate for this setup would be outside the measured rows.
    ``withhold``: reasons no estimate is given (an MLA model, whose reads no row measures;
    an engine without rows); ``widen``: reasons the band is widened (no row of this engine on
    this GPU; a mixture of experts at TP >= 4 with no such row)."""
    from .hardware import as_gpu
    cfg = as_config(cfg)
    fam = engine_family(engine)
    name = as_gpu(gpu).name
    pairs, mla, moe_tp = _coverage(rows)
    withhold, widen = [], []
    platform = getattr(as_gpu(gpu), "platform", "cuda")
    if fam in ("vLLM", "vLLM V0", "SGLang") and platform not in ("cuda", "rocm"):
        withhold.append(f"{fam} does not run on {name} ({platform})")
    if cfg.uses_mla and not mla:
        withhold.append("outside the data: no MLA row")
    if not any(f == fam for f, _ in pairs):
        withhold.append(f"outside the data: no {fam} row")
    elif (fam, name) not in pairs:
        widen.append(f"outside the data: no {fam} row on {name}")
    if cfg.is_moe and tensor_parallel_size >= 4 and fam not in moe_tp:
        widen.append(f"outside the data: no {fam} row of a mixture of experts at TP >= 4")
    return withhold, widen


def wide_band(rows=None):
    """The band outside the data: the 5th-95th percentile of the measured / predicted ratios
    when each row's whole source is left out (:func:`decode_speed_loo`, ``leave_out=
    "source"``): what the model does on setups no row of its own source measured."""
    return _band([x.ratio for x in decode_speed_loo(rows, leave_out="source")])


def expected_decode_speed(cfg, gpu, engine="vLLM", tensor_parallel_size=1, weights=AS_SHIPPED,
                          kv_cache_dtype="bf16", seq_len=4096):
    """One user's decode speed (batch 1) to expect from ``engine`` (:data:`ENGINE_FAMILIES`),
    an ESTIMATE with a band: ``bandwidth_factor x t_memory + per-layer cost x layers`` of
    :func:`decode_speed_model`, and the 5th-95th percentile of its leave-one-out ratios
    (``low_tokens_per_s``, ``high_tokens_per_s``), which contained the measurement on 33 of
    38 published rows left out (nested leave-one-out). Beside it, always, the batch-1 bound
    (``bound_tokens_per_s``).

    Outside the measured rows (:func:`outside_the_data`) the answer says so: with no row of
    the engine on this GPU, or a mixture of experts at TP >= 4 that no row measures, the band
    widens to :func:`wide_band` (``outside``); for an MLA model, an engine without rows, or
    weights that do not fit on the GPUs, no estimate is given (``withheld``, and
    ``expected_tokens_per_s`` is None). ``weights``: a scheme name or a whole number of bytes
    (a GGUF file's size)."""
    from .hardware import as_gpu
    from .serving import decode_step_per_gpu, weights_per_gpu
    fam = engine_family(engine)
    cfg = as_config(cfg)
    g = as_gpu(gpu)
    b = decode_step_per_gpu(cfg, g, tensor_parallel_size, weights, kv_cache_dtype, seq_len, 1)
    bound = b.tokens_per_s_per_user
    withhold, widen = outside_the_data(cfg, g, fam, tensor_parallel_size)
    per_gpu = weights if isinstance(weights, int) and not isinstance(weights, bool) else \
        weights_per_gpu(cfg, tensor_parallel_size, 1, weights)
    if isinstance(weights, int) and not isinstance(weights, bool):
        per_gpu = weights // tensor_parallel_size
    if per_gpu > g.reported_memory_bytes:
        withhold.insert(0, f"no speed: the weights ({per_gpu / 1e9:,.1f} GB per GPU) do not "
                           f"fit on {tensor_parallel_size} x {g.name}")
    if withhold:
        return ExpectedDecode(cfg.name, b.gpu, fam, tensor_parallel_size, seq_len, bound, 0.0,
                              "withheld", 0.0, 0.0, 0.0, 0.0, tuple(widen), "; ".join(withhold))
    m = decode_speed_model()
    mem = m.bandwidth_factor * b.t_memory
    fixed = m.per_layer_s[fam] * cfg.num_hidden_layers
    t = mem + fixed
    lo, hi = wide_band() if widen else decode_speed_band_check().band
    label = "estimate, outside the data" if widen else "estimate, not exact"
    return ExpectedDecode(cfg.name, b.gpu, fam, tensor_parallel_size, seq_len, bound,
                          (1 / t) / bound, label, lo / t, hi / t, mem, fixed, tuple(widen))


def typical_decode_efficiency(engine, gpu=None, cfg="Llama-3.1-8B"):
    """Kept for older notebooks: expected / bound of :func:`expected_decode_speed` for
    ``cfg`` on ``gpu`` (default an H100 SXM). Not one figure per engine any more: it falls as
    the GPU gets faster and the weights smaller."""
    return expected_decode_speed(cfg, gpu or "H100", engine).efficiency
