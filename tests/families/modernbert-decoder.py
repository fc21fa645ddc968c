"""How the exactness test checks modernbert-decoder: LayerNorm biases (norm_bias), the
decoder's and the prediction head's biases, the first layer without an attention norm, one
full layer in global_attn_every_n_layers, the window local_attention // 2; the cache after a
prefill; a decode step (the prediction head is one more matmul)."""

from hypothesis import strategies as st

from family_rows import FlopsCase, Row

_TINY = {"model_type": "modernbert-decoder", "vocab_size": 64, "hidden_size": 32,
         "intermediate_size": 24, "num_hidden_layers": 4, "num_attention_heads": 4,
         "max_position_embeddings": 64, "pad_token_id": 0, "local_attention": 32,
         "global_attn_every_n_layers": 2}
ROW = Row(small=dict(fields={"norm_bias": st.booleans(), "decoder_bias": st.booleans(),
                             "classifier_bias": st.booleans(),
                             "global_attn_every_n_layers": st.integers(1, 4),
                             "local_attention": st.integers(2, 64)}),
          tiny=(_TINY,), flops=(FlopsCase(dict(_TINY, local_attention=16)),))
