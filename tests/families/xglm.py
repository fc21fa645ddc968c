"""How the exactness test checks xglm."""

from hypothesis import strategies as st

from family_rows import OLD, Row

ROW = Row(small=dict(fields={"ffn_dim": st.integers(1, 8).map(lambda x: 4 * x)}), **OLD)
