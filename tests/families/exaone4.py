"""How the exactness test checks exaone4: its sliding-window pattern, or a listed one (needed
without a window); the cache of sliding and full layers after a prefill; a decode step.

Real config: LGAI-EXAONE/EXAONE-4.0-1.2B quantized to W4A16
(compressed-tensors) and saved with transformers 4.57.3, verbatim from his0si/EXAONE-4.0-1.2B
model/config.json @1840ff905c28f1484fa9321ba9535d525ecfe998: the published model's
architecture fields (every layer full attention, listed; sliding_window and
sliding_window_pattern null; the head tied). Cross-check: 1,069,676,288 parameters without
the embedding, the model card's 1.07B.
"""

from hypothesis import strategies as st

from families._dense_draws import TINY, layer_types
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="exaone4", sliding_window=16)
ROW = Row(real=("configs/EXAONE-4.0-1.2B-W4A16.json",),
          small=dict(fields=lambda d: {"sliding_window_pattern": st.integers(1, 4),
                                       "layer_types": layer_types(d)}),
          tiny=(_TINY,), flops=(FlopsCase(dict(_TINY, sliding_window=8)),))
