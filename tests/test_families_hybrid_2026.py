"""The hybrid stretch families of "The models of 2026": Granite 4.0 (granitemoehybrid: Mamba-2
layers and a few attention layers, routed experts beside a shared MLP) and LFM2-MoE (lfm2_moe:
gated short-convolution layers and a few attention layers, dense then routed MLPs).

Every count is held against transformers 5.23 building the model on the meta device (the zoo
config, random configs of each type, the form save_pretrained writes back), against the state
a tiny model holds after a CPU prefill, and against what PyTorch counts in one decode step.
"""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)

pytestmark = pytest.mark.slow

ZOO = Path(lc.zoo.CONFIG_DIR)


def _zoo(name):
    return json.loads((ZOO / f"{name}.json").read_text(encoding="utf-8"))


def _built(d):
    """(total parameters, routed-expert parameters, {state-dict name: shape}) as built."""
    m = transformers_ref.meta_model(d)
    return (sum(p.numel() for p in m.parameters()), transformers_ref.routed_expert_params(m),
            {k: tuple(v.shape) for k, v in m.state_dict().items()})


def _counts_as_built(d):
    cfg = lc.from_hf_config(d)
    total, routed, _ = _built(d)
    pc = lc.param_count(cfg)
    assert pc.total == total
    if cfg.is_moe:
        E, k = cfg.num_experts, cfg.num_experts_per_tok
        assert pc.routed_experts == routed
        assert pc.active == total - routed // E * (E - k)
    else:
        assert routed == 0 and pc.active == total
    return cfg


def _figures(cfg):
    pc = lc.param_count(cfg)
    return dict(total=pc.total, active=pc.active, kv=lc.kv_cache_bytes(cfg, 4096),
                state=lc.linear_state_bytes(cfg),
                prefill=lc.flops_per_token(cfg, 4096).total,
                decode=lc.flops_per_token(cfg, 4096, mode="decode").total,
                experts=cfg.num_experts, top_k=cfg.num_experts_per_tok)


def _saved(d, tmp_path):
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    return json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))


# --- Granite 4.0 ------------------------------------------------------------------------------

# checkpoint names (ours) -> the names transformers 5.23 loads them under
_GRANITE_RENAMES = (("block_sparse_moe.input_linear.weight", "block_sparse_moe.experts.gate_up_proj"),
                    ("block_sparse_moe.output_linear.weight", "block_sparse_moe.experts.down_proj"),
                    ("block_sparse_moe.router.layer.weight", "block_sparse_moe.router.weight"))


def _granite_transformers_name(name):
    for ours, theirs in _GRANITE_RENAMES:
        name = name.replace(ours, theirs)
    return name


def test_granite_350m_is_the_published_size_and_transformers_build():
    """granite-4.0-h-350m: 28 Mamba-2 and 4 attention layers, no experts. transformers 5.23
    builds 340,332,224 parameters (its card: "340M"), every tensor by the checkpoint's name."""
    cfg = _counts_as_built(_zoo("granite-4.0-h-350m"))
    total, _, shapes = _built(_zoo("granite-4.0-h-350m"))
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


def test_granite_350m_cache_and_state_by_hand():
    """4 attention layers cache K and V of 4 heads of 64; 28 Mamba-2 layers hold 48 heads of
    32 x 128 and the convolution's last 4 inputs of 1536 + 2 x 128 channels, per sequence."""
    cfg = lc.load_model("granite-4.0-h-350m")
    assert lc.kv_cache_bytes(cfg, 10_000) == 4 * 2 * 4 * 64 * 2 * 10_000
    assert lc.linear_state_bytes(cfg) == 28 * (48 * 32 * 128 + (1536 + 2 * 128) * 4) * 2


