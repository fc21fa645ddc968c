"""How the exactness test checks codegen."""

from hypothesis import strategies as st

from family_rows import OLD, Row

def _rotary(d):
    half = max(1, d["n_embd"] // d["n_head"] // 2)
    return {"rotary_dim": st.integers(1, half).map(lambda x: 2 * x)}


ROW = Row(small=dict(fields=_rotary), **OLD)
