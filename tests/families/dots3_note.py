"""How the exactness test checks dots3_note (its causal LM: the text model at the top level)."""

from family_rows import Row
from frontier_rows import dots3_configs

ROW = Row(lambda: dots3_configs("dots3_note"), examples=20)
