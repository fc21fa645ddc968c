"""How the exactness test checks opt."""

from hypothesis import strategies as st

from family_rows import OLD, Row

FIELDS = {"word_embed_proj_dim": st.one_of(st.none(), st.integers(1, 8).map(lambda x: 2 * x)),
          "do_layer_norm_before": st.booleans(), "_remove_final_layer_norm": st.booleans(),
          "layer_norm_elementwise_affine": st.booleans(), "enable_bias": st.booleans(),
          "ffn_dim": st.integers(1, 8).map(lambda x: 4 * x)}

ROW = Row(small=dict(fields=FIELDS), **OLD)
