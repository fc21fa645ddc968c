"""How the exactness test checks stablelm."""

from family_rows import Row

ROW = Row()
