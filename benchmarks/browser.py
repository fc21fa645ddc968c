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

Each *configuration* is a renderer and a pixel density of the explorer figures. All
configurations' explorers and the floor sit on one JupyterLab page in one kernel and are
measured in interleaved rounds, so a change in the machine's load (a shared 2-core
machine) touches each alike. Used by ``benchmarks/run.py`` (section 6, ``--only
browser``) and runnable alone::

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

TARGET_P90_MS = 100  # a key press to the new figure painted, p90
FLOOR = "floor"  # the bare slider swapping two PNGs

# the configurations a full run compares: renderer, explorer pixel density
DEFAULT_CONFIGS = ("fast:1", "public:1", "public:2")

_MEASURE_JS = r"""
([img, handle, error]) => {
  const before = img.getAttribute('src');
  window.__lcRedraw = new Promise((resolve, reject) => {
    let t0 = null;
    // no new figure (the same PNG bytes are not sent again): give up on this press
    const timer = setTimeout(() => { obs.disconnect(); errs.disconnect();
                                     resolve({timeout: true}); }, 5000);
    handle.addEventListener('keydown', () => { t0 = performance.now(); },
                            {once: true, capture: true});
    const painted = () => requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve({ms: performance.now() - t0, width: img.naturalWidth, height: img.naturalHeight});
    });
    const obs = new MutationObserver(() => {
      if (img.getAttribute('src') === before) return;
      obs.disconnect(); errs.disconnect();
      if (img.complete && img.naturalWidth > 0) painted();
      else img.addEventListener('load', painted, {once: true});
    });
    obs.observe(img, {attributes: true, attributeFilter: ['src']});
    // an impossible setting (e.g. fewer heads than KV heads) shows a message, no figure
    const errs = new MutationObserver(() => {
      if (!error || !error.innerText.trim()) return;
      obs.disconnect(); errs.disconnect(); clearTimeout(timer);
      resolve({error: error.innerText.trim()});
    });
    if (error) errs.observe(error, {childList: true, subtree: true, characterData: true});
  });
}
"""


def quantile(xs, q):
    """The q-quantile by linear interpolation (statistics' 'inclusive' method)."""
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0]
    return statistics.quantiles(xs, n=100, method="inclusive")[round(q * 100) - 1]


def notebook_cells(variants):
    """One notebook: an explorer per (name, renderer, density) variant, each wrapped in
    its own CSS class ``lc-bench-<i>``, then the floor (``lc-bench-floor``)."""
    cells = [("code", "import llmcourse as lc\n"
                      "import llmcourse.widgets as W\n"
                      "from llmcourse.plots import style\n"
                      "EX = {}")]
    for i, (name, renderer, density) in enumerate(variants):
        cells.append(("code", (
            f"style.RENDERER, style.EXPLORER_DENSITY = {renderer!r}, {density!r}\n"
            f"EX[{i}] = W.EXPLORERS[{name!r}]()\n"
            f"EX[{i}].widget.add_class('lc-bench-{i}')\n"
            f"EX[{i}]")))
    # the floor: two PNGs of the kv_cache explorer's figure, swapped by a bare slider
    cells.append(("code", (
        "import ipywidgets as ipw\n"
        "style.RENDERER, style.EXPLORER_DENSITY = 'public', 1\n"
        "_src = W.EXPLORERS['kv_cache']()\n"
        "_pngs = [_src.image.value]\n"
        "_c = next(c for c in _src.controls.values() if isinstance(c, ipw.SelectionSlider))\n"
        "_c.index = 1 if _c.index == 0 else _c.index - 1\n"
        "_pngs.append(_src.image.value)\n"
        "_slider = ipw.IntSlider(value=0, min=0, max=40, description='floor',\n"
        "                        continuous_update=False)\n"
        "_img = ipw.Image(value=_pngs[0], format='png', width=_src.image.width,\n"
        "                 layout=ipw.Layout(max_width='100%', height='auto'))\n"
        "_slider.observe(lambda ch: setattr(_img, 'value', _pngs[ch['new'] % 2]), 'value')\n"
        "_slider.add_class('lc-control-value')\n"
        "_slider.add_class('widget-slider')\n"
        "_img.add_class('lc-figure')\n"
        "_floor = ipw.VBox([_slider, _img])\n"
        "_floor.add_class('lc-bench-floor')\n"
        "_floor")))
    return cells


