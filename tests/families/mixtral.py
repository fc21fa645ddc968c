"""How the exactness test checks mixtral."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("mixtral",), small=True), **OLD)
