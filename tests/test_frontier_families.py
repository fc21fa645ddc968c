"""2026's decoders (llmcourse/families/frontier.py and gemma4_variants.py) at their class
defaults, and what their own layers keep and compute, against transformers 5.23.

The generic checks (tests/test_exact_vs_transformers.py) draw small configs of each type and
read its real published configs; here each type's bare config class is built at full size on
the meta device (a 500B-parameter model costs nothing there) and counted tensor by tensor,
or, where transformers cannot build its defaults, refused by both.
"""

import pytest

import llmcourse as lc
import transformers_ref

slow = pytest.mark.slow

BUILT = ("axk1", "axk2", "beam", "dots3_note", "dots3_note_text", "flint", "hy_v3", "hy_v4",
         "inkling_text", "inkling2_text", "kolibri1", "laguna", "mimo_v2_flash",
         "minimax_m3_vl_text", "zaya", "gemma4_unified_text", "gemma4_unified")
# transformers 5.23 cannot build these at their class defaults (Cohere Compass needs
# rope_parameters per layer type; a Gemma 4 assistant cannot be built at all)
REFUSED = ("cohere_compass_text", "gemma4_assistant", "gemma4_unified_assistant")


@slow
@pytest.mark.parametrize("model_type", BUILT)
def test_class_defaults_count_as_transformers_builds_them(model_type):
    """``{"model_type": t}`` alone: the engine's totals, active and routed parameters and
    every tensor equal the full-size meta build of transformers' own defaults."""
    transformers_ref.counts_as_built({"model_type": model_type})


@slow
@pytest.mark.parametrize("model_type", REFUSED)
def test_class_defaults_transformers_cannot_build_are_refused(model_type):
    """Where transformers cannot build a type's defaults, the engine refuses them in one line
    naming the field."""
    with pytest.raises(Exception):
        transformers_ref.model_of({"model_type": model_type})
    with pytest.raises(ValueError) as e:
        lc.from_hf_config({"model_type": model_type})
    msg = str(e.value)
    assert "\n" not in msg and msg.split(":")[0] in ("rope_parameters", "model_type")


@slow
def test_a_gemma4_assistant_cannot_be_built_by_transformers_at_all():
    """The refusal is of the type, not of a config: a draft model whose every layer shares the
    target's K and V, as the assistants' config classes require, is refused by transformers'
    own config (the cache setup's rule), whatever its sizes."""
    from transformers import AutoConfig
    text = dict(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                num_attention_heads=2, num_key_value_heads=1, head_dim=32, global_head_dim=64,
                layer_types=["sliding_attention", "full_attention"])
    for mt, extra in (("gemma4_assistant", dict(model_type="gemma4_text",
                                                hidden_size_per_layer_input=0,
                                                vocab_size_per_layer_input=0)),
                      ("gemma4_unified_assistant", {})):
        config = AutoConfig.for_model(mt, text_config=dict(text, **extra))
        with pytest.raises(ValueError, match="producing a cache"):
            transformers_ref.causal_lm(config)
        with pytest.raises(ValueError, match="cannot build"):
            lc.from_hf_config({"model_type": mt, "text_config": dict(text, **extra)})


def test_hy3_checkpoint_size_is_its_published_total():
    """tencent/Hy3's model.safetensors.index.json gives metadata.total_size 597,572,342,272
    bytes (tests/families/hy_v3.py has the source): its 80 layers as counted here and, beside
    them, the MTP layer 80 transformers does not build, in bf16, with every layer's
    expert_bias (192) stored in fp32. The MTP layer by hand: attention (q and o 8,192 x
    4,096, k and v 1,024 x 4,096, two q/k norms of 128), 192 experts and a shared one of 3
    x 1,536 x 4,096, a router of 192 x 4,096, two layer norms, eh_proj (4,096 x 8,192) and
    its enorm, hnorm and final norm."""
    from config_files import fixture_json
    cfg = lc.from_hf_config(fixture_json("configs/Hy3.json"))
    H = 4096
    attention = 2 * 8192 * H + 2 * 1024 * H + 2 * 128
    moe = 193 * 3 * 1536 * H + 192 * H
    mtp = attention + moe + 2 * H + 8192 * H + 3 * H
    assert 2 * (lc.param_count(cfg).total + mtp) + 4 * 80 * 192 == 597_572_342_272


# --- by hand: what the new layers keep and compute -------------------------------------------

def test_minimax_m3_sparse_layer_attends_to_its_kept_blocks():
    """Blocks of 128 keys, 16 kept, the query's own among them: up to 2,048 keys every key,
    then 15 whole blocks and the query's own block up to itself (decode at 5,000: 15 x 128 +
    5,000 - 39 x 128 = 1,920 + 8 = 1,928 keys); the indexer scores every key (4 heads x 128)."""
    base = {"model_type": "minimax_m3_vl_text", "num_hidden_layers": 1,
            "layer_types": ["minimax_m3_sparse"], "mlp_layer_types": ["dense"]}
    cfg = lc.from_hf_config(base)
    full = lc.from_hf_config(dict(base, layer_types=["full_attention"]))
    per_key = 2 * 64 * 2 * 128
    for n, kept in ((2048, 2048), (5000, 1928), (5120, 2048)):
        ours = lc.flops_per_token(cfg, n, "decode").attention
        assert ours == per_key * kept + 2 * 4 * 128 * n
        assert lc.flops_per_token(full, n, "decode").attention == per_key * n
    # its cache: K and V of 4 KV heads x 128, and the indexer's key of 128, per token
    assert lc.kv_cache_bytes(cfg, 1000) == 1000 * (2 * 4 * 128 + 128) * 2
    prefill = lc.flops_per_token(cfg, 2050, "prefill").attention * 2050
    by_hand = sum(per_key * (i if i <= 2048 else 1920 + (i - 1) % 128 + 1) + 2 * 4 * 128 * i
                  for i in range(1, 2051))
    assert prefill // 2050 == by_hand // 2050


