"""Lesson 02 (GQA and the KV cache): explorer, figures, exercises, sizing helpers."""

from fractions import Fraction

import pytest

import llmcourse as lc
from llmcourse.exercises import check
from llmcourse.sizing import gqa_memory_saving, mha_baseline, plain_mha_cache_bytes
from llmcourse.widgets import EXPLORERS, kv_cache_rows, kv_variants, with_layer_pattern


# --- sizing helpers ----------------------------------------------------------------

def test_mha_baseline_has_one_kv_head_per_query_head():
    cfg = lc.load_model("Qwen2-7B")
    base = mha_baseline(cfg)
    assert base.num_key_value_heads == cfg.num_attention_heads == 28
    assert lc.kv_cache_bytes(base, 4096) == 7 * lc.kv_cache_bytes(cfg, 4096)


def test_mla_baseline_is_the_papers_mha_and_cut_is_far_more_than_70_percent():
    cfg = lc.load_model("DeepSeek-V3")
    base = mha_baseline(cfg)
    assert lc.kv_cache_bytes_per_token_per_layer(cfg) == (cfg.kv_lora_rank + cfg.qk_rope_head_dim) * 2
    assert lc.kv_cache_bytes_per_token_per_layer(base) == 2 * cfg.num_attention_heads * cfg.v_head_dim * 2
    s = gqa_memory_saving(cfg, 4096)
    assert s["cache_saving"] == 1 - Fraction(lc.kv_cache_bytes(cfg, 4096), lc.kv_cache_bytes(base, 4096))
    assert s["cache_saving"] > Fraction(98, 100)


@pytest.mark.parametrize("kv, cut", [(8, Fraction(3, 4)), (4, Fraction(7, 8))])
def test_kv_quarter_and_eighth_cut_the_cache_by_75_and_87_5_percent(kv, cut):
    cfg = lc.load_model("Meta-Llama-3-8B").replace(num_key_value_heads=kv)
    assert gqa_memory_saving(cfg, 8192, 2)["cache_saving"] == cut


def test_total_saving_band_matches_the_notebooks_closed_form():
    # the break-even in notebook 02, n >= (w - (1-s) W) / ((1-s) C - c), is where the
    # engine's saving first reaches s; 30% and 50% for Llama-3-8B's weights, by hand:
    # w = 8,030,261,248 x 2 B, W = 8,835,567,616 x 2 B, c = 131,072 B, C = 524,288 B
    cfg = lc.load_model("Llama-3.1-8B")
    w, W, c, C = 2 * 8_030_261_248, 2 * 8_835_567_616, 131_072, 524_288
    assert (lc.weight_bytes(cfg), lc.kv_cache_bytes(cfg, 1)) == (w, c)
    for s in (Fraction(3, 10), Fraction(1, 2)):
        n = -(-(w - (1 - s) * W) // ((1 - s) * C - c))   # ceiling
        assert gqa_memory_saving(cfg, n)["total_saving"] >= s > gqa_memory_saving(cfg, n - 1)["total_saving"]
    assert gqa_memory_saving(cfg, 2**40)["total_saving"] < Fraction(3, 4)  # never past the cache's


def test_sliding_layers_hold_at_most_the_window():
    g = lc.load_model("gemma-2-2b")
    full = with_layer_pattern(g, "all full attention", g.sliding_window)
    n = 131072
    per_layer = lc.kv_cache_bytes_per_token_per_layer(g)
    assert lc.kv_cache_bytes(g, n) == per_layer * (13 * 4096 + 13 * n)
    assert lc.kv_cache_bytes(full, n) == per_layer * 26 * n


# --- the explorer ----------------------------------------------------------------------

def test_kv_explorer_rows_follow_the_engine():
    ex = EXPLORERS["kv_cache"]()
    assert not ex.error
    cfg = lc.load_model("Meta-Llama-3-8B")
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(cfg, 8192, 1)
    ex.set(num_key_value_heads=2, seq_len=32768, batch=4)
    new = cfg.replace(num_key_value_heads=2)
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(new, 32768, 4)
    assert ex.value("mha_cache_bytes") == lc.kv_cache_bytes(mha_baseline(new), 32768, 4) \
        == plain_mha_cache_bytes(new, 32768, 4)   # every layer full: the two baselines agree
    assert ex.value("total_saving") == round(100 * float(gqa_memory_saving(new, 32768, 4)["total_saving"]), 1)
    assert [(r.key, r.value) for r in ex.rows] == [(r.key, r.value) for r in kv_cache_rows(new, 32768, 4)]


def test_kv_explorer_layer_pattern_and_window():
    ex = EXPLORERS["kv_cache"]()
    ex.set(layers="alternate sliding/full", sliding_window=1024, seq_len=65536)
    cfg = with_layer_pattern(lc.load_model("Meta-Llama-3-8B"), "alternate sliding/full", 1024)
    assert ex.value("sliding_layers") == 16
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(cfg, 65536)


def test_kv_explorer_invalid_window_shows_message_then_recovers():
    ex = EXPLORERS["kv_cache"]()
    assert ex.controls["sliding_window"].disabled     # no layer of Llama slides: the box is off
    ex.set(layers="alternate sliding/full")
    assert not ex.controls["sliding_window"].disabled
    before = ex.value("kv_cache_bytes")
    ex.set(sliding_window=0)
    assert "sliding_window" in ex.error and "positive" in ex.error
    assert "sliding_window" in ex.error_line.value
    assert "Traceback" not in ex.error_line.value
    assert ex.value("kv_cache_bytes") == before  # the last valid setting stays
    ex.set(sliding_window=2048)
    assert ex.error == "" and ex.error_line.value == ""
    ex.set(layers="as shipped", seq_len=16384)
    assert ex.controls["sliding_window"].disabled
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("Meta-Llama-3-8B"), 16384)


