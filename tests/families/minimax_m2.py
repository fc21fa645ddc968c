"""How the exactness test checks minimax_m2."""

from family_rows import FlopsCase, Row, minimax_configs

ROW = Row(minimax_configs, flops=(FlopsCase(
{"model_type": "minimax_m2", "vocab_size": 64, "hidden_size": 32,
"intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4,
"num_key_value_heads": 2, "head_dim": 8, "num_local_experts": 4,
"num_experts_per_tok": 2, "max_position_embeddings": 64}),))
