"""How the exactness test checks kolibri1."""

from family_rows import Row
from frontier_rows import kolibri1_configs

ROW = Row(kolibri1_configs, examples=30, round_trip=True)
