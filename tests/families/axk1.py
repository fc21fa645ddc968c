"""How the exactness test checks axk1."""

from family_rows import Row

ROW = Row()
