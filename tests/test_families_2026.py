"""The models of 2026 the engine reads so far (issue 21): Qwen3.5 and Qwen3.6.

Their real config.json files in the zoo (as published: a multimodal wrapper whose
text_config is the language model; sources in llmcourse/configs/README.md) count exactly as
transformers 5.23 builds them on the meta device, in total, in active parameters and
tensor by tensor; shrunk variants and random what-ifs do too, and so does the form
transformers writes back with save_pretrained.
"""

import json
from pathlib import Path

import pytest

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)

pytestmark = pytest.mark.slow

DATA = Path(lc.zoo.CONFIG_DIR)
REAL = {"Qwen3.5-0.8B-Base": ("qwen3_5", 752_393_024),
        "Qwen3.6-35B-A3B": ("qwen3_5_moe", 34_660_610_688)}


def _published(name):
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def _meta(d):
    m = transformers_ref.meta_model(d)
    return (sum(p.numel() for p in m.parameters()), transformers_ref.routed_expert_params(m),
            {k: tuple(v.shape) for k, v in m.state_dict().items()})


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_config_counts_as_transformers_builds_it(name):
    d = _published(name)
    cfg = lc.from_hf_config(d)
    assert d["model_type"] == REAL[name][0] and cfg.is_multimodal
    total, routed, _ = _meta(d)
    assert total == REAL[name][1]  # the meta build, written down: a change shows here too
    pc = lc.param_count(cfg)
    assert pc.total == total
    if cfg.is_moe:
        E, k = cfg.num_experts, cfg.num_experts_per_tok
        assert pc.active == total - routed // E * (E - k)
    else:
        assert routed == 0 and pc.active == total


def test_dense_qwen3_5_tensor_by_tensor():
    """Every tensor name and shape of the language model, as transformers names them
    (model.layers...: the text model built from text_config)."""
    d = _published("Qwen3.5-0.8B-Base")
    _, _, meta = _meta(d)
    ws = lc.weight_shapes(lc.from_hf_config(d))
    mtp = ws["note"].str.contains("mtp")  # listed beside the model, never built or counted
    assert mtp.sum() == 15 and all(n.startswith("mtp.") for n in ws[mtp]["name"])
    ours = dict(zip(ws[~mtp]["name"], ws[~mtp]["shape"]))
    assert ours == meta


def test_three_to_one_deltanet_and_a_fixed_state():
    cfg = lc.from_hf_config(_published("Qwen3.6-35B-A3B"))
    assert cfg.layer_types.counts() == {"linear_attention": 30, "full_attention": 10}
    # the cache grows only in the 10 full layers: 2 KV heads of 256, bf16
    assert lc.kv_cache_bytes(cfg, 8192) == 10 * 2 * 2 * 256 * 2 * 8192
    # 30 DeltaNet layers hold a fixed state whatever the context
    assert lc.linear_state_bytes(cfg) == lc.linear_state_bytes(
        lc.from_hf_config(_published("Qwen3.6-35B-A3B")))
    assert lc.linear_state_bytes(cfg) > 0


@pytest.mark.parametrize("name", sorted(REAL))
def test_shrunk_and_saved_forms_count_the_same(name, tmp_path):
    d = _published(name)
    text = dict(d["text_config"], num_hidden_layers=4, layer_types=d["text_config"]["layer_types"][:4])
    if "num_experts" in text:
        text.update(num_experts=8, num_experts_per_tok=2)
    small = dict(d, text_config=text)
    total, _, _ = _meta(small)
    cfg = lc.from_hf_config(small)
    assert lc.param_count(cfg).total == total
    transformers_ref.hf_config(small).save_pretrained(tmp_path)
    saved = lc.from_hf_config(json.loads((tmp_path / "config.json").read_text()))
    assert lc.param_count(saved).total == total
    assert lc.kv_cache_bytes(saved, 4096) == lc.kv_cache_bytes(cfg, 4096)
    assert lc.flops_per_token(saved, 4096).total == lc.flops_per_token(cfg, 4096).total


