"""How the exactness test checks bloom."""

from family_rows import OLD, FlopsCase, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="bloom", hidden_size=32, n_layer=2, n_head=4, vocab_size=64),)

ROW = Row(tiny=TINY, flops=(FlopsCase(TINY[0]),), **OLD)
