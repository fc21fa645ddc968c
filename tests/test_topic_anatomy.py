"""Lesson 0 (anatomy): the explorer follows the engine, figures are labelled,
tables agree with the engine, the lesson's formulas and the exercises' answers agree
with hand arithmetic."""

import pytest

import llmcourse as lc
from llmcourse.towers import checkpoint_name

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
    listing = lc.tables.weight_listing(q)
    assert len(listing) == len(lc.weight_shapes(q)) == 311
    assert listing.iloc[-1]["note"] == "tied to model.embed_tokens.weight"
    top = lc.tables.top_tensors(q, 20)
    # 151,936 × 1,024 × 2 bytes = 311,164,928 B: 296.75 MiB (2**20 B), 311.16 MB (10**6 B)
    assert len(top) == 20 and top.iloc[0]["MiB (bf16)"] == "296.75" and top.iloc[0]["MB (bf16)"] == "311.16"
    trace = lc.tables.decoder_trace(lc.load_model("Llama-3.2-3B"))
    ws = lc.weight_shapes(lc.load_model("Llama-3.2-3B")).set_index("name")
    for _, row in trace[trace["tensor (checkpoint name)"] != ""].iterrows():
        assert row["tensor (checkpoint name)"] in ws.index
    assert trace["operation"].str.contains("causal softmax").sum() == 1
    with pytest.raises(ValueError):
        lc.tables.decoder_trace(lc.load_model("DeepSeek-V3"))
    # every zoo model is traced with its real tensors or refused in one line, never a KeyError
    for name in lc.list_models():
        cfg = lc.load_model(name)
        try:
            t = lc.tables.decoder_trace(cfg)
        except ValueError as e:
            assert str(e).startswith("model: decoder_trace covers") and cfg.model_type in str(e)
            continue
        ws_m = set(lc.weight_shapes(cfg)["name"])
        first = checkpoint_name(cfg, "model.layers.0.")   # a wrapper's own prefix
        layer0 = {n for n in ws_m if n.startswith(first)}
        named = set(t["tensor (checkpoint name)"]) - {""}
        assert named <= ws_m and layer0 <= named, name  # all of layer 0's tensors, no others
    # SmolLM3 leaves RoPE out of every fourth layer (its no_rope_layers pattern 1,1,1,0)
    smol = lc.load_model("SmolLM3-3B")
    assert lc.tables.decoder_trace(smol, layer=3)["operation"].str.contains("NoPE").sum() == 1
    assert lc.tables.decoder_trace(smol, layer=0)["operation"].str.contains("NoPE").sum() == 0
    html = lc.tables.layer_view(lc.load_model("Llama-3.2-3B")).data
    # one layer by hand: 2·3072·128·(24 + 8) + 3·3072·8192 + 2·3072
    assert html.count("<details") == 28 and "100,669,440 parameters" in html


def test_layer_kind_names_the_mlp_each_family_has():
    kind = lc.tables.layer_kind
    assert kind(lc.load_model("gemma-2-2b"), 0).endswith("GeGLU MLP (tanh GELU)")
    assert "sliding window 4,096" in kind(lc.load_model("gemma-2-2b"), 0)
    assert kind(lc.load_model("Llama-3.2-3B"), 0) == "GQA 24:8 · SwiGLU MLP"
    assert "GELU MLP (fc1, fc2" in kind(lc.load_model("phi-2"), 0)
    # plain MLPs are not gated, whatever their names (GPT-2's c_fc and c_proj, Pythia's)
    assert kind(lc.load_model("gpt2"), 0).endswith(
        "GELU MLP (c_fc, c_proj, with biases; tanh GELU)")
    assert kind(lc.load_model("pythia-1b"), 0).endswith(
        "GELU MLP (dense_h_to_4h, dense_4h_to_h, with biases)")
    assert kind(lc.load_model("starcoder2-15b"), 0).endswith(
        "GELU MLP (c_fc, c_proj, with biases; tanh GELU)")
    ex = lc.widgets.EXPLORERS["layer_anatomy"]()
    ex.set(model="gemma-2-2b")
    assert "GeGLU" in ex.value("kind") and "SwiGLU" not in ex.value("kind")


def test_widgets_hold_widgets_only():
    """Presentation tables live in lc.tables, not in lc.widgets."""
    for name in ("decoder_trace", "layer_view", "weight_listing", "top_tensors",
                 "tied_count_table", "head_dim_table", "seed000_table", "mha_split_table"):
        assert not hasattr(lc.widgets, name), name


