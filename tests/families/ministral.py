"""How the exactness test checks ministral: transformers builds it only from a config that
gives head_dim and rope_theta (its class defaults neither), so the draws give both."""

from hypothesis import strategies as st

from families._dense_draws import TINY
from family_rows import Row

ROW = Row(small=dict(fields={"rope_theta": st.sampled_from([10000.0, 1e8])},
                     explicit_head_dim=True),
          tiny=(dict(TINY, model_type="ministral", head_dim=8, sliding_window=16,
                     rope_theta=1e6),))
