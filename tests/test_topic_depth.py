"""Lesson 6 (depth and width): explorer, figures, exercises, the 12·L·d² helpers."""

import pytest

import llmcourse as lc
import llmcourse.approx as approx
from llmcourse import plots
from llmcourse.exercises import EXERCISES, check
from llmcourse.widgets import EXPLORERS
from llmcourse.widgets.depth import depth_width_config, depth_width_explorer, hidden_options


def _figure_ok(fig):
    from matplotlib.figure import Figure
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title()
    assert ax.get_xlabel() and ax.get_ylabel()
    plots.png_bytes(fig)  # renders


@pytest.fixture
def ex():
    return EXPLORERS["depth_width"]()


def test_explorer_starts_at_the_real_model(ex):
    cfg = lc.load_model("Meta-Llama-3-8B")
    assert ex.error == ""
    assert ex.value("total") == lc.param_count(cfg).total
    assert ex.value("layer_params") == approx.layer_params(cfg)
    assert ex.value("approx_12Ld2") == 12 * cfg.num_hidden_layers * cfg.hidden_size ** 2
    assert ex.value("flops_per_token") == lc.flops_per_token(cfg, approx.SEQ_LEN).total


def test_layers_change_the_rows(ex):
    before = ex.value("total")
    ex.set(num_hidden_layers=48)
    cfg = lc.load_model("Meta-Llama-3-8B").replace(num_hidden_layers=48)
    assert ex.value("total") == lc.param_count(cfg).total != before
    assert ex.value("approx_12Ld2") == approx.approx_params_12Ld2(cfg)
    assert ex.value("weight_bytes") == lc.weight_bytes(cfg, "bf16")


def test_hidden_change_keeps_heads_valid(ex):
    base = lc.load_model("Meta-Llama-3-8B")
    for h in (2048, 8192):
        assert h in ex.controls["hidden_size"].options
        ex.set(hidden_size=h)
        assert ex.error == ""
        cfg = depth_width_config(base, base.num_hidden_layers, h, base.num_attention_heads)
        assert cfg.hidden_size == h
        assert ex.value("total") == lc.param_count(cfg).total
    # every offered width is valid with the model's heads
    for m in approx.dense_models():
        cfg = lc.load_model(m)
        for h in hidden_options(cfg)[::7]:
            depth_width_config(cfg, cfg.num_hidden_layers, h)


def test_invalid_heads_show_the_engine_message_then_clear(ex):
    total = ex.value("total")
    ex.set(num_attention_heads=33)
    assert "num_key_value_heads" in ex.error
    assert "must divide" in ex.error_line.value
    assert ex.value("total") == total  # last valid setting kept
    ex.set(num_attention_heads=16)
    assert ex.error == "" and ex.error_line.value == ""
    cfg = lc.load_model("Meta-Llama-3-8B").replace(num_attention_heads=16)
    assert ex.value("total") == lc.param_count(cfg).total


def test_model_change_resets_controls(ex):
    ex.set(num_hidden_layers=100)
    ex.set(model="Qwen3-0.6B")
    cfg = lc.load_model("Qwen3-0.6B")
    assert ex.values["num_hidden_layers"] == cfg.num_hidden_layers
    assert ex.values["hidden_size"] == cfg.hidden_size
    assert ex.value("total") == lc.param_count(cfg).total


def test_approx_helpers():
    phi = lc.load_model("phi-2")  # MHA, 4x GELU MLP: the model the rule describes
    assert abs(approx.approx_params_12Ld2(phi) / approx.layer_params(phi) - 1) < 0.001
    for m in approx.dense_models():
        cfg = lc.load_model(m)
        pc = lc.param_count(cfg.text_model)   # the layers are the language model's
        assert approx.layer_params(cfg) + approx.outside_layers_params(cfg) == pc.total
    df = lc.tables.twelve_ld2_table(formatted=False)
    assert df.loc["Meta-Llama-3-8B", "12·L·d²"] == 12 * 32 * 4096 ** 2
    t = lc.tables.depth_change_table("Meta-Llama-3-8B", 64, formatted=False)
    assert t.loc["params in the layers", "ratio"] == 2.0


