"""How the exactness test checks cohere."""

from family_rows import Row

ROW = Row()
