"""The 2026 families built on DeepSeek's MLA, on large MoEs and on Mamba-2 (issue 21):
GLM-4.7-Flash (glm4_moe_lite), Mistral Small 4 (mistral4), DeepSeek-V3.2 and GLM-5
(deepseek_v32, glm_moe_dsa: DeepSeek Sparse Attention with a lightning indexer), Kimi K2.5
(kimi_k25, a wrapper around DeepSeek-V3's layout), MiniMax-M2 (minimax_m2), Nemotron 3
(nemotron_h: Mamba-2, attention and MoE blocks), OLMo 3 (olmo3: three sliding-window
layers to one full), Ministral 3 (ministral3, in a mistral3 vision wrapper), Seed-OSS
(seed_oss: a fixture, its config reconstructed), Kimi-Linear (kimi_linear: Kimi Delta
Attention beside MLA), DeepSeek-V4 (deepseek_v4: a sliding K = V head plus compressed
entries) and Gemma 4
(gemma4_text: KV shared across layers, K = V, per-layer head widths, per-layer embeddings).

Their real configs sit in the zoo, where tests/test_exact_vs_transformers.py and
tests/test_roundtrip_transformers.py hold every count against transformers' meta build
and its saved form. Here: the published sizes, random configs of each new type against
the meta build, the forms transformers writes back (mlp_layer_types, indexer_types,
indexed_attention), the cache a tiny model holds after a CPU prefill, and the sparse
attention's FLOPs derived by hand.
"""

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent / "fixtures"

# published sizes (model cards): total and active parameters, to the digits published.
# GLM-4.7-Flash's "30B-A3B" is a name: its active count with the embedding and head is 3.9B.
# MiniMax counts its "10B" active without the embedding and the head (1.2B of 200,064 x 3,072)
PUBLISHED = {"GLM-4.7-Flash": ("30B", None), "DeepSeek-V4-Flash": ("284B", "13B"), "Kimi-Linear-48B-A3B-Instruct": ("48B", "3B"), "gemma-4-26B-A4B": ("25.2B", "3.8B"),
             "gemma-4-31B": ("31B", None), "Nemotron-3-Nano-30B-A3B": ("31.6B", "3.6B"), "GLM-5.1": ("744B", "40B"),
             "DeepSeek-V3.2": ("671B", "37B"), "Kimi-K2.5": ("1T", "32B"),
             "MiniMax-M2.7": ("230B", "10B")}


def _meta_counts(d):
    m = transformers_ref.meta_model(d)
    return sum(p.numel() for p in m.parameters()), transformers_ref.routed_expert_params(m)


def _active(total, routed, cfg):
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    return total - routed // E * (E - k)


def _counts_as_built(d):
    """The engine's total and active parameters of ``d`` equal transformers' meta build."""
    cfg = lc.from_hf_config(d)
    total, routed = _meta_counts(d)
    pc = lc.param_count(cfg)
    assert pc.total == total
    assert pc.active == (_active(total, routed, cfg) if cfg.is_moe else total)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_zoo_models_have_their_published_sizes(name):
    """Within the rounding of the model card (the card's "1T" is 1.03T)."""
    pc = lc.param_count(name)
    active = pc.active - (pc.components["embedding"] + pc.components["lm_head"]
                          if name.startswith("MiniMax") else 0)
    for count, text in zip((pc.total, active), PUBLISHED[name]):
        if text is None:
            continue
        unit = {"T": 1e12, "B": 1e9}[text[-1]]
        assert abs(count / unit - float(text[:-1])) < 0.05 * float(text[:-1]) + 0.5, (count, text)


def test_mistral_small_4_class_defaults_count_as_built():
    """Mistral Small 4 ships as a mistral3 vision wrapper we do not reproduce; its text
    model here is transformers 5.23's Mistral4Config() (the checkpoint its docstring
    names), kept as a test fixture and not in the zoo. It matches the published
    119B total and 6.63B active, and transformers' Mistral4ForCausalLM exactly."""
    d = json.loads((FIXTURES / "mistral4_class_defaults.json").read_text(encoding="utf-8"))
    cfg = lc.from_hf_config(d)
    total, routed = _meta_counts(d)
    pc = lc.param_count(cfg)
    assert (pc.total, pc.active) == (total, _active(total, routed, cfg))
    assert round(pc.total / 1e9) == 119 and round(pc.active / 1e9, 2) == 6.63


@pytest.mark.parametrize("fixture", ["mistral4_class_defaults.json",
                                     "seed_oss_36b_reconstruction.json"])
def test_fixture_configs_count_the_same_once_saved(fixture, tmp_path):
    """The two 2026 configs kept as fixtures, shrunk to 3 layers and 8 experts, written back by
    transformers' save_pretrained: the engine counts the saved form as the original."""
    d = json.loads((FIXTURES / fixture).read_text(encoding="utf-8"))
    d["num_hidden_layers"] = 3
    if "n_routed_experts" in d:
        d.update(n_routed_experts=8, num_experts_per_tok=2)
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    a, b = lc.from_hf_config(d), lc.from_hf_config(saved)
    assert lc.param_count(a).total == lc.param_count(b).total == _meta_counts(d)[0]
    assert lc.param_count(a).active == lc.param_count(b).active
    assert lc.kv_cache_bytes(a, 4096) == lc.kv_cache_bytes(b, 4096)


