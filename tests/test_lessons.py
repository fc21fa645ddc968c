"""One lesson, one class: what every lesson notebook must be, checked as a reader meets it.

- It fits one 75-minute class: its time stated at the top, at most about 3,000 words of
  prose (worked solutions and references not counted), at most six exercises.
- No paragraph is written twice.
- Each exercise stands under its own heading, ids in the order they appear, its prompt
  written once (the notebook's; the registry reads it back), checked in the cell after it;
  a derive exercise says what it may call, exactly as the checker enforces it.
- Each worked solution sits in its own collapsed cell after the exercises and, taken
  verbatim from the notebook, passes its checker in a fresh interpreter, as a student
  pastes it after the lesson's first cell.
- A derive cell (tag ``derive``) that computes a lesson's number from one model's config
  fields is run again on the other models its metadata names (``llmcourse.also``), where
  its own check against the engine must hold: a number typed in where a config field
  belongs fails there.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import llmcourse as lc
from llmcourse.exercises import base
from llmcourse.exercises.prompts import HEADING, prompts_in, worked_solutions

pytestmark = pytest.mark.lessons

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

# the course in teaching order; appendices (``appendix_*.ipynb``) are reference, not lessons
LESSONS = ["00_start_here_anatomy", "01_heads_and_head_dim", "02_gqa_and_kv_cache",
           "03_caches_that_shrink", "04_caches_that_stop_growing", "05_ffn_sizing",
           "06_depth_and_width", "07_moe_vs_dense", "08_whatif_lab", "09_will_it_fit",
           "10_how_fast", "11_training_memory", "12_training_compute"]
MAX_WORDS, MAX_EXERCISES, MAX_MINUTES = 3000, 6, 75
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")


def _cells(stem):
    return json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]


def _src(cell):
    return "".join(cell["source"])


def _markdown(stem):
    return [(i, _src(c)) for i, c in enumerate(_cells(stem)) if c["cell_type"] == "markdown"]


def prose_words(stem):
    """Words of Markdown prose a class reads: worked solutions (``<details>`` cells) and
    the references list are not counted."""
    n = 0
    for _, text in _markdown(stem):
        if "<details" in text:
            continue
        text = re.split(r"^#{1,3} References\b", text, flags=re.M)[0]
        n += len(_WORD.findall(text))
    return n


def test_the_course_is_these_lessons_in_teaching_order():
    stems = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    assert stems == LESSONS
    for p in NOTEBOOKS.glob("*.ipynb"):
        assert p.stem in LESSONS or p.stem.startswith("appendix_"), \
            f"{p.name}: a lesson is NN_topic.ipynb, reference material appendix_topic.ipynb"


@pytest.mark.parametrize("stem", LESSONS)
def test_a_lesson_fits_one_class(stem):
    first = _markdown(stem)[0][1]
    m = re.search(r"\*\*Time:\*\*\s*about (\d+) minutes", first)
    assert m, f"{stem}: state the class time at the top ('**Time:** about 70 minutes ...')"
    assert int(m.group(1)) <= MAX_MINUTES, f"{stem}: {m.group(1)} minutes is more than one class"
    words = prose_words(stem)
    assert words <= MAX_WORDS, f"{stem}: {words:,} words of prose; one class holds {MAX_WORDS:,}"
    mine = lc.exercises.list_exercises(notebook=stem)
    assert 3 <= len(mine) <= MAX_EXERCISES, f"{stem}: {len(mine)} exercises"
    assert len({ex.kind for ex in mine}) >= 2, f"{stem}: exercises of one kind only"


@pytest.mark.parametrize("stem", LESSONS + sorted(p.stem for p in NOTEBOOKS.glob("appendix_*.ipynb")))
def test_no_paragraph_is_written_twice(stem):
    seen = {}
    for i, text in _markdown(stem):
        for para in re.split(r"\n\s*\n", text):
            para = " ".join(para.split())
            if len(para) >= 200:
                assert para not in seen, f"{stem}: cells {seen[para]} and {i} repeat: {para[:80]}..."
                seen[para] = i


@pytest.mark.parametrize("stem", LESSONS)
def test_each_exercise_stands_under_its_own_heading_in_order(stem):
    cells = _cells(stem)
    prompts = prompts_in(stem)
    registered = {ex.id: ex for ex in lc.exercises.list_exercises(notebook=stem)}
    ids = [p.id for p in prompts]
    assert sorted(ids) == sorted(registered), \
        f"{stem}: headings {ids} but the registry has {sorted(registered)}"
    assert len(set(ids)) == len(ids), f"{stem}: an exercise heading appears twice"
    prefix = ids[0].split("-")[0]
    assert ids == [f"{prefix}-{n}" for n in range(1, len(ids) + 1)], \
        f"{stem}: ids must run {prefix}-1, {prefix}-2, ... in the order they appear: {ids}"
    for p in prompts:
        ex = registered[p.id]
        assert p.kind == ex.kind, f"{p.id}: heading says {p.kind}, registry {ex.kind}"
        assert len(HEADING.findall(_src(cells[p.cell]))) == 1, \
            f"{p.id}: one exercise per Markdown cell"
        nxt = next(c for c in cells[p.cell + 1:] if c["cell_type"] == "code")
        assert f'lc.exercises.check("{p.id}"' in _src(nxt), \
            f"{p.id}: the code cell after its prompt checks it"
        assert len(p.text) > 40, f"{p.id}: the prompt is missing"
        if ex.rel_tol:
            assert re.search(r"within|decimal", p.text), f"{p.id}: say how close counts as right"
        if ex.kind == "concept":
            assert tuple(k for k, _ in p.options) == ex.letters, \
                f"{p.id}: the notebook lists options {[k for k, _ in p.options]}, the " \
                f"registry gives feedback for {list(ex.letters)}"
        if ex.kind == "derive":
            assert p.may_call == base.allowed_words(ex.allowed) + ".", \
                f"{p.id}: its prompt must say '**May call:** {base.allowed_words(ex.allowed)}.'"
    checked = [m.group(1) for c in cells if c["cell_type"] == "code"
               for m in re.finditer(r'lc\.exercises\.check\("([a-z]+-\d+)"', _src(c))]
    assert checked == ids, f"{stem}: exercises are checked in the order {checked}"


def test_concept_answers_are_not_given_away_by_their_length_or_letter():
    """A student who always picks the longest option, or always (b), must not pass."""
    concepts = [ex for ex in lc.exercises.EXERCISES.values() if ex.kind == "concept"]
    assert len(concepts) >= 8
    for ex in concepts:
        assert ex.options, f"{ex.id}: its notebook lists no options"
    longest = [ex.id for ex in concepts
               if len(ex.options[ex.correct]) >= max(len(v) for v in ex.options.values())]
    assert len(longest) <= len(concepts) // 3, f"the correct option is the longest in {longest}"
    letters = [ex.correct for ex in concepts]
    common = max(set(letters), key=letters.count)
    assert letters.count(common) <= 0.4 * len(letters), \
        f"({common}) is correct in {letters.count(common)} of {len(letters)} questions"
    assert len(set(letters)) >= 3


@pytest.mark.parametrize("stem", LESSONS)
def test_worked_solutions_are_collapsed_one_a_cell_after_the_exercises(stem):
    cells = _cells(stem)
    solutions = worked_solutions(stem)
    ids = [p.id for p in prompts_in(stem)]
    assert sorted(s.id for s in solutions) == sorted(ids), \
        f"{stem}: solutions for {[s.id for s in solutions]}, exercises {ids}"
    last_check = max(i for i, c in enumerate(cells)
                     if c["cell_type"] == "code" and "exercises.check(" in _src(c))
    for s in solutions:
        text = _src(cells[s.cell])
        assert s.cell > last_check, f"{s.id}: its worked solution sits above an exercise"
        assert text.count("<details") == 1, f"{s.id}: one worked solution per cell"
        assert not re.search(r"^#{1,3} ", text, re.M), \
            f"{s.id}: a solution cell holds the solution only (no summary or heading)"
        assert f'lc.exercises.check("{s.id}"' in s.code, \
            f"{s.id}: the worked solution ends by checking itself"


# --- every worked solution, verbatim, in a fresh interpreter -------------------------------

_RUN_SOLUTION = r"""
import ast, json, sys
setup, code = json.load(sys.stdin)
ns = {}
exec(compile(setup, "<the lesson's first cell>", "exec"), ns)
tree = ast.parse(code)
last = tree.body.pop()
exec(compile(tree, "<worked solution>", "exec"), ns)
verdict = eval(compile(ast.Expression(last.value), "<check>", "eval"), ns)
print(json.dumps({"ok": bool(verdict), "text": str(verdict)}))
"""


def _setup_cell(stem):
    """The lesson's first code cell (its imports), without IPython magics."""
    first = next(_src(c) for c in _cells(stem) if c["cell_type"] == "code")
    return "\n".join(line for line in first.splitlines() if not line.lstrip().startswith(("%", "!")))


