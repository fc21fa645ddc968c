"""How the exactness test checks olmo."""

from family_rows import Row

ROW = Row()
