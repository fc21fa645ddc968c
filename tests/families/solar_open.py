"""How the exactness test checks solar_open."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(defaults=True, small=dict(fields=dict(n_shared_experts=st.integers(0, 2))))
