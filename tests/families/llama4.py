"""How the exactness test checks llama4."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("llama4"), **NEW)
