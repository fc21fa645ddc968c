"""How the exactness test checks gemma4_unified_assistant: transformers 5.23 cannot build one,
and the engine refuses it in one line (tests/test_frontier_families.py)."""

from family_rows import Row

ROW = Row(small=None)