def _all_solutions():
    return [pytest.param(stem, s, id=s.id) for stem in LESSONS if (NOTEBOOKS / f"{stem}.ipynb").exists()
            for s in worked_solutions(stem)]


@pytest.mark.parametrize("stem,solution", _all_solutions())
def test_worked_solution_as_printed_passes_its_checker(stem, solution):
    tree = ast.parse(solution.code)
    last = tree.body[-1]
    assert isinstance(last, ast.Expr) and "exercises.check" in ast.unparse(last.value), \
        f"{solution.id}: the solution's last line is lc.exercises.check(\"{solution.id}\", ...)"
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _RUN_SOLUTION], input=json.dumps(
        [_setup_cell(stem), solution.code]), capture_output=True, text=True, env=env,
        cwd=NOTEBOOKS, timeout=120)
    assert out.returncode == 0, f"{solution.id}: the worked solution raised:\n{out.stderr[-2000:]}"
    verdict = json.loads(out.stdout.strip().splitlines()[-1])
    assert verdict["ok"], f"{solution.id}: its own checker says: {verdict['text']}"


# --- derive cells hold for a second model --------------------------------------------------

_RUN_DERIVE = r"""
import copy, json, re, sys, traceback
import matplotlib
matplotlib.use("Agg")
cells = json.load(sys.stdin)
ns, failures = {"__name__": "__main__"}, []
for c in cells:
    src = "\n".join(l for l in c["source"].splitlines() if not l.lstrip().startswith(("%", "!")))
    exec(compile(src, f"<cell {c['index']}>", "exec"), ns)
    for other in c.get("also", ()):
        again = src.replace(json.dumps(c["model"]), json.dumps(other))
        try:
            exec(compile(again, f"<cell {c['index']} on {other}>", "exec"), dict(ns))
        except Exception as e:
            failures.append(f"cell {c['index']} on {other}: {type(e).__name__}: {e}")
print(json.dumps(failures))
"""
_LOADS = re.compile(r'lc\.load_model\(("[^"]+")\)')


