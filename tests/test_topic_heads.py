"""Lesson 1 (heads and head_dim): the explorer follows the engine, figures are
labelled, the shape table's claims are checked against the engine, the exercises'
answers agree with hand arithmetic."""

import pytest

import llmcourse as lc

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
    # 2 (K and V) x 32 layers x 8 KV heads x head_dim 64 x 2 bytes (bf16)
    assert ex.value("kv_bytes_per_token") == 2 * 32 * 8 * 64 * 2
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


def test_the_kv_slider_offers_only_divisors_of_the_heads(ex):
    """Fewer query heads than KV heads cannot exist: the KV slider follows the head count
    (the largest divisor at or below the KV count it had), so no menu offers an error."""
    ex.set(num_attention_heads=4)     # 8 KV heads cannot serve 4 query heads
    assert ex.error == ""
    assert list(ex.controls["num_key_value_heads"].options) == [1, 2, 4]
    assert ex.controls["num_key_value_heads"].value == 4
    cfg = lc.load_model("Meta-Llama-3-8B").replace(num_attention_heads=4, num_key_value_heads=4)
    assert ex.value("attention_per_layer") == attention_per_layer(cfg)
    ex.set(num_attention_heads=16)    # 4 divides 16: kept
    assert ex.controls["num_key_value_heads"].value == 4
    assert list(ex.controls["num_key_value_heads"].options) == lc.widgets.divisors(16)


def test_gpt2_is_mha_only_as_in_transformers(ex):
    """transformers' GPT2Config has no num_key_value_heads: the explorer offers no GQA."""
    ex.set(model="gpt2")
    kv = ex.controls["num_key_value_heads"]
    assert kv.disabled and list(kv.options) == [12]
    ex.set(num_attention_heads=6)
    assert ex.error == "" and ex.value("kind") == "MHA"


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
    assert ax.get_legend() is not None or fig.legends
    assert lc.plots.png_bytes(fig)[:4] == b"\x89PNG"


def test_sweep_is_engine_what_ifs():
    cfg = lc.load_model("Meta-Llama-3-8B")
    sweep = lc.plots.head_count_sweep(cfg)
    assert set(sweep["mha"][1]) == {4 * 4096 ** 2}
    for h, n in zip(*sweep["fixed"]):
        assert n == attention_per_layer(cfg.replace(num_attention_heads=h, head_dim=128))


def test_shape_table_claims_flags_the_known_errors():
    t = lc.tables.shape_table_claims()
    assert not any("seed" in c.lower() for c in t.columns)
    bad = t[t["check"].str.startswith("✗")]
    assert set(bad["model (as named)"]) == {"Qwen3 8B", "Gemma-2 2B"}
    gemma = t[(t["model (as named)"] == "Gemma-2 2B") & (t["tensor (as named)"] == "q/o")].iloc[0]
    # 8 heads × head_dim 256 = 2,048 out of hidden 2,304
    assert "q_proj (2048, 2304)" in gemma["Hub file"] == gemma["transformers 5 module"]
    phi = t[(t["model (as named)"] == "Phi-2 (2.7B)") & (t["tensor (as named)"] == "gate/up")].iloc[0]
    assert "fc1" in phi["Hub file"] and "GELU" in phi["check"]
    # gpt-oss fuses gate and up: the real tensor is 2,880 x 5,760 per expert (the table's
    # 2,880 x 2,880 is right for each projection)
    oss = t[(t["model (as named)"] == "GPT-OSS 20B (MoE)")
            & (t["tensor (as named)"] == "expert gate/up")].iloc[0]
    assert oss["real (in × out)"] == "gate_up_proj 2,880 × 5,760"
    assert oss["transformers 5 module"] == "gate_up_proj (32, 2880, 5760)"
    # the Hub file keeps it in MXFP4: (experts, out rows, in / 32 blocks, 16 bytes) + scales
    assert oss["Hub file"].startswith("gate_up_proj_blocks (32, 5760, 90, 16)")
    assert oss["check"].startswith("✓") and "interleaved" in oss["check"]
    # Mixtral's file keeps w1 and w3 per expert; transformers 5 merges them on load
    mix = t[(t["model (as named)"] == "Mixtral 8x7B (MoE)")
            & (t["tensor (as named)"] == "expert gate/up")].iloc[0]
    assert mix["Hub file"] == "w1 (14336, 4096); w3 (14336, 4096)"
    assert mix["transformers 5 module"] == "experts.gate_up_proj (8, 28672, 4096)"
    assert lc.load_model("Qwen3-8B").intermediate_size == 12288
    assert lc.load_model("Qwen3-8B").num_hidden_layers == 36


