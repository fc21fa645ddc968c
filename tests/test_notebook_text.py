"""What every notebook says to a reader, whoever wrote it: one title style, claims named
by what they are (a reader never saw the study notes' file names), no nbval marker in
sight, and outputs stored from one top-to-bottom run on a fresh kernel."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# lessons NN_topic.ipynb (the list and its order: tests/test_lessons.py), appendices appendix_*.ipynb
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + \
    sorted((ROOT / "notebooks").glob("appendix_*.ipynb"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_reads_as_a_lesson(nb):
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells)
    if nb.stem.startswith("appendix_"):
        assert text.startswith("# Appendix · "), "title: '# Appendix · Title'"
    else:
        number = int(nb.stem.split("_")[0])
        assert text.startswith(f"# Lesson {number} · "), "title: '# Lesson N · Title'"
    assert not re.search(r"seed\s*_?\d", text, re.I), "a claim named by a seed file, not by what it is"
    assert "NBVAL_IGNORE_OUTPUT" not in text, "use the cell tag nbval-ignore-output"
    code = [c for c in cells if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1)), \
        "stored outputs must come from one top-to-bottom run on a fresh kernel"
    assert not any(o.get("output_type") == "error" for c in code for o in c.get("outputs", []))
    # a projector at 1280x720: every stored figure shows its title and x axis together
    for c in code:
        for o in c.get("outputs", []):
            shown = o.get("metadata", {}).get("image/png", {})
            if "image/png" in o.get("data", {}):
                assert shown and shown["height"] <= 500, \
                    f"a figure shown {shown.get('height')} px tall: at most 500 on a 720-px screen"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_without_volatile_metadata(nb):
    """Re-running a notebook changes only what its content changes: no execution
    timestamps, widget ids numbered as tools/notebooks.py numbers them (make notebooks)."""
    spec = importlib.util.spec_from_file_location("notebook_tool", ROOT / "tools" / "notebooks.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    stored = nb.read_text(encoding="utf-8")
    assert tool.dump(tool.normalise(json.loads(stored), nb.stem)) == stored, \
        "volatile metadata stored: run make notebooks"
