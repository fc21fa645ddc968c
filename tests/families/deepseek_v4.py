"""How the exactness test checks deepseek_v4."""

from family_rows import FLOPS_V4, FlopsCase, Row, _v4_gap, v4_configs

ROW = Row(v4_configs, flops=tuple(FlopsCase(FLOPS_V4, n, _v4_gap)
                                  for n in (12, 23, 24)))
