"""How the exactness test checks falcon.

Real config: falcon-40b.json (tiiuae/falcon-40b, the new decoder architecture, 8 KV heads),
verbatim in intel/intel-extension-for-pytorch examples/cpu/llm/inference/utils/model_config/
@6d3ba89c; 41,303,293,952 parameters.
"""

from hypothesis import strategies as st

from family_rows import OLD, FlopsCase, Row

FIELDS = {"alibi": st.booleans(), "new_decoder_architecture": st.booleans(),
          "multi_query": st.booleans(), "parallel_attn": st.booleans(), "bias": st.booleans(),
          "num_ln_in_parallel_attn": st.sampled_from([None, 1, 2]),
          "ffn_hidden_size": st.one_of(st.none(), st.integers(1, 8).map(lambda x: 4 * x))}

# tiny models whose cache after a CPU prefill is compared (and a decode step's FLOPs)
TINY = (dict(model_type="falcon", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             vocab_size=64),
        dict(model_type="falcon", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             vocab_size=64, alibi=True, multi_query=False, parallel_attn=False, bias=True),)

ROW = Row(real=("configs/falcon-40b.json",), small=dict(fields=FIELDS), tiny=TINY,
          flops=(FlopsCase(TINY[1]),), **OLD)
