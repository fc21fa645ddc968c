"""Execute the course's notebooks on fresh kernels and store them without volatile metadata.

    python tools/notebooks.py notebooks/*.ipynb        # execute, normalise, write in place
    python tools/notebooks.py --normalise-only FILE...  # normalise stored outputs only
    python tools/notebooks.py --check FILE...           # exit 1 if a file is not normalised

Stored outputs are what nbval checks and what a reader sees on the web, so they come from
one top-to-bottom run on a fresh kernel. What a re-run changes without any change of
content is taken out, so that re-running one notebook after a one-line edit changes only
the lines that edit changes: each cell's execution timestamps are dropped, and the widget
models' random ids are renumbered in the order the run created them (the same run gives
the same ids, and a stored widget still renders: every reference is renamed with it), and
consecutive prints to one stream are stored as one output (the kernel's split of them into
messages depends on timing).

It also marks what is the student's (``llmcourse.student_copy``, the one rule): every
exercise prompt, answer cell, worked solution, the "How to use this course" cell and any
homework carries the cell tag ``student``, and no other cell does; a Markdown cell where
teaching text and an exercise meet is split at the exercise's heading. ``make lecture``
serves a copy without those cells.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

from llmcourse.student_copy import mark_student_cells

_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")


def _widget_order(nb: dict, state: dict) -> list:
    """The widget models in an order one run always gives: from each output that shows a
    widget, in cell order, depth first through the models it refers to (keys sorted);
    then any model no output reaches, by its kind and content."""
    order, seen = [], set()

    def visit(mid):
        if mid in seen or mid not in state:
            return
        seen.add(mid)
        order.append(mid)
        refs = json.dumps(state[mid].get("state", {}), sort_keys=True)
        for ref in _ID.findall(refs):
            visit(ref)

    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view:
                visit(view.get("model_id"))
    rest = sorted((m for m in state if m not in seen),
                  key=lambda m: _ID.sub("", json.dumps(state[m], sort_keys=True)))
    for mid in rest:
        visit(mid)
    return order


def _coalesce_streams(outputs: list) -> list:
    """Consecutive prints to one stream as one output: how the kernel splits them into
    messages depends on timing, so the stored notebook would change from run to run
    (nbval compares the merged text)."""
    out = []
    for o in outputs:
        if (o.get("output_type") == "stream" and out and out[-1].get("output_type") == "stream"
                and out[-1].get("name") == o.get("name")):
            prev = out[-1]["text"]
            prev = "".join(prev) if isinstance(prev, list) else prev
            new = "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
            text = prev + new
            out[-1] = {**out[-1], "text": text.splitlines(keepends=True)
                       if isinstance(o["text"], list) else text}
        else:
            out.append(o)
    return out


def normalise(nb: dict, name: str) -> dict:
    """The notebook without volatile metadata, its student cells tagged (see the module
    docstring)."""
    mark_student_cells(nb)
    for cell in nb.get("cells", []):
        cell.get("metadata", {}).pop("execution", None)
        if "outputs" in cell:
            cell["outputs"] = _coalesce_streams(cell["outputs"])
    widgets = nb.get("metadata", {}).get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {})
    state = widgets.get("state", {})
    if not state:
        return nb
    order = _widget_order(nb, state)
    mapping = {old: hashlib.sha1(f"{name}:{n}".encode()).hexdigest()[:32]
               for n, old in enumerate(order)}
    widgets["state"] = {mid: state[mid] for mid in order}
    text = _ID.sub(lambda m: mapping.get(m.group(0), m.group(0)), json.dumps(nb, ensure_ascii=False))
    return json.loads(text)


def dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def execute(path: Path, timeout: int = 600) -> dict:
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return json.loads(nbformat.writes(nb))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--normalise-only", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    bad = []
    for path in args.files:
        stored = path.read_text(encoding="utf-8")
        if args.check:
            if dump(normalise(json.loads(stored), path.stem)) != stored:
                bad.append(path.name)
            continue
        nb = json.loads(stored) if args.normalise_only else execute(path)
        out = dump(normalise(nb, path.stem))
        if out != stored:
            path.write_text(out, encoding="utf-8")
        print(f"{path.name}: {'unchanged' if out == stored else 'written'}")
    if bad:
        print("not normalised (run: make notebooks): " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
