"""How the exactness test checks glm."""

from family_rows import Row

ROW = Row()
