"""How the exactness test checks stablelm: q, k and v biases, per-head q/k LayerNorms, the
parallel block (one norm fewer), a head_dim a config may give and transformers ignores."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(small=dict(fields={"use_qkv_bias": st.booleans(),
                             "use_parallel_residual": st.booleans(),
                             "head_dim": st.one_of(st.none(), st.integers(1, 8))}))
