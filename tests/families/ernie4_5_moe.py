"""How the exactness test checks ernie4_5_moe.

Real config: baidu/ERNIE-4.5-21B-A3B-PT, a trimmed copy (fixture
``configs/ERNIE-4.5-21B-A3B-PT_trimmed.json``; its source and cross-checks:
tests/fixtures/README.md)."""

from hypothesis import strategies as st

from family_rows import Row


def _fields(d):
    L = d["num_hidden_layers"]
    return dict(moe_num_shared_experts=st.integers(0, 2),
                moe_layer_start_index=st.integers(0, L),
                moe_layer_end_index=st.one_of(st.just(-1), st.integers(0, L - 1)),
                moe_layer_interval=st.integers(1, 3))


ROW = Row(defaults=True, real=("configs/ERNIE-4.5-21B-A3B-PT_trimmed.json",),
          small=dict(fields=_fields))
