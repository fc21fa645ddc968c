"""How the exactness test checks bloom.

Real config: bloom-560m.json (bigscience/bloom-560m), printed (transformers 4.26.0) in a public
note (index file id 46750199530); 559,214,592 parameters ("560M").
"""

from family_rows import OLD, FlopsCase, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="bloom", hidden_size=32, n_layer=2, n_head=4, vocab_size=64),)

ROW = Row(real=("configs/bloom-560m.json",), tiny=TINY, flops=(FlopsCase(TINY[0]),), **OLD)
