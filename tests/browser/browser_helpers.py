"""Machinery for the real-browser tests: servers, Chromium, and a driver for explorers.

Nothing here knows about a particular notebook; the per-notebook table lives in
``test_notebooks.py``. Waits are generous (a loaded 2-core CI machine) and every
wait is on a condition, never a fixed sleep.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
SCREENSHOTS = REPO / "artifacts" / "screenshots"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LAB_VIEWPORT = {"width": 1280, "height": 800}
PROJECTOR_VIEWPORT = {"width": 1280, "height": 720}

# Timeouts. Generous, because a loaded CI machine is slow; each is a bound on a
# condition wait, so a fast machine does not pay for them.
SERVER_START_S = 120
PAGE_LOAD_MS = 120_000
RUN_ALL_MS = 240_000
RUN_ALL_START_MS = 60_000
UPDATE_MS = 45_000


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lecture_default() -> str:
    """The notebook `make lecture` opens (the Makefile's ``LAB ?=`` line)."""
    text = (REPO / "Makefile").read_text()
    m = re.search(r"^LAB\s*\?=\s*(\S+)", text, re.M)
    return Path(m.group(1)).name if m else "08_whatif_lab.ipynb"


# --- notebooks ----------------------------------------------------------------------

def strip_outputs(path: Path) -> int:
    """Clear outputs, prompts and saved widget state, so whatever shows after Run All
    came from the live kernel. Returns the number of code cells."""
    nb = json.loads(path.read_text())
    n = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            n += 1
            cell["outputs"] = []
            cell["execution_count"] = None
    nb.get("metadata", {}).pop("widgets", None)
    path.write_text(json.dumps(nb, indent=1))
    return n


def code_cell_count(path: Path) -> int:
    return sum(c.get("cell_type") == "code" for c in json.loads(path.read_text())["cells"])


def has_stored_outputs(path: Path) -> bool:
    try:
        nb = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return any(c.get("outputs") for c in nb.get("cells", []) if c.get("cell_type") == "code")


def write_notebook(path: Path, cells: list[tuple[str, str]]) -> Path:
    """A small notebook from (kind, source) pairs; kind is "code" or "markdown"."""
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}},
          "cells": []}
    for i, (kind, src) in enumerate(cells):
        cell = {"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": src}
        if kind == "code":
            cell.update(outputs=[], execution_count=None)
        nb["cells"].append(cell)
    path.write_text(json.dumps(nb, indent=1))
    return path


# --- servers ------------------------------------------------------------------------

def isolated_jupyter_env(base: Path) -> dict:
    """Environment for a Jupyter server that reads nothing from the user's home:
    a temporary config dir (JupyterLab's news/announcements plugin disabled, no
    build check), settings, workspaces, runtime and IPython dirs."""
    config, settings = base / "config", base / "lab-settings"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps({
        "disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True},
        "buildCheck": False, "buildAvailable": False}))
    notif = settings / "@jupyterlab" / "apputils-extension"
    notif.mkdir(parents=True, exist_ok=True)
    (notif / "notification.jupyterlab-settings").write_text(json.dumps(
        {"fetchNews": "false", "checkForUpdates": False}))
    for d in ("workspaces", "runtime", "ipython"):
        (base / d).mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(JUPYTER_CONFIG_DIR=str(config), JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
               JUPYTER_RUNTIME_DIR=str(base / "runtime"), IPYTHONDIR=str(base / "ipython"),
               JUPYTER_PLATFORM_DIRS="1", PYTHONUNBUFFERED="1")
    env.pop("JUPYTER_TOKEN", None)
    return env