@st.composite
def granite_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    heads = kv * draw(st.integers(1, 3))
    E = draw(st.sampled_from([0, 0, 1, 2, 5]))
    expand = draw(st.integers(1, 3))
    hidden = heads * 2 * draw(d8)
    nh = draw(st.sampled_from([n for n in range(1, 9) if expand * hidden % n == 0]))
    d = {"model_type": "granitemoehybrid", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": hidden, "intermediate_size": 2 * draw(d8),
         "shared_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": heads, "num_key_value_heads": kv, "num_local_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)) if E else 0,
         "mamba_n_heads": nh, "mamba_n_groups": draw(st.integers(1, 3)),
         "mamba_d_state": draw(d8), "mamba_d_conv": draw(st.integers(1, 4)),
         "mamba_expand": expand, "mamba_conv_bias": draw(st.booleans()),
         "mamba_proj_bias": draw(st.booleans()), "attention_bias": draw(st.booleans()),
         "tie_word_embeddings": draw(st.booleans()),
         "position_embedding_type": draw(st.sampled_from([None, "nope", "rope"]))}
    if draw(st.booleans()):
        d["mamba_d_head"] = expand * hidden // nh
    form = draw(st.sampled_from(["hub", "saved", "alias", "none"]))
    kinds = draw(st.lists(st.booleans(), min_size=L, max_size=L))  # True: attention
    if form == "hub":
        d["layer_types"] = ["attention" if a else "mamba" for a in kinds]
    elif form == "saved":
        d["layer_types"] = ["full_attention" if a else "linear_attention" for a in kinds]
    elif form == "alias":  # transformers' attribute_map: layers_block_type is layer_types
        d["layers_block_type"] = ["attention" if a else "mamba" for a in kinds]
    return d


def test_random_granite_configs_match_transformers():
    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(granite_configs())
    def check(d):
        cfg = _counts_as_built(d)
        assert cfg.is_moe == bool(d["num_local_experts"])
        # a deeper copy, as a reader edits it, is still the build
        deeper = cfg.replace(num_hidden_layers=cfg.num_hidden_layers + 1)
        assert lc.param_count(deeper).total == _built(deeper.to_hf_config())[0]
    check()


GRANITE_MOE = {"model_type": "granitemoehybrid", "vocab_size": 64, "hidden_size": 32,
               "intermediate_size": 8, "shared_intermediate_size": 12, "num_hidden_layers": 4,
               "num_attention_heads": 4, "num_key_value_heads": 2,
               "layer_types": ["mamba", "attention", "mamba", "attention"],
               "num_local_experts": 4, "num_experts_per_tok": 2, "mamba_n_heads": 4,
               "mamba_n_groups": 2, "mamba_d_state": 6, "mamba_d_conv": 3, "mamba_chunk_size": 4,
               "tie_word_embeddings": True}


def test_granite_moe_weight_shapes_are_the_checkpoints():
    """The checkpoint stores each layer's experts fused (block_sparse_moe.input_linear:
    experts x (gate + up) x hidden; output_linear), and the router as router.layer;
    transformers renames them on load. Every other tensor has transformers' own name."""
    cfg = lc.from_hf_config(GRANITE_MOE)
    total, routed, shapes = _built(GRANITE_MOE)
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


def test_granite_saved_form_counts_the_same(tmp_path):
    """save_pretrained writes layer_types as linear_attention / full_attention and
    mamba_d_head as a number; the zoo model and a MoE Granite count the same read back."""
    for i, d in enumerate((_zoo("granite-4.0-h-350m"), GRANITE_MOE,
                           dict(GRANITE_MOE, layer_types=None, num_hidden_layers=3))):
        saved = _saved(d, tmp_path / str(i))
        if d.get("layer_types"):
            assert set(saved["layer_types"]) == {"linear_attention", "full_attention"}
        else:
            assert saved["layer_types"] == ["linear_attention"] * 3
        assert isinstance(saved["mamba_d_head"], int)
        assert _figures(lc.from_hf_config(saved)) == _figures(lc.from_hf_config(d))
        assert lc.param_count(lc.from_hf_config(saved)).total == _built(saved)[0]


def test_granite_states_equal_what_transformers_caches():
    """A tiny Granite 4.0 after a CPU prefill: its two Mamba-2 layers hold the conv and SSM
    states, its two attention layers K and V; the experts hold nothing."""
    cfg = lc.from_hf_config(GRANITE_MOE)
    seq, batch = 7, 2
    model, cache = transformers_ref.tiny_prefill(GRANITE_MOE, seq, batch)
    states, kv = transformers_ref.cache_numbers(cache)
    # by hand: 4 heads of 16 (2 x 32 / 4) x state 6, conv of 64 + 2 x 2 x 6 channels x 3
    assert states == 2 * (4 * 16 * 6 + (64 + 24) * 3) * batch
    assert kv == 2 * 2 * 2 * 8 * seq * batch
    assert states == lc.linear_state_bytes(cfg, batch=batch, dtype="fp32") // 4
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4
    assert lc.param_count(cfg).total == sum(p.numel() for p in model.parameters())


