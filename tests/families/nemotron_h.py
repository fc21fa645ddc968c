"""How the exactness test checks nemotron_h (Nemotron 3 Super's latent projections,
moe_latent_size, count with its experts)."""

from family_rows import (FLOPS_NEMOTRON, FlopsCase, NEMOTRON_TINY, Row, _nemotron_gap,
                         nemotron_configs)

ROW = Row(nemotron_configs, examples=40, routed_component=False,
          tiny=(NEMOTRON_TINY,),
          flops=(FlopsCase(FLOPS_NEMOTRON, gap=_nemotron_gap),))
