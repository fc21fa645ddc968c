"""How close the course's serving figures land on published measurements: vLLM's startup
plan against logged KV budgets (llmcourse/data/vllm_logs.json, each launch under the
accounting of the release it ran) and the expected decode speed, predicted out of sample
(leave-one-out), against published batch-1 speeds (llmcourse/data/decode_speeds.json).

Rows whose model is not in the zoo are planned on the configs both data files carry
(``configs`` may pass others, keyed by the row's ``config`` field); the titles count the
rows drawn.
"""

from __future__ import annotations

from matplotlib.lines import Line2D

from ..decode_speed import (ENGINE_FAMILIES, decode_speed_band_check, decode_speed_loo,
                            decode_speeds, engine_family)
from ..serving import decode_step_per_gpu, log_configs, log_plan, vllm_logs
from ..zoo import as_config
from .style import TEXT_SIZES, color_of, new_figure, plain_log_axis, styled

__all__ = ["plan_vs_logs_data", "plan_vs_logs", "decode_speed_data", "expected_vs_measured"]

GiB = 2 ** 30
ENGINES = ENGINE_FAMILIES


def _config(row, configs):
    name = row["config"]
    if not name.startswith("fixture:"):
        return as_config(name)
    return (configs or {}).get(name) or log_configs().get(name)


def _short(model):
    name = model.split("/")[-1]
    for tail in ("-Instruct-2507-FP8", "-Instruct-FP8-dynamic", "-Instruct"):
        name = name.replace(tail, "-FP8" if "FP8" in tail else "")
    return name


def _gpu_short(row):
    n = row["tensor_parallel_size"]
    gpu = row["gpu"]["name"].split(" (")[0] if isinstance(row["gpu"], dict) else row["gpu"]
    gpu = gpu.replace(" Blackwell Server Edition", "")
    name = gpu.rsplit(" ", 1)[0] if gpu.endswith("GB") else gpu
    return f"{n} x {name}" if n > 1 else name


def plan_vs_logs_data(configs=None):
    """One dict per usable log with a logged KV budget: ``id``, ``label`` (model), ``gpu``,
    ``max_model_len``, ``utilization``, ``logged_gib``, ``plan_gib``, ``failed`` (the
    launch failed), ``starts`` (the plan says it starts), ``in_band`` (within max(5%, 0.5
    GiB)), ``release`` (the accounting the launch is planned under: its vLLM release)."""
    out = []
    for row in vllm_logs(usable=True):
        kv = row["logged"].get("kv_gib")
        cfg = _config(row, configs)
        if kv is None or cfg is None:
            continue
        plan = log_plan(row, cfg)
        got = plan.kv_budget_bytes / GiB
        out.append(dict(id=row["id"], logged_gib=kv, plan_gib=got, gpu=_gpu_short(row),
                        max_model_len=plan.max_model_len, utilization=plan.gpu_memory_utilization,
                        label=_short(row["model"]), release=plan.vllm_version,
                        failed=row["outcome"] == "failed", starts=plan.starts,
                        in_band=abs(got - kv) <= max(0.05 * abs(kv), 0.5)))
    return out


@styled
def plan_vs_logs(points=None, configs=None):
    """One row per published launch: the KV budget vLLM logged (black bar), the band
    max(5%, 0.5 GiB) around it (grey) and the budget the course plans (a dot; a cross for
    a launch that failed). Symmetric-log axis: the budgets run from -2.3 to 64 GiB."""
    points = plan_vs_logs_data(configs) if points is None else points
    points = sorted(points, key=lambda p: p["logged_gib"])
    fig, ax = new_figure(size=(10, 1.6 + 0.42 * len(points)))
    for i, p in enumerate(points):
        x, b = p["logged_gib"], max(0.05 * abs(p["logged_gib"]), 0.5)
        ax.plot([x - b, x + b], [i, i], color=color_of("reference"), lw=9, alpha=0.35,
                solid_capstyle="butt", label="within 5% or 0.5 GiB of the log" if i == 0 else None)
        ax.plot([x], [i], "|", ms=18, mew=2.5, color="black",
                label="logged by vLLM" if i == 0 else None)
    for failed, key in ((False, "series:0"), (True, "highlight")):
        sel = [(i, p) for i, p in enumerate(points) if p["failed"] == failed]
        if sel:
            ax.plot([p["plan_gib"] for _, p in sel], [i for i, _ in sel], "X" if failed else "o",
                    ms=11, color=color_of(key), ls="none",
                    label="planned (launch failed)" if failed else "planned (launch started)")
    names = [f"{p['label']}, {p['gpu']}"
             + (f" (vLLM {p['release']})" if p.get("release", "0.11") != "0.11" else "")
             for p in points]

    def tell_apart(n, p):     # the same model on the same GPU: say what differs
        twins = [q for m, q in zip(names, points) if m == n and q is not p]
        if not twins:
            return n
        if any(q["max_model_len"] != p["max_model_len"] for q in twins):
            return f"{n}, {p['max_model_len'] // 1000}K"
        return f"{n}, util {p['utilization']}"
    names = [tell_apart(n, p) for n, p in zip(names, points)]
    ax.set_yticks(range(len(points)), names)
    for i, p in enumerate(points):
        d = p["plan_gib"] - p["logged_gib"]
        ax.annotate(f"{d:+.2f} GiB", (1, i), xycoords=("axes fraction", "data"),
                    xytext=(8, 0), textcoords="offset points", va="center",
                    fontsize=TEXT_SIZES["label"], color=color_of("reference"))
    ax.set_xscale("symlog", linthresh=2)
    lo = min(min(p["logged_gib"], p["plan_gib"]) for p in points)
    hi = max(max(p["logged_gib"], p["plan_gib"]) for p in points)
    ax.set_xlim(min(lo * 1.3, -1), hi * 1.4)
    ticks = [t for t in (-2, 0, 2, 5, 10, 20, 50) if min(lo * 1.3, -1) <= t <= hi * 1.4]
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.set_ylim(-0.7, len(points) - 0.3)
    ax.axvline(0, color=color_of("reference"), lw=1, ls=":")
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("KV cache memory per GPU (GiB, symmetric log axis)")
    if lo < 0:
        ax.text(0, len(points) - 0.45, " below 0: no KV cache, vLLM refuses to start ",
                ha="right", va="top", fontsize=TEXT_SIZES["label"], color=color_of("reference"))
    ax.legend(loc="upper left", bbox_to_anchor=(0, 0.93))
    n_in = sum(p["in_band"] for p in points)
    fig.suptitle(f"The plan lands within 5% or 0.5 GiB of {n_in} of {len(points)} vLLM logs "
                 f"(right: plan - log)")
    return fig


