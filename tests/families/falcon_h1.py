"""How the exactness test checks falcon_h1 (attention and a Mamba-2 mixer side by side in
every layer, then a SwiGLU MLP). No whole published config.json was found (a printed
Falcon-H1 copy lacks mamba_d_ssm); FalconH1Config's defaults are checked."""

from family_rows import FlopsCase, Row

from ._ssm import FALCON_H1_TINY, falcon_h1_configs, falcon_h1_flops_gap

ROW = Row(falcon_h1_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          tiny=(FALCON_H1_TINY,), flops=(FlopsCase(FALCON_H1_TINY, gap=falcon_h1_flops_gap),))
