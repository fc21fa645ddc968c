"""What is the student's in a lesson, marked by one rule and left out of the lecture copy.

The rule (``llmcourse.student_copy.student_material``) on cells written here with the
answer worked out by hand; the stored notebooks tagged by it (``student``, written by
``make notebooks``), cell for cell; and the lecture copy ``make lecture`` serves, for every
lesson and appendix: none of the student's text, every explorer kept, and no kept cell
that needs a name only a removed cell defines.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import llmcourse as lc
from llmcourse.exercises.prompts import HEADING, prompts_in, worked_solutions
from student_text import student_text_in
from llmcourse.student_copy import (STUDENT_TAG, lecture_copy, main, mark_student_cells,
                                    split_student_cells, split_student_text, student_material)

pytestmark = pytest.mark.course

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LESSONS = [p for p in NOTEBOOKS if re.match(r"\d\d_", p.name)]



def _md(src, **meta):
    return {"cell_type": "markdown", "id": f"m{abs(hash(src)) % 10**8}",
            "metadata": dict(meta), "source": src}


def _code(src, **meta):
    return {"cell_type": "code", "id": f"c{abs(hash(src)) % 10**8}", "execution_count": 3,
            "metadata": dict(meta), "outputs": [{"output_type": "stream", "name": "stdout",
                                                 "text": "x\n"}], "source": src}


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _text(cells):
    return "\n".join("".join(c["source"]) for c in cells)


# --- the rule, on cells written here ---------------------------------------------------------

# (cell, is it the student's?): each answer decided by hand from the rule's wording
LESSON = [
    (_md("# Lesson 9 · Toy\n\n**Time:** about 60 minutes (exercises 20)"), False),
    (_md("## How to use this course\n\nRun the cells from top to bottom."), True),
    (_code("import llmcourse as lc"), False),            # the lesson needs it: not the student's
    (_md("## The idea\n\nA layer holds 4·d² weights."), False),
    (_code("cfg = lc.load_model('gpt2')\nassert 4 * 768**2 > 0"), False),
    (_md("**Homework: a check to run at home.** It needs torch."), True),
    (_code("import torch"), True),                       # the homework's code
    (_code("print(1)"), True),                           # ... up to the next Markdown cell
    (_md("### Before the lab: two predictions\n\nWrite your numbers first."), True),  # only exercises
    (_md("#### Exercise toy-1 · predict\n\nHow many?"), True),
    (_code("answer = None\nlc.exercises.check('toy-1', answer)"), True),
    (_md("## Explorer\n\nMove the slider."), False),
    (_code("lc.widgets.kv_cache_explorer()"), False),
    (_md("<details><summary>Aside · a table, corrected</summary>\n\nText.\n</details>"), False),
    (_md("## Why\n\nLesson 2 showed it. Before reading on, answer:"), False),  # teaching follows
    (_md("### Exercise toy-2 · concept\n\n- **(a)** yes\n- **(b)** no"), True),
    (_code("lc.exercises.hint('toy-2')"), True),
    (_md("The cache is read at every step."), False),
    (_md("```python\n# Exercise in a code block is no heading\n```\nText."), False),
    (_md("## Exercises\n\nWrite your answer in place of `None`."), True),
    (_md("## References\n\n- a paper"), False),          # the solutions below end its section
    (_md("## Worked solutions\n\nTry each exercise first."), True),
    (_md("<details><summary>Solution toy-1 · how many</summary>\n\n```python\n"
         "lc.exercises.check('toy-1', 4)\n```\n</details>"), True),
]


def test_the_rule_marks_what_a_student_reads_as_an_exercise_or_types_into():
    nb = {"cells": [c for c, _ in LESSON]}
    assert student_material(nb) == [mine for _, mine in LESSON]


def test_a_cell_where_teaching_and_an_exercise_meet_splits_at_the_heading():
    text = ("## What-if 2: long context\n\nThe cache outgrows the weights.\n\n"
            "### Exercise toy-3 · design\n\nDesign a what-if.\n\n#### Hint\n\nFewer heads.\n\n"
            "### At 128K\n\nMore text.\n\n## What-if 3\n")
    assert split_student_text(text) == [
        ("## What-if 2: long context\n\nThe cache outgrows the weights.", False),
        ("### Exercise toy-3 · design\n\nDesign a what-if.\n\n#### Hint\n\nFewer heads.", True),
        ("### At 128K\n\nMore text.\n\n## What-if 3\n", False)]
    nb = {"cells": [{"cell_type": "markdown", "id": "abc", "metadata": {},
                     "source": text.splitlines(keepends=True)}]}
    mark_student_cells(nb)
    assert [c["id"] for c in nb["cells"]] == ["abc", "abc-1", "abc-2"]
    assert [c["metadata"].get("tags", []) for c in nb["cells"]] == [[], [STUDENT_TAG], []]
    # the text is kept, cut between the parts
    assert "\n\n".join("".join(c["source"]) for c in nb["cells"]) == text


def test_tags_follow_the_rule_and_other_tags_stay():
    nb = {"cells": [_code("answer = None\nlc.exercises.check('x-1', answer)",
                          tags=["nbval-ignore-output"]),
                    _code("lc.widgets.heads_explorer()", tags=["derive", STUDENT_TAG]),
                    _md("### Exercise x-1 · predict\n\nHow many?", tags=[STUDENT_TAG])]}
    mark_student_cells(nb)
    assert [c["metadata"].get("tags") for c in nb["cells"]] == [
        ["nbval-ignore-output", STUDENT_TAG], ["derive"], [STUDENT_TAG]]
    assert mark_student_cells(json.loads(json.dumps(nb))) == nb   # applying it again: no change


def test_the_lecture_copy_leaves_out_the_students_cells_tagged_or_not():
    nb = {"metadata": {"widgets": {"state": {}}}, "cells": [c for c, _ in LESSON] + [
        _md("## Summary\n\nHand-tagged.", tags=[STUDENT_TAG])]}
    copy = lecture_copy(json.loads(json.dumps(nb)))
    kept = [c for c, mine in LESSON if not mine]
    assert [c["id"] for c in copy["cells"]] == [c["id"] for c in kept]
    assert all(c["outputs"] == [] and c["execution_count"] is None
               for c in copy["cells"] if c["cell_type"] == "code")
    assert "widgets" not in copy["metadata"]


# --- the stored notebooks ---------------------------------------------------------------------

@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_notebooks_tag_exactly_the_students_cells(path):
    """`make notebooks` (tools/notebooks.py) writes the tags; here they are read back."""
    nb = _load(path)
    n = len(nb["cells"])
    assert len(split_student_cells(json.loads(json.dumps(nb)))["cells"]) == n, \
        f"{path.name}: a Markdown cell mixes teaching text and an exercise: run " \
        "python tools/notebooks.py --normalise-only on it"
    wrong = [(i, "".join(c["source"])[:60]) for i, (c, mine)
             in enumerate(zip(nb["cells"], student_material(nb)))
             if mine != (STUDENT_TAG in c.get("metadata", {}).get("tags", []))]
    assert not wrong, f"{path.name}: tag '{STUDENT_TAG}' differs from the rule at cells {wrong} " \
        "(python tools/notebooks.py --normalise-only notebooks/*.ipynb)"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_exercise_its_answer_cell_and_its_solution_are_marked(path):
    """Cross-checked with the exercises' own reader of the notebook (prompts.py): each
    prompt, the code cell that checks it, and its worked solution are the student's."""
    nb = _load(path)
    marks = student_material(split_student_cells(json.loads(json.dumps(nb))))
    cells = split_student_cells(nb)["cells"]
    prompts, solutions = prompts_in(path.stem), worked_solutions(path.stem)
    assert len(prompts) == len(lc.exercises.list_exercises(notebook=path.stem)) >= 3
    assert len(solutions) == len(prompts)
    for p in prompts:
        at = [i for i, c in enumerate(cells) if re.search(
            rf"^###\s+Exercise\s+{re.escape(p.id)}\b", "".join(c["source"]), re.M)]
        assert len(at) == 1 and marks[at[0]], f"{p.id}: its prompt is not marked"
        assert HEADING.match("".join(cells[at[0]]["source"])), f"{p.id}: its cell opens with it"
        checks = [i for i, c in enumerate(cells) if c["cell_type"] == "code"
                  and f'exercises.check("{p.id}"' in "".join(c["source"])]
        assert checks and all(marks[i] for i in checks), f"{p.id}: its answer cell is not marked"
    for s in solutions:
        at = [i for i, c in enumerate(cells) if f"Solution {s.id}" in "".join(c["source"])]
        assert at and all(marks[i] for i in at), f"{s.id}: its worked solution is not marked"


