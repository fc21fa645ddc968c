"""How the exactness test checks deepseek_v3."""

from hypothesis import strategies as st

from family_rows import OLD, Row, zoo_based_configs

# the class default puts the first 3 layers dense: a smaller draw keeps them within the depth
ROW = Row(lambda: zoo_based_configs(("deepseek_v3",), small=True), **OLD,
          small=dict(fields=lambda d: {"first_k_dense_replace":
                                       st.integers(0, d["num_hidden_layers"])}))
