"""How the exactness test checks cwm: one full-attention layer in four, the others sliding,
or a listed pattern; the cache after a prefill."""

from families._dense_draws import TINY, layer_types
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="cwm", head_dim=8, sliding_window=16)
ROW = Row(small=dict(fields=lambda d: {"layer_types": layer_types(d)}),
          tiny=(_TINY,), flops=(FlopsCase(dict(_TINY, sliding_window=8)),))
