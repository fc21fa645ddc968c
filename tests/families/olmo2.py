"""How the exactness test checks olmo2."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("olmo2"), **NEW)