@pytest.mark.parametrize("make", [
    lambda: plots.params_vs_layers("Meta-Llama-3-8B"),
    lambda: plots.approx_error_bars(),
    lambda: plots.embedding_share_bars(),
    lambda: plots.depth_width_bars(),
])
def test_figures(make):
    _figure_ok(make())


def test_exercise_expectations_by_hand():
    """The registry test (tests/test_exercises.py) feeds each exercise its solution and its
    wrong answers; here the expected values are derived by hand, not by the engine."""
    # depth-1: Qwen3-0.6B's layer = q, o (16 heads of 128 on d = 1,024), k, v (8 KV heads),
    # a 3,072-wide gated MLP, two norms and QK-norm (2 x 128); outside: one tied V x d
    # embedding and the final norm
    d, V = 1024, 151_936
    q_layer = 2 * d * 16 * 128 + 2 * d * 8 * 128 + 3 * d * 3072 + 2 * d + 2 * 128
    q_outside = V * d + d
    assert lc.exercises.check("depth-1", (56 * q_layer + q_outside) / (28 * q_layer + q_outside))
    assert not lc.exercises.check("depth-1", 2.0)
    v = lc.exercises.check("depth-1", (56 * q_layer + 2 * V * d + d) / (28 * q_layer + 2 * V * d + d))
    assert not v
    # Meta-Llama-3-8B's layer = 2.5 d^2 + 10.5 d^2 + 2d; outside: 2 V d + d (the table
    # under the exercise): 1.87, which is not Qwen3-0.6B's answer
    d, V = 4096, 128_256
    layer = 2 * d * 4096 + 2 * d * 1024 + 3 * d * 14336 + 2 * d
    outside = 2 * V * d + d
    v = lc.exercises.check("depth-1", (64 * layer + outside) / (32 * layer + outside))
    assert not v and "Meta-Llama-3-8B's ratio" in v, v
    # depth-3: 64 layers of d = 3072 (24 heads of 128, 8 KV heads) and d_ff = 9088 hold
    # Llama-3-8B's budget within 0.2%
    d2 = 3072
    layer2 = 2 * d2 * 24 * 128 + 2 * d2 * 8 * 128 + 3 * d2 * 9088 + 2 * d2
    assert abs(64 * layer2 / (32 * layer) - 1) < 0.002
    assert lc.exercises.check("depth-3", {"hidden_size": 3072, "num_attention_heads": 24,
                                          "head_dim": 128, "intermediate_size": 9088})
    # depth-2: the coefficient by hand for Qwen3-32B, whose 64 heads of 128 are 1.6 d wide
    q = lc.load_model("Qwen3-32B")
    assert (q.hidden_size, q.num_attention_heads, q.num_key_value_heads, q.head_dim,
            q.intermediate_size) == (5120, 64, 8, 128, 25600)
    c = (2 * 64 * 128 + 2 * 8 * 128 + 3 * 25600) / 5120
    assert lc.exercises.check("depth-2", lambda cfg: c if cfg.name == "Qwen3-32B" else
                              lc.exercises.depth._coefficient_by_fields(cfg))


def test_kv_heads_control_makes_any_divisible_head_count_reachable(ex):
    # Qwen3-8B sets head_dim explicitly, so 36 query heads are a valid shape once
    # the KV heads divide them: the explorer needs a KV-heads control to get there
    ex.set(model="Qwen3-8B")
    ex.set(num_attention_heads=36)
    assert "num_key_value_heads" in ex.error
    ex.set(num_key_value_heads=4)
    assert ex.error == ""
    cfg = lc.load_model("Qwen3-8B").replace(num_attention_heads=36, num_key_value_heads=4)
    assert ex.value("total") == lc.param_count(cfg).total
    ex.set(model="Meta-Llama-3-8B")  # a new model resets both head counts
    assert ex.values["num_key_value_heads"] == 8 and ex.values["num_attention_heads"] == 32


