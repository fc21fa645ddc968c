"""How the exactness test checks dots3_note."""

from family_rows import Row

ROW = Row()
