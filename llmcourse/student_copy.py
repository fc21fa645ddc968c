"""What in a lesson is the student's, and the two copies made from that: the student's
working copy, and the lecture copy a projector shows.

**The student's material** (one rule, :func:`student_material`): what a student reads as an
exercise or types into, and what only makes sense to someone working alone:

- ``## How to use this course``: how to run the cells and answer the exercises;
- an exercise: a Markdown heading that starts with "Exercise" (``## Exercises`` and its
  instructions, ``### Exercise kv-1 · derive`` and its prompt, down to the next heading of
  the same or a higher level), and each code cell that calls ``lc.exercises.check`` or
  ``lc.exercises.hint`` (the answer cell: ``answer = None`` ... ``check(...)``);
- ``## Worked solutions`` and each worked solution (a ``<details><summary>Solution ...``
  cell);
- homework: a Markdown cell that opens with ``**Homework`` (or a heading "Homework"), and
  the code cells right after it, up to the next Markdown cell;
- a section (a heading down to the next of its level or higher; the worked solutions end
  it) that holds nothing but the above, heading and all.

A lesson's teaching text, tables, figures and explorers are not the student's, asides in
``<details><summary>Aside ...`` included. A Markdown cell where teaching text and an
exercise meet is split at the exercise's heading (:func:`split_student_text`), so each cell
is one or the other: ``tools/notebooks.py`` (``make notebooks``) stores every notebook split
that way, its student cells tagged ``student`` (:data:`STUDENT_TAG`, :func:`mark_student_cells`).

**The working copy** (``make course``): every notebook with its outputs cleared, so no
answer can be read before its check::

    python -m llmcourse.student_copy notebooks student

Each notebook is copied once. A copy that exists is never overwritten: it is the
student's work. A notebook added to the course later is copied on the next run.
For graded work, ``--without-solutions`` leaves out the worked solutions::

    python -m llmcourse.student_copy notebooks student --without-solutions

**The lecture copy** (``make lecture``): the notebook without the student's material,
outputs cleared, for Voila to run and show (:func:`lecture_copy`)::

    python -m llmcourse.student_copy --lecture notebooks/08_whatif_lab.ipynb artifacts/lecture

It applies the rule itself, so it also works on a notebook nobody has tagged; it prints
the path to serve (the copy, or the folder of copies when given a folder).

Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import sys

__all__ = ["STUDENT_TAG", "student_material", "split_student_text", "split_student_cells",
           "mark_student_cells", "lecture_copy", "make_lecture_copy", "clear_outputs",
           "without_solutions", "make_student_copy"]

STUDENT_TAG = "student"

# a Markdown heading that opens the student's material
_STUDENT_HEADING = re.compile(r"(Exercises?|Worked solutions|How to use this course|Homework)\b",
                              re.I)
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SOLUTION = re.compile(r"<summary>\s*Solution\b", re.I)
_SOLUTIONS_HEADING = re.compile(r"\s*#+\s*Worked solutions\b")
#: the sentence that tells a reader where the solutions are, and what a graded copy says instead
_SOLUTIONS_PLACE = re.compile(
    r"Worked solutions are (folded away at the end of each lesson|at the end)\.")
_NO_SOLUTIONS = "This copy, made for graded work, leaves the worked solutions out."
_HOMEWORK = re.compile(r"^\s*\*\*Homework\b", re.I)
_HOMEWORK_HEADING = re.compile(r"^\s*#{1,6}\s+Homework\b", re.I)
_ANSWER = re.compile(r"\bexercises\.(check|hint)\(")


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def _blocks(text):
    """The Markdown ``text`` as (line_index, is_student) change points: student from an
    exercise-like heading down to the next heading of the same or a higher level."""
    changes, fenced, level = [], False, None   # level: the open student heading's, or None
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        if fenced:
            continue
        m = _HEADING.match(line)
        if not m:
            continue
        depth = len(m.group(1))
        if _STUDENT_HEADING.match(m.group(2).strip()):
            if level is None:
                changes.append((i, True))
                level = depth
            level = min(level, depth)
        elif level is not None and depth <= level:
            changes.append((i, False))
            level = None
    return lines, changes


def split_student_text(text):
    """A Markdown cell's text as [(part, is_student), ...], cut where the student's
    material starts or ends (see the module docstring); one part when the cell is all one
    or the other. A cell that opens with ``**Homework`` is the student's as a whole."""
    if _HOMEWORK.match(text) or _SOLUTION.search(text):
        return [(text, True)]
    lines, changes = _blocks(text)
    parts, start, student = [], 0, False
    for i, now in changes:
        if i > start:
            parts.append(("".join(lines[start:i]), student))
        start, student = i, now
    parts.append(("".join(lines[start:]), student))
    parts = [(p, s) for p, s in parts if p.strip()] or [(text, False)]
    merged = []
    for p, s in parts:   # neighbours of one kind are one part
        if merged and merged[-1][1] == s:
            merged[-1] = (merged[-1][0] + p, s)
        else:
            merged.append((p, s))
    return [(p.rstrip("\n") if k < len(merged) - 1 else p, s) for k, (p, s) in enumerate(merged)]


