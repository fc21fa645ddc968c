"""How the exactness test checks ministral: transformers builds it only from a config that
gives head_dim (its class neither defaults nor derives one), so the draws give it (and a RoPE base,
which the class defaults to 10000)."""

from hypothesis import strategies as st

from families._dense_draws import TINY
from family_rows import Row

ROW = Row(small=dict(fields={"rope_theta": st.sampled_from([10000.0, 1e8])},
                     explicit_head_dim=True),
          tiny=(dict(TINY, model_type="ministral", head_dim=8, sliding_window=16,
                     rope_theta=1e6),))
