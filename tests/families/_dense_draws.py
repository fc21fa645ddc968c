"""Draws the dense families' rows share (tests/families/<type>.py): a layer_types list as a
config lists it, or null (the class derives it)."""

from hypothesis import strategies as st

SLIDING_OR_FULL = ("sliding_attention", "full_attention")


def layer_types(d, kinds=SLIDING_OR_FULL):
    """null, or one of ``kinds`` for each of the drawn config's layers."""
    n = d["num_hidden_layers"]
    return st.one_of(st.none(), st.lists(st.sampled_from(kinds), min_size=n, max_size=n))


# a tiny model for the cache after a CPU prefill and one decode step's FLOPs: 2 sequences of 7
# tokens (its window, 16, longer than the prefill: between steps transformers' sliding cache
# keeps sliding_window - 1 tokens, the engine the sliding_window a step attends to)
TINY = {"vocab_size": 64, "hidden_size": 32, "intermediate_size": 24, "num_hidden_layers": 4,
        "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 64}
