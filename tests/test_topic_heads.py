"""Lesson 1 (heads and head_dim): the explorer follows the engine, figures are
labelled, the seed 000 table is checked against the engine, exercises check."""

import pytest

import llmcourse as lc
from llmcourse.exercises import EXERCISES, check

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def layer0(cfg, tensor):
    ws = lc.weight_shapes(cfg).set_index("name")
    return int(ws.loc[f"model.layers.0.self_attn.{tensor}.weight", "numel"])


def attention_per_layer(cfg):
    return lc.param_count(cfg).components["attention"] // cfg.num_hidden_layers


@pytest.fixture
def ex():
    return lc.widgets.EXPLORERS["heads"]()


def test_defaults_match_engine(ex):
    cfg = lc.load_model("Meta-Llama-3-8B")
    assert ex.error == ""
    for p in ("q_proj", "k_proj", "v_proj", "o_proj"):
        assert ex.value(p) == layer0(cfg, p)
    assert ex.value("attention_per_layer") == attention_per_layer(cfg)
    assert ex.value("total") == lc.param_count(cfg).total


def test_head_change_updates_rows(ex):
    ex.set(num_attention_heads=64)
    cfg = lc.load_model("Meta-Llama-3-8B").replace(num_attention_heads=64, num_key_value_heads=8)
    assert ex.error == ""
    assert ex.value("head_dim") == cfg.head_dim == 64
    assert ex.value("q_proj") == layer0(cfg, "q_proj")
    assert ex.value("attention_per_layer") == attention_per_layer(cfg)
    assert ex.value("kv_bytes_per_token") == lc.kv_cache_bytes_per_token_per_layer(cfg) * cfg.num_hidden_layers
    # the KV slider now offers the divisors of 64 (and keeps its value)
    assert ex.values["num_key_value_heads"] == 8
    assert set(ex.controls["num_key_value_heads"].options) >= {1, 2, 4, 8, 16, 32, 64}


def test_mha_head_count_leaves_attention_unchanged(ex):
    seen = set()
    for h in (8, 16, 32, 64):
        ex.set(num_attention_heads=h)
        ex.set(num_key_value_heads=h)
        assert ex.error == ""
        seen.add(ex.value("attention_per_layer"))
    assert seen == {4 * 4096 * 4096}


def test_head_dim_fixed_changes_q(ex):
    ex.set(head_dim=256)
    cfg = lc.load_model("Meta-Llama-3-8B").replace(head_dim=256)
    assert ex.value("q_proj") == layer0(cfg, "q_proj") == 32 * 256 * 4096
    assert ex.value("heads_x_head_dim") == 8192


def test_invalid_setting_shows_message_then_clears(ex):
    ex.set(num_attention_heads=4)  # 8 KV heads > 4 heads
    with pytest.raises(ValueError) as err:
        lc.load_model("Meta-Llama-3-8B").replace(num_attention_heads=4, num_key_value_heads=8,
                                                head_dim=None)
    assert ex.error == str(err.value)
    assert "cannot exceed num_attention_heads=4" in ex.error_line.value
    ex.set(num_key_value_heads=2)
    assert ex.error == "" and ex.error_line.value == ""
    cfg = lc.load_model("Meta-Llama-3-8B").replace(num_attention_heads=4, num_key_value_heads=2)
    assert ex.value("attention_per_layer") == attention_per_layer(cfg)


def test_model_change_resets_controls(ex):
    ex.set(model="Qwen3-0.6B")
    cfg = lc.load_model("Qwen3-0.6B")
    assert ex.values == {"model": "Qwen3-0.6B", "num_attention_heads": 16, "head_dim": 128,
                         "num_key_value_heads": 8}
    assert ex.value("q_proj") == layer0(cfg, "q_proj") == 2048 * 1024
    ex.set(model="gemma-2-2b")
    assert ex.value("q_proj") == layer0(lc.load_model("gemma-2-2b"), "q_proj") == 2048 * 2304
    for name in ex.controls["model"].options:
        ex.set(model=name)
        assert ex.error == "", (name, ex.error)


def test_redraw_is_fast(ex):
    import statistics
    times = []
    for i in range(20):
        ex.set(num_key_value_heads=[1, 2, 4, 8][i % 4])
        times.append(ex.last_seconds)
    assert statistics.median(times) < 0.25  # generous for loaded CI; the bench checks 50 ms


@pytest.mark.parametrize("make", [
    lambda: lc.plots.attention_params_vs_heads(lc.load_model("Meta-Llama-3-8B")),
    lambda: lc.plots.qkvo_bars([lc.load_model("Meta-Llama-3-8B"), lc.load_model("phi-2")]),
])
def test_figures_have_title_and_labels(make):
    from matplotlib.figure import Figure
    fig = make()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    assert ax.get_legend() is not None
    assert lc.plots.png_bytes(fig)[:4] == b"\x89PNG"


def test_sweep_is_engine_what_ifs():
    cfg = lc.load_model("Meta-Llama-3-8B")
    sweep = lc.plots.head_count_sweep(cfg)
    assert set(sweep["mha"][1]) == {4 * 4096 ** 2}
    for h, n in zip(*sweep["fixed"]):
        assert n == attention_per_layer(cfg.replace(num_attention_heads=h, head_dim=128))


def test_seed000_table_flags_the_known_errors():
    t = lc.widgets.seed000_table()
    bad = t[t["check"].str.startswith("✗")]
    assert set(bad["seed model"]) == {"Qwen3 8B", "Gemma-2 2B"}
    gemma = t[(t["seed model"] == "Gemma-2 2B") & (t["seed tensor"] == "q/o")].iloc[0]
    assert "q_proj (2,048, 2,304)" in gemma["stored (out, in)"]
    phi = t[(t["seed model"] == "Phi-2 (2.7B)") & (t["seed tensor"] == "gate/up")].iloc[0]
    assert "fc1" in phi["stored (out, in)"] and "GELU" in phi["check"]
    assert lc.load_model("Qwen3-8B").intermediate_size == 12288
    assert lc.load_model("Qwen3-8B").num_hidden_layers == 36


def test_head_dim_table():
    t = lc.widgets.head_dim_table()
    assert t.loc["Qwen3-0.6B", "heads×head_dim"] == "2,048"
    assert t.loc["Qwen3-0.6B", "= hidden_size?"] == "no"
    assert t.loc["gemma-2-2b", "head_dim in 64–128?"] == "no"
    assert t.loc["Meta-Llama-3-8B", "= hidden_size?"] == "yes"
    m = lc.widgets.mha_split_table("Meta-Llama-3-8B", heads=(8, 32, 128))
    assert set(m["attention params per layer"]) == {f"{4 * 4096 ** 2:,}"}


@pytest.mark.parametrize("id_", ["heads-1", "heads-2", "heads-3"])
def test_exercises(id_):
    ex = EXERCISES[id_]
    right = ex.answer()
    assert check(id_, right)
    assert not check(id_, right + 1)
    assert "No answer yet" in check(id_, None)


def test_exercise_values():
    assert EXERCISES["heads-1"].answer() == 2048 * 2304
    q = lc.load_model("Qwen3-8B").replace(num_attention_heads=64)
    assert EXERCISES["heads-2"].answer() == sum(layer0(q, p) for p in ("q_proj", "k_proj", "v_proj", "o_proj"))
    assert EXERCISES["heads-3"].answer() == 4 * 2560 * 2560 + 4 * 2560
