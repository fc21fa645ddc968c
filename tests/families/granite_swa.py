"""How the exactness test checks granite_swa: a learned sink per head; one full layer, then
three sliding ones, or a listed pattern; the cache after a prefill; a decode step (the
sinks change the softmax, no FLOP PyTorch counts)."""

from families._dense_draws import TINY, layer_types
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="granite_swa", sliding_window=16)
ROW = Row(small=dict(fields=lambda d: {"layer_types": layer_types(d)}),
          tiny=(_TINY,), flops=(FlopsCase(dict(_TINY, sliding_window=8)),))
