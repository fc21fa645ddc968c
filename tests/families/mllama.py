"""How the exactness test checks mllama (Llama 3.2 Vision, built whole: its language model with
cross-attention layers, the tiled image encoder with gated position tables and global layers,
the projector).

No verbatim config.json of meta-llama/Llama-3.2-11B-Vision was found (intel/intel-extension-for-
pytorch tests/cpu/hf_configs/mllama/config.json is one with its widths cut down for a test);
the class defaults (that checkpoint's, which MllamaConfig names: 10,642,941,475 parameters,
published "10.6B") are held against transformers (tests/test_image_decoders.py) and random
configs drawn here.
"""

from hypothesis import strategies as st

from family_rows import OLD, Row, small_configs
from families.mllama_text_model import _fields


@st.composite
def _mllama(draw):
    text = draw(small_configs("mllama_text_model", fields=_fields))
    heads = draw(st.integers(1, 3))
    patch = draw(st.integers(1, 4))
    vision = {"hidden_size": heads * 2 * draw(st.integers(1, 4)), "attention_heads": heads,
              "num_hidden_layers": draw(st.integers(0, 3)),
              "num_global_layers": draw(st.integers(0, 2)),
              "intermediate_size": 4 * draw(st.integers(1, 4)), "patch_size": patch,
              "image_size": patch * draw(st.integers(1, 4)),
              "max_num_tiles": 4, "num_channels": draw(st.integers(1, 3)),
              "vision_output_dim": 2 * draw(st.integers(1, 8))}
    if draw(st.booleans()):
        vision["supported_aspect_ratios"] = [[1, 1], [1, 2]][:draw(st.integers(1, 2))]
        vision["max_num_tiles"] = draw(st.integers(1, 4))   # (4 with the default ratios)
    return {"model_type": "mllama", "text_config": text, "vision_config": vision}


ROW = Row(lambda: _mllama(), **OLD)
