"""How the exactness test checks gpt_neox."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("gpt_neox"), **NEW)
