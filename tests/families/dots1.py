"""How the exactness test checks dots1 (dots.llm1).

Its class defaults build nothing (no n_routed_experts, n_shared_experts or
num_experts_per_tok): both sides refuse them; the generic draw gives them."""

from hypothesis import strategies as st

from family_rows import Row


def _fields(d):
    L = d["num_hidden_layers"]
    return dict(n_shared_experts=st.integers(0, 2),
                first_k_dense_replace=st.integers(0, L + 1),
                max_window_layers=st.integers(1, L + 1),
                sliding_window=st.one_of(st.none(), st.integers(1, 64)))


ROW = Row(defaults=False, small=dict(fields=_fields))
