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
    # 13 of the 15 checkable launches in vllm_logs.json log a KV figure
    assert "13 of 13" in _title(fig)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == 13 and "Qwen3-32B, H100 SXM" in labels


def test_plan_vs_logs_without_fixtures_draws_the_zoo_rows():
    fig = serving_logs.plan_vs_logs()
    assert isinstance(fig, Figure) and "7 of 7" in _title(fig)


def test_expected_vs_measured_is_a_figure_over_every_published_speed():
    fig = serving_logs.expected_vs_measured(configs=CONFIGS)
    assert isinstance(fig, Figure) and _small(fig) == []
    assert "12 of 15" in fig.axes[0].get_title()
    assert serving_logs.expected_vs_measured() is not None   # zoo rows only
