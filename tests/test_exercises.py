"""One test over the exercise registry, and the checker's behaviour per kind.

Every registered exercise is fed its own recorded solution (it must pass) and each of
its own wrong answers (each must fail with feedback, never revealing the expected
value). How each exercise stands in its notebook (its prompt, its worked solution as
printed, run as a student pastes it) is tests/test_lessons.py's.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

import llmcourse as lc
from llmcourse.exercises import base

EXS = lc.exercises.EXERCISES


def _solution(ex):
    return ex.expected() if ex.kind == "predict" else ex.solution


@pytest.mark.parametrize("ex_id", sorted(EXS))
def test_worked_solution_passes(ex_id):
    ex = EXS[ex_id]
    verdict = lc.exercises.check(ex_id, _solution(ex))
    assert verdict, verdict
    assert verdict.startswith(f"[{ex_id}] Right") and "Right. Right" not in verdict
    if verdict.startswith(f"[{ex_id}] Right. "):
        after = verdict[len(f"[{ex_id}] Right. "):]
        assert not re.match(r"[a-z]{2,}[ :]", after), \
            f"{ex_id}: a sentence opens in lower case: {verdict}"


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


# --- listed mistakes: named only where the answer is that mistake -------------------------

def _probe(values):
    """An answer function that returns ``values[i]`` on the i-th config the checker runs
    it on (the checker calls it once per case, in order, and stops at the first miss)."""
    calls = iter(values)
    return lambda cfg: next(calls)


def _cases(ex):
    """(config, reference, [(value, feedback) of each listed mistake, None where it gives
    no number there]) for every config a derive exercise checks."""
    out = []
    for cfg in base.case_configs(ex):
        ref = ex.reference(cfg)
        vals = []
        for fn, feedback in ex.mistakes:
            try:
                v = fn(cfg)
            except Exception:
                v = None
            vals.append((v if base._is_number(v) else None, feedback))
        out.append((cfg, ref, vals))
    return out


def _right(v, ref, tol):
    return base._close(base._num(v), base._num(ref), tol)


@pytest.mark.parametrize("ex_id", sorted(i for i in EXS if EXS[i].mistakes))
def test_no_listed_mistake_is_the_right_answer_or_named_where_it_is(ex_id):
    """A listed mistake is a wrong answer: given as the answer it fails and is named (or
    one giving the same value is). A derive mistake may give the right count on some
    configs (forgetting GPT-2's plain MLP is right for phi-2): there it is never named, so
    a student who is wrong there for another reason hears about that reason; and it must
    be wrong on at least one config the exercise checks, or it can never be named."""
    ex = EXS[ex_id]
    if ex.kind == "predict":
        expected = ex.expected()
        for value, feedback in ex.mistakes:
            v = value()
            assert not _right(v, expected, ex.rel_tol), \
                f"{ex_id}: the listed mistake {feedback[:50]!r}... is the right answer ({v!r})"
            verdict = lc.exercises.check(ex_id, v)
            assert not verdict, verdict
            named = [f for val, f in ex.mistakes if base._near(base._num(v), base._num(val()),
                                                                 ex.rel_tol)]
            assert named and named[0].rstrip(".") in verdict, \
                f"{ex_id}: the mistake {feedback[:50]!r} given as the answer is not named: {verdict}"
        return
    assert ex.kind == "derive", f"{ex_id}: only predict and derive exercises list mistakes"
    cases = _cases(ex)
    refs = [ref for _, ref, _ in cases]
    for k, (feedback, _) in enumerate(zip([f for _, f in ex.mistakes], ex.mistakes)):
        wrong_on = [i for i, (_, ref, vals) in enumerate(cases)
                    if vals[k][0] is not None and not _right(vals[k][0], ref, ex.rel_tol)]
        assert wrong_on, (f"{ex_id}: the listed mistake {feedback[:50]!r}... gives the right "
                          f"answer on every config the exercise checks: it can never be named")
    for i, (cfg, ref, vals) in enumerate(cases):
        right_here = [f for v, f in vals if v is not None and _right(v, ref, ex.rel_tol)]
        wrong_here = [v for v, _ in vals if v is not None and not _right(v, ref, ex.rel_tol)]
        off = ref + 1 if isinstance(ref, int) else ref * (1 + 3 * max(ex.rel_tol, 1e-9))
        for w in wrong_here + [off]:
            verdict = lc.exercises.check(ex_id, _probe(refs[:i] + [w]))
            assert not verdict and cfg.name in verdict, verdict
            for f in right_here:
                assert f.rstrip(".") not in verdict, (
                    f"{ex_id}: on {cfg.name} the listed mistake {f[:50]!r}... gives the right "
                    f"answer, yet an answer wrong there for another reason is told it: {verdict}")
            named = [f for v, f in vals if v is not None and _right(v, w, ex.rel_tol)
                     and not _right(v, ref, ex.rel_tol)]
            if named:
                assert named[0].rstrip(".") in verdict, \
                    f"{ex_id}: on {cfg.name} the answer {w!r} is a listed mistake, not named: {verdict}"
            else:
                assert not any(f.rstrip(".") in verdict for _, f in ex.mistakes), \
                    f"{ex_id}: on {cfg.name} {w!r} is no listed mistake, yet one is named: {verdict}"


def test_derive_answers_are_matched_exactly(toy):
    """An exact derive answer names a mistake only when it is that mistake, to the unit:
    0.02% off the right count is 0.02% off, not a rounded mistake."""
    ref = lambda cfg: 3 * cfg.hidden_size * cfg.intermediate_size  # noqa: E731
    near = lambda cfg: 3 * cfg.hidden_size * cfg.intermediate_size + 7  # noqa: E731
    toy(base.derive, "toy-exact", ref, ["Qwen3-0.6B"], "because", solution=ref,
        mistakes=((near, "a mistake 7 parameters above the right count"),))
    v = lc.exercises.check("toy-exact", lambda cfg: ref(cfg) + 6)
    assert not v and "a mistake 7" not in v and "6 high" in v, v
    assert "a mistake 7" in lc.exercises.check("toy-exact", near)


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
    toy(base.predict, "toy-p", lambda: 1000, "because", unit="bytes",
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
    v = lc.exercises.check("toy-p", "1,000 bytes")   # the unit goes, the number stays
    assert "write 1_000, not" in v and "the unit, bytes, is understood" in v, v
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
    toy(base.predict, "toy-big", lambda: 8_030_261_248, "because")
    v = lc.exercises.check("toy-big", 8.03)
    assert not v and "billions" in v and "8,030,261,248" not in v
    toy(base.predict, "toy-gib", lambda: 16_060_522_496, "because", unit="bytes")
    assert "GiB" in lc.exercises.check("toy-gib", 14.96)
    assert "value in GB; the question asks for bytes" in lc.exercises.check("toy-gib", 16.06)


def test_predict_with_tolerance_and_booleans(toy):
    toy(base.predict, "toy-t", lambda: 41.6, "because", rel_tol=0.01)
    assert lc.exercises.check("toy-t", 41.9)
    assert "the check accepts within 1%" in lc.exercises.check("toy-t", 42.2)
    toy(base.predict, "toy-b", lambda: False, "because")
    assert lc.exercises.check("toy-b", False)
    assert not lc.exercises.check("toy-b", True)
    assert "True or False" in lc.exercises.check("toy-b", 0)


def test_derive_runs_the_readers_function_on_every_case(toy):
    ref = lambda cfg: lc.param_count(cfg).embedding  # noqa: E731
    mine = lambda cfg: cfg.vocab_size * cfg.hidden_size  # noqa: E731
    toy(base.derive, "toy-d", ref, ["Qwen3-0.6B", "Mixtral-8x7B-v0.1"], "because",
        solution=mine)
    assert lc.exercises.check("toy-d", mine)
    # the engine's own answer is not a derivation: its counting functions refuse
    for engine in (ref, lambda cfg: lc.counts.param_count(cfg).embedding,
                   lambda cfg: lc.weight_shapes(cfg)["numel"].iloc[0]):
        v = lc.exercises.check("toy-d", engine)
        assert not v and "compute yourself from the config's fields" in v, v
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
    toy(base.design, "toy-g", lambda n: validate(
        lc.load_model("Meta-Llama-3-8B").replace(num_key_value_heads=n)), "because", solution=4)
    assert lc.exercises.check("toy-g", 4)
    assert not lc.exercises.check("toy-g", 32)
    assert "not a valid config" in lc.exercises.check("toy-g", 5)
    toy(base.concept, "toy-c", "B", {"a": "x is the MLP", "b": "y is right"}, "because")
    assert lc.exercises.check("toy-c", "b") and lc.exercises.check("toy-c", " B ")
    assert lc.exercises.check("toy-c", "(b)") and lc.exercises.check("toy-c", "b)")
    assert "x is the MLP" in lc.exercises.check("toy-c", "a")
    assert "one letter" in lc.exercises.check("toy-c", 2)
    with pytest.raises(ValueError, match="feedback"):
        base.concept("toy-c2", "99_toy", "a", {}, "why")
    with pytest.raises(ValueError, match="feedback"):
        base.concept("toy-c3", "99_toy", "a", {"b": "", "c": "c is wrong"}, "why")


# --- unit slips, named even when rounded -------------------------------------------------

def test_unit_slips_are_named_rounded_or_not(toy):
    gib = 1_192_099_840 / 2**20   # 1,136.88 MiB (Qwen3-0.6B in bf16)
    toy(base.predict, "toy-mib", lambda: gib, "because", rel_tol=5e-5, unit="MiB")
    for answer, unit in ((1.11, "GiB"), (1.192, "GB"), (1192.1, "MB"), (1_192_099_840, "bytes"),
                         (1_192_099_840.0, "bytes"), (1.1102, "GiB")):
        v = lc.exercises.check("toy-mib", answer)
        assert not v and f"value in {unit};" in v and "asks for MiB" in v, (answer, v)
    assert lc.exercises.check("toy-mib", 1136.88)
    # a value 7.4% off that is not a unit slip gets the plain distance
    assert "looks like" not in lc.exercises.check("toy-mib", 1300)
    toy(base.predict, "toy-gib2", lambda: 11.25, "because", rel_tol=0.01, unit="GiB")
    v = lc.exercises.check("toy-gib2", 12.08)
    assert "value in GB" in v and "7.4%" in v, v
    v = lc.exercises.check("toy-gib2", 12_079_595_520)
    assert "value in bytes" in v, v


def test_rounding_tolerance():
    assert base.rounding_tolerance(11.3) == pytest.approx(0.05 / 11.3)
    assert base.rounding_tolerance(1.1) == 0.005             # capped at 0.5%
    assert base.rounding_tolerance(112.3) == 0.0005          # at least 0.05%
    assert base.rounding_tolerance(1_192_099_840) == 0.0005   # at least 0.05%
    assert base.rounding_tolerance(1_200_000_000) == 0.005    # trailing zeros are rounding
    assert base.rounding_tolerance(240) == 0.005


def test_a_mistake_is_named_only_when_the_answer_is_that_mistake(toy):
    # expected 248.6, a mistake at 235.8, tolerance 2%: 240 is neither, and is told so
    toy(base.predict, "toy-m", lambda: 248.6, "because", rel_tol=0.02, unit="tokens/s",
        mistakes=((lambda: 235.8, "that reads the whole embedding table"),))
    assert "embedding table" in lc.exercises.check("toy-m", 235.8)
    assert "embedding table" in lc.exercises.check("toy-m", 236)      # rounded
    v = lc.exercises.check("toy-m", 240)
    assert "embedding table" not in v and "3.5% low" in v, v


def test_derive_names_a_matched_mistake(toy):
    ref = lambda cfg: lc.param_count(cfg).embedding  # noqa: E731
    twice = lambda cfg: 2 * cfg.vocab_size * cfg.hidden_size  # noqa: E731
    toy(base.derive, "toy-dm", ref, ["Qwen3-0.6B"], "because",
        solution=lambda cfg: cfg.vocab_size * cfg.hidden_size,
        mistakes=((twice, "you counted the tied lm_head as a second matrix"),))
    v = lc.exercises.check("toy-dm", twice)
    assert not v and "tied lm_head as a second matrix" in v and "Qwen3-0.6B" in v, v


def test_allowed_engine_functions_run_and_the_others_refuse_under_any_name(toy):
    ref = lambda cfg: lc.param_count(cfg).total - lc.param_count(cfg).embedding  # noqa: E731
    toy(base.derive, "toy-al", ref, ["Qwen3-0.6B", "Mixtral-8x7B-v0.1"], "because",
        solution=lambda cfg: lc.param_count(cfg).total - cfg.vocab_size * cfg.hidden_size,
        allowed=("param_count",))
    assert lc.exercises.check("toy-al", EXS["toy-al"].solution)
    # an allowed function that calls a refused one inside the engine still works
    toy(base.derive, "toy-al2", lambda cfg: lc.weight_bytes(cfg, "bf16"), ["Qwen3-0.6B"],
        "because", solution=lambda cfg: lc.weight_bytes(cfg, "bf16"), allowed=("weight_bytes",))
    assert lc.exercises.check("toy-al2", EXS["toy-al2"].solution)
    # a refused one, reached through an alias bound before the function, a default
    # argument or a closure, refuses too, and the message says what may be called
    from llmcourse import kv_cache_bytes as kvb
    pc = lc.param_count

    def by_alias(cfg):
        return kvb(cfg, 1) * 0 + pc(cfg).total - cfg.vocab_size * cfg.hidden_size

    def by_default(cfg, count=lc.weight_shapes):
        return int(count(cfg)["numel"].sum())

    def outer():
        f = lc.flops_per_token
        return lambda cfg: f(cfg, 1).total
    for answer in (by_alias, by_default, outer()):
        v = lc.exercises.check("toy-al", answer)
        assert not v and "compute yourself" in v and "may call `lc.param_count`" in v, v
    assert kvb is lc.kv_cache_bytes and pc is lc.param_count   # and they come back
    with pytest.raises(ValueError, match="allowed"):
        base.derive("toy-al3", "99_toy", ref, ["Qwen3-0.6B"], "w", solution=ref,
                    allowed=("list_models",))
