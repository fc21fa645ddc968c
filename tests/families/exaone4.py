"""How the exactness test checks exaone4: its sliding-window pattern, or a listed one (needed
without a window); the cache of sliding and full layers after a prefill; a decode step."""

from hypothesis import strategies as st

from families._dense_draws import TINY, layer_types
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="exaone4", sliding_window=16)
ROW = Row(small=dict(fields=lambda d: {"sliding_window_pattern": st.integers(1, 4),
                                       "layer_types": layer_types(d)}),
          tiny=(_TINY,), flops=(FlopsCase(dict(_TINY, sliding_window=8)),))
