"""How the exactness test checks falcon."""

from hypothesis import strategies as st

from family_rows import OLD, Row

FIELDS = {"alibi": st.booleans(), "new_decoder_architecture": st.booleans(),
          "multi_query": st.booleans(), "parallel_attn": st.booleans(), "bias": st.booleans(),
          "num_ln_in_parallel_attn": st.sampled_from([None, 1, 2]),
          "ffn_hidden_size": st.one_of(st.none(), st.integers(1, 8).map(lambda x: 4 * x))}

ROW = Row(small=dict(fields=FIELDS), **OLD)
