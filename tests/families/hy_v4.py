"""How the exactness test checks hy_v4."""

from family_rows import Row

ROW = Row()
