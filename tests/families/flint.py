"""How the exactness test checks flint."""

from family_rows import Row

ROW = Row()
