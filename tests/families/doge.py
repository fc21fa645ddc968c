"""How the exactness test checks doge: the dynamic mask's dt_proj and A, the residual scales,
a window on every layer when sliding_window is set; its cache after a prefill; one decode
step: the engine counts dt_proj once per token, transformers' reference code runs it over
every cached value again at each step."""

from hypothesis import strategies as st

from families._dense_draws import TINY
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="doge")


def _dt_proj_over_the_cache(d, n):
    """dt_proj (KV heads x head_dim in, KV heads out) on the n - 1 cached values, every layer."""
    kv, head_dim = d["num_key_value_heads"], d["hidden_size"] // d["num_attention_heads"]
    return d["num_hidden_layers"] * 2 * kv * head_dim * kv * (n - 1)


ROW = Row(small=dict(fields={"sliding_window": st.one_of(st.none(), st.integers(1, 64))}),
          tiny=(_TINY, dict(_TINY, sliding_window=16)),
          flops=(FlopsCase(_TINY, gap=_dt_proj_over_the_cache),))
