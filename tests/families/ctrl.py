"""How the exactness test checks ctrl.

No verbatim config.json of a published ctrl checkpoint was found; its class defaults (those of
Salesforce/ctrl, which its config class names) are held against transformers
(tests/test_gpt_style_families.py) and drawn from.
"""

from hypothesis import strategies as st

from family_rows import OLD, FlopsCase, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="ctrl", n_embd=32, n_layer=2, n_head=4, vocab_size=64, dff=16),)

ROW = Row(small=dict(fields={"dff": st.integers(1, 8).map(lambda x: 4 * x)}), tiny=TINY,
                     flops=(FlopsCase(TINY[0]),), **OLD)
