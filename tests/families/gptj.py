"""How the exactness test checks gptj.

Real config: gpt-j-6b.json (EleutherAI/gpt-j-6b), verbatim in onnx-tool's LLM builder (index
file id 4881146369); 6,050,882,784 parameters ("6B").
"""

from hypothesis import strategies as st

from family_rows import OLD, Row


def _rotary(d):
    half = max(1, d["n_embd"] // d["n_head"] // 2)
    return {"rotary_dim": st.integers(1, half).map(lambda x: 2 * x)}


# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="gptj", n_embd=32, n_layer=2, n_head=4, vocab_size=64, rotary_dim=4),)

ROW = Row(real=("configs/gpt-j-6b.json",), small=dict(fields=_rotary), tiny=TINY, **OLD)
