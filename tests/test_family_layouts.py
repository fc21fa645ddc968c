"""Each family's tensors: checkpoint names and shapes, buffers, shipped extras, published sizes.

A family's layout (its Layout in llmcourse/families.py) is held here where a checkpoint or a
model card says something the generic exactness test (tests/test_exact_vs_transformers.py)
does not read: a router bias stored as a buffer, a multi-token-prediction module shipped
beside the model, experts stored one by one where transformers fuses them, the n-gram tables'
shards, the sizes model cards publish. Tests marked slow build the model in transformers
(tests/transformers_ref.py); the others read only the engine, against numbers written down
from those builds or from the model cards.
"""

import os

import pytest

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)
from config_files import fixture_json, zoo_json
from family_rows import GRANITE_TINY, LFM2_TINY, QWEN4_TINY, zero_slot_params

slow = pytest.mark.slow
QWEN4 = "Qwen3.8-Flash-Next"


# --- published sizes: model cards, and totals written down from transformers' builds -------


PUBLISHED = {"GLM-4.7-Flash": ("30B", None), "DeepSeek-V4-Flash": ("284B", "13B"), "Kimi-Linear-48B-A3B-Instruct": ("48B", "3B"), "gemma-4-26B-A4B": ("25.2B", "3.8B"),
             "gemma-4-31B": ("31B", None), "Nemotron-3-Nano-30B-A3B": ("31.6B", "3.6B"), "GLM-5.1": ("744B", "40B"),
             "DeepSeek-V3.2": ("671B", "37B"), "Kimi-K2.5": ("1T", "32B"),
             "MiniMax-M2.7": ("230B", "10B")}


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


# (wrapper type, total as built, its language model's part)
REAL = {"Qwen3.5-0.8B-Base": ("qwen3_5", 852_985_920, 752_393_024),
        "Qwen3.6-35B-A3B": ("qwen3_5_moe", 35_107_181_936, 34_660_610_688)}


def test_qwen3_5_and_3_6_totals_as_built():
    """The totals transformers 5.23 builds for the published Qwen3.5 and Qwen3.6 configs
    (a multimodal wrapper: the language model in text_config, and a vision tower), and the
    language model's part (the "0.8B" and the "35B"), written down."""
    for name, (outer, total, text) in REAL.items():
        cfg = lc.load_model(name)
        assert cfg.text_model_of == outer and cfg.is_multimodal
        assert lc.param_count(cfg).total == total
        assert lc.param_count(cfg.text_model).total == text


@slow
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_config_counts_as_transformers_builds_it(name):
    d = zoo_json(name)
    cfg = lc.from_hf_config(d)
    assert d["model_type"] == REAL[name][0] and cfg.is_multimodal
    total, routed, _ = transformers_ref.built(d)
    assert total == REAL[name][1]  # the meta build, written down (read above, fast)
    transformers_ref.counts_as_built(d)  # total, and active less routed experts and towers


def test_mistral_small_4_class_defaults_are_the_published_size():
    """Mistral Small 4 ships as a mistral3 vision wrapper we do not reproduce; its text model
    here is transformers 5.23's Mistral4Config() (the checkpoint its docstring names), kept as
    a test fixture and not in the zoo (its build: tests/test_exact_vs_transformers.py). It
    matches the published 119B total and 6.63B active."""
    pc = lc.param_count(fixture_json("mistral4_class_defaults.json"))
    assert round(pc.total / 1e9) == 119 and round(pc.active / 1e9, 2) == 6.63


def test_seed_oss_36b_counts_its_published_total():
    """Seed-OSS-36B's reconstructed config (tests/fixtures/README.md): q, k and v carry
    biases (attention_bias), o_proj does not (attention_out_bias); 80 heads of 128 are
    wider than hidden_size 5,120. Its total is the published safetensors index's (and
    transformers' build: tests/test_exact_vs_transformers.py)."""
    cfg = lc.from_hf_config(fixture_json("seed_oss_36b_reconstruction.json"))
    assert lc.param_count(cfg).total == 36_151_104_512
    shapes = dict(zip(*(lc.weight_shapes(cfg)[c] for c in ("name", "shape"))))
    assert shapes["model.layers.0.self_attn.q_proj.bias"] == (80 * 128,)
    assert "model.layers.0.self_attn.o_proj.bias" not in shapes


