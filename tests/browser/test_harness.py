"""The harness itself, on small notebooks written here (independent of the lessons):
it sees a live explorer, follows a change to the engine's value, sees the one-line
message, and it does notice a traceback, a widget that did not render and, on a Voila
page, the student's material."""

from __future__ import annotations

import pytest

import browser_helpers as bh
import llmcourse as lc
from student_text import student_text_in

pytestmark = pytest.mark.browser

LLAMA = "Meta-Llama-3-8B"


def llama():
    return lc.load_model(LLAMA)


def test_harness_drives_an_explorer(lab, lab_root, lab_page):
    nb = bh.write_notebook(lab_root / "harness_explorer.ipynb", [
        ("markdown", "# harness"),
        ("code", "import llmcourse as lc"),
        ("code", "lc.widgets.kv_cache_explorer()"),
        # a free box, where an impossible KV-head count can be typed
        ("code", "import llmcourse.widgets as w\n"
                 "cfg = lc.load_model('Meta-Llama-3-8B')\n"
                 "w.Explorer('typed_kv', {'num_key_value_heads': w.int_text('KV heads', 8)},\n"
                 "    lambda v: [w.Row('KV cache', 'kv_cache_bytes', lc.kv_cache_bytes(\n"
                 "        cfg.replace(num_key_value_heads=v['num_key_value_heads']), 8192), '')])"),
    ])
    page = lab_page
    book = bh.LabNotebook(page, lab, nb.name, "harness-explorer")
    book.run_all(bh.code_cell_count(nb))
    kv = bh.ExplorerView(page, "kv_cache").wait_rendered()
    typed = bh.ExplorerView(page, "typed_kv").wait_rendered()
    assert bh.problems(page, ".jp-Notebook") == []

    # keyboard on the KV-heads slider: 8 -> 16
    assert kv.value("kv_cache_bytes") == str(lc.kv_cache_bytes(llama(), 8192))
    src = kv.figure_src()
    kv.set("num_key_value_heads", 16)
    kv.expect_value("kv_cache_bytes",
                    lc.kv_cache_bytes(llama().replace(num_key_value_heads=16), 8192))
    assert kv.figure_src() != src and kv.figure_loaded()
    # a dropdown
    kv.set("model", "Qwen3-8B")
    kv.expect_value("kv_cache_bytes", lc.kv_cache_bytes(lc.load_model("Qwen3-8B"), 8192))
    assert kv.current("num_key_value_heads") == "8"

    # a typed impossible value: the engine's one-line message, and the widget still works
    msg = bh.engine_message(lambda: llama().replace(num_key_value_heads=5))
    typed.set("num_key_value_heads", 5)
    typed.expect_error(msg)
    assert typed.value("kv_cache_bytes") == str(lc.kv_cache_bytes(llama(), 8192))  # last valid
    typed.set("num_key_value_heads", 4)
    typed.expect_no_error()
    typed.expect_value("kv_cache_bytes",
                       lc.kv_cache_bytes(llama().replace(num_key_value_heads=4), 8192))
    assert bh.problems(page, ".jp-Notebook") == []
    assert bh.popups(page) == []
    assert page.errors == []


def test_harness_sees_tracebacks_and_unrendered_widgets(lab, lab_root, lab_page):
    nb = bh.write_notebook(lab_root / "harness_broken.ipynb", [
        ("code", "import ipywidgets as W\nprint(W.IntSlider(value=3))"),
        ("code", "1 / 0"),
        ("code", "print('never runs')"),
    ])
    book = bh.LabNotebook(lab_page, lab, nb.name, "harness-broken")
    with pytest.raises(AssertionError, match=r"did not run") as info:
        book.run_all(bh.code_cell_count(nb))
    text = str(info.value)
    assert "ZeroDivisionError" in text and "widget shown as text" in text, text


def test_harness_sees_the_students_material_and_the_lecture_copy_has_none(
        voila_tree, voila_root, projector_page):
    """Served as written, a page with an exercise, its answer cell and a collapsed worked
    solution shows the student's material (the checks above would fail); its lecture copy
    (as `make lecture` makes it) shows none, and its explorer still renders."""
    from llmcourse.student_copy import make_lecture_copy
    ex = lc.exercises.list_exercises()[0]
    (voila_root.parent / "raw").mkdir(exist_ok=True)
    raw = bh.write_notebook(voila_root.parent / "raw" / "harness_exercise.ipynb", [
        ("code", "import llmcourse as lc"),
        ("markdown", f"### Exercise {ex.id} · {ex.kind}\n\nWrite your answer in place of `None`."),
        ("code", f"prediction = None\nlc.exercises.check({ex.id!r}, prediction)"),
        ("markdown", "## The explorer"),
        ("code", "lc.widgets.kv_cache_explorer()"),
        ("markdown", f"<details><summary>Solution {ex.id} · worked</summary>\n\nsecret\n</details>"),
    ])
    (voila_root / raw.name).write_text(raw.read_text())          # served as written
    make_lecture_copy(str(raw), str(voila_root / "lecture"))      # and as its lecture copy
    page = projector_page
    for path, expect_student in ((raw.name, True), (f"lecture/{raw.name}", False)):
        page.goto(f"{voila_tree.url}/voila/render/{path}", wait_until="commit",
                  timeout=bh.PAGE_LOAD_MS)
        bh.ExplorerView(page, "kv_cache").wait_rendered(timeout=bh.RUN_ALL_MS)
        found = student_text_in(bh.page_text(page))
        prompts = [p for p in bh.problems(page) if p.startswith("exercise prompt")]
        assert bool(found) == expect_student, (path, found)
        assert bool(prompts) == expect_student, (path, bh.problems(page))
        if expect_student:   # the collapsed solution counts, though not on screen
            assert any(f"Solution {ex.id}" in f for f in found), found
    assert page.errors == []
