"""How the exactness test checks glm_moe_dsa."""

from family_rows import MLA_TINY, Row, mla_configs

ROW = Row(lambda: mla_configs("glm_moe_dsa"),
          tiny=(dict(MLA_TINY, model_type="glm_moe_dsa",
                     indexer_types=["full", "shared", "full"]),))
