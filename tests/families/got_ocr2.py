"""How the exactness test checks got_ocr2: Qwen2's decoder, SAM's image encoder (windowed and
global layers, relative positions per layer) and the convolutional projector, built whole.

No verbatim config.json of stepfun-ai/GOT-OCR-2.0-hf was found; the class defaults (its sizes:
GotOcr2Config names the SAM encoder's checkpoint) are held against transformers
(tests/test_image_decoders.py) and random configs drawn here.
"""

from hypothesis import strategies as st

from family_rows import OLD, Row, small_configs


@st.composite
def _got_ocr2(draw):
    text = draw(small_configs("qwen2"))
    heads = draw(st.integers(1, 3))
    layers = draw(st.integers(0, 4))
    patch = draw(st.integers(1, 4))
    vision = {"hidden_size": heads * 2 * draw(st.integers(1, 4)), "num_attention_heads": heads,
              "num_hidden_layers": layers, "mlp_dim": 4 * draw(st.integers(1, 4)),
              "output_channels": 2 * draw(st.integers(1, 4)), "patch_size": patch,
              "image_size": patch * draw(st.integers(1, 4)),
              "window_size": draw(st.integers(0, 3)), "num_channels": draw(st.integers(1, 3)),
              "global_attn_indexes": draw(st.lists(st.integers(0, max(layers - 1, 0)),
                                                   max_size=layers, unique=True))}
    for f in ("qkv_bias", "use_abs_pos", "use_rel_pos"):
        if draw(st.booleans()):
            vision[f] = draw(st.booleans())
    d = {"model_type": "got_ocr2", "text_config": text, "vision_config": vision}
    if draw(st.booleans()):
        d["tie_word_embeddings"] = draw(st.booleans())
    return d


ROW = Row(lambda: _got_ocr2(), **OLD)
