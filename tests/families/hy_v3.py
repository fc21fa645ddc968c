"""How the exactness test checks hy_v3."""

from family_rows import Row
from frontier_rows import hy_v3_configs

ROW = Row(hy_v3_configs, examples=30, round_trip=True)
