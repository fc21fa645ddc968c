"""How the exactness test checks qwen3_5_moe."""

from family_rows import Row, qwen3_5_configs, wrapped

ROW = Row(lambda: wrapped("qwen3_5_moe", qwen3_5_configs(True)), examples=10)
