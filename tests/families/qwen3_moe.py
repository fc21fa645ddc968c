"""How the exactness test checks qwen3_moe."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("qwen3_moe",), small=True), **OLD)
