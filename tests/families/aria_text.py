"""How the exactness test checks aria_text (Aria's language model)."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(defaults=True, small=dict(fields=dict(moe_num_shared_experts=st.integers(0, 2),
                                                 mlp_bias=st.booleans())))
