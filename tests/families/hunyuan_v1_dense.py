"""How the exactness test checks hunyuan_v1_dense.

Its class defaults build nothing (head_dim is null and the attention reads it): both sides
refuse them; the generic draw gives a head_dim. Real config: tencent/Hunyuan-7B, a trimmed copy
(fixture ``configs/Hunyuan-7B_trimmed.json``; its source: tests/fixtures/README.md)."""

from hypothesis import strategies as st

from family_rows import Row

ROW = Row(defaults=False, real=("configs/Hunyuan-7B_trimmed.json",),
          small=dict(fields=dict(head_dim=st.integers(1, 8).map(lambda x: 2 * x))))
