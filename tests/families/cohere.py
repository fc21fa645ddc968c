"""How the exactness test checks cohere (use_qk_norm, drawn with the generic switches, adds
per-head q and k norms)."""

from family_rows import Row

ROW = Row()
