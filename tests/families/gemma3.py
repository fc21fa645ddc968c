"""How the exactness test checks gemma3."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("gemma3"), **NEW)
