"""How the exactness test checks olmo: its LayerNorms have no weights (no tensors at all);
clip_qkv changes none."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(small=dict(fields={"clip_qkv": st.one_of(st.none(), st.floats(1, 10))}))
