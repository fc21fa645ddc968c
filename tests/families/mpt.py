"""How the exactness test checks mpt."""

from family_rows import OLD, FlopsCase, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="mpt", d_model=32, n_layers=2, n_heads=4, vocab_size=64, max_seq_len=32),)

ROW = Row(tiny=TINY, flops=(FlopsCase(TINY[0]),), **OLD)
