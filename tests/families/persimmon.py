"""How the exactness test checks persimmon (Fuyu's language model).

No verbatim config.json of a published Persimmon checkpoint was found; its class defaults
(adept/persimmon-8b-base's sizes, which its config class names) are held against transformers
and drawn from; Fuyu (tests/families/fuyu.py) holds it inside.
"""

from family_rows import OLD, FlopsCase, Row

TINY = (dict(model_type="persimmon", vocab_size=64, hidden_size=32, intermediate_size=16,
             num_hidden_layers=2, num_attention_heads=4),)

ROW = Row(tiny=TINY, flops=(FlopsCase(TINY[0]),), **OLD)
