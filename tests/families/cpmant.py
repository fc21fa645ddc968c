"""How the exactness test checks cpmant.

No verbatim config.json of a published cpmant checkpoint was found; its class defaults (those of
openbmb/cpm-ant-10b, which its config class names) are held against transformers
(tests/test_gpt_style_families.py) and drawn from.
"""

from hypothesis import strategies as st

from family_rows import OLD, Row

FIELDS = {"dim_head": st.integers(1, 8).map(lambda x: 2 * x),
          "dim_ff": st.integers(1, 8).map(lambda x: 4 * x), "prompt_types": st.integers(1, 4),
          "prompt_length": st.integers(1, 4), "segment_types": st.integers(1, 4),
          "position_bias_num_buckets": st.integers(1, 16)}

ROW = Row(small=dict(fields=FIELDS), **OLD)