def test_gemma4_e2b_is_mostly_its_per_layer_embedding():
    """E2B's language model: 4.63B parameters, of which the per-layer embedding table
    (262,144 tokens x 35 layers x 256) is 2.35B; "E2B" counts the rest."""
    cfg = lc.load_model("gemma-4-E2B").text_model
    pc = lc.param_count(cfg)
    ple = 262_144 * 35 * 256
    assert ple == 2_348_810_240
    assert round((pc.total - ple) / 1e9, 2) == 2.28 and round(pc.total / 1e9, 2) == 4.63
    ws = lc.weight_shapes(cfg)
    assert dict(zip(ws["name"], ws["shape"]))["model.embed_tokens_per_layer.weight"] == (262_144,
                                                                                         35 * 256)


def test_lfm2_8b_a1b_is_the_published_size():
    """LFM2-8B-A1B (tests/fixtures/README.md): transformers 5.23 builds 8,339,929,856
    parameters, 1,557,740,288 of them used per token (published: "8.3B total, 1.5B active");
    18 short-convolution layers, 2 dense MLPs."""
    cfg = lc.from_hf_config(fixture_json("lfm2_moe_8b_a1b_trimmed.json"))
    pc = lc.param_count(cfg)
    assert (pc.total, pc.active) == (8_339_929_856, 1_557_740_288)
    assert pc.total // 10**8 == 83 and pc.active // 10**8 == 15  # the card's 8.3B and 1.5B
    n = cfg.layer_schedule.counts()
    assert sum(c for k, c in n.items() if k.attention == "conv") == 18
    assert sum(c for k, c in n.items() if k.mlp == "dense") == 2


def test_granite_350m_is_the_published_size():
    """granite-4.0-h-350m: 28 Mamba-2 and 4 attention layers (NoPE), no experts; 340,332,224
    parameters as transformers 5.23 builds them (its card: "340M"). The hub's Mamba-2 sizes:
    48 heads of 32 (= 2 x 768), state 128, one group, kernel 4; in_proj gives the gate z
    (1536), x, B and C (1536 + 2 x 128) and a step per head (48)."""
    cfg = lc.load_model("granite-4.0-h-350m")
    assert lc.param_count(cfg).total == 340_332_224 and not cfg.is_moe
    n = cfg.layer_types.counts()
    assert (n["mamba"], n["full_attention"]) == (28, 4)
    assert [i for i in range(32) if cfg.layer_types[i] == "full_attention"] == [10, 13, 17, 27]
    ws = lc.weight_shapes(cfg)
    assert dict(zip(ws["name"], ws["shape"]))["model.layers.0.mamba.in_proj.weight"] == (
        1536 + (1536 + 2 * 128) + 48, 768)
    assert ws.query("note == ''")["numel"].sum() == 340_332_224
    assert not any(k.rope for k in cfg.layer_schedule.counts() if k.attention == "full_attention")


@slow
def test_granite_350m_is_the_published_size_and_transformers_build():
    """granite-4.0-h-350m: 28 Mamba-2 and 4 attention layers, no experts. transformers 5.23
    builds 340,332,224 parameters (its card: "340M"), every tensor by the checkpoint's name."""
    cfg = transformers_ref.counts_as_built(zoo_json("granite-4.0-h-350m"))
    total, _, shapes = transformers_ref.built(zoo_json("granite-4.0-h-350m"))
    assert lc.param_count(cfg).total == total == 340_332_224
    assert not cfg.is_moe
    n = cfg.layer_types.counts()
    assert (n["mamba"], n["full_attention"]) == (28, 4)
    assert [i for i in range(32) if cfg.layer_types[i] == "full_attention"] == [10, 13, 17, 27]
    ws = lc.weight_shapes(cfg)
    assert dict(zip(ws["name"], ws["shape"])) == shapes
    # the hub's Mamba-2 sizes: 48 heads of 32 (= 2 x 768), state 128, one group, kernel 4;
    # in_proj gives the gate z (1536), x, B and C (1536 + 2 x 128) and a step per head (48)
    assert dict(zip(ws["name"], ws["shape"]))["model.layers.0.mamba.in_proj.weight"] == (
        1536 + (1536 + 2 * 128) + 48, 768)
    assert lc.weight_shapes(cfg).query("note == ''")["numel"].sum() == total
    # NoPE: the attention layers use no position code
    assert not any(k.rope for k in cfg.layer_schedule.counts() if k.attention == "full_attention")


