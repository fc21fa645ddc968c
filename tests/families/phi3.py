"""How the exactness test checks phi3."""

from family_rows import NEW, Row, new_family_configs

ROW = Row(lambda: new_family_configs("phi3"), **NEW)
