"""The accelerator table: datasheet figures, look-up by name, a reader's own spec, bad input."""

import json
import math
import os

import pytest

import llmcourse as lc
from llmcourse.hardware import GPU_TABLE, as_gpu


def test_every_row_has_its_source_and_the_required_rows_are_there():
    names = lc.list_gpus()
    for want in ["H100 SXM 80GB", "H200 SXM 141GB", "A100 SXM 40GB", "A100 SXM 80GB", "L4 24GB",
                 "L40S 48GB", "RTX 4090 24GB", "RTX 3090 24GB", "MI300X 192GB", "B200 HGX 180GB",
                 "TPU v5e 16GB", "Mac Studio M2 Ultra 192GB"]:
        assert want in names
    for n in names:
        g = lc.load_gpu(n)
        assert g.source.startswith(("NVIDIA", "AMD", "Google", "Apple")) and "http" in g.source
        assert g.memory and g.peak_flops


def test_datasheet_figures_dense_not_sparse():
    # hand-copied from the datasheets (sparse figures halved): H100 SXM BF16 1,979 sparse
    h100 = lc.load_gpu("H100 SXM 80GB")
    assert h100.memory_bytes == 80 * 10**9
    assert h100.bandwidth_bytes_per_s == 3.35e12
    assert h100.peak("bf16") == pytest.approx(1979e12 / 2, rel=1e-3)  # datasheet rounds
    assert h100.peak("fp8") == pytest.approx(3958e12 / 2, rel=1e-3)
    assert lc.load_gpu("MI300X").peak("bf16") == pytest.approx(1307.4e12)
    assert lc.load_gpu("L4").peak("fp8") == pytest.approx(485e12 / 2)
    assert lc.load_gpu("TPU v5e").peak("bf16") == pytest.approx(1.97e14)


def test_memory_convention_is_a_lower_bound_of_what_nvidia_smi_reports():
    # nvidia-smi totals in MiB (modal-labs/modal-client PR 2797): decimal GB never exceeds them
    smi_mib = {"H100 SXM 80GB": 81559, "A100 SXM 80GB": 81920, "A100 SXM 40GB": 40960,
               "L40S 48GB": 46068, "L4 24GB": 23034}
    for name, mib in smi_mib.items():
        g = lc.load_gpu(name)
        assert g.memory_bytes <= mib * 2**20
        # reading the datasheet's GB as GiB would overstate three of them
    assert sum(lc.load_gpu(n).memory_bytes // 10**9 * 2**30 > mib * 2**20
               for n, mib in smi_mib.items()) == 3


def test_lookup_is_case_and_punctuation_insensitive():
    assert lc.load_gpu("h100").name == "H100 SXM 80GB"
    assert lc.load_gpu("rtx-4090").name == "RTX 4090 24GB"
    assert lc.load_gpu("a100 sxm 40gb").name == "A100 SXM 40GB"
    assert lc.load_gpu("A100").name == "A100 SXM 80GB"


def test_missing_dtype_falls_back_to_the_rate_the_chip_has():
    a100 = lc.load_gpu("A100")
    assert "fp8" not in a100.peak_flops
    assert a100.peak("fp8") == a100.peak("int8") == 624e12
    mac = lc.load_gpu("M2 Ultra")
    assert mac.peak("bf16") == 27.2e12 and mac.peak_dtype("bf16") == "fp32"


def test_a_readers_own_gpu_as_dict_or_object():
    spec = {"name": "my card", "memory_bytes": 16e9, "bandwidth_bytes_per_s": 5e11,
            "peak_flops": {"bf16": 1e14}}
    g = as_gpu(spec)
    assert g.memory_bytes == 16 * 10**9 and isinstance(g.memory_bytes, int)
    assert as_gpu(g) is g
    assert g.critical_intensity("bf16") == pytest.approx(200)
    assert lc.GPU("x", 10**9, 1e9, {"fp16": 1e12}).peak("bf16") == 1e12


@pytest.mark.parametrize("bad, field", [
    ("H900", "gpu"),
    (3, "gpu"),
    ({"name": "x", "memory_bytes": 0, "bandwidth_bytes_per_s": 1e9, "peak_flops": {"bf16": 1}},
     "memory_bytes"),
    ({"name": "x", "memory_bytes": 10**9, "bandwidth_bytes_per_s": -1, "peak_flops": {"bf16": 1}},
     "bandwidth_bytes_per_s"),
    ({"name": "x", "memory_bytes": 10**9, "bandwidth_bytes_per_s": 1e9, "peak_flops": {}},
     "peak_flops"),
    ({"name": "x", "memory_bytes": 10**9, "bandwidth_bytes_per_s": 1e9,
      "peak_flops": {"fp6": 1e12}}, "peak_flops"),
    ({"name": "x", "memory_bytes": 10**9}, "bandwidth_bytes_per_s"),
    ({"name": "x", "memory_bytes": 10**9, "bandwidth_bytes_per_s": 1e9,
      "peak_flops": {"bf16": 1e12}, "colour": "red"}, "gpu"),
])
def test_bad_gpu_gets_one_line_naming_the_field(bad, field):
    with pytest.raises(ValueError) as e:
        as_gpu(bad)
    msg = str(e.value)
    assert msg.startswith(field + ":") and "\n" not in msg


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="H100 SXM 80GB") as e:
        lc.load_gpu("H900")
    assert "\n" not in str(e.value)


def test_table_file_is_plain_json_with_sources():
    with open(GPU_TABLE, encoding="utf-8") as fh:
        rows = json.load(fh)["gpus"]
    assert len(rows) == len(lc.list_gpus()) == len({r["name"] for r in rows})
    for r in rows:
        assert all(math.isfinite(v) and v > 0 for v in r["peak_flops"].values())
