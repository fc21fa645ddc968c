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

Feedback is proportionate ("17.0% high"), names a unit slip (GiB given as GB,
bytes, MiB, even rounded), a string where a number is expected gets "give a
number", and no message shows the expected value of a ``predict`` or ``design``
exercise before the reader is right. A listed mistake is named only where the answer is
that mistake: a number written by hand matches it rounded, a derive function's result
exactly (or within the exercise's stated tolerance), and a mistake that gives the right
answer on a config is never named there. Every exercise also records a ``solution``
that passes and ``wrong`` answers that must fail, so one test over the registry
proves each checker works.

The prompt a reader answers is written once, in the lesson's notebook (a Markdown
cell headed ``### Exercise <id> · <kind>``; a concept question lists its options
there as ``- **(a)** ...``): the registry holds what checks an answer, and reads
the prompt back from the notebook (:attr:`Exercise.question`,
:attr:`Exercise.options`) where the notebooks are at hand. A derive exercise
names, in its prompt, the engine functions it may call (``allowed``); the
checker refuses the others, under any name the reader bound them to.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Exercise", "EXERCISES", "KINDS", "COUNTING_FUNCTIONS", "predict", "derive",
           "design", "concept", "check", "hint", "list_exercises", "allowed_words",
           "engine_counts_refused", "EngineUsed", "rounding_tolerance", "derive_mistakes_on",
           "case_configs"]

KINDS = ("predict", "derive", "design", "concept")


@dataclass(frozen=True)
class Exercise:
    id: str
    notebook: str               # the notebook's file stem, e.g. "02_gqa_and_kv_cache"
    kind: str                   # one of KINDS
    why: str                    # the reasoning, shown once the reader is right
    hint: str = ""              # points to an idea, not to code
    solution: Any = None        # an answer that passes (a value, a function, a config ...)
    wrong: tuple = ()           # answers that must fail (for the registry test)
    expected: Callable | None = None     # predict: () -> the exact value, from the engine
    rel_tol: float = 0.0                  # predict/derive: 0 means exact
    unit: str = ""                        # the answer's unit ("bytes", "GiB", "%", ...):
                                          # shown in feedback; names a unit slip
    mistakes: tuple = ()                  # predict: ((() -> value, feedback), ...);
                                          # derive: ((cfg -> value, feedback), ...)
    reference: Callable | None = None    # derive: cfg -> the exact value, from the engine
    cases: tuple = ()                     # derive: zoo names, configs or () -> config
    allowed: tuple = ()                   # derive: engine functions the answer may call
    validate: Callable | None = None     # design: answer -> (ok, message)
    correct: str = ""                              # concept: the right letter
    feedback: dict = field(default_factory=dict)  # concept: letter -> why (not) this one

    @property
    def letters(self):
        """A concept question's option letters, in order."""
        return tuple(sorted(set(self.feedback) | {self.correct}))

    @property
    def question(self):
        """The prompt, as the lesson's notebook states it (None where the notebooks are
        not at hand, e.g. an installed package without them)."""
        from .prompts import prompt_of
        p = prompt_of(self.notebook, self.id)
        return p.text if p else None

    @property
    def options(self):
        """A concept question's options as its notebook lists them: {letter: text}."""
        from .prompts import prompt_of
        p = prompt_of(self.notebook, self.id)
        return dict(p.options) if p else {}


EXERCISES: dict[str, Exercise] = {}


def _register(ex):
    if ex.id in EXERCISES:
        raise ValueError(f"exercise id {ex.id!r} is registered twice")
    if ex.kind not in KINDS:
        raise ValueError(f"exercise {ex.id!r}: kind must be one of {', '.join(KINDS)}")
    EXERCISES[ex.id] = ex
    return ex


def predict(id, notebook, expected, why, *, hint="", rel_tol=0.0, unit="",
            mistakes=(), wrong=()):
    """Register a predict-then-check exercise. ``expected()`` computes the value with
    the engine; ``mistakes`` pairs a common wrong value (a callable) with feedback."""
    return _register(Exercise(id, notebook, "predict", why, hint, None, tuple(wrong),
                              expected=expected, rel_tol=rel_tol, unit=unit,
                              mistakes=tuple(mistakes)))


