"""How the exactness test checks falcon_mamba (Mamba-1 with weightless norms on B, C and the
step size: the same tensors as Mamba).

Real config: ``configs/falcon-mamba-7b.json``, tiiuae/falcon-mamba-7b's config.json as printed
(Python literals, written here in JSON) in NX-AI/mlstm_kernels, ``mlstm_kernels/utils/
benchmark/benchmarks/huggingface_model_configs.py`` (``falcon_mamba_config``)
@81cdfbd534c6e6dad4ca984d1fad788e9a363a7a: 64 layers of width 4096, intermediate_size 8192
(its expand 16 is overridden by the given width, as transformers reads it), state 16, dt rank
256, vocabulary 65024; 7.27B on its model card, 7,272,665,088 built.
"""

from family_rows import FlopsCase, Row

from ._ssm import MAMBA_TINY, mamba_configs, mamba_flops_gap

TINY = dict(MAMBA_TINY, model_type="falcon_mamba")
ROW = Row(lambda: mamba_configs("falcon_mamba"),
          defaults=True, examples=40, round_trip=True, deeper=True,
          real=("configs/falcon-mamba-7b.json",),
          tiny=(TINY,), flops=(FlopsCase(TINY, gap=mamba_flops_gap),))
