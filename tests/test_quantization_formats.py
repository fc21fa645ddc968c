"""The formats of 2026's checkpoints, as stored: NVFP4 (ModelOpt and compressed-tensors),
MXFP4, FP8 and INT8 per channel, W4A16 packed, mixed precision, and llama.cpp's GGUF
mixtures. Each byte figure is checked against a real checkpoint (tests/fixtures/
quantized_checkpoints.json, tests/fixtures/gguf_published.json: their sources and quoted
lines) or against arithmetic from the tensor shapes done here, never against the code's
own output."""

from __future__ import annotations

import collections
import copy
import json
import math
import pathlib

import pytest

import llmcourse as lc
from llmcourse.quantization import (GGML_TYPES, gguf_tensors, gguf_weights, list_formats,
                                    scheme_as_shipped, stored_weights)

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
CHECKPOINTS = {c["id"]: c for c in json.loads(
    (FIXTURES / "quantized_checkpoints.json").read_text())["checkpoints"]}
GGUF = {f["id"]: f for f in json.loads((FIXTURES / "gguf_published.json").read_text())["files"]}


def zoo_raw(name):
    return json.loads((pathlib.Path(lc.zoo.CONFIG_DIR) / f"{name}.json").read_text())


def with_quant(name, quantization_config):
    return lc.from_hf_config(dict(zoo_raw(name), quantization_config=quantization_config))


def checkpoint_cfg(witness):
    return with_quant(witness["config"], witness["quantization_config"])


# --- NVFP4 as ModelOpt writes it: nvidia/Qwen3-8B-NVFP4 -----------------------------------

def qwen3_8b_nvfp4_by_hand():
    """nvidia/Qwen3-8B-NVFP4's tensors from Qwen3-8B's config.json and the layout its
    header shows: each decoder matrix (out, in) as U8 (out, in/2), F8_E4M3 (out, in/16) and
    two F32 scalars (weight_scale_2, input_scale); k_proj.k_scale and v_proj.v_scale F32
    scalars; norms, embedding and the untied lm_head (excluded) in bf16."""
    H, I, L, V, q, kv, hd = 4096, 12288, 36, 151936, 32 * 128, 8 * 128, 128
    mats = [(q, H), (kv, H), (kv, H), (H, q), (I, H), (I, H), (H, I)]
    per_layer = sum(o * i // 2 + o * i // 16 + 8 for o, i in mats)
    per_layer += 2 * 4                         # k_scale, v_scale
    per_layer += 2 * (2 * hd + 2 * H)          # q_norm, k_norm, input/post norms in bf16
    tensors = L * (7 * 4 + 2 + 4) + 3          # 36 x 34 + embed, norm, lm_head
    return L * per_layer + 2 * 2 * V * H + 2 * H, tensors


def test_modelopt_nvfp4_equals_nvidia_qwen3_8b_checkpoint():
    w = CHECKPOINTS["nvidia-qwen3-8b-nvfp4"]
    payload = sum(s["file_size"] - 8 - s["header_length"] for s in w["shards"])
    assert payload == w["tensor_payload_bytes"] == 6_396_932_352
    assert sum(s["tensor_count"] for s in w["shards"]) == w["tensor_count"]
    by_hand, n_tensors = qwen3_8b_nvfp4_by_hand()
    assert (by_hand, n_tensors) == (payload, w["tensor_count"])
    sw = stored_weights(checkpoint_cfg(w))
    assert sw.total == payload
    assert sw.scheme == "nvfp4"
    # the shapes the header shows for q_proj and down_proj, by the scheme's layout
    nvfp4 = lc.quantization.FORMATS["nvfp4"]
    assert nvfp4.matrix_bytes(4096, 4096) == (4096 * 2048, 4096 * 256 + 8)
    assert nvfp4.matrix_bytes(4096, 12288) == (4096 * 6144, 4096 * 768 + 8)


def test_modelopt_config_json_layout_reads_the_same():
    """ModelOpt writes config.json's quantization_config with convert_hf_quant_config_format
    (flat: quant_algo, ignore, kv_cache_scheme, config_groups): the same checkpoint."""
    w = CHECKPOINTS["nvidia-qwen3-8b-nvfp4"]
    flat = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ["lm_head"],
            "kv_cache_scheme": {"dynamic": False, "num_bits": 8, "type": "float"},
            "producer": {"name": "modelopt", "version": "0.35.0"},
            "config_groups": {"group_0": {
                "input_activations": {"dynamic": False, "num_bits": 4, "type": "float",
                                      "group_size": 16},
                "weights": {"dynamic": False, "num_bits": 4, "type": "float",
                            "group_size": 16}, "targets": ["Linear"]}}}
    assert stored_weights(with_quant("Qwen3-8B", flat)).total == w["tensor_payload_bytes"]
    # without the KV-cache scales: 36 layers x 2 fp32 fewer
    no_kv = {k: v for k, v in flat.items() if k != "kv_cache_scheme"}
    assert stored_weights(with_quant("Qwen3-8B", no_kv)).total == \
        w["tensor_payload_bytes"] - 36 * 8