def test_bad_values_are_one_line_errors():
    d = _published("Qwen3.6-35B-A3B")
    for field, value in (("linear_num_value_heads", 20), ("full_attention_interval", 0),
                         ("num_experts_per_tok", 300), ("linear_key_head_dim", None)):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config(dict(d, text_config=dict(d["text_config"], **{field: value})))
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(f"text_config.{field}"), msg


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def qwen3_5_configs(draw, moe):
    """A small random Qwen3.5 (dense) or Qwen3.6-style (MoE) text config, written from
    scratch; layer_types sometimes listed, sometimes left to full_attention_interval."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 6))
    kv = draw(st.integers(1, 3))
    kh = draw(st.integers(1, 3))
    d = {"model_type": "qwen3_5_moe_text" if moe else "qwen3_5_text",
         "vocab_size": draw(st.integers(2, 300)), "hidden_size": 4 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": kv * draw(st.integers(1, 3)),
         "num_key_value_heads": kv, "head_dim": 2 * draw(d8), "max_position_embeddings": 64,
         "linear_num_key_heads": kh, "linear_num_value_heads": kh * draw(st.integers(1, 3)),
         "linear_key_head_dim": 2 * draw(d8), "linear_value_head_dim": 2 * draw(d8),
         "linear_conv_kernel_dim": draw(st.integers(1, 4)),
         "tie_word_embeddings": draw(st.booleans())}
    if draw(st.booleans()):
        d["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                                         min_size=L, max_size=L))
    else:
        d["full_attention_interval"] = draw(st.integers(1, 4))
    if moe:
        E = draw(st.integers(1, 8))
        d.update(num_experts=E, num_experts_per_tok=draw(st.integers(1, E)),
                 moe_intermediate_size=2 * draw(d8), shared_expert_intermediate_size=2 * draw(d8))
    else:
        d["intermediate_size"] = 4 * draw(d8)
    return d


@pytest.mark.parametrize("moe", [False, True], ids=["qwen3_5_text", "qwen3_5_moe_text"])
def test_random_configs_match_transformers(moe):
    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(qwen3_5_configs(moe))
    def check(d):
        cfg = lc.from_hf_config(d)
        total, routed, _ = _meta(d)
        pc = lc.param_count(cfg)
        assert pc.total == total
        if cfg.is_moe:
            E, k = cfg.num_experts, cfg.num_experts_per_tok
            assert pc.active == total - routed // E * (E - k)
        else:
            assert routed == 0 and pc.active == total
    check()


@pytest.mark.parametrize("moe", [False, True], ids=["qwen3_5_text", "qwen3_5_moe_text"])
def test_states_equal_what_transformers_caches(moe):
    """A tiny Qwen3.5 on the CPU after a prefill: the conv and recurrent states it keeps hold
    linear_state_bytes(fp32)/4 numbers, its K/V tensors kv_cache_bytes(fp32)/4."""
    d = {"model_type": "qwen3_5_moe_text" if moe else "qwen3_5_text", "vocab_size": 64,
         "hidden_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4,
         "num_key_value_heads": 2, "head_dim": 8, "linear_num_key_heads": 2,
         "linear_num_value_heads": 4, "linear_key_head_dim": 6, "linear_value_head_dim": 10,
         "linear_conv_kernel_dim": 3, "full_attention_interval": 2}
    d.update(dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=8,
                  shared_expert_intermediate_size=8) if moe else dict(intermediate_size=16))
    cfg = lc.from_hf_config(d)
    seq, batch = 7, 2
    _, cache = transformers_ref.tiny_prefill(d, seq, batch)
    states, kv = transformers_ref.cache_numbers(cache)
    assert states > 0 and kv > 0
    assert states == lc.linear_state_bytes(cfg, batch=batch, dtype="fp32") // 4
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4