def test_flops_row_says_gflop(ex):
    row = next(r for r in ex.rows if r.key == "flops_per_token")
    fl = lc.flops_per_token(lc.load_model("Meta-Llama-3-8B"), approx.SEQ_LEN).total
    assert row.text == f"{fl:,} ({fl / 1e9:.2f} GFLOP)"


def test_flops_never_run_past_the_models_context(ex):
    # gpt2 reads at most n_positions = 1,024 tokens: its FLOPs row is taken there and says so
    ex.set(model="gpt2")
    row = next(r for r in ex.rows if r.key == "flops_per_token")
    assert "1,024-token prompt" in row.label and "whole context" in row.label
    assert row.value == lc.flops_per_token(lc.load_model("gpt2"), 1024).total
    ex.set(model="Meta-Llama-3-8B")  # 8,192 tokens of context: the lesson's 4,096 stand
    row = next(r for r in ex.rows if r.key == "flops_per_token")
    assert "4,096-token prompt" in row.label and "whole context" not in row.label


def test_deep_and_narrow_means_deep_and_narrow():
    """The review found depth-3 forced head_dim 88 and accepted (4096, 5461) and
    (1024, 35000): a design that is not narrow, or whose MLP ratio is off, fails now."""
    ok = {"hidden_size": 2816, "num_attention_heads": 22, "num_key_value_heads": 2,
          "head_dim": 128, "intermediate_size": 10880}
    assert lc.exercises.check("depth-3", ok)
    assert lc.exercises.check("depth-3", {**ok, "hidden_size": 2816.0})  # a whole float
    assert "head_dim is 88" in lc.exercises.check(
        "depth-3", {"hidden_size": 2816, "intermediate_size": 10560})
    assert "not narrow" in lc.exercises.check(
        "depth-3", {"hidden_size": 4096, "intermediate_size": 5461})
    assert "34.18× hidden_size" in lc.exercises.check(
        "depth-3", {"hidden_size": 1024, "num_attention_heads": 8, "intermediate_size": 35000})
    assert "multiple of 128" in lc.exercises.check(
        "depth-3", {**ok, "hidden_size": 2880, "num_attention_heads": 45, "head_dim": 64,
                    "num_key_value_heads": 5})


def test_depth2_catches_head_dim_taken_from_the_width():
    # a what-if whose heads are not d / heads wide: reading head_dim from the width fails
    def width_head_dim(cfg):
        d = cfg.hidden_size
        d_h = d // cfg.num_attention_heads
        return (2 * d * cfg.num_attention_heads * d_h + 2 * d * cfg.num_key_value_heads * d_h
                + 3 * d * cfg.intermediate_size) / d ** 2
    v = lc.exercises.check("depth-2", width_head_dim)
    assert not v and "Qwen3-32B" in v


def test_depth_change_table_stays_within_the_context():
    t = lc.tables.depth_change_table("gpt2", 24, formatted=False)
    row = "attention FLOPs/token (1,024-token prompt, the model's whole context)"
    assert t.loc[row, "12 layers"] == lc.flops_per_token(lc.load_model("gpt2"), 1024).attention
    t = lc.tables.depth_change_table("Meta-Llama-3-8B", 64, formatted=False)
    assert "attention FLOPs/token (4,096-token prompt)" in t.index


def test_depth2_names_the_mistake_it_matches():
    v = lc.exercises.check("depth-2", lc.exercises.depth._mha_coefficient)
    assert not v and "GQA" in v
    v = lc.exercises.check("depth-2", lc.exercises.depth._all_plain)
    assert not v and "three" in v
    v = lc.exercises.check("depth-2", lc.exercises.depth._all_gated)
    assert not v and "phi-2" in v and "plain" in v
    v = lc.exercises.check("depth-2", lc.exercises.depth._head_dim_from_hidden)
    assert not v and "head_dim is its own field" in v
    # the worked solution's coefficient for Qwen3-32B: 3.2 + 0.4 + 15 = 18.6
    assert abs(lc.exercises.depth._coefficient_by_fields(lc.load_model("Qwen3-32B")) - 18.6) < 1e-9
    assert "18.6" in lc.exercises.EXERCISES["depth-2"].why


