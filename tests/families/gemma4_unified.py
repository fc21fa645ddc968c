"""How the exactness test checks gemma4_unified (the wrapper, its embedders counted whole)."""

from family_rows import Row
from frontier_rows import gemma4_unified_configs

ROW = Row(lambda: gemma4_unified_configs(wrapper=True), examples=20)
