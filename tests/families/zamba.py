"""How the exactness test checks zamba (Mamba-1 layers and hybrid layers sharing one
attention-and-MLP block). ZambaConfig's defaults are Zamba-7B-v1's sizes (7,232,490,496
parameters); no published config.json was found to keep as a fixture."""

from family_rows import FlopsCase, Row

from ._ssm import ZAMBA_TINY, zamba_configs, zamba_flops_gap

ROW = Row(zamba_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          tiny=(ZAMBA_TINY,), flops=(FlopsCase(ZAMBA_TINY, gap=zamba_flops_gap),))
