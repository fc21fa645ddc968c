"""How the exactness test checks qwen4_exp."""

from family_rows import Row, qwen4_configs, wrapped

ROW = Row(lambda: wrapped("qwen4_exp", qwen4_configs()), examples=10)
