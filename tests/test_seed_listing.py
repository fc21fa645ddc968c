"""weight_shapes(Qwen3-0.6B) lists the same 311 tensors, with the same shapes, as a widely shared
Qwen3-0.6B weight listing (kept as a test fixture), and its total counts the tied lm_head twice."""

import pathlib
import re

import pytest

import llmcourse as lc

SEED = pathlib.Path(__file__).parent / "fixtures" / "seed_003_qwen3_0.6b_weights.txt"
ROW = re.compile(r"^\| (\S+) \| \(([\d, ]+)\) \| ([\d,]+) \| ([\d.]+) \|$")


def _seed_rows():
    text = SEED.read_text(encoding="utf-8")
    full = text.split("## 按内存大小排序")[0]  # the full listing, before the top-20 table
    rows = {}
    for line in full.splitlines():
        m = ROW.match(line.strip())
        if m:
            shape = tuple(int(x) for x in m.group(2).replace(" ", "").split(",") if x)
            rows[m.group(1)] = (shape, int(m.group(3).replace(",", "")), float(m.group(4)))
    return text, rows


@pytest.fixture(scope="module")
def seed():
    return _seed_rows()


@pytest.fixture(scope="module")
def ours():
    return lc.weight_shapes(lc.load_model("Qwen3-0.6B"))


def test_same_311_tensors_and_shapes(seed, ours):
    _, rows = seed
    assert len(rows) == 311 == len(ours)
    assert dict(zip(ours["name"], ours["shape"])) == {n: r[0] for n, r in rows.items()}


def test_element_counts_and_bf16_mib(seed, ours):
    _, rows = seed
    for name, numel, nbytes in zip(ours["name"], ours["numel"], ours["bytes"]):
        shape, seed_numel, seed_mb = rows[name]
        assert numel == seed_numel, name
        assert round(nbytes / 2**20, 2) == seed_mb, name  # the seed's "MB" is MiB at bf16


def test_seed_total_counts_the_tied_head_twice(seed, ours):
    text, rows = seed
    claimed = int(re.search(r"总参数数量\*\*: ([\d,]+)", text).group(1).replace(",", ""))
    assert claimed == sum(r[1] for r in rows.values())      # the seed summed every row...
    total = lc.param_count(lc.load_model("Qwen3-0.6B")).total
    tied = ours.loc[ours["note"].str.startswith("tied"), "numel"]
    assert len(tied) == 1                                    # ...including the tied lm_head
    assert claimed - int(tied.iloc[0]) == total               # so it is high by exactly that
    assert int(ours.loc[ours["note"] == "", "numel"].sum()) == total
