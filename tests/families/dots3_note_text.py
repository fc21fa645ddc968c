"""How the exactness test checks dots3_note_text (sliding MLA layers of their own shape: their
cache and FLOPs)."""

from family_rows import FlopsCase, Row
from frontier_rows import DOTS3_TINY, dots3_configs, dots3_gap

ROW = Row(dots3_configs, examples=30, round_trip=True, tiny=(DOTS3_TINY,),
          flops=(FlopsCase(DOTS3_TINY, gap=dots3_gap),))
