"""How the exactness test checks arcee."""

from family_rows import Row

ROW = Row()
