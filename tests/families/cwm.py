"""How the exactness test checks cwm."""

from family_rows import Row

ROW = Row()
