"""How the exactness test checks exaone_moe (K-EXAONE)."""

from hypothesis import strategies as st

from family_rows import Row


def _fields(d):
    L = d["num_hidden_layers"]
    return dict(first_k_dense_replace=st.integers(0, L + 1),
                num_shared_experts=st.integers(0, 2),
                sliding_window_pattern=st.integers(1, 4),
                mlp_layer_types=st.one_of(st.none(), st.lists(
                    st.sampled_from(["dense", "sparse"]), min_size=L, max_size=L)))


ROW = Row(defaults=True, small=dict(fields=_fields))
