"""How the exactness test checks cohere2."""

from family_rows import Row

ROW = Row()
