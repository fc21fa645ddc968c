"""How the exactness test checks apertus."""

from family_rows import Row

ROW = Row()
