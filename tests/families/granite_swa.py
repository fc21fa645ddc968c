"""How the exactness test checks granite_swa."""

from family_rows import Row

ROW = Row()