def test_head_dim_table():
    t = lc.tables.head_dim_table()
    assert t.loc["Qwen3-0.6B", "heads×head_dim"] == "2,048"
    assert t.loc["Qwen3-0.6B", "= hidden_size?"] == "no"
    assert t.loc["gemma-2-2b", "head_dim in 64–128?"] == "no"
    assert t.loc["Meta-Llama-3-8B", "= hidden_size?"] == "yes"
    # Mistral-Nemo: 32 heads × 128 = 4,096 next to hidden 5,120
    assert t.loc["Mistral-Nemo-Base-2407", "heads×head_dim"] == "4,096"
    assert t.loc["Mistral-Nemo-Base-2407", "= hidden_size?"] == "no"
    # MLA's column is its q/k width, 128 + 64, and says so (its config's head_dim is 64)
    assert t.loc["DeepSeek-V3", "head_dim"] == "192 (q/k)"
    only = lc.tables.head_dim_table(mismatches_only=True)
    assert "Meta-Llama-3-8B" not in only.index and "Mistral-Nemo-Base-2407" in only.index
    assert set(only.index) == {m for m in t.index if t.loc[m, "= hidden_size?"] == "no"}
    wrong = lc.tables.shape_table_claims(wrong_only=True)   # Qwen3 8B's MLP twice, Gemma-2's q/o
    assert list(wrong["model (as named)"]) == ["Qwen3 8B", "Qwen3 8B", "Gemma-2 2B"]


def test_qkvo_bars_are_shares():
    cfgs = [lc.load_model("Meta-Llama-3-70B"), lc.load_model("Llama-3.2-1B")]
    fig = lc.plots.qkvo_bars(cfgs)
    ax = fig.axes[0]
    assert ax.get_xlim() == (0.0, 100.0)
    # every model's four segments add up to 100% (its own q/k/v/o), whatever its size
    ends = {}
    for bar in ax.patches:
        y = round(bar.get_y() + bar.get_height() / 2)
        ends[y] = max(ends.get(y, 0), bar.get_x() + bar.get_width())
    assert all(abs(v - 100) < 1e-9 for v in ends.values()) and len(ends) == 2
    # Meta-Llama-3-70B: q is 8,192 × 8,192 of 2·8192·128·(64 + 8): 44.4%
    texts = [t.get_text() for t in ax.texts]
    assert "q 44.4%" in texts


def test_exercise_answers_by_hand():
    ex = lc.exercises.EXERCISES
    assert ex["heads-1"].expected() == 4 * 4096 * 4096        # MHA: 4·d² for any head count
    assert ex["heads-2"].expected() == 8 * 256 * 2304           # gemma-2-2b q_proj
    # h_d·(n_h + n_kv) = 6,144 with n_h | 4,096 and n_kv | n_h: three designs
    for n_h, n_kv, h_d in ((32, 16, 128), (32, 32, 96), (64, 32, 64)):
        assert lc.exercises.check("heads-4", dict(num_attention_heads=n_h,
                                                  num_key_value_heads=n_kv, head_dim=h_d))
    # 40 heads of 128 with 8 KV heads meet the budget, but 40 does not divide 4,096: refused,
    # as transformers' LlamaConfig refuses it
    v = lc.exercises.check("heads-4", dict(num_attention_heads=40, num_key_value_heads=8,
                                           head_dim=128))
    assert not v and "divisible by num_attention_heads=40" in v
    kinds = {e.kind for e in lc.exercises.list_exercises("01_heads_and_head_dim")}
    assert kinds == {"predict", "derive", "design", "concept"}


def test_heads2_slips_get_their_own_feedback():
    from llmcourse.exercises import check
    # gemma-2-2b q_proj is (8 x 256, 2,304): a square 2,048 x 2,048 forgets the input side,
    # twice 2,048 x 2,304 counts o_proj as well
    assert "input is hidden_size" in check("heads-2", 2_048 * 2_048)
    assert "o_proj" in check("heads-2", 2 * 2_048 * 2_304)


def test_kv_row_counts_only_the_layers_that_cache():
    """Qwen3-Next keeps a KV cache in its 12 full-attention layers only (the other 36 are
    linear attention with a fixed state): 2 x 12 x 2 KV heads x 256 x 2 bytes per token."""
    ex = lc.widgets.heads_explorer("Qwen3-Next-80B-A3B")
    assert ex.error == ""
    assert ex.value("kv_bytes_per_token") == 2 * 12 * 2 * 256 * 2


def test_heads_explorer_reads_a_wrappers_head_dim_from_its_language_model():
    """gemma-4-31B's text_config states head_dim 256 (its outer config states none):
    32 x 256 = 8,192, not 5,376 / 32 = 168, and q_proj is (8,192, 5,376)."""
    ex = lc.widgets.heads_explorer("gemma-4-31B")
    assert ex.error == "" and ex.value("head_dim") == 256
    assert ex.value("heads_x_head_dim") == 32 * 256
    assert ex.value("q_proj") == 32 * 256 * 5376
    assert ex.value("total") == lc.param_count(lc.load_model("gemma-4-31B")).total


def test_heads3_counts_gpt_oss_biases_and_sinks_by_hand():
    """gpt-oss-20b: q (64 x 64, 2,880), k and v (8 x 64, 2,880), o (2,880, 4,096); biases
    4,096 + 512 + 512 + 2,880 = 8,000; 64 sinks."""
    weights = 4096 * 2880 + 2 * 512 * 2880 + 2880 * 4096
    ex = lc.exercises.EXERCISES["heads-3"]
    assert ex.reference(lc.load_model("gpt-oss-20b")) == weights + 8000 + 64 == 26_550_144
    v = lc.exercises.check("heads-3", lambda cfg: ex.solution(cfg) - cfg.num_attention_heads)
    assert not v and "sinks" in v
