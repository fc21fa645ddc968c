"""How the exactness test checks mellum: routed experts or a dense MLP by mlp_layer_types,
full or sliding layers by layer_types; the cache after a prefill; a decode step."""

from hypothesis import strategies as st

from families._dense_draws import TINY, layer_types
from family_rows import FlopsCase, Row

_TINY = dict(TINY, model_type="mellum", head_dim=8, sliding_window=16, num_experts=4,
             num_experts_per_tok=2, moe_intermediate_size=8,
             layer_types=["sliding_attention", "full_attention"] * 2,
             mlp_layer_types=["dense", "sparse", "sparse", "sparse"])


def _fields(d):
    n = d["num_hidden_layers"]
    return {"layer_types": layer_types(d),
            "mlp_layer_types": st.one_of(st.none(), st.lists(st.sampled_from(["dense", "sparse"]),
                                                             min_size=n, max_size=n))}


ROW = Row(small=dict(fields=_fields), tiny=(_TINY,),
          flops=(FlopsCase(dict(_TINY, sliding_window=8)),))