def _heading_level(text):
    """The level of the heading a Markdown text opens with (None if it opens otherwise)."""
    m = _HEADING.match(text.lstrip("\n").split("\n", 1)[0])
    return len(m.group(1)) if m else None


def student_material(nb):
    """For each cell of the notebook dict, True where it is the student's (the rule in the
    module docstring): a Markdown cell by its text (by its first part, if it mixes: split it
    first, :func:`split_student_cells`); a code cell if it calls ``exercises.check`` or
    ``exercises.hint``, or belongs to a homework (up to the next Markdown cell). And a
    section that holds nothing but the student's material is the student's, heading and
    all (``## Before you open the lab: two predictions`` over two exercises)."""
    cells = nb.get("cells", [])
    out, homework = [], False
    for cell in cells:
        kind, src = cell.get("cell_type"), _source(cell)
        if kind == "markdown":
            mine = split_student_text(src)[0][1]
            homework = mine and bool(_HOMEWORK.match(src) or _HOMEWORK_HEADING.match(src))
        elif kind == "code":
            mine = homework or bool(_ANSWER.search(src))
        else:
            mine = False
        out.append(mine)
    for i in range(len(cells) - 1, -1, -1):   # from the end: a section's subsections first
        level = cells[i].get("cell_type") == "markdown" and _heading_level(_source(cells[i]))
        if out[i] or not level:
            continue
        section = []
        for j in range(i + 1, len(cells)):
            other = cells[j].get("cell_type") == "markdown" and _heading_level(_source(cells[j]))
            if other and other <= level or _SOLUTION.search(_source(cells[j])):
                break   # the worked solutions are the lesson's end matter, headed or not
            section.append(j)
        if section and all(out[j] for j in section):
            out[i] = True
    return out


def _as_source(text, like):
    """``text`` in the storage form of ``like`` (a list of lines or one string)."""
    return text.splitlines(keepends=True) if isinstance(like, list) else text


def split_student_cells(nb):
    """The notebook dict with each Markdown cell that mixes teaching text and the student's
    material split into consecutive cells, one of each (the rendered page reads the same).
    The first part keeps the cell (id, metadata); a new cell's id is the original's with
    ``-1``, ``-2`` ... added."""
    cells, ids = [], {c.get("id") for c in nb.get("cells", [])}
    for cell in nb.get("cells", []):
        parts = (split_student_text(_source(cell)) if cell.get("cell_type") == "markdown"
                 else [])
        if len(parts) < 2:
            cells.append(cell)
            continue
        for k, (text, _) in enumerate(parts):
            if k == 0:
                new = dict(cell)
            else:
                new = {"cell_type": "markdown"}   # keys in nbformat's (sorted) order
                if "id" in cell:
                    n = k
                    while f"{cell['id']}-{n}" in ids:
                        n += 1
                    new["id"] = f"{cell['id']}-{n}"
                    ids.add(new["id"])
                new["metadata"] = {}
            new["source"] = _as_source(text, cell.get("source"))
            cells.append(new)
    nb["cells"] = cells
    return nb


def mark_student_cells(nb):
    """The notebook dict split (:func:`split_student_cells`) and tagged: each student cell
    carries the tag ``student``, no other cell does. Other tags are kept, in order."""
    split_student_cells(nb)
    for cell, mine in zip(nb["cells"], student_material(nb)):
        tags = [t for t in _tags(cell) if t != STUDENT_TAG]
        if mine:
            tags.append(STUDENT_TAG)
        meta = cell.setdefault("metadata", {})
        if tags and "tags" not in meta:
            cell["metadata"] = meta = dict(sorted({**meta, "tags": tags}.items()))
        elif tags:
            meta["tags"] = tags
        else:
            meta.pop("tags", None)
    return nb


