"""How the exactness test checks qwen2."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("qwen2",), small=True), **OLD)
