"""How the exactness test checks lfm2_moe."""

from family_rows import FlopsCase, LFM2_TINY, Row, _lfm2_gap, lfm2_configs

# (the class defaults give no layer pattern (transformers cannot build them): drawn by lfm2_configs)
ROW = Row(lfm2_configs, examples=60, deeper=True, tiny=(LFM2_TINY,),
          flops=(FlopsCase(LFM2_TINY, gap=_lfm2_gap),),
          small=None)
