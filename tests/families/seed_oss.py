"""How the exactness test checks seed_oss."""

from family_rows import Row, dense_gqa_configs

ROW = Row(lambda: dense_gqa_configs("seed_oss"))
