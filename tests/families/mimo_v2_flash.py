"""How the exactness test checks mimo_v2_flash (V narrower than K: its cache and FLOPs)."""

from family_rows import FlopsCase, Row
from frontier_rows import MIMO_TINY, mimo_configs

ROW = Row(mimo_configs, examples=30, round_trip=True, tiny=(MIMO_TINY,),
          flops=(FlopsCase(MIMO_TINY),))
