"""How the exactness test checks mistral3."""

from family_rows import Row, dense_gqa_configs, wrapped

ROW = Row(lambda: wrapped("mistral3", dense_gqa_configs("ministral3")), examples=10)
