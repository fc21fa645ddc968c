"""How the exactness test checks zamba2 (Mamba-2 layers and hybrid layers running
num_mem_blocks shared blocks in turn, with per-use adapters). No published config.json in
transformers' format was found; Zamba2Config's defaults are checked."""

from family_rows import FlopsCase, Row

from ._ssm import ZAMBA2_TINY, zamba2_configs, zamba2_flops_gap

# (the class defaults' draw: Zamba2Config's own 54 layers, which need num_hidden_layers 54, and
# one Mamba head, which divides any width)
ROW = Row(zamba2_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          tiny=(ZAMBA2_TINY,),
          small=dict(fields={"num_hidden_layers": 54, "n_mamba_heads": 1}),
          flops=(FlopsCase(ZAMBA2_TINY, gap=zamba2_flops_gap),))
