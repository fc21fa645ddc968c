"""How the exactness test checks hy_v3."""

from family_rows import Row

ROW = Row()
