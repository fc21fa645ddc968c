"""How the exactness test checks granitemoehybrid."""

from family_rows import FlopsCase, GRANITE_TINY, Row, _granite_checks, _granite_gap, granite_configs

# (its Mamba-2 heads must divide mamba_expand x hidden_size: drawn by granite_configs)
ROW = Row(granite_configs, examples=60, deeper=True, extra=_granite_checks,
          tiny=(GRANITE_TINY,),
          flops=(FlopsCase(GRANITE_TINY, gap=_granite_gap),),
          small=None)
