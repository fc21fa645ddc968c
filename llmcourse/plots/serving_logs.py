"""How close the course's serving figures land on published measurements: vLLM's startup
plan against logged KV budgets (llmcourse/data/vllm_logs.json) and the typical decode speed
against published batch-1 speeds (llmcourse/data/decode_speeds.json).

Rows whose model is not in the zoo need its config: pass ``configs``, a dict from the
row's ``config`` field (``"fixture:FILE"``) to a config (the tests pass their fixtures);
rows without one are left out, and the title counts only the rows drawn.
"""

from __future__ import annotations

from matplotlib.lines import Line2D

from ..serving import (decode_speeds, decode_step_per_gpu, log_plan, typical_decode_efficiency,
                       vllm_logs)
from ..zoo import as_config
from .style import TEXT_SIZES, color_of, new_figure, plain_log_axis, styled

__all__ = ["plan_vs_logs_data", "plan_vs_logs", "decode_speed_data", "expected_vs_measured"]

GiB = 2 ** 30
ENGINES = ("vLLM", "SGLang", "llama.cpp")


def _config(row, configs):
    name = row["config"]
    if not name.startswith("fixture:"):
        return as_config(name)
    return (configs or {}).get(name)


def _short(model):
    name = model.split("/")[-1]
    for tail in ("-Instruct-2507-FP8", "-Instruct-FP8-dynamic", "-Instruct"):
        name = name.replace(tail, "-FP8" if "FP8" in tail else "")
    return name


def _gpu_short(row):
    n = row["tensor_parallel_size"]
    name = row["gpu"].rsplit(" ", 1)[0] if row["gpu"].endswith("GB") else row["gpu"]
    return f"{n} x {name}" if n > 1 else name


def plan_vs_logs_data(configs=None):
    """One dict per usable log with a logged KV budget: ``id``, ``label`` (model), ``gpu``,
    ``max_model_len``, ``utilization``, ``logged_gib``, ``plan_gib``, ``failed`` (the
    launch failed), ``starts`` (the plan says it starts), ``in_band`` (within max(5%, 0.5
    GiB))."""
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
                        label=_short(row["model"]),
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
    names = [f"{p['label']}, {p['gpu']}" for p in points]

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
    """One dict per published decode speed whose model config is at hand: ``id``,
    ``engine``, ``label``, ``measured``, ``bound`` and ``expected`` (tokens/s: the bound
    times the engine's typical efficiency), ``in_band`` (within 25% of measured)."""
    out = []
    for row in decode_speeds()["rows"]:
        cfg = _config(row, configs)
        if cfg is None:
            continue
        b = decode_step_per_gpu(cfg, row["gpu"], row["tensor_parallel_size"], row["weights"],
                                "bf16", row["seq_len"], 1).tokens_per_s_per_user
        exp = b * typical_decode_efficiency(row["engine"])
        tp = row["tensor_parallel_size"]
        out.append(dict(id=row["id"], engine=row["engine"], measured=row["measured_tokens_per_s"],
                        bound=b, expected=exp,
                        label=f"{row['model'].split('/')[-1]}, {row['gpu'].split()[0]}"
                              + (f" x{tp}" if tp > 1 else ""),
                        in_band=abs(exp / row["measured_tokens_per_s"] - 1) <= 0.25))
    return out


@styled
def expected_vs_measured(points=None, configs=None):
    """Published batch-1 decode speeds against the course's expected figure (bound x the
    engine family's typical efficiency, filled markers) and the bound itself (open
    markers, always above), with the 25% band around equality. Log axes."""
    points = decode_speed_data(configs) if points is None else points
    fig, ax = new_figure(size=(10, 6.2))
    lo = min(p["measured"] for p in points) / 1.6
    hi = max(p["bound"] for p in points) * 1.6
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    ax.fill_between(xs, [0.75 * x for x in xs], [1.25 * x for x in xs],
                    color=color_of("reference"), alpha=0.25, lw=0,
                    label="within 25% of the measured speed")
    ax.plot(xs, xs, color=color_of("reference"), lw=1.5, ls="--", label="expected = measured")
    markers = ("o", "s", "^")
    handles = []
    for i, engine in enumerate(ENGINES):
        sel = [p for p in points if p["engine"] == engine]
        if not sel:
            continue
        c = color_of(f"series:{i}")
        ax.plot([p["measured"] for p in sel], [p["expected"] for p in sel], markers[i], ms=11,
                color=c, ls="none")
        ax.plot([p["measured"] for p in sel], [p["bound"] for p in sel], markers[i], ms=9,
                mfc="none", mew=1.8, color=c, ls="none")
        for p in sel:
            ax.plot([p["measured"]] * 2, [p["expected"], p["bound"]], color=c, lw=1, alpha=0.6)
        handles.append(Line2D([], [], marker=markers[i], ms=11, color=c, ls="none",
                              label=f"{engine}: typical efficiency "
                                    f"{typical_decode_efficiency(engine):.2f}"))
    handles.append(Line2D([], [], marker="o", ms=9, mfc="none", mew=1.8,
                          color=color_of("reference"), ls="none", label="bound (open markers)"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax.xaxis, "{:,.0f}")
    plain_log_axis(ax.yaxis, "{:,.0f}")
    ticks = [t for t in (10, 20, 50, 100, 200, 500) if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("published decode speed, batch 1 (tokens/s, log)")
    ax.set_ylabel("course figure (tokens/s, log)")
    band_handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=band_handles + handles, loc="upper left")
    n_in = sum(p["in_band"] for p in points)
    ax.set_title(f"Bound x typical efficiency lands within 25% of {n_in} of {len(points)} "
                 f"published speeds")
    return fig
