"""How the exactness test checks gpt_neox_japanese.

No verbatim config.json of a published gpt_neox_japanese checkpoint was found; its class
defaults (those of abeja/gpt-neox-japanese-2.7b, which its config class names) are held against
transformers (tests/test_gpt_style_families.py) and drawn from.
"""

from hypothesis import strategies as st

from family_rows import OLD, FlopsCase, Row

FIELDS = {"intermediate_multiple_size": st.integers(1, 4),
          "rotary_pct": st.sampled_from([0.25, 0.5, 1.0])}

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="gpt_neox_japanese", hidden_size=32, num_hidden_layers=2,
             num_attention_heads=4, vocab_size=64),)

ROW = Row(small=dict(fields=FIELDS), tiny=TINY, flops=(FlopsCase(TINY[0]),), **OLD)