def test_dsa_layers_have_an_indexer_and_its_tensors():
    cfg = lc.load_model("DeepSeek-V3.2")
    assert cfg.layer_types.counts() == {"indexed_attention": 61}
    assert cfg.layer_schedule.count(indexer=True) == 61
    ws = lc.weight_shapes(cfg)
    row = ws[ws["name"] == "model.layers.0.self_attn.indexer.wq_b.weight"].iloc[0]
    assert row["shape"] == (64 * 128, 1536)  # index_n_heads x index_head_dim, from the q latent
    _, meta, _ = transformers_ref.zoo_meta("DeepSeek-V3.2")
    mtp = ws["note"].str.contains("mtp")  # the MTP layer (61) is listed, with its indexer
    assert any(".indexer." in n for n in ws[mtp]["name"])
    for n in ws[~mtp]["name"]:
        if ".indexer." in n:
            assert n in meta, n


def test_glm5_shared_indexer_layers_hold_no_indexer():
    """GLM-5's indexer_types: a "shared" layer reuses the previous layer's top-k and has no
    indexer weights or indexer cache of its own."""
    d = dict(json.loads((Path(lc.zoo.CONFIG_DIR) / "GLM-5.1.json").read_text()),
             num_hidden_layers=6, n_routed_experts=8, num_experts_per_tok=2,
             indexer_types=["full", "shared", "shared", "full", "shared", "shared"])
    cfg = lc.from_hf_config(d)
    assert cfg.layer_schedule.count(indexer=True) == 2
    total, _ = _meta_counts(d)
    assert lc.param_count(cfg).total == total
    # index_topk_pattern, the other way transformers reads it ("F" full, "S" shared)
    d2 = dict(d, index_topk_pattern="FSSFSS")
    del d2["indexer_types"]
    assert lc.param_count(lc.from_hf_config(d2)).total == total
    assert lc.indexer_cache_bytes_per_token(cfg) == 2 * 128 * 2


def test_glm4_7_flash_reads_mlp_layer_types_not_first_k_dense_replace():
    """transformers 5.23's Glm4MoeLiteConfig makes layer 0 dense and the rest MoE unless
    mlp_layer_types says otherwise; first_k_dense_replace is not read."""
    d = dict(json.loads((Path(lc.zoo.CONFIG_DIR) / "GLM-4.7-Flash.json").read_text()),
             num_hidden_layers=4, n_routed_experts=8, first_k_dense_replace=3)
    total, _ = _meta_counts(d)
    cfg = lc.from_hf_config(d)
    assert cfg.layer_schedule.count(mlp="dense") == 1
    assert lc.param_count(cfg).total == total
    d["mlp_layer_types"] = ["dense", "sparse", "dense", "sparse"]
    total, _ = _meta_counts(d)
    cfg = lc.from_hf_config(d)
    assert cfg.layer_schedule.count(mlp="dense") == 2 and lc.param_count(cfg).total == total


def test_minimax_m2_norms_all_heads_at_once():
    cfg = lc.load_model("MiniMax-M2.7")
    ws = lc.weight_shapes(cfg)
    shapes = dict(zip(ws["name"], ws["shape"]))
    assert shapes["model.layers.0.self_attn.q_norm.weight"] == (48 * 128,)
    assert shapes["model.layers.0.self_attn.k_norm.weight"] == (8 * 128,)
    assert "model.layers.0.block_sparse_moe.experts.255.w1.weight" in shapes


def test_kimi_k25_reads_its_text_config_even_named_kimi_k2():
    d = json.loads((Path(lc.zoo.CONFIG_DIR) / "Kimi-K2.5.json").read_text())
    cfg = lc.from_hf_config(d)
    assert cfg.is_multimodal and cfg.num_experts == 384 and lc.model_family(cfg) == "Kimi"
    alias = dict(d, text_config=dict(d["text_config"], model_type="kimi_k2"))
    assert lc.param_count(lc.from_hf_config(alias)).total == lc.param_count(cfg).total
    small = cfg.replace(num_hidden_layers=3)
    assert small.to_hf_config()["text_config"]["num_hidden_layers"] == 3


# --- random configs of each new type against transformers' meta build -----------------

@st.composite
def mla_configs(draw, mt):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 5))
    E = draw(st.integers(1, 6))
    heads = draw(st.integers(1, 4))
    d = {"model_type": mt, "vocab_size": draw(st.integers(12, 200)),  # mistral4 pads with 11
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "moe_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": heads, "num_key_value_heads": heads,
         "kv_lora_rank": 2 * draw(d8), "q_lora_rank": 2 * draw(d8),
         "qk_rope_head_dim": 2 * draw(st.integers(1, 4)), "qk_nope_head_dim": 2 * draw(d8),
         "v_head_dim": 2 * draw(d8), "n_routed_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "n_group": 1, "topk_group": 1,
         "n_shared_experts": draw(st.integers(1, 2)), "max_position_embeddings": 64,
         "tie_word_embeddings": draw(st.booleans())}
    if mt in ("deepseek_v32", "glm_moe_dsa"):
        d.update(index_n_heads=draw(st.integers(1, 4)), index_topk=draw(st.integers(1, 16)),
                 index_head_dim=d["qk_rope_head_dim"] + 2 * draw(st.integers(0, 4)),
                 first_k_dense_replace=draw(st.integers(0, L)))
    if mt == "glm_moe_dsa" and draw(st.booleans()):
        d["indexer_types"] = draw(st.lists(st.sampled_from(["full", "shared"]),
                                           min_size=L, max_size=L))
    if mt in ("glm4_moe_lite", "deepseek_v32") and draw(st.booleans()):
        d["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]),
                                             min_size=L, max_size=L))
    if mt == "mistral4":
        d["first_k_dense_replace"] = draw(st.integers(0, L))
        if draw(st.booleans()):
            d["q_lora_rank"] = None  # a plain q_proj
    return d


