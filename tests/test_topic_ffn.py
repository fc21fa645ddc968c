"""Lesson 5 (FFN sizing): explorer, figures, exercises, sizing helpers."""

import pytest

import llmcourse as lc
from llmcourse.exercises import check
from llmcourse.sizing import ffn_attention_split
from llmcourse.widgets import EXPLORERS, MLP_KINDS, ffn_rows, with_mlp_kind


# --- the Llama rule: the notebook's worked solution, against published configs ----------

def _meta_ffn_width(hidden, multiple_of, ffn_dim_multiplier=None):  # as in lesson 5
    h = int(2 * (4 * hidden) / 3)
    if ffn_dim_multiplier is not None:
        h = int(ffn_dim_multiplier * h)
    return multiple_of * ((h + multiple_of - 1) // multiple_of)


@pytest.mark.parametrize("model, multiple_of, multiplier", [
    ("Llama-3.1-8B", 1024, 1.3), ("Meta-Llama-3-70B", 4096, 1.3),
    ("Llama-3.2-1B", 256, 1.5), ("Llama-3.2-3B", 256, 1.0)])
def test_llama_rule_reproduces_the_zoo(model, multiple_of, multiplier):
    cfg = lc.load_model(model)
    assert _meta_ffn_width(cfg.hidden_size, multiple_of, multiplier) == cfg.intermediate_size


def test_llama_rule_gives_the_published_405b_and_llama2_widths():
    assert _meta_ffn_width(16384, 4096, 1.2) == 53248   # Llama-3.1-405B config.json
    assert _meta_ffn_width(4096, 256) == 11008           # LLaMA-2 7B config.json
    assert check("ffn-1", 53248)
    assert "multiplier" in check("ffn-1", 45056)


def test_llama2_7b_total():
    llama2 = lc.from_hf_config({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                                "num_attention_heads": 32, "intermediate_size": 11008,
                                "vocab_size": 32000})
    assert lc.param_count(llama2).total == 6_738_415_616


def test_split_sums_to_the_engine_totals(zoo_name):
    cfg = lc.load_model(zoo_name)
    s = ffn_attention_split(cfg, 4096)
    assert s["attention_params"] + s["ffn_params"] + s["other_params"] == lc.param_count(cfg).total
    assert s["attention_flops"] + s["ffn_flops"] + s["other_flops"] == lc.flops_per_token(cfg, 4096).total


def test_gated_at_8_thirds_matches_plain_at_4x_weights():
    l3b = lc.load_model("Llama-3.2-3B")  # 8192 = 8/3 x 3072
    wide = l3b.replace(intermediate_size=4 * 3072)
    plain = ffn_attention_split(wide, mlp_cfg=with_mlp_kind(wide, MLP_KINDS[2]))
    gated = ffn_attention_split(l3b)
    assert plain["ffn_params"] - gated["ffn_params"] == l3b.num_hidden_layers * (4 * 3072 + 3072)
    assert plain["ffn_flops"] == gated["ffn_flops"] == 2 * 3 * 3072 * 8192 * 28  # biases: no matmul


def test_switching_the_mlp_leaves_attention_and_the_rest_alone():
    cfg = lc.load_model("Llama-3.1-8B")
    shipped = ffn_attention_split(cfg, 4096)
    plain = ffn_attention_split(cfg, 4096, mlp_cfg=with_mlp_kind(cfg, MLP_KINDS[2]))
    for key in ("attention_params", "other_params", "attention_flops", "other_flops"):
        assert plain[key] == shipped[key], key
    d, inter, layers = 4096, 14336, 32   # plain: fc1 + fc2 with biases, by hand
    assert plain["ffn_params"] == layers * (2 * d * inter + inter + d)
    assert plain["ffn_flops"] == 2 * layers * 2 * d * inter


def test_ffn_share_table_by_hand():
    t = lc.tables.ffn_share_table(["Llama-3.1-8B"], seq_len=4096)
    # FFN 32 x 3 x 4096 x 14336 of 8,030,261,248 parameters
    assert t.loc["Llama-3.1-8B", "FFN % of params"] == f"{100 * 32 * 3 * 4096 * 14336 / 8030261248:.1f}"
    # the embedding: 128,256 x 4,096 of the same total
    assert t.loc["Llama-3.1-8B", "embedding % of params"] == f"{100 * 128256 * 4096 / 8030261248:.1f}"


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
    assert ex.value("ffn_flop_share") == round(100 * ffn_attention_split(new, 32768)["ffn_flop_share"], 1)


def test_ffn_explorer_mlp_kind():
    ex = EXPLORERS["ffn"]()
    attention = ex.value("attention_params")
    ex.set(mlp_kind=MLP_KINDS[2])
    assert ex.value("mlp_kind") == "plain"
    assert ex.value("ffn_params") == 32 * (2 * 4096 * 14336 + 14336 + 4096)
    assert ex.value("attention_params") == attention      # only the MLP switched
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
    dense = lc.tables.dense_models(by_size=True)
    fig = lc.plots.ffn_ratios(dense)
    _check_figure(fig)
    assert "never" not in fig.axes[0].get_title()
    fig = lc.plots.ffn_attention_share(dense[:4], seq_len=8192)
    _check_figure(fig)
    assert "8,192" in fig.axes[1].get_xlabel()
    assert fig.get_size_inches()[1] * fig.dpi <= 720 or len(dense) > 16


def test_ffn_explorer_flop_line_stays_visible_over_the_parameter_line():
    ex = EXPLORERS["ffn"]()
    ax2 = ex.fig.axes[1]
    by_label = {ln.get_label(): ln for ln in ax2.get_lines()}
    p, f = by_label["share of parameters"], by_label["share of FLOPs per token"]
    assert f.get_zorder() > p.get_zorder() and f.get_marker() not in (None, "None", "")
    assert "whole model" in ax2.get_ylabel() and "one layer" in ex.fig.axes[0].get_title()


def test_ffn_explorer_figure_has_labels():
    ex = EXPLORERS["ffn"]()
    ax1, ax2 = ex.fig.axes
    assert ax1.get_xlabel() and ax2.get_xlabel() and ax2.get_ylabel()
    assert ex.fig._suptitle.get_text()


# --- exercises (the registry test feeds each its solution and wrong answers) -------------

def test_ffn_exercises_cover_three_kinds():
    mine = lc.exercises.list_exercises(notebook="05_ffn_sizing")
    assert len(mine) >= 3 and len({ex.kind for ex in mine}) >= 3


def test_ffn_derive_needs_the_plain_mlp_biases():
    def no_biases(cfg):
        k = 2 if cfg.model_type == "phi" else 3
        return k * cfg.hidden_size * cfg.intermediate_size
    v = check("ffn-2", no_biases)
    assert not v and "phi-2" in v


def test_ffn_derive_with_the_plain_families_right_and_the_biases_forgotten_says_biases():
    """The four plain families right, the biases forgotten: phi-2's count is 0.024% low.
    The feedback names the biases, not the plain families the student already has (a
    phi-only rule gives phi-2's right count, so it is no mistake there)."""
    def no_biases(cfg):
        k = 2 if cfg.model_type in ("gpt2", "gpt_neox", "phi", "starcoder2") else 3
        return k * cfg.hidden_size * cfg.intermediate_size
    v = check("ffn-2", no_biases)
    assert not v and "phi-2" in v and "biases" in v and "GPT-NeoX" not in v, v


def test_ffn_derive_names_the_plain_families_a_phi_only_rule_misses():
    def phi_only(cfg):   # the old worked solution's rule: phi-2 as the only plain MLP
        d, inter = cfg.hidden_size, cfg.intermediate_size
        return 2 * d * inter + inter + d if cfg.model_type == "phi" else 3 * d * inter
    v = check("ffn-2", phi_only)
    assert not v and "gpt2" in v and "GPT-NeoX" in v
    def plain_by_type(cfg):
        d, inter = cfg.hidden_size, cfg.intermediate_size
        if cfg.model_type in ("gpt2", "gpt_neox", "phi", "starcoder2"):
            return 2 * d * inter + inter + d
        return 3 * d * inter
    assert check("ffn-2", plain_by_type)


def test_the_plain_mlp_families_are_read_from_every_dense_models_tensors():
    """The lesson says the zoo's plain MLPs are exactly GPT-2, GPT-NeoX, phi and StarCoder2:
    every dense zoo model's tensors agree (two matrices with biases there, three
    elsewhere), and so does each family's layout."""
    from llmcourse.tables.ffn import dense_models, mlp_layout
    plain = {lc.load_model(m).model_type for m in dense_models()
             if not any(x["gated"] for x in mlp_layout(lc.load_model(m)))}
    assert plain == {"gpt2", "gpt_neox", "phi", "starcoder2"}
    assert plain == {lc.load_model(m).model_type for m in dense_models()
                     if lc.load_model(m).layout.mlp == "plain"}
    for m in dense_models():
        cfg = lc.load_model(m)
        layout = mlp_layout(cfg)
        assert sum(x["layers"] for x in layout) == cfg.num_hidden_layers, m
        for x in layout:   # the width read back is the config's (doubled where Gemma 4 doubles)
            assert x["width"] in (cfg.intermediate_size, 2 * cfg.intermediate_size), m


def test_ffn_explorer_shows_gemma_4_e2b_layer_by_layer():
    """gemma-4-E2B is gated, 6,144 wide in 15 layers and 12,288 in its 20 KV-shared
    layers: the explorer says so, per kind of layer, and offers no MLP switch that would
    give every layer one width."""
    ex = EXPLORERS["ffn"]()
    ex.set(model="gemma-4-E2B")
    assert ex.error == ""
    assert ex.value("mlp_kind") == "gated"
    text = next(r.text for r in ex.rows if r.key == "mlp_kind")
    assert "6,144 wide in 15 layers" in text and "12,288 wide in 20 layers" in text
    cfg = lc.load_model("gemma-4-E2B")
    per_layer = ex.value("ffn_params_per_layer")
    assert len(per_layer) == 2 and 15 * per_layer[0] + 20 * per_layer[1] \
        == sum(t.numel for g in __import__("llmcourse").architectures.layer_groups(cfg)
               for t in g.tensors if t.component == "mlp" for _ in g.indices)
    assert ex.controls["mlp_kind"].disabled and list(ex.controls["mlp_kind"].options) == [MLP_KINDS[0]]
    ex.set(model="Llama-3.1-8B")
    assert not ex.controls["mlp_kind"].disabled and len(ex.controls["mlp_kind"].options) == 3


def test_share_figure_draws_each_part_in_its_component_colour_and_titles_its_point():
    from llmcourse.plots.style import color_of
    from matplotlib.colors import to_hex
    fig = lc.plots.ffn_attention_share(["gpt2", "Qwen3-0.6B", "Llama-3.1-8B"], seq_len=4096)
    colors = {to_hex(p.get_facecolor()) for p in fig.axes[0].patches}
    for part in ("attention", "mlp", "embedding"):
        assert to_hex(color_of(f"component:{part}")) in colors, part
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert not any("," in lab for lab in labels), labels   # no lumped "embedding, norms, lm_head"
    title = fig._suptitle.get_text()
    assert "gpt2" in title and "Qwen3-0.6B" in title and "Llama-3.1-8B" not in title
    # the shorter context is said beside its FLOP bar only, not on the parameter panel
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["gpt2", "Qwen3-0.6B",
                                                                     "Llama-3.1-8B"]
    assert [t.get_text() for t in fig.axes[1].texts if t.get_text().startswith("at ")] == ["at 1,024"]


def test_ffn_flop_share_prediction_is_the_causal_average():
    # Llama-3.1-8B at 131,072: FFN 2·3·4096·14336·32; projections 2·4096·128·(64+16)·32;
    # scores 2·32·256·32·65,536.5; lm_head 2·128256·4096 (all by hand)
    ffn = 2 * 3 * 4096 * 14336 * 32
    total = ffn + 2 * 4096 * 128 * 80 * 32 + int(2 * 32 * 256 * 32 * 65536.5) + 2 * 128256 * 4096
    assert check("ffn-3", 100 * ffn / total)
    assert "(n+1)/2" in check("ffn-3", 13.5)


def test_gated_or_plain_is_read_from_the_tensors():
    from llmcourse.sizing import mlp_is_gated
    assert not mlp_is_gated(lc.load_model("phi-2"))                 # fc1, fc2
    assert mlp_is_gated(lc.load_model("gemma-2-2b"))                # GeGLU: gate, up, down
    phi = lc.load_model("phi-2")
    gated = ffn_attention_split(phi, mlp_cfg=with_mlp_kind(phi, MLP_KINDS[1]))
    shipped = ffn_attention_split(phi)
    assert gated["ffn_params"] == 32 * 3 * 2560 * 10240             # no biases
    assert gated["attention_params"] == shipped["attention_params"]
    assert gated["other_params"] == shipped["other_params"]        # LayerNorm, lm_head bias kept


def test_shares_never_size_a_model_past_its_context():
    # GPT-2 was trained for 1,024 positions: at "4,096" it is sized at 1,024, and says so
    t = lc.tables.ffn_share_table(["gpt2", "Llama-3.1-8B"], seq_len=4096)
    assert t.loc["gpt2", "FLOPs at (tokens)"] == "1,024 (its max)"
    assert t.loc["Llama-3.1-8B", "FLOPs at (tokens)"] == "4,096"
    fig = lc.plots.ffn_attention_share(["gpt2", "Llama-3.1-8B"], seq_len=4096)
    assert [t.get_text() for t in fig.axes[1].texts if t.get_text().startswith("at ")] == ["at 1,024"]


def test_ffn5_answer_is_the_smallest_whole_tile_width_for_8_way_tensor_parallelism():
    # derived by brute force, not from the exercise: widths at or above 8/3 x 5632 whose
    # 8 shards are whole 128-wide tiles; the design accepts those within 3% of 8/3 x hidden
    target = 8 * 5632 / 3
    fits = [w for w in range(15000, 17000) if w >= target and w % 8 == 0 and (w // 8) % 128 == 0]
    assert fits[0] == 15360
    for w in range(14000, 17500):
        assert bool(check("ffn-5", w)) == (w in fits and w <= 1.10 * target), w
    assert "14.75 × 128" in check("ffn-5", 15104) and "15.9% wider" in check("ffn-5", 17408)
    # two widths pass, and the wider one is told the narrower also splits into whole tiles
    assert [w for w in fits if check("ffn-5", w)] == [15360, 16384]
    v = check("ffn-5", 16384)
    assert "9.1%" in v and "15,360 also splits" in v
    assert "narrowest" in check("ffn-5", 15360)


def test_ffn3_names_the_32k_share_printed_above_its_exercise():
    share_32k = 100 * ffn_attention_split(lc.load_model("Llama-3.1-8B"), 32768)["ffn_flop_share"]
    verdict = check("ffn-3", round(share_32k, 1))
    assert not verdict and "32,768" in str(verdict)


def test_ffn4_gated_mlp_at_4x_has_one_and_a_half_times_the_weights():
    gemma = lc.load_model("gemma-2-2b")
    assert gemma.intermediate_size == 4 * gemma.hidden_size
    gated = lc.param_count(gemma).components["mlp"] // gemma.num_hidden_layers
    assert gated * 2 == 3 * (2 * gemma.hidden_size * 4 * gemma.hidden_size)   # 1.5x a plain 4x MLP
    assert check("ffn-4", "b") and not check("ffn-4", "a")


def test_ffn_explorer_answers_a_huge_width_quickly():
    """A reader may type any width: 10^9 (a ratio of 244,140 to hidden 4,096) must redraw
    with a handful of ticks, not one tick per 4 units of ratio (which took minutes)."""
    ex = lc.widgets.ffn_explorer("Meta-Llama-3-8B")
    ex.set(intermediate_size=10**9)
    assert ex.error == "" and ex.value("total_params") == lc.param_count(
        lc.load_model("Meta-Llama-3-8B").replace(intermediate_size=10**9)).total
    assert ex.last_seconds < 5  # a hang detector: about 0.1 s here
    assert all(len(ax.get_xticks()) <= 12 for ax in ex.fig.axes)
    ex.set(intermediate_size=14336)
    assert ex.error == ""


DENSE_05 = ["gpt2", "pythia-1b", "Qwen3-0.6B", "gemma-3-1b-it", "Llama-3.2-1B", "gemma-2-2b", "phi-2",
            "Llama-3.2-3B", "Phi-3-mini-4k-instruct", "Qwen3-4B", "OLMo-2-1124-7B-Instruct",
            "Qwen2-7B", "Llama-3.1-8B", "Qwen3-8B", "gemma-7b", "Qwen3-32B", "Meta-Llama-3-70B"]


@pytest.mark.parametrize("make", [
    lambda: lc.plots.ffn_ratios(DENSE_05),                     # the lesson's 17 models
    lambda: lc.plots.ffn_attention_share(DENSE_05[:12], seq_len=4096),
])
def test_lesson_figures_are_shown_at_full_size(make):
    """A figure taller than MAX_DISPLAY_HEIGHT is shown scaled down, its 12-pt text with
    it (the review measured 73%, about 8.7 pt): the lesson's figures fit, whole."""
    from llmcourse.plots.style import MAX_DISPLAY_HEIGHT, figure_png
    fig = make()
    w, h = fig.get_size_inches() * fig.dpi
    meta = figure_png(fig)[1]
    assert h <= MAX_DISPLAY_HEIGHT and meta == {"width": round(w), "height": round(h)}, meta