def _die_with_parent():
    """In the child: get SIGTERM if pytest itself is killed (Linux), so no server outlives
    a CI job that timed out. Elsewhere the fixtures' finally blocks do the work."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _children(pid: int) -> list[int]:
    """All descendants of ``pid`` (Linux /proc; empty elsewhere)."""
    parent = {}
    for p in Path("/proc").glob("[0-9]*"):
        try:
            fields = (p / "stat").read_text().rsplit(")", 1)[1].split()
            parent[int(p.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    out, todo = [], [pid]
    while todo:
        cur = todo.pop()
        kids = [c for c, pp in parent.items() if pp == cur]
        out += kids
        todo += kids
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie is not alive
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z")
    except OSError:
        return True


@dataclass
class Server:
    """A Jupyter-family server process on a free localhost port."""
    name: str
    argv: list
    env: dict
    cwd: Path
    log: Path
    port: int = 0
    url: str = ""
    token: str = ""
    proc: subprocess.Popen | None = None
    ready_path: str | None = "/"  # None: the port accepting connections is enough

    def start(self, make_argv: Callable[[int], list], attempts: int = 3):
        """Start on a free port and wait until it answers (retry if the port was taken)."""
        last = ""
        for _ in range(attempts):
            self.port = free_port()
            self.argv = make_argv(self.port)
            self.url = f"http://127.0.0.1:{self.port}"
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(self.argv, env=self.env, cwd=self.cwd, stdout=log,
                                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             start_new_session=True, preexec_fn=_die_with_parent)
            if self._wait_ready():
                return self
            last = self.log_tail()
            self.stop()
        raise RuntimeError(f"{self.name} did not start; log tail:\n{last}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + SERVER_START_S
        url = None
        if self.ready_path is not None:
            sep = "&" if "?" in self.ready_path else "?"
            url = self.url + self.ready_path + (f"{sep}token={self.token}" if self.token else "")
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if url is None:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=5):
                        return True
                with urllib.request.urlopen(url, timeout=5) as r:
                    if r.status == 200:
                        return True
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)  # polling interval of a readiness loop, not an assertion
        return False

    def request(self, method: str, path: str, timeout: float = 10):
        req = urllib.request.Request(self.url + path, method=method)
        if self.token:
            req.add_header("Authorization", f"token {self.token}")
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
        return json.loads(body) if body else None

    def stop(self):
        """Stop the server and anything it started (kernels), whatever state it is in."""
        p = self.proc
        if p is None:
            return
        kids = _children(p.pid) if p.poll() is None else []
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)  # Jupyter server and Voila shut their kernels down
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)
        deadline = time.monotonic() + 10
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for k in kids:
                if _alive(k):
                    with contextlib.suppress(OSError):
                        os.kill(k, sig)
            while time.monotonic() < deadline and any(_alive(k) for k in kids):
                time.sleep(0.1)
        self.proc = None

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


def start_lab(root: Path, env: dict, log: Path, token: str) -> Server:
    srv = Server("JupyterLab", [], env, root, log, token=token, ready_path="/api/status")
    return srv.start(lambda port: [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
        f"--port={port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=", "--ServerApp.shutdown_no_activity_timeout=0"])


def start_voila(target: Path, env: dict, log: Path) -> Server:
    """``voila TARGET --theme=light`` as `make lecture` runs it (TARGET: a notebook or a dir)."""
    cwd = target if target.is_dir() else target.parent
    # a GET of a notebook's page would run it: wait for the port instead
    srv = Server("Voila", [], env, cwd, log, ready_path=None)
    return srv.start(lambda port: [
        sys.executable, "-m", "voila", str(target), "--theme=light", "--no-browser",
        f"--port={port}", "--Voila.port_retries=0", "--Voila.ip=127.0.0.1"])


# --- the page -----------------------------------------------------------------------

# What a reader must never see in an output. Widgets shown as their repr mean the
# widget JavaScript did not render them.
_PROBLEMS_JS = r"""
(root) => {
  const scope = root ? document.querySelector(root) : document;
  const out = [];
  if (!scope) return out;
  // in lecture mode (a Voila page) an exercise says nothing until it is answered
  const lecture = document.body && document.body.hasAttribute('data-voila');
  const exercise = /^\s*\[[\w.-]+\] (No answer yet|Not yet|Right\.)/;
  const asText = /^\s*(VBox|HBox|Box|GridBox|IntSlider|FloatSlider|SelectionSlider|IntRangeSlider|Dropdown|IntText|FloatText|BoundedIntText|Text|HTML|HTMLMath|Label|Image|Output|Button|ToggleButtons|RadioButtons|Checkbox|Tab|Accordion|interactive)\(/;
  for (const o of scope.querySelectorAll('.jp-OutputArea-output')) {
    const mime = o.getAttribute('data-mime-type') || '';
    const text = (o.innerText || '').trim();
    if (mime.includes('stderr'))
      out.push('error/stderr output: ' + text.slice(0, 600));
    else if (/Traceback \(most recent call last\)|There was an error when executing cell/.test(text))
      out.push('traceback shown: ' + text.slice(0, 600));
    if (asText.test(text)) out.push('widget shown as text, not rendered: ' + text.slice(0, 200));
    if (lecture && exercise.test(text))
      out.push('exercise prompt in lecture mode: ' + text.slice(0, 200));
    if (/Error displaying widget|Loading widget\.\.\.|model not found/i.test(text))
      out.push('widget failed to render: ' + text.slice(0, 200));
  }
  return [...new Set(out)];
}
"""

_PROMPTS_JS = r"""
() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')].map(
  c => ((c.querySelector('.jp-InputArea-prompt') || {}).textContent || '').trim())
