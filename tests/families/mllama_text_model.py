"""How the exactness test checks mllama_text_model (Llama 3.2 Vision's language model, built
as transformers' MllamaForCausalLM): self- and cross-attention layers, 8 image-token rows in
the embedding; a text-only decode step skips the cross-attention layers (FLOPs against PyTorch).
Its published config is the multimodal mllama one (tests/families/mllama.py)."""

from hypothesis import strategies as st

from family_rows import OLD, FlopsCase, Row


def _fields(d):
    L = d["num_hidden_layers"]
    return {"cross_attention_layers": st.one_of(
        st.none(), st.lists(st.integers(0, L), max_size=L, unique=True))}


TINY = (dict(model_type="mllama_text_model", vocab_size=64, pad_token_id=0, hidden_size=32,
             intermediate_size=16, num_hidden_layers=4, num_attention_heads=4,
             num_key_value_heads=2, cross_attention_layers=[1, 3]),)

ROW = Row(small=dict(fields=_fields), tiny=TINY, flops=(FlopsCase(TINY[0]),), **OLD)
