"""Lesson 7 (MoE versus dense): explorer, figures, exercises, tables."""

import pytest

import llmcourse as lc
import llmcourse.approx as approx
from llmcourse import plots
from llmcourse.exercises import EXERCISES, check
from llmcourse.widgets import EXPLORERS
from llmcourse.widgets.moe import moe_config


def _figure_ok(fig):
    from matplotlib.figure import Figure
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title() or (fig._suptitle and fig._suptitle.get_text())
    assert ax.get_xlabel() and ax.get_ylabel()
    assert ax.get_legend() is not None
    plots.png_bytes(fig)


@pytest.fixture
def ex():
    return EXPLORERS["moe"]()


def test_explorer_starts_at_the_real_model(ex):
    cfg = lc.load_model("Qwen3-30B-A3B")
    pc = lc.param_count(cfg)
    assert ex.error == ""
    assert ex.value("total") == pc.total
    assert ex.value("active") == pc.active
    assert ex.value("bf16_bytes") == lc.weight_bytes(cfg, "bf16")
    assert ex.value("fp8_bytes") == lc.weight_bytes(cfg, "fp8")


def test_experts_and_top_k_change_the_rows(ex):
    ex.set(num_experts=64)
    cfg = lc.load_model("Qwen3-30B-A3B").replace(num_experts=64)
    assert ex.value("total") == lc.param_count(cfg).total
    ex.set(num_experts_per_tok=2)
    cfg = cfg.replace(num_experts_per_tok=2)
    assert ex.value("active") == lc.param_count(cfg).active
    assert ex.value("flops_per_token") == lc.flops_per_token(cfg, approx.SEQ_LEN).total
    ex.set(expert_size=1536)
    cfg = cfg.replace(moe_intermediate_size=1536)
    assert ex.value("total") == lc.param_count(cfg).total


def test_shared_experts_on_deepseek(ex):
    ex.set(model="DeepSeek-V3")
    assert not ex.controls["n_shared_experts"].disabled
    ds = lc.load_model("DeepSeek-V3")
    assert ex.value("active") == lc.param_count(ds).active
    ex.set(n_shared_experts=2)
    cfg = ds.replace(n_shared_experts=2)
    assert ex.value("total") == lc.param_count(cfg).total
    ex.set(model="Mixtral-8x7B-v0.1")
    assert ex.controls["n_shared_experts"].disabled
    mx = lc.load_model("Mixtral-8x7B-v0.1")
    assert ex.value("total") == lc.param_count(mx).total


def test_top_k_above_experts_shows_the_message_then_clears(ex):
    active = ex.value("active")
    ex.set(num_experts_per_tok=200)
    assert "num_experts_per_tok" in ex.error and "cannot exceed" in ex.error
    assert "cannot exceed" in ex.error_line.value
    assert ex.value("active") == active
    ex.set(num_experts_per_tok=4)
    assert ex.error == "" and ex.error_line.value == ""
    cfg = moe_config(lc.load_model("Qwen3-30B-A3B"), 128, 4, 0, 768)
    assert ex.value("active") == lc.param_count(cfg).active


@pytest.mark.parametrize("model", approx.moe_models())
def test_every_moe_model_round_trips(ex, model):
    ex.set(model=model)
    cfg = lc.load_model(model)
    assert ex.error == ""
    assert ex.value("total") == lc.param_count(cfg).total
    assert ex.value("active") == lc.param_count(cfg).active