def test_granite_decode_step_flops_against_pytorch():
    """One decode step (tests/test_flops_torch.py's harness), Mamba-2 as for Nemotron-H: PyTorch
    counts the read-out (a bmm) but not the elementwise decayed update (the engine's other
    2 h p N), and transformers' decode convolution once more over its window."""
    from test_flops_torch import decode_step_flops
    counted, ours = decode_step_flops(GRANITE_MOE)
    h, p, N, k, mamba_layers = 4, 16, 6, 3, 2
    update = mamba_layers * 2 * h * p * N
    conv_once = mamba_layers * 2 * (h * p + 2 * 2 * N) * k
    assert ours.attention > 0
    assert counted == ours.total - update + conv_once


def test_granite_bad_values_are_one_line_errors():
    base = _zoo("granite-4.0-h-350m")
    for field, value in (("mamba_n_heads", 7), ("mamba_d_head", 16), ("mamba_d_head", "big"),
                         ("layer_types", ["mamba"] * 31), ("layer_types", ["conv"] * 32),
                         ("layers_block_type", ["mamba"]), ("mamba_d_state", 0),
                         ("mamba_conv_bias", "yes"), ("position_embedding_type", 1),
                         ("shared_intermediate_size", None), ("mamba_d_head", None)):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config(dict(base, **{field: value}))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(field), msg
    for field, value in (("num_experts_per_tok", 5), ("num_local_experts", -1),
                         ("num_local_experts", None)):
        with pytest.raises(ValueError, match=f"^{field}"):
            lc.from_hf_config(dict(GRANITE_MOE, **{field: value}))
    # no experts: the shared MLP alone, whatever top-k says (Granite 4.0-H-350M writes 0)
    assert not lc.from_hf_config(dict(GRANITE_MOE, num_local_experts=0)).is_moe


def test_granite_full_attention_what_if_and_table():
    """The MHA/full-attention baseline turns the Mamba-2 layers into attention (a config
    transformers builds), and the layer table names Granite's Mamba-2 sizes."""
    cfg = lc.load_model("granite-4.0-h-350m")
    base = lc.sizing.mha_baseline(cfg, full_attention=True)
    assert lc.linear_state_bytes(base) == 0
    assert lc.param_count(base).total == _built(base.to_hf_config())[0]
    assert lc.tables.anatomy.layer_kind(cfg, 0).startswith("Mamba-2, 48 heads of 32, state 128")


# --- LFM2-MoE ---------------------------------------------------------------------------------

FIXTURES = Path(__file__).parent / "fixtures"


def _lfm2_8b():
    return json.loads((FIXTURES / "lfm2_moe_8b_a1b_trimmed.json").read_text(encoding="utf-8"))


def test_lfm2_8b_a1b_is_the_published_size_and_transformers_build():
    """LFM2-8B-A1B (tests/fixtures/README.md): transformers 5.23 builds 8,339,929,856
    parameters, 1,557,740,288 of them used per token (published: "8.3B total, 1.5B active")."""
    cfg = _counts_as_built(_lfm2_8b())
    pc = lc.param_count(cfg)
    assert (pc.total, pc.active) == (8_339_929_856, 1_557_740_288)
    assert pc.total // 10**8 == 83 and pc.active // 10**8 == 15  # the card's 8.3B and 1.5B
    n = cfg.layer_schedule.counts()
    assert sum(c for k, c in n.items() if k.attention == "conv") == 18
    assert sum(c for k, c in n.items() if k.mlp == "dense") == 2


def test_lfm2_cache_and_state_by_hand():
    """6 attention layers cache K and V of 8 heads of 64; 18 short-convolution layers keep the
    last 3 inputs of 2048 channels, per sequence, whatever the context."""
    cfg = lc.from_hf_config(_lfm2_8b())
    assert lc.kv_cache_bytes(cfg, 10_000) == 6 * 2 * 8 * 64 * 2 * 10_000
    assert lc.linear_state_bytes(cfg) == 18 * 2048 * 3 * 2


