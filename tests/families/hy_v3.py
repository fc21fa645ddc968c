"""How the exactness test checks hy_v3.

Real config: tests/fixtures/configs/Hy3.json (tencent/Hy3
@716aa7241bd6d95896be4ebfc761162a9c4d49ef), printed: the "config predicates" block of a public
KV-cache profile document (found by the search index; its repository is not reported), the
fields that shape the model, not every key of the file. Cross-check: the document gives the
checkpoint's model.safetensors.index.json metadata.total_size, 597,572,342,272 bytes, which
is 2 x (295,033,528,320 parameters counted here + 3,752,612,096 of the MTP layer 80
transformers does not build) + 4 x 80 x 192 (the fp32 expert_bias buffers): the published
size to the byte (tests/test_frontier_families.py).
"""

from family_rows import Row
from frontier_rows import hy_v3_configs

ROW = Row(hy_v3_configs, real=("configs/Hy3.json",), examples=30, round_trip=True)