"""

_RUN_STARTED_JS = "(ps) => ps.some(p => /^\\[(\\*|\\d+)\\]:$/.test(p))"
_RUN_DONE_JS = r"""
(n) => {
  const ps = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')].map(
    c => ((c.querySelector('.jp-InputArea-prompt') || {}).textContent || '').trim());
  const idle = document.querySelector(".jp-Notebook-ExecutionIndicator[data-status='idle']");
  return idle && ps.length > 0 && (n === null || ps.length >= n)
    && !ps.some(p => p === '[*]:') && ps.some(p => /^\[\d+\]:$/.test(p));
}
"""


def problems(page, root: str | None = None) -> list[str]:
    """Error outputs, tracebacks and widgets that did not render, as readable lines; on a
    Voila page (lecture mode) also any exercise prompt ("[kv-2] No answer yet ...")."""
    return page.evaluate(_PROBLEMS_JS, root)


def page_text(page) -> str:
    """Every piece of text in the page's document, as a reader could reach it: what is on
    screen and what one click shows (a collapsed ``<details>``), scripts and styles left out."""
    page.wait_for_load_state("load", timeout=RUN_ALL_MS)  # Voila streams the page cell by cell
    return page.evaluate("""() => {
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {acceptNode:
        n => n.parentElement && n.parentElement.closest('script, style, template, noscript')
          ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
      const out = [];
      while (walk.nextNode()) out.push(walk.currentNode.nodeValue);
      return out.join(' ');
    }""")


def popups(page) -> list[str]:
    """Dialogs and toasts that would cover the content."""
    return page.evaluate("""() => [...document.querySelectorAll(
        '.jp-Dialog, .Toastify__toast, .jp-Notification-Toast')].filter(
        e => e.offsetParent !== null).map(e => (e.innerText || '').slice(0, 200))""")


class LabNotebook:
    """One notebook opened in JupyterLab in a page."""

    def __init__(self, page, lab: Server, rel_path: str, workspace: str):
        self.page, self.lab, self.rel_path = page, lab, rel_path
        from urllib.parse import quote
        page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{quote(rel_path)}"
                  f"?reset&token={lab.token}", timeout=PAGE_LOAD_MS)
        page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(timeout=PAGE_LOAD_MS)
        self.wait_kernel_ready()

    def wait_kernel_ready(self):
        """The notebook's kernel has started (server side) and the page shows it idle.
        (The page shows "idle" for a moment before the kernel even starts.)"""
        deadline = time.monotonic() + PAGE_LOAD_MS / 1000
        while time.monotonic() < deadline:
            sessions = [s for s in self.lab.request("GET", "/api/sessions") or []
                        if s.get("path", "").endswith(self.rel_path)]
            if sessions and (sessions[0].get("kernel") or {}).get("execution_state") == "idle":
                break
            self.page.wait_for_timeout(250)  # polling interval, not an assertion
        else:
            raise AssertionError(
                f"no idle kernel for {self.rel_path} after {PAGE_LOAD_MS // 1000} s")
        self.page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
            state="attached", timeout=PAGE_LOAD_MS)

    def prompts(self) -> list[str]:
        return self.page.evaluate(_PROMPTS_JS)

    def run_all(self, n_code_cells: int | None = None):
        """Run > Run All Cells, as a reader does; wait until the run has finished.
        Right after the page opens the kernel may not be attached and the command
        may do nothing, so it is repeated until a cell starts."""
        from playwright.sync_api import TimeoutError as PWTimeout
        page = self.page
        if n_code_cells is not None:  # JupyterLab attaches a long notebook's cells bit by bit
            page.wait_for_function(f"(n) => ({_PROMPTS_JS})().length >= n", arg=n_code_cells,
                                   timeout=PAGE_LOAD_MS)
        for attempt in range(RUN_ALL_START_MS // 4000):
            page.locator(".lm-MenuBar-itemLabel:text-is('Run')").click()
            page.locator(".lm-Menu-itemLabel:text-is('Run All Cells')").click()
            try:
                page.wait_for_function(f"() => ({_RUN_STARTED_JS})(({_PROMPTS_JS})())",
                                       timeout=4000)
                break
            except PWTimeout:
                page.keyboard.press("Escape")
        else:
            raise AssertionError("Run All Cells did not start a single cell (kernel not attached?)")
        page.wait_for_function(_RUN_DONE_JS, arg=n_code_cells, timeout=RUN_ALL_MS, polling=250)
        prompts = self.prompts()
        if n_code_cells is not None:
            assert len(prompts) == n_code_cells, (
                f"JupyterLab shows {len(prompts)} code cells, the notebook has {n_code_cells}")
        unrun = [i for i, p in enumerate(prompts) if not re.fullmatch(r"\[\d+\]:", p)]
        assert not unrun, (f"cells {unrun} did not run (an earlier cell failed?); problems: "
                           f"{problems(page)}")

    def scroll_to(self, locator, block: str = "start"):
        locator.evaluate(f"e => e.scrollIntoView({{block: '{block}'}})")


# --- explorers ----------------------------------------------------------------------

@dataclass
class Invalid:
    """A setting the engine rejects: type/pick ``value`` into ``control``; ``engine``
    is the engine call that raises the same ValueError (its message is what the
    reader must see)."""
    control: str
    value: Any
    engine: Callable[[], Any]


@dataclass
class ExplorerCheck:
    """One explorer in a notebook and what a person does with it.

    ``control``/``value``: the change (a slider is moved with the keyboard, a
    dropdown is picked, a box is typed into; ``value`` as shown on screen).
    ``key``: the summary row whose exact value must become ``expect()``, the
    engine's value for the new setting. ``invalid``: a setting that must show the
    one-line message (None with ``no_invalid`` saying why none is reachable)."""
    explorer: str
    control: str
    value: Any
    key: str
    expect: Callable[[], Any]
    invalid: Invalid | None = None
    no_invalid: str = ""
    nth: int = 0
    steps: list = field(default_factory=list)  # (control, value) changes made first


@dataclass
class NotebookSpec:
    notebook: str
    explorers: list[ExplorerCheck]

    @property
    def stem(self):
        return Path(self.notebook).stem

    def __str__(self):
        return self.stem


def engine_message(call: Callable[[], Any]) -> str:
    """The one-line message of the ValueError the engine raises for a bad setting."""
    try:
        call()
    except ValueError as e:
        return str(e)
    raise AssertionError("the spec's invalid setting is accepted by the engine; pick another")


class ExplorerView:
    """An explorer as a person sees it on the page (see llmcourse/widgets/base.py)."""

    def __init__(self, page, name: str, nth: int = 0):
        self.page, self.name = page, name
        self.root = page.locator(f".lc-explorer-{name}").nth(nth)

    def wait_rendered(self, timeout=RUN_ALL_MS):
        self.root.locator(".lc-summary td[data-key]").first.wait_for(timeout=timeout)
        return self

    def cell(self, key):
        return self.root.locator(f".lc-summary td[data-key='{key}']")

    def value(self, key) -> str:
        c = self.cell(key)
        assert c.count() == 1, f"{self.name}: {c.count()} summary cells with data-key={key!r}"
        return c.get_attribute("data-value")

    def text(self, key) -> str:
        # innerText is empty for a cell JupyterLab has not rendered (far from the viewport
        # after Run All): bring it into view first, as a person would scroll to read it
        from playwright.sync_api import Error
        for attempt in range(3):   # the table is one HTML value: a redraw replaces its cells
            c = self.cell(key)
            try:
                c.scroll_into_view_if_needed()
                return c.inner_text().strip()
            except Error as e:
                if "not attached" not in str(e) or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    @property
    def error(self):
        return self.root.locator(".lc-error")

    @property
    def figure(self):
        return self.root.locator("img.lc-figure, .lc-figure img")

    def figure_src(self) -> str | None:
        f = self.figure
        return f.first.get_attribute("src") if f.count() else None

    def figure_loaded(self) -> bool:
        f = self.figure
        return bool(f.count()) and f.first.evaluate("e => e.complete && e.naturalWidth > 0")

    def control(self, key):
        c = self.root.locator(f".lc-control-{key}")
        assert c.count() >= 1, f"{self.name}: no control lc-control-{key}"
        return c.first

    def kind(self, key) -> str:
        """slider, dropdown, checkbox, box (a typed value) or buttons."""
        c = self.control(key)
        if "widget-slider" in (c.get_attribute("class") or ""):
            return "slider"
        if c.locator("select").count():
            return "dropdown"
        if c.locator("input[type=checkbox]").count():
            return "checkbox"
        if c.locator("input, textarea").count():
            return "box"
        if c.locator("button").count():
            return "buttons"
        raise AssertionError(f"{self.name}: unknown kind of control {key}")

    def current(self, key) -> str:
        """What the control shows now (slider readout, selected option, box content)."""
        c, kind = self.control(key), self.kind(key)
        if kind == "slider":
            return c.locator(".widget-readout").first.inner_text().strip()
        if kind == "dropdown":
            return c.locator("select").evaluate("e => e.options[e.selectedIndex].text")
        if kind == "checkbox":
            return str(c.locator("input").is_checked())
        if kind == "box":
            return c.locator("input, textarea").first.input_value()
        return c.locator("button.mod-active").inner_text().strip()

    def set(self, key, value):
        """Change a control as a person would: arrow keys on a slider's handle, pick
        in a dropdown, type + Enter in a box, click a checkbox or a toggle button."""
        c, kind = self.control(key), self.kind(key)
        target = str(value)
        if kind == "slider":
            self._slide(c, key, target)
        elif kind == "dropdown":
            c.locator("select").select_option(label=target)
        elif kind == "checkbox":
            if str(c.locator("input").is_checked()) != target:
                c.locator("input").click()
        elif kind == "box":
            box = c.locator("input, textarea").first
            box.click()
            box.fill(target)
            box.press("Enter")
        else:
            c.locator("button", has_text=re.compile(rf"^\s*{re.escape(target)}\s*$")).click()

    def _slide(self, c, key, target):
        """Focus the handle and press arrow keys until the readout shows ``target``."""
        handle, readout = c.locator(".noUi-handle").first, c.locator(".widget-readout").first
        now = readout.inner_text().strip()
        if now == target:
            return
        try:  # numeric readouts tell the direction; otherwise try right, then left
            directions = ["ArrowRight" if float(target) > float(now) else "ArrowLeft"]
        except ValueError:
            directions = ["ArrowRight", "ArrowLeft"]
        seen = [now]
        for d in directions:
            end = "aria-valuemax" if d == "ArrowRight" else "aria-valuemin"
            while float(handle.get_attribute("aria-valuenow")) != float(handle.get_attribute(end)):
                before = readout.inner_text().strip()
                handle.press(d)
                self.page.wait_for_function(  # the readout follows the handle in the page
                    "([e, b]) => e.innerText.trim() !== b",
                    arg=[readout.element_handle(), before], timeout=UPDATE_MS)
                now = readout.inner_text().strip()
                seen.append(now)
                if now == target:
                    return
        raise AssertionError(f"{self.name}: slider {key} never showed {target!r}; it showed {seen}")

    def expect_value(self, key, expected, timeout=UPDATE_MS):
        from playwright.sync_api import expect
        expect(self.cell(key)).to_have_attribute("data-value", str(expected), timeout=timeout)

    def expect_no_error(self, timeout=UPDATE_MS):
        from playwright.sync_api import expect
        expect(self.error).to_have_text("", timeout=timeout)

    def expect_error(self, message, timeout=UPDATE_MS):
        from playwright.sync_api import expect
        expect(self.error).to_have_text(f"\u26a0 {message}", timeout=timeout)


def screenshot(page, name: str, locator=None, block: str = "start") -> Path:
    """A viewport screenshot (what a reader sees), after scrolling ``locator`` into view."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if locator is not None:
        locator.evaluate(f"e => e.scrollIntoView({{block: '{block}'}})")
    page.mouse.move(0, page.viewport_size["height"] - 1)  # no hover effects on the content
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
