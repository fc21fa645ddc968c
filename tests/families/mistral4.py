"""How the exactness test checks mistral4."""

from family_rows import Row, mla_configs

ROW = Row(lambda: mla_configs("mistral4"))
