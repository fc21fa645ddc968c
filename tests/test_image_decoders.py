"""The decoders of llmcourse/families/image_decoders.py (Fuyu, GOT-OCR 2.0, Llama 3.2
Vision, Gemma 3n's language model) and the ones refused: the class-default totals written
down from transformers 5.23's meta-device builds (AutoModelForCausalLM for the type, a
wrapper whole), and the one-line refusals of the types whose parts the course does not
size."""

import pytest

import llmcourse as lc

# written down from transformers 5.23: AutoModelForCausalLM.from_config(AutoConfig.for_model(
# type)) on the meta device (unique parameters: a tied head counted once)
CLASS_DEFAULT_TOTALS = {"fuyu": 9_408_238_592, "persimmon": 9_397_175_296,
                        "got_ocr2": 560_528_640, "gemma3n_text": 6_835_235_568,
                        "mllama": 10_642_941_475, "mllama_text_model": 9_775_192_080}


@pytest.mark.parametrize("mt", sorted(CLASS_DEFAULT_TOTALS))
def test_class_defaults_total(mt):
    assert lc.param_count({"model_type": mt}).total == CLASS_DEFAULT_TOTALS[mt]


def test_towers_are_not_active():
    """A text token does not use the image tower: Fuyu's patch embedding (30 x 30 x 3 inputs
    to 4096, and its bias) and GOT-OCR 2.0's SAM encoder are in the total only."""
    pc = lc.param_count({"model_type": "fuyu"})
    assert pc.components["vision"] == 4096 * (30 * 30 * 3 + 1)
    assert pc.active == pc.total - pc.components["vision"]
    pc = lc.param_count({"model_type": "got_ocr2"})
    assert pc.active == pc.total - pc.components["vision"]


def test_fuyu_flat_config_reads_its_language_model_from_the_top_level():
    """Fuyu's hub configs are flat: FuyuConfig lifts the language model's keys."""
    flat = lc.from_hf_config({"model_type": "fuyu", "hidden_size": 64, "num_hidden_layers": 2,
                              "num_attention_heads": 4, "intermediate_size": 128,
                              "vocab_size": 100})
    assert (flat.hidden_size, flat.num_hidden_layers, flat.text_model.model_type) == (64, 2,
                                                                                     "persimmon")
    nested = lc.from_hf_config({"model_type": "fuyu", "text_config": {
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100, "partial_rotary_factor": 0.5}})
    assert lc.param_count(flat).total == lc.param_count(nested).total


def test_gemma3n_shared_layers_cache_nothing():
    """The last num_kv_shared_layers layers read an earlier layer's K and V: of 35 layers, 20
    store 2 KV heads x 256 (K and V) per token: 35 x 2 x 2 x 256 x 2 bytes less 15 layers'."""
    cfg = lc.from_hf_config({"model_type": "gemma3n_text"})
    per_token = lc.kv_cache_bytes(cfg, 1)   # the windows (512) exceed one token
    assert per_token == 20 * 2 * 2 * 256 * 2


def test_gemma3n_per_layer_widths_that_differ_are_refused():
    d = {"model_type": "gemma3n_text", "num_hidden_layers": 2, "intermediate_size": [64, 128]}
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(d)
    assert str(e.value).startswith("intermediate_size") and "\n" not in str(e.value)
    same = lc.from_hf_config(dict(d, intermediate_size=[64, 64], num_kv_shared_layers=0))
    assert same.intermediate_size == 64


@pytest.mark.parametrize("mt", sorted(lc.families.NOT_SIZED))
def test_types_with_a_part_the_course_does_not_size_are_refused_in_one_line(mt):
    with pytest.raises(ValueError) as e:
        lc.from_hf_config({"model_type": mt})
    msg = str(e.value)
    assert msg == f"model_type: {mt}: {lc.families.NOT_SIZED[mt]}" and "\n" not in msg
    assert "not sized by the course" in msg


def test_mllama_text_step_skips_the_cross_attention_layers():
    """A text token's step uses no weight of the cross-attention layers (transformers skips
    them without an image): its matmul FLOPs are twice the other matmul weights, by hand for
    2 self- and 2 cross-attention layers of width 32 (4 heads of 8, 2 KV heads, MLP 16)."""
    d = dict(model_type="mllama_text_model", vocab_size=64, pad_token_id=0, hidden_size=32,
             intermediate_size=16, num_hidden_layers=4, num_attention_heads=4,
             num_key_value_heads=2, cross_attention_layers=[1, 3])
    layer = 32 * 32 + 2 * 16 * 32 + 32 * 32 + 3 * 32 * 16   # q, k, v, o, gate, up, down
    assert lc.flops_per_token(d, 10, "decode").matmul == 2 * (2 * layer + 64 * 32)
