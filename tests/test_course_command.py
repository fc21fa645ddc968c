"""The README's first command, `make course`, starts a JupyterLab that answers, as
whatever user runs it (CI runs as root, where JupyterLab refuses to start unless
told --allow-root).

The test runs the Makefile's own `course` target, adding only a port and
--no-browser through COURSE_ARGS (as on a headless server) and a temporary place for
the student's working copy, reads the URL the server prints for the reader to open,
and requires the server to answer at it with the working copy: every notebook, no
stored output (an exercise's answer must not be readable before its check).
Then the copy as a student's work: made once, never overwritten, new lessons added.

`make lecture` the same way: the page Voila serves (it runs the notebook before it answers)
holds the lesson and its explorer, and none of the student's material.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from html import unescape
from pathlib import Path

from student_text import student_text_in

ROOT = Path(__file__).resolve().parent.parent


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_course_serves_the_notebooks_as_the_current_user(tmp_path):
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    log = tmp_path / "course.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            ["make", "-s", "course", f"STUDENT={tmp_path / 'student'}",
             f"COURSE_ARGS=--no-browser --port={port} --ServerApp.port_retries=0 "
             "--ServerApp.ip=127.0.0.1"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            printed = re.compile(rf"http://127\.0\.0\.1:{port}/lab\?token=([0-9a-f]+)")
            deadline, status, contents, text = time.monotonic() + 90, None, None, ""
            while time.monotonic() < deadline and proc.poll() is None:
                text = log.read_text(errors="replace")
                m = printed.search(text)
                if m:  # the URL a headless user is told to open
                    try:
                        url = f"http://127.0.0.1:{port}/api/contents?token={m.group(1)}"
                        with urllib.request.urlopen(url, timeout=5) as r:
                            status, contents = r.status, r.read().decode()
                        break
                    except OSError:
                        pass
                time.sleep(0.5)
            text = log.read_text(errors="replace")
            assert proc.poll() is None, f"`make course` exited ({proc.returncode}):\n{text[-2000:]}"
            assert printed.search(text), f"no URL with its token printed:\n{text[-2000:]}"
            assert status == 200, f"no answer on port {port} within 90 s:\n{text[-2000:]}"
            served = {item["name"] for item in json.loads(contents)["content"]}
            lessons = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
            assert lessons <= served  # it serves the course: the working copy
            for name in lessons:
                nb = json.loads((tmp_path / "student" / name).read_text(encoding="utf-8"))
                code = [c for c in nb["cells"] if c["cell_type"] == "code"]
                assert code and not any(c["outputs"] or c["execution_count"] for c in code)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_the_working_copy_is_made_once_and_never_overwritten(tmp_path):
    from llmcourse.student_copy import make_student_copy
    src, dst = ROOT / "notebooks", tmp_path / "student"
    lessons = sorted(p.name for p in src.glob("*.ipynb"))
    created, kept = make_student_copy(src, dst)
    assert created == lessons and kept == []
    first = dst / lessons[0]
    original = json.loads((src / lessons[0]).read_text(encoding="utf-8"))
    copy = json.loads(first.read_text(encoding="utf-8"))
    assert [c["source"] for c in copy["cells"]] == [c["source"] for c in original["cells"]]
    assert any(c.get("outputs") for c in original["cells"])  # the repository keeps outputs
    # the student's work survives the next `make course`
    copy["cells"][0]["source"] = "my notes"
    first.write_text(json.dumps(copy), encoding="utf-8")
    (dst / lessons[1]).unlink()  # a deleted lesson comes back fresh
    created, kept = make_student_copy(src, dst)
    assert created == [lessons[1]] and len(kept) == len(lessons) - 1
    assert json.loads(first.read_text(encoding="utf-8"))["cells"][0]["source"] == "my notes"


def test_a_copy_for_graded_work_leaves_out_the_worked_solutions(tmp_path):
    from llmcourse.student_copy import main
    src, dst = ROOT / "notebooks", tmp_path / "graded"
    assert main([str(src), str(dst), "--without-solutions"]) == 0
    lessons = sorted(src.glob("[0-9][0-9]_*.ipynb"))
    solutions_before = solutions_after = 0
    for nb in lessons:
        before = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        after = json.loads((dst / nb.name).read_text(encoding="utf-8"))["cells"]
        dropped = [c for c in before if "<summary>Solution " in "".join(c["source"])
                   or "".join(c["source"]).lstrip().startswith("## Worked solutions")]
        solutions_before += len(dropped) - 1
        solutions_after += sum("<summary>Solution " in "".join(c["source"]) for c in after)
        assert len(after) == len(before) - len(dropped)
        # no empty "Worked solutions" section is left behind
        assert not any("".join(c["source"]).lstrip().startswith("## Worked solutions")
                       for c in after), nb.name
        assert any('lc.exercises.check("' in "".join(c["source"]) for c in after)  # exercises stay
        # and no sentence still sends the student to the solutions
        assert not any(re.search(r"solutions are (folded|at the end)", "".join(c["source"]))
                       for c in after)
    first = json.loads((dst / lessons[0].name).read_text(encoding="utf-8"))["cells"]
    assert any("leaves the worked solutions out" in "".join(c["source"]) for c in first)
    assert solutions_before >= len(lessons) * 3 and solutions_after == 0


def _page_text(html):
    """The text of a served page, as a reader could reach it (collapsed blocks included)."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S | re.I)
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_make_lecture_serves_the_lab_without_the_students_cells(tmp_path):
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    log = tmp_path / "lecture.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            ["make", "-s", "lecture", f"LECTURE={tmp_path / 'lecture'}",
             f"LECTURE_ARGS=--no-browser --port={port} --Voila.port_retries=0 "
             "--Voila.ip=127.0.0.1"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline, html = time.monotonic() + 180, None
            while time.monotonic() < deadline and proc.poll() is None and html is None:
                try:  # the first answer comes once the notebook has run
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=150) as r:
                        html = r.read().decode()
                except OSError:
                    time.sleep(0.5)
            text = log.read_text(errors="replace")
            assert html is not None, f"`make lecture` served nothing:\n{text[-2000:]}"
            page = _page_text(html)
            assert "Lesson 8 · The what-if lab" in page
            assert "application/vnd.jupyter.widget-view+json" in html   # the lab is on the page
            assert "Traceback" not in page, page[page.find("Traceback") - 200:][:2000]
            assert student_text_in(page) == []
            served = json.loads((tmp_path / "lecture" / "08_whatif_lab.ipynb").read_text())
            assert not any("student" in c.get("metadata", {}).get("tags", [])
                           for c in served["cells"])
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_test_fast_needs_no_browser_and_the_venv_can_be_elsewhere(tmp_path):
    """A contributor without root or apt runs `make test-fast`: nothing in it installs
    Chromium; `make test` (CI, as root) still does. VENV in the environment points the
    commands at another virtual environment."""
    venv = tmp_path / "venv"

    def plan(target):   # what make would run (-n: nothing runs)
        out = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True,
                             timeout=60, env=dict(os.environ, VENV=str(venv)))
        assert out.returncode == 0, out.stderr
        return out.stdout
    fast, full = plan("test-fast"), plan("test")
    assert "apt-get" not in fast and "chromium" not in fast
    assert f"{venv}/bin/python -m pytest" in fast and f"-m venv {venv}" in fast
    assert "apt-get install -y -q chromium" in full and f"{venv}/bin/python -m pytest" in full
