"""How the exactness test checks jetmoe.

A tiny model's cache (K and V of num_key_value_heads heads of kv_channels, shared by the
attention experts) and one decode step's FLOPs (its k attention experts give a token
k x num_key_value_heads query heads: the engine's attention term; no gap) are compared."""

from hypothesis import strategies as st

from family_rows import FlopsCase, Row

TINY = {"model_type": "jetmoe", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 8,
        "num_hidden_layers": 2, "num_key_value_heads": 2, "kv_channels": 8,
        "num_local_experts": 4, "num_experts_per_tok": 2, "max_position_embeddings": 64}


def _routed(model):
    """Both expert sets' weights (attention experts' and MLP experts' input_linear and
    output_linear): a token uses its top-k of each."""
    return sum(p.numel() for n, p in model.named_parameters()
               if n.endswith(("input_linear.weight", "output_linear.weight")))


ROW = Row(defaults=True, routed=_routed, routed_component=False,
          small=dict(fields=dict(kv_channels=st.integers(1, 8).map(lambda x: 2 * x))),
          tiny=(TINY,), flops=(FlopsCase(TINY),))
