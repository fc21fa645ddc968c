"""How the exactness test checks vaultgemma: sliding and full layers in turn, or a listed
pattern; the cache after a prefill; a decode step."""

from families._dense_draws import TINY, layer_types
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="vaultgemma", head_dim=8, sliding_window=16)
ROW = Row(small=dict(fields=lambda d: {"layer_types": layer_types(d)}),
          tiny=(_TINY,), flops=(FlopsCase(dict(_TINY, sliding_window=8)),))
