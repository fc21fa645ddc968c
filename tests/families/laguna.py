"""How the exactness test checks laguna."""

from family_rows import Row

ROW = Row()
