"""How the exactness test checks llama."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("llama",), small=True), **OLD)
