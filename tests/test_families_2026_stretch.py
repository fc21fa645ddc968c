"""The stretch families of "The models of 2026": LongCat-Flash (longcat_flash: two MLA
sublayers per layer, a shortcut-connected MoE with zero-computation experts).

Every count is held against transformers 5.23 building the model on the meta device (random
configs of each type, the form save_pretrained writes back) and against the cache a tiny model
holds after a CPU prefill.
"""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent / "fixtures"


def _fixture(name):
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


# --- LongCat-Flash ----------------------------------------------------------------------------

def _longcat_built(d):
    """transformers' meta build of a LongCat-Flash config, and its real weights.

    ``LongcatFlashExperts`` allocates ``gate_up_proj`` for every slot the router can pick,
    n_routed_experts + zero_expert_num, but ``down_proj`` only for the real experts: a
    zero-computation expert returns its input and never reads its slot. So the real count is
    the meta count minus the gate_up_proj slots beyond down_proj's, read off the built tensors.
    Returns (meta count, zero-slot parameters, real count, real routed-expert parameters,
    zero slots per layer)."""
    m = transformers_ref.meta_model(d)
    meta = sum(p.numel() for p in m.parameters())
    zero = routed = 0
    slots = set()
    for layer in m.model.layers:
        gate_up, down = layer.mlp.experts.gate_up_proj, layer.mlp.experts.down_proj
        n_zero = gate_up.shape[0] - down.shape[0]
        slots.add(n_zero)
        zero += n_zero * gate_up.shape[1] * gate_up.shape[2]
        routed += gate_up[:down.shape[0]].numel() + down.numel()
    assert len(slots) == 1
    return meta, zero, meta - zero, routed, slots.pop()


def _longcat_active(real, routed, d, cfg):
    """(most, fewest) parameters a token uses: all moe_topk picks real experts, or as many
    as there are zero experts fall on them."""
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    zero = d.get("zero_expert_num", 256) or 0
    per_expert = routed // E
    return real - per_expert * (E - k), real - per_expert * (E - max(k - zero, 0))


def test_longcat_counts_its_real_weights_not_transformers_zero_expert_slots():
    """The class defaults (tests/fixtures/README.md): transformers 5.23 builds 741.05B
    parameters, 180.39B of them gate_up_proj slots for the 256 zero-computation experts of
    each of the 28 layers, which hold no weights in the checkpoint. The engine counts the real
    560.66B (published: 560B)."""
    d = _fixture("longcat_flash_class_defaults.json")
    meta, zero, real, routed, slots = _longcat_built(d)
    assert slots == d["zero_expert_num"] == 256
    assert (meta, zero) == (741_053_585_408, 180_388_626_432)   # transformers' own numbers
    assert zero == 28 * 256 * 2 * 2048 * 6144                   # layers x slots x (2I x H)
    cfg = lc.from_hf_config(d)
    pc = lc.param_count(cfg)
    assert pc.total == real == 560_664_958_976
    assert abs(pc.total / 1e9 - 560) < 1
    assert pc.routed_experts == routed
    assert (pc.active, pc.active_min) == _longcat_active(real, routed, d, cfg)


def test_longcat_active_range_is_the_published_one():
    """Published: "activates 18.6B-31.3B parameters dynamically" (a top-12 pick may land on a
    zero expert). ``active`` is the most a token can use (all 12 picks real experts),
    ``active_min`` the fewest (all 12 on zero experts). Less the 0.8B input embedding table
    (a lookup, no compute), both ends land within 0.1B of the published range."""
    pc = lc.param_count(lc.from_hf_config(_fixture("longcat_flash_class_defaults.json")))
    assert pc.active_min < pc.active < pc.total
    assert pc.active - pc.active_min == 12 * 28 * 3 * 2048 * 6144   # 12 experts per layer
    for count, published in ((pc.active_min, 18.6), (pc.active, 31.3)):
        assert abs((count - pc.embedding) / 1e9 - published) < 0.1, count
    assert "to" in repr(pc)  # the range shows


def test_longcat_layers_are_two_mla_sublayers_and_one_moe():
    """Each of num_layers = 28 layers: two MLA attentions, two dense MLPs, one MoE (on the
    first sublayer's input); transformers counts the sublayers (num_hidden_layers = 56)."""
    d = _fixture("longcat_flash_class_defaults.json")
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


