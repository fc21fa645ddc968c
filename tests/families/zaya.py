"""How the exactness test checks zaya (compressed convolutional attention: its convolution
window and delayed value in the cache, its decode FLOPs)."""

from family_rows import FlopsCase, Row
from frontier_rows import ZAYA_TINY, zaya_configs, zaya_gap

ROW = Row(zaya_configs, examples=30, round_trip=True, tiny=(ZAYA_TINY,),
          flops=(FlopsCase(ZAYA_TINY, gap=zaya_gap),))
