"""How the exactness test checks gpt_bigcode.

Real config: gpt_bigcode-santacoder.json (bigcode/gpt_bigcode-santacoder), verbatim in a Rust test
(index file id 58528290474); 1,124,886,528 parameters ("1.1B"), one K and V head.
"""

from hypothesis import strategies as st

from family_rows import OLD, FlopsCase, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="gpt_bigcode", n_embd=32, n_layer=2, n_head=4, vocab_size=64,
             n_positions=32, multi_query=True),
        dict(model_type="gpt_bigcode", n_embd=32, n_layer=2, n_head=4, vocab_size=64,
             n_positions=32, multi_query=False),)

ROW = Row(real=("configs/gpt_bigcode-santacoder.json",),
          small=dict(fields={"multi_query": st.booleans()}), tiny=TINY,
          flops=(FlopsCase(TINY[0]),), **OLD)
