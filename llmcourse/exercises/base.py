"""The exercise registry and the ``check`` helper."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Exercise", "EXERCISES", "exercise", "check", "hint", "solution"]


@dataclass(frozen=True)
class Exercise:
    id: str
    question: str
    answer: Callable[[], Any]   # computes the expected value with the engine
    why: str                    # the reasoning, shown once the reader is right (or asks)
    hint: str = ""
    rel_tol: float = 0.0        # 0: exact; 0.01: within 1 % (for "about how many GiB")


EXERCISES: dict[str, Exercise] = {}


def exercise(id, question, answer, why, hint="", rel_tol=0.0):
    """Register an exercise (used by the topic modules)."""
    if id in EXERCISES:
        raise ValueError(f"exercise id {id!r} is registered twice")
    EXERCISES[id] = Exercise(id, question, answer, why, hint, rel_tol)
    return EXERCISES[id]


def _get(id):
    if id not in EXERCISES:
        raise ValueError(f"exercise: no exercise {id!r}; known: {', '.join(sorted(EXERCISES))}")
    return EXERCISES[id]


def _close(a, b, rel_tol):
    if isinstance(b, bool) or isinstance(a, bool) or isinstance(b, str):
        return a == b
    if rel_tol == 0:
        return a == b
    return abs(a - b) <= rel_tol * abs(b)


class _Verdict(str):
    """The message, printed plainly in a notebook (no quotes), and truthy if right."""
    def __new__(cls, text, ok):
        s = super().__new__(cls, text)
        s.ok = ok
        return s

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return str(self)


def check(id, answer):
    """Say whether ``answer`` is right for exercise ``id``, and why, without
    revealing the expected value when it is wrong."""
    ex = _get(id)
    if answer is None or answer is ...:
        return _Verdict(f"[{id}] No answer yet: replace the placeholder with your answer."
                        + (f" Hint: {ex.hint}" if ex.hint else ""), False)
    expected = ex.answer()
    try:
        ok = _close(answer, expected, ex.rel_tol)
    except TypeError:
        ok = False
    if ok:
        return _Verdict(f"[{id}] Right. {ex.why}", True)
    msg = f"[{id}] Not yet: {answer!r} is not it."
    if isinstance(expected, (int, float)) and not isinstance(expected, bool) \
            and isinstance(answer, (int, float)) and answer:
        ratio = expected / answer
        if 1.5 <= ratio or ratio <= 1 / 1.5:
            msg += " It is " + ("too small" if ratio > 1 else "too large") + \
                f" by about {max(ratio, 1 / ratio):.3g}x."
        else:
            msg += " It is close, but the course's numbers are exact."
    if ex.hint:
        msg += f" Hint: {ex.hint}"
    return _Verdict(msg, False)


def hint(id):
    return _Verdict(_get(id).hint or "No hint for this one.", True)


def solution(id):
    ex = _get(id)
    return _Verdict(f"[{id}] {ex.answer()!r}: {ex.why}", True)
