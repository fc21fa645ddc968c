#!/usr/bin/env python
"""Turn ``benchmarks/run.py --json PATH`` results into the Markdown tables of
docs/benchmarks.md:

    python benchmarks/run.py --json results.json
    python benchmarks/report.py results.json > tables.md
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import (TARGET_COUNT_US, TARGET_COURSE_S, TARGET_IMPORT_MS,  # noqa: E402
                 TARGET_META_RATIO, TARGET_P90_MS)


def ok(flag):
    return "PASS" if flag else "**MISS**"


def md_table(headers, rows):
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def main(path):
    r = json.load(open(path, encoding="utf-8"))
    m = r["machine"]
    print(f"Run: `python benchmarks/run.py` ({r['mode']} mode), {m['date']}, "
          f"{r['seconds']:.0f} s in all.\n")
    print(md_table(["machine", ""], [
        ["CPU", m["cpu"]], ["cores", m["cores"]], ["RAM", f"{m.get('ram_gib', '?')} GiB"],
        ["Python", m["python"]], ["platform", m["platform"]],
        ["load average (1, 5, 15 min) at start / end",
         f"{m['load_avg_start']} / {m.get('load_avg_end')}"],
        ["packages", ", ".join(f"{k} {v}" for k, v in m["packages"].items())]]))
    imp = r.get("import")
    if imp:
        print("\n### 1. Import\n")
        print(md_table(["measure", f"median of {imp['runs']} fresh processes", "target", ""], [
            ["`import llmcourse` (core)", f"{imp['core_import_s'] * 1e3:.1f} ms",
             f"< {TARGET_IMPORT_MS} ms", ok(imp["core_ok"])],
            ["pandas / matplotlib / ipywidgets / numpy imported by the core",
             ", ".join(imp["heavy_after_core"]) or "none", "none", ok(imp["lazy_ok"])],
            ["`import llmcourse.widgets` (after the core)", f"{imp['widgets_import_s'] * 1e3:.1f} ms",
             "-", ""],
            [f"then the first explorer, cold (`{imp.get('first_explorer')}`: imports ipywidgets, "
             "matplotlib; first figure)", f"{imp.get('first_explorer_s', float('nan')) * 1e3:.0f} ms",
             "-", ""],
            ["whole process: interpreter + all of the above",
             f"{imp['process_s'] * 1e3:.1f} ms", "-", ""],
            ["bare interpreter `python -c pass`", f"{imp['bare_python_s'] * 1e3:.1f} ms", "-", ""]]))
    cnt = r.get("counts")
    if cnt:
        print(f"\n### 2. Counts (median µs per call, warm / cold; seq_len 8192, bf16; target "
              f"< {TARGET_COUNT_US} µs both)\n")
        print("Warm: the call again on a config counted before. Cold: the config's cache "
              "emptied before every call, so its tensor layout is built again (a new what-if).\n")
        keys = cnt.get("counts", ["param_count", "kv_cache_bytes", "flops_per_token",
                                  "flops_per_token_decode", "linear_state_bytes", "weight_bytes"])
        rows = [[n] + [f"{v[k] * 1e6:.1f} / {v[k + '_cold'] * 1e6:.1f}" for k in keys]
                + [f"{v['replace_then_param_count'] * 1e6:.0f}", ok(v["ok"])]
                for n, v in cnt["models"].items()]
        names = {"flops_per_token": "flops_per_token (prefill)",
                 "flops_per_token_decode": "flops_per_token (decode)"}
        print(md_table(["model"] + [names.get(k, k) for k in keys]
                       + ["replace + param_count (info)", ""], rows))
        ws = cnt["weight_shapes_deepseek_v3"]
        print(f"\n`weight_shapes(DeepSeek-V3)`: {ws['rows']:,} tensors in "
              f"{ws['seconds'] * 1e3:.0f} ms (median of {ws['repeat']}; no target).")
    tf = r.get("transformers")
    if tf and "models" in tf:
        print(f"\n### 3. transformers on the meta device (target: >= {TARGET_META_RATIO}x; "
              "counts equal)\n")
        rows = [[n, f"{v['param_count']:,}", "yes" if v["equal"] else "**NO**",
                 f"{v['warm_s'] * 1e3:.1f} ms", f"{v['fresh_s']:.2f} s" if "fresh_s" in v else "-",
                 f"{v['param_count_s'] * 1e6:.1f} µs", f"{v['ratio_warm']:,.0f}x",
                 f"{v['ratio_fresh']:,.0f}x" if "ratio_fresh" in v else "-", ok(v["ok"]),
                 f"{v['param_count_cold_s'] * 1e6:.1f} µs" if "param_count_cold_s" in v else "-",
                 f"{v['ratio_warm_cold']:,.0f}x" if "ratio_warm_cold" in v else "-"]
                for n, v in tf["models"].items()]
        print(md_table(["model", "parameters", "equal", "meta build, warm", "fresh process",
                        "param_count (warm)", "ratio warm", "ratio fresh", "",
                        "param_count, cold (info)", "ratio warm, cold count (info)"], rows))
    wid = r.get("widgets")
    if wid and wid.get("explorers"):
        print("\n### 4. Widget redraw, kernel side (median per change, figure included; "
              "no target: the reader's is end to end, section 6)\n")
        rows = []
        for n, v in wid["explorers"].items():
            if "median_s" not in v:
                rows.append([n, "-", "-", "-", "-", "-", v.get("error", "?"), "**ERROR**"])
                continue
            p = v.get("parts_median_s", {})
            rows.append([n, v["changes"], f"{v['median_s'] * 1e3:.1f}",
                         f"{v['cpu_median_s'] * 1e3:.1f}", f"{v['p90_s'] * 1e3:.1f}",
                         " / ".join(f"{p[k] * 1e3:.1f}" if k in p else "-"
                                    for k in ("compute", "draw", "render", "encode", "publish")),
                         f"{v['slowest_control'][0]} {v['slowest_control'][1] * 1e3:.1f}",
                         ok(v["ok"])])
        print(md_table(["explorer", "changes", "median ms (wall)", "median ms (CPU)", "p90 ms",
                        "compute / draw / render / encode / publish ms", "slowest control (ms)", ""],
                       rows))
    course = r.get("course")
    if course and course.get("notebooks"):
        print(f"\n### 5. The whole course (target < {TARGET_COURSE_S} s)\n")
        rows = [[n, v.get("cells", "-"), f"{v['kernel_start_s']:.2f}" if "kernel_start_s" in v else "-",
                 f"{v['cells_s']:.2f}" if "cells_s" in v else "-", f"{v.get('run_s', v['total_s']):.2f}",
                 f"{v['shutdown_s']:.2f}" if "shutdown_s" in v else "-", f"{v['total_s']:.2f}",
                 "ok" if "error" not in v else "**FAILED**"] for n, v in course["notebooks"].items()]
        rows.append(["**total**", "", f"{course['kernel_start_s']:.2f}", f"{course['cells_s']:.2f}",
                     f"**{course.get('run_s', course['total_s']):.2f}**",
                     f"{course['shutdown_s']:.2f}", f"{course['total_s']:.2f}",
                     ok(course["ok"]) if course["ok"] is not None else "subset"])
        print(md_table(["notebook", "code cells", "kernel start s", "cells s",
                        "start + cells s (the target)", "shutdown s", "with shutdown s", ""],
                       rows))

    br = r.get("browser")
    if br and br.get("configs"):
        print(browser_tables(br))


def browser_tables(br):
    """Section 6: one table, an explorer per row, p50/p90 and the kernel split per
    configuration (renderer:density), and the floor."""
    out = [f"\n### 6. Redraw in the browser (key press to new figure painted; target p90 < "
           f"{TARGET_P90_MS} ms)\n"]
    fl = br["floor"]
    out.append(f"Load average {br['load_avg_start']} at the start, {br.get('load_avg_end')} at "
               f"the end; {br['changes']} key presses per explorer and configuration, in "
               f"interleaved rounds of {br['chunk']}. The floor, a bare slider swapping two "
               f"pre-rendered {fl['png_px'][0]}x{fl['png_px'][1]} PNGs: p50 "
               f"**{fl['p50_ms']:.0f} ms**, p90 **{fl['p90_ms']:.0f} ms**.\n")
    cfgs = list(br["configs"])
    head = ["explorer"]
    for c in cfgs:
        head += [f"{c} p50", f"{c} p90", f"{c} kernel: draw / render / encode ms"]
    rows = []
    for name in br["explorers"]:
        row = [name]
        for c in cfgs:
            m = br["configs"][c]["explorers"].get(name)
            if m is None:
                row += ["-", "-", "-"]
                continue
            if "error" in m:
                row += ["-", "**no redraw**", m["error"]]
                continue
            k = m.get("kernel_ms", {})
            p90 = f"{m['p90_ms']:.0f}"
            row += [f"{m['p50_ms']:.0f}", p90 if m["p90_ms"] < TARGET_P90_MS else f"**{p90}**",
                    " / ".join(f"{k[p]:.1f}" if p in k else "-"
                               for p in ("draw", "render", "encode"))]
        rows.append(row)
    out.append(md_table(head, rows))
    return "\n".join(out)


if __name__ == "__main__":
    main(sys.argv[1])
