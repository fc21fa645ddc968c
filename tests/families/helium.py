"""How the exactness test checks helium."""

from family_rows import Row

ROW = Row()
