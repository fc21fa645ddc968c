"""One test over the exercise registry, and the checker's behaviour per kind.

Every registered exercise is fed its own worked solution (it must pass) and each of
its own wrong answers (each must fail with feedback, never revealing the expected
value). Each notebook has at least three exercises of at least two kinds, checks
each one in a cell, and has a collapsed worked solution for each at its end.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

import llmcourse as lc
from llmcourse.exercises import base

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
EXS = lc.exercises.EXERCISES


def _notebook_text(stem):
    cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    return cells


def _solution(ex):
    return ex.expected() if ex.kind == "predict" else ex.solution


@pytest.mark.parametrize("ex_id", sorted(EXS))
def test_worked_solution_passes(ex_id):
    ex = EXS[ex_id]
    verdict = lc.exercises.check(ex_id, _solution(ex))
    assert verdict, verdict
    assert verdict.startswith(f"[{ex_id}] Right") and "Right. Right" not in verdict


@pytest.mark.parametrize("ex_id", sorted(EXS))
def test_wrong_answers_fail_with_feedback(ex_id):
    ex = EXS[ex_id]
    assert ex.wrong, f"{ex_id}: record at least one wrong answer as data"
    for wrong in ex.wrong:
        verdict = lc.exercises.check(ex_id, wrong)
        assert not verdict, f"{ex_id}: {wrong!r} was accepted"
        prefix = f"[{ex_id}] Not yet: "
        assert verdict.startswith(prefix) and len(verdict) > len(prefix) + 10, verdict
        if ex.kind == "predict" and not isinstance(ex.expected(), bool):
            expected = ex.expected()
            shown = f"{expected:,}" if isinstance(expected, int) else None
            assert shown is None or shown not in verdict or shown in f"{wrong:,}", \
                f"{ex_id}: the feedback reveals the expected value: {verdict}"


@pytest.mark.parametrize("ex_id", sorted(EXS))
def test_no_answer_yet_and_type_errors(ex_id):
    ex = EXS[ex_id]
    assert "No answer yet" in lc.exercises.check(ex_id, None)
    if ex.kind == "predict" and not isinstance(ex.expected(), bool):
        assert "give a number" in lc.exercises.check(ex_id, str(ex.expected()))
    if ex.kind == "derive":
        assert "give a function" in lc.exercises.check(ex_id, 42)
    if ex.kind == "concept":
        assert "one letter" in lc.exercises.check(ex_id, "zz")


def test_every_notebook_has_exercises_of_two_kinds_with_worked_solutions():
    stems = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]*_*.ipynb"))  # 02b included
    assert len(stems) >= 7
    for ex in EXS.values():
        assert ex.notebook in stems, f"{ex.id}: no notebook {ex.notebook!r}"
    for stem in stems:
        mine = lc.exercises.list_exercises(notebook=stem)
        kinds = {ex.kind for ex in mine}
        assert len(mine) >= 3 and len(kinds) >= 2, f"{stem}: {len(mine)} exercises, kinds {kinds}"
        cells = _notebook_text(stem)
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        md = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for ex in mine:
            assert f'check("{ex.id}"' in code, f"{stem} never checks {ex.id}"
            assert re.search(rf"<details>\s*<summary>[^<]*{re.escape(ex.id)}\b", md), \
                f"{stem} has no collapsed worked solution for {ex.id}"
        # the worked solutions come after the last check
        last_check = max(i for i, c in enumerate(cells)
                         if c["cell_type"] == "code" and "exercises.check(" in "".join(c["source"]))
        first_solution = min(i for i, c in enumerate(cells)
                             if c["cell_type"] == "markdown" and "<details>" in "".join(c["source"]))
        assert first_solution > last_check, f"{stem}: a worked solution sits above an exercise"


def test_list_exercises_by_notebook_and_kind():
    all_ = lc.exercises.list_exercises()
    assert len(all_) == len(EXS)
    for kind in base.KINDS:
        for ex in lc.exercises.list_exercises(kind=kind):
            assert ex.kind == kind
    by_number = lc.exercises.list_exercises(notebook="02")
    assert by_number and all(ex.notebook.startswith("02_") for ex in by_number)
    with pytest.raises(ValueError, match="kind"):
        lc.exercises.list_exercises(kind="quiz")


# --- the checker itself, on exercises made up here --------------------------------------

@pytest.fixture
def toy():
    made = []

    def register(fn, id, *args, **kw):
        made.append(id)
        return fn(id, "99_toy", *args, **kw)
    yield register
    for id in made:
        EXS.pop(id, None)


def test_predict_feedback_is_proportionate(toy):
    toy(base.predict, "toy-p", "bytes?", lambda: 1000, "because", unit="bytes",
        mistakes=((lambda: 2000, "you counted the tied lm_head twice"),))
    assert lc.exercises.check("toy-p", 1000)
    # whole numbers: the difference itself, beside the percentage
    assert "170 bytes high (17%)" in lc.exercises.check("toy-p", 1170)
    assert "50 bytes low (5%)" in lc.exercises.check("toy-p", 950)
    assert "11.7% high" in lc.exercises.check("toy-p", 1117.5)
    assert lc.exercises.check("toy-p", 1000.0)  # a whole-number float is that number
    assert "3× too small" in lc.exercises.check("toy-p", 333.3333)
    assert "43,000× too large" in lc.exercises.check("toy-p", 43_000_000)
    assert "tied lm_head twice" in lc.exercises.check("toy-p", 2000)
    assert "give a number" in lc.exercises.check("toy-p", "1000")
    assert "give a number" in lc.exercises.check("toy-p", [1000])
    assert lc.exercises.check("toy-p", Fraction(1000))
    assert not lc.exercises.check("toy-p", float("nan"))
    # exact means exact: 0.01% off is not right, and says the check wants the exact value
    assert "exact value" in lc.exercises.check("toy-p", 1000.1)
    assert "less than 0.001% high" in lc.exercises.check("toy-p", 1000.000001)
    assert "e-0" not in lc.exercises.check("toy-p", 1000.000001)
    # wording: "X is of the wrong sign", "X is zero, and it is not"
    assert "-1,000 bytes is of the wrong sign" in lc.exercises.check("toy-p", -1000)
    assert "0 bytes is zero, and it is not" in lc.exercises.check("toy-p", 0)


def test_an_answer_in_billions_or_gib_is_named(toy):
    toy(base.predict, "toy-big", "parameters?", lambda: 8_030_261_248, "because")
    v = lc.exercises.check("toy-big", 8.03)
    assert not v and "billions" in v and "8,030,261,248" not in v
    toy(base.predict, "toy-gib", "bytes?", lambda: 16_060_522_496, "because", unit="bytes")
    assert "GiB" in lc.exercises.check("toy-gib", 14.96)
    assert "billions (or GB)" in lc.exercises.check("toy-gib", 16.06)


def test_predict_with_tolerance_and_booleans(toy):
    toy(base.predict, "toy-t", "percent?", lambda: 41.6, "because", rel_tol=0.01)
    assert lc.exercises.check("toy-t", 41.9)
    assert "the check accepts within 1%" in lc.exercises.check("toy-t", 42.2)
    toy(base.predict, "toy-b", "does it grow?", lambda: False, "because")
    assert lc.exercises.check("toy-b", False)
    assert not lc.exercises.check("toy-b", True)
    assert "True or False" in lc.exercises.check("toy-b", 0)


def test_derive_runs_the_readers_function_on_every_case(toy):
    ref = lambda cfg: lc.param_count(cfg).embedding  # noqa: E731
    mine = lambda cfg: cfg.vocab_size * cfg.hidden_size  # noqa: E731
    toy(base.derive, "toy-d", "params?", ref, ["Qwen3-0.6B", "Mixtral-8x7B-v0.1"], "because",
        solution=mine)
    assert lc.exercises.check("toy-d", mine)
    # the engine's own answer is not a derivation: its counting functions refuse
    for engine in (ref, lambda cfg: lc.counts.param_count(cfg).embedding,
                   lambda cfg: lc.weight_shapes(cfg)["numel"].iloc[0]):
        v = lc.exercises.check("toy-d", engine)
        assert not v and "compute it from the config's fields" in v, v
    assert lc.param_count("Qwen3-0.6B").embedding == 155_582_464  # and they come back
    ref = mine
    v = lc.exercises.check("toy-d", lambda cfg: ref(cfg) if cfg.model_type == "qwen3" else 0)
    assert not v and "Mixtral-8x7B-v0.1" in v
    v = lc.exercises.check("toy-d", lambda cfg: cfg.no_such_field)
    assert not v and "AttributeError" in v and "Traceback" not in v
    assert "give a function" in lc.exercises.check("toy-d", 3)
    assert "forget `return`? " in lc.exercises.check("toy-d", lambda cfg: None) + " "
    assert "?." not in lc.exercises.check("toy-d", lambda cfg: None)


def test_design_and_concept(toy):
    def validate(cfg):
        kv = lc.kv_cache_bytes(cfg, 32768, 16)
        return kv < 40 * 2**30, f"the cache is {kv / 2**30:.1f} GiB"
    toy(base.design, "toy-g", "design", lambda n: validate(
        lc.load_model("Meta-Llama-3-8B").replace(num_key_value_heads=n)), "because", solution=4)
    assert lc.exercises.check("toy-g", 4)
    assert not lc.exercises.check("toy-g", 32)
    assert "not a valid config" in lc.exercises.check("toy-g", 5)
    toy(base.concept, "toy-c", "which?", {"a": "x", "b": "y"}, "B",
        {"a": "x is the MLP", "b": "y is right"}, "because")
    assert lc.exercises.check("toy-c", "b") and lc.exercises.check("toy-c", " B ")
    assert lc.exercises.check("toy-c", "(b)") and lc.exercises.check("toy-c", "b)")
    assert "x is the MLP" in lc.exercises.check("toy-c", "a")
    assert "one letter" in lc.exercises.check("toy-c", 2)
    with pytest.raises(ValueError, match="feedback"):
        base.concept("toy-c2", "99_toy", "q", {"a": "x", "b": "y"}, "a", {}, "why")


def test_lecture_mode_prints_nothing_for_an_unanswered_exercise(toy, monkeypatch):
    toy(base.predict, "toy-v", "q", lambda: 1, "because")
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")
    assert str(lc.exercises.check("toy-v", None)) == ""
    assert lc.exercises.check("toy-v", 1)


# --- the registry as a student meets it (issue 22) -------------------------------------

def test_concept_answers_are_not_given_away_by_their_length_or_letter():
    """A student who always picks the longest option, or always (b), must not pass."""
    concepts = [ex for ex in EXS.values() if ex.kind == "concept"]
    assert len(concepts) >= 8
    longest = [ex.id for ex in concepts
               if len(ex.options[ex.correct]) >= max(len(v) for v in ex.options.values())]
    assert len(longest) <= len(concepts) // 3, f"the correct option is the longest in {longest}"
    letters = [ex.correct for ex in concepts]
    common = max(set(letters), key=letters.count)
    assert letters.count(common) <= 0.4 * len(letters), \
        f"({common}) is correct in {letters.count(common)} of {len(letters)} questions"
    assert len(set(letters)) >= 3


@pytest.mark.parametrize("ex_id", sorted(e.id for e in EXS.values() if e.rel_tol))
def test_every_tolerance_is_stated_in_the_question(ex_id):
    ex = EXS[ex_id]
    assert re.search(r"within|decimal", ex.question), f"{ex_id}: say how close counts as right"


def test_concept_options_in_the_notebooks_are_the_registrys():
    """A notebook that lists a concept question's options lists the registry's, under the
    same letters: a reworded or re-lettered option must not leave the lesson behind."""
    listed_somewhere = 0
    for ex in (e for e in EXS.values() if e.kind == "concept"):
        for cell in _notebook_text(ex.notebook):
            src = "".join(cell["source"])
            if cell["cell_type"] != "markdown" or ex.id not in src or "<details>" in src:
                continue
            listed = re.findall(r"^- \*\*\(?([a-d])[.)]?\)?\*\*\s*(.+)$", src, re.M)
            if listed:
                listed_somewhere += 1
                assert dict(listed) == ex.options, f"{ex.id}: the notebook's options differ"
    assert listed_somewhere >= 5  # most lessons list them in Markdown
