"""How the exactness test checks glm4."""

from family_rows import Row

ROW = Row()
