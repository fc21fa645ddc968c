"""How the exactness test checks ernie4_5."""

from family_rows import Row

ROW = Row()
