"""A student's working copy of the course: every notebook with its outputs cleared.

The repository keeps the notebooks executed top to bottom (for reading on the web, and
for nbval, which checks every stored output). A student should not see an exercise's
answer in a stored output before working it out, so ``make course`` opens this copy:

    python -m llmcourse.student_copy notebooks student

Each notebook is copied once. A copy that exists is never overwritten: it is the
student's work. A notebook added to the course later is copied on the next run.
For graded work, ``--without-solutions`` leaves out the worked-solution cells (each a
collapsed ``<details><summary>Solution ...`` cell at a lesson's end):

    python -m llmcourse.student_copy notebooks student --without-solutions

Standard library only.
"""

from __future__ import annotations

import json
import os
import sys

__all__ = ["clear_outputs", "without_solutions", "make_student_copy"]


def clear_outputs(nb):
    """The notebook dict with every code cell's outputs and execution count cleared."""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return nb


def without_solutions(nb):
    """The notebook dict without its worked-solution cells."""
    nb["cells"] = [c for c in nb.get("cells", [])
                   if not (c.get("cell_type") == "markdown"
                           and "<summary>Solution " in "".join(c.get("source", [])))]
    return nb


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
        tmp = dest + ".partial"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(nb, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
        os.replace(tmp, dest)  # never a half-written notebook
        created.append(name)
    return created, kept


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    solutions = "--without-solutions" not in argv
    argv = [a for a in argv if a != "--without-solutions"]
    if len(argv) != 2:
        print("usage: python -m llmcourse.student_copy SOURCE_DIR TARGET_DIR "
              "[--without-solutions]", file=sys.stderr)
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
