"""Redraw as the reader sees it: a key pressed on a control until the new figure is painted.

For every registered explorer, in JupyterLab in headless Chromium: focus a slider's
handle, press an arrow key, and time (in the page, ``performance.now()``) from the
``keydown`` event until the figure's ``<img>`` has a new ``src``, the image is complete
(loaded and decoded), and one ``requestAnimationFrame`` has passed (the frame that
paints it). Between the two lie the widget message to the kernel, the kernel's compute,
draw and PNG encoding, the message back, and the browser decoding and painting the PNG.

Beside the explorers, the floor of ipywidgets itself: a bare slider whose observer swaps
an ``Image`` between two PNGs rendered beforehand (the size of an explorer's figure),
measured the same way. The kernel-side split (compute, draw, render, encode, publish)
comes from each explorer's ``timing_log``, read from the notebook's kernel afterwards.

Each *configuration* (a renderer and a pixel density of the explorer figures) gets a
fresh notebook and kernel. Used by ``benchmarks/run.py`` (section 6, ``--only browser``)
and runnable alone::

    python benchmarks/browser.py --changes 24 --configs public:1,fast:1 --json out.json

Needs what the browser tests need: ``/usr/bin/chromium`` and the ``playwright`` package.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_P90_MS = 200
FLOOR = "floor"  # the bare slider swapping two PNGs

# the configurations a full run compares: renderer, explorer pixel density
DEFAULT_CONFIGS = ("public:1", "public:2", "fast:1")

_MEASURE_JS = r"""
([img, handle]) => {
  const before = img.getAttribute('src');
  window.__lcRedraw = new Promise((resolve, reject) => {
    let t0 = null;
    const timer = setTimeout(() => reject(new Error('no new figure within 60 s')), 60000);
    handle.addEventListener('keydown', () => { t0 = performance.now(); },
                            {once: true, capture: true});
    const painted = () => requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve({ms: performance.now() - t0, width: img.naturalWidth, height: img.naturalHeight});
    });
    const obs = new MutationObserver(() => {
      if (img.getAttribute('src') === before) return;
      obs.disconnect();
      if (img.complete && img.naturalWidth > 0) painted();
      else img.addEventListener('load', painted, {once: true});
    });
    obs.observe(img, {attributes: true, attributeFilter: ['src']});
  });
}
"""


def quantile(xs, q):
    """The q-quantile by linear interpolation (statistics' 'inclusive' method)."""
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0]
    return statistics.quantiles(xs, n=100, method="inclusive")[round(q * 100) - 1]


def notebook_cells(renderer, density, names):
    setup = ("import json\n"
             "import llmcourse as lc\n"
             "import llmcourse.widgets as W\n"
             "from llmcourse.plots import style\n"
             f"style.RENDERER = {renderer!r}\n"
             f"style.EXPLORER_DENSITY = {density!r}\n"
             "EX = {}")
    cells = [("code", setup)]
    for name in names:
        cells.append(("code", f"EX[{name!r}] = W.EXPLORERS[{name!r}]()\nEX[{name!r}]"))
    # the floor: two PNGs of the kv_cache explorer's figure, swapped by a bare slider
    cells.append(("code", (
        "import ipywidgets as ipw\n"
        "_src = W.EXPLORERS['kv_cache']()\n"
        "_pngs = [_src.image.value]\n"
        "_key = next(k for k, c in _src.controls.items() if isinstance(c, ipw.SelectionSlider))\n"
        "_c = _src.controls[_key]\n"
        "_c.value = [v for v in _c.options if v != _c.value][0]\n"
        "_pngs.append(_src.image.value)\n"
        "_slider = ipw.IntSlider(value=0, min=0, max=40, description='floor',\n"
        "                        continuous_update=False)\n"
        "_img = ipw.Image(value=_pngs[0], format='png', width=_src.image.width,\n"
        "                 layout=ipw.Layout(max_width='100%', height='auto'))\n"
        "_slider.observe(lambda ch: setattr(_img, 'value', _pngs[ch['new'] % 2]), 'value')\n"
        "_slider.add_class('lc-control-value'); _img.add_class('lc-figure')\n"
        f"_floor = ipw.VBox([_slider, _img]); _floor.add_class('lc-explorer-{FLOOR}')\n"
        "_floor")))
    return cells