def test_lesson_formulas_by_hand():
    """The notebook's derivation, checked here against the engine on every dense
    Llama/Qwen3/Mistral model of the zoo (the notebook checks one)."""
    for name in lc.list_models():
        cfg = lc.load_model(name)
        if cfg.model_type not in ("llama", "qwen3", "mistral", "qwen2") or cfg.is_moe:
            continue
        d, hd = cfg.hidden_size, cfg.head_dim
        nh, nkv = cfg.num_attention_heads, cfg.num_key_value_heads
        layer = 2 * d * hd * (nh + nkv) + 3 * d * cfg.intermediate_size + 2 * d \
            + (2 * hd if cfg.model_type == "qwen3" else 0) \
            + ((nh + 2 * nkv) * hd if cfg.model_type == "qwen2" else 0)   # q, k, v biases
        emb = cfg.vocab_size * d
        total = emb + cfg.num_hidden_layers * layer + d + (0 if cfg.tie_word_embeddings else emb)
        assert total == lc.param_count(cfg).total, name


def test_exercise_answers_by_hand():
    ex = lc.exercises.EXERCISES
    # Llama-3.2-1B's state dict lists the tied 128,256 × 2,048 matrix twice
    assert ex["anatomy-1"].expected() == 1_235_814_400 + 128_256 * 2_048
    # Qwen3-0.6B in bf16, tied matrix once: 596,049,920 × 2 B in MiB
    assert ex["anatomy-3"].expected() == 596_049_920 * 2 / 2**20
    # anatomy-2 runs on phi-2, whose LayerNorm and linear biases and untied lm_head bias the
    # lesson never counts. By hand (the model card's 2.7B; transformers counts the same in
    # tests/test_exact_vs_transformers.py): a layer is 4 x 2,560² + 4 x 2,560 (q, k, v, dense
    # with biases) + 2 x 2,560 x 10,240 + 10,240 + 2,560 (fc1, fc2 with biases) + 2 x 2,560
    # (one LayerNorm); 32 of them, the embedding and lm_head 51,200 x 2,560 each, lm_head's
    # bias 51,200, the final LayerNorm 2 x 2,560
    d, ff, V = 2560, 10240, 51200
    layer = 4 * d * d + 4 * d + 2 * d * ff + ff + d + 2 * d
    assert "phi-2" in ex["anatomy-2"].cases
    assert ex["anatomy-2"].reference(lc.load_model("phi-2")) == 32 * layer + 2 * V * d + V + 2 * d \
        == 2_779_683_840
    assert {e.kind for e in lc.exercises.list_exercises("00_start_here_anatomy")} == \
        {"predict", "derive", "design", "concept"}
    # anatomy-5 by hand: untying adds 128,256 x 3,072; one layer is 100,669,440
    layer = 2 * 3072 * 128 * (24 + 8) + 3 * 3072 * 8192 + 2 * 3072
    assert layer == 100_669_440
    untied_24 = 3_212_749_824 + 128_256 * 3072 - 4 * layer
    assert abs(untied_24 / 3_212_749_824 - 1) < 0.01
    assert ex["anatomy-5"].validate({"tie_word_embeddings": False, "num_hidden_layers": 24})[0]
    assert "12.3%" in check_text("anatomy-5", {"tie_word_embeddings": False})


def check_text(id, answer):
    return str(lc.exercises.check(id, answer))


def test_common_slips_get_their_own_feedback():
    from llmcourse.exercises import check
    c = lc.load_model("Llama-3.2-1B")
    # the state-dict sum without its RMSNorm weights (2 per layer + the final norm)
    no_norms = 1_498_482_688 - 2_048 * (2 * 16 + 1)
    assert "RMSNorm" in check("anatomy-1", no_norms)
    assert c.num_hidden_layers == 16 and c.hidden_size == 2_048
    # Qwen3-0.6B in GiB where MiB was asked: 596,049,920 x 2 / 2**30
    assert "GiB" in check("anatomy-3", 596_049_920 * 2 / 2**30)


def test_layer_kinds_say_what_the_layer_is():
    """Review: Qwen3-Next's linear-attention layers read 'GQA 16:2' and its shared expert
    was not named; MLA models left the KV-heads box live."""
    from llmcourse.tables.anatomy import layer_kind, shape_text
    nxt = lc.load_model("Qwen3-Next-80B-A3B")
    assert nxt.layer_types[0] == "linear_attention" and nxt.layer_types[3] == "full_attention"
    assert layer_kind(nxt, 0).startswith("gated DeltaNet (linear attention)")
    assert "GQA" not in layer_kind(nxt, 0) and layer_kind(nxt, 3).startswith("GQA 16:2")
    assert "1 shared expert" in layer_kind(nxt, 0)
    assert "shared" not in layer_kind(lc.load_model("Qwen3-30B-A3B"), 0)
    assert shape_text((128256, 3072)) == "(128256, 3072)" and shape_text((7,)) == "(7,)"
    w = lc.widgets.layer_anatomy_explorer()
    assert not w.controls["num_key_value_heads"].disabled
    w.set(model="DeepSeek-V3")
    assert w.controls["num_key_value_heads"].disabled
    w.set(model="Qwen3-0.6B")
    assert not w.controls["num_key_value_heads"].disabled