def test_kv_explorer_offers_only_the_layer_patterns_a_family_takes():
    """Nemotron as shipped (its Mamba and MLP-only blocks untouched); no sliding pattern
    for Qwen1.5-MoE, DeepSeek-V3.2 or GLM-5.1, whose families cannot take it."""
    ex = EXPLORERS["kv_cache"]()
    ex.set(model="Nemotron-3-Nano-30B-A3B")
    assert ex.error == ""
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("Nemotron-3-Nano-30B-A3B"), 8192)
    for name, offered in (("Qwen1.5-MoE-A2.7B-Chat", ["as shipped", "all full attention"]),
                          ("DeepSeek-V3.2", ["as shipped"]), ("GLM-5.1", ["as shipped"]),
                          ("Llama-3.1-8B", lc.widgets.LAYER_PATTERNS)):
        ex.set(model=name)
        assert list(ex.controls["layers"].options) == list(offered), name
        for pattern in offered:
            ex.set(layers=pattern)
            assert ex.error == "", (name, pattern, ex.error)


def test_plain_mha_keeps_each_layers_own_head_width():
    """One 'vs MHA' for the figure and the explorer: gemma-4-E2B's 28 sliding layers stay
    256 wide, its 7 full layers 512 (not all 35 at 512), every layer caching every token."""
    e2b = lc.load_model("gemma-4-E2B")
    n = 32768
    sliding, full = e2b.layer_types.count("sliding_attention"), e2b.layer_types.count("full_attention")
    by_hand = 2 * e2b.num_attention_heads * (sliding * e2b.head_dim + full * e2b.global_head_dim) * 2 * n
    assert plain_mha_cache_bytes(e2b, n) == by_hand
    ex = EXPLORERS["kv_cache"]()
    ex.set(model="gemma-4-E2B", seq_len=n)
    assert ex.value("mha_cache_bytes") == by_hand
    assert ex.value("cache_saving") == round(100 * (1 - lc.kv_cache_bytes(e2b, n) / by_hand), 1)
    assert round(by_hand / lc.kv_cache_bytes(e2b, n), 1) == 54.3


def test_kv_explorer_model_change_resets_kv_heads_and_handles_mla():
    ex = EXPLORERS["kv_cache"]()
    ex.set(model="Qwen2-7B")
    assert ex.controls["num_key_value_heads"].value == 4
    assert list(ex.controls["num_key_value_heads"].options) == lc.widgets.divisors(28)
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("Qwen2-7B"), 8192)
    ex.set(model="DeepSeek-V3")
    assert not ex.error
    assert ex.controls["num_key_value_heads"].disabled
    assert ex.value("kind") == "MLA (latent)"
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("DeepSeek-V3"), 8192)
    ex.set(model="gpt-oss-20b")
    assert ex.controls["sliding_window"].value == 128
    assert ex.value("kv_cache_bytes") == lc.kv_cache_bytes(lc.load_model("gpt-oss-20b"), 8192)


