"""How the exactness test checks olmo3."""

from family_rows import FlopsCase, Row, dense_gqa_configs

ROW = Row(lambda: dense_gqa_configs("olmo3"), flops=(FlopsCase(
 {"model_type": "olmo3", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 24,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
  "sliding_window": 8, "max_position_embeddings": 64}),))
