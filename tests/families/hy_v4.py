"""How the exactness test checks hy_v4 (pre/post hyper-connections: their FLOPs)."""

from family_rows import FlopsCase, Row
from frontier_rows import HY_V4_TINY, hy_v4_configs, hy_v4_gap

ROW = Row(hy_v4_configs, examples=30, round_trip=True, tiny=(HY_V4_TINY,),
          flops=(FlopsCase(HY_V4_TINY, gap=hy_v4_gap),))
