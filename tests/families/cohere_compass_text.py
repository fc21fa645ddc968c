"""How the exactness test checks cohere_compass_text (its class defaults cannot be built:
transformers needs rope_parameters per layer type, so the generic draw gives them)."""

from family_rows import Row
from frontier_rows import cohere_compass_configs

ROW = Row(cohere_compass_configs, examples=30, round_trip=True, small=None)
