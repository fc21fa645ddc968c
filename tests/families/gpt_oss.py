"""How the exactness test checks gpt_oss."""

from family_rows import OLD, Row, zoo_based_configs

ROW = Row(lambda: zoo_based_configs(("gpt_oss",), small=True), **OLD)
