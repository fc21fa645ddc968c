"""How the exactness test checks gemma2."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("gemma2",), small=True), **OLD)
