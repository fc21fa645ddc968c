"""How the exactness test checks cohere2: its sliding-window pattern, or a listed one; the
cache of sliding and full layers after a prefill; a decode step (its full layers use no
RoPE, which changes no FLOP)."""

from hypothesis import strategies as st

from families._dense_draws import TINY, layer_types
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="cohere2", sliding_window=16)
ROW = Row(small=dict(fields=lambda d: {"sliding_window_pattern": st.integers(1, 4),
                                       "layer_types": layer_types(d)}),
          tiny=(_TINY,), flops=(FlopsCase(dict(_TINY, sliding_window=8)),))
