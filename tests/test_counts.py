"""KV cache, FLOPs and bytes: the rules, checked on configs where the answer is known by hand."""

import subprocess
import sys

import pytest

import llmcourse as lc

L8 = lc.load_model("Meta-Llama-3-8B")


def test_kv_cache_gqa_by_hand():
    # 2 (K and V) x 32 layers x 8 KV heads x 128 head_dim x 2 bytes per token
    assert lc.kv_cache_bytes(L8, 8192) == 2 * 32 * 8 * 128 * 2 * 8192
    assert lc.kv_cache_bytes(L8, 8192, batch=4, dtype="fp8") == 2 * 32 * 8 * 128 * 8192 * 4
    mha = L8.replace(num_key_value_heads=32)
    mqa = L8.replace(num_key_value_heads=1)
    assert lc.kv_cache_bytes(mha, 100) == 4 * lc.kv_cache_bytes(L8, 100) == 32 * lc.kv_cache_bytes(mqa, 100)


def test_kv_cache_mla_caches_the_latent_once():
    ds = lc.load_model("DeepSeek-V3")
    assert lc.kv_cache_bytes_per_token_per_layer(ds) == (512 + 64) * 2
    assert lc.kv_cache_bytes(ds, 1000) == 61 * (512 + 64) * 2 * 1000
    assert lc.kv_cache_bytes(ds.replace(num_key_value_heads=1), 1000) == lc.kv_cache_bytes(ds, 1000)


def test_kv_cache_sliding_windows():
    g = lc.load_model("gemma-2-2b")  # 26 layers alternate, window 4096; 4 KV heads x 256
    per = 2 * 4 * 256 * 2
    assert g.layer_types.count("sliding_attention") == 13
    assert lc.kv_cache_bytes(g, 10_000) == per * (13 * 10_000 + 13 * 4096)
    assert lc.kv_cache_bytes(g, 1000) == per * 26 * 1000  # under the window: all layers hold all
    oss = lc.load_model("gpt-oss-20b")  # 12 sliding layers of 128, 12 full
    assert lc.kv_cache_bytes(oss, 4096) == 2 * 8 * 64 * 2 * (12 * 4096 + 12 * 128)
    q2 = lc.load_model("Qwen2-7B")  # sliding_window is set but use_sliding_window is false
    assert lc.kv_cache_bytes(q2, 200_000) == 2 * 4 * 128 * 2 * 28 * 200_000
    mistral = lc.from_hf_config({**L8.to_hf_config(), "model_type": "mistral", "sliding_window": 4096})
    assert lc.kv_cache_bytes(mistral, 10_000) == lc.kv_cache_bytes(L8, 4096)


def test_flops_matmul_is_twice_active_weight_matrices():
    f = lc.flops_per_token(L8, 1, mode="decode")
    pc = lc.param_count(L8)
    norms = pc.components["norms"]
    # untied: every parameter but the embedding lookup and the norms is a matmul weight
    assert f.matmul == 2 * (pc.total - pc.embedding - norms)
    tied = lc.load_model("Llama-3.2-1B")
    ft, pt = lc.flops_per_token(tied, 1), lc.param_count(tied)
    # tied: the lm_head matmul still happens, with the embedding matrix
    assert ft.matmul == 2 * (pt.total - pt.components["norms"])


def test_flops_attention_term():
    n = 4096
    dec = lc.flops_per_token(L8, n, mode="decode")
    # per layer: Q.K^T and the V sum, 2 FLOPs per multiply-add, 32 heads x 128 each
    assert dec.attention == 32 * 2 * 32 * (128 + 128) * n
    pre = lc.flops_per_token(L8, n, mode="prefill")
    assert pre.attention == 32 * 2 * 32 * 256 * (n + 1) // 2
    assert dec.total == dec.matmul + dec.attention


def test_flops_moe_follow_active():
    q = lc.load_model("Qwen3-30B-A3B")
    pc = lc.param_count(q)
    f = lc.flops_per_token(q, 1, mode="decode")
    assert 2 * (pc.active - pc.embedding) - 2 * pc.total < f.matmul < 2 * pc.active
    more_experts = lc.as_moe(q, 256, 8)
    assert lc.flops_per_token(more_experts, 1).matmul - f.matmul == 2 * 48 * 2048 * 128


