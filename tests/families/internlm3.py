"""How the exactness test checks internlm3: its own names for the bias switches (qkv_bias,
bias), which transformers reads as attention_bias and mlp_bias and requires equal."""

from hypothesis import strategies as st

from family_rows import Row


def _biases(d):
    both = st.booleans()
    return {"qkv_bias": both, "bias": both}


ROW = Row(small=dict(fields=_biases, switches=()))
