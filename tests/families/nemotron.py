"""How the exactness test checks nemotron."""

from family_rows import Row

ROW = Row()
