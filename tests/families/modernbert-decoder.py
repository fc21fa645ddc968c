"""How the exactness test checks modernbert-decoder."""

from family_rows import Row

ROW = Row()
