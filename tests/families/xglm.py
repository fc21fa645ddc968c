"""How the exactness test checks xglm."""

from hypothesis import strategies as st

from family_rows import OLD, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="xglm", d_model=32, num_layers=2, attention_heads=4, vocab_size=64,
             ffn_dim=16),)

ROW = Row(small=dict(fields={"ffn_dim": st.integers(1, 8).map(lambda x: 4 * x)}), tiny=TINY, **OLD)
