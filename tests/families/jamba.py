"""How the exactness test checks jamba (Mamba-1 layers with their norms, one attention layer
in eight, routed experts every other layer).

Real config: ``configs/AI21-Jamba-1.5-Mini.json``, ai21labs/AI21-Jamba-1.5-Mini's config.json
as printed (Python literals, written here in JSON; a comment after use_mamba_kernels dropped)
in an untrained-model helper of the onnx-diagnostic lineage ("See
ai21labs/AI21-Jamba-1.5-Mini/config.json"; the index gives no repository, its file id is
32223319525). 51,570,323,328 parameters, 12,110,311,296 active (published: 52B total, 12B
active).
"""

from family_rows import FlopsCase, Row

from ._ssm import JAMBA_TINY, jamba_configs, jamba_flops_gap

ROW = Row(jamba_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          real=("configs/AI21-Jamba-1.5-Mini.json",), tiny=(JAMBA_TINY,),
          flops=(FlopsCase(JAMBA_TINY, gap=jamba_flops_gap),))
