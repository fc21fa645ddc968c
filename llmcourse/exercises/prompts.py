"""Exercise prompts, read from the lessons' notebooks, where they are written once.

A lesson states each exercise in a Markdown cell that starts with its heading::

    ### Exercise kv-1 · derive

    Write `kv_bytes_per_token(cfg)`: ... (within 1%)

    **May call:** `lc.param_count`           (a derive exercise: what it may call)

    - **(a)** ...                            (a concept question: its options)

The registry (:mod:`.base`) holds what checks an answer; :func:`prompt_of` gives the
prompt back to it and to the tests. Worked solutions sit at the end of the notebook,
one collapsed cell each: ``<details><summary>Solution kv-1 · ...</summary>`` with the
code a student would paste, ending in ``lc.exercises.check("kv-1", ...)``
(:func:`worked_solutions`).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

__all__ = ["Prompt", "Solution", "NOTEBOOK_DIR", "HEADING", "prompts_in", "prompt_of",
           "worked_solutions"]

# the lessons' folder, beside the package in a checkout of the course
NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"

HEADING = re.compile(r"^###\s+Exercise\s+([a-z]+-\d+)\s+·\s+(predict|derive|design|concept)\s*$",
                     re.M)
_OPTION = re.compile(r"^- \*\*\(([a-z])\)\*\*\s+(.+)$", re.M)
_MAY_CALL = re.compile(r"^\*\*May call:\*\*\s*(.+)$", re.M)
_SOLUTION = re.compile(r"<details>\s*<summary>\s*Solution\s+([a-z]+-\d+)\b", re.I)
_CODE = re.compile(r"```python\n(.*?)```", re.S)


class Prompt(NamedTuple):
    id: str
    kind: str
    text: str          # the cell's text below the heading
    options: tuple     # concept: ((letter, text), ...)
    may_call: str      # derive: the "May call:" line, as written
    cell: int          # the Markdown cell's index in the notebook


class Solution(NamedTuple):
    id: str
    code: str          # the worked solution's code, verbatim
    cell: int


def _cells(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


@lru_cache(maxsize=64)
def _read(path, mtime):
    prompts, solutions = [], []
    for i, c in enumerate(_cells(path)):
        src = "".join(c["source"])
        if c["cell_type"] != "markdown":
            continue
        for m in HEADING.finditer(src):
            body = src[m.end():]
            nxt = HEADING.search(body)
            body = body[:nxt.start()] if nxt else body
            may = _MAY_CALL.search(body)
            prompts.append(Prompt(m.group(1), m.group(2), body.strip(),
                                  tuple(_OPTION.findall(body)),
                                  may.group(1).strip() if may else "", i))
        for m in _SOLUTION.finditer(src):
            code = "\n".join(_CODE.findall(src[m.end():]))
            solutions.append(Solution(m.group(1), code, i))
    return tuple(prompts), tuple(solutions)


def _notebook(stem_or_path):
    p = Path(stem_or_path)
    if p.suffix != ".ipynb":
        p = NOTEBOOK_DIR / f"{stem_or_path}.ipynb"
    return p


def prompts_in(notebook):
    """The exercise prompts of a notebook (a file stem or a path), in order; () if the
    notebook is not at hand."""
    p = _notebook(notebook)
    if not p.exists():
        return ()
    return _read(str(p), p.stat().st_mtime)[0]


def worked_solutions(notebook):
    """The notebook's worked solutions, in order: each with its code, verbatim."""
    p = _notebook(notebook)
    if not p.exists():
        return ()
    return _read(str(p), p.stat().st_mtime)[1]


def prompt_of(notebook, exercise_id):
    """The prompt of one exercise, or None."""
    return next((p for p in prompts_in(notebook) if p.id == exercise_id), None)
