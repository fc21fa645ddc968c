"""How the exactness test checks qwen2_moe."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("qwen2_moe"), **NEW)
