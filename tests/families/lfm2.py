"""How the exactness test checks lfm2 (gated short convolutions and GQA layers, each followed
by a SwiGLU MLP whose width LFM2 derives from intermediate_size)."""

from family_rows import FlopsCase, Row

from ._ssm import LFM2_TINY, lfm2_configs, lfm2_flops_gap

# (the class defaults: every layer attention, as Lfm2Config builds them)
ROW = Row(lfm2_configs, examples=50, round_trip=True, deeper=True, tiny=(LFM2_TINY,),
          flops=(FlopsCase(LFM2_TINY, gap=lfm2_flops_gap),))
