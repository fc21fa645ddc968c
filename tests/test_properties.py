"""Property tests on random valid configs: what must hold whatever the sizes (the same configs
against transformers: tests/test_exact_vs_transformers.py, their rows in tests/family_rows.py)."""

from hypothesis import given
from hypothesis import strategies as st

import llmcourse as lc
from family_rows import zoo_based_configs


def configs(model_types=("llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "mixtral", "gemma2",
                         "phi", "gpt_oss", "deepseek_v2", "deepseek_v3"), small=False):
    """A valid config: a zoo model of a drawn type with drawn sizes (tests/family_rows.py)."""
    return zoo_based_configs(model_types, small).map(lc.from_hf_config)


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