@st.composite
def minimax_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    E = draw(st.integers(1, 6))
    return {"model_type": "minimax_m2", "vocab_size": draw(st.integers(2, 200)),
            "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
            "num_hidden_layers": draw(st.integers(1, 4)),
            "num_attention_heads": kv * draw(st.integers(1, 3)), "num_key_value_heads": kv,
            "head_dim": 2 * draw(d8), "num_local_experts": E,
            "num_experts_per_tok": draw(st.integers(1, E)), "max_position_embeddings": 64}


@pytest.mark.parametrize("mt", ["glm4_moe_lite", "mistral4", "deepseek_v32", "glm_moe_dsa",
                                "minimax_m2"])
def test_random_configs_match_transformers(mt):
    strategy = minimax_configs() if mt == "minimax_m2" else mla_configs(mt)

    @settings(max_examples=30, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(strategy)
    def check(d):
        _counts_as_built(d)
    check()


@pytest.mark.parametrize("mt", ["glm4_moe_lite", "deepseek_v32", "glm_moe_dsa"])
def test_saved_form_counts_the_same(mt, tmp_path):
    """save_pretrained writes mlp_layer_types (and, under sparse attention, layer_types of
    indexed_attention and GLM-5's indexer_types): read back, nothing moves."""
    d = {"model_type": mt, "vocab_size": 64, "hidden_size": 32, "intermediate_size": 24,
         "moe_intermediate_size": 8, "num_hidden_layers": 5, "num_attention_heads": 4,
         "num_key_value_heads": 4, "kv_lora_rank": 8, "q_lora_rank": 12,
         "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6, "n_routed_experts": 4,
         "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "index_n_heads": 2,
         "index_head_dim": 8, "index_topk": 4, "first_k_dense_replace": 2}
    if mt == "glm_moe_dsa":
        d["index_topk_freq"], d["index_skip_topk_offset"] = 2, 2
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert "mlp_layer_types" in saved
    a, b = lc.from_hf_config(d), lc.from_hf_config(saved)
    assert lc.param_count(a).total == lc.param_count(b).total == _meta_counts(d)[0]
    assert lc.kv_cache_bytes(a, 100) == lc.kv_cache_bytes(b, 100)
    assert a.layer_schedule.counts() == b.layer_schedule.counts()
    if mt == "glm_moe_dsa":  # layers 0 and 1 own an indexer, then every other one: 0, 1, 3
        assert saved["indexer_types"] == ["full", "full", "shared", "full", "shared"]
        assert b.layer_schedule.count(indexer=True) == 3


# --- caches against what a tiny model holds after a prefill -----------------------------

@pytest.mark.parametrize("mt", ["glm4_moe_lite", "deepseek_v32", "glm_moe_dsa"])
def test_cache_equals_what_transformers_holds(mt):
    """transformers caches MLA's compressed latent (kv_lora_rank) and its RoPE key per token
    and layer, and under sparse attention each indexer's keys (index_head_dim): the same
    numbers as kv_cache_bytes(fp32) / 4."""
    d = {"model_type": mt, "vocab_size": 64, "hidden_size": 32, "intermediate_size": 24,
         "moe_intermediate_size": 8, "num_hidden_layers": 3, "num_attention_heads": 4,
         "num_key_value_heads": 4, "kv_lora_rank": 8, "q_lora_rank": 12,
         "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6, "n_routed_experts": 4,
         "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "index_n_heads": 2,
         "index_head_dim": 8, "index_topk": 4, "first_k_dense_replace": 1}
    if mt == "glm_moe_dsa":
        d["indexer_types"] = ["full", "shared", "full"]
    cfg = lc.from_hf_config(d)
    seq, batch = 7, 2
    _, cache = transformers_ref.tiny_prefill(d, seq, batch)
    kv = indexer = 0
    for layer in cache.layers:
        kv += sum(t.numel() for t in (layer.keys, layer.values))
        keys = getattr(layer, "indexer_keys", None)
        indexer += keys.numel() if keys is not None else 0
    assert kv == 3 * (8 + 4) * seq * batch  # the latent and the RoPE key, once per token
    want_indexer = {"glm4_moe_lite": 0, "deepseek_v32": 3, "glm_moe_dsa": 2}[mt] * 8 * seq * batch
    assert indexer == want_indexer
    assert kv + indexer == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4


def test_sparse_attention_flops_by_hand():
    """Decode at 100,000 tokens: each DeepSeek-V3.2 layer's MLA attends to index_topk =
    2,048 keys, 2 FLOPs per multiply-add over q.k (192) and the V sum (128) per head; its
    indexer scores all 100,000 keys with 64 heads of 128, then sums over the heads."""
    cfg = lc.load_model("DeepSeek-V3.2")
    n, L = 100_000, 61
    mla = L * 2 * 128 * (192 + 128) * 2048
    indexer = L * 2 * 64 * (128 + 1) * n
    assert lc.flops_per_token(cfg, n, mode="decode").attention == mla + indexer
    # below index_topk, every key is attended, as in DeepSeek-V3
    small = lc.flops_per_token(cfg, 1000, mode="prefill").attention
    assert small == int(L * 2 * 128 * 320 * Fraction(1001, 2)
                        + L * 2 * 64 * 129 * Fraction(1001, 2))


def test_bad_values_are_one_line_errors():
    base = json.loads((Path(lc.zoo.CONFIG_DIR) / "GLM-5.1.json").read_text())
    for field, value in (("indexer_types", ["full"] * 3), ("mlp_layer_types", ["moe"] * 78),
                         ("index_topk", 0), ("index_n_heads", None),
                         ("index_topk_freq", 0), ("layer_types", ["full_attention"] * 78)):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config(dict(base, **{field: value}))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(field), msg


# --- Nemotron-H: Mamba-2, attention and MoE blocks ----------------------------------------

def test_nemotron_blocks_follow_the_pattern():
    cfg = lc.load_model("Nemotron-3-Nano-30B-A3B")
    assert cfg.num_hidden_layers == 52
    n = cfg.layer_types.counts()
    assert (n["mamba"], n["full_attention"], n["none"]) == (23, 6, 23)
    # only the 6 attention blocks cache K and V: 2 KV heads of 128, bf16
    assert lc.kv_cache_bytes(cfg, 10_000) == 6 * 2 * 2 * 128 * 2 * 10_000
    # 23 Mamba-2 blocks hold a fixed state: 64 heads x 64 x 128, plus the conv's 4 positions
    # of 64 x 64 + 2 x 8 x 128 channels, per block and sequence
    assert lc.linear_state_bytes(cfg) == 23 * (64 * 64 * 128 + (64 * 64 + 2 * 8 * 128) * 4) * 2


@st.composite
def nemotron_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    E = draw(st.integers(1, 6))
    groups = draw(st.integers(1, 3))
    d = {"model_type": "nemotron_h", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_attention_heads": kv * draw(st.integers(1, 3)), "num_key_value_heads": kv,
         "head_dim": 2 * draw(d8), "ssm_state_size": draw(d8),
         "mamba_num_heads": groups * draw(st.integers(1, 3)), "mamba_head_dim": draw(d8),
         "n_groups": groups, "conv_kernel": draw(st.integers(1, 4)),
         "use_conv_bias": draw(st.booleans()), "n_routed_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "moe_intermediate_size": 2 * draw(d8),
         "moe_shared_expert_intermediate_size": 2 * draw(d8), "pad_token_id": 0,
         "tie_word_embeddings": draw(st.booleans())}
    blocks = draw(st.text(alphabet="ME*-", min_size=1, max_size=8))
    if draw(st.booleans()):
        d["hybrid_override_pattern"] = blocks
    else:  # the form transformers writes back
        names = {"M": "linear_attention", "*": "full_attention", "E": "moe", "-": "mlp"}
        d["layers_block_type"] = [names[c] for c in blocks]
    if draw(st.booleans()):
        d["moe_latent_size"] = 2 * draw(d8)  # Nemotron 3 Super's latent experts
    return d


def test_random_nemotron_configs_match_transformers():
    @settings(max_examples=40, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(nemotron_configs())
    def check(d):
        _counts_as_built(d)
    check()


def test_nemotron_states_equal_what_transformers_caches():
    """A tiny Nemotron-H after a CPU prefill: its Mamba-2 conv and SSM states hold
    linear_state_bytes(fp32) / 4 numbers, its attention blocks' K and V
    kv_cache_bytes(fp32) / 4; the MLP and MoE blocks hold nothing."""
    d = {"model_type": "nemotron_h", "vocab_size": 64, "hidden_size": 32,
         "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
         "intermediate_size": 24, "ssm_state_size": 6, "mamba_num_heads": 4,
         "mamba_head_dim": 4, "n_groups": 2, "conv_kernel": 3, "chunk_size": 4,
         "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
         "moe_shared_expert_intermediate_size": 8, "hybrid_override_pattern": "ME*-M*E",
         "use_mamba_kernels": False}
    cfg = lc.from_hf_config(d)
    seq, batch = 7, 2
    _, cache = transformers_ref.tiny_prefill(d, seq, batch)
    states, kv = transformers_ref.cache_numbers(cache)
    # by hand: 2 Mamba blocks x (4 heads x 4 x 6 + (16 + 2 x 2 x 6) x 3) per sequence;
    # 2 attention blocks x K and V of 2 heads x 8 per token
    assert states == 2 * (4 * 4 * 6 + (16 + 24) * 3) * batch
    assert kv == 2 * 2 * 2 * 8 * seq * batch
    assert states == lc.linear_state_bytes(cfg, batch=batch, dtype="fp32") // 4
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4


def test_nemotron_depth_what_if_repeats_the_pattern():
    cfg = lc.load_model("Nemotron-3-Nano-30B-A3B").replace(num_hidden_layers=8)
    assert cfg.to_hf_config()["hybrid_override_pattern"] == "MEMEM*EM"
    assert lc.param_count(cfg).total == _meta_counts(cfg.to_hf_config())[0]


def test_nemotron_bad_patterns_are_one_line_errors():
    base = json.loads((Path(lc.zoo.CONFIG_DIR) / "Nemotron-3-Nano-30B-A3B.json").read_text())
    for field, value in (("hybrid_override_pattern", "MEX"), ("hybrid_override_pattern", ""),
                         ("layers_block_type", ["mamba"]), ("ssm_state_size", 0)):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config(dict(base, **{field: value}))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(field), msg


# --- OLMo 3 and Ministral 3: dense, one with sliding windows --------------------------------

@st.composite
def dense_2026_configs(draw, mt):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    d = {"model_type": mt, "vocab_size": draw(st.integers(12, 200)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": kv * draw(st.integers(1, 3)),
         "num_key_value_heads": kv, "max_position_embeddings": 64,
         "tie_word_embeddings": draw(st.booleans())}
    if mt in ("ministral3", "seed_oss"):
        d["head_dim"] = 2 * draw(d8)
        if mt == "seed_oss":
            d.update(attention_bias=draw(st.booleans()), attention_out_bias=draw(st.booleans()),
                     mlp_bias=draw(st.booleans()))
    else:
        d["hidden_size"] = d["num_attention_heads"] * 2 * draw(d8)
        d["attention_bias"] = draw(st.booleans())
        if draw(st.booleans()):
            d["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention",
                                                              "full_attention"]),
                                             min_size=L, max_size=L))
    return d


