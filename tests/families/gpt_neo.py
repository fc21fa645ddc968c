"""How the exactness test checks gpt_neo."""

from hypothesis import strategies as st

from family_rows import OLD, Row

def _neo(d):
    L = d["num_layers"]
    kinds = st.lists(st.sampled_from(["global", "local"]), min_size=L, max_size=L)
    return {"attention_types": kinds.map(lambda ks: [[[k], 1] for k in ks]),
            "window_size": st.integers(1, 64)}


ROW = Row(small=dict(fields=_neo), **OLD)
