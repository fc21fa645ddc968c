"""How the exactness test checks mistral."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("mistral",), small=True), **OLD)
