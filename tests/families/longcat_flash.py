"""How the exactness test checks longcat_flash."""

from family_rows import (FlopsCase, LONGCAT_TINY, Row, _longcat_checks, _longcat_gap,
                         _longcat_zero_experts, _longcat_zero_slots, longcat_configs)

# (num_hidden_layers counts sublayers, two to a layer: the generic draw keeps it even)
ROW = Row(longcat_configs, examples=40, uncounted=_longcat_zero_slots,
          small=dict(fields=lambda d: {"num_hidden_layers": 2 * d["num_hidden_layers"]}),
          extra=_longcat_checks, tiny=(LONGCAT_TINY,),
          flops=(FlopsCase(dict(LONGCAT_TINY, zero_expert_num=0),
                           gap=_longcat_gap),
                 FlopsCase(LONGCAT_TINY, check=_longcat_zero_experts)))
