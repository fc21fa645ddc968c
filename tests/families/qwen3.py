"""How the exactness test checks qwen3."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("qwen3",), small=True), **OLD)
