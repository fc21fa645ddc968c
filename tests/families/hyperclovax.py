"""How the exactness test checks hyperclovax."""

from family_rows import Row

ROW = Row()