def test_qwen4_exp_zoo_config_is_its_build_and_its_n_gram_table():
    """Qwen3.8-Flash-Next: 176,943,899,520 parameters as transformers 5.23 builds them,
    51,200,245,760 of them the one n-gram embedding table (320,001,536 rows of 160). The model
    reads it in every forward pass (the PLE layer adds its gated n-gram features to every
    stream), so it is a real weight a reader holds; without it the count is 125.74B, the
    "125B" of the INT4 repo's name."""
    from llmcourse.architectures import ngram_table_rows
    pc = lc.param_count(QWEN4)
    assert pc.total == 176_943_899_520
    assert ngram_table_rows(lc.load_model(QWEN4), 1) * 160 == 51_200_245_760
    assert round((pc.total - 51_200_245_760) / 1e9, 2) == 125.74


@slow
def test_qwen4_exp_zoo_config_as_built():
    """transformers 5.23's meta build of the published config: 176,943,899,520 parameters,
    51,200,245,760 of them the one n-gram embedding table (layer index 1: ple_layer_ids [2] is
    one-indexed). The model reads it in every forward pass (the PLE layer adds its gated
    n-gram features to every stream), so it is a real weight a reader holds; without it the
    count is 125.74B, the "125B" of the INT4 repo's name."""
    d = lc.load_model(QWEN4).to_hf_config()
    total, routed, shapes = transformers_ref.built(d)
    table = shapes["model.layers.1.ple.ple_embedding.ngram_embedding.weight"]
    assert total == 176_943_899_520                  # transformers' own numbers
    assert table == (320_001_536, 160) and table[0] * table[1] == 51_200_245_760
    assert not any(".ple." in n for n in shapes if not n.startswith("model.layers.1."))
    cfg = lc.load_model(QWEN4)
    pc = lc.param_count(cfg)
    assert pc.total == total
    assert pc.active == transformers_ref.active_as_built(total, routed, cfg)
    assert pc.routed_experts == routed
    assert round((pc.total - table[0] * table[1]) / 1e9, 2) == 125.74


def test_longcat_counts_its_real_weights():
    """The class defaults (tests/fixtures/README.md): transformers 5.23 builds 741.05B
    parameters, 180.39B of them gate_up_proj slots (2 x 2,048 x 6,144 each) for the 256
    zero-computation experts of each of the 28 layers, which hold no weights in the
    checkpoint. The engine counts the real 560.66B (published: 560B)."""
    pc = lc.param_count(fixture_json("longcat_flash_class_defaults.json"))
    assert 741_053_585_408 - 28 * 256 * 2 * 2048 * 6144 == pc.total == 560_664_958_976
    assert abs(pc.total / 1e9 - 560) < 1


@slow
def test_longcat_build_allocates_zero_expert_slots():
    """transformers' own numbers for the class defaults: 741.05B built, 180.39B of it the
    zero experts' gate_up_proj slots, 256 per layer as zero_expert_num says."""
    d = fixture_json("longcat_flash_class_defaults.json")
    m = transformers_ref.meta_model(d)
    cfg = lc.from_hf_config(d)
    meta = sum(p.numel() for p in m.parameters())
    zero = zero_slot_params(m, cfg)
    slots = {layer.mlp.experts.gate_up_proj.shape[0] - layer.mlp.experts.down_proj.shape[0]
             for layer in m.model.layers}
    assert slots == {d["zero_expert_num"]} == {256}
    assert (meta, zero) == (741_053_585_408, 180_388_626_432)
    assert zero == 28 * 256 * 2 * 2048 * 6144                   # layers x slots x (2I x H)
    assert lc.param_count(cfg).total == meta - zero


