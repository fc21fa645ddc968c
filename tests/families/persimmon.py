"""How the exactness test checks persimmon (qk_layernorm, drawn with the generic switches)."""

from family_rows import Row

ROW = Row()
