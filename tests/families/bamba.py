"""How the exactness test checks bamba (Mamba-2 layers and a few attention layers, each
followed by a SwiGLU MLP). No published config.json was found to keep as a fixture;
BambaConfig's defaults (9,992,765,440 parameters) are checked."""

from family_rows import FlopsCase, Row
from hypothesis import strategies as st

from ._ssm import BAMBA_TINY, bamba_configs, bamba_flops_gap

# (the class defaults' draw: one or two Mamba-2 heads, which divide mamba_expand x hidden_size
# as BambaConfig requires; its 128 rarely do at a small width)
ROW = Row(bamba_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          tiny=(BAMBA_TINY,),
          small=dict(fields={"mamba_n_heads": st.sampled_from([1, 2])}),
          flops=(FlopsCase(BAMBA_TINY, gap=bamba_flops_gap),))