def decode_speed_data(configs=None):
    """One dict per published decode speed: ``id``, ``engine`` (its family), ``label``,
    ``measured``, ``bound``, ``expected`` (tokens/s predicted by the model fitted WITHOUT the
    row: leave-one-out), ``low``/``high`` (that prediction's band), ``in_band`` (the nested
    out-of-sample check of :func:`llmcourse.decode_speed.decode_speed_band_check`) and
    ``within_25`` (the prediction within 25% of the measurement). ``configs`` is accepted for
    older callers; the data file carries the configs it needs."""
    rows = decode_speeds()["rows"]
    loo = {x.id: x for x in decode_speed_loo()}
    check = decode_speed_band_check()
    lo, hi = check.band
    from ..decode_speed import _fixture_configs
    cfgs = {**_fixture_configs(), **(configs or {})}
    out = []
    for row in rows:
        cfg = cfgs.get(row["config"]) or as_config(row["config"])
        w = row.get("weight_bytes") or row["weights"]
        b = decode_step_per_gpu(cfg, row["gpu"], row["tensor_parallel_size"], w, "bf16",
                                row["seq_len"], 1).tokens_per_s_per_user
        x = loo[row["id"]]
        tp = row["tensor_parallel_size"]
        fam = engine_family(row["engine"], row.get("engine_version")
                            if row["engine"] == "vLLM" else None)
        out.append(dict(id=row["id"], engine=fam, measured=x.measured_tokens_per_s, bound=b,
                        expected=x.predicted_tokens_per_s, low=x.predicted_tokens_per_s * lo,
                        high=x.predicted_tokens_per_s * hi,
                        label=f"{row['model'].split('/')[-1]}, {row['gpu'].split()[0]}"
                              + (f" x{tp}" if tp > 1 else ""),
                        in_band=row["id"] not in check.outside,
                        within_25=abs(x.error) <= 0.25))
    return out


@styled
def expected_vs_measured(points=None, configs=None):
    """Published batch-1 decode speeds against the course's estimate for each, predicted
    out of sample (the model fitted without that row; filled markers, with its 5th-95th
    percentile band as a bar) and the bound (open markers, always above). Log axes."""
    points = decode_speed_data(configs) if points is None else points
    fig, ax = new_figure(size=(10, 6.2))
    lo = min(min(p["measured"], p["low"]) for p in points) / 1.4
    hi = max(p["bound"] for p in points) * 1.4
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    ax.fill_between(xs, [0.75 * x for x in xs], [1.25 * x for x in xs],
                    color=color_of("reference"), alpha=0.2, lw=0,
                    label="within 25% of the measured speed")
    ax.plot(xs, xs, color=color_of("reference"), lw=1.5, ls="--", label="estimate = measured")
    markers = ("o", "s", "^", "D")
    handles = []
    for i, engine in enumerate(ENGINES):
        sel = [p for p in points if p["engine"] == engine]
        if not sel:
            continue
        c = color_of(f"series:{i}")
        for p in sel:
            ax.plot([p["measured"]] * 2, [p["low"], p["high"]], color=c, lw=3, alpha=0.45,
                    solid_capstyle="butt")
        ax.plot([p["measured"] for p in sel], [p["expected"] for p in sel], markers[i], ms=10,
                color=c, ls="none")
        ax.plot([p["measured"] for p in sel], [p["bound"] for p in sel], markers[i], ms=8,
                mfc="none", mew=1.6, color=c, ls="none")
        handles.append(Line2D([], [], marker=markers[i], ms=10, color=c, ls="none",
                              label=f"{engine} ({len(sel)} speeds)"))
    handles.append(Line2D([], [], marker="o", ms=8, mfc="none", mew=1.6,
                          color=color_of("reference"), ls="none", label="bound (open markers)"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax.xaxis, "{:,.0f}")
    plain_log_axis(ax.yaxis, "{:,.0f}")
    ticks = [t for t in (10, 20, 50, 100, 200, 500, 1000, 2000) if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("published decode speed, batch 1 (tokens/s, log)")
    ax.set_ylabel("course figure, out of sample (tokens/s, log)")
    band_handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=band_handles + handles, loc="upper left")
    n_in = sum(p["in_band"] for p in points)
    n_25 = sum(p["within_25"] for p in points)
    ax.set_title(f"Out of sample, the band holds {n_in} of {len(points)} published speeds;\n"
                 f"the estimate is within 25% on {n_25}")
    return fig
