"""How the exactness test checks bitnet."""

from family_rows import Row

ROW = Row()
