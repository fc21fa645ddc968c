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


# --- runtime memory and the GPUs of 2026 -------------------------------------

# what the runtime reports, as the cited logs and device queries print it (GiB = 2^30 B)
RUNTIME_GIB = {"H100 SXM 80GB": 79.18,    # vLLM: "total_gpu_memory (79.18GiB)"
               "H200 SXM 141GB": 139.72,  # vLLM issue 23192: "(7.34/139.72 GiB)"
               "A100 SXM 80GB": 79.26,    # deviceQuery: 85,100,068,864 bytes
               "L4 24GB": 21.95,          # deviceQuery: 23,570,219,008 bytes
               "RTX 3090 24GB": 23.59,    # deviceQuery: 25,327,697,920 bytes
               "MI300X 192GB": 191.98,    # rocm deviceQuery: 196,592 MiB
               "B200 HGX 180GB": 178.35,  # pytorch/ao PR 4002
               "RTX 5090 32GB": 31.36}    # vLLM 0.28: "(30.86/31.36 GiB)"


def test_runtime_memory_of_every_gpu_the_issue_names_is_sourced():
    for name in ["A100 SXM 40GB", "A100 SXM 80GB", "H100 SXM 80GB", "H200 SXM 141GB", "L4 24GB",
                 "L40S 48GB", "RTX 3090 24GB", "RTX 4090 24GB", "MI300X 192GB", "B200 HGX 180GB"]:
        g = lc.load_gpu(name)
        assert g.runtime_memory_known and g.memory_caveat == ""
        assert g.runtime_memory_source or "runtime" in g.notes.lower()
    for name, gib in RUNTIME_GIB.items():
        assert round(lc.load_gpu(name).reported_memory_bytes / 2**30, 2) == gib


def test_datasheet_gb_read_as_gib_misses_both_ways():
    # the HBM cards report more than their decimal GB, the L4 and A10 less
    assert lc.load_gpu("H200").reported_memory_bytes > lc.load_gpu("H200").memory_bytes
    assert lc.load_gpu("A100 SXM 80GB").reported_memory_bytes > 80 * 10**9
    assert lc.load_gpu("L4").reported_memory_bytes == 23_570_219_008 < 24 * 10**9
    assert lc.load_gpu("A10").reported_memory_bytes == 23_609_475_072 < 24 * 10**9


def test_the_gpus_readers_have_in_2026_are_in_the_table():
    want = ["RTX 5090 32GB", "RTX PRO 6000 Blackwell 96GB", "DGX Spark GB10 128GB", "GH200 96GB",
            "A10 24GB", "H100 PCIe 80GB", "H100 NVL 94GB", "H20 96GB", "B300 HGX 288GB",
            "MI325X 256GB", "MI355X 288GB", "MacBook Pro M3 Max 128GB",
            "Mac Studio M3 Ultra 512GB", "MacBook Pro M4 Max 128GB"]
    names = lc.list_gpus()
    for n in want:
        assert n in names
        g = lc.load_gpu(n)
        assert g.memory_bytes > 0 and g.bandwidth_bytes_per_s > 0 and g.peak_flops
        assert "http" in g.source
    # datasheet figures (sources in gpus.json)
    assert lc.load_gpu("RTX 5090").bandwidth_bytes_per_s == 1.792e12
    assert lc.load_gpu("H20").memory_bytes == 96 * 10**9
    assert lc.load_gpu("MI355X").memory_bytes == 288 * 10**9


def test_unknown_runtime_and_unified_memory_are_said_beside_the_figure():
    for n in ["H20", "MI325X", "MI355X", "H100 PCIe"]:
        g = lc.load_gpu(n)
        assert not g.runtime_memory_known
        assert g.memory_caveat == "datasheet capacity, runtime unknown"
        assert g.reported_memory_bytes == g.memory_bytes
    for n in ["DGX Spark", "M3 Max", "M3 Ultra", "M4 Max", "M2 Ultra"]:
        g = lc.load_gpu(n)
        assert g.unified_memory and "unified memory" in g.memory_caveat
    assert not lc.load_gpu("H100").unified_memory
    with pytest.raises(ValueError, match="^unified_memory:"):
        lc.GPU("x", 10**9, 1e9, {"bf16": 1e12}, unified_memory="yes")


def test_the_workstation_laptop_and_unified_memory_gpus_of_2026():
    for n in ("RTX PRO 4500 Blackwell", "RTX PRO 5000 Blackwell", "RTX 5080", "RTX 5090 Laptop",
              "RTX 5080 Laptop", "L20", "Jetson Thor", "GB10"):
        g = lc.load_gpu(n)
        assert g.source and g.compute_capability
    # runtime totals only where a log prints them: PR 51590's 33,689,829,376 B on the PRO 4500;
    # "Free memory on device (267.08/267.69 GiB)" on a B300 and "(91.64/94.97 GiB)",
    # "(94.41/94.97 GiB)" on RTX PRO 6000s (vLLM 0.26-0.29 startups, gpus.json cites them)
    assert lc.load_gpu("RTX PRO 4500").reported_memory_bytes == 33689829376
    assert lc.load_gpu("B300").reported_memory_bytes == round(267.69 * 2 ** 30)
    assert lc.load_gpu("RTX PRO 6000").reported_memory_bytes == round(94.97 * 2 ** 30)
    for n in ("RTX PRO 5000", "RTX 5080", "RTX 5090 Laptop", "L20", "Jetson Thor"):
        assert lc.load_gpu(n).memory_caveat.startswith("datasheet capacity, runtime unknown")


def test_dgx_spark_total_and_free_memory_at_boot_from_its_logs():
    import json
    import statistics
    with open(lc.hardware.GPU_TABLE, encoding="utf-8") as fh:
        row = next(g for g in json.load(fh)["gpus"] if g["name"].startswith("DGX Spark"))
    g = lc.load_gpu("GB10")
    assert round(g.reported_memory_bytes / 2**30, 2) == 121.69     # "(X/121.69 GiB)"
    free = [o["free_gib"] for o in row["boot_free_memory_observations"]]
    assert len(free) == 6 and min(free) == 97.07 and max(free) == 114.54
    assert round(g.boot_free_memory_bytes / 2**30, 2) == round(statistics.median(free), 2)
    # vLLM's default 0.92 asks for 111.95 GiB, above what all but a clean box has free
    plan = lc.vllm_plan("Qwen3-8B", "GB10")
    assert plan.reason.startswith("Free memory on device (103.74/121.69 GiB) on startup is "
                                  "less than desired GPU memory utilization (0.92, 111.95 GiB)")
    assert lc.vllm_plan("Qwen3-8B", "GB10", gpu_memory_utilization=0.8).starts
    assert lc.vllm_plan("Qwen3-8B", "GB10", free_memory_bytes=115 * 2**30).starts


def test_the_platform_vllms_budget_is_planned_on():
    assert {lc.load_gpu(n).platform for n in ("H100", "GB10", "RTX 5090")} == {"cuda"}
    assert lc.load_gpu("MI300X").platform == "rocm"
    assert lc.load_gpu("M3 Max").platform == "metal" and lc.load_gpu("TPU v5e").platform == "tpu"
    with pytest.raises(ValueError, match="^platform:"):
        lc.GPU("x", 10**9, 1e9, {"bf16": 1e12}, platform="opencl")
