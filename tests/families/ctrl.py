"""How the exactness test checks ctrl."""

from hypothesis import strategies as st

from family_rows import OLD, Row

ROW = Row(small=dict(fields={"dff": st.integers(1, 8).map(lambda x: 4 * x)}), **OLD)
