"""How the exactness test checks minimax_m3_vl_text."""

from family_rows import Row

ROW = Row()
