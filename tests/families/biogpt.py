"""How the exactness test checks biogpt."""

from family_rows import OLD, Row

ROW = Row(**OLD)