def test_tables():
    conv = lc.tables.active_conventions_table(formatted=False)
    # every published figure names its source, and a notebook shows the name as a link
    shown = lc.tables.active_conventions_table()
    html = shown._repr_html_()
    for model, (_, _, name, url) in lc.tables.PUBLISHED.items():
        assert conv.loc[model, "source"] == name
        assert f'<a href="{url}" target="_blank">{name}</a>' in html
    assert "source" in repr(shown) and shown.loc["gpt-oss-20b", "published active"] == "3.6B"
    lesson = lc.tables.active_conventions_table(
        ["Mixtral-8x7B-v0.1", "Qwen3-30B-A3B", "gpt-oss-20b", "DeepSeek-V3"], totals=False)
    assert list(lesson.columns) == ["published active", "engine active", "active - input embedding",
                                    "active - embedding - lm_head", "source"]
    pc = lc.param_count(lc.load_model("gpt-oss-20b"))
    assert conv.loc["gpt-oss-20b", "active - input embedding"] == pc.active - pc.embedding
    assert conv.loc["DeepSeek-V3", "engine active"] == 37_552_282_624
    kv = lc.tables.mla_kv_table(formatted=False)
    assert kv.iloc[0]["bytes/token/layer"] == lc.kv_cache_bytes_per_token_per_layer(lc.load_model("DeepSeek-V3"))
    # MHA with 128 heads of 128: K and V, 2 bytes each = 65,536 bytes; MLA keeps 1,152 of them
    assert kv.iloc[1]["bytes/token/layer"] == 2 * 128 * 128 * 2
    assert kv.iloc[1]["MLA saves %"] == round(100 * (1 - 1152 / 65536), 1) == 98.2
    mla = lc.tables.mla_check_table(formatted=False)
    assert mla.loc[("checkpoint", "kv_a_proj_with_mqa.weight"), "params"] == 576 * 7168


@pytest.mark.parametrize("make", [
    lambda: plots.memory_vs_compute(),
    lambda: plots.memory_vs_compute(highlight=("as MoE", lc.as_moe(lc.load_model("Meta-Llama-3-8B"), 64, 2))),
    lambda: plots.total_vs_active_bars(),
])
def test_figures(make):
    _figure_ok(make())


def test_exercise_expectations_by_hand():
    """Expected values derived by hand (the registry test covers solutions and wrong answers)."""
    # moe-1: 8 more experts add 8 router rows of d = 4,096 in each of 32 layers, nothing else active
    assert lc.exercises.check("moe-1", 8 * 4096 * 32)
    assert "router" not in lc.exercises.check("moe-1", 0)  # the hint does not give it away
    # moe-3: Llama-3-8B with 16 experts of 7,168, top-2 (hand arithmetic, in billions)
    d, L, V = 4096, 32, 128_256
    attn = 2 * d * 4096 + 2 * d * 1024
    base = L * (attn + 2 * d) + 2 * V * d + d
    total = base + L * (16 * 3 * d * 7168 + 16 * d)
    active = base + L * (2 * 3 * d * 7168 + 16 * d)
    assert total >= 40e9 and active <= 9e9
    assert lc.exercises.check("moe-3", (16, 2, 7168))
    assert lc.param_count(lc.as_moe(lc.load_model("Meta-Llama-3-8B"), 16, 2,
                                    moe_intermediate_size=7168)).total == total


def test_memory_vs_compute_takes_each_model_within_its_context():
    from llmcourse.plots.moe import zoo_memory_compute
    pts = {name: gflop for name, _moe, _gib, gflop in zoo_memory_compute()}
    # gpt2 reads at most 1,024 tokens and phi-2 2,048: their points are taken there
    assert pts["gpt2"] == lc.flops_per_token(lc.load_model("gpt2"), 1024).total / 10**9
    assert pts["phi-2"] == lc.flops_per_token(lc.load_model("phi-2"), 2048).total / 10**9
    assert pts["Meta-Llama-3-8B"] == lc.flops_per_token(
        lc.load_model("Meta-Llama-3-8B"), 4096).total / 10**9
    fig = plots.memory_vs_compute()
    assert "whole context if shorter" in fig.axes[0].get_xlabel()


def test_census_prints_one_decimal():
    t = lc.tables.census("DeepSeek-V3")
    assert list(t["% of total"]) == ["0.1", "1.7", "0.2", "0.4", "97.4", "0.0", "0.0", "0.1",
                                     "100.0"]   # 653,908,770,816 / 671,026,404,352 = 97.45...%
    raw = lc.tables.census("DeepSeek-V3", formatted=False)
    assert raw.loc["total", "parameters"] == 671_026_404_352   # DeepSeek-V3's published 671B


def test_moe_design_answer_as_a_list_is_read():
    assert lc.exercises.check("moe-3", [16, 2, 7168])
    # the 8 new experts without their router rows: named as the total's change, not "× too large"
    assert "only the total holds" in lc.exercises.check("moe-1", 8 * 3 * 4096 * 14336 * 32)


