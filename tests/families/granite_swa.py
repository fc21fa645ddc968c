"""How the exactness test checks granite_swa: a learned sink per head; one full layer, then
three sliding ones, or a listed pattern; the cache after a prefill; a decode step (the
sinks change the softmax, no FLOP PyTorch counts).

Real config: ibm-granite/granite-swash-2b's config.json at hub revision
af1e3227100b61088eead48389ab5409b5d0e39c, as a test of an ONNX exporter inlines it (a Python
dict, its layer_types written as an expression; public-code search index file id 62519137983,
the repository not named there): printed. Cross-check: 2,144,463,840 parameters, "2B".
"""

from families._dense_draws import TINY, layer_types
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="granite_swa", sliding_window=16)
ROW = Row(real=("configs/granite-swash-2b.json",),
          small=dict(fields=lambda d: {"layer_types": layer_types(d)}),
          tiny=(_TINY,), flops=(FlopsCase(dict(_TINY, sliding_window=8)),))
