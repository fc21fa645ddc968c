"""How the exactness test checks axk2."""

from family_rows import Row

ROW = Row()