def test_kv_variants_compare_mha_mqa_and_no_window():
    g = lc.load_model("gemma-2-2b")
    labels = [label for label, _ in kv_variants(g)]
    assert labels == ["this setting (GQA: 4 KV heads of 256)", "MHA (8 KV heads of 256), same layers",
                      "MQA (1 KV head of 256), same layers", "every layer full: 4 KV heads of 256"]
    assert len(kv_variants(lc.load_model("DeepSeek-V3"))) == 2


def test_gemma4s_every_layer_full_line_caches_its_sliding_heads_in_every_layer():
    """gemma-4-31B's 60 layers with the 16 KV heads of 256 its sliding layers have, K and
    V apart: 60 x 2 x 16 x 256 x 2 B = 983,040 B a token, 0.47 GiB at 512 tokens and
    30 GiB at 32,768: more than the model as shipped (0.43 GiB at 512), never less."""
    g = lc.load_model("gemma-4-31B")
    full = dict(kv_variants(g))["every layer full: 16 KV heads of 256"]
    assert lc.kv_cache_bytes(full, 1) == 983_040
    assert lc.kv_cache_bytes(full, 32768) == 30 * 2**30
    assert all(lc.kv_cache_bytes(full, n) > lc.kv_cache_bytes(g, n) for n in (512, 4096, 32768))


def test_deepseek_v4_holds_its_weights_against_its_cache_baseline():
    """Its MHA baseline is a cache stand-in (64 heads of 512 in all 43 layers): the saving
    of weights + cache keeps V4's own weights on both sides, so it lies between the cache's
    saving and zero at every context."""
    v4 = lc.load_model("DeepSeek-V4-Flash")
    for n in (512, 8192, 262144):
        s = gqa_memory_saving(v4, n)
        assert s["mha_weights"] == s["weights"] == lc.weight_bytes(v4)
        assert 0 < s["total_saving"] < s["cache_saving"] < 1



# --- figures ---------------------------------------------------------------------------

def _check_figure(fig):
    from matplotlib.figure import Figure
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    title = ax.get_title() or (fig._suptitle.get_text() if fig._suptitle else "")
    assert title
    assert ax.get_xlabel() and ax.get_ylabel() or ax.get_xlabel()
    assert ax.get_legend() is not None or fig.legends
    from llmcourse.plots.style import png_bytes
    assert png_bytes(fig).startswith(b"\x89PNG")


def test_kv_figures():
    llama = lc.load_model("Meta-Llama-3-8B")
    _check_figure(lc.plots.kv_cache_vs_context([("GQA", llama)], weights_bytes=lc.weight_bytes(llama)))
    fig = lc.plots.kv_saving_ratios(["Meta-Llama-3-8B", "DeepSeek-V3", "gemma-2-2b"])
    _check_figure(fig)
    assert fig.axes[0].get_yticklabels()
    fig = lc.plots.gqa_total_memory_saving()
    _check_figure(fig)
    assert "%" in fig.axes[0].get_ylabel()


# --- tables ----------------------------------------------------------------------------

def test_kv_grid_marks_contexts_beyond_a_models_maximum():
    t = lc.tables.kv_cache_grid(["Meta-Llama-3-8B", "Llama-3.1-8B"], contexts=(8192, 32768),
                                batches=(1,))
    assert t.loc["Meta-Llama-3-8B", "8K × 1 (GiB)"] == "1.00"       # 131,072 B x 8,192 = 1 GiB
    assert t.loc["Meta-Llama-3-8B", "32K × 1 (GiB)"] == "4.00 †"
    assert t.loc["Llama-3.1-8B", "32K × 1 (GiB)"] == "4.00"


def test_sliding_window_table_against_hand_arithmetic():
    t = lc.tables.sliding_window_table(["gemma-2-2b", "gpt-oss-20b"], contexts=(8192, 32768))
    # gemma-2-2b at 8,192: 13 full layers hold 8,192 tokens, 13 sliding hold 4,096 -> 75%
    assert t.loc["gemma-2-2b", "8K tokens"] == "75.0%"
    assert t.loc["gemma-2-2b", "32K tokens"] == "beyond max"
    # gpt-oss-20b at 32,768: (12 x 32,768 + 12 x 128) / (24 x 32,768) = 50.2%
    assert t.loc["gpt-oss-20b", "32K tokens"] == f"{100 * (12 * 32768 + 12 * 128) / (24 * 32768):.1f}%"


