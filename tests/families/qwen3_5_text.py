"""How the exactness test checks qwen3_5_text."""

from family_rows import FLOPS_QWEN3_5, FlopsCase, QWEN3_5_TINY, Row, _qwen3_5_gap, qwen3_5_configs

ROW = Row(lambda: qwen3_5_configs(False), examples=60, tiny=(QWEN3_5_TINY,),
          flops=(FlopsCase(FLOPS_QWEN3_5, gap=_qwen3_5_gap),))
