"""How the exactness test checks minicpm3.

A tiny model's cache (MLA: transformers caches each token's kv latent and RoPE key, the
engine's kv_lora_rank + qk_rope_head_dim) and one decode step's FLOPs are compared. In the
step transformers re-expands every cached latent through kv_b_proj, where the engine counts
the new token's only: the gap is layers x (n - 1) x 2 x kv_lora_rank x heads x
(qk_nope_head_dim + v_head_dim)."""

from hypothesis import strategies as st

from family_rows import FlopsCase, Row

# (its attention expands the latent to num_key_value_heads heads: equal to the query heads)
TINY = {"model_type": "minicpm3", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 8,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "max_position_embeddings": 64, "kv_lora_rank": 8, "q_lora_rank": 8,
        "qk_nope_head_dim": 4, "qk_rope_head_dim": 4, "v_head_dim": 6}


def _reexpansion(d, n):
    return 2 * (n - 1) * 2 * 8 * 4 * (4 + 6)   # 2 layers, kv_b_proj of 8 -> 4 x (4 + 6)


def _fields(d):
    even = st.integers(1, 4).map(lambda x: 2 * x)
    return dict(kv_lora_rank=even, q_lora_rank=st.one_of(st.none(), even),
                qk_nope_head_dim=even, qk_rope_head_dim=even,
                v_head_dim=st.one_of(st.none(), even))


ROW = Row(defaults=True, small=dict(fields=_fields), tiny=(TINY,),
          flops=(FlopsCase(TINY, gap=_reexpansion),))
