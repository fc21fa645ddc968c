"""How the exactness test checks mamba2 (every block an RMSNorm and a Mamba-2 mixer).

Real config: ``configs/Mamba-Codestral-7B-v0.1.json``, mistralai/Mamba-Codestral-7B-v0.1's
config.json as printed (Python literals, its time_step_limit a tuple (0.0, inf), written here
in JSON) in NX-AI/mlstm_kernels, ``mlstm_kernels/utils/benchmark/benchmarks/
huggingface_model_configs.py`` (``codestral_mamba_config``)
@81cdfbd534c6e6dad4ca984d1fad788e9a363a7a: 64 layers of width 4096, 128 heads of 64, 8
groups, state 128, vocabulary 32768; "7.3B" on its model card, 7,285,403,648 built.
"""

from family_rows import FlopsCase, Row
from hypothesis import strategies as st

from ._ssm import MAMBA2_TINY, mamba2_configs, mamba2_flops_gap

# (the class defaults' draw: two heads of hidden_size each, expand 2, so that heads x head_dim
# is expand x hidden_size as Mamba2Config requires)
ROW = Row(mamba2_configs, defaults=True, examples=40, round_trip=True, deeper=True,
          real=("configs/Mamba-Codestral-7B-v0.1.json",),
          small=dict(fields=lambda d: dict(expand=2, num_heads=2, head_dim=d["hidden_size"],
                                           n_groups=st.sampled_from([1, 2]))),
          tiny=(MAMBA2_TINY,), flops=(FlopsCase(MAMBA2_TINY, gap=mamba2_flops_gap),))
