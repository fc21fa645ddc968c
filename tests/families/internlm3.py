"""How the exactness test checks internlm3."""

from family_rows import Row

ROW = Row()