def derive(id, notebook, reference, cases, why, *, solution, hint="", wrong=(),
           rel_tol=0.0, allowed=(), mistakes=(), unit=""):
    """Register a derive exercise: the reader's ``f(cfg)`` must equal ``reference(cfg)``
    on every case (zoo names, configs, or zero-argument callables returning one).

    ``allowed`` names the engine's counting functions the answer may call (the prompt
    says so: "**May call:** ``lc.param_count``"); every other one refuses while the
    answer runs. ``mistakes`` pairs a common wrong function with feedback naming it."""
    unknown = [f for f in allowed if f not in COUNTING_FUNCTIONS]
    if unknown:
        raise ValueError(f"exercise {id!r}: allowed names no counting function "
                         f"({', '.join(unknown)}); they are {', '.join(COUNTING_FUNCTIONS)}")
    return _register(Exercise(id, notebook, "derive", why, hint, solution,
                              tuple(wrong), reference=reference, cases=tuple(cases),
                              rel_tol=rel_tol, allowed=tuple(allowed),
                              mistakes=tuple(mistakes), unit=unit))


def design(id, notebook, validate, why, *, solution, hint="", wrong=()):
    """Register a design exercise: ``validate(answer) -> (ok, message)`` judges any answer."""
    return _register(Exercise(id, notebook, "design", why, hint, solution,
                              tuple(wrong), validate=validate))


def concept(id, notebook, correct, feedback, why, *, hint=""):
    """Register a multiple-choice question: ``feedback[letter]`` explains each option
    (the options themselves are the notebook's, listed under the exercise's heading)."""
    feedback = {str(k).lower(): v for k, v in feedback.items()}
    correct = str(correct).lower()
    if len(correct) != 1 or not correct.isalpha():
        raise ValueError(f"exercise {id!r}: correct must be one letter (got {correct!r})")
    letters = sorted(set(feedback) | {correct})
    missing = [k for k in letters if k != correct and not feedback.get(k)]
    if missing or len(letters) < 2:
        raise ValueError(f"exercise {id!r}: give feedback for every wrong option "
                         f"(missing: {', '.join(missing) or 'no wrong option at all'})")
    wrong = tuple(k for k in letters if k != correct)
    return _register(Exercise(id, notebook, "concept", why, hint, correct, wrong,
                              correct=correct, feedback=feedback))


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


