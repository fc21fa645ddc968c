"""How the exactness test checks gemma4_unified_text."""

from family_rows import Row
from frontier_rows import GEMMA4_UNIFIED_TINY, gemma4_unified_configs

ROW = Row(gemma4_unified_configs, examples=30, tiny=(GEMMA4_UNIFIED_TINY,))
