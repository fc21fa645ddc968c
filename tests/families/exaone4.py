"""How the exactness test checks exaone4."""

from family_rows import Row

ROW = Row()