@st.composite
def lfm2_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    heads = kv * draw(st.integers(1, 3))
    E = draw(st.integers(1, 5))
    d = {"model_type": "lfm2_moe", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": heads * 2 * draw(d8), "intermediate_size": 2 * draw(d8),
         "moe_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": heads, "num_key_value_heads": kv, "num_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "pad_token_id": 0,
         "num_dense_layers": draw(st.integers(0, L + 1)),
         "conv_L_cache": draw(st.integers(1, 5)), "conv_bias": draw(st.booleans()),
         "use_expert_bias": draw(st.booleans()),
         "layer_types": draw(st.lists(st.sampled_from(["conv", "full_attention"]),
                                      min_size=L, max_size=L))}
    tie = draw(st.sampled_from([None, "tie_word_embeddings", "tie_embedding"]))
    if tie:  # LFM2's own name, tie_embedding, wins over the standard one
        d[tie] = draw(st.booleans())
    return d


def test_random_lfm2_configs_match_transformers():
    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(lfm2_configs())
    def check(d):
        cfg = _counts_as_built(d)
        deeper = cfg.replace(num_hidden_layers=cfg.num_hidden_layers + 1)
        assert lc.param_count(deeper).total == _built(deeper.to_hf_config())[0]
    check()


LFM2_TINY = {"model_type": "lfm2_moe", "vocab_size": 64, "hidden_size": 32,
             "intermediate_size": 24, "moe_intermediate_size": 8, "num_hidden_layers": 4,
             "num_attention_heads": 4, "num_key_value_heads": 2,
             "layer_types": ["conv", "full_attention", "conv", "full_attention"],
             "num_experts": 4, "num_experts_per_tok": 2, "num_dense_layers": 1,
             "conv_L_cache": 3}


def test_lfm2_weight_shapes_are_the_checkpoints():
    """The checkpoint stores each expert's w1, w3, w2 (transformers fuses them on load into
    gate_up_proj and down_proj); every other tensor, the expert_bias buffer included, has
    transformers' name and shape."""
    cfg = lc.from_hf_config(LFM2_TINY)
    total, routed, shapes = _built(LFM2_TINY)
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


def test_lfm2_saved_form_counts_the_same(tmp_path):
    """save_pretrained writes tie_word_embeddings (not tie_embedding) and every default."""
    for i, d in enumerate((_lfm2_8b(), dict(LFM2_TINY, tie_embedding=False))):
        saved = _saved(d, tmp_path / str(i))
        assert "tie_embedding" not in saved
        assert _figures(lc.from_hf_config(saved)) == _figures(lc.from_hf_config(d))


def test_lfm2_states_equal_what_transformers_caches():
    """A tiny LFM2-MoE after a CPU prefill: each short-convolution layer keeps the last
    conv_L_cache inputs of hidden_size channels, each attention layer K and V."""
    cfg = lc.from_hf_config(LFM2_TINY)
    seq, batch = 7, 2
    model, cache = transformers_ref.tiny_prefill(LFM2_TINY, seq, batch)
    states, kv = transformers_ref.cache_numbers(cache)
    assert states == 2 * 32 * 3 * batch
    assert kv == 2 * 2 * 2 * 8 * seq * batch
    assert states == lc.linear_state_bytes(cfg, batch=batch, dtype="fp32") // 4
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4
    assert lc.param_count(cfg).total == sum(p.numel() for p in model.parameters())


def test_lfm2_decode_step_flops_against_pytorch():
    """One decode step (tests/test_flops_torch.py's harness): the engine counts the
    convolution's taps as weights, 2 x hidden x conv_L_cache per conv layer; transformers'
    decode step (causal_conv1d_update) convolves the cached inputs and the new one without
    padding, two output positions, and keeps the last: the convolution once more, as for
    Mamba-2. Everything else (projections, gates' weights, experts, attention) equal."""
    from test_flops_torch import decode_step_flops
    counted, ours = decode_step_flops(LFM2_TINY)
    conv_once = 2 * (2 * 32 * 3)   # 2 conv layers, hidden 32, 3 taps
    assert ours.attention > 0
    assert counted == ours.total + conv_once


def test_lfm2_bad_values_are_one_line_errors():
    base = _lfm2_8b()
    for field, value in (("layer_types", None), ("layer_types", ["mamba"] * 24),
                         ("layer_types", ["conv"] * 23), ("conv_L_cache", 0),
                         ("num_dense_layers", -1), ("conv_bias", "no"),
                         ("num_experts_per_tok", 33), ("num_experts", 0)):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config(dict(base, **{field: value}))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(field), msg