def rounding_tolerance(answer):
    """How far a number written with few digits may be from the value it rounds: half a
    unit in its last significant digit, relative (12.08 -> 0.041%), at most 0.5% and at
    least 0.05%. A whole number counts its trailing zeros as rounding."""
    if not _is_number(answer) or answer == 0:
        return 0.0
    a = abs(float(answer))
    if isinstance(answer, int):
        text = str(abs(answer))
        last = 10 ** (len(text) - len(text.rstrip("0")))
    else:
        text = f"{a:.12g}"
        mantissa, _, exp = text.partition("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        last = 10.0 ** ((int(exp) if exp else 0) - decimals)
    return min(max(0.5 * last / a, 0.0005), 0.005)


def _near(answer, value, rel_tol):
    """An answer that is a known value written rounded (or within the exercise's own
    tolerance, at most 0.3%: a wider one would take a slip for another mistake)."""
    tol = max(min(rel_tol, 0.003), rounding_tolerance(answer))
    return abs(answer - value) <= tol * abs(value)


# units an answer can be given in, by what they measure: (name, size in the base unit)
_UNIT_FAMILIES = (
    (("bytes", 1), ("KiB", 2**10), ("KB", 10**3), ("MiB", 2**20), ("MB", 10**6),
     ("GiB", 2**30), ("GB", 10**9), ("TiB", 2**40), ("TB", 10**12)),
    (("parameters", 1), ("thousands", 10**3), ("millions", 10**6), ("billions", 10**9)),
    (("FLOPs", 1), ("GFLOP", 10**9), ("TFLOP", 10**12)),
)


def _unit_slip(answer, expected, unit):
    """Name an answer given in another unit than the one asked (GB for GiB, bytes for
    GiB, billions for parameters, ...), rounded or not, without giving the number."""
    if not (_is_number(answer) and _is_number(expected)) or not answer or not expected:
        return ""
    answer, expected = float(answer), float(expected)
    fam = next((dict(f) for f in _UNIT_FAMILIES if unit in dict(f)), None)
    if fam is None:   # a count with no stated unit: bytes or parameters, say the scale
        if abs(expected) < 1e6:
            return ""
        for factor, words in ((1e9, "billions (or GB)"), (2**30, "GiB"),
                              (1e6, "millions (or MB)"), (2**20, "MiB")):
            if _near(answer * factor, expected, 0.0):
                return (f"that looks like the value in {words}; give the whole number "
                        f"(bytes or parameters, not {words})")
        return ""
    for other, size in fam.items():
        if other != unit and _near(answer, expected * fam[unit] / size, 0.0):
            gap = (" (a GB is 10**9 bytes, a GiB 2**30: they differ by 7.4%)"
                   if {unit, other} == {"GB", "GiB"} else "")
            return f"that looks like the value in {other}; the question asks for {unit}{gap}"
    return ""


def _with_hint(msg, ex):
    return msg + (f" Hint: {ex.hint}" if ex.hint else "")


def _tolerance(rel_tol):
    return f" (the check accepts within {100 * rel_tol:.3g}%)" if rel_tol else ""


def _number_in(text):
    """The number a string starts with ("11.25 GiB" -> "11.25"), else the string."""
    m = re.match(r"[-+]?(\d[\d,_]*\.?\d*(e[-+]?\d+)?|\.\d+(e[-+]?\d+)?)", text, re.I)
    return m.group(0).replace(",", "_") if m else text


def _check_value(answer, expected, rel_tol, what, unit="", bare=None):
    """Compare a number (or bool) with the expected one; returns (ok, message). ``what``
    names the answer in feedback ("12.1 GiB"); ``bare`` without its unit, for a unit slip."""
    if isinstance(expected, bool):
        if not isinstance(answer, bool):
            return False, f"give True or False, not {type(answer).__name__}"
        return answer == expected, "" if answer == expected else f"{what} is not it"
    if isinstance(answer, str):
        text = answer.strip()
        if not text:
            return False, "give a number, not an empty string"
        number = _number_in(text)
        if number != text:   # "11.25 GiB": the unit goes, the number stays
            return False, (f"give a number, not a string: write {number}, not \"{text}\""
                           + (f" (the unit, {unit}, is understood)" if unit else ""))
        return False, f"give a number, not a string: write {text}, not \"{text}\""
    if not _is_number(answer):
        return False, f"give a number (got {type(answer).__name__})"
    if isinstance(answer, float) and not math.isfinite(answer):
        return False, "give a finite number"
    answer, expected = _num(answer), _num(expected)
    if isinstance(answer, float) and answer.is_integer() and isinstance(expected, int):
        answer = int(answer)  # 40.0 is the whole number 40
    if _close(answer, expected, rel_tol):
        return True, ""
    slip = _unit_slip(answer, expected, unit)
    if slip:
        return False, f"{bare or what}: {slip}"
    return False, f"{what} is {_off_by(answer, expected, unit)}{_tolerance(rel_tol)}"


def _case_config(case):
    from ..zoo import as_config
    if callable(case) and not isinstance(case, str):
        case = case()
    return as_config(case)


def case_configs(ex):
    """The configs a derive exercise checks an answer on, in order."""
    return [_case_config(c) for c in ex.cases]


def check(id, answer):
    """Say whether ``answer`` is right for exercise ``id``, and why, without revealing
    the expected value when it is wrong. Returns a :class:`Verdict` (truthy if right)."""
    ex = _get(id)
    if answer is None or answer is ...:
        return Verdict(_with_hint(f"[{id}] No answer yet: write yours in place of None, "
                                  "then run this cell again.", ex), False)
    ok, msg = _CHECKERS[ex.kind](ex, _whole(answer))
    if ok:
        msg = msg or ex.why
        if msg.startswith("Yes"):  # a concept's "Yes." says what "Right." says
            msg = msg[3:].lstrip(" .,:;")
        lead = "" if msg.startswith("Right") else "Right. "
        if lead and re.match(r"[a-z]{2,}[ :]", msg):   # a sentence after "Right. " opens
            msg = msg[0].upper() + msg[1:]              # with a capital ("The cache ...")
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


def _unit_words(unit):
    return unit if unit in ("%", "×") else f" {unit}" if unit else ""


def _check_predict(ex, answer):
    expected = ex.expected()
    if not isinstance(expected, bool) and _is_number(answer):
        a = _num(answer)
        if not _close(a, _num(expected), ex.rel_tol):
            for value, feedback in ex.mistakes:
                v = _num(value())
                if not _close(v, _num(expected), ex.rel_tol) and _near(a, v, ex.rel_tol):
                    return False, feedback.rstrip(".")
    ok, msg = _check_value(answer, expected, ex.rel_tol,
                           f"{_fmt(answer)}{_unit_words(ex.unit)}", ex.unit, bare=_fmt(answer))
    return ok, ("" if ok else msg)


def _check_derive(ex, answer):
    if not callable(answer):
        return False, ("give a function that takes a config and returns a number "
                       "(def f(cfg): ...), then pass f itself, not f(cfg)")
    for case in ex.cases:
        cfg = _case_config(case)
        try:
            with engine_counts_refused(answer, allowed=ex.allowed):
                got = answer(cfg)
        except EngineUsed as e:
            return False, str(e)
        except Exception as e:  # the reader's code: report it in one line
            return False, f"your function raised {type(e).__name__} on {cfg.name}: {e}"
        if got is None:
            return False, f"your function returned None on {cfg.name}: did it forget `return`?"
        expected = ex.reference(cfg)
        what = f"on {cfg.name} ({cfg.model_type}) your result {_fmt(got)}"
        if _is_number(got) and not _close(_num(got), _num(expected), ex.rel_tol):
            feedback = _derive_mistake(ex, cfg, _num(got), _num(expected))
            if feedback:
                return False, f"{what}: {feedback.rstrip('.')}"
        ok, msg = _check_value(got, expected, ex.rel_tol, what, ex.unit)
        if not ok:
            return False, msg
    return True, f"It matches the engine on all {len(ex.cases)} configs. {ex.why}"


def derive_mistakes_on(ex, cfg, expected=None):
    """The listed mistakes of derive exercise ``ex`` that are mistakes on ``cfg``:
    ``[(value, feedback), ...]`` in the order listed. A mistake that does not apply to
    the config (it raises, or gives no number) is left out, and so is one whose value
    there is the right answer (within the exercise's tolerance): on that config it is no
    mistake, and naming it would blame a student for what they got right (forgetting
    GPT-2's plain MLP gives phi-2's count, forgetting the dense first layers DeepSeek-V2's
    only where it has some)."""
    if expected is None:
        expected = _num(ex.reference(cfg))
    out = []
    for wrong_fn, feedback in ex.mistakes:
        try:
            v = wrong_fn(cfg)
        except Exception:   # a mistake that does not apply to this config
            continue
        if _is_number(v) and not _close(_num(v), expected, ex.rel_tol):
            out.append((_num(v), feedback))
    return out


def _derive_mistake(ex, cfg, got, expected):
    """The feedback of the first listed mistake ``got`` is, on ``cfg``: matched exactly
    (or within the exercise's own tolerance), never within a rounding tolerance: a derive
    answer is computed, not written by hand, so an answer 0.02% off one mistake is that
    much off, not that mistake rounded."""
    for v, feedback in derive_mistakes_on(ex, cfg, expected):
        if _close(got, v, ex.rel_tol):
            return feedback
    return ""


class EngineUsed(Exception):
    """A derive answer called an engine function its exercise does not allow."""


# the engine's counting functions: each computes a number a derive exercise may ask for
COUNTING_FUNCTIONS = ("param_count", "weight_shapes", "weight_bytes", "kv_cache_bytes",
                      "kv_cache_bytes_per_token_per_layer", "linear_state_bytes",
                      "indexer_cache_bytes_per_token", "flops_per_token", "stored_weights",
                      "training_memory", "training_flops", "memory_plan", "max_context",
                      "max_batch", "vllm_plan", "decode_step_time")


def allowed_words(allowed):
    """How a prompt and the checker name what a derive answer may call."""
    if not allowed:
        return "nothing from the engine's counting functions"
    return ", ".join(f"`lc.{f}`" for f in allowed)


class engine_counts_refused:
    """While a derive answer runs, the engine's counting functions it is not allowed
    refuse: under ``lc.``, in every engine module, and under any other name the
    reader's function reaches (``pc = lc.param_count``, ``from llmcourse import
    param_count``). An allowed function runs normally, the engine functions it calls
    included."""

    inside_allowed = 0   # depth of allowed engine calls under way

    def __init__(self, answer=None, allowed=()):
        self.answer, self.allowed = answer, tuple(allowed)

    def __enter__(self):
        mods = [m for name, m in list(sys.modules.items())
                if m is not None and (name == "llmcourse" or name.startswith("llmcourse."))
                and not name.startswith("llmcourse.exercises")]
        originals = {}
        for mod in mods:
            for fn in COUNTING_FUNCTIONS:
                f = vars(mod).get(fn)
                if callable(f) and not getattr(f, "_lc_guard", False):
                    originals.setdefault(fn, f)
        stand_in = {id(f): (self._allow(f) if fn in self.allowed else self._refuse(fn, f))
                    for fn, f in originals.items()}
        self.saved = []
        for ns in [vars(m) for m in mods] + self._reader_namespaces():
            for name, value in list(ns.items()):
                if id(value) in stand_in and callable(value):
                    self.saved.append((ns.__setitem__, name, value))
                    ns[name] = stand_in[id(value)]
        for f in self.reader_functions:   # what a closure or a default argument holds
            for cell in f.__closure__ or ():
                try:
                    value = cell.cell_contents
                except ValueError:   # an empty cell
                    continue
                if id(value) in stand_in and callable(value):
                    self.saved.append((lambda _, v, c=cell: setattr(c, "cell_contents", v),
                                       None, value))
                    cell.cell_contents = stand_in[id(value)]
            if f.__defaults__ and any(id(v) in stand_in for v in f.__defaults__):
                self.saved.append((lambda _, v, f=f: setattr(f, "__defaults__", v), None,
                                   f.__defaults__))
                f.__defaults__ = tuple(stand_in.get(id(v), v) for v in f.__defaults__)
        return self

    def _reader_namespaces(self):
        """The globals of the reader's function (a notebook's namespace), and of the
        functions it reaches through closures and defaults (``reader_functions``)."""
        seen, out, todo, self.reader_functions = set(), [], [self.answer], []
        while todo:
            f = todo.pop()
            f = getattr(f, "__func__", f)
            g = getattr(f, "__globals__", None)
            if g is None or id(f) in seen:
                continue
            seen.add(id(f))
            if str(g.get("__name__", "")).startswith("llmcourse"):
                continue   # the engine's own functions are swapped module by module
            self.reader_functions.append(f)
            if all(g is not o for o in out):
                out.append(g)
            for cell in f.__closure__ or ():
                try:
                    todo.append(cell.cell_contents)
                except ValueError:   # an empty cell
                    pass
            todo.extend(v for v in (f.__defaults__ or ()) if callable(v))
            todo.extend(v for v in g.values() if callable(v)
                        and getattr(v, "__globals__", None) is g)   # its helpers
        return out

    def _refuse(self, fn, original):
        allowed = self.allowed

        def refuse(*args, **kwargs):
            if engine_counts_refused.inside_allowed:
                return original(*args, **kwargs)
            raise EngineUsed(f"your function calls lc.{fn}, which this exercise asks you to "
                             f"compute yourself from the config's fields (cfg.hidden_size, "
                             f"...); it may call {allowed_words(allowed)}")
        refuse._lc_guard = True
        return refuse

    @staticmethod
    def _allow(original):
        def allow(*args, **kwargs):
            engine_counts_refused.inside_allowed += 1
            try:
                return original(*args, **kwargs)
            finally:
                engine_counts_refused.inside_allowed -= 1
        allow._lc_guard = True
        return allow

    def __exit__(self, *exc):
        for put, name, value in reversed(self.saved):
            put(name, value)
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
    if letter not in ex.letters:
        return False, f"answer with one letter: {', '.join(ex.letters)}"
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
