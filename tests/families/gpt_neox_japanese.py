"""How the exactness test checks gpt_neox_japanese."""

from hypothesis import strategies as st

from family_rows import OLD, Row

FIELDS = {"intermediate_multiple_size": st.integers(1, 4),
          "rotary_pct": st.sampled_from([0.25, 0.5, 1.0])}

ROW = Row(small=dict(fields=FIELDS), **OLD)
