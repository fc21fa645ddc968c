"""How the exactness test checks phi."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("phi",), small=True), **OLD)
