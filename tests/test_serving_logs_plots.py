"""The two figures of llmcourse/plots/serving_logs.py: each returns a Figure whose title
states its point, with every published row whose config is at hand (the zoo's, plus the
test fixtures when passed), and no text below the course minimum."""

import json
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.text import Text

import llmcourse as lc
from llmcourse.plots import serving_logs, style

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "configs"
CONFIGS = {f"fixture:{p.name}": lc.from_hf_config(json.loads(p.read_text(encoding="utf-8")),
                                                  name=p.stem)
           for p in FIXTURES.glob("*.json")}


def _small(fig):
    style.png_bytes(fig)
    return [t.get_text() for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and t.get_fontsize() < style.MIN_TEXT_PT]


def _title(fig):
    return fig._suptitle.get_text() if fig._suptitle else fig.axes[0].get_title()


def test_plan_vs_logs_is_a_figure_over_every_logged_kv_budget():
    fig = serving_logs.plan_vs_logs(configs=CONFIGS)
    assert isinstance(fig, Figure) and _small(fig) == []
    # 18 of the 20 checkable launches in vllm_logs.json log a KV figure, five under the
    # accounting of 2026 (vLLM 0.26, 0.27, 0.28, 0.29 and 0.31)
    assert "18 of 18" in _title(fig)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == 18 and "Qwen3-32B, H100 SXM" in labels
    for release in ("0.26", "0.27", "0.28", "0.29", "0.31"):
        assert sum(f"(vLLM {release})" in lab for lab in labels) == 1


def test_plan_vs_logs_draws_every_row_from_the_configs_the_data_file_carries():
    # the lesson passes no configs: the title counts what it draws, every logged KV budget
    fig = serving_logs.plan_vs_logs()
    assert isinstance(fig, Figure) and "18 of 18" in _title(fig)
    with_kv = [r for r in lc.serving.vllm_logs(usable=True) if "kv_gib" in r["logged"]]
    assert len(fig.axes[0].get_yticklabels()) == len(with_kv) == 18


def test_expected_vs_measured_is_a_figure_over_every_published_speed():
    fig = serving_logs.expected_vs_measured(configs=CONFIGS)
    assert isinstance(fig, Figure) and _small(fig) == []
    # out of sample (nested leave-one-out): the band holds 33 of the 38 published speeds, the
    # central estimate lands within 25% on 36 (tests/test_decode_speeds.py recounts both)
    title = fig.axes[0].get_title()
    assert "33 of 38" in title and "within 25% on 36" in title
    assert serving_logs.expected_vs_measured() is not None   # zoo rows only
