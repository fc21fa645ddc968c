"""How the exactness test checks glm4_moe."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("glm4_moe"), **NEW)
