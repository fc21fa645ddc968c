"""How the exactness test checks inkling2_text (short and dynamic convolutions: their states;
the relative logits and attention residuals in the FLOPs)."""

from family_rows import FlopsCase, Row
from frontier_rows import INKLING2_TINY, inkling2_configs, inkling2_gap

ROW = Row(inkling2_configs, examples=30, round_trip=True, tiny=(INKLING2_TINY,),
          flops=(FlopsCase(INKLING2_TINY, gap=inkling2_gap),))
