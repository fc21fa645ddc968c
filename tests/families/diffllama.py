"""How the exactness test checks diffllama: four learned lambda vectors a layer, an even KV
head count (odd ones refused alike); its cache after a prefill is plain K and V; one decode
step: the engine counts each key's score once and the weighted sum over both halves of V
(2 head_dim-wide values), transformers' two attention calls compute the same scores twice."""

from families._dense_draws import TINY
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="diffllama")


def _scores_twice(d, n):
    """The second call's q.k: 2 x heads x head_dim per key, n keys, every layer."""
    heads, head_dim = d["num_attention_heads"], d["hidden_size"] // d["num_attention_heads"]
    return d["num_hidden_layers"] * 2 * heads * head_dim * n


ROW = Row(tiny=(_TINY,), flops=(FlopsCase(_TINY, gap=_scores_twice),))
