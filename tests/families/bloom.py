"""How the exactness test checks bloom."""

from family_rows import OLD, Row

ROW = Row(**OLD)
