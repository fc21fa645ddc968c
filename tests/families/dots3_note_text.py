"""How the exactness test checks dots3_note_text."""

from family_rows import Row

ROW = Row()
