"""How the exactness test checks granitemoe."""

from family_rows import Row

ROW = Row(defaults=True)