def test_flops_sliding_window_caps_attention():
    g = lc.load_model("gemma-2-2b")
    a = lc.flops_per_token(g, 100_000, mode="decode").attention
    per_key = 2 * 8 * (256 + 256)
    assert a == per_key * (13 * 100_000 + 13 * 4096)


def test_weight_bytes_dtypes():
    t = lc.param_count(L8).total
    assert lc.weight_bytes(L8, "fp32") == 4 * t
    assert lc.weight_bytes(L8, "bf16") == lc.weight_bytes(L8, "fp16") == 2 * t
    assert lc.weight_bytes(L8, "fp8") == lc.weight_bytes(L8, "int8") == t
    assert lc.weight_bytes(L8, "int4") == t // 2
    assert lc.weight_bytes(L8, "mxfp4") == -(-t * 17 // 32)  # 4.25 bits, rounded up
    oss = lc.load_model("gpt-oss-20b")
    p = lc.param_count(oss)
    mixed = lc.weight_bytes(oss, "bf16", experts_dtype="mxfp4")
    assert mixed == -(-((p.total - p.routed_experts) * 16 + p.routed_experts * 17 // 4) // 8)


def test_weight_shapes_deepseek_v3_buffer_and_experts():
    ws = lc.weight_shapes(lc.load_model("DeepSeek-V3"))
    mtp = ws["note"] == "mtp, not built by transformers"
    # the multi-token-prediction layer the checkpoint ships (model.layers.61), listed last
    assert set(ws.loc[mtp, "name"].str.split(".").str[2]) == {"61"} and mtp.iloc[-1]
    ws = ws[~mtp]
    buf = ws[ws["note"] == "buffer"]
    assert len(buf) == 58 and set(buf["shape"]) == {(256,)}
    assert (ws["expert"] >= 0).sum() == 58 * 256 * 3
    assert ws["name"].iloc[-1] == "lm_head.weight"
    layer_order = ws.loc[ws["layer"] >= 0, "layer"].tolist()
    assert layer_order == sorted(layer_order)


def test_import_is_light():
    code = ("import sys, llmcourse as lc; lc.param_count(lc.load_model('DeepSeek-V3'));"
            "heavy = [m for m in ('pandas', 'matplotlib', 'ipywidgets', 'numpy') if m in sys.modules];"
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("fn", [lambda c: lc.param_count(c).total,
                                lambda c: lc.kv_cache_bytes(c, 4096),
                                lambda c: lc.flops_per_token(c, 4096).total])
def test_counts_accept_a_plain_dict(fn):
    assert fn(L8.to_hf_config()) == fn(L8)


def test_counts_accept_a_zoo_name():
    assert lc.param_count("qwen3-8b").total == lc.param_count(lc.load_model("Qwen3-8B")).total
    assert len(lc.weight_shapes("gpt-oss-20b")) == 411
    assert "no zoo model" in str(pytest.raises(ValueError, lc.param_count, "Llama-9").value)


def test_matmul_weights_by_component():
    pc = lc.param_count(L8)  # no biases: every attention and MLP parameter is a matmul weight
    mm = pc.matmul_components
    assert mm["attention"] == pc.components["attention"] and mm["mlp"] == pc.components["mlp"]
    assert mm["embedding"] == 0 and mm["norms"] == 0 and sum(mm.values()) == pc.matmul_active
    moe = lc.param_count(lc.load_model("Mixtral-8x7B-v0.1"))
    assert moe.matmul_components["experts"] == moe.components["experts"] // 8 * 2


def test_attention_kind():
    assert [lc.load_model(n).attention_kind for n in ("phi-2", "Meta-Llama-3-8B", "DeepSeek-V3")] \
        == ["MHA", "GQA", "MLA"]
    assert L8.replace(num_key_value_heads=1).attention_kind == "MQA"


def test_qwen4_exp_counts_are_fast():
    """Closed form over layer groups: the zoo model counts in well under a millisecond once
    read (the n-gram tables' primes are found once per config)."""
    import time
    cfg = lc.load_model("Qwen3.8-Flash-Next")
    lc.param_count(cfg)
    t = time.perf_counter()
    for _ in range(100):
        lc.param_count(cfg)
        lc.kv_cache_bytes(cfg, 100_000)
        lc.linear_state_bytes(cfg)
    assert (time.perf_counter() - t) / 100 < 1e-3