# --- the lecture copy of every notebook -------------------------------------------------------

def _names(tree, ctx):
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ctx):
            out.add(n.id)
        elif ctx is ast.Store and isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif ctx is ast.Store and isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names}
    return out


def _parse(cell):
    return ast.parse("\n".join(line for line in "".join(cell["source"]).splitlines()
                               if not line.lstrip().startswith(("%", "!"))))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_lecture_copy_shows_no_student_text_and_keeps_every_explorer(path):
    nb = _load(path)
    copy = lecture_copy(json.loads(json.dumps(nb)))
    found = student_text_in(_text(copy["cells"]))
    assert not found, f"{path.name}: the lecture copy still says {found}"
    if path in LESSONS:  # the same check finds the student's text in the lesson itself
        assert student_text_in(_text(nb["cells"]))
    explorers = [c["source"] for c in nb["cells"] if c["cell_type"] == "code"
                 and "lc.widgets." in "".join(c["source"])]
    assert explorers == [c["source"] for c in copy["cells"] if "lc.widgets." in "".join(c["source"])]
    if path in LESSONS:
        assert explorers, f"{path.name}: a lesson without an explorer"
    else:  # the appendices hold no exercise: their lecture copy is the whole notebook
        assert [c["source"] for c in copy["cells"]] == [c["source"] for c in nb["cells"]]
    # the copy runs top to bottom: no kept cell needs a name only a left-out cell defines
    whole = split_student_cells(nb)
    left_out, kept = {}, set()
    for i, (c, mine) in enumerate(zip(whole["cells"], student_material(whole))):
        if c["cell_type"] != "code":
            continue
        tree = _parse(c)
        if mine:
            left_out.update({n: i for n in _names(tree, ast.Store) if n not in left_out})
            continue
        missing = {n: left_out[n] for n in _names(tree, ast.Load) - kept if n in left_out}
        assert not missing, f"{path.name} cell {i} needs {missing} (name: cell left out)"
        kept |= _names(tree, ast.Store)


