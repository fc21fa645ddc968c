"""How the exactness test checks jamba."""

from family_rows import FlopsCase, Row

from ._ssm import JAMBA_TINY, jamba_configs, jamba_flops_gap

ROW = Row(jamba_configs, examples=50, round_trip=True, deeper=True, tiny=(JAMBA_TINY,),
          flops=(FlopsCase(JAMBA_TINY, gap=jamba_flops_gap),))
