"""How the exactness test checks gpt2."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("gpt2"), **NEW)
