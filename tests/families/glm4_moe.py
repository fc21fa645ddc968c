"""How the exactness test checks glm4_moe."""

from family_rows import NEW, Row, new_family_configs

# (its class defaults give no head_dim: transformers floors 4096 / 96 to 42, and so do we)
ROW = Row(lambda: new_family_configs("glm4_moe"), defaults=True, **NEW)