def test_zaya_keeps_its_convolution_window_and_delayed_value():
    """ZAYA1's defaults: per layer a window of (2 - 1) + (2 - 1) = 2 positions of q and k
    ((8 + 2) x 128 channels) and the previous token's delayed value (2 x 128 / 2), beside its
    K and V (2 x 2 x 128 per token), 40 layers, bf16."""
    cfg = lc.from_hf_config({"model_type": "zaya"})
    assert lc.linear_state_bytes(cfg) == 40 * (10 * 128 * 2 + 128) * 2
    assert lc.kv_cache_bytes(cfg, 100) == 40 * 100 * 2 * 2 * 128 * 2


def test_zaya_routes_to_one_expert_or_none():
    """ZAYA1's router picks one of its 16 experts or a 17th choice, no expert at all: a token
    uses one expert's weights at most (3 x 2,048 x 2,048 a layer, 40 layers) and none at
    least."""
    pc = lc.param_count(lc.from_hf_config({"model_type": "zaya"}))
    one_expert = 40 * 3 * 2048 * 2048
    assert pc.active == pc.total - 15 * one_expert
    assert pc.active_min == pc.total - 16 * one_expert


def test_inkling_keeps_four_short_convolution_windows():
    """Inkling's defaults: each layer keeps the last 4 inputs of its k and v convolutions (a
    full layer's 8 KV heads x 128, a sliding layer's 16 x 128) and of its two output
    convolutions (6,144 each); 11 full and 55 sliding layers, bf16. Its relative logits: 2 x
    64 heads x 16 x 1,024 distances a full layer, x 512 (the window) a sliding one."""
    cfg = lc.from_hf_config({"model_type": "inkling_text"})
    full, sliding = (2 * 8 * 128 + 2 * 6144) * 4, (2 * 16 * 128 + 2 * 6144) * 4
    assert lc.linear_state_bytes(cfg) == (11 * full + 55 * sliding) * 2
    rel = 11 * 2 * 64 * 16 * 1024 + 55 * 2 * 64 * 16 * 512
    # one token attending to itself: 64 heads, q.k and the V sum over 128, in all 66 layers
    assert lc.flops_per_token(cfg, 1, "decode").attention == 66 * 2 * 64 * 256 + rel
    assert lc.kv_cache_bytes(cfg, 100) == (11 * 2 * 8 * 128 + 55 * 2 * 16 * 128) * 100 * 2


def test_mimo_v2_flash_caches_k_and_v_at_their_own_widths():
    """MiMo-V2-Flash's defaults: 9 full layers (layer 0 and every sixth) with 4 KV heads and
    39 sliding ones (a window of 129) with 8, each K of 192 and V of 128 per head."""
    cfg = lc.from_hf_config({"model_type": "mimo_v2_flash"})
    assert cfg.layer_types.count("full_attention") == 9
    per_full, per_sliding = 4 * (192 + 128), 8 * (192 + 128)
    assert lc.kv_cache_bytes(cfg, 1000) == (9 * per_full * 1000 + 39 * per_sliding * 129) * 2
    # decode attention: 64 heads, q.k over 192 and the V sum over 128
    assert lc.flops_per_token(cfg, 1000, "decode").attention == \
        2 * 64 * (192 + 128) * (9 * 1000 + 39 * 129)


def test_hy_v4_hyper_connections_without_the_residual_mix():
    """Hy4's pre/post hyper-connections: 2m coefficients from m x H stream values, the
    collapse and the write-back, 4 x m x H x (m + 1) FLOPs each, two a layer, and the head's
    2 x m x H x (m + 1): m = 4, H = 2,816, 34 layers."""
    cfg = lc.from_hf_config({"model_type": "hy_v4"})
    m, H = 4, 2816
    hc = 2 * 34 * 4 * m * H * (m + 1) + 2 * m * H * (m + 1)
    assert lc.flops_per_token(cfg, 1).matmul == 2 * lc.param_count(cfg).matmul_active + hc


# --- the form save_pretrained writes back -----------------------------------------------------

@slow
@pytest.mark.parametrize("model_type", [t for t in BUILT if t != "dots3_note"] +
                         ["cohere_compass_text"])
def test_saved_form_counts_as_the_config_it_was_read_from(model_type, tmp_path):
    """A config of the type read by transformers' own class and written back with
    save_pretrained (layer_types and per_layer_config spelled out, renamed keys, the hub's
    legacy keys folded in): the engine reads the saved form as the original, and it is still
    what transformers builds."""
    from hypothesis import HealthCheck, given, settings

    from families import ROWS
    row = ROWS[model_type]
    count = iter(range(10**6))

    @settings(max_examples=8, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(row.random())
    def check(d):
        path = tmp_path / str(next(count))
        try:
            saved = transformers_ref.saved(d, path)
        except Exception:   # transformers refuses it (and the engine does: the generic test)
            return
        assert transformers_ref.figures(lc.from_hf_config(saved)) == \
            transformers_ref.figures(lc.from_hf_config(d))
        transformers_ref.counts_as_built(saved)
    check()
