"""How the exactness test checks glm4_moe_lite."""

from family_rows import FLOPS_MLA, FlopsCase, MLA_TINY, Row, _mla_reexpansion, mla_configs

ROW = Row(lambda: mla_configs("glm4_moe_lite"),
          tiny=(dict(MLA_TINY, model_type="glm4_moe_lite"),),
          flops=(FlopsCase(dict(FLOPS_MLA, model_type="glm4_moe_lite"),
                           gap=_mla_reexpansion),))
