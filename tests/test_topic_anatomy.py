"""Lesson 0 (anatomy): the explorer follows the engine, figures are labelled,
tables agree with the engine, exercises check right and wrong answers."""

import pytest

import llmcourse as lc
from llmcourse.exercises import EXERCISES, check

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def layer_params(cfg, layer):
    ws = lc.weight_shapes(cfg)
    return int(ws[(ws["layer"] == layer) & (ws["note"] != "buffer")]["numel"].sum())


@pytest.fixture
def ex():
    return lc.widgets.EXPLORERS["layer_anatomy"]()


def test_explorer_defaults_match_engine(ex):
    cfg = lc.load_model("Llama-3.2-3B")
    assert ex.error == ""
    assert ex.value("layer_params") == layer_params(cfg, 0)
    assert ex.value("total") == lc.param_count(cfg).total
    assert ex.value("self_attn.k_proj.weight") == 1024 * 3072
    assert ex.fig is not None and ex.image.value[:4] == b"\x89PNG"


def test_kv_heads_change_updates_rows(ex):
    before = ex.value("layer_params")
    ex.set(num_key_value_heads=24)
    cfg = lc.load_model("Llama-3.2-3B").replace(num_key_value_heads=24)
    assert ex.error == ""
    assert ex.value("layer_params") == layer_params(cfg, 0) != before
    assert ex.value("self_attn.k_proj.weight") == int(
        lc.weight_shapes(cfg).set_index("name").loc["model.layers.0.self_attn.k_proj.weight", "numel"])
    assert ex.value("total") == lc.param_count(cfg).total


def test_invalid_kv_heads_shows_message_then_clears(ex):
    good = ex.value("layer_params")
    ex.set(num_key_value_heads=5)
    with pytest.raises(ValueError) as err:
        lc.load_model("Llama-3.2-3B").replace(num_key_value_heads=5)
    assert ex.error == str(err.value)
    assert "must divide num_attention_heads=24" in ex.error_line.value
    assert ex.value("layer_params") == good  # the table keeps the last valid setting
    ex.set(num_key_value_heads=4)
    assert ex.error == "" and ex.error_line.value == ""
    assert ex.value("layer_params") == layer_params(
        lc.load_model("Llama-3.2-3B").replace(num_key_value_heads=4), 0)


def test_model_and_layer_change(ex):
    ex.set(model="DeepSeek-V3")
    cfg = lc.load_model("DeepSeek-V3")
    assert ex.values["layer"] == 0 and ex.values["num_key_value_heads"] == cfg.num_key_value_heads
    assert ex.value("layer_params") == layer_params(cfg, 0)  # dense layer
    ex.set(layer=3)  # the first MoE layer
    assert ex.value("layer_params") == layer_params(cfg, 3) > layer_params(cfg, 0)
    assert "MoE" in ex.value("kind")
    assert list(ex.controls["layer"].options) == list(range(cfg.num_hidden_layers))


def test_every_zoo_model_draws(ex):
    for name in lc.list_models():
        ex.set(model=name)
        assert ex.error == "", (name, ex.error)
        assert ex.value("total") == lc.param_count(lc.load_model(name)).total


def test_redraw_is_fast(ex):
    import statistics
    times = []
    for i in range(20):
        ex.set(layer=i % 28)
        times.append(ex.last_seconds)
    assert statistics.median(times) < 0.25  # generous for loaded CI; the bench checks 50 ms


@pytest.mark.parametrize("make", [
    lambda: lc.plots.layer_components(lc.load_model("Llama-3.2-3B"), 0),
    lambda: lc.plots.layer_components(lc.load_model("DeepSeek-V3"), 5),
    lambda: lc.plots.parameter_shares([lc.load_model("Qwen3-0.6B"), lc.load_model("Meta-Llama-3-8B")]),
])
def test_figures_have_title_and_labels(make):
    from matplotlib.figure import Figure
    fig = make()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title() and ax.get_xlabel()
    assert ax.get_legend() is not None or fig.legends
    assert lc.plots.png_bytes(fig)[:4] == b"\x89PNG"


def test_layer_modules_sum_to_layer_count():
    from llmcourse.plots.anatomy import layer_modules
    for name in ("Llama-3.2-3B", "phi-2", "gpt-oss-20b", "DeepSeek-V3", "Mixtral-8x7B-v0.1"):
        cfg = lc.load_model(name)
        for layer in (0, cfg.num_hidden_layers - 1):
            assert sum(n for _, _, n in layer_modules(cfg, layer)) == layer_params(cfg, layer)


def test_bad_layer_is_one_line_value_error():
    with pytest.raises(ValueError, match="layer: must be a layer index from 0 to 27"):
        lc.plots.layer_components(lc.load_model("Llama-3.2-3B"), 28)


def test_tables_agree_with_engine():
    q = lc.load_model("Qwen3-0.6B")
    listing = lc.widgets.weight_listing(q)
    assert len(listing) == len(lc.weight_shapes(q)) == 311
    assert listing.iloc[-1]["note"] == "tied to model.embed_tokens.weight"
    top = lc.widgets.top_tensors(q, 20)
    assert len(top) == 20 and top.iloc[0]["MiB (bf16)"] == "296.75" and top.iloc[0]["MB (bf16)"] == "311.16"
    tied = lc.widgets.tied_count_table()
    assert tied.loc["Qwen3-0.6B", "sum of every listed tensor"] == "751,632,384"
    assert tied.loc["Qwen3-0.6B", "exact (unique) parameters"] == f"{lc.param_count(q).total:,}"
    assert tied.loc["Llama-3.2-3B", "exact (unique) parameters"] == "3,212,749,824"
    trace = lc.widgets.decoder_trace(lc.load_model("Llama-3.2-3B"))
    ws = lc.weight_shapes(lc.load_model("Llama-3.2-3B")).set_index("name")
    for _, row in trace[trace["tensor (checkpoint name)"] != ""].iterrows():
        assert row["tensor (checkpoint name)"] in ws.index
    with pytest.raises(ValueError):
        lc.widgets.decoder_trace(lc.load_model("DeepSeek-V3"))
    html = lc.widgets.layer_view(lc.load_model("Llama-3.2-3B")).data
    assert html.count("<details") == 28 and "100,669,440 parameters" in html


@pytest.mark.parametrize("id_", ["anatomy-1", "anatomy-2", "anatomy-3"])
def test_exercises(id_):
    ex = EXERCISES[id_]
    right = ex.answer()
    assert check(id_, right)
    assert not check(id_, right * 2 + 1)
    assert "No answer yet" in check(id_, None)


def test_exercise_values():
    assert EXERCISES["anatomy-1"].answer() == lc.param_count(lc.load_model("Llama-3.2-1B")).total \
        + lc.param_count(lc.load_model("Llama-3.2-1B")).embedding
    q = lc.load_model("Qwen3-0.6B")
    assert EXERCISES["anatomy-2"].answer() == 2 * q.head_dim * q.num_hidden_layers
    assert EXERCISES["anatomy-3"].answer() == lc.weight_bytes(q, "bf16") / 2**20
