"""How the exactness test checks opt.

Real config: opt-350m.json (facebook/opt-350m: 512-wide embedding projected in and out, no final
LayerNorm), content-verbatim OPTConfig keyword arguments (index file id 10041950342);
331,196,416 parameters.
"""

from hypothesis import strategies as st

from family_rows import OLD, FlopsCase, Row

FIELDS = {"word_embed_proj_dim": st.one_of(st.none(), st.integers(1, 8).map(lambda x: 2 * x)),
          "do_layer_norm_before": st.booleans(), "_remove_final_layer_norm": st.booleans(),
          "layer_norm_elementwise_affine": st.booleans(), "enable_bias": st.booleans(),
          "ffn_dim": st.integers(1, 8).map(lambda x: 4 * x)}

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="opt", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             vocab_size=64, ffn_dim=16, word_embed_proj_dim=16),)

ROW = Row(real=("configs/opt-350m.json",), small=dict(fields=FIELDS), tiny=TINY,
          flops=(FlopsCase(TINY[0]),), **OLD)
