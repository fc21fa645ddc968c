"""How the exactness test checks qwen3_next."""

from family_rows import NEW, QWEN3_NEXT_TINY, Row, new_family_configs

ROW = Row(lambda: new_family_configs("qwen3_next"), **NEW, tiny=(QWEN3_NEXT_TINY,))
