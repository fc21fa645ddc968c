"""How the exactness test checks youtu."""

from family_rows import Row

ROW = Row()
