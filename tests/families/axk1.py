"""How the exactness test checks axk1."""

from family_rows import Row
from frontier_rows import axk1_configs

ROW = Row(axk1_configs, examples=30, round_trip=True)