def _slider_key(page, name):
    """The first slider control of an explorer on the page."""
    return page.evaluate("""(name) => {
        const root = document.querySelector('.lc-explorer-' + name);
        for (const c of root.querySelectorAll('[class*="lc-control-"]')) {
          if (c.classList.contains('widget-slider') && c.querySelector('.noUi-handle')) {
            return [...c.classList].find(k => k.startsWith('lc-control-')).slice(11);
          }
        }
        return null;
    }""", name)


def measure_explorer(page, name, changes):
    """``changes`` key presses on the explorer's first slider, sweeping back and forth
    across its range; the ms from keydown to the new figure painted, each."""
    key = _slider_key(page, name)
    if key is None:
        return {"error": "no slider control"}
    root = page.locator(f".lc-explorer-{name}").first
    handle = root.locator(f".lc-control-{key} .noUi-handle").first
    img = root.locator("img.lc-figure, .lc-figure img").first
    img.evaluate("e => e.scrollIntoView({block: 'center'})")
    handle.focus()
    times, size, direction = [], None, "ArrowRight"
    for _ in range(changes):
        now, lo, hi = (float(handle.get_attribute(a)) for a in
                       ("aria-valuenow", "aria-valuemin", "aria-valuemax"))
        if direction == "ArrowRight" and now >= hi:
            direction = "ArrowLeft"
        elif direction == "ArrowLeft" and now <= lo:
            direction = "ArrowRight"
        page.evaluate(_MEASURE_JS, [img.element_handle(), handle.element_handle()])
        handle.press(direction)
        r = page.evaluate("() => window.__lcRedraw")
        times.append(r["ms"])
        size = (r["width"], r["height"])
    return {"control": key, "ms": times, "png_px": size,
            "p50_ms": statistics.median(times), "p90_ms": quantile(times, 0.9),
            "max_ms": max(times)}


def kernel_split(lab, rel_path, names):
    """Median compute / draw / render / encode / publish ms per explorer, from the
    explorers' ``timing_log`` in the notebook's own kernel (all its updates since the
    page's Run All, the first few dropped as warm-up)."""
    from jupyter_client import BlockingKernelClient
    sess = [s for s in lab.request("GET", "/api/sessions") or []
            if s.get("path", "").endswith(rel_path)]
    if not sess:
        return {"error": "no session"}
    kid = sess[0]["kernel"]["id"]
    runtime = Path(lab.env["JUPYTER_RUNTIME_DIR"])
    files = list(runtime.rglob(f"kernel-{kid}.json"))
    if not files:
        return {"error": f"no connection file for kernel {kid} under {runtime}"}
    kc = BlockingKernelClient(connection_file=str(files[0]))
    kc.load_connection_file()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        out = []

        def hook(msg):
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])
        code = ("import statistics as _st\n"
                "print(json.dumps({n: {k: _st.median([t[k] for t in list(e.timing_log)[3:] if k in t])"
                " for k in ('compute', 'draw', 'render', 'encode', 'publish', 'total')"
                " if any(k in t for t in list(e.timing_log)[3:])} for n, e in EX.items()}))")
        kc.execute_interactive(code, output_hook=hook, timeout=60)
    finally:
        kc.stop_channels()
    return json.loads("".join(out).strip().splitlines()[-1])


