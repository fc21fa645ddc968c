"""Self-check exercises: ``check(exercise_id, your_answer)`` says right or not yet, and why.

Four kinds (``predict``, ``derive``, ``design``, ``concept``; see :mod:`.base`). The
expected value is computed by the engine when you check, so a notebook never
prints it before you try. ``hint(id)`` nudges; ``list_exercises(notebook, kind)``
lists them. Worked solutions sit, collapsed, at the end of each notebook.
"""

from .base import (EXERCISES, KINDS, Exercise, Verdict, check, concept, derive,  # noqa: F401
                   design, hint, list_exercises, predict)
from . import anatomy, heads, kvcache, beyond, ffn, depth, moe, whatif  # noqa: F401  (register)
from . import fit, speed  # noqa: F401  (register: lessons 9 and 10)
from . import training_memory, training_compute  # noqa: F401  (register: lessons 11 and 12)
