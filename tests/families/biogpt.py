"""How the exactness test checks biogpt."""

from family_rows import OLD, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="biogpt", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             vocab_size=64, intermediate_size=16),)

ROW = Row(tiny=TINY, **OLD)
