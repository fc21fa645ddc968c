"""The README's first command, `make course`, starts a JupyterLab that answers, as
whatever user runs it (CI runs as root, where JupyterLab refuses to start unless
told --allow-root).

The test runs the Makefile's own `course` target, adding only a port and
--no-browser through COURSE_ARGS (as on a headless server), reads the URL the server
prints for the reader to open, and requires the server to answer at it.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

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
            ["make", "-s", "course",
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
            assert "00_start_here_anatomy.ipynb" in contents  # it serves the course
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
