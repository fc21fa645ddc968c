"""How the exactness test checks fuyu: Persimmon's decoder and a linear patch embedding,
built whole (FuyuForCausalLM), from a text_config or from the flat keys its hub configs use.

No verbatim config.json of adept/fuyu-8b was found; the class defaults (its sizes) are held
against transformers (tests/test_gpt_style_families.py) and random configs drawn here.
"""

from hypothesis import strategies as st

from family_rows import OLD, Row, small_configs


@st.composite
def _fuyu(draw):
    text = draw(small_configs("persimmon"))
    d = {"model_type": "fuyu"}
    if draw(st.booleans()):
        d["text_config"] = text
    else:   # flat, as the hub's configs are saved
        d.update({k: v for k, v in text.items() if k != "model_type"})
    for f, s in (("patch_size", st.integers(1, 8)), ("num_channels", st.integers(1, 4)),
                 ("tie_word_embeddings", st.booleans())):
        if draw(st.booleans()):
            d[f] = draw(s)
    return d


ROW = Row(lambda: _fuyu(), **OLD)
