"""How the exactness test checks diffllama."""

from family_rows import Row

ROW = Row()
