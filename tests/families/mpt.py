"""How the exactness test checks mpt."""

from family_rows import OLD, Row

ROW = Row(**OLD)