class Target:
    """One explorer (or the floor) on the page: its first slider and its figure."""

    def __init__(self, page, css):
        self.page, self.css = page, css
        root = page.locator(f".{css}").first
        root.wait_for(timeout=300_000)
        # every slider of the explorer, in the order shown: the first whose press draws a
        # new figure is timed (a slider may change only the table, e.g. `compute`'s
        # sequence length beside its pipeline-schedule figure)
        self.keys = page.evaluate("""(css) => {
            const root = document.querySelector('.' + css);
            const keys = [];
            for (const c of root.querySelectorAll('[class*="lc-control-"]')) {
              if (c.querySelector('.noUi-handle'))
                keys.push([...c.classList].find(k => k.startsWith('lc-control-')).slice(11));
            }
            return keys;
        }""", css)
        if not self.keys:
            raise RuntimeError(f"{css}: no slider control")
        self.root = root
        self._use(0)
        self.img = root.locator("img.lc-figure, .lc-figure img").first
        err = root.locator(".lc-error")
        self.error = err.first.element_handle() if err.count() else None
        self.direction = "ArrowRight"
        self.ms, self.size, self.skipped, self.unchanged = [], None, 0, 0

    def _use(self, i):
        self.slider = i
        self.key = self.keys[i]
        self.handle = self.root.locator(f".lc-control-{self.key} .noUi-handle").first

    def press(self, n, record=True):
        """``n`` key presses, sweeping back and forth across the slider's range."""
        self.img.evaluate("e => e.scrollIntoView({block: 'center'})")
        self.handle.focus()
        done = 0
        for _ in range(3 * n):
            if done == n:
                break
            now, lo, hi = (float(self.handle.get_attribute(a)) for a in
                           ("aria-valuenow", "aria-valuemin", "aria-valuemax"))
            if self.direction == "ArrowRight" and now >= hi:
                self.direction = "ArrowLeft"
            elif self.direction == "ArrowLeft" and now <= lo:
                self.direction = "ArrowRight"
            self.page.evaluate(_MEASURE_JS, [self.img.element_handle(),
                                             self.handle.element_handle(), self.error])
            self.handle.press(self.direction)
            r = self.page.evaluate("() => window.__lcRedraw")
            if "timeout" in r:  # the figure did not change at all: not a redraw to time
                self.unchanged += 1
                if not self.ms and self.slider + 1 < len(self.keys):
                    self._use(self.slider + 1)  # this slider moves only the table
                    self.handle.focus()
                continue
            if "error" in r:  # an impossible setting: turn back, do not count it
                self.direction = "ArrowLeft" if self.direction == "ArrowRight" else "ArrowRight"
                self.skipped += 1
                continue
            if record:
                self.ms.append(r["ms"])
            done += 1
            self.size = (r["width"], r["height"])

    def result(self):
        out = {"control": self.key, "ms": self.ms, "png_px": self.size,
               "impossible_settings_skipped": self.skipped,
               "presses_without_new_figure": self.unchanged}
        if not self.ms:  # every press was refused or drew nothing new: nothing to time
            out["error"] = (f"no redraw timed on {self.key!r}: {self.skipped} impossible "
                            f"settings, {self.unchanged} presses without a new figure")
            return out
        return {**out, "p50_ms": statistics.median(self.ms), "p90_ms": quantile(self.ms, 0.9),
                "max_ms": max(self.ms)}


def kernel_split(lab, rel_path):
    """Median compute / draw / render / encode / publish / total ms per variant, from
    the explorers' ``timing_log`` in the notebook's own kernel (the first 4 updates of
    each, its build and warm-up, left out)."""
    from jupyter_client import BlockingKernelClient
    sess = [s for s in lab.request("GET", "/api/sessions") or []
            if s.get("path", "").endswith(rel_path)]
    if not sess:
        return {}
    kid = sess[0]["kernel"]["id"]
    files = list(Path(lab.env["JUPYTER_RUNTIME_DIR"]).rglob(f"kernel-{kid}.json"))
    if not files:
        return {}
    kc = BlockingKernelClient(connection_file=str(files[0]))
    kc.load_connection_file()
    kc.start_channels()
    out = []
    try:
        kc.wait_for_ready(timeout=60)
        code = ("import json as _j, statistics as _st\n"
                "print(_j.dumps({i: {k: _st.median([t[k] for t in list(e.timing_log)[4:] if k in t])"
                " for k in ('compute', 'draw', 'render', 'encode', 'publish', 'total')"
                " if any(k in t for t in list(e.timing_log)[4:])} for i, e in EX.items()}))")
        kc.execute_interactive(code, timeout=60, output_hook=lambda m: out.append(
            m["content"]["text"]) if m["msg_type"] == "stream" else None)
    finally:
        kc.stop_channels()
    return {int(k): v for k, v in json.loads("".join(out).strip().splitlines()[-1]).items()}


