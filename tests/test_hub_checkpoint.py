"""The checkpoint as a second witness, in process and without a network: quantized
checkpoints written here in their published layouts (fp8 with 128x128 block scales,
gpt-oss's mxfp4 blocks and scales), from names and shapes the engine did not make,
read back by lc.checkpoint_report from a local folder's safetensors headers."""

from __future__ import annotations

import json
import math
import pathlib
import re

import pytest

import llmcourse as lc
from llmcourse.hub import compare_checkpoint, read_safetensors_header

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
SEED = FIXTURES / "seed_003_qwen3_0.6b_weights.txt"
DTYPE_BYTES = {"BF16": 2, "F32": 4, "F8_E4M3": 1, "U8": 1}


def seed_listing():
    row = re.compile(r"^\| (\S+) \| \(([\d, ]+)\) \| ([\d,]+) \| ([\d.]+) \|$")
    full = SEED.read_text(encoding="utf-8").split("## 按内存大小排序")[0]
    return [(m.group(1), tuple(int(x) for x in m.group(2).replace(" ", "").split(",") if x))
            for m in map(row.match, (ln.strip() for ln in full.splitlines())) if m]


def write_checkpoint(folder, config, tensors):
    """config.json and a model.safetensors of headers only (the data section left out:
    the report reads headers, never weights)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, (dtype, shape) in tensors.items():
        n = DTYPE_BYTES[dtype] * math.prod(shape)
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    blob = json.dumps(header).encode()
    (folder / "model.safetensors").write_bytes(len(blob).to_bytes(8, "little") + blob)
    return folder


def fp8_block_checkpoint():
    """Qwen3-0.6B (the published 311-tensor listing) stored as Qwen's FP8 releases store
    a model: each decoder-layer matrix in fp8 e4m3 with one float32 weight_scale_inv per
    128x128 block; the embedding, the (tied, stored) head and the norms in bf16."""
    quant = json.loads((FIXTURES / "configs" / "Qwen3-30B-A3B-FP8.json").read_text())
    q = dict(quant["quantization_config"], modules_to_not_convert=["lm_head"])
    config = dict(json.loads((pathlib.Path(lc.zoo.CONFIG_DIR) / "Qwen3-0.6B.json").read_text()),
                  quantization_config=q)
    tensors, scale_bytes = {}, 0
    for name, shape in seed_listing():
        if name.startswith("model.layers.") and len(shape) == 2:
            tensors[name] = ("F8_E4M3", shape)
            blocks = (math.ceil(shape[0] / 128), math.ceil(shape[1] / 128))
            tensors[name + "_scale_inv"] = ("F32", blocks)
            scale_bytes += 4 * math.prod(blocks)
        else:
            tensors[name] = ("BF16", shape)
    return config, tensors, scale_bytes


def test_fp8_block_scales_from_a_local_folder(tmp_path):
    config, tensors, scale_bytes = fp8_block_checkpoint()
    folder = write_checkpoint(tmp_path / "Qwen3-0.6B-FP8", config, tensors)
    r = lc.checkpoint_report(folder)
    cfg = lc.from_hf_config(config)
    head = cfg.vocab_size * cfg.hidden_size
    assert r.model == "Qwen3-0.6B-FP8" and r.tensor_count == len(tensors)
    assert r.parts["scales"].bytes == scale_bytes == r.engine_scales
    assert r.parts["scales"].tensors == sum(n.endswith("_scale_inv") for n in tensors)
    rows = {row[0]: row for row in r.rows()}
    assert rows["bytes, quantization scales"][3] == 0
    assert "weight_scale_inv" in rows["bytes, quantization scales"][4]
    # every value is the engine's, plus the tied head the listing stores a second time
    assert r.parts["language_model"].values == lc.param_count(cfg).total + head
    assert rows["bytes, language model's values"][3] == 2 * head  # in bf16
    assert r.only_in_checkpoint == [("lm_head.weight", 1, head, 2 * head)]
    assert r.only_in_engine == []
    assert r.dtypes["F8_E4M3"][0] == sum(math.prod(s) for d, s in tensors.values()
                                         if d == "F8_E4M3")


@pytest.mark.slow
def test_mxfp4_blocks_count_two_values_a_byte_and_their_scales_are_scales():
    """gpt-oss-20b as its checkpoint stores the experts: transformers' tensors, with each
    fused expert matrix (experts, in, out) stored as ``*_blocks`` (experts, out, in/32,
    16) bytes of two fp4 values and ``*_scales`` (experts, out, in/32), one e8m0 byte per
    32 values (the OCP MX layout)."""
    import torch

    from transformers_ref import causal_lm, hf_config
    raw = json.loads((pathlib.Path(lc.zoo.CONFIG_DIR) / "gpt-oss-20b.json").read_text())
    with torch.device("meta"):
        model = causal_lm(hf_config(raw))
    tensors, scale_bytes = {}, 0
    for name, t in model.state_dict().items():
        shape = tuple(t.shape)
        if name.endswith(("mlp.experts.gate_up_proj", "mlp.experts.down_proj")):
            e, fan_in, fan_out = shape
            tensors[name + "_blocks"] = ("U8", (e, fan_out, fan_in // 32, 16))
            tensors[name + "_scales"] = ("U8", (e, fan_out, fan_in // 32))
            scale_bytes += e * fan_out * fan_in // 32
        else:
            tensors[name] = ("BF16", shape)
    r = compare_checkpoint(raw, {n: (d, s, DTYPE_BYTES[d] * math.prod(s))
                                 for n, (d, s) in tensors.items()})
    built = sum(t.numel() for t in model.parameters())
    assert r.parts["language_model"].values == built == r.engine_params
    assert r.parts["scales"].bytes == scale_bytes == r.engine_scales
    assert r.checkpoint_bytes == r.engine_bytes and r.explained
    assert r.only_in_checkpoint == [] and r.only_in_engine == []


def test_a_safetensors_header_is_read_and_a_bad_one_is_one_line():
    blob = json.dumps({"a.weight": {"dtype": "BF16", "shape": [2, 3],
                                    "data_offsets": [0, 12]}}).encode()
    assert read_safetensors_header(len(blob).to_bytes(8, "little") + blob) == \
        {"a.weight": ("BF16", (2, 3), 12)}
    for bad in (b"\x01", (10**12).to_bytes(8, "little") + b"{}",
                (2).to_bytes(8, "little") + b"[]"):
        with pytest.raises(ValueError) as e:
            read_safetensors_header(bad, "x.safetensors")
        assert str(e.value).startswith("checkpoint: x.safetensors") and "\n" not in str(e.value)


def test_a_folder_without_weights_is_one_line(tmp_path):
    (tmp_path / "config.json").write_text(
        (pathlib.Path(lc.zoo.CONFIG_DIR) / "Qwen3-0.6B.json").read_text())
    with pytest.raises(ValueError) as e:
        lc.checkpoint_report(tmp_path)
    assert str(e.value) == (f"checkpoint: {tmp_path} holds no model.safetensors or "
                            "model.safetensors.index.json")


def test_the_example_checkpoint_lesson_8_reads_offline():
    """Lesson 8 reads Qwen3-0.6B's checkpoint header from the package (no network): the same
    header the Hub tests serve, and the report names the tied lm_head the file stores twice."""
    import json
    import struct
    from pathlib import Path

    from llmcourse.hub import EXAMPLE_CHECKPOINT
    raw = (Path(EXAMPLE_CHECKPOINT) / "model.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert len(raw) == 8 + n                       # a header only: no weights shipped
    served = Path(__file__).parent / "fixtures/hub/Qwen/Qwen3-0.6B/model.safetensors.header.json"
    assert json.loads(raw[8:]) == json.loads(served.read_text())
    report = lc.checkpoint_report(EXAMPLE_CHECKPOINT, config="Qwen3-0.6B")
    cfg = lc.load_model("Qwen3-0.6B")
    assert report.tensor_count == 311
    assert report.parts["language_model"].values - lc.param_count(cfg).total \
        == cfg.vocab_size * cfg.hidden_size
    assert "lm_head.weight" in str(report) and "tied head stored a second time" in str(report)
