"""How the exactness test checks falcon_mamba (Mamba-1 with weightless norms on B, C and the
step size: the same tensors as Mamba)."""

from family_rows import FlopsCase, Row

from ._ssm import MAMBA_TINY, mamba_configs, mamba_flops_gap

TINY = dict(MAMBA_TINY, model_type="falcon_mamba")
ROW = Row(lambda: mamba_configs("falcon_mamba"), examples=40, round_trip=True, deeper=True,
          tiny=(TINY,), flops=(FlopsCase(TINY, gap=mamba_flops_gap),))
