"""How the exactness test checks vaultgemma."""

from family_rows import Row

ROW = Row()
