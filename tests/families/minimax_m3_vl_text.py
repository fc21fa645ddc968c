"""How the exactness test checks minimax_m3_vl_text (block-sparse attention: the indexer's
keys in the cache, the kept blocks in the FLOPs)."""

from family_rows import FlopsCase, Row
from frontier_rows import MINIMAX_M3_TINY, minimax_m3_configs, minimax_m3_gap

ROW = Row(minimax_m3_configs, examples=30, round_trip=True, tiny=(MINIMAX_M3_TINY,),
          flops=(FlopsCase(MINIMAX_M3_TINY, 20, minimax_m3_gap),
                 FlopsCase(MINIMAX_M3_TINY, 7, minimax_m3_gap)))