def test_explorer_says_when_the_context_is_beyond_the_maximum():
    ex = EXPLORERS["kv_cache"]()
    ex.set(model="Meta-Llama-3-8B", seq_len=32768)
    row = next(r for r in ex.rows if r.key == "max_context")
    assert row.value == 8192 and "beyond" in row.text
    ex.set(seq_len=8192)
    assert "beyond" not in next(r for r in ex.rows if r.key == "max_context").text


def test_mha_and_gqa_take_the_palettes_colours_in_every_kv_figure():
    from llmcourse.plots.style import color_of
    from matplotlib.colors import to_hex
    llama = lc.load_model("Llama-3.1-8B")
    fig = lc.plots.kv_cache_vs_context([("MHA", llama.replace(num_key_value_heads=32)),
                                        ("GQA", llama)])
    colours = {ln.get_label(): to_hex(ln.get_color()) for ln in fig.axes[0].get_lines()}
    assert colours["MHA"] == to_hex(color_of("mha")) and colours["GQA"] == to_hex(color_of("gqa"))
    ex = EXPLORERS["kv_cache"]()
    lines = {ln.get_label(): to_hex(ln.get_color()) for ln in ex.fig.axes[0].get_lines()
             if ln.get_visible()}
    assert lines["MHA (32 KV heads of 128), same layers"] == to_hex(color_of("mha"))
    assert lines["this setting (GQA: 8 KV heads of 128)"] == to_hex(color_of("gqa"))


def test_ratio_figure_uses_a_linear_axis_and_fits_a_projector():
    fig = lc.plots.kv_saving_ratios(["phi-2", "Llama-3.1-8B", "DeepSeek-V3"], seq_len=8192)
    ax = fig.axes[0]
    assert ax.get_xscale() == "linear"
    assert fig.get_size_inches()[1] * fig.dpi <= 720
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("4.0×") for t in texts)              # 32 / 8 KV heads
    assert any(t.startswith(f"{65536 / 1152:.1f}×") for t in texts)  # 2·128·128 vs 512+64


def test_ratio_figure_counts_the_fixed_state_on_a_log_axis():
    """Nemotron at 32,768 tokens, by hand: plain MHA caches 29 layers x 2 x 32 heads x 128 x
    2 B a token; the model 6 layers x 2 x 2 x 128 x 2 B, plus 23 Mamba-2 states of
    64 x 64 x 128 + (64 x 64 + 2 x 8 x 128) x 4 values in bf16. DeepSeek-V4's 799x stays on
    the axis, its label inside the figure."""
    n = 32768
    plain, cache = 29 * 2 * 32 * 128 * 2 * n, 6 * 2 * 2 * 128 * 2 * n
    state = 23 * (64 * 64 * 128 + (64 * 64 + 2 * 8 * 128) * 4) * 2
    fig = lc.plots.kv_saving_ratios(["Nemotron-3-Nano-30B-A3B", "DeepSeek-V4-Flash"], seq_len=n,
                                    with_state=True, log=True)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith(f"{plain / (cache + state):.1f}×") for t in texts)   # 68.7x
    assert any(t.startswith("799.2×") for t in texts)
    assert ax.get_xlim()[1] > 799.2
    fig.canvas.draw()
    width = fig.bbox.width
    for t in ax.texts:
        box = t.get_window_extent()
        assert 0 <= box.x0 and box.x1 <= width, t.get_text()


def test_ratio_figure_sizes_no_model_past_its_context():
    # gemma-2-2b runs to 8,192 tokens: at 32K its ratio is taken at 8,192, where 13 of 26
    # layers hold 4,096 tokens: all-full MHA (8 heads) / (4 KV heads, 3/4 of the tokens)
    fig = lc.plots.kv_saving_ratios(["gemma-2-2b", "gpt2"], seq_len=32768)
    texts = [t.get_text() for t in fig.axes[0].texts]
    gemma = next(t for t in texts if "sliding" in t)
    assert gemma.startswith(f"{8 / (4 * 0.75):.1f}×") and "at 8K, its max" in gemma
    assert any(t.startswith("1.0×") and "at 1K, its max" in t for t in texts)   # GPT-2: 1,024


