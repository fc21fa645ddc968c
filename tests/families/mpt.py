"""How the exactness test checks mpt.

Real config: mpt-7b.json (mosaicml/mpt-7b), verbatim in intel/intel-extension-for-pytorch
examples/cpu/llm/inference/utils/model_config/ @6d3ba89c; 6,649,286,656 parameters ("6.7B").
"""

from family_rows import OLD, FlopsCase, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="mpt", d_model=32, n_layers=2, n_heads=4, vocab_size=64, max_seq_len=32),)

ROW = Row(real=("configs/mpt-7b.json",), tiny=TINY, flops=(FlopsCase(TINY[0]),), **OLD)