def test_longcat_active_range_is_the_published_one():
    """Published: "activates 18.6B-31.3B parameters dynamically" (a top-12 pick may land on a
    zero expert). ``active`` is the most a token can use (all 12 picks real experts),
    ``active_min`` the fewest (all 12 on zero experts). Less the 0.8B input embedding table
    (a lookup, no compute), both ends land within 0.1B of the published range."""
    pc = lc.param_count(lc.from_hf_config(fixture_json("longcat_flash_class_defaults.json")))
    assert pc.active_min < pc.active < pc.total
    assert pc.active - pc.active_min == 12 * 28 * 3 * 2048 * 6144   # 12 experts per layer
    for count, published in ((pc.active_min, 18.6), (pc.active, 31.3)):
        assert abs((count - pc.embedding) / 1e9 - published) < 0.1, count
    assert "to" in repr(pc)  # the range shows


# --- checkpoint names and shapes where transformers stores them otherwise -------------------


def test_gpt2_learned_positions_are_weights_not_cache():
    cfg = lc.load_model("gpt2")
    ws = lc.weight_shapes(cfg)
    wpe = ws[ws["name"] == "wpe.weight"].iloc[0]
    assert wpe["shape"] == (1024, 768) and wpe["component"] == "embedding"
    # the GPT-2 small count everyone quotes, and 12·L·d² for its non-embedding part
    pc = lc.param_count(cfg)
    assert pc.total == 124_439_808
    assert pc.embedding == 50257 * 768 + 1024 * 768
    # cache: K and V, 12 heads x 64, 12 layers, 2 bytes: no position table in it
    assert lc.kv_cache_bytes(cfg, 1000) == 1000 * 12 * 2 * 12 * 64 * 2
    lm = ws[ws["name"] == "lm_head.weight"].iloc[0]
    assert lm["note"] == "tied to wte.weight"


def test_glm_router_bias_is_a_buffer_not_a_parameter():
    ws = lc.weight_shapes(lc.load_model("GLM-4.5-Air"))
    bias = ws[ws["name"].str.endswith("mlp.gate.e_score_correction_bias")]
    # one per MoE layer (46 layers, the first dense); the MTP layer 46 has one too
    layers = bias[bias["layer"] >= 0]
    assert len(layers) == 46 - 1 and set(layers["note"]) == {"buffer"}
    assert list(bias[bias["layer"] < 0]["note"]) == ["mtp, not built by transformers"]


def test_minimax_m2_norms_all_heads_at_once():
    cfg = lc.load_model("MiniMax-M2.7")
    ws = lc.weight_shapes(cfg)
    shapes = dict(zip(ws["name"], ws["shape"]))
    assert shapes["model.layers.0.self_attn.q_norm.weight"] == (48 * 128,)
    assert shapes["model.layers.0.self_attn.k_norm.weight"] == (8 * 128,)
    assert "model.layers.0.block_sparse_moe.experts.255.w1.weight" in shapes


@slow
def test_dense_qwen3_5_tensor_by_tensor():
    """Every tensor name and shape of the language model, as transformers names them
    (model.layers...: the text model built from text_config)."""
    d = zoo_json("Qwen3.5-0.8B-Base")
    _, _, meta = transformers_ref.built(d)
    ws = lc.weight_shapes(lc.from_hf_config(d))
    mtp = ws["note"].str.contains("mtp")  # listed beside the model, never built or counted
    assert mtp.sum() == 15 and all(n.startswith("mtp.") for n in ws[mtp]["name"])
    ours = dict(zip(ws[~mtp]["name"], ws[~mtp]["shape"]))
    assert ours == meta


@slow
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


_GRANITE_RENAMES = (("block_sparse_moe.input_linear.weight", "block_sparse_moe.experts.gate_up_proj"),
                    ("block_sparse_moe.output_linear.weight", "block_sparse_moe.experts.down_proj"),
                    ("block_sparse_moe.router.layer.weight", "block_sparse_moe.router.weight"))


