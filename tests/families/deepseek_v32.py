"""How the exactness test checks deepseek_v32."""

from family_rows import FLOPS_MLA, FlopsCase, MLA_TINY, Row, _mla_reexpansion, mla_configs

ROW = Row(lambda: mla_configs("deepseek_v32"),
          tiny=(dict(MLA_TINY, model_type="deepseek_v32"),),
          flops=(FlopsCase(dict(FLOPS_MLA, model_type="deepseek_v32"),
                           gap=_mla_reexpansion),))
