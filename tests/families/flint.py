"""How the exactness test checks flint."""

from family_rows import Row
from frontier_rows import flint_configs

ROW = Row(flint_configs, examples=30, round_trip=True)
