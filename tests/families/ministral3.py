"""How the exactness test checks ministral3."""

from family_rows import FlopsCase, Row, dense_gqa_configs

ROW = Row(lambda: dense_gqa_configs("ministral3"), flops=(FlopsCase(
{"model_type": "ministral3", "vocab_size": 64, "hidden_size": 32,
"intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 8, "max_position_embeddings": 64}),))
