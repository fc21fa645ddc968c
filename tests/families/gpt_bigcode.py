"""How the exactness test checks gpt_bigcode."""

from hypothesis import strategies as st

from family_rows import OLD, Row

ROW = Row(small=dict(fields={"multi_query": st.booleans()}), **OLD)
