"""A local stand-in for the Hugging Face Hub, for the real ``huggingface_hub`` client.

Serves the fixture tree ``tests/fixtures/hub/<owner>/<name>/`` (see its
``make_fixtures.py``) on 127.0.0.1 with the endpoints and headers huggingface_hub 2.4
uses (read from its ``file_download.py`` and ``hf_api.py``):

* ``HEAD``/``GET /{repo}/resolve/{revision}/{file}``: ``X-Repo-Commit``, ``ETag`` and
  ``Content-Length`` (``hf_hub_download`` refuses a response without the first two);
  ``Range: bytes=a-b`` answers 206 (``parse_safetensors_file_metadata`` reads a header
  so). A safetensors file exists as its header only: its first bytes are the 8-byte
  length and the header, its size counts the data section, and a request for more
  than its first MiB (a weights download) is refused with 403 and logged in
  ``refused``.
* ``GET /api/models/{repo}`` and ``/api/models/{repo}/revision/{revision}``: the repo's
  sha, its files (``siblings``), ``gated`` and ``cardData`` (``HfApi.model_info``).
* Errors as the Hub sends them, with ``X-Error-Code``: ``RepoNotFound`` (401, as the Hub
  answers an unauthenticated request for a missing or private repo),
  ``GatedRepo`` (401 without a token, 403 with a token that has no access),
  ``RevisionNotFound`` (404), ``EntryNotFound`` (404, with ``X-Repo-Commit``).

A gated repo opens to ``Authorization: Bearer`` + :data:`TOKEN`. Every request is
logged in ``requests`` as ``(method, path, range)``.

:func:`run_client` runs a reader's code in a fresh Python process (huggingface_hub reads
``HF_ENDPOINT``, ``HF_HOME`` and ``HF_HUB_OFFLINE`` when it is imported) with this server
as its Hub, a cache of its own, and proxies at a closed port, so a request that strayed
to the real Hub would fail, not leave the machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

ROOT = pathlib.Path(__file__).resolve().parent / "fixtures" / "hub"
TOKEN = "hf_localTestTokenForGatedRepos"
HEADER_SUFFIX = ".header.json"
MAX_SERVED = 2**20  # a header read is ~100 kB; anything more would be weights

_RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)$")
_API = re.compile(r"^/api/models/(?P<repo>[^/]+/[^/]+?)(?:/revision/(?P<rev>[^/]+))?/?$")


class _File:
    """A file as served: its bytes (a safetensors file: the header, then zeros) and size."""

    def __init__(self, path: pathlib.Path):
        if path.name.endswith(HEADER_SUFFIX):
            head = path.read_bytes()
            spans = [t["data_offsets"][1] for k, t in json.loads(head).items()
                     if k != "__metadata__"]
            self.prefix = len(head).to_bytes(8, "little") + head
            self.size = len(self.prefix) + max(spans, default=0)
            self.virtual = True
        else:
            self.prefix = path.read_bytes()
            self.size = len(self.prefix)
            self.virtual = False
        self.etag = hashlib.sha256(self.prefix + str(self.size).encode()).hexdigest()

    def read(self, start, end):
        """Bytes start..end inclusive (zeros past the header of a safetensors file)."""
        data = self.prefix[start:end + 1]
        return data + bytes(end + 1 - start - len(data))


class Repo:
    def __init__(self, folder: pathlib.Path, repo_id: str):
        meta = json.loads((folder / "_repo.json").read_text())
        self.id, self.sha = repo_id, meta["sha"]
        self.gated, self.card = meta.get("gated", False), meta.get("cardData") or {}
        self.files = {}
        for p in sorted(folder.iterdir()):
            if p.name != "_repo.json":
                self.files[p.name.removesuffix(HEADER_SUFFIX)] = p

    def file(self, name):
        p = self.files.get(name)
        return _File(p) if p else None


class HubServer:
    """``with HubServer() as hub: hub.url`` -- a threaded server on a free local port."""

    def __init__(self, root: pathlib.Path = ROOT):
        self.root = root
        self.requests: list[tuple[str, str, str]] = []
        self.refused: list[str] = []
        self.repos = {}
        for meta in root.glob("*/*/_repo.json"):
            repo_id = f"{meta.parent.parent.name}/{meta.parent.name}"
            self.repos[repo_id] = Repo(meta.parent, repo_id)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()

    def paths(self, method=None):
        return [p for m, p, _ in self.requests if method in (None, m)]

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: the tests read server.requests
                pass

            def do_HEAD(self):
                self._serve(body=False)

            def do_GET(self):
                self._serve(body=True)

            # --- answers -----------------------------------------------------------
            def _send(self, status, headers=None, body=b"", send_body=True):
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if send_body and body:
                    self.wfile.write(body)

            def _error(self, status, code, message, extra=None, send_body=True):
                headers = {"X-Error-Code": code, "X-Error-Message": message,
                           "Content-Type": "application/json"}
                headers.update(extra or {})
                self._send(status, headers, json.dumps({"error": message}).encode(), send_body)

            def _authorized(self):
                return self.headers.get("Authorization", "") == f"Bearer {TOKEN}"

            def _serve(self, body):
                path = unquote(urlsplit(self.path).path)
                rng = self.headers.get("Range", "")
                server.requests.append((self.command, path, rng))
                m = _API.match(path)
                if m and body:
                    return self._api(m.group("repo"), m.group("rev"))
                m = _RESOLVE.match(path)
                if m:
                    return self._resolve(m.group("repo"), m.group("rev"), m.group("file"),
                                         rng, body)
                self._error(404, "NotFound", "not a Hub endpoint", send_body=body)

            def _repo(self, repo_id, rev, body):
                repo = server.repos.get(repo_id)
                if repo is None:
                    self._error(401, "RepoNotFound", "Repository not found", send_body=body)
                    return None
                if rev not in (None, "main", repo.sha):
                    self._error(404, "RevisionNotFound", "Invalid rev id: " + rev,
                                send_body=body)
                    return None
                return repo

            def _api(self, repo_id, rev):
                repo = self._repo(repo_id, rev, True)
                if repo is None:
                    return
                info = {"id": repo.id, "modelId": repo.id, "sha": repo.sha,
                        "gated": repo.gated, "private": False, "cardData": repo.card,
                        "siblings": [{"rfilename": f} for f in repo.files]}
                self._send(200, {"Content-Type": "application/json"},
                           json.dumps(info).encode())

            def _resolve(self, repo_id, rev, name, rng, body):
                repo = self._repo(repo_id, rev, body)
                if repo is None:
                    return
                commit = {"X-Repo-Commit": repo.sha}
                if repo.gated and not self._authorized():
                    has_token = self.headers.get("Authorization", "").startswith("Bearer ")
                    self._error(403 if has_token else 401, "GatedRepo",
                                f"Access to model {repo.id} is restricted. You must have access "
                                "to it and be authenticated to access it. Please log in.",
                                commit, send_body=body)
                    return
                f = repo.file(name)
                if f is None:
                    self._error(404, "EntryNotFound", "Entry not found", commit, send_body=body)
                    return
                headers = {**commit, "ETag": f'"{f.etag}"', "Accept-Ranges": "bytes",
                           "Content-Type": "application/octet-stream"}
                if not body:  # HEAD: the size, no body
                    self.send_response(200)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(f.size))
                    self.end_headers()
                    return
                m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng.strip())
                start, end = (int(m.group(1)), int(m.group(2) or f.size - 1)) if m \
                    else (0, f.size - 1)
                end = min(end, f.size - 1)
                if f.virtual and end - start + 1 > MAX_SERVED:
                    server.refused.append(f"{repo.id}/{name} {rng or 'whole file'}")
                    self._error(403, "NotServed", "the test Hub never serves weights",
                                commit)
                    return
                if m:
                    headers["Content-Range"] = f"bytes {start}-{end}/{f.size}"
                self._send(206 if m else 200, headers, f.read(start, end))

        return Handler


def client_env(endpoint, home, offline=False, token=None):
    """The environment of a reader's process: the local Hub, a cache of its own."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HF_", "HUGGINGFACE_")) and k.lower() not in
           ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env.update(HF_ENDPOINT=endpoint, HF_HOME=str(home), HF_HUB_DISABLE_TELEMETRY="1",
               HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9",
               ALL_PROXY="http://127.0.0.1:9", NO_PROXY="127.0.0.1,localhost")
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    if token:
        env["HF_TOKEN"] = token
    return env


def run_client(code, endpoint, home, **kw):
    """Run ``code`` (which sets ``out``; ``error(f, *args)`` is the message of the
    ValueError ``f`` raises, or None) in a fresh process with :func:`client_env`;
    return ``out`` (JSON). Anything on stderr (a warning, a progress bar, a
    traceback) fails."""
    script = ("import json, llmcourse as lc\n"
              "def error(f, *a, **k):\n"
              "    try:\n        f(*a, **k)\n    except ValueError as e:\n        return str(e)\n"
              "    return None\n" + textwrap.dedent(code) + "\nprint(json.dumps(out))\n")
    p = subprocess.run([sys.executable, "-c", script], env=client_env(endpoint, home, **kw),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stderr == "", p.stderr[-3000:]  # no warning, no progress bar, no traceback
    return json.loads(p.stdout.splitlines()[-1])