def _granite_transformers_name(name):
    for ours, theirs in _GRANITE_RENAMES:
        name = name.replace(ours, theirs)
    return name


@slow
def test_granite_moe_weight_shapes_are_the_checkpoints():
    """The checkpoint stores each layer's experts fused (block_sparse_moe.input_linear:
    experts x (gate + up) x hidden; output_linear), and the router as router.layer;
    transformers renames them on load. Every other tensor has transformers' own name."""
    cfg = lc.from_hf_config(GRANITE_TINY)
    total, routed, shapes = transformers_ref.built(GRANITE_TINY)
    ws = lc.weight_shapes(cfg)
    ours = {_granite_transformers_name(n): s for n, s in zip(ws["name"], ws["shape"])}
    assert len(ours) == len(ws) and ours == shapes
    named = dict(zip(ws["name"], ws["shape"]))
    assert named["model.layers.1.block_sparse_moe.input_linear.weight"] == (4, 16, 32)
    assert named["model.layers.1.block_sparse_moe.output_linear.weight"] == (4, 32, 8)
    assert named["model.layers.0.shared_mlp.input_linear.weight"] == (24, 32)
    assert int(ws.loc[ws["component"] == "experts", "numel"].sum()) == routed
    pc = lc.param_count(cfg)
    assert pc.components["shared_experts"] == 4 * 3 * 12 * 32  # 4 layers of gate, up, down


@slow
def test_lfm2_weight_shapes_are_the_checkpoints():
    """The checkpoint stores each expert's w1, w3, w2 (transformers fuses them on load into
    gate_up_proj and down_proj); every other tensor, the expert_bias buffer included, has
    transformers' name and shape."""
    cfg = lc.from_hf_config(LFM2_TINY)
    total, routed, shapes = transformers_ref.built(LFM2_TINY)
    ws = lc.weight_shapes(cfg)
    experts = ws["component"] == "experts"
    ours = dict(zip(ws.loc[~experts, "name"], ws.loc[~experts, "shape"]))
    fused = {n for n in shapes if n.endswith(("experts.gate_up_proj", "experts.down_proj"))}
    assert ours == {n: s for n, s in shapes.items() if n not in fused}
    assert int(ws.loc[experts, "numel"].sum()) == routed == sum(
        2 * 4 * 8 * 32 if n.endswith("gate_up_proj") else 4 * 32 * 8 for n in fused)
    named = dict(zip(ws["name"], ws["shape"]))
    assert named["model.layers.1.feed_forward.experts.3.w1.weight"] == (8, 32)
    assert named["model.layers.2.conv.conv.weight"] == (32, 1, 3)
    assert ws.set_index("name").loc["model.layers.1.feed_forward.expert_bias", "note"] == "buffer"
    assert int(ws.loc[ws["note"] == "", "numel"].sum()) == total


def test_weight_shapes_use_checkpoint_names_and_shards():
    """The zoo config's listing: experts one by one (as the checkpoint stores them), the n-gram
    table in its split_ngram_parts = 128 shards of 2,500,012 rows, no layer norms (the
    hyper-connections' hc_norm instead), hyper_connection_mixer in place of model.norm."""
    ws = lc.weight_shapes(lc.load_model(QWEN4))
    shapes = dict(zip(ws["name"], ws["shape"]))
    shard = "model.layers.1.ple.ple_embedding.ngram_embedding.shard_{}.weight"
    assert [shapes[shard.format(s)] for s in (0, 127)] == [(2_500_012, 160)] * 2
    assert shard.format(128) not in shapes
    assert shapes["model.layers.3.self_attn.indexer.index_qk_proj.weight"] == (5 * 128, 2560)
    assert shapes["model.layers.47.mlp.experts.511.down_proj.weight"] == (2560, 640)
    assert shapes["model.hyper_connection_mixer.input_mix_weight_down.weight"] == (320, 10240)
    assert "model.norm.weight" not in shapes
    assert not any("input_layernorm" in n for n in shapes)
    shards = ws[ws["name"].str.contains("ngram_embedding.shard_")]
    assert set(shards["expert"]) == {-1} and set(shards["layer"]) == {1}
    assert int(ws.loc[ws["note"] == "", "numel"].sum()) == 176_943_899_520


