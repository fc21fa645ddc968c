"""How the exactness test checks codegen.

No verbatim config.json of a published codegen checkpoint was found; its class defaults
(CodeGen-6B's sizes: 4096 wide, 28 layers) are held against transformers
(tests/test_gpt_style_families.py) and drawn from.
"""

from hypothesis import strategies as st

from family_rows import OLD, Row


def _rotary(d):
    half = max(1, d["n_embd"] // d["n_head"] // 2)
    return {"rotary_dim": st.integers(1, half).map(lambda x: 2 * x)}


# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="codegen", n_embd=32, n_layer=2, n_head=4, vocab_size=64, rotary_dim=4),)

ROW = Row(small=dict(fields=_rotary), tiny=TINY, **OLD)
