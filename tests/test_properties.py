"""Property tests on random valid configs, and random configs checked against transformers."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmcourse as lc
import transformers_ref

ZOO = lc.list_models()


@st.composite
def configs(draw, model_types=("llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "mixtral",
                               "gemma2", "phi", "gpt_oss", "deepseek_v2", "deepseek_v3"),
            small=False):
    """A valid config: a zoo model of a drawn type with drawn sizes."""
    mt = draw(st.sampled_from(model_types))
    # (a multimodal wrapper's file is not a text config: Kimi K2.5 holds DeepSeek-V3's inside)
    base = lc.load_model(draw(st.sampled_from([n for n in ZOO if lc.load_model(n).model_type == mt
                                               and not lc.load_model(n).is_multimodal]
                                              or ["Meta-Llama-3-8B"])))
    d = base.to_hf_config()
    d["model_type"] = mt
    dim = st.integers(1, 8) if small else st.integers(1, 64)
    kv = draw(st.integers(1, 8))
    d["num_key_value_heads"] = kv
    d["num_attention_heads"] = kv * draw(st.integers(1, 4))
    d["head_dim"] = 2 * draw(dim)
    d["hidden_size"] = d["num_attention_heads"] * draw(dim) * 2
    d["intermediate_size"] = draw(dim) * 4
    d["vocab_size"] = draw(st.integers(1, 500))
    d["num_hidden_layers"] = draw(st.integers(1, 6))
    d["tie_word_embeddings"] = draw(st.booleans())
    d.pop("layer_types", None)
    for token in ("pad_token_id", "bos_token_id", "eos_token_id"):  # ids past a tiny vocab
        d.pop(token, None)
    if mt == "phi":
        d.pop("head_dim")
        d["hidden_size"] = d["num_attention_heads"] * 2 * draw(dim)
    if mt in ("qwen3_moe", "mixtral", "gpt_oss", "deepseek_v2", "deepseek_v3"):
        field = {"qwen3_moe": "num_experts", "deepseek_v2": "n_routed_experts",
                 "deepseek_v3": "n_routed_experts"}.get(mt, "num_local_experts")
        d[field] = draw(st.integers(1, 8))
        d["num_experts_per_tok"] = draw(st.integers(1, d[field]))
        d["moe_intermediate_size"] = draw(dim) * 2
    if mt.startswith("deepseek"):
        d.update(kv_lora_rank=draw(dim) * 2, qk_rope_head_dim=2 * draw(dim),
                 qk_nope_head_dim=2 * draw(dim), v_head_dim=2 * draw(dim),
                 q_lora_rank=draw(st.one_of(st.none(), dim.map(lambda x: 2 * x))),
                 n_shared_experts=draw(st.integers(0, 2)),
                 first_k_dense_replace=draw(st.integers(0, d["num_hidden_layers"])),
                 n_group=1, topk_group=1)
    if mt == "gpt_oss":
        d["sliding_window"] = draw(st.integers(1, 256))
    return lc.from_hf_config(d)


@given(configs())
def test_no_crash_and_total_at_least_active(cfg):
    pc = lc.param_count(cfg)
    assert pc.total >= pc.active > 0
    assert sum(pc.components.values()) == pc.total
    assert lc.kv_cache_bytes(cfg, 100) >= 0
    f = lc.flops_per_token(cfg, 100)
    assert f.total >= f.matmul > 0


@given(configs(), st.integers(1, 5))
def test_more_layers_never_fewer_parameters(cfg, extra):
    deeper = cfg.replace(num_hidden_layers=cfg.num_hidden_layers + extra)
    assert lc.param_count(deeper).total > lc.param_count(cfg).total
    assert lc.param_count(deeper).active > lc.param_count(cfg).active


@given(configs(model_types=("llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "mixtral",
                            "gemma2", "phi", "gpt_oss")), st.data())
def test_fewer_kv_heads_never_a_larger_cache(cfg, data):
    heads = cfg.num_attention_heads
    divs = [d for d in range(1, heads + 1) if heads % d == 0]
    a, b = sorted(data.draw(st.lists(st.sampled_from(divs), min_size=2, max_size=2)))
    seq = data.draw(st.integers(0, 10_000))
    small, large = cfg.replace(num_key_value_heads=a), cfg.replace(num_key_value_heads=b)
    assert lc.kv_cache_bytes(small, seq) <= lc.kv_cache_bytes(large, seq)


@given(configs())
def test_to_hf_config_round_trip(cfg):
    assert lc.from_hf_config(cfg.to_hf_config()) == cfg
    assert lc.param_count(cfg.to_hf_config()).total == lc.param_count(cfg).total


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs(small=True))
def test_random_configs_match_transformers(cfg):
    """The strongest check: random small configs of every type, counted by transformers."""
    m = transformers_ref.meta_model(cfg.to_hf_config())
    meta = sum(p.numel() for p in m.parameters())
    assert lc.param_count(cfg).total == meta
