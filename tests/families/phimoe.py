"""How the exactness test checks phimoe."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(defaults=True, small=dict(fields=dict(lm_head_bias=st.booleans(),
                                                 sliding_window=st.one_of(st.none(),
                                                                          st.integers(1, 64)))))
