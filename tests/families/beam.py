"""How the exactness test checks beam."""

from family_rows import Row
from frontier_rows import beam_configs

ROW = Row(beam_configs, examples=30, round_trip=True)
