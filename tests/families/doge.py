"""How the exactness test checks doge."""

from family_rows import Row

ROW = Row()
