"""How the exactness test checks axk2."""

from family_rows import FlopsCase, Row
from frontier_rows import AXK2_TINY, axk2_configs, mla_reexpansion

ROW = Row(axk2_configs, examples=30, round_trip=True, tiny=(AXK2_TINY,),
          flops=(FlopsCase(AXK2_TINY, gap=mla_reexpansion),))
