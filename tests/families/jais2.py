"""How the exactness test checks jais2."""

from family_rows import Row

ROW = Row()
