"""The exercise registry and ``check``: four kinds of exercise, one checker.

Each exercise records its notebook and its *kind*:

``predict``
    The reader writes a number (or True/False) *before* moving a slider or running
    a cell; the engine computes the expected value when the reader checks.
``derive``
    The reader writes a small function ``f(cfg) -> number``; the checker runs it on
    several configs, some the notebook never showed, and compares with the engine.
``design``
    The reader builds a config (or picks values) that meets constraints; the
    checker judges it with the engine, so every correct design passes.
``concept``
    A multiple-choice question; the feedback explains each wrong option.

Feedback is proportionate ("17.0% high"), a string where a number is expected
gets "give a number", and no message shows the expected value of a ``predict``
or ``design`` exercise before the reader is right. Every exercise also records a
``solution`` that passes and ``wrong`` answers that must fail, so one test over
the registry proves each checker works.
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Exercise", "EXERCISES", "KINDS", "predict", "derive", "design", "concept",
           "check", "hint", "list_exercises"]

KINDS = ("predict", "derive", "design", "concept")


@dataclass(frozen=True)
class Exercise:
    id: str
    notebook: str               # the notebook's file stem, e.g. "02_gqa_and_kv_cache"
    kind: str                   # one of KINDS
    question: str
    why: str                    # the reasoning, shown once the reader is right
    hint: str = ""              # points to an idea, not to code
    solution: Any = None        # an answer that passes (a value, a function, a config ...)
    wrong: tuple = ()           # answers that must fail (for the registry test)
    expected: Callable | None = None     # predict: () -> the exact value, from the engine
    rel_tol: float = 0.0                  # predict/derive: 0 means exact
    unit: str = ""                        # predict: shown in feedback ("bytes", "%")
    mistakes: tuple = ()                  # predict: ((() -> value, feedback), ...)
    reference: Callable | None = None    # derive: cfg -> the exact value, from the engine
    cases: tuple = ()                     # derive: zoo names, configs or () -> config
    validate: Callable | None = None     # design: answer -> (ok, message)
    options: dict = field(default_factory=dict)   # concept: letter -> option text
    correct: str = ""                              # concept: the right letter
    feedback: dict = field(default_factory=dict)  # concept: letter -> why (not) this one


EXERCISES: dict[str, Exercise] = {}


def _register(ex):
    if ex.id in EXERCISES:
        raise ValueError(f"exercise id {ex.id!r} is registered twice")
    if ex.kind not in KINDS:
        raise ValueError(f"exercise {ex.id!r}: kind must be one of {', '.join(KINDS)}")
    EXERCISES[ex.id] = ex
    return ex


def predict(id, notebook, question, expected, why, *, hint="", rel_tol=0.0, unit="",
            mistakes=(), wrong=()):
    """Register a predict-then-check exercise. ``expected()`` computes the value with
    the engine; ``mistakes`` pairs a common wrong value (a callable) with feedback."""
    return _register(Exercise(id, notebook, "predict", question, why, hint, None, tuple(wrong),
                              expected=expected, rel_tol=rel_tol, unit=unit,
                              mistakes=tuple(mistakes)))


def derive(id, notebook, question, reference, cases, why, *, solution, hint="", wrong=(),
           rel_tol=0.0):
    """Register a derive exercise: the reader's ``f(cfg)`` must equal ``reference(cfg)``
    on every case (zoo names, configs, or zero-argument callables returning one)."""
    return _register(Exercise(id, notebook, "derive", question, why, hint, solution,
                              tuple(wrong), reference=reference, cases=tuple(cases),
                              rel_tol=rel_tol))


def design(id, notebook, question, validate, why, *, solution, hint="", wrong=()):
    """Register a design exercise: ``validate(answer) -> (ok, message)`` judges any answer."""
    return _register(Exercise(id, notebook, "design", question, why, hint, solution,
                              tuple(wrong), validate=validate))


def concept(id, notebook, question, options, correct, feedback, why, *, hint=""):
    """Register a multiple-choice question; ``feedback[letter]`` explains each option."""
    options = {str(k).lower(): v for k, v in options.items()}
    correct = str(correct).lower()
    if correct not in options:
        raise ValueError(f"exercise {id!r}: correct={correct!r} is not one of the options")
    missing = [k for k in options if k != correct and k not in feedback]
    if missing:
        raise ValueError(f"exercise {id!r}: no feedback for option(s) {', '.join(missing)}")
    wrong = tuple(k for k in options if k != correct)
    return _register(Exercise(id, notebook, "concept", question, why, hint, correct, wrong,
                              options=options, correct=correct,
                              feedback={str(k).lower(): v for k, v in feedback.items()}))


# --- checking -----------------------------------------------------------------------

class Verdict(str):
    """The message, printed plainly in a notebook (no quotes), and truthy if right."""
    def __new__(cls, text, ok):
        s = super().__new__(cls, text)
        s.ok = ok
        return s

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return str(self)


def _get(id):
    if id not in EXERCISES:
        raise ValueError(f"exercise: no exercise {id!r}; known: {', '.join(sorted(EXERCISES))}")
    return EXERCISES[id]


def _in_lecture_mode():
    """True in a Voila page (lecture mode), where an unanswered exercise prints nothing."""
    return "VOILA_KERNEL_ID" in os.environ or "VOILA_REQUEST_URL" in os.environ


def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _num(x):
    """A plain number from an int, float, Fraction or numpy scalar."""
    return x if isinstance(x, int) else float(x)


def _fmt(x):
    if isinstance(x, int):
        return f"{x:,}"
    if _is_number(x):
        x = float(x)
        return f"{x:,.0f}" if abs(x) >= 1e5 else f"{x:,.6g}"
    return repr(x)


def _close(answer, expected, rel_tol):
    if rel_tol == 0:
        return answer == expected
    return abs(answer - expected) <= rel_tol * abs(expected)


def _off_by(answer, expected, unit=""):
    """'17.0% high', '3.2× too small', '7,168 parameters low (0.0012%)' ...: how far an
    answer is, without the answer. ``what`` is said by the caller ("X is ...")."""
    if expected == 0:
        return "not zero, and it should be" if answer else ""
    if answer == 0:
        return "zero, and it is not"
    if (answer > 0) != (expected > 0):
        return "of the wrong sign"
    ratio = answer / expected
    if ratio >= 1.5 or ratio <= 1 / 1.5:
        factor = ratio if ratio > 1 else 1 / ratio
        shown = f"{factor:,.0f}" if factor >= 100 else f"{factor:.3g}"
        return f"{shown}× too large" if ratio > 1 else f"{shown}× too small"
    pct = 100 * (ratio - 1)
    side = "high" if pct > 0 else "low"
    unit = f" {unit}" if unit and unit not in ("%", "×") else ""
    if isinstance(answer, int) and isinstance(expected, int):  # the difference itself
        return f"{abs(answer - expected):,}{unit} {side} ({abs(pct):.2g}%)"
    if abs(pct) < 0.05:  # a rounded figure: the check wants the exact one
        shown = "less than 0.001%" if abs(pct) < 0.001 else f"{abs(pct):.2g}%"
        return f"{shown} {side}: close, but the check wants the exact value, not a rounded one"
    return f"{abs(pct):.1f}% {side}"


def _scale_slip(answer, expected):
    """A large expected value answered in billions, GB or GiB (8.03 for 8,030,261,248):
    name the slip without giving the number."""
    if not (_is_number(answer) and _is_number(expected)) or abs(expected) < 1e6 or not answer:
        return ""
    for factor, words in ((1e9, "billions (or GB)"), (2**30, "GiB"), (1e6, "millions (or MB)"),
                          (2**20, "MiB")):
        if abs(answer * factor - expected) <= 0.02 * abs(expected):
            return (f"that looks like the value in {words}; give the whole number "
                    f"(bytes or parameters, not {words})")
    return ""


def _with_hint(msg, ex):
    return msg + (f" Hint: {ex.hint}" if ex.hint else "")


def _tolerance(rel_tol):
    return f" (the check accepts within {100 * rel_tol:.3g}%)" if rel_tol else ""


def _check_value(answer, expected, rel_tol, what, unit=""):
    """Compare a number (or bool) with the expected one; returns (ok, message)."""
    if isinstance(expected, bool):
        if not isinstance(answer, bool):
            return False, f"give True or False, not {type(answer).__name__}"
        return answer == expected, "" if answer == expected else f"{what} is not it"
    if isinstance(answer, str):
        text = answer.strip()
        return False, (f"give a number, not a string: write {text}, not \"{text}\""
                       if text else "give a number, not an empty string")
    if not _is_number(answer):
        return False, f"give a number (got {type(answer).__name__})"
    if isinstance(answer, float) and not math.isfinite(answer):
        return False, "give a finite number"
    answer, expected = _num(answer), _num(expected)
    if isinstance(answer, float) and answer.is_integer() and isinstance(expected, int):
        answer = int(answer)  # 40.0 is the whole number 40
    if _close(answer, expected, rel_tol):
        return True, ""
    slip = _scale_slip(answer, expected)
    if slip:
        return False, f"{what}: {slip}"
    return False, f"{what} is {_off_by(answer, expected, unit)}{_tolerance(rel_tol)}"


def _case_config(case):
    from ..zoo import as_config
    if callable(case) and not isinstance(case, str):
        case = case()
    return as_config(case)


def check(id, answer):
    """Say whether ``answer`` is right for exercise ``id``, and why, without revealing
    the expected value when it is wrong. Returns a :class:`Verdict` (truthy if right)."""
    ex = _get(id)
    if answer is None or answer is ...:
        if _in_lecture_mode():
            return Verdict("", False)
        return Verdict(_with_hint(f"[{id}] No answer yet: write yours in place of None, "
                                  "then run this cell again.", ex), False)
    ok, msg = _CHECKERS[ex.kind](ex, _whole(answer))
    if ok:
        msg = msg or ex.why
        if msg.startswith("Yes"):  # a concept's "Yes." says what "Right." says
            msg = msg[3:].lstrip(" .,:;")
        lead = "" if msg.startswith("Right") else "Right. "
        return Verdict(f"[{id}] {lead}{msg}".rstrip(), True)
    end = "" if msg.endswith((".", "?", "!")) else "."
    return Verdict(_with_hint(f"[{id}] Not yet: {msg}{end}", ex), False)


def _whole(answer):
    """Whole-number floats (40.0) as ints, inside tuples, lists and dicts too."""
    if isinstance(answer, float) and math.isfinite(answer) and answer.is_integer():
        return int(answer)
    if isinstance(answer, (tuple, list)):
        return type(answer)(_whole(a) for a in answer)
    if isinstance(answer, dict):
        return {k: _whole(v) for k, v in answer.items()}
    return answer


def _check_predict(ex, answer):
    expected = ex.expected()
    if not isinstance(expected, bool) and _is_number(answer):
        for value, feedback in ex.mistakes:
            v = value()
            if _num(answer) == _num(v) or (ex.rel_tol and _close(_num(answer), _num(v), ex.rel_tol)):
                if not _close(_num(answer), _num(expected), ex.rel_tol):
                    return False, feedback.rstrip(".")
    unit = ex.unit if ex.unit in ("%", "×") else f" {ex.unit}" if ex.unit else ""
    ok, msg = _check_value(answer, expected, ex.rel_tol, f"{_fmt(answer)}{unit}", ex.unit)
    return ok, ("" if ok else msg)


def _check_derive(ex, answer):
    if not callable(answer):
        return False, ("give a function that takes a config and returns a number "
                       "(def f(cfg): ...), then pass f itself, not f(cfg)")
    for case in ex.cases:
        cfg = _case_config(case)
        try:
            with _engine_counts_unavailable():
                got = answer(cfg)
        except _EngineUsed as e:
            return False, str(e)
        except Exception as e:  # the reader's code: report it in one line
            return False, f"your function raised {type(e).__name__} on {cfg.name}: {e}"
        if got is None:
            return False, f"your function returned None on {cfg.name}: did it forget `return`?"
        ok, msg = _check_value(got, ex.reference(cfg), ex.rel_tol,
                               f"on {cfg.name} ({cfg.model_type}) your result {_fmt(got)}")
        if not ok:
            return False, msg
    return True, f"It matches the engine on all {len(ex.cases)} configs. {ex.why}"


class _EngineUsed(Exception):
    pass


# what a derive answer may not call: the engine computes the very number it asks for
_COUNTING = ("param_count", "weight_shapes", "weight_bytes", "kv_cache_bytes",
             "kv_cache_bytes_per_token_per_layer", "linear_state_bytes", "flops_per_token",
             "stored_weights", "training_memory", "training_flops")


class _engine_counts_unavailable:
    """While the reader's function runs, the engine's counting functions refuse: a derive
    exercise asks for the arithmetic from the config's fields, not for the engine's call."""

    def __enter__(self):
        import sys
        self.saved = []
        for mod in [m for name, m in list(sys.modules.items())
                    if m is not None and (name == "llmcourse" or name.startswith("llmcourse."))
                    and not name.startswith("llmcourse.exercises")]:
            for fn in _COUNTING:
                if fn in vars(mod):
                    self.saved.append((mod, fn, vars(mod)[fn]))
                    setattr(mod, fn, self._refuse(fn))
        return self

    @staticmethod
    def _refuse(fn):
        def refuse(*args, **kwargs):
            raise _EngineUsed(f"your function calls lc.{fn}, the engine's answer: compute it "
                              "from the config's fields (cfg.hidden_size, ...) instead")
        return refuse

    def __exit__(self, *exc):
        for mod, fn, value in self.saved:
            setattr(mod, fn, value)
        return False


def _check_design(ex, answer):
    try:
        ok, msg = ex.validate(answer)
    except ValueError as e:  # an impossible config: the engine's one-line message
        return False, f"that design is not a valid config: {e}"
    return bool(ok), msg


def _letter(answer):
    """'b', 'B', '(b)', 'b)', 'b.' -> 'b'."""
    return answer.strip().strip("().:").strip().lower() if isinstance(answer, str) else None


def _check_concept(ex, answer):
    letter = _letter(answer)
    if letter not in ex.options:
        return False, f"answer with one letter: {', '.join(sorted(ex.options))}"
    if letter == ex.correct:
        return True, f"{ex.feedback.get(letter, '')} {ex.why}".strip()
    return False, f"({letter}) {ex.feedback[letter]}".rstrip(".")


_CHECKERS = {"predict": _check_predict, "derive": _check_derive, "design": _check_design,
             "concept": _check_concept}


def hint(id):
    """The exercise's hint: an idea to try, not the answer."""
    return Verdict(_get(id).hint or "No hint for this one.", True)


def list_exercises(notebook=None, kind=None):
    """The registered exercises, optionally of one notebook (file stem or its number,
    e.g. ``"02"``) and/or one kind (``predict``, ``derive``, ``design``, ``concept``)."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind: must be one of {', '.join(KINDS)} (got {kind!r})")
    out = []
    for ex in EXERCISES.values():
        if notebook is not None and not (ex.notebook == notebook
                                         or ex.notebook.split("_")[0] == str(notebook)):
            continue
        if kind is not None and ex.kind != kind:
            continue
        out.append(ex)
    return out
