"""How the exactness test checks youtu: DeepSeek-V3's multi-head latent attention (a low-rank
query or a plain one) with a dense MLP; its cache after a prefill is the latent; one decode
step: transformers expands every cached latent through kv_b_proj at every step.

Real config: tencent/Youtu-LLM-2B's architecture fields, as a Swift test's
"tencentConfigJSON" holds them (public-code search index file id 55148034008, the
repository not named there): printed, its other keys left to the class defaults.
Cross-check: 1,961,560,064 parameters, the published 1.96B.
"""

from hypothesis import strategies as st

from family_rows import FlopsCase, Row, _mla_reexpansion

_TINY = {"model_type": "youtu", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 24,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
         "kv_lora_rank": 8, "q_lora_rank": 12, "qk_rope_head_dim": 4, "qk_nope_head_dim": 6,
         "v_head_dim": 6, "max_position_embeddings": 64}
_EVEN = st.integers(1, 4).map(lambda x: 2 * x)
ROW = Row(real=("configs/Youtu-LLM-2B.json",),
          small=dict(fields={"kv_lora_rank": _EVEN, "qk_rope_head_dim": _EVEN,
                             "qk_nope_head_dim": _EVEN, "v_head_dim": _EVEN,
                             "q_lora_rank": st.one_of(st.none(), _EVEN)}),
          tiny=(_TINY,), flops=(FlopsCase(_TINY, gap=_mla_reexpansion),))
