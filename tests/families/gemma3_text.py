"""How the exactness test checks gemma3_text."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("gemma3_text"), **NEW)
