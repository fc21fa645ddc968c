"""2026's decoders (llmcourse/families/frontier.py and gemma4_variants.py) at their class
defaults, and what their own layers keep and compute, against transformers 5.23.

The generic checks (tests/test_exact_vs_transformers.py) draw small configs of each type and
read its real published configs; here each type's bare config class is built at full size on
the meta device (a 500B-parameter model costs nothing there) and counted tensor by tensor,
or, where transformers cannot build its defaults, refused by both.
"""

import pytest

import llmcourse as lc
import transformers_ref

slow = pytest.mark.slow

FRONTIER = ("axk1", "axk2", "beam", "dots3_note", "dots3_note_text", "flint", "hy_v3", "hy_v4",
            "kolibri1", "laguna", "mimo_v2_flash", "minimax_m3_vl_text")


@slow
@pytest.mark.parametrize("model_type", FRONTIER)
def test_class_defaults_count_as_transformers_builds_them(model_type):
    """``{"model_type": t}`` alone: the engine's totals, active and routed parameters and
    every tensor equal the full-size meta build of transformers' own defaults."""
    transformers_ref.counts_as_built({"model_type": model_type})
