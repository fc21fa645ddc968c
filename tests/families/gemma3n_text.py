"""How the exactness test checks gemma3n_text (Gemma 3n's language model).

Gemma 3n is published only as the multimodal gemma3n (refused: its timm vision tower); no
standalone text config.json exists. The class defaults (google/gemma-3n-E4B's language model,
which its config class names) are held against transformers (tests/test_image_decoders.py)
and drawn from.
"""

from hypothesis import strategies as st

from family_rows import OLD, FlopsCase, Row


def _fields(d):
    L = d["num_hidden_layers"]
    return {"vocab_size_per_layer_input": st.integers(300, 400),
            "hidden_size_per_layer_input": st.integers(1, 8),
            "altup_num_inputs": st.integers(1, 4), "laurel_rank": st.integers(1, 8),
            "num_kv_shared_layers": st.integers(0, L),
            "layer_types": st.one_of(st.none(), st.lists(
                st.sampled_from(["sliding_attention", "full_attention"]), min_size=L,
                max_size=L))}


TINY = (dict(model_type="gemma3n_text", vocab_size=64, vocab_size_per_layer_input=64,
             hidden_size=32, intermediate_size=16, num_hidden_layers=5, num_attention_heads=4,
             num_key_value_heads=2, head_dim=8, hidden_size_per_layer_input=4,
             laurel_rank=4, num_kv_shared_layers=2, sliding_window=16,
             layer_types=["sliding_attention", "full_attention", "sliding_attention",
                          "sliding_attention", "full_attention"]),)

ROW = Row(small=dict(fields=_fields), tiny=TINY, flops=(FlopsCase(TINY[0]),), **OLD)
