"""How the exactness test checks dbrx.

Its class defaults build nothing (DbrxAttentionConfig has no rope_theta, which the attention
reads): both sides refuse them. The generic draw writes its sizes into attn_config and
ffn_config, as DBRX's config keeps them."""

from hypothesis import strategies as st

from family_rows import Row


def _fields(d):
    return dict(attn_config=dict(kv_n_heads=d["num_key_value_heads"], rope_theta=10000.0),
                ffn_config=dict(ffn_hidden_size=d["intermediate_size"],
                                moe_num_experts=d["moe_num_experts"],
                                moe_top_k=d["num_experts_per_tok"]),
                tie_word_embeddings=st.just(False))


ROW = Row(defaults=False, small=dict(fields=_fields))
