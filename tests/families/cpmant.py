"""How the exactness test checks cpmant."""

from hypothesis import strategies as st

from family_rows import OLD, Row

FIELDS = {"dim_head": st.integers(1, 8).map(lambda x: 2 * x),
          "dim_ff": st.integers(1, 8).map(lambda x: 4 * x), "prompt_types": st.integers(1, 4),
          "prompt_length": st.integers(1, 4), "segment_types": st.integers(1, 4),
          "position_bias_num_buckets": st.integers(1, 16)}

ROW = Row(small=dict(fields=FIELDS), **OLD)
