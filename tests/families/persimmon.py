"""How the exactness test checks persimmon."""

from family_rows import Row

ROW = Row()