@slow
def test_n_gram_table_sizes_are_transformers_primes():
    """Each n-gram head hashes into its own prime-sized vocabulary from
    ngram_vocab_size_base on, the k-th table continuing the primes where the previous one
    ended; the sum is padded to a multiple of make_ngram_vocab_size_divisible_by. Held
    against the module transformers builds for three tables in one model."""
    from llmcourse.architectures import ngram_table_rows
    d = dict(QWEN4_TINY, num_hidden_layers=8, ple_layer_ids=[1, 2, 5], ngram_vocab_size_base=1000,
             make_ngram_vocab_size_divisible_by=16)
    m = transformers_ref.meta_model(d)
    cfg = lc.from_hf_config(d)
    for k, layer in enumerate((0, 1, 4), start=1):
        emb = m.model.layers[layer].ple.ple_embedding
        assert ngram_table_rows(cfg, k) == emb.ngram_embedding.weight.shape[0]
        assert sum(emb.head_vocab_sizes) <= ngram_table_rows(cfg, k) < sum(
            emb.head_vocab_sizes) + 16
    # the real one: 16 heads of primes from 20,000,000 on, padded to a multiple of 128
    real = lc.load_model(QWEN4)
    assert ngram_table_rows(real, 1) == 320_001_536


def _saved_checkpoint(d, tmp_path):
    """{name: shape} of the safetensors file a tiny model of ``d`` saves."""
    from safetensors import safe_open
    model, _ = transformers_ref.tiny_prefill(d, 3, 1)
    model.save_pretrained(tmp_path)
    with safe_open(os.path.join(tmp_path, "model.safetensors"), "pt") as f:
        return {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}


@slow
@pytest.mark.parametrize("parts", [3, 7, 40])
def test_weight_shapes_equal_the_saved_checkpoint(tmp_path, parts):
    """Every tensor a tiny model's save_pretrained writes, by name and shape: experts one by
    one, the n-gram tables chunked into split_ngram_parts shards (torch.chunk: equal shards
    and a smaller last one, or fewer shards when they do not divide; 40 parts of 160 rows: 40
    shards of 4), and the tables' hash constants (buffers, listed and not counted)."""
    d = dict(QWEN4_TINY, split_ngram_parts=parts)
    saved = _saved_checkpoint(d, tmp_path)
    ws = lc.weight_shapes(lc.from_hf_config(d))
    ours = dict(zip(ws["name"], ws["shape"]))
    assert len(ours) == len(ws)
    assert ours == saved
    buffers = set(ws.loc[ws["note"] == "buffer", "name"])
    assert buffers == {n for n in saved if n.endswith(("layer_multipliers", "vocab_sizes",
                                                       "heads_offsets"))}


@slow
def test_longcat_layers_are_two_mla_sublayers_and_one_moe():
    """Each of num_layers = 28 layers: two MLA attentions, two dense MLPs, one MoE (on the
    first sublayer's input); transformers counts the sublayers (num_hidden_layers = 56)."""
    d = fixture_json("longcat_flash_class_defaults.json")
    cfg = lc.from_hf_config(d)
    assert cfg.num_hidden_layers == transformers_ref.hf_config(d).num_hidden_layers == 56
    assert cfg.layer_schedule.count(mlp="moe") == 28 and cfg.layer_schedule.count(mlp="dense") == 28
    assert cfg.attention_kind == "MLA"
    ws = lc.weight_shapes(cfg)
    shapes = dict(zip(ws["name"], ws["shape"]))
    for j in (0, 1):
        assert shapes[f"model.layers.27.self_attn.{j}.q_b_proj.weight"] == (64 * 192, 1536)
        assert shapes[f"model.layers.27.mlps.{j}.gate_proj.weight"] == (12288, 6144)
    # the router scores all 768 slots; the checkpoint stores the 512 real experts one by one
    assert shapes["model.layers.0.mlp.router.classifier.weight"] == (768, 6144)
    assert shapes["model.layers.0.mlp.experts.511.down_proj.weight"] == (6144, 2048)
    assert "model.layers.0.mlp.experts.512.down_proj.weight" not in shapes
    assert "model.layers.28.mlps.0.up_proj.weight" not in shapes