def test_the_dependency_check_sees_a_name_from_a_left_out_cell():
    """The check above can fail: a kept cell reading an answer cell's variable."""
    nb = {"cells": [_code("answer = None\nlc.exercises.check('x-1', answer)"),
                    _code("print(answer)")]}
    assert student_material(nb) == [True, False]
    assert "answer" in _names(_parse(nb["cells"][0]), ast.Store)
    assert "answer" in _names(_parse(nb["cells"][1]), ast.Load)


def test_the_lecture_command_writes_the_copy_and_prints_what_to_serve(tmp_path, capsys):
    lab = ROOT / "notebooks" / "08_whatif_lab.ipynb"
    assert main(["--lecture", str(lab), str(tmp_path / "one")]) == 0
    served = Path(capsys.readouterr().out.strip())
    assert served == tmp_path / "one" / lab.name
    assert _load(served) == lecture_copy(_load(lab))
    assert main(["--lecture", str(ROOT / "notebooks"), str(tmp_path / "all")]) == 0
    assert Path(capsys.readouterr().out.strip()) == tmp_path / "all"
    assert sorted(p.name for p in (tmp_path / "all").glob("*.ipynb")) == [p.name for p in NOTEBOOKS]
    assert main(["--lecture", str(ROOT / "README.md"), str(tmp_path / "x")]) == 2
    assert "not a notebook" in capsys.readouterr().err
