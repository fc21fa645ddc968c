"""Lesson 03 (FFN sizing): explorer, figures, exercises, sizing helpers."""

import pytest

import llmcourse as lc
from llmcourse.exercises import EXERCISES, check
from llmcourse.sizing import ffn_attention_split, llama_intermediate_size, llama_intermediate_steps
from llmcourse.widgets import EXPLORERS, MLP_KINDS, ffn_rows, with_mlp_kind

FFN_EXERCISES = [i for i in EXERCISES if i.startswith("ffn-")]


# --- the sizing rule -----------------------------------------------------------------

@pytest.mark.parametrize("model, multiple_of, multiplier", [
    ("Meta-Llama-3-8B", 1024, 1.3), ("Meta-Llama-3-70B", 4096, 1.3),
    ("Llama-3.2-1B", 256, 1.5), ("Llama-3.2-3B", 256, 1.0)])
def test_llama_rule_reproduces_the_zoo(model, multiple_of, multiplier):
    cfg = lc.load_model(model)
    assert llama_intermediate_size(cfg.hidden_size, multiple_of, multiplier) == cfg.intermediate_size


def test_llama2_7b_rule_and_total():
    assert llama_intermediate_size(4096, 256) == 11008
    steps = dict(llama_intermediate_steps(4096, 1024, 1.3))
    assert steps["int(2/3 x 4 x hidden)"] == 10922
    assert steps["int(1.3 x that)"] == 14198
    llama2 = lc.from_hf_config({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                                "num_attention_heads": 32, "intermediate_size": 11008,
                                "vocab_size": 32000})
    assert lc.param_count(llama2).total == 6_738_415_616


def test_llama_rule_rejects_bad_input():
    with pytest.raises(ValueError, match="hidden"):
        llama_intermediate_size(0)
    with pytest.raises(ValueError, match="ffn_dim_multiplier"):
        llama_intermediate_size(4096, 256, -1)


def test_split_sums_to_the_engine_totals(zoo_name):
    cfg = lc.load_model(zoo_name)
    s = ffn_attention_split(cfg, 4096)
    assert s["attention_params"] + s["ffn_params"] + s["other_params"] == lc.param_count(cfg).total
    assert s["attention_flops"] + s["ffn_flops"] + s["other_flops"] == lc.flops_per_token(cfg, 4096).total


def test_gated_at_8_thirds_matches_plain_at_4x_weights():
    l3b = lc.load_model("Llama-3.2-3B")  # 8192 = 8/3 x 3072
    plain = with_mlp_kind(l3b, MLP_KINDS[2]).replace(intermediate_size=4 * 3072)
    gated_w = lc.param_count(l3b).components["mlp"]
    plain_w = lc.param_count(plain).components["mlp"]
    assert plain_w - gated_w == l3b.num_hidden_layers * (4 * 3072 + 3072)  # only the biases differ


# --- the explorer ----------------------------------------------------------------------

def test_ffn_explorer_rows_follow_the_engine():
    ex = EXPLORERS["ffn"]()
    assert not ex.error
    cfg = lc.load_model("Meta-Llama-3-8B")
    assert ex.value("ffn_params") == lc.param_count(cfg).components["mlp"]
    ex.set(intermediate_size=11008)
    new = cfg.replace(intermediate_size=11008)
    assert ex.value("ffn_params") == lc.param_count(new).components["mlp"]
    assert ex.value("total_params") == lc.param_count(new).total
    assert ex.value("ffn_params_per_layer") == 3 * 4096 * 11008
    assert [(r.key, r.value) for r in ex.rows] == [(r.key, r.value) for r in ffn_rows(new, 4096)]
    ex.set(seq_len=32768)
    assert ex.value("ffn_flop_share") == round(100 * ffn_attention_split(new, 32768)["ffn_flop_share"], 2)


def test_ffn_explorer_mlp_kind():
    ex = EXPLORERS["ffn"]()
    ex.set(mlp_kind=MLP_KINDS[2])
    cfg = with_mlp_kind(lc.load_model("Meta-Llama-3-8B"), MLP_KINDS[2])
    assert ex.value("mlp_kind") == "plain"
    assert ex.value("ffn_params") == lc.param_count(cfg).components["mlp"]
    ex.set(model="phi-2")
    assert ex.controls["intermediate_size"].value == 10240
    assert ex.controls["mlp_kind"].value == MLP_KINDS[0]
    assert ex.value("ffn_params") == lc.param_count(lc.load_model("phi-2")).components["mlp"]
    ex.set(mlp_kind=MLP_KINDS[1])
    assert ex.value("mlp_kind") == "gated"
    assert ex.value("ffn_params_per_layer") == 3 * 2560 * 10240


def test_ffn_explorer_invalid_size_shows_message_then_recovers():
    ex = EXPLORERS["ffn"]()
    before = ex.value("ffn_params")
    ex.set(intermediate_size=0)
    assert "intermediate_size" in ex.error and "positive" in ex.error
    assert "intermediate_size" in ex.error_line.value
    assert ex.value("ffn_params") == before
    ex.set(intermediate_size=-3)
    assert "intermediate_size" in ex.error
    ex.set(intermediate_size=8192)
    assert ex.error == "" and ex.error_line.value == ""
    assert ex.value("ffn_params_per_layer") == 3 * 4096 * 8192


def test_ffn_explorer_only_offers_dense_models():
    ex = EXPLORERS["ffn"]()
    assert all(not lc.load_model(m).is_moe for m in ex.controls["model"].options)


# --- figures ---------------------------------------------------------------------------

def _check_figure(fig):
    from matplotlib.figure import Figure
    from llmcourse.plots.style import png_bytes
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title() or (fig._suptitle and fig._suptitle.get_text())
    assert ax.get_xlabel()
    assert ax.get_legend() is not None or fig.legends
    assert png_bytes(fig).startswith(b"\x89PNG")


def test_ffn_figures():
    dense = lc.widgets.dense_models()
    _check_figure(lc.plots.ffn_ratios(dense))
    fig = lc.plots.ffn_attention_share(dense[:4], seq_len=8192)
    _check_figure(fig)
    assert "8,192" in fig.axes[1].get_xlabel()


def test_ffn_explorer_figure_has_labels():
    ex = EXPLORERS["ffn"]()
    ax1, ax2 = ex.fig.axes
    assert ax1.get_xlabel() and ax2.get_xlabel() and ax2.get_ylabel()
    assert ex.fig._suptitle.get_text()


# --- exercises -------------------------------------------------------------------------

def test_there_are_ffn_exercises():
    assert len(FFN_EXERCISES) >= 2


@pytest.mark.parametrize("ex_id", FFN_EXERCISES)
def test_ffn_exercise_right_and_wrong(ex_id):
    expected = EXERCISES[ex_id].answer()
    assert check(ex_id, expected)
    assert not check(ex_id, expected * 2 + 1)
    assert "No answer yet" in check(ex_id, None)


def test_ffn_exercise_answers_are_the_engines():
    assert EXERCISES["ffn-1"].answer() == 11008
    q = lc.load_model("Qwen3-8B")
    assert EXERCISES["ffn-2"].answer() == 3 * q.hidden_size * q.intermediate_size