@slow
def test_longcat_weight_shapes_match_the_build_tensor_by_tensor():
    """Two layers, 8 experts + 4 zero experts: every tensor but the fused experts has
    transformers' name and shape; the checkpoint's per-expert tensors add up to the real
    experts of the fused ones."""
    d = dict(fixture_json("longcat_flash_class_defaults.json"), num_layers=2, n_routed_experts=8,
             zero_expert_num=4, moe_topk=6)
    meta = {k: tuple(v.shape) for k, v in transformers_ref.meta_model(d).state_dict().items()}
    ws = lc.weight_shapes(lc.from_hf_config(d))
    experts = ws["component"] == "experts"
    ours = dict(zip(ws.loc[~experts, "name"], ws.loc[~experts, "shape"]))
    fused = {n for n in meta if n.endswith(("experts.gate_up_proj", "experts.down_proj"))}
    assert ours == {n: s for n, s in meta.items() if n not in fused}
    m = transformers_ref.meta_model(d)
    routed = transformers_ref.routed_expert_params(m) - zero_slot_params(m, None)
    assert int(ws.loc[experts, "numel"].sum()) == routed
    assert set(ws.loc[experts, "expert"]) == set(range(8))


# --- multi-token prediction: shipped in the checkpoint, not built by transformers ----------


@slow
@pytest.mark.parametrize("name,moe_layer_at,extra", [
    # GLM: layer 46 is a whole MoE layer with its own embedding and head, enorm, hnorm,
    # shared_head.norm (3 x H) and eh_proj (H x 2H)
    ("GLM-4.5-Air", 2, lambda c: 2 * c.vocab_size * c.hidden_size + 2 * c.hidden_size ** 2
     + 3 * c.hidden_size),
    # Qwen3-Next: mtp.layers.0 is a full-attention MoE layer; mtp.fc (H x 2H) and three norms
    ("Qwen3-Next-80B-A3B", 4, lambda c: 2 * c.hidden_size ** 2 + 3 * c.hidden_size),
])
def test_mtp_weights_are_listed_not_counted(name, moe_layer_at, extra):
    cfg = lc.load_model(name)
    ws = lc.weight_shapes(cfg)
    mtp = ws[ws["note"] == "mtp, not built by transformers"]
    assert len(mtp) and (mtp["layer"] == -1).all()
    assert int(ws[ws["note"] == ""]["numel"].sum()) == lc.param_count(cfg).total
    # one more decoder layer of the right kind, as transformers builds it, plus the extras
    layer = (transformers_ref.meta_total(cfg.replace(num_hidden_layers=moe_layer_at).to_hf_config())
             - transformers_ref.meta_total(
                 cfg.replace(num_hidden_layers=moe_layer_at - 1).to_hf_config()))
    params = mtp[~mtp["name"].str.endswith("e_score_correction_bias")]  # GLM's buffer
    assert int(params["numel"].sum()) == layer + extra(cfg)


# --- mixture-of-experts families of their own lineages (llmcourse/families/moe.py) ----------

# real configs kept as fixtures (tests/fixtures/configs/): the totals transformers 5.23 builds
# from them (tests/test_exact_vs_transformers.py holds the builds), written down, and the
# sizes their model cards publish
MOE_FIXTURES = {
    # OLMoE: "OLMoE-1B-7B has 7 billion (B) parameters but uses only 1B per input token" (its
    # paper's abstract, arXiv 2409.02060, as transformers' docs/source/en/model_doc/olmoe.md
    # quotes it)
    "configs/OLMoE-1B-7B-0125-Instruct.json": (6_919_161_856, "7B", "1B"),
    # Trinity Nano: 6B total, 1B active per token (Arcee's Trinity technical report)
    "configs/Trinity-Nano-Preview.json": (6_120_003_328, "6B", "1B"),
    # ERNIE-4.5-21B-A3B: 21B total, 3B active (its name and model card)
    "configs/ERNIE-4.5-21B-A3B-PT_trimmed.json": (21_825_437_888, "21B", "3B"),
    # Granite 3.1 3B-A800M: 3.3B total, 800M active (its name and model card)
    "configs/granite-3.1-3b-a800m-instruct_trimmed.json": (3_298_793_472, "3.3B", "0.8B"),
}


