"""How the exactness test checks laguna (each layer's own head count: its decode FLOPs).

Real config: tests/fixtures/configs/Laguna-XS.2.1.json (poolside's Laguna XS 2.1), printed:
the `laguna_config()` of a public adapter test (found by the search index; its repository is
not reported), written there with comprehensions for its three per-layer lists (full layers
every fourth with 48 heads, sliding layers with 64). Cross-check: 33.4B total, 3.0B active
(the model is published as 33B-A3B).
"""

from family_rows import FlopsCase, Row
from frontier_rows import LAGUNA_TINY, laguna_configs

ROW = Row(laguna_configs, real=("configs/Laguna-XS.2.1.json",), examples=30,
          round_trip=True, tiny=(LAGUNA_TINY,),
          flops=(FlopsCase(LAGUNA_TINY),))
