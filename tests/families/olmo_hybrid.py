"""How the exactness test checks olmo_hybrid (gated DeltaNet layers and OLMo 3 attention
layers, each followed by a SwiGLU MLP). No published config.json was found;
OlmoHybridConfig's defaults are checked."""

from family_rows import FlopsCase, Row
from hypothesis import strategies as st

from ._ssm import OLMO_HYBRID_TINY, olmo_hybrid_configs, olmo_hybrid_flops_gap

# (the class defaults' draw: the DeltaNet's key heads, which default to the attention heads,
# and its value heads, a multiple of them)
ROW = Row(olmo_hybrid_configs, defaults=True, examples=50, round_trip=True, deeper=True,
          small=dict(fields=lambda d: dict(num_hidden_layers=st.integers(2, 5),
                                           linear_num_key_heads=1,
                                           linear_num_value_heads=st.integers(1, 2))),
          tiny=(OLMO_HYBRID_TINY,),
          flops=(FlopsCase(OLMO_HYBRID_TINY, gap=olmo_hybrid_flops_gap),))
