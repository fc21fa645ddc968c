"""How the exactness test checks mimo_v2_flash."""

from family_rows import Row

ROW = Row()