def clear_outputs(nb):
    """The notebook dict with every code cell's outputs and execution count cleared."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return nb


def lecture_copy(nb):
    """The notebook dict as a projector shows it: without the student's material (by the
    rule, tagged or not, and any cell tagged ``student``), outputs and saved widget state
    cleared (Voila runs the notebook anew)."""
    split_student_cells(nb)
    nb["cells"] = [c for c, mine in zip(nb["cells"], student_material(nb))
                   if not mine and STUDENT_TAG not in _tags(c)]
    nb.get("metadata", {}).pop("widgets", None)
    return clear_outputs(nb)


def without_solutions(nb):
    """The notebook dict without its worked-solution cells, and without the "Worked
    solutions" heading they stood under (it would head an empty section); where the text
    says where the solutions are, it says instead that this copy has none."""
    nb["cells"] = [c for c in nb.get("cells", [])
                   if not (c.get("cell_type") == "markdown"
                           and (_SOLUTION.search(_source(c)) or _SOLUTIONS_HEADING.match(_source(c))))]
    for c in nb["cells"]:
        if c.get("cell_type") == "markdown" and _SOLUTIONS_PLACE.search(_source(c)):
            c["source"] = _SOLUTIONS_PLACE.sub(_NO_SOLUTIONS, _source(c))
    return nb


def _write(nb, dest):
    tmp = str(dest) + ".partial"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(nb, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    os.replace(tmp, dest)  # never a half-written notebook


def make_lecture_copy(source, target):
    """Write the lecture copy of notebook ``source`` (or of every ``*.ipynb`` in folder
    ``source``) into folder ``target``, replacing an older copy. Returns the path to serve:
    the copy, or ``target`` for a folder."""
    os.makedirs(target, exist_ok=True)
    if os.path.isdir(source):
        names = sorted(n for n in os.listdir(source) if n.endswith(".ipynb"))
        folder = source
    else:
        if not source.endswith(".ipynb") or not os.path.isfile(source):
            raise ValueError(f"lecture: {source!r} is not a notebook (.ipynb) or a folder")
        folder, names = os.path.dirname(source) or ".", [os.path.basename(source)]
    for name in names:
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            nb = json.load(fh)
        _write(lecture_copy(nb), os.path.join(target, name))
    return target if os.path.isdir(source) else os.path.join(target, names[0])


def make_student_copy(source, target, solutions=True):
    """Copy every ``*.ipynb`` in ``source`` to ``target`` with outputs cleared (and, with
    ``solutions=False``, without the worked solutions), skipping any that ``target``
    already has. Returns (created, kept): lists of file names."""
    os.makedirs(target, exist_ok=True)
    created, kept = [], []
    for name in sorted(os.listdir(source)):
        if not name.endswith(".ipynb"):
            continue
        dest = os.path.join(target, name)
        if os.path.exists(dest):
            kept.append(name)
            continue
        with open(os.path.join(source, name), encoding="utf-8") as fh:
            nb = clear_outputs(json.load(fh))
        if not solutions:
            nb = without_solutions(nb)
        _write(nb, dest)
        created.append(name)
    return created, kept


_USAGE = ("usage: python -m llmcourse.student_copy SOURCE_DIR TARGET_DIR [--without-solutions]\n"
          "       python -m llmcourse.student_copy --lecture NOTEBOOK_OR_DIR TARGET_DIR")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--lecture" in argv:
        argv.remove("--lecture")
        if len(argv) != 2:
            print(_USAGE, file=sys.stderr)
            return 2
        try:
            print(make_lecture_copy(*argv))
        except (ValueError, OSError) as e:
            print(f"lecture: {e}" if isinstance(e, OSError) else str(e), file=sys.stderr)
            return 2
        return 0
    solutions = "--without-solutions" not in argv
    argv = [a for a in argv if a != "--without-solutions"]
    if len(argv) != 2:
        print(_USAGE, file=sys.stderr)
        return 2
    created, kept = make_student_copy(*argv, solutions=solutions)
    target = argv[1]
    if created:
        print(f"Your working copy: {len(created)} notebook(s) copied to {target}/ with outputs "
              "cleared.")
    if kept:
        print(f"Kept your own work in {target}/ ({len(kept)} notebook(s) not overwritten; delete "
              "one to get a fresh copy).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
