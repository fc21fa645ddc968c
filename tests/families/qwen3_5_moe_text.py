"""How the exactness test checks qwen3_5_moe_text."""

from family_rows import QWEN3_5_MOE_TINY, Row, qwen3_5_configs

ROW = Row(lambda: qwen3_5_configs(True), examples=60,
          tiny=(QWEN3_5_MOE_TINY,))
