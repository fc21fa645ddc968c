"""How the exactness test checks hyperclovax (use_post_norm adds two norms a layer)."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(small=dict(fields={"use_post_norm": st.booleans()}))