# --- exercises (the registry test feeds each its solution and wrong answers) -------------

def test_kv_exercises_cover_three_kinds():
    mine = lc.exercises.list_exercises(notebook="02_gqa_and_kv_cache")
    assert len(mine) >= 3 and len({ex.kind for ex in mine}) >= 3


def test_kv_derive_counts_the_twins_weights_and_cache_and_catches_the_head_dim_trap():
    """kv-1: what GQA saves against its MHA twin at 1,000 tokens, weights and cache. Qwen3-8B
    by hand: (32 - 8) x 36 layers x 2 x 128 x (4,096 + 1,000) x 2 B = 2,254,307,328 B."""
    def saved(cfg):
        fewer = cfg.num_attention_heads - cfg.num_key_value_heads
        return 2 * fewer * cfg.head_dim * cfg.num_hidden_layers * (cfg.hidden_size + 1000) * 2
    assert saved(lc.load_model("Qwen3-8B")) == 2_254_307_328
    assert check("kv-1", saved)
    assert not any(lc.load_model(c).uses_mla for c in lc.exercises.EXERCISES["kv-1"].cases
                   if isinstance(c, str))
    def hidden_over_heads(cfg):
        return saved(cfg.replace(head_dim=cfg.hidden_size // cfg.num_attention_heads))
    v = check("kv-1", hidden_over_heads)
    assert not v and "gemma-2-2b" in v and "read cfg.head_dim" in v
    def cache_only(cfg):
        fewer = cfg.num_attention_heads - cfg.num_key_value_heads
        return 2 * fewer * cfg.head_dim * cfg.num_hidden_layers * 1000 * 2
    v = check("kv-1", cache_only)
    assert not v and "k_proj and v_proj" in v


def test_shrink_derive_is_plain_mha_at_each_layers_width():
    """shrink-1: plain MHA's bytes per token. gemma-4-E2B by hand: 8 heads x (28 x 256 +
    7 x 512) x 2 x 2 B = 344,064; its own KV heads (1) instead are 8x too few."""
    def plain(cfg):
        if cfg.uses_mla:
            widths = [cfg.v_head_dim] * cfg.num_hidden_layers
        else:
            wide = cfg.get("global_head_dim") or cfg.head_dim
            widths = [wide if t == "full_attention" else cfg.head_dim for t in cfg.layer_types]
        return sum(2 * cfg.num_attention_heads * w * 2 for w in widths)
    assert plain(lc.load_model("gemma-4-E2B")) == 8 * (28 * 256 + 7 * 512) * 2 * 2 == 344_064
    assert check("shrink-1", plain)
    v = check("shrink-1", lambda cfg: plain(cfg) // cfg.num_attention_heads
              * cfg.num_key_value_heads)
    assert not v and "gemma-4-E2B" in v and "every query head" in v
    def one_width(cfg):
        return 2 * cfg.num_attention_heads * (cfg.v_head_dim if cfg.uses_mla else cfg.head_dim) \
            * 2 * cfg.num_hidden_layers
    v = check("shrink-1", one_width)
    assert not v and "global_head_dim" in v


def test_kv_design_accepts_every_fitting_count():
    # 2 x 32 x 128 x 2 B x 32,768 x 16 = 8 GiB per KV head: 1, 2 and 4 fit under 40 GiB
    for n in (1, 2, 4):
        assert check("kv-3", n)
    assert "largest" in check("kv-3", 4) and "larger" in check("kv-3", 2)
    assert "64.0 GiB" in check("kv-3", 8)
    v = check("kv-3", 5)          # 5 x 8 GiB: exactly the budget, and 5 does not divide 32
    assert not v and "does not divide" in v and "exactly 40 GiB, not under it" in v
    assert "24 GiB, under 40" in check("kv-3", 3)


def test_kv_predict_expected_values_by_hand():
    # Qwen3-8B: 2 x 36 x 8 x 128 values x 1 B x 40,960 x 4 / 2**30 = 11.25 GiB
    assert check("kv-2", 11.25)
    assert "bf16" in check("kv-2", 22.5)


def test_explorer_shows_qwen3_next_state_beside_its_cache():
    ex = EXPLORERS["kv_cache"]()
    ex.set(model="Qwen3-Next-80B-A3B", seq_len=32768, batch=2)
    assert not ex.error
    q = lc.load_model("Qwen3-Next-80B-A3B")
    # 12 full layers x 2 (K, V) x 2 KV heads x 256 x 2 B per token
    assert ex.value("kv_cache_bytes") == 12 * 2 * 2 * 256 * 2 * 32768 * 2
    # 36 linear layers x (32 x 128 x 128 + (2 x 16 x 128 + 32 x 128) x 4) values x 2 B x batch 2
    state = 36 * (32 * 128 * 128 + (2 * 16 * 128 + 32 * 128) * 4) * 2 * 2
    assert ex.value("linear_state_bytes") == state == lc.linear_state_bytes(q, 2)
    assert "36 linear" in next(r.text for r in ex.rows if r.key == "sliding_layers")
    flat = [ln for ln in ex.fig.axes[0].get_lines()
            if ln.get_visible() and "fixed state" in ln.get_label()]
    assert len(flat) == 1 and len(set(flat[0].get_ydata())) == 1
    ex.set(seq_len=131072)
    assert ex.value("linear_state_bytes") == state              # constant in context
    ex.set(model="Llama-3.1-8B")
    assert ex.value("linear_state_bytes") == 0


def test_gemma3_keeps_one_sixth_of_the_full_cache_at_32k():
    g = lc.load_model("gemma-3-1b-it")   # 22 sliding (window 512) + 4 full layers, MQA of 256
    per = 2 * 1 * 256 * 2
    assert lc.kv_cache_bytes(g, 32768) == per * (4 * 32768 + 22 * 512)
    t = lc.tables.sliding_window_table(["gemma-3-1b-it"], contexts=(32768,))
    assert t.loc["gemma-3-1b-it", "32K tokens"] == f"{100 * (4 * 32768 + 22 * 512) / (26 * 32768):.1f}%"


def test_kv4_feedback_numbers_by_hand():
    # Llama-3.1-8B: 8,030,261,248 parameters (its model card); MHA adds k_proj and v_proj
    # rows for 24 more KV heads of 128 in each of 32 layers; bf16 weights and cache
    mha_weights = (8_030_261_248 + 2 * 32 * 4096 * 24 * 128) * 2
    gqa_weights = 8_030_261_248 * 2
    mha_cache, gqa_cache = (2 * 32 * kv * 128 * 2 * 512 for kv in (32, 8))
    assert f"{mha_weights / 1e9:.2f}" == "17.67" and f"{mha_cache / 1e9:.2f}" == "0.27"
    mha_read, gqa_read = mha_weights + mha_cache, gqa_weights + gqa_cache
    assert (f"{mha_read / 1e9:.2f}", f"{gqa_read / 1e9:.2f}") == ("17.94", "16.13")
    assert f"{mha_read / gqa_read:.2f}" == "1.11"
    text = str(check("kv-4", "c"))
    assert all(s in text for s in ("17.94", "16.13", "17.67", "0.27", "1.11×"))
    assert lc.weight_bytes(lc.load_model("Llama-3.1-8B").replace(num_key_value_heads=32)) == mha_weights


def test_mla_cache_equals_what_transformers_caches_for_deepseek_v3():
    """Run a tiny DeepSeek-V3 on the CPU: transformers caches the latent (kv_lora_rank)
    and the shared RoPE key, one 'head' each: the numbers kv_cache_bytes(fp32)/4 says."""
    import torch
    from transformers import AutoModelForCausalLM

    import transformers_ref
    d = {"model_type": "deepseek_v3", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 16,
         "moe_intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 4, "kv_lora_rank": 16, "q_lora_rank": 12, "qk_rope_head_dim": 4,
         "qk_nope_head_dim": 8, "v_head_dim": 6, "n_routed_experts": 4, "num_experts_per_tok": 2,
         "n_shared_experts": 1, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1}
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(transformers_ref.hf_config(d)).eval()
    seq, batch = 5, 2
    with torch.no_grad():
        out = model(torch.randint(0, 64, (batch, seq)), use_cache=True)
    cached = sum(t.numel() for layer in out.past_key_values.layers
                 for t in (layer.keys, layer.values))
    assert cached == batch * seq * 2 * (16 + 4)        # 2 layers x (latent + rope key)
    assert cached == lc.kv_cache_bytes(lc.from_hf_config(d), seq, batch, "fp32") // 4


def test_sliding_layers_hold_the_window_a_step_attends_to_one_more_than_transformers_keeps():
    """Lesson 2 counts W tokens per sliding layer once the window is full: a query attends
    to itself and the W - 1 tokens before it. transformers keeps those W - 1 between steps
    and appends the new token's K and V during the step; the notebook says so."""
    import torch
    from transformers import AutoModelForCausalLM

    import transformers_ref
    d = {"model_type": "gemma3_text", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 16,
         "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2,
         "head_dim": 8, "sliding_window": 4, "max_position_embeddings": 64}
    cfg = lc.from_hf_config(d)
    sliding = cfg.layer_types.count("sliding_attention")
    assert sliding == 5                                 # Gemma-3's 5 local : 1 global
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(transformers_ref.hf_config(d)).eval()
    seq = 10
    with torch.no_grad():
        out = model(torch.randint(0, 64, (1, seq)), use_cache=True)
    kept = [layer.keys.shape[-2] for layer in out.past_key_values.layers]
    assert kept == [3] * 5 + [10]                      # W - 1 per sliding layer, n for the full one
    per_token = 2 * 2 * 8                               # K and V, 2 KV heads of 8, one layer
    transformers_values = per_token * sum(kept)
    assert lc.kv_cache_bytes(cfg, seq, 1, "fp32") // 4 == transformers_values + per_token * sliding


# --- lessons 3 and 4: the exercises' numbers by hand ---------------------------------------

def test_state1_is_the_dsa_ratio_by_the_lessons_cost_model():
    # per layer: V3 reads 4,096 keys at 2*128*(192+128); V3.2 reads 2,048 and its indexer
    # scores all 4,096 at 2*64*(128+1)
    by_hand = 81920 * 4096 / (81920 * 2048 + 16512 * 4096)
    assert abs(lc.exercises.EXERCISES["state-1"].expected() - by_hand) < 1e-12
    assert check("state-1", 1.43) and not check("state-1", 2.0)


def test_state3_accepts_every_interval_that_fits_and_keeps_a_full_layer():
    # a full layer: 2 * 2 KV heads * 256 * 2 B = 2 KiB a token, 4 GiB at 8 x 262,144 tokens
    for k in (13, 14, 15, 16):
        assert check("state-3", k), k
    assert "16.37 GiB" in check("state-3", 12)          # 4 full layers: over 16 GiB
    assert "keep at least one" in check("state-3", 49)   # no full layer left
    assert "would keep 3 full layers" in check("state-3", 24)


def test_shrink4_window_doubling_by_hand():
    g = lc.load_model("gemma-3-1b-it")
    n = 32768
    before = lc.kv_cache_bytes(g, n)
    after = lc.kv_cache_bytes(g.replace(sliding_window=2 * g.sliding_window), n)
    assert round(100 * (after / before - 1)) == 8          # the "about 8%" of option (a)
    assert lc.exercises.EXERCISES["shrink-4"].correct == "a"


def test_state2_is_kimi_linears_kda_state_by_hand():
    """20 KDA layers x (32 heads x 128 x 128 + 3 x 32 x 128 x 4 conv inputs) x 2 B."""
    assert lc.exercises.EXERCISES["state-2"].reference(
        lc.load_model("Kimi-Linear-48B-A3B-Instruct")) == 20 * (32 * 128 * 128 + 3 * 32 * 128 * 4) * 2
    v = check("state-2", lambda cfg: 0 if "linear_attention" not in cfg.layer_types else
              cfg.layer_types.count("linear_attention") * 32 * 128 * 128 * 2)
    assert not v and "short convolution" in v


def test_shrink3_and_state3_say_what_a_looser_answer_gives_up():
    # gemma-4-E2B: 30 shared layers fit, and so do 26, which keep 4 more layers' own K and V
    v = check("shrink-3", 30)
    assert v and "26 shared layers fit too" in v and "4 more layers" in v
    assert "fit too" not in check("shrink-3", 26)
    # Qwen3-Next: an interval of 30 keeps one full layer ("1 full layer", not "layers")
    v = check("state-3", 30)
    assert v and "1 full layer," in v and "as short as 13" in v