def test_modelopt_nvfp4_w4a16_drops_the_input_scale():
    q = {"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4", "group_size": 16,
         "exclude_modules": ["lm_head"]}
    full, _ = qwen3_8b_nvfp4_by_hand()
    assert stored_weights(with_quant("Qwen3-8B", q)).total == full - 36 * 7 * 4 - 36 * 8


def test_modelopt_nvfp4_pads_rows_to_a_whole_block():
    """nvfp4_tensor.py quantize(): reduce_block_padding pads the last dimension to a
    multiple of 16 before packing: a row of 72 inputs stores 80 values (40 bytes) and 5
    scales."""
    s = lc.quantization.FORMATS["nvfp4"]
    assert s.matrix_bytes(3, 72) == (3 * 40, 3 * 5 + 8)


def test_checkpoint_report_reads_a_modelopt_nvfp4_header(tmp_path):
    """The nvidia/Qwen3-8B-NVFP4 header rebuilt from the witness (the five projections'
    dtypes and shapes as recorded; k_proj and v_proj by the same layout; norms, embedding
    and head in bf16): lc.checkpoint_report counts two fp4 values a byte and reads the
    scales as scales."""
    from test_hub_checkpoint import write_checkpoint
    w = CHECKPOINTS["nvidia-qwen3-8b-nvfp4"]
    sizes = {"BF16": 2, "F32": 4, "F8_E4M3": 1, "U8": 1}
    proj = dict(w["projections"])
    for p in ("k_proj", "v_proj"):
        proj[p] = {"weight": ["U8", [1024, 2048]], "weight_scale": ["F8_E4M3", [1024, 256]],
                   "weight_scale_2": ["F32", []], "input_scale": ["F32", []]}
    tensors = {"model.embed_tokens.weight": ("BF16", (151936, 4096)),
               "lm_head.weight": ("BF16", (151936, 4096)), "model.norm.weight": ("BF16", (4096,))}
    for i in range(36):
        p = f"model.layers.{i}."
        for name, parts in proj.items():
            where = "self_attn." if name.endswith(("q_proj", "k_proj", "v_proj", "o_proj")) \
                else "mlp."
            for suffix, (dtype, shape) in parts.items():
                tensors[f"{p}{where}{name}.{suffix}"] = (dtype, tuple(shape))
        tensors[f"{p}self_attn.k_proj.k_scale"] = ("F32", ())
        tensors[f"{p}self_attn.v_proj.v_scale"] = ("F32", ())
        for n, d in (("self_attn.q_norm", 128), ("self_attn.k_norm", 128),
                     ("input_layernorm", 4096), ("post_attention_layernorm", 4096)):
            tensors[f"{p}{n}.weight"] = ("BF16", (d,))
    assert len(tensors) == w["tensor_count"]
    assert sum(sizes[d] * math.prod(s) for d, s in tensors.values()) == \
        w["tensor_payload_bytes"]
    config = dict(zoo_raw("Qwen3-8B"), quantization_config=w["quantization_config"])
    folder = write_checkpoint(tmp_path / "Qwen3-8B-NVFP4", config, tensors)
    r = lc.checkpoint_report(folder)
    assert r.checkpoint_bytes == r.engine_bytes == w["tensor_payload_bytes"]
    assert r.parts["scales"].bytes == r.engine_scales
    assert r.parts["language_model"].values == lc.param_count("Qwen3-8B").total
    assert r.explained


# --- compressed-tensors: llm-compressor's W4A16 and W4A8 on Llama-3.1-8B ------------------

def llama31_8b_layers():
    H, I, kvd = 4096, 14336, 1024
    return [(H, H), (kvd, H), (kvd, H), (H, H), (I, H), (I, H), (H, I)]


