"""How the exactness test checks laguna (each layer's own head count: its decode FLOPs)."""

from family_rows import FlopsCase, Row
from frontier_rows import LAGUNA_TINY, laguna_configs

ROW = Row(laguna_configs, examples=30, round_trip=True, tiny=(LAGUNA_TINY,),
          flops=(FlopsCase(LAGUNA_TINY),))
