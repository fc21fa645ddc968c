"""Live explorers for the course (ipywidgets). Each lesson topic has a module.

``EXPLORERS`` maps a name to a factory that builds that explorer with its
defaults (used by the benchmark and the tests).
"""

from .base import (EXPLORERS, Explorer, Row, divisors, dropdown, int_text,  # noqa: F401
                   model_dropdown, register, selection)
from .anatomy import *  # noqa: F401,F403
from .heads import *  # noqa: F401,F403
from .kvcache import *  # noqa: F401,F403
from .ffn import *  # noqa: F401,F403
from .depth import *  # noqa: F401,F403
from .moe import *  # noqa: F401,F403
from .whatif import *  # noqa: F401,F403
from .inference import *  # noqa: F401,F403
from .training import *  # noqa: F401,F403
