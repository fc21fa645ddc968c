"""How the exactness test checks llama4_text."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("llama4_text"), **NEW)
