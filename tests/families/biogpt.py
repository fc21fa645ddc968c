"""How the exactness test checks biogpt.

No verbatim config.json of a published biogpt checkpoint was found; its class defaults (those of
microsoft/biogpt, which its config class names) are held against transformers
(tests/test_gpt_style_families.py) and drawn from.
"""

from family_rows import OLD, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="biogpt", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             vocab_size=64, intermediate_size=16),)

ROW = Row(tiny=TINY, **OLD)
