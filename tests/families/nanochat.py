"""How the exactness test checks nanochat."""

from family_rows import Row

ROW = Row()
