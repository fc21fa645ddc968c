"""How the exactness test checks mamba2 (every block an RMSNorm and a Mamba-2 mixer)."""

from family_rows import FlopsCase, Row
from hypothesis import strategies as st

from ._ssm import MAMBA2_TINY, mamba2_configs, mamba2_flops_gap

# (the class defaults' draw: two heads of hidden_size each, expand 2, so that heads x head_dim
# is expand x hidden_size as Mamba2Config requires)
ROW = Row(mamba2_configs, examples=40, round_trip=True, deeper=True,
          small=dict(fields=lambda d: dict(expand=2, num_heads=2, head_dim=d["hidden_size"],
                                           n_groups=st.sampled_from([1, 2]))),
          tiny=(MAMBA2_TINY,), flops=(FlopsCase(MAMBA2_TINY, gap=mamba2_flops_gap),))
