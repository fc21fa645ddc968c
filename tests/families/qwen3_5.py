"""How the exactness test checks qwen3_5."""

from family_rows import Row, qwen3_5_configs, wrapped

ROW = Row(lambda: wrapped("qwen3_5", qwen3_5_configs(False)), examples=10)
