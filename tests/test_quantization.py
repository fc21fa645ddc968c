"""Weights as shipped: exact bytes per scheme, checked against a real checkpoint and hand
arithmetic from the tensor shapes, never against the code's own output."""

import math

import pytest

import llmcourse as lc
from llmcourse.quantization import SCHEMES, get_scheme, stored_weights


def test_gpt_oss_20b_as_shipped_equals_its_checkpoint():
    # openai/gpt-oss-20b model.safetensors.index.json: "total_size": 13761264768. A
    # metadata-only audit of the same checkpoint lists 10,166 MB of mxfp4 experts, 2,316 MB
    # of bf16 embedding + lm_head, 1,274 MB of bf16 attention and ~5 MB of router and norms.
    assert stored_weights("gpt-oss-20b").total == 13_761_264_768
    # the same by hand, from config.json: experts stored as blocks (E, out, in/32, 16) u8 and
    # scales (E, out, in/32) u8; biases, attention, router, norms, embedding, lm_head in bf16
    H, I, E, L, V = 2880, 2880, 32, 24, 201088
    experts = L * (E * 2 * I * (H // 32) * 17 + E * H * (I // 32) * 17 + 2 * E * (2 * I + H))
    attn = L * 2 * (H * (4096 + 512 + 512) + 4096 * H + (4096 + 512 + 512 + H) + 64)
    rest = L * 2 * (E * H + E + 2 * H) + 2 * H + 2 * 2 * V * H
    assert experts + attn + rest == 13_761_264_768
    sw = stored_weights("gpt-oss-20b")
    assert sw.routed_experts == experts


def test_idealised_bytes_stay_available_and_are_smaller():
    sw = stored_weights("gpt-oss-20b")
    cfg = lc.load_model("gpt-oss-20b")
    # one definition for every scheme: values only, so mxfp4's e8m0 scales (one byte per 32
    # values) are overhead like int4's group scales (lesson 07 review, finding 10)
    assert sw.ideal == lc.weight_bytes(cfg, "bf16", experts_dtype="int4")
    assert sw.overhead == sw.total - sw.ideal >= sw.scales > 0  # + expert biases kept bf16
    # the same matrices in int4 or in mxfp4: the same idealised bytes, the scales differ
    assert stored_weights("gpt-oss-20b", "mxfp4-all").ideal == \
        stored_weights("gpt-oss-20b", "int4-g128").ideal


def test_deepseek_v3_block_scales_from_the_shapes():
    # DeepSeek-V3 quantization_config: fp8 e4m3, weight_block_size [128, 128], one float32
    # weight_scale_inv per block: ceil(rows/128) * ceil(cols/128) of them
    s = get_scheme("fp8-block128")
    assert s.matrix_bytes(576, 7168) == (576 * 7168, 5 * 56 * 4)      # kv_a_proj_with_mqa
    assert s.matrix_bytes(24576, 1536) == (24576 * 1536, 192 * 12 * 4)  # q_b_proj
    cfg = lc.load_model("DeepSeek-V3")
    sw = stored_weights(cfg)           # as shipped reads the quantization_config
    assert sw.scheme == "fp8-block128"
    # an independent walk over the 45k-row tensor listing: every 2-D matmul weight in
    # the layers except the router is fp8; embedding, lm_head, norms, router stay bf16
    df = lc.weight_shapes(cfg)
    df = df[df.note != "mtp, not built by transformers"]   # the model's weights, as loaded
    layer = df[(df.layer >= 0) & (df.component != "router") & (df.note != "buffer")]
    mats = layer[layer["shape"].map(len) == 2]
    scales = sum(math.ceil(r / 128) * math.ceil(c / 128) for r, c in mats["shape"]) * 4
    values = int(mats["numel"].sum())
    kept_bf16 = int(df[df.note != "buffer"]["numel"].sum()) - values
    buffers = int(df[df.note == "buffer"]["numel"].sum()) * 4  # e_score_correction_bias, fp32
    assert (sw.values, sw.scales) == (values, scales)
    assert sw.total == values + scales + 2 * kept_bf16 + buffers


def test_int4_group128_on_llama3_8b_by_hand():
    H, I, L, V, kvd = 4096, 14336, 32, 128256, 1024
    mats = [(H, H), (kvd, H), (kvd, H), (H, H), (I, H), (I, H), (H, I)]  # q k v o gate up down

    def awq(out, inp):  # 4-bit values, fp16 scale and 4-bit zero per 128 inputs of a row
        groups = out * math.ceil(inp / 128)
        return out * inp // 2 + groups * 2 + groups // 2
    want = L * sum(awq(o, i) for o, i in mats) + 2 * (2 * V * H + (2 * L + 1) * H)
    assert stored_weights("Meta-Llama-3-8B", "int4-g128").total == want
    gptq = stored_weights("Meta-Llama-3-8B", "int4-g128-gptq").total
    assert gptq - want == L * 4 * sum(i for _, i in mats)   # g_idx: an int32 per input column


def test_int8_channel_and_fp8_tensor_scales():
    cfg = lc.load_model("Qwen3-8B")
    n_mats = cfg.num_hidden_layers * 7
    rows = cfg.num_hidden_layers * sum(
        [cfg.num_attention_heads * cfg.head_dim, cfg.num_key_value_heads * cfg.head_dim,
         cfg.num_key_value_heads * cfg.head_dim, cfg.hidden_size, cfg.intermediate_size,
         cfg.intermediate_size, cfg.hidden_size])
    assert stored_weights(cfg, "fp8-tensor").scales == 4 * n_mats
    assert stored_weights(cfg, "int8-channel").scales == 2 * rows


def test_as_shipped_dense_models_use_their_torch_dtype():
    for name, dtype in [("gemma-2-2b", "fp32"), ("phi-2", "fp16"), ("Meta-Llama-3-8B", "bf16")]:
        assert stored_weights(name).total == lc.weight_bytes(name, dtype)


def test_mxfp4_converts_only_routed_experts():
    dense = stored_weights("Meta-Llama-3-8B", "mxfp4")
    assert dense.values == 0 and dense.total == lc.weight_bytes("Meta-Llama-3-8B", "bf16")
    moe = stored_weights("Qwen3-30B-A3B", "mxfp4")
    assert moe.values == lc.param_count("Qwen3-30B-A3B").routed_experts // 2


def test_every_listed_scheme_counts_every_zoo_model():
    for name in lc.list_models():
        for scheme in lc.list_schemes():
            sw = stored_weights(name, scheme)
            assert sw.total > 0 and sw.values + sw.scales + sw.kept == sw.total


def test_unknown_scheme_is_a_one_line_error():
    with pytest.raises(ValueError, match=r"^weights: unknown scheme 'int3'"):
        stored_weights("Qwen3-8B", "int3")
    assert "int4-g128" in SCHEMES


def test_an_unquantized_checkpoint_is_named_by_its_stored_dtype():
    """gemma-2-2b ships float32 (torch_dtype), so as shipped it is 4 bytes a parameter and
    must not be called bf16; Llama-3.1-8B ships bfloat16."""
    g = lc.stored_weights("gemma-2-2b")
    assert g.scheme == "fp32" and g.total == 4 * lc.param_count("gemma-2-2b").total
    assert lc.stored_weights("Llama-3.1-8B").scheme == "bf16"
