"""How the exactness test checks lfm3 (short convolutions of 7 taps, sliding and full
attention with QK-norm and a gate per head, sandwich norms). No published config.json was
found; Lfm3Config's defaults are checked."""

from family_rows import FlopsCase, Row

from ._ssm import LFM3_FLOPS, LFM3_TINY, lfm3_configs, lfm3_flops_gap

ROW = Row(lfm3_configs, defaults=True, examples=50, round_trip=True, deeper=True, tiny=(LFM3_TINY,),
          flops=(FlopsCase(LFM3_FLOPS, gap=lfm3_flops_gap),))