def _is_derive_check(src):
    """A cell that loads a model and asserts its own arithmetic against the engine."""
    return bool(_LOADS.search(src)) and bool(re.search(r"^\s*assert\b.*\blc\.", src, re.M))


@pytest.mark.parametrize("stem", LESSONS)
def test_derive_cells_read_config_fields_and_hold_for_a_second_model(stem):
    cells, plan, derive = _cells(stem), [], 0
    for i, c in enumerate(cells):
        if c["cell_type"] != "code":
            continue
        src = _src(c)
        entry = {"index": i, "source": src}
        tags = c.get("metadata", {}).get("tags", [])
        if _is_derive_check(src) and "derive" not in tags:
            pytest.fail(f"{stem} cell {i} checks its arithmetic against the engine: tag it "
                        "'derive' and name a second model in its metadata (llmcourse.also)")
        if "derive" in tags:
            derive += 1
            m = _LOADS.search(src)
            assert m, f"{stem} cell {i}: a derive cell loads its model by name (lc.load_model)"
            also = c["metadata"].get("llmcourse", {}).get("also", [])
            model = json.loads(m.group(1))
            assert also and model not in also, \
                f"{stem} cell {i}: name a second model of the same kind (metadata llmcourse.also)"
            entry.update(model=model, also=also)
        plan.append(entry)
    assert derive >= 1, f"{stem}: no derive cell (the lesson's arithmetic, checked by the engine)"
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _RUN_DERIVE], input=json.dumps(plan),
                         capture_output=True, text=True, env=env, cwd=NOTEBOOKS, timeout=300)
    assert out.returncode == 0, f"{stem}: the lesson's cells raised:\n{out.stderr[-3000:]}"
    failures = json.loads(out.stdout.strip().splitlines()[-1])
    assert not failures, f"{stem}: derive cells that do not hold on another model: {failures}"
