"""Fixtures for the real-browser tests: Chromium, JupyterLab and Voila servers.

Servers run over temporary copies of ``notebooks/`` with a temporary Jupyter
config (nothing is read from or written to the user's home) and are stopped at
the end of the session whatever happened. See README.md in this folder.
"""

from __future__ import annotations

import os
import secrets
import shutil

import pytest

import browser_helpers as bh


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep


@pytest.fixture(scope="session")
def chromium_path():
    """Debian's Chromium. Missing: a skip on a reader's laptop, a failure in CI."""
    problem = None
    if not os.access(bh.CHROMIUM, os.X_OK):
        problem = f"{bh.CHROMIUM} is missing (sudo apt-get install chromium, or `make browser`)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = ("the playwright Python package is missing "
                       "(pip install -r requirements-test.txt)")
    if problem:
        if bh.in_ci():
            pytest.fail(f"browser tests must run in CI, but {problem}", pytrace=False)
        pytest.skip(problem)
    return bh.CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import expect, sync_playwright
    expect.set_options(timeout=bh.UPDATE_MS)  # a loaded CI machine redraws slowly
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True,
                               args=bh.CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def work_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("browser")


@pytest.fixture(scope="session")
def jupyter_env(work_dir):
    return bh.isolated_jupyter_env(work_dir / "jupyter")


@pytest.fixture(scope="session")
def lab_root(work_dir):
    """A temporary copy of notebooks/ with outputs cleared (what shows after Run All
    comes from the live kernel); tests may add their own notebooks under it."""
    root = work_dir / "lab"
    shutil.copytree(bh.NOTEBOOKS, root / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    for nb in (root / "notebooks").glob("*.ipynb"):
        bh.strip_outputs(nb)
    return root


@pytest.fixture(scope="session")
def lab(chromium_path, lab_root, jupyter_env, work_dir):
    """JupyterLab on a free localhost port with a token, serving ``lab_root``."""
    srv = None
    try:
        srv = bh.start_lab(lab_root, jupyter_env, work_dir / "jupyterlab.log",
                           token=secrets.token_hex(24))
        yield srv
    finally:
        if srv is not None:
            srv.stop()


@pytest.fixture(scope="session")
def voila_root(work_dir):
    """The lecture copies of notebooks/, made as `make lecture` makes them (without the
    student's cells, outputs cleared: Voila runs each page anyway)."""
    from llmcourse.student_copy import make_lecture_copy
    root = work_dir / "voila" / "notebooks"
    make_lecture_copy(str(bh.NOTEBOOKS), str(root))
    return root


@pytest.fixture(scope="session")
def voila_tree(chromium_path, voila_root, jupyter_env, work_dir):
    """``voila <lecture copies>/ --theme=light`` (`make lecture LAB=notebooks/`): every lesson
    as an app (/voila/render/NAME)."""
    srv = None
    try:
        srv = bh.start_voila(voila_root, jupyter_env, work_dir / "voila-tree.log")
        yield srv
    finally:
        if srv is not None:
            srv.stop()


@pytest.fixture(scope="session")
def voila_lab(chromium_path, voila_root, jupyter_env, work_dir):
    """What `make lecture` runs: ``voila <lecture copy of LAB> --theme=light``."""
    srv = None
    try:
        srv = bh.start_voila(voila_root / bh.lecture_default(), jupyter_env,
                             work_dir / "voila-lab.log")
        yield srv
    finally:
        if srv is not None:
            srv.stop()


def _page(browser, request, viewport, prefix, unload=False):
    context = browser.new_context(viewport=viewport, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(bh.UPDATE_MS)
    page.errors = []  # uncaught JavaScript errors, for failure messages
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    try:
        yield page
    finally:
        rep = getattr(request.node, "rep_call", None)
        if rep is not None and rep.failed:
            try:
                name = "FAILED-" + prefix + "-" + "".join(
                    ch if ch.isalnum() or ch in "-_." else "_" for ch in request.node.name)
                bh.screenshot(page, name)
            except Exception:
                pass
        if unload:  # Voila asks to shut the page's kernel down when the page unloads
            try:
                page.close(run_before_unload=True)
            except Exception:
                pass
        context.close()


@pytest.fixture
def lab_page(browser, request, lab):
    """A fresh browser page (1280x800); the notebook's kernel is shut down afterwards."""
    yield from _page(browser, request, bh.LAB_VIEWPORT, "lab")
    try:  # free the kernel: a 2-core CI machine runs one notebook at a time
        for s in lab.request("GET", "/api/sessions") or []:
            lab.request("DELETE", f"/api/sessions/{s['id']}")
    except Exception:
        pass


@pytest.fixture
def projector_page(browser, request):
    """A fresh browser page at projector size (1280x720)."""
    yield from _page(browser, request, bh.PROJECTOR_VIEWPORT, "lecture", unload=True)