def run_config(browser, lab, lab_root, renderer, density, names, changes):
    import browser_helpers as bh
    rel = f"bench_{renderer}_{density}x.ipynb"
    nb = bh.write_notebook(lab_root / rel, notebook_cells(renderer, density, names))
    context = browser.new_context(viewport=bh.LAB_VIEWPORT, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(bh.UPDATE_MS)
    res = {"renderer": renderer, "density": density, "load_avg_start": _loadavg(),
           "explorers": {}}
    try:
        book = bh.LabNotebook(page, lab, rel, f"bench-{renderer}-{density}")
        book.run_all(bh.code_cell_count(nb))
        problems = bh.problems(page, ".jp-Notebook")
        if problems:
            res["problems"] = problems
        for name in [*names, FLOOR]:
            bh.ExplorerView(page, name).root.wait_for(timeout=bh.RUN_ALL_MS)
            measure_explorer(page, name, 3)  # warm-up: first draws of new tick labels
            res["explorers"][name] = measure_explorer(page, name, changes)
        split = kernel_split(lab, rel, names)
        for name, parts in split.items():
            if name in res["explorers"]:
                res["explorers"][name]["kernel_ms"] = {k: v * 1e3 for k, v in parts.items()}
    finally:
        context.close()
        for s in lab.request("GET", "/api/sessions") or []:
            lab.request("DELETE", f"/api/sessions/{s['id']}")
    res["load_avg_end"] = _loadavg()
    return res


def _loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def bench_browser(changes=24, configs=DEFAULT_CONFIGS):
    """Run every configuration; returns the results (see ``print_results``)."""
    import browser_helpers as bh
    from playwright.sync_api import sync_playwright

    import llmcourse.widgets as W
    names = sorted(W.EXPLORERS)
    work = Path(tempfile.mkdtemp(prefix="llmcourse-bench-"))
    lab = None
    results = {"changes": changes, "configs": {}, "explorers": names}
    try:
        env = bh.isolated_jupyter_env(work / "jupyter")
        lab_root = work / "lab"
        lab_root.mkdir()
        lab = bh.start_lab(lab_root, env, work / "jupyterlab.log", token=secrets.token_hex(24))
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=bh.CHROMIUM, headless=True,
                                         args=bh.CHROMIUM_ARGS)
            try:
                for cfg in configs:
                    renderer, density = cfg.split(":")
                    results["configs"][cfg] = run_config(browser, lab, lab_root, renderer,
                                                         int(density), names, changes)
                    print_config(cfg, results["configs"][cfg])
            finally:
                browser.close()
    finally:
        if lab is not None:
            lab.stop()
        shutil.rmtree(work, ignore_errors=True)
    return results


def print_config(cfg, r):
    from run import table  # noqa: the benchmark's plain-table printer
    renderer, density = cfg.split(":")
    print(f"\n-- renderer {renderer}, explorer figures at {density}x "
          f"(load average {r['load_avg_start']} -> {r.get('load_avg_end')})")
    rows = []
    for name, m in r["explorers"].items():
        if "error" in m:
            rows.append([name, "-", "-", "-", "-", "-", m["error"]])
            continue
        k = m.get("kernel_ms", {})
        split = " / ".join(f"{k[p]:.1f}" if p in k else "-"
                           for p in ("compute", "draw", "render", "encode", "publish"))
        ok = "floor" if name == FLOOR else ("PASS" if m["p90_ms"] < TARGET_P90_MS else "MISS")
        rows.append([name, m["control"], len(m["ms"]), f"{m['p50_ms']:.0f}", f"{m['p90_ms']:.0f}",
                     "x".join(map(str, m["png_px"])), split, ok])
    table(["explorer", "key pressed on", "changes", "p50 ms", "p90 ms", "PNG px",
           "kernel: compute / draw / render / encode / publish ms", f"p90 < {TARGET_P90_MS}"],
          rows)
    if r.get("problems"):
        print("PROBLEMS on the page: " + "; ".join(r["problems"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--changes", type=int, default=24)
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                    help="renderer:density,... (renderer: public or fast)")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    res = bench_browser(args.changes, tuple(args.configs.split(",")))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
