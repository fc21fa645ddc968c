"""How the exactness test checks mellum."""

from family_rows import Row

ROW = Row()