def test_seed_oss_36b_counts_its_published_total():
    """Seed-OSS-36B's reconstructed config (tests/fixtures/README.md): q, k and v carry
    biases (attention_bias), o_proj does not (attention_out_bias); 80 heads of 128 are
    wider than hidden_size 5,120. Its total is the published safetensors index's."""
    d = json.loads((FIXTURES / "seed_oss_36b_reconstruction.json").read_text(encoding="utf-8"))
    cfg = lc.from_hf_config(d)
    assert lc.param_count(cfg).total == _meta_counts(d)[0] == 36_151_104_512
    shapes = dict(zip(*(lc.weight_shapes(cfg)[c] for c in ("name", "shape"))))
    assert shapes["model.layers.0.self_attn.q_proj.bias"] == (80 * 128,)
    assert "model.layers.0.self_attn.o_proj.bias" not in shapes


@pytest.mark.parametrize("mt", ["olmo3", "ministral3", "seed_oss"])
def test_random_dense_2026_configs_match_transformers(mt):
    @settings(max_examples=30, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(dense_2026_configs(mt))
    def check(d):
        assert lc.param_count(lc.from_hf_config(d)).total == _meta_counts(d)[0]
    check()


def test_olmo3_slides_three_layers_in_four_by_default():
    cfg = lc.from_hf_config({"model_type": "olmo3", "num_hidden_layers": 8})
    assert list(cfg.layer_types) == ["sliding_attention"] * 3 + ["full_attention"] \
        + ["sliding_attention"] * 3 + ["full_attention"]
    # at 65,536 tokens the 24 sliding layers of Olmo-3-7B keep 4,096 tokens each: MHA, 32 x 128
    olmo = lc.load_model("Olmo-3-7B-Instruct")
    per_token_layer = 2 * 32 * 128 * 2
    assert lc.kv_cache_bytes(olmo, 65_536) == per_token_layer * (8 * 65_536 + 24 * 4_096)


def test_mistral3_wrapper_reads_ministral3_or_mistral_inside():
    d = json.loads((Path(lc.zoo.CONFIG_DIR) / "Ministral-3-8B-Base-2512.json").read_text())
    cfg = lc.from_hf_config(d)
    assert cfg.is_multimodal and cfg.model_type == "ministral3"
    # Mistral Small 3.1 wraps a plain mistral text model in the same mistral3 config
    older = dict(d, text_config=dict(d["text_config"], model_type="mistral"))
    assert lc.from_hf_config(older).model_type == "mistral"
    assert lc.param_count(lc.from_hf_config(older)).total == _meta_counts(older)[0]


# --- Gemma 4 ---------------------------------------------------------------------------------

def test_gemma4_e2b_is_mostly_its_per_layer_embedding():
    """E2B: 4.63B parameters, of which the per-layer embedding table (262,144 tokens x 35
    layers x 256) is 2.35B; "E2B" counts the rest."""
    cfg = lc.load_model("gemma-4-E2B")
    pc = lc.param_count(cfg)
    ple = 262_144 * 35 * 256
    assert ple == 2_348_810_240
    assert round((pc.total - ple) / 1e9, 2) == 2.28 and round(pc.total / 1e9, 2) == 4.63
    ws = lc.weight_shapes(cfg)
    assert dict(zip(ws["name"], ws["shape"]))["model.embed_tokens_per_layer.weight"] == (262_144,
                                                                                         35 * 256)


def test_gemma4_kv_sharing_and_global_layers_by_hand():
    """E2B at 32,768 tokens: 15 layers store K and V (12 sliding keep 512 tokens of one KV
    head of 256, 3 full keep every token of one KV head of 512); the last 20 store nothing.
    31B: K = V on its 10 full layers, 4 KV heads of 512; 50 sliding of 16 x 256, window 1,024."""
    e2b, big = lc.load_model("gemma-4-E2B"), lc.load_model("gemma-4-31B")
    s = 32_768
    assert lc.kv_cache_bytes(e2b, s) == 2 * 2 * (12 * 1 * 256 * 512 + 3 * 1 * 512 * s)
    assert lc.kv_cache_bytes(big, s) == 2 * 2 * (50 * 16 * 256 * 1024 + 10 * 4 * 512 * s)
    shapes = dict(zip(*(lc.weight_shapes(big)[c] for c in ("name", "shape"))))
    assert "model.layers.5.self_attn.v_proj.weight" not in shapes  # K = V: one projection
    assert shapes["model.layers.5.self_attn.k_proj.weight"] == (4 * 512, 5376)
    assert shapes["model.layers.0.self_attn.v_proj.weight"] == (16 * 256, 5376)


@pytest.mark.parametrize("extra", [
    {}, {"num_kv_shared_layers": 2, "use_double_wide_mlp": True},
    {"attention_k_eq_v": True, "num_global_key_value_heads": 1},
    {"enable_moe_block": True, "num_experts": 4, "top_k_experts": 2, "moe_intermediate_size": 8,
     "hidden_size_per_layer_input": 0}], ids=["ple", "kv-shared", "k-eq-v", "moe"])
def test_gemma4_cache_and_count_equal_a_tiny_model(extra, tmp_path):
    """A tiny Gemma 4 on the CPU: its parameters, the K and V it caches after a prefill
    (none in KV-shared layers; both K and V where K = V, as transformers caches them),
    and its saved form (per_layer_config in place of global_head_dim) count the same."""
    d = dict({"model_type": "gemma4_text", "vocab_size": 64, "hidden_size": 32,
              "intermediate_size": 24, "num_hidden_layers": 6, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 8, "global_head_dim": 16,
              "sliding_window": 16, "layer_types": ["sliding_attention", "full_attention"] * 3,
              "vocab_size_per_layer_input": 64, "hidden_size_per_layer_input": 4}, **extra)
    cfg = lc.from_hf_config(d)
    seq, batch = 7, 2
    model, cache = transformers_ref.tiny_prefill(d, seq, batch)
    assert lc.param_count(cfg).total == sum(p.numel() for p in model.parameters())
    _, kv = transformers_ref.cache_numbers(cache)
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert "per_layer_config" in saved and "global_head_dim" not in saved
    again = lc.from_hf_config(saved)
    assert lc.param_count(again).total == lc.param_count(cfg).total
    assert lc.kv_cache_bytes(again, 1000) == lc.kv_cache_bytes(cfg, 1000)


@st.composite
def gemma4_configs(draw):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 7))
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 3))
    d = {"model_type": "gemma4_text", "vocab_size": draw(st.integers(2, 100)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads, "num_key_value_heads": kv,
         "head_dim": 2 * draw(d8), "global_head_dim": 2 * draw(d8),
         "vocab_size_per_layer_input": draw(st.integers(2, 100)),
         "hidden_size_per_layer_input": draw(st.integers(0, 4)),
         "attention_k_eq_v": draw(st.booleans()), "use_double_wide_mlp": draw(st.booleans()),
         "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0}
    if draw(st.booleans()):
        d["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                         min_size=L, max_size=L))
    if d["attention_k_eq_v"] and draw(st.booleans()):
        d["num_global_key_value_heads"] = draw(st.sampled_from([g for g in range(1, heads + 1)
                                                                if heads % g == 0]))
    if L >= 3 and draw(st.booleans()):
        d.update(layer_types=["sliding_attention", "full_attention"] * (L // 2) + (
            ["sliding_attention"] if L % 2 else []), num_kv_shared_layers=draw(st.integers(0, L - 2)))
    if draw(st.booleans()):
        E = draw(st.integers(1, 4))
        d.update(enable_moe_block=True, num_experts=E, top_k_experts=draw(st.integers(1, E)),
                 moe_intermediate_size=2 * draw(d8))
    return d


def test_random_gemma4_configs_match_transformers():
    @settings(max_examples=40, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(gemma4_configs())
    def check(d):
        try:
            transformers_ref.hf_config(d)
        except ValueError:  # transformers refuses it: so must the engine, in one line
            with pytest.raises(ValueError):
                lc.from_hf_config(d)
            return
        cfg = lc.from_hf_config(d)
        total, routed = _meta_counts(d)
        pc = lc.param_count(cfg)
        assert pc.total == total
        if cfg.is_moe:
            assert pc.active == _active(total, routed, cfg)
    check()


def test_gemma4_bad_values_are_one_line_errors():
    base = json.loads((Path(lc.zoo.CONFIG_DIR) / "gemma-4-E2B.json").read_text())
    for field, value in (("num_kv_shared_layers", 35), ("global_head_dim", 0),
                         ("per_layer_config", {"99": {"head_dim": 512}}),
                         ("per_layer_config", {"4": {"intermediate_size": 10}}),
                         ("use_bidirectional_attention", "text")):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config(dict(base, text_config=dict(base["text_config"],
                                                          **{field: value})))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(f"text_config.{field}"), msg


# --- Kimi-Linear: Kimi Delta Attention beside MLA ---------------------------------------------

KIMI_LINEAR = {"model_type": "kimi_linear", "vocab_size": 64, "pad_token_id": 0,
               "hidden_size": 32, "intermediate_size": 24, "moe_intermediate_size": 8,
               "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4,
               "kv_lora_rank": 8, "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6,
               "num_experts": 4, "num_experts_per_token": 2,
               "linear_attn_config": {"full_attn_layers": [2, 4], "kda_layers": [1, 3],
                                      "head_dim": 6, "num_heads": 2, "short_conv_kernel_size": 3}}


def test_kimi_linear_layers_and_state_by_hand():
    cfg = lc.load_model("Kimi-Linear-48B-A3B-Instruct")
    assert cfg.layer_types.counts() == {"linear_attention": 20, "full_attention": 7}
    # 7 MLA layers cache 512 + 64 values per token; 20 KDA layers a 128 x 128 state per head
    # (32 heads) plus 4 positions of q, k and v (3 x 32 x 128 channels)
    assert lc.kv_cache_bytes(cfg, 1000) == 7 * 576 * 2 * 1000
    assert lc.linear_state_bytes(cfg) == 20 * (32 * 128 * 128 + 3 * 32 * 128 * 4) * 2


def test_kimi_linear_cache_equals_what_transformers_holds(tmp_path):
    cfg = lc.from_hf_config(KIMI_LINEAR)
    seq, batch = 7, 2
    model, cache = transformers_ref.tiny_prefill(KIMI_LINEAR, seq, batch)
    assert lc.param_count(cfg).total == sum(p.numel() for p in model.parameters())
    states, kv = transformers_ref.cache_numbers(cache)
    # by hand: 2 KDA layers x (2 heads x 6 x 6 + 3 x 12 channels x 3); 2 MLA layers x (8 + 4)
    assert states == 2 * (2 * 6 * 6 + 3 * 12 * 3) * batch
    assert kv == 2 * (8 + 4) * seq * batch
    assert states == lc.linear_state_bytes(cfg, batch=batch, dtype="fp32") // 4
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4
    # the saved form lists layer_types and mlp_layer_types, and counts the same
    transformers_ref.hf_config(KIMI_LINEAR).save_pretrained(tmp_path)
    saved = lc.from_hf_config(json.loads((tmp_path / "config.json").read_text()))
    assert lc.param_count(saved).total == lc.param_count(cfg).total
    assert lc.linear_state_bytes(saved) == lc.linear_state_bytes(cfg)


@st.composite
def kimi_linear_configs(draw):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 6))
    E = draw(st.integers(1, 6))
    d = {"model_type": "kimi_linear", "vocab_size": draw(st.integers(2, 200)), "pad_token_id": 0,
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "moe_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": draw(st.integers(1, 4)), "kv_lora_rank": 2 * draw(d8),
         "qk_rope_head_dim": 2 * draw(st.integers(1, 4)), "qk_nope_head_dim": 2 * draw(d8),
         "v_head_dim": 2 * draw(d8), "num_experts": E,
         "num_experts_per_token": draw(st.integers(1, E)),
         "first_k_dense_replace": draw(st.integers(0, L)),
         "tie_word_embeddings": draw(st.booleans())}
    d["num_key_value_heads"] = d["num_attention_heads"]
    kinds = draw(st.lists(st.booleans(), min_size=L, max_size=L))
    lac = {"head_dim": 2 * draw(d8), "num_heads": draw(st.integers(1, 3)),
           "short_conv_kernel_size": draw(st.integers(1, 4))}
    if draw(st.booleans()):
        lac.update(full_attn_layers=[i + 1 for i, full in enumerate(kinds) if full],
                   kda_layers=[i + 1 for i, full in enumerate(kinds) if not full])
    if draw(st.booleans()):
        d["q_lora_rank"] = 2 * draw(d8)
    d["linear_attn_config"] = lac
    return d


def test_random_kimi_linear_configs_match_transformers():
    @settings(max_examples=30, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(kimi_linear_configs())
    def check(d):
        _counts_as_built(d)
    check()


# --- DeepSeek-V4: a sliding window of one K = V head, plus compressed entries ----------------

V4 = {"model_type": "deepseek_v4", "vocab_size": 64, "hidden_size": 32,
      "moe_intermediate_size": 8, "num_hidden_layers": 4, "num_attention_heads": 4,
      "num_key_value_heads": 1, "head_dim": 16, "q_lora_rank": 12, "num_experts_per_tok": 2,
      "n_routed_experts": 4, "hc_mult": 2, "sliding_window": 8, "o_groups": 2, "o_lora_rank": 8,
      "index_n_heads": 2, "index_head_dim": 8, "index_topk": 4,
      "compress_rates": {"compressed_sparse_attention": 4, "heavily_compressed_attention": 8},
      "layer_types": ["sliding_attention", "compressed_sparse_attention",
                      "heavily_compressed_attention", "compressed_sparse_attention"],
      "num_hash_layers": 1, "partial_rotary_factor": 0.5}


def test_deepseek_v4_flash_layers_and_cache_by_hand():
    """43 layers from compress_ratios (2 sliding, 21 CSA, 20 HCA); at 1,048,576 tokens each
    layer keeps its window of 128 tokens of one 512-wide K = V head, each CSA layer one
    entry of 512 (and an indexer key of 128) per 4 tokens, each HCA layer one per 128."""
    cfg = lc.load_model("DeepSeek-V4-Flash")
    kinds = {k.attention: 0 for k in cfg.layer_schedule.counts()}
    for k, n in cfg.layer_schedule.counts().items():
        kinds[k.attention] += n
    assert kinds == {"sliding_attention": 2, "compressed_sparse_attention": 21,
                     "heavily_compressed_attention": 20}
    n = 1_048_576
    values = 43 * 128 * 512 + 21 * (n // 4) * (512 + 128) + 20 * (n // 128) * 512
    assert lc.kv_cache_bytes(cfg, n) == values * 2
    # against DeepSeek-V3's MLA at 131,072 tokens: about a tenth
    assert lc.kv_cache_bytes(cfg, 131_072) * 10 < lc.kv_cache_bytes("DeepSeek-V3", 131_072)


def test_deepseek_v4_compressed_entries_equal_what_transformers_caches():
    """A tiny DeepSeek-V4 after a CPU prefill: its compressed entries (CSA and its indexer,
    HCA) are compressed_cache_values exactly; each layer's window holds sliding_window - 1
    tokens between steps where the engine counts the sliding_window a step holds (lesson 2b;
    transformers' plain sliding layers keep V as a second copy of K). Not counted: the
    inputs of a window still filling (fewer than its rate) and CSA's overlap state."""
    import torch
    cfg = lc.from_hf_config(V4)
    torch.manual_seed(0)
    model = transformers_ref.causal_lm(transformers_ref.hf_config(V4)).eval()
    assert lc.param_count(cfg).total == sum(p.numel() for p in model.parameters())
    for seq in (20, 23):
        with torch.no_grad():
            cache = model(torch.randint(0, 64, (1, seq)), use_cache=True).past_key_values
        compressed = sum(t.numel() for layer in cache.layers
                         for t in (getattr(layer, "compressed_kv", None) or {}).values())
        window = sum(layer.keys.numel() for layer in cache.layers)
        assert compressed == lc.counts.compressed_cache_values(cfg, seq)
        assert window == 4 * (V4["sliding_window"] - 1) * V4["head_dim"]
        assert lc.kv_cache_bytes(cfg, seq, dtype="fp32") // 4 == \
            compressed + 4 * V4["sliding_window"] * V4["head_dim"]


def test_deepseek_v4_decode_flops_by_hand():
    """At 1,048,576 tokens (a multiple of 4 and of 128) the step closes a window in every
    CSA and HCA layer and pools it; the step after does not. The hyper-connections of 4
    streams of 4,096 are the same work at any context, in matmul."""
    cfg = lc.load_model("DeepSeek-V4-Flash")
    n = 1_048_576
    per_key = 2 * 64 * 2 * 512                       # q.k and the V sum over 512, 64 heads
    keys = 43 * 128 + 21 * min(n // 4, 512) + 20 * (n // 128)
    indexer = 21 * 2 * 64 * (128 + 1) * (n // 4)    # scores every compressed entry
    # pooling: CSA 2 x 4 inputs of 512 (entry) and of 128 (indexer key), HCA 128 of 512
    pooling = 21 * 2 * (2 * 4) * (512 + 128) + 20 * 2 * 128 * 512
    step = lc.flops_per_token(cfg, n, mode="decode")
    assert step.attention == per_key * keys + indexer + pooling
    after = lc.flops_per_token(cfg, n + 1, mode="decode")   # closes no window
    assert after.attention == per_key * keys + indexer
    # per hyper-connection (2 a layer): 24 coefficients from 4 x 4,096 values, the collapse
    # into the block's input, the block's output into 4 streams, the 4 x 4 mix of streams
    hc = 2 * (24 * 4 * 4096 + 4 * 4096 + 4 * 4096 + 4 * 4 * 4096)
    head = 2 * (4 * 4 * 4096 + 4 * 4096)             # 4 coefficients, the last collapse
    assert step.matmul == 2 * lc.param_count(cfg).matmul_active + 43 * 2 * hc + head


def test_deepseek_v4_prefill_is_the_mean_of_its_decode_steps():
    """Decode counts one step's own work (a compressor pools only on the step that closes
    its window, every 4th or 8th here), so the prompt's average is the mean of its steps."""
    cfg = lc.from_hf_config(V4)
    for n in (1, 3, 4, 8, 23, 24, 40):
        steps = [lc.flops_per_token(cfg, i, mode="decode") for i in range(1, n + 1)]
        prefill = lc.flops_per_token(cfg, n)
        assert prefill.attention == sum(s.attention for s in steps) // n
        assert {s.matmul for s in steps} == {prefill.matmul}
    # step 24 closes a window in both CSA layers (2 x 4 inputs of 16, and of 8 for the
    # indexer's key) and in the HCA layer (8 inputs of 16), and adds an entry: the HCA layer
    # attends to it (q.k and V, 4 heads of 16), the CSA layers' indexers score it (2 heads
    # of 8, and their sum) but attend to their top 4 as before; step 25 pools nothing
    step = [lc.flops_per_token(cfg, i, mode="decode").attention for i in (23, 24, 25)]
    pooling = 2 * 2 * (2 * 4) * (16 + 8) + 2 * 8 * 16
    assert step[1] - step[0] == pooling + 2 * 4 * 2 * 16 + 2 * 2 * 2 * (8 + 1)
    assert step[2] - step[1] == -pooling


@st.composite
def v4_configs(draw):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 5))
    E = draw(st.integers(1, 5))
    g = draw(st.integers(1, 2))
    d = {"model_type": "deepseek_v4", "vocab_size": draw(st.integers(2, 100)),
         "hidden_size": 4 * draw(d8), "moe_intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": 2 * draw(st.integers(1, 2)),
         "num_key_value_heads": 1, "head_dim": 8 * draw(st.integers(1, 3)),
         "q_lora_rank": 2 * draw(d8), "n_routed_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "hc_mult": draw(st.integers(1, 3)),
         "sliding_window": draw(st.integers(2, 16)), "o_groups": g, "o_lora_rank": 2 * draw(d8),
         "index_n_heads": draw(st.integers(1, 3)), "index_head_dim": 8, "index_topk": 4,
         "partial_rotary_factor": 0.5,
         "compress_rates": {"compressed_sparse_attention": draw(st.sampled_from([2, 4])),
                            "heavily_compressed_attention": draw(st.sampled_from([4, 8]))}}
    d["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention",
                                                      "compressed_sparse_attention",
                                                      "heavily_compressed_attention"]),
                                     min_size=L, max_size=L))
    d["num_hash_layers"] = draw(st.integers(0, L))
    return d


def test_random_deepseek_v4_configs_match_transformers():
    @settings(max_examples=30, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(v4_configs())
    def check(d):
        _counts_as_built(d)
    check()


def test_deepseek_v4_bad_values_are_one_line_errors():
    base = json.loads((Path(lc.zoo.CONFIG_DIR) / "DeepSeek-V4-Flash.json").read_text())
    for field, value in (("compress_ratios", [0, 3] * 22), ("mlp_layer_types", ["dense"] * 43),
                         ("q_lora_rank", None), ("hc_mult", 0)):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config(dict(base, **{field: value}))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(field), msg