def test_memory_vs_compute_labels_do_not_pile_up():
    # on a projector every name on the plane must be readable: no two labels overlap and
    # none runs off the figure (the 2026 MoEs sit close together: one name per cluster)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = plots.memory_vs_compute(highlight=("Qwen3-30B-A3B", lc.load_model("Qwen3-30B-A3B")))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(r)) for t in fig.axes[0].texts if t.get_text()]
    assert len(boxes) >= 15
    for i, (a, ba) in enumerate(boxes):
        assert fig.bbox.x0 <= ba.x0 and ba.x1 <= fig.bbox.x1, a
        for b, bb in boxes[i + 1:]:
            assert not ba.overlaps(bb), (a, b)


def test_shared_slider_is_live_only_where_the_count_is_built(ex):
    """Nemotron 3 and DeepSeek-V4 carry n_shared_experts but build one shared expert
    whatever it says (the review set it to 3: total unchanged, while the row said '3
    shared'); DeepSeek, GLM and Kimi build as many as it says."""
    for model, live in (("Nemotron-3-Nano-30B-A3B", False), ("DeepSeek-V4-Flash", False),
                        ("Kimi-K2.5", True), ("DeepSeek-V3", True), ("GLM-4.5-Air", True)):
        ex.set(model=model)
        assert ex.controls["n_shared_experts"].disabled is (not live), model
        cfg = lc.load_model(model)
        n = cfg.get("n_shared_experts")
        grows = lc.param_count(cfg.replace(n_shared_experts=n + 1)).total != lc.param_count(cfg).total
        assert grows is live, model
        if live:
            before = ex.value("total")
            ex.set(n_shared_experts=n + 1)
            assert ex.value("total") > before and f"{n + 1} shared" in ex.rows[0].text


def test_layers_are_named_by_what_their_mlp_is(ex):
    ex.set(model="Nemotron-3-Nano-30B-A3B")
    layout = ex.rows[0].text
    assert "dense-MLP" not in layout
    assert "23 MoE blocks + 29 blocks without an MLP (23 Mamba-2, 6 attention)" in layout
    ex.set(model="DeepSeek-V3")
    assert "3 dense-MLP + 58 MoE layers" in ex.rows[0].text
    ex.set(model="DeepSeek-V4-Flash")
    assert "3 hash-routed MoE + 40 MoE layers" in ex.rows[0].text


def test_experts_slider_offers_no_fewer_experts_than_the_top_k(ex):
    assert min(ex.controls["num_experts"].options) >= 8        # Qwen3-30B-A3B: top-8
    ex.set(num_experts_per_tok=2)
    assert min(ex.controls["num_experts"].options) == 2
    ex.set(num_experts_per_tok=200)                            # typed: the message, nothing moved
    assert "cannot exceed" in ex.error and ex.values["num_experts"] == 128


def test_a_setting_beyond_the_zoo_widens_the_axes(ex):
    ex.set(model="Kimi-K2.5")
    ex.set(num_experts=512)
    ex.set(expert_size=16384)
    ax = ex.fig.axes[0]
    x, y = ax.lines[-1].get_data()[0][0], ax.lines[-1].get_data()[1][0]   # the star
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < x < x1 and y0 < y < y1


def test_moe2_the_weights_a_token_multiplies_by_hand():
    """moe-2 by hand for Qwen3-30B-A3B: 48 layers of q, o (32 heads of 128 on d = 2,048),
    k, v (4 KV heads), a 128 x 2,048 router and 8 experts of 3 x 2,048 x 768; then the
    untied 151,936 x 2,048 lm_head. The embedding row is looked up, the norms scale."""
    d, L, V = 2048, 48, 151_936
    per_layer = 2 * d * 32 * 128 + 2 * d * 4 * 128 + 128 * d + 8 * 3 * d * 768
    by_hand = L * per_layer + V * d
    assert by_hand == 3_041_656_832
    v = check("moe-2", lambda cfg: by_hand if cfg.name == "Qwen3-30B-A3B"
              else lc.exercises.moe._multiplied_by_fields(cfg))
    assert v, v
    assert EXERCISES["moe-2"].allowed == ()
    v = check("moe-2", lambda cfg: lc.param_count(cfg).matmul_active)
    assert not v and "lc.param_count" in v
    names = {
        "input embedding": lc.exercises.moe._with_lookup,
        "norm": lc.exercises.moe._active_count,
        "lm_head is left out": lc.exercises.moe._without_head,
        "only the num_experts_per_tok": lc.exercises.moe._every_expert,
        "router is a matmul": lc.exercises.moe._no_router,
        "32 heads of 128": lc.exercises.moe._head_dim_from_hidden,
    }
    for words, fn in names.items():
        v = check("moe-2", fn)
        assert not v and words in v, (words, v)


