"""How the exactness test checks inkling_text (short convolutions beside attention: their
states in the cache; the relative-position logits in the FLOPs)."""

from family_rows import FlopsCase, Row
from frontier_rows import INKLING_TINY, inkling_configs, inkling_gap

ROW = Row(inkling_configs, examples=30, round_trip=True, tiny=(INKLING_TINY,),
          flops=(FlopsCase(INKLING_TINY, gap=inkling_gap),))
