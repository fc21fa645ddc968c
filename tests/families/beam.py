"""How the exactness test checks beam."""

from family_rows import Row

ROW = Row()
