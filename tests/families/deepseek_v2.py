"""How the exactness test checks deepseek_v2."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("deepseek_v2",), small=True), **OLD)
