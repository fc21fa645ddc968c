"""How the exactness test checks kimi_k25."""

from family_rows import Row, wrapped, zoo_based_configs

ROW = Row(lambda: wrapped("kimi_k25", zoo_based_configs(("deepseek_v3",), small=True)),
          examples=10)
