"""How the exactness test checks gemma4."""

from family_rows import Row, gemma4_configs, wrapped

ROW = Row(lambda: wrapped("gemma4", gemma4_configs()), examples=10)