def test_longcat_weight_shapes_match_the_build_tensor_by_tensor():
    """Two layers, 8 experts + 4 zero experts: every tensor but the fused experts has
    transformers' name and shape; the checkpoint's per-expert tensors add up to the real
    experts of the fused ones."""
    d = dict(_fixture("longcat_flash_class_defaults.json"), num_layers=2, n_routed_experts=8,
             zero_expert_num=4, moe_topk=6)
    meta = {k: tuple(v.shape) for k, v in transformers_ref.meta_model(d).state_dict().items()}
    ws = lc.weight_shapes(lc.from_hf_config(d))
    experts = ws["component"] == "experts"
    ours = dict(zip(ws.loc[~experts, "name"], ws.loc[~experts, "shape"]))
    fused = {n for n in meta if n.endswith(("experts.gate_up_proj", "experts.down_proj"))}
    assert ours == {n: s for n, s in meta.items() if n not in fused}
    _, _, _, routed, _ = _longcat_built(d)
    assert int(ws.loc[experts, "numel"].sum()) == routed
    assert set(ws.loc[experts, "expert"]) == set(range(8))


@st.composite
def longcat_configs(draw):
    d8 = st.integers(1, 8)
    E = draw(st.integers(1, 5))
    zero = draw(st.integers(0, 4))
    heads = draw(st.integers(1, 4))
    d = {"model_type": "longcat_flash", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * draw(d8), "ffn_hidden_size": 2 * draw(d8),
         "expert_ffn_hidden_size": 2 * draw(d8), "num_attention_heads": heads,
         "kv_lora_rank": 2 * draw(d8), "q_lora_rank": 2 * draw(d8),
         "qk_rope_head_dim": 2 * draw(st.integers(1, 4)), "qk_nope_head_dim": 2 * draw(d8),
         "v_head_dim": 2 * draw(d8), "n_routed_experts": E, "zero_expert_num": zero,
         "moe_topk": draw(st.integers(1, E + zero)), "max_position_embeddings": 64,
         "attention_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans())}
    if draw(st.booleans()):
        d["num_layers"] = draw(st.integers(1, 3))
    else:  # transformers' num_hidden_layers (sublayers) sets num_layers to half of it
        d["num_hidden_layers"] = draw(st.integers(2, 7))
    if draw(st.booleans()):
        d["router_bias"] = True
    if draw(st.booleans()):  # the saved form writes it; a different one sizes q_b_proj
        d["qk_head_dim"] = d["qk_nope_head_dim"] + d["qk_rope_head_dim"] + 2 * draw(
            st.integers(0, 2))
    return d


def test_random_longcat_configs_match_the_build_less_zero_slots():
    @settings(max_examples=40, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(longcat_configs())
    def check(d):
        cfg = lc.from_hf_config(d)
        _, _, real, routed, slots = _longcat_built(d)
        assert slots == d["zero_expert_num"]
        assert cfg.num_hidden_layers == transformers_ref.hf_config(d).num_hidden_layers
        pc = lc.param_count(cfg)
        assert pc.total == real
        assert (pc.active, pc.active_min) == _longcat_active(real, routed, d, cfg)
    check()


def test_longcat_saved_form_counts_the_same(tmp_path):
    """save_pretrained writes num_layers (not num_hidden_layers) and qk_head_dim; a config
    that gives num_hidden_layers (56) means num_layers = 28, as transformers reads it."""
    d = dict(_fixture("longcat_flash_class_defaults.json"), num_layers=3, n_routed_experts=8,
             zero_expert_num=4, moe_topk=6)
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["num_layers"] == 3 and "num_hidden_layers" not in saved
    a, b = lc.from_hf_config(d), lc.from_hf_config(saved)
    for f in (lambda c: lc.param_count(c).total, lambda c: lc.param_count(c).active,
              lambda c: lc.param_count(c).active_min, lambda c: lc.kv_cache_bytes(c, 4096),
              lambda c: lc.flops_per_token(c, 4096).total):
        assert f(a) == f(b)
    assert lc.param_count(a).total == _longcat_built(d)[2]
    both = dict(d, num_hidden_layers=4)   # transformers: num_layers = 4 // 2, whatever it says
    assert lc.from_hf_config(both).num_hidden_layers == 4
    assert lc.param_count(lc.from_hf_config(both)).total == _longcat_built(both)[2]
    # a what-if depth lands where transformers reads it
    small = lc.from_hf_config(d).replace(num_hidden_layers=4)
    assert lc.param_count(small).total == _longcat_built(small.to_hf_config())[2]


LONGCAT_TINY = {"model_type": "longcat_flash", "vocab_size": 64, "hidden_size": 32,
                "ffn_hidden_size": 24, "expert_ffn_hidden_size": 8, "num_layers": 2,
                "num_attention_heads": 4, "kv_lora_rank": 8, "q_lora_rank": 12,
                "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6, "head_dim": 4,
                "n_routed_experts": 4, "zero_expert_num": 2, "moe_topk": 3}


def test_longcat_cache_equals_what_transformers_holds():
    """A tiny LongCat-Flash after a CPU prefill: each of its 2 x 2 attention sublayers caches
    MLA's latent (kv_lora_rank) and RoPE key per token; no fixed-size state."""
    cfg = lc.from_hf_config(LONGCAT_TINY)
    seq, batch = 7, 2
    model, cache = transformers_ref.tiny_prefill(LONGCAT_TINY, seq, batch)
    states, kv = transformers_ref.cache_numbers(cache)
    assert (states, kv) == (0, 2 * 2 * (8 + 4) * seq * batch)
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4
    assert lc.linear_state_bytes(cfg) == 0
    real = sum(p.numel() for p in model.parameters()) - 2 * 2 * (2 * 8 * 32)  # 2 zero slots
    assert lc.param_count(cfg).total == real


def test_longcat_decode_flops_by_hand():
    """Decode at 100,000 tokens: 56 MLA sublayers, 64 heads, q.k over 128 + 64 and the V
    sum over 128, 2 FLOPs per multiply-add; matmul: 2 x the weights a token multiplies when
    its 12 picks are all real experts (the lm_head, not the embedding lookup)."""
    cfg = lc.from_hf_config(_fixture("longcat_flash_class_defaults.json"))
    n = 100_000
    f = lc.flops_per_token(cfg, n, mode="decode")
    assert f.attention == 56 * 2 * 64 * (192 + 128) * n
    pc = lc.param_count(cfg)
    norms_and_buffers = pc.components["norms"]
    assert f.matmul == 2 * (pc.active - pc.embedding - norms_and_buffers)


def test_longcat_bad_values_are_one_line_errors():
    base = _fixture("longcat_flash_class_defaults.json")
    for field, value in (("moe_topk", 769), ("num_hidden_layers", 1), ("num_layers", 0),
                         ("q_lora_rank", None), ("zero_expert_num", -1),
                         ("expert_ffn_hidden_size", 0), ("router_bias", "yes")):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config(dict(base, **{field: value}))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(field), msg
    # the router picks among 512 experts and 256 zero experts: top-768 is allowed
    assert lc.from_hf_config(dict(base, moe_topk=768)).num_experts_per_tok == 768


def test_longcat_decode_step_flops_against_pytorch():
    """One decode step of a tiny LongCat-Flash (tests/test_flops_torch.py's harness). With no
    zero experts every pick is a real expert: PyTorch counts the engine's FLOPs plus, as for
    every MLA in transformers, the re-expansion of each cached latent through kv_b_proj
    (2 x num_layers sublayers). With zero experts, the step lies between the fewest and the
    most a token can use (active_min, active): which, depends on where its picks land."""
    from test_flops_torch import N, decode_step_flops
    d = dict(LONGCAT_TINY, zero_expert_num=0)
    counted, ours = decode_step_flops(d)
    kv_b = 8 * 4 * (6 + 6)
    reexpansion = 2 * d["num_layers"] * (N - 1) * 2 * kv_b
    assert counted == ours.total + reexpansion
    counted, ours = decode_step_flops(LONGCAT_TINY)
    pc = lc.param_count(lc.from_hf_config(LONGCAT_TINY))
    fewest = ours.total - 2 * (pc.active - pc.active_min)
    assert fewest + reexpansion <= counted <= ours.total + reexpansion
