"""How the exactness test checks granitemoe_swa."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(defaults=True, small=dict(fields=dict(shared_intermediate_size=st.integers(0, 6))))