def test_moe2_a_tied_head_is_still_multiplied():
    """On a tied what-if (Qwen3-0.6B as 16 experts, top-4) leaving the head out is named."""
    def tied_head_skipped(cfg):
        full = lc.exercises.moe._multiplied_by_fields(cfg)
        return full - cfg.vocab_size * cfg.hidden_size if cfg.tie_word_embeddings else full
    v = check("moe-2", tied_head_skipped)
    assert not v and "Qwen3-0.6B" in v and "tied head is multiplied" in v, v


def test_moe_table_writes_gib_and_gflop_with_two_decimals_and_names_layer_kinds():
    t = lc.tables.moe_table(["Mixtral-8x7B-v0.1", "DeepSeek-V3", "Qwen3.6-35B-A3B"], kinds=True)
    for col in ("bf16 GiB", "GFLOP/token"):
        assert all(v.split(".")[1].isdigit() and len(v.split(".")[1]) == 2 for v in t[col]), t[col]
    assert t.loc["Qwen3.6-35B-A3B", "layer kinds"] == "30 linear + 10 full"
    assert t.loc["DeepSeek-V3", "layer kinds"] == "61 full"


CORE_07 = ["Qwen3-32B", "Qwen3-30B-A3B", "Qwen3-235B-A22B", "Mixtral-8x7B-v0.1", "gpt-oss-20b",
           "Qwen1.5-MoE-A2.7B-Chat", "GLM-4.5-Air", "Llama-4-Scout-17B-16E-Instruct", "DeepSeek-V2",
           "DeepSeek-V3"]
NEW_2026 = ["Qwen3.6-35B-A3B", "gemma-4-26B-A4B", "GLM-4.7-Flash", "MiniMax-M2.7",
            "Nemotron-3-Nano-30B-A3B", "DeepSeek-V3.2", "GLM-5.1", "Kimi-K2.5", "DeepSeek-V4-Flash",
            "Qwen3.8-Flash-Next"]


@pytest.mark.parametrize("make", [
    lambda: plots.total_vs_active_bars(CORE_07),
    lambda: plots.memory_vs_compute(lc.tables.dense_models() + CORE_07[1:]),
    lambda: plots.total_vs_active_bars(NEW_2026, title="The MoEs of 2026: a token uses 3% to 15% "
                                       "of the weights (one exception: next section)"),
])
def test_lesson_figures_are_shown_whole(make):
    """Shown at full size (12-pt text at 12 pt on a 1280x720 projector), every text
    inside the figure (the appendix's title lost its last word at the right edge)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from llmcourse.plots.style import MAX_DISPLAY_HEIGHT, figure_png
    fig = make()
    w, h = fig.get_size_inches() * fig.dpi
    assert h <= MAX_DISPLAY_HEIGHT and figure_png(fig)[1] == {"width": round(w), "height": round(h)}
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    texts = [t for ax in fig.axes for t in (ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts)]
    texts = [t for t in texts + list(fig.texts) + [fig._suptitle] if t is not None and t.get_text()]
    for t in texts:
        box = t.get_window_extent(r)
        assert fig.bbox.x0 - 1 <= box.x0 and box.x1 <= fig.bbox.x1 + 1, t.get_text()


def test_the_lessons_plane_names_every_moe_it_shows():
    fig = plots.memory_vs_compute(lc.tables.dense_models() + CORE_07[1:])
    names = {t.get_text() for t in fig.axes[0].texts}
    assert {"GLM-4.5-Air", "DeepSeek-V2"} <= names
