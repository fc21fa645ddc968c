"""How the exactness test checks smollm3."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("smollm3"), **NEW)
