"""How the exactness test checks flex_olmo."""

from family_rows import Row

ROW = Row(defaults=True)
