"""How the exactness test checks kolibri1."""

from family_rows import Row

ROW = Row()
