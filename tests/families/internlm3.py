"""How the exactness test checks internlm3: its own names for the bias switches (qkv_bias,
bias), which transformers reads as attention_bias and mlp_bias and requires equal.

Real config: internlm/internlm3-8b-instruct's architecture fields (18 of its keys,
its own names qkv_bias and bias), as a Swift test decodes "the real InternLM3 configuration"
(public-code search index file id 55463440875, the repository not named there): printed.
Cross-check: 8,804,241,408 parameters, the published 8B (8.8B).
"""

from hypothesis import strategies as st

from family_rows import Row


def _biases(d):
    both = st.booleans()
    return {"qkv_bias": both, "bias": both}


ROW = Row(real=("configs/internlm3-8b-instruct.json",),
          small=dict(fields=_biases, switches=()))