def test_no_kv_heads_box_where_transformers_builds_no_gqa(ex):
    """transformers' GPT-2 (one fused c_attn) and GPT-NeoX (one fused query_key_value)
    build no KV heads of their own: the explorer offers no box there, its KV heads follow
    the query heads, and every count it shows is the one transformers builds."""
    for model in ("gpt2", "pythia-1b"):
        ex.set(model=model)
        assert ex.controls["num_key_value_heads"].disabled, model
        assert "no KV-heads box" in ex.note.value
        heads = ex.values["num_attention_heads"] * 2
        ex.set(num_attention_heads=heads)
        assert ex.error == "" and ex.values["num_key_value_heads"] == heads
        built = lc.load_model(model).replace(num_attention_heads=heads)
        assert built.num_key_value_heads == heads
        assert ex.value("total") == lc.param_count(built).total
    ex.set(model="Meta-Llama-3-8B")
    assert not ex.controls["num_key_value_heads"].disabled
    assert "no KV-heads box" not in ex.note.value


def test_layers_slider_offers_only_depths_the_model_can_have(ex):
    from llmcourse.plots.depth import min_layers
    ex.set(model="gemma-4-E2B")
    assert ex.error == ""
    low = min(ex.controls["num_hidden_layers"].options)
    assert low == min_layers(lc.load_model("gemma-4-E2B")) > 20   # 20 layers share K and V
    with pytest.raises(ValueError):
        lc.load_model("gemma-4-E2B").replace(num_hidden_layers=low - 1)
    ex.set(num_hidden_layers=low)
    assert ex.error == ""
    ex.set(model="Meta-Llama-3-8B")
    assert min(ex.controls["num_hidden_layers"].options) == 1


WRAPPERS = [m for m in lc.approx.dense_models() if lc.load_model(m).is_multimodal]


@pytest.mark.parametrize("name", WRAPPERS)
def test_a_multimodal_models_layers_are_its_language_models(name):
    """Depth and width are the language model's: a wrapper's vision (and audio) tower is
    no decoder layer. The layers hold the text model's total less its embedding, untied
    head and final norm; the explorer and the tables count the text model and say so."""
    cfg = lc.load_model(name)
    text = cfg.text_model
    pc = lc.param_count(text)
    assert lc.approx.layer_params(cfg) == lc.approx.layer_params(text) \
        == pc.total - lc.approx.outside_layers_params(text)
    # what lies outside the layers is the language model's: its embedding at least
    assert pc.embedding <= lc.approx.outside_layers_params(text) < pc.total - lc.approx.layer_params(cfg) + 1
    assert lc.param_count(cfg).total > pc.total            # the towers are in the whole
    row = lc.tables.twelve_ld2_table([name], formatted=False).iloc[0]
    assert row["exact total"] == pc.total and row.name == text.name
    ex = depth_width_explorer(name)
    assert ex.error == "" and ex.value("total") == pc.total


DENSE_06 = ['gpt2', 'pythia-1b', 'phi-2', 'Qwen3-0.6B', 'Llama-3.2-1B', 'Qwen3-1.7B', 'gemma-2-2b',
            'Llama-3.2-3B', 'Qwen3-4B', 'Qwen2-7B', 'Meta-Llama-3-8B', 'Qwen3-8B',
            'Mistral-Nemo-Base-2407', 'Qwen3-14B', 'Qwen3-32B', 'Meta-Llama-3-70B']


@pytest.mark.parametrize("make", [
    lambda: plots.approx_error_bars(DENSE_06), lambda: plots.embedding_share_bars(DENSE_06),
    lambda: plots.params_vs_layers("Meta-Llama-3-8B", mark_layers=64), lambda: plots.depth_width_bars(),
])
def test_lesson_figures_are_shown_at_full_size(make):
    """The lesson's figures fit MAX_DISPLAY_HEIGHT: shown whole, 12-pt text at 12 pt."""
    from llmcourse.plots.style import MAX_DISPLAY_HEIGHT, figure_png
    fig = make()
    w, h = fig.get_size_inches() * fig.dpi
    assert h <= MAX_DISPLAY_HEIGHT and figure_png(fig)[1] == {"width": round(w), "height": round(h)}
