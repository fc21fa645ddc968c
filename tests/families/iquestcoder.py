"""How the exactness test checks iquestcoder."""

from family_rows import Row

ROW = Row()
