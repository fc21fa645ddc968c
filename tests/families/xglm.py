"""How the exactness test checks xglm.

Real config: xglm-1.7B.json (facebook/xglm-1.7B), printed in blvns/x-elm
xl-btm/convert_xglm_original_ckpt_to_trfms.py @f1d26173; 1,732,907,008 parameters.
"""

from hypothesis import strategies as st

from family_rows import OLD, Row

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="xglm", d_model=32, num_layers=2, attention_heads=4, vocab_size=64,
             ffn_dim=16),)

ROW = Row(real=("configs/xglm-1.7B.json",),
          small=dict(fields={"ffn_dim": st.integers(1, 8).map(lambda x: 4 * x)}), tiny=TINY, **OLD)
