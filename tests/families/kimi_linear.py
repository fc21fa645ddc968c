"""How the exactness test checks kimi_linear."""

from family_rows import FLOPS_KIMI, FlopsCase, KIMI_LINEAR_TINY, Row, _kimi_gap, kimi_linear_configs

ROW = Row(kimi_linear_configs, tiny=(KIMI_LINEAR_TINY,),
          flops=(FlopsCase(FLOPS_KIMI, gap=_kimi_gap),))
