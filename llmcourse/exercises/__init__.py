"""Self-check exercises: ``check(exercise_id, your_answer)`` says right or wrong, and why.

The expected value is computed by the engine when you check, so a notebook
never prints it before you try. ``hint(id)`` nudges; ``solution(id)`` shows it.
"""

from .base import EXERCISES, Exercise, check, exercise, hint, solution  # noqa: F401
from . import anatomy, heads, kvcache, ffn, depth, moe, whatif  # noqa: F401  (register)