@pytest.mark.parametrize("name", sorted(MOE_FIXTURES))
def test_moe_fixtures_have_their_built_and_published_sizes(name):
    total, *published = MOE_FIXTURES[name]
    pc = lc.param_count(fixture_json(name))
    assert pc.total == total
    for count, text in zip((pc.total, pc.active), published):
        assert abs(count / 1e9 - float(text[:-1])) < 0.05 * float(text[:-1]) + 0.5, (count, text)


def test_jetmoe_counts_both_expert_sets_by_hand():
    """JetMoE routes a token to k of E attention experts (each its own query and output
    projection) and k of E MLP experts; the key-value projection, the biases after each set,
    the routers and the norms every token uses. Tiny: hidden 32, 2 KV heads of 8 (16 wide),
    4 experts top-2, experts 8 wide, 2 layers, vocabulary 64, the head tied."""
    from families.jetmoe import TINY
    attn_experts = 4 * 16 * 32 + 4 * 32 * 16          # input_linear, output_linear
    mlp_experts = 4 * (2 * 8) * 32 + 4 * 32 * 8         # gate and up fused, down
    shared = 32 + 4 * 32 + 2 * 16 * 32 + 32 + 4 * 32 + 2 * 32   # biases, routers, kv_proj, norms
    total = 2 * (attn_experts + mlp_experts + shared) + 64 * 32 + 32
    pc = lc.param_count(TINY)
    assert pc.total == total == 19_232
    assert pc.active == total - 2 * (attn_experts + mlp_experts) // 2   # 2 of 4 unused
    # its cache: K and V of the 2 shared KV heads, 2 layers, fp32
    assert lc.kv_cache_bytes(TINY, 100, dtype="fp32") == 2 * 2 * 2 * 8 * 100 * 4


def test_checkpoint_names_real_checkpoints_hold():
    """Where a family's checkpoints name tensors otherwise than transformers' modules (its
    conversion_mapping.py renames and fuses them on load), weight_shapes lists the
    checkpoint's: EXAONE MoE's router bias beside the gate, ERNIE 4.5's frozen bias (a
    parameter, so counted) under moe_statics, Aria's fused fc1 and fc2, Granite-MoE's
    input_linear, Phi-MoE's Mixtral names, and every expert one by one where stored so."""
    def names(d):
        return set(lc.weight_shapes(d)["name"])
    small = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                 num_key_value_heads=4, vocab_size=100, intermediate_size=32)
    exaone = names(dict(small, model_type="exaone_moe", moe_intermediate_size=16,
                        num_experts=4, num_experts_per_tok=2))
    assert "model.layers.1.mlp.e_score_correction_bias" in exaone
    assert "model.layers.1.mlp.experts.3.down_proj.weight" in exaone
    ernie = lc.weight_shapes(dict(small, model_type="ernie4_5_moe", moe_intermediate_size=16,
                                  moe_num_experts=4, moe_k=2))
    row = ernie[ernie["name"] == "model.layers.1.mlp.moe_statics.e_score_correction_bias"]
    assert row["shape"].iloc[0] == (1, 4) and row["note"].iloc[0] == ""
    assert {"model.layers.0.mlp.experts.fc1.weight", "model.layers.0.mlp.experts.fc2.weight"} \
        <= names(dict(small, model_type="aria_text", moe_num_experts=4, moe_topk=2))
    assert "model.layers.0.block_sparse_moe.input_linear.weight" in names(
        dict(small, model_type="granitemoe", num_local_experts=4))
    assert "model.layers.0.block_sparse_moe.experts.3.w2.weight" in names(
        dict(small, model_type="phimoe", num_local_experts=4))
