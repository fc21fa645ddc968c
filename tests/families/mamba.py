"""How the exactness test checks mamba (Mamba-1: every block an RMSNorm and a selective scan).

Real config: ``configs/mamba-2.8b-hf.json``, state-spaces/mamba-2.8b-hf's config.json, verbatim
as vendored in confucianfighter/mamba-2.8b-hf-breakdown, ``mamba_ssm/modules/mamba_2.8b.json``
@1f0ea17fcfd5e724be6fd40f9c891c89899b51dd (64 layers of width 2560, d_state 16, dt rank 160,
vocabulary 50280; "Mamba 2.8B": the engine and the meta build count 2,768,345,600).
"""

from family_rows import FlopsCase, Row

from ._ssm import MAMBA_TINY, mamba_configs, mamba_flops_gap

ROW = Row(lambda: mamba_configs("mamba"), defaults=True, examples=40, round_trip=True, deeper=True,
          real=("configs/mamba-2.8b-hf.json",), tiny=(MAMBA_TINY,),
          flops=(FlopsCase(MAMBA_TINY, gap=mamba_flops_gap),))
