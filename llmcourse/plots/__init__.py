"""Figures for the course. Each lesson topic has a module; all are re-exported here.

Every function returns a :class:`matplotlib.figure.Figure` (shown when it is a
cell's last expression) and does not touch pyplot's global state.
"""

from .style import (COLORS, COMPONENT_COLORS, CONCEPT_COLORS, COMPONENT_HATCHES,  # noqa: F401
                    CONCEPT_DASHES, CONCEPT_MARKERS, MIN_TEXT_PT, STYLE, TEXT_SIZES, color_of,
                    figure_png, ink_for, label_bars, new_figure, png_bytes, styled)
from .anatomy import *  # noqa: F401,F403
from .heads import *  # noqa: F401,F403
from .kvcache import *  # noqa: F401,F403
from .ffn import *  # noqa: F401,F403
from .depth import *  # noqa: F401,F403
from .moe import *  # noqa: F401,F403
from .whatif import *  # noqa: F401,F403
from .inference import *  # noqa: F401,F403
from .training import *  # noqa: F401,F403
from .serving_logs import *  # noqa: F401,F403


def _register_png_formatter():
    """Show a bare Figure as a PNG in Jupyter (rendered with the course style,
    stable bytes), without importing pyplot."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    ip = get_ipython()
    if ip is None:
        return
    from matplotlib.figure import Figure
    ip.display_formatter.formatters["image/png"].for_type(Figure, figure_png)


_register_png_formatter()
