"""How the exactness test checks ministral."""

from family_rows import Row

ROW = Row()
