"""How the exactness test checks inkling_text (short convolutions beside attention: their
states in the cache; the relative-position logits in the FLOPs).

Real config: tests/fixtures/configs/Inkling.json (thinkingmachines/Inkling), printed: the
`text_config` of the `_real_config()` a public export test gives as "config.json semantics per
PORT_SPEC §1" (found by the search index; its repository is not reported). The published file
is an inkling_mm_model wrapper (vision and audio towers the engine does not size); this is its
language model, with the hub's own keys (dense_mlp_idx, dense_intermediate_size,
local_layer_ids, sconv_kernel_size) as transformers 5.23 reads them. It gives 947.0B
parameters (2 dense layers); the test's "975B" is the class defaults' count (every layer
MoE: 975,340,270,146 here and in the meta build).
"""

from family_rows import FlopsCase, Row
from frontier_rows import INKLING_TINY, inkling_configs, inkling_gap

ROW = Row(inkling_configs, real=("configs/Inkling.json",), examples=30,
          round_trip=True, tiny=(INKLING_TINY,),
          flops=(FlopsCase(INKLING_TINY, gap=inkling_gap),))