def bench_browser(changes=24, configs=DEFAULT_CONFIGS, chunk=4):
    """Every explorer in every configuration ("renderer:density") and the floor, on one
    JupyterLab page, measured in interleaved rounds of ``chunk`` key presses each, so a
    change in the machine's load touches every configuration alike."""
    import browser_helpers as bh
    from playwright.sync_api import sync_playwright

    import llmcourse.widgets as W
    names = sorted(W.EXPLORERS)
    configs = [(c.split(":")[0], int(c.split(":")[1])) for c in configs]
    variants = [(n, r, d) for n in names for r, d in configs]
    work = Path(tempfile.mkdtemp(prefix="llmcourse-bench-"))
    lab = None
    res = {"changes": changes, "chunk": chunk, "explorers": names,
           "configs": {f"{r}:{d}": {"renderer": r, "density": d, "explorers": {}}
                       for r, d in configs},
           "load_avg_start": _loadavg()}
    try:
        env = bh.isolated_jupyter_env(work / "jupyter")
        lab_root = work / "lab"
        lab_root.mkdir()
        lab = bh.start_lab(lab_root, env, work / "jupyterlab.log", token=secrets.token_hex(24))
        rel = "bench_redraw.ipynb"
        nb = bh.write_notebook(lab_root / rel, notebook_cells(variants))
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=bh.CHROMIUM, headless=True,
                                         args=bh.CHROMIUM_ARGS)
            context = browser.new_context(viewport=bh.LAB_VIEWPORT, device_scale_factor=1)
            page = context.new_page()
            page.set_default_timeout(bh.UPDATE_MS)
            try:
                book = bh.LabNotebook(page, lab, rel, "bench")
                book.run_all(bh.code_cell_count(nb))
                problems = bh.problems(page, ".jp-Notebook")
                if problems:
                    res["problems"] = problems
                targets = {i: Target(page, f"lc-bench-{i}") for i in range(len(variants))}
                targets[FLOOR] = Target(page, "lc-bench-floor")
                for t in targets.values():
                    t.press(2, record=False)  # warm-up: first draws of new tick labels
                for _ in range(-(-changes // chunk)):
                    for t in targets.values():
                        t.press(chunk)
                split = kernel_split(lab, rel)
            finally:
                context.close()
                browser.close()
        for i, (name, r, d) in enumerate(variants):
            m = targets[i].result()
            if i in split:
                m["kernel_ms"] = {k: v * 1e3 for k, v in split[i].items()}
            res["configs"][f"{r}:{d}"]["explorers"][name] = m
        res["floor"] = targets[FLOOR].result()
    finally:
        if lab is not None:
            lab.stop()
        shutil.rmtree(work, ignore_errors=True)
    res["load_avg_end"] = _loadavg()
    print_results(res)
    return res


def _loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def print_results(res):
    from run import table  # the benchmark's plain-table printer
    print(f"load average {res['load_avg_start']} -> {res.get('load_avg_end')}; "
          f"{res['changes']} key presses per explorer and configuration, in interleaved "
          f"rounds of {res['chunk']}")
    fl = res["floor"]
    print(f"floor (a bare slider swapping two pre-rendered {fl['png_px'][0]}x{fl['png_px'][1]} "
          f"PNGs): p50 {fl['p50_ms']:.0f} ms, p90 {fl['p90_ms']:.0f} ms")
    for cfg, c in res["configs"].items():
        print(f"\n-- renderer {c['renderer']}, explorer figures at {c['density']}x")
        rows = []
        for name, m in c["explorers"].items():
            if "error" in m:
                rows.append([name, m["control"], 0, "-", "-", "-", m["error"], "ERROR"])
                continue
            k = m.get("kernel_ms", {})
            split = " / ".join(f"{k[p]:.1f}" if p in k else "-"
                               for p in ("compute", "draw", "render", "encode", "publish"))
            rows.append([name, m["control"], len(m["ms"]), f"{m['p50_ms']:.0f}",
                         f"{m['p90_ms']:.0f}", "x".join(map(str, m["png_px"])), split,
                         "PASS" if m["p90_ms"] < TARGET_P90_MS else "MISS"])
        table(["explorer", "key pressed on", "changes", "p50 ms", "p90 ms", "PNG px",
               "kernel: compute / draw / render / encode / publish ms",
               f"p90 < {TARGET_P90_MS}"], rows)
    if res.get("problems"):
        print("PROBLEMS on the page: " + "; ".join(res["problems"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--changes", type=int, default=24)
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                    help="renderer:density,... (renderer: fast, as shipped; public)")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    res = bench_browser(args.changes, tuple(args.configs.split(",")))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