def test_compressed_tensors_pack_quantized_equals_the_w4a16_checkpoint():
    """llm-compressor issue #1215: 5,700,595,200 bytes (model.safetensors.index.json). By
    hand: each matrix as int4 in int32 words (out x in / 8 words), a bf16 scale per 128
    inputs, and weight_shape = torch.tensor(weight.shape), two int64; embedding, lm_head
    (ignored) and norms in bf16."""
    w = CHECKPOINTS["llmcompressor-llama31-8b-w4a16"]
    L, V, H = 32, 128256, 4096
    layer = sum(o * i // 8 * 4 + o * (i // 128) * 2 + 16 for o, i in llama31_8b_layers())
    by_hand = L * (layer + 2 * 2 * H) + 2 * H + 2 * 2 * V * H
    assert by_hand == w["total_size"] == 5_700_595_200
    assert stored_weights(checkpoint_cfg(w)).total == w["total_size"]


def test_compressed_tensors_int_quantized_stores_a_byte_a_value():
    """The same run's W4A8: weights with activations are written int-quantized (int8
    containers: one byte per int4 value), no weight_shape: 9,190,252,544 bytes."""
    w = CHECKPOINTS["llmcompressor-llama31-8b-w4a8"]
    L, V, H = 32, 128256, 4096
    layer = sum(o * i + o * (i // 128) * 2 for o, i in llama31_8b_layers())
    by_hand = L * (layer + 2 * 2 * H) + 2 * H + 2 * 2 * V * H
    assert by_hand == w["total_size"] == 9_190_252_544
    assert stored_weights(checkpoint_cfg(w)).total == w["total_size"]


def ct(groups, ignore=("lm_head",), fmt=None, **extra):
    q = {"quant_method": "compressed-tensors", "config_groups": groups, "ignore": list(ignore)}
    if fmt:
        q["format"] = fmt
    return dict(q, **extra)


NVFP4_W = {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16,
           "symmetric": True, "dynamic": False}
NVFP4_A = {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16,
           "symmetric": True, "dynamic": "local"}
FP8_CH = {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True,
          "dynamic": False}


def qwen3_mats(cfg):
    q, kv = cfg.num_attention_heads * cfg.head_dim, cfg.num_key_value_heads * cfg.head_dim
    H, I = cfg.hidden_size, cfg.intermediate_size
    return {"attn": [(q, H), (kv, H), (kv, H), (H, q)], "mlp": [(I, H), (I, H), (H, I)]}


def kept_bf16(cfg):
    """Norms, embedding and the (untied) head of a Qwen3 model in bf16."""
    H, V, L, hd = cfg.hidden_size, cfg.vocab_size, cfg.num_hidden_layers, cfg.head_dim
    head = 0 if cfg.tie_word_embeddings else V * H
    return 2 * (L * (2 * hd + 2 * H) + H + V * H + head)


def test_compressed_tensors_nvfp4_w4a4_and_w4a16():
    """nvfp4-pack-quantized: weight_packed (out, in/2) U8, weight_scale (out, in/16) fp8,
    weight_global_scale (1,) fp32, and for W4A4 input_global_scale (1,) fp32."""
    cfg = lc.load_model("Qwen3-8B")
    mats = sum(qwen3_mats(cfg).values(), [])
    L = cfg.num_hidden_layers
    values = L * sum(o * i // 2 for o, i in mats)
    scales = L * sum(o * i // 16 for o, i in mats)
    w4a4 = with_quant("Qwen3-8B", ct({"group_0": {"targets": ["Linear"], "weights": NVFP4_W,
                                                  "input_activations": NVFP4_A}},
                                     fmt="nvfp4-pack-quantized"))
    w4a16 = with_quant("Qwen3-8B", ct({"group_0": {"targets": ["Linear"], "weights": NVFP4_W}},
                                      fmt="nvfp4-pack-quantized"))
    assert stored_weights(w4a4).total == values + scales + L * 7 * 8 + kept_bf16(cfg)
    assert stored_weights(w4a16).total == values + scales + L * 7 * 4 + kept_bf16(cfg)
    assert stored_weights(w4a4).scheme == "nvfp4-ct"
    # the explicit format names give the same bytes for the usual recipe (lm_head kept)
    assert stored_weights("Qwen3-8B", "nvfp4-ct").total == stored_weights(w4a4).total
    assert stored_weights("Qwen3-8B", "nvfp4a16-ct").total == stored_weights(w4a16).total


def test_mixed_nvfp4_and_fp8_config_groups():
    """Two config groups: attention in FP8 (float-quantized, one bf16 scale per output
    row), the MLP in NVFP4; each group its own format (mixed-precision)."""
    cfg = lc.load_model("Qwen3-0.6B")
    m, L = qwen3_mats(cfg), cfg.num_hidden_layers
    q = ct({"group_0": {"targets": ["re:.*self_attn\\.(q|k|v|o)_proj$"], "weights": FP8_CH,
                        "format": "float-quantized"},
            "group_1": {"targets": ["re:.*mlp\\.(gate|up|down)_proj$"], "weights": NVFP4_W,
                        "input_activations": NVFP4_A, "format": "nvfp4-pack-quantized"}},
           fmt="mixed-precision")
    sw = stored_weights(with_quant("Qwen3-0.6B", q))
    attn = L * sum(o * i + o * 2 for o, i in m["attn"])
    mlp = L * sum(o * i // 2 + o * i // 16 + 8 for o, i in m["mlp"])
    assert sw.total == attn + mlp + kept_bf16(cfg)   # Qwen3-0.6B ties its head: stored once
    assert sw.scheme == "mixed: fp8-channel-ct, nvfp4-ct"


def test_modelopt_mixed_precision_names_each_module():
    """ModelOpt's MIXED_PRECISION: quantized_layers names each module and its algorithm;
    modules it does not name stay in bf16. FP8 (per tensor: fp8 values, fp32 weight_scale
    and input_scale) for layer 0's attention, NVFP4 for every MLP."""
    cfg = lc.load_model("Qwen3-0.6B")
    m, L = qwen3_mats(cfg), cfg.num_hidden_layers
    layers = {}
    for i in range(L):
        for p in ("gate_proj", "up_proj", "down_proj"):
            layers[f"model.layers.{i}.mlp.{p}"] = {"quant_algo": "NVFP4", "group_size": 16}
    for p in ("q_proj", "k_proj", "v_proj", "o_proj"):
        layers[f"model.layers.0.self_attn.{p}"] = {"quant_algo": "FP8"}
    q = {"producer": {"name": "modelopt"},
         "quantization": {"quant_algo": "MIXED_PRECISION", "quantized_layers": layers,
                          "exclude_modules": ["lm_head"]}}
    sw = stored_weights(with_quant("Qwen3-0.6B", q))
    mlp = L * sum(o * i // 2 + o * i // 16 + 8 for o, i in m["mlp"])
    attn0 = sum(o * i + 8 for o, i in m["attn"])
    attn_rest = (L - 1) * sum(2 * o * i for o, i in m["attn"])
    assert sw.total == mlp + attn0 + attn_rest + kept_bf16(cfg)


def test_mxfp4_on_any_model():
    """MXFP4 beyond gpt-oss: compressed-tensors' mxfp4-pack-quantized on every Linear of
    Qwen3-8B: two e2m1 values a byte and one uint8 (e8m0) scale per 32 inputs."""
    cfg = lc.load_model("Qwen3-8B")
    mats, L = sum(qwen3_mats(cfg).values(), []), cfg.num_hidden_layers
    w = {"num_bits": 4, "type": "float", "strategy": "group", "group_size": 32,
         "symmetric": True, "dynamic": False}
    sw = stored_weights(with_quant("Qwen3-8B", ct({"group_0": {"targets": ["Linear"],
                                                                "weights": w}},
                                                  fmt="mxfp4-pack-quantized")))
    assert sw.total == L * sum(o * i // 2 + o * i // 32 for o, i in mats) + kept_bf16(cfg)
    assert stored_weights("Qwen3-8B", "mxfp4-ct").total == sw.total


def test_fp8_and_int8_per_channel():
    """compressed-tensors' FP8_DYNAMIC and W8A8: a byte a value, a bf16 scale per output
    channel; dynamic per-token activations store nothing."""
    cfg = lc.load_model("Qwen3-8B")
    mats, L = sum(qwen3_mats(cfg).values(), []), cfg.num_hidden_layers
    want = L * sum(o * i + 2 * o for o, i in mats) + kept_bf16(cfg)
    dyn = {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": True}
    fp8 = ct({"group_0": {"targets": ["Linear"], "weights": FP8_CH, "input_activations": dyn}},
             fmt="float-quantized")
    int8 = ct({"group_0": {"targets": ["Linear"], "weights": dict(FP8_CH, type="int"),
                           "input_activations": dict(dyn, type="int")}}, fmt="int-quantized")
    assert stored_weights(with_quant("Qwen3-8B", fp8)).total == want
    assert stored_weights(with_quant("Qwen3-8B", int8)).total == want
    assert stored_weights("Qwen3-8B", "fp8-channel").total == want
    assert stored_weights("Qwen3-8B", "w8a8-int8").total == want


def test_fp8_blocks_stay_exact_in_compressed_tensors():
    """FP8 with 128x128 blocks (compressed-tensors' FP8_BLOCK): one scale per block, in the
    weight's dtype unless scale_dtype says otherwise."""
    cfg = lc.load_model("Qwen3-8B")
    mats, L = sum(qwen3_mats(cfg).values(), []), cfg.num_hidden_layers
    w = {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128],
         "symmetric": True, "dynamic": False, "scale_dtype": "torch.float32"}
    sw = stored_weights(with_quant("Qwen3-8B", ct({"group_0": {"targets": ["Linear"],
                                                                "weights": w}},
                                                  fmt="float-quantized")))
    blocks = L * sum(math.ceil(o / 128) * math.ceil(i / 128) for o, i in mats)
    assert sw.total == L * sum(o * i for o, i in mats) + 4 * blocks + kept_bf16(cfg)


def test_routers_and_ignored_modules_stay_16bit():
    """compressed-tensors' 'Linear' target: a router is left alone unless a target names it
    (every published recipe ignores it); 'ignore' keeps the head."""
    cfg = lc.load_model("Qwen3-30B-A3B")
    w = {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128,
         "symmetric": True, "dynamic": False}
    base = ct({"group_0": {"targets": ["Linear"], "weights": w}}, fmt="pack-quantized")
    named = ct({"group_0": {"targets": ["Linear", "re:.*mlp\\.gate$"], "weights": w}},
               fmt="pack-quantized")
    a = stored_weights(with_quant("Qwen3-30B-A3B", base)).total
    b = stored_weights(with_quant("Qwen3-30B-A3B", named)).total
    E, H, L = cfg.num_experts, cfg.hidden_size, cfg.num_hidden_layers
    router_bf16 = 2 * E * H
    router_int4 = E * H // 8 * 4 + E * (H // 128) * 2 + 16
    assert a - b == L * (router_bf16 - router_int4)


def test_scheme_as_shipped_still_gives_one_scheme():
    assert scheme_as_shipped(checkpoint_cfg(CHECKPOINTS["nvidia-qwen3-8b-nvfp4"]))[0].name == \
        "nvfp4"
    for name in list_formats():
        assert name in lc.quantization.FORMATS or name.startswith("gguf-")
    assert not set(list_formats()) & set(lc.list_schemes())   # the course's tables unchanged


# --- GGUF ---------------------------------------------------------------------------------

def test_ggml_block_sizes_from_their_structs():
    """ggml-common.h: block_q8_0 = fp16 d + 32 int8; block_q4_K = fp16 d + fp16 dmin + 12
    bytes of 6-bit scales + 256 x 4 bits; block_q5_K = q4_K + 256 high bits; block_q6_K =
    256 x 4 low bits + 256 x 2 high bits + 16 int8 scales + fp16 d."""
    assert GGML_TYPES["Q8_0"][:2] == (32, 2 + 32)
    assert GGML_TYPES["Q4_K"][:2] == (256, 2 + 2 + 12 + 128)
    assert GGML_TYPES["Q5_K"][:2] == (256, 2 + 2 + 12 + 128 + 32)
    assert GGML_TYPES["Q6_K"][:2] == (256, 128 + 64 + 16 + 2)


def use_more_bits_layers(n):
    """llama-quant.cpp's use_more_bits, written out for n layers: the first and last
    eighth, and every third layer between."""
    return [i for i in range(n) if i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2]


def test_q4_k_m_mixture_of_llama3_8b_by_hand():
    assert use_more_bits_layers(32) == [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]
    ts = {t.name: t for t in gguf_tensors("Meta-Llama-3-8B", "Q4_K_M")}
    q6 = sorted(int(n.split(".")[1]) for n, t in ts.items()
                if n.endswith("attn_v.weight") and t.type == "Q6_K")
    assert q6 == use_more_bits_layers(32)
    assert ts["output.weight"].type == "Q6_K" and ts["token_embd.weight"].type == "Q4_K"
    assert ts["blk.0.attn_norm.weight"].type == "F32"
    q4k = lambda rows, cols: rows * cols // 256 * 144   # noqa: E731
    q6k = lambda rows, cols: rows * cols // 256 * 210   # noqa: E731
    layer = 2 * q4k(4096, 4096) + 2 * q4k(1024, 4096) + 3 * q4k(14336, 4096) + 2 * 4096 * 4
    extra = q6k(1024, 4096) - q4k(1024, 4096) + q6k(4096, 14336) - q4k(4096, 14336)
    want = 32 * layer + 16 * extra + q4k(128256, 4096) + q6k(128256, 4096) + 4096 * 4
    assert sum(t.nbytes for t in ts.values()) == want == gguf_weights(
        "Meta-Llama-3-8B", "Q4_K_M").total


def test_gguf_q4_k_m_equals_published_files():
    w = GGUF["qwen3-coder-30b-a3b-q4_k_m"]
    ts = gguf_tensors(w["config"], w["ftype"])
    assert dict(collections.Counter(t.type for t in ts)) == w["types"]
    total = sum(t.nbytes for t in ts)
    n = sum(math.prod(t.ne) for t in ts)
    assert round(total / 2**30, 2) == w["size_gib"] and round(total * 8 / n, 2) == w["bpw"]
    for key in ("llama3-8b-q4_k_m", "llama3-70b-q4_k_m"):
        w = GGUF[key]
        assert round(gguf_weights(w["config"], w["ftype"]).total / 2**30, 2) == w["size_gib"]


def test_gguf_file_sizes_of_three_mixtures_share_one_metadata_block():
    """Llama 3 70B's Q4_K_M, Q5_K_M, Q8_0 and F16 files (GiB to two decimals): the tensors'
    bytes plus one metadata block that fits every file (between 6.5 and 12.5 MiB)."""
    w = GGUF["llama3-70b-file-sizes"]
    pc = lc.param_count(w["config"]).total
    norms = 80 * 2 * 8192 + 8192
    tensors = {m: gguf_weights(w["config"], m).total for m in ("Q4_K_M", "Q5_K_M", "Q8_0")}
    tensors["F16"] = 2 * (pc - norms) + 4 * norms
    lo = max((s - 0.005) * 2**30 - tensors[m] for m, s in w["file_size_gib"].items())
    hi = min((s + 0.005) * 2**30 - tensors[m] for m, s in w["file_size_gib"].items())
    assert 0 < lo < hi < 16 * 2**20


def test_gguf_tensor_types_of_a_published_quantize_log():
    w = GGUF["qwen3-4b-q4_k_m-blk0"]
    ts = {t.name: t for t in gguf_tensors(w["config"], w["ftype"])}
    assert len(ts) == w["tensor_count"]
    for name, (gtype, mib) in w["tensors"].items():
        assert ts[name].type == gtype and round(ts[name].nbytes / 2**20, 2) == mib


def test_gguf_q5_k_m_and_q8_0_rules():
    """Q5_K_M: Q5_K with the same Q6_K layers as Q4_K_M; Q8_0: every matrix Q8_0, the
    head too (llama_tensor_get_type leaves a Q8_0 output alone)."""
    q5 = collections.Counter(t.type for t in gguf_tensors("Meta-Llama-3-8B", "Q5_K_M"))
    q8 = collections.Counter(t.type for t in gguf_tensors("Meta-Llama-3-8B", "Q8_0"))
    assert q5 == {"F32": 65, "Q5_K": 193, "Q6_K": 33}
    assert q8 == {"F32": 65, "Q8_0": 32 * 7 + 2}
    assert gguf_weights("Meta-Llama-3-8B", "Q8_0").total == \
        (lc.param_count("Meta-Llama-3-8B").total - 65 * 4096) // 32 * 34 + 65 * 4096 * 4


def test_gguf_tied_head_and_mixtral_bumps():
    """A tied embedding takes the head's Q6_K (Llama-3.2-1B); Mixtral's 8 experts keep
    attn_v and attn_k in Q8_0 and its attn_output in Q5_K; its router stays F32."""
    ts = {t.name: t for t in gguf_tensors("Llama-3.2-1B", "Q4_K_M")}
    assert "output.weight" not in ts and ts["token_embd.weight"].type == "Q6_K"
    mx = {t.name: t.type for t in gguf_tensors("Mixtral-8x7B-v0.1", "Q4_K_M")}
    assert mx["blk.5.attn_v.weight"] == mx["blk.5.attn_k.weight"] == "Q8_0"
    assert mx["blk.5.attn_output.weight"] == "Q5_K" and mx["blk.5.ffn_gate_inp.weight"] == "F32"


def test_gguf_fused_qkv_follows_the_attn_v_rule():
    """Since llama.cpp's 2026 rewrite a fused attn_qkv (Phi-3) is an attn_v-like tensor:
    Q6_K in the use_more_bits layers, the mixture's type elsewhere."""
    ts = {t.name: t.type for t in gguf_tensors("Phi-3-mini-4k-instruct", "Q4_K_M")}
    q6 = sorted(int(n.split(".")[1]) for n, t in ts.items()
                if n.endswith("attn_qkv.weight") and t == "Q6_K")
    assert q6 == use_more_bits_layers(32)
    assert {t for n, t in ts.items() if n.endswith("attn_qkv.weight")} == {"Q4_K", "Q6_K"}


def test_gguf_through_stored_weights_and_the_speed_rows():
    """The speed data's GGUF Q4_K_M rows (Llama 3 8B, weight_bytes from the README's 4.58)
    get an exact figure from stored_weights(cfg, "gguf-q4_k_m")."""
    sw = lc.stored_weights("Meta-Llama-3-8B", "gguf-q4_k_m")
    assert sw.scheme == "GGUF Q4_K_M" and round(sw.total / 2**30, 2) == 4.58
    rows = json.loads(pathlib.Path(lc.decode_speed.DECODE_SPEEDS).read_text())["rows"]
    q4 = [r for r in rows if r["weight_format"] == "GGUF Q4_K_M"]
    assert q4 and all(round(r["weight_bytes"] / 2**30, 2) == round(sw.total / 2**30, 2)
                      for r in q4)


# --- bad input: one line, naming the field and the rule ------------------------------------

@pytest.mark.parametrize("quant, field", [
    ({"quant_method": "bitsandbytes"}, "quantization_config: quant_method 'bitsandbytes'"),
    ({"quant_method": "modelopt", "quant_algo": "INT8_SQ"}, "quantization_config.quant_algo"),
    ({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 32},
     "quantization_config.group_size: NVFP4"),
    (ct({"group_0": {"targets": ["Linear"], "weights": dict(NVFP4_W, group_size=32)}},
        fmt="nvfp4-pack-quantized"), "quantization_config.config_groups.group_0.weights"),
    (ct({"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
                                                        "strategy": "group",
                                                        "group_size": 100}}},
        fmt="pack-quantized"), "quantization_config.group_size: 100 does not divide"),
    (ct({"group_0": {"targets": ["Linear"], "weights": dict(FP8_CH, num_bits=2, type="int")}},
        fmt="pack-quantized"), "quantization_config.config_groups.group_0.weights: int or"),
    (ct({"group_0": {"targets": ["Linear"], "weights": FP8_CH}}, fmt="marlin-24"),
     "quantization_config.format: 'marlin-24'"),
    (ct({"group_0": {"targets": ["Linear"], "weights": dict(FP8_CH, strategy="tensor_group",
                                                            group_size=0)}},
        fmt="float-quantized"), "quantization_config.config_groups.group_0.weights.group_size"),
])
def test_bad_quantization_config_is_one_line(quant, field):
    with pytest.raises(ValueError) as e:
        stored_weights(with_quant("Qwen3-8B", copy.deepcopy(quant)))
    assert str(e.value).startswith(field) and "\n" not in str(e.value)


def test_gguf_refusals_are_one_line():
    for call, start in ((lambda: gguf_tensors("DeepSeek-V3", "Q4_K_M"),
                         "weights: GGUF Q4_K_M is sized here for model_type"),
                        (lambda: gguf_tensors("Qwen3-8B", "Q3_K_S"),
                         "weights: GGUF type 'Q3_K_S' is not sized here"),
                        (lambda: stored_weights("Qwen3-8B", "gguf-q4_k_m", base_dtype="fp32"),
                         "base_dtype: a GGUF file")):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value).startswith(start) and "\n" not in str(e.value)
