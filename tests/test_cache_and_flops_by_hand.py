"""KV cache, fixed-size states and FLOPs, derived by hand from config fields.

No transformers here: each figure is written out from the config.json's fields (heads,
head_dim, windows, states, experts), the reasoning in the test's docstring, and compared with
the engine. tests/test_exact_vs_transformers.py holds the engine against transformers' own
caches and PyTorch's FLOP count on the same tiny models (tests/family_rows.py); together the
two show transformers holds what these formulas say.
"""

from fractions import Fraction

import llmcourse as lc
from config_files import fixture_json, zoo_json
from family_rows import (GRANITE_TINY, KIMI_LINEAR_TINY, LFM2_TINY, LONGCAT_TINY, MLA_TINY,
                         NEMOTRON_TINY, QWEN3_5_MOE_TINY, QWEN3_5_TINY, QWEN3_NEXT_TINY,
                         QWEN4_TINY, V4_TINY)

SEQ, BATCH = 7, 2   # the tiny models' prefill in tests/test_exact_vs_transformers.py


def _fp32(cfg):
    """(numbers in fixed states, numbers in the KV cache) after the tiny models' prefill."""
    return (lc.linear_state_bytes(cfg, batch=BATCH, dtype="fp32") // 4,
            lc.kv_cache_bytes(cfg, SEQ, batch=BATCH, dtype="fp32") // 4)


# --- sliding, chunked and shared-KV attention --------------------------------------------


def test_gemma3_sliding_layers_cap_the_cache():
    cfg = lc.load_model("gemma-3-1b-it")  # 26 layers, pattern 6: 4 global, 22 local of 512
    per_tok_layer = 2 * 1 * 256 * 2  # K and V, 1 KV head of 256, bf16
    for seq in (100, 512, 32768):
        assert lc.kv_cache_bytes(cfg, seq) == per_tok_layer * (4 * seq + 22 * min(seq, 512))


def test_llama4_chunked_layers_cap_the_cache_and_the_attention():
    cfg = lc.load_model("Llama-4-Scout-17B-16E-Instruct")  # 12 full, 36 chunked of 8192
    per = 2 * 8 * 128 * 2
    assert lc.kv_cache_bytes(cfg, 100_000) == per * (12 * 100_000 + 36 * 8192)
    assert lc.kv_cache_bytes(cfg, 5000) == per * 48 * 5000
    # decode at position 8193 starts a new chunk: a chunked layer sees just itself
    f = lc.flops_per_token(cfg, 8193, mode="decode")
    assert f.attention == 2 * 40 * (128 + 128) * (12 * 8193 + 36 * 1)
    # prefill of 3 chunks' worth: every chunked position i sees ((i-1) mod C) + 1 keys
    n, C = 3 * 8192, 8192
    chunked = sum((i - 1) % C + 1 for i in range(1, n + 1))
    full = n * (n + 1) // 2
    expected = 2 * 40 * 256 * (12 * full + 36 * chunked) // n
    assert lc.flops_per_token(cfg, n).attention == expected


def test_olmo3_slides_three_layers_in_four_by_default():
    cfg = lc.from_hf_config({"model_type": "olmo3", "num_hidden_layers": 8})
    assert list(cfg.layer_types) == ["sliding_attention"] * 3 + ["full_attention"] \
        + ["sliding_attention"] * 3 + ["full_attention"]
    # at 65,536 tokens the 24 sliding layers of Olmo-3-7B keep 4,096 tokens each: MHA, 32 x 128
    olmo = lc.load_model("Olmo-3-7B-Instruct")
    per_token_layer = 2 * 32 * 128 * 2
    assert lc.kv_cache_bytes(olmo, 65_536) == per_token_layer * (8 * 65_536 + 24 * 4_096)


def test_gemma4_kv_sharing_and_global_layers_by_hand():
    """E2B at 32,768 tokens: 15 layers store K and V (12 sliding keep 512 tokens of one KV
    head of 256, 3 full keep every token of one KV head of 512); the last 20 store nothing.
    31B: K = V on its 10 full layers, 4 KV heads of 512; 50 sliding of 16 x 256, window 1,024."""
    e2b, big = lc.load_model("gemma-4-E2B"), lc.load_model("gemma-4-31B")
    s = 32_768
    assert lc.kv_cache_bytes(e2b, s) == 2 * 2 * (12 * 1 * 256 * 512 + 3 * 1 * 512 * s)
    assert lc.kv_cache_bytes(big, s) == 2 * 2 * (50 * 16 * 256 * 1024 + 10 * 4 * 512 * s)
    shapes = dict(zip(*(lc.weight_shapes(big.text_model)[c] for c in ("name", "shape"))))
    assert "model.layers.5.self_attn.v_proj.weight" not in shapes  # K = V: one projection
    assert shapes["model.layers.5.self_attn.k_proj.weight"] == (4 * 512, 5376)
    assert shapes["model.layers.0.self_attn.v_proj.weight"] == (16 * 256, 5376)


# --- linear attention, Mamba-2 and short convolutions: a fixed state ----------------------


QWEN3_NEXT = dict(vh=32, vd=128, kd=128, kh=16, kernel=4, linear=36, full=12)


def test_qwen3_next_cache_only_in_full_layers_and_a_fixed_linear_state():
    cfg = lc.load_model("Qwen3-Next-80B-A3B")
    q = QWEN3_NEXT
    assert cfg.layer_types.count("linear_attention") == q["linear"]
    per = 2 * 2 * 256 * 2  # K and V, 2 KV heads of 256, bf16
    assert lc.kv_cache_bytes(cfg, 262_144) == q["full"] * per * 262_144
    state = q["vh"] * q["kd"] * q["vd"]  # one k x v matrix per value head
    conv = (2 * q["kh"] * q["kd"] + q["vh"] * q["vd"]) * q["kernel"]
    assert lc.linear_state_bytes(cfg) == q["linear"] * (state + conv) * 2
    assert lc.linear_state_bytes(cfg, batch=3, dtype="fp32") == 3 * q["linear"] * (state + conv) * 4
    # context length changes the KV cache, never the linear state
    assert lc.kv_cache_bytes(cfg, 2000) < lc.kv_cache_bytes(cfg, 4000)
    # a linear layer's per-token cost is fixed: 6 x heads x k x v
    a, b = (lc.flops_per_token(cfg, n, "decode").attention for n in (1000, 2000))
    assert b - a == q["full"] * 2 * 16 * 512 * 1000
    assert a == q["full"] * 2 * 16 * 512 * 1000 + q["linear"] * 6 * state
    assert lc.linear_state_bytes(lc.load_model("Meta-Llama-3-8B")) == 0


def test_qwen3_next_and_qwen3_5_tiny_models_by_hand():
    """The tiny models of tests/family_rows.py: 4 layers, 2 gated-DeltaNet (a 6 x 10 state per
    value head, 4 of them, and the last 3 inputs of 2 x 2 x 6 + 4 x 10 channels) and 2 full
    attention (K and V of 2 heads of 8 per token), per sequence."""
    state = 2 * (4 * 6 * 10 + (2 * 2 * 6 + 4 * 10) * 3) * BATCH
    kv = 2 * 2 * 2 * 8 * SEQ * BATCH
    for d in (QWEN3_NEXT_TINY, QWEN3_5_TINY, QWEN3_5_MOE_TINY):
        assert _fp32(lc.from_hf_config(d)) == (state, kv)


def test_three_to_one_deltanet_and_a_fixed_state():
    cfg = lc.from_hf_config(zoo_json("Qwen3.6-35B-A3B"))
    assert cfg.layer_types.counts() == {"linear_attention": 30, "full_attention": 10}
    # the cache grows only in the 10 full layers: 2 KV heads of 256, bf16
    assert lc.kv_cache_bytes(cfg, 8192) == 10 * 2 * 2 * 256 * 2 * 8192
    # 30 DeltaNet layers hold a fixed state whatever the context
    assert lc.linear_state_bytes(cfg) == lc.linear_state_bytes(
        lc.from_hf_config(zoo_json("Qwen3.6-35B-A3B")))
    assert lc.linear_state_bytes(cfg) > 0


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


def test_nemotron_tiny_model_by_hand():
    """2 Mamba blocks x (4 heads x 4 x 6 + (16 + 2 x 2 x 6) x 3) per sequence; 2 attention
    blocks x K and V of 2 heads x 8 per token; the MLP and MoE blocks hold nothing."""
    assert _fp32(lc.from_hf_config(NEMOTRON_TINY)) == (2 * (4 * 4 * 6 + (16 + 24) * 3) * BATCH,
                                                       2 * 2 * 2 * 8 * SEQ * BATCH)


def test_granite_350m_cache_and_state_by_hand():
    """4 attention layers cache K and V of 4 heads of 64; 28 Mamba-2 layers hold 48 heads of
    32 x 128 and the convolution's last 4 inputs of 1536 + 2 x 128 channels, per sequence."""
    cfg = lc.load_model("granite-4.0-h-350m")
    assert lc.kv_cache_bytes(cfg, 10_000) == 4 * 2 * 4 * 64 * 2 * 10_000
    assert lc.linear_state_bytes(cfg) == 28 * (48 * 32 * 128 + (1536 + 2 * 128) * 4) * 2


def test_granite_tiny_model_by_hand():
    """Two Mamba-2 layers: 4 heads of 16 (2 x 32 / 4) x state 6, a conv of 64 + 2 x 2 x 6
    channels x 3; two attention layers K and V of 2 heads of 8; the experts hold nothing."""
    assert _fp32(lc.from_hf_config(GRANITE_TINY)) == (2 * (4 * 16 * 6 + (64 + 24) * 3) * BATCH,
                                                      2 * 2 * 2 * 8 * SEQ * BATCH)


def test_lfm2_cache_and_state_by_hand():
    """6 attention layers cache K and V of 8 heads of 64; 18 short-convolution layers keep the
    last 3 inputs of 2048 channels, per sequence, whatever the context."""
    cfg = lc.from_hf_config(fixture_json("lfm2_moe_8b_a1b_trimmed.json"))
    assert lc.kv_cache_bytes(cfg, 10_000) == 6 * 2 * 8 * 64 * 2 * 10_000
    assert lc.linear_state_bytes(cfg) == 18 * 2048 * 3 * 2


def test_lfm2_tiny_model_by_hand():
    """Each short-convolution layer keeps the last conv_L_cache inputs of hidden_size
    channels, each attention layer K and V."""
    assert _fp32(lc.from_hf_config(LFM2_TINY)) == (2 * 32 * 3 * BATCH, 2 * 2 * 2 * 8 * SEQ * BATCH)


def test_kimi_linear_layers_and_state_by_hand():
    cfg = lc.load_model("Kimi-Linear-48B-A3B-Instruct")
    assert cfg.layer_types.counts() == {"linear_attention": 20, "full_attention": 7}
    # 7 MLA layers cache 512 + 64 values per token; 20 KDA layers a 128 x 128 state per head
    # (32 heads) plus 4 positions of q, k and v (3 x 32 x 128 channels)
    assert lc.kv_cache_bytes(cfg, 1000) == 7 * 576 * 2 * 1000
    assert lc.linear_state_bytes(cfg) == 20 * (32 * 128 * 128 + 3 * 32 * 128 * 4) * 2


def test_kimi_linear_tiny_model_by_hand():
    """2 KDA layers x (2 heads x 6 x 6 + 3 x 12 channels x 3); 2 MLA layers x (8 + 4)."""
    assert _fp32(lc.from_hf_config(KIMI_LINEAR_TINY)) == (2 * (2 * 6 * 6 + 3 * 12 * 3) * BATCH,
                                                          2 * (8 + 4) * SEQ * BATCH)


def test_qwen4_tiny_model_by_hand():
    """The attention layer caches K and V and one indexer key of indexer_head_dim per token;
    every DeltaNet layer its recurrent and convolution states, and each PLE layer two more,
    the dilated convolution's window over all streams and the last ngram_size - 1 token ids,
    int64 (fp32 bytes)."""
    cfg = lc.from_hf_config(QWEN4_TINY)
    # 1 attention layer, 2 x 2 KV heads x 8 + one key of 8, fp32
    assert lc.kv_cache_bytes(cfg, SEQ, batch=BATCH, dtype="fp32") == (2 * 2 * 8 + 8) * SEQ * BATCH * 4
    assert lc.indexer_cache_bytes_per_token(cfg, dtype="fp32") == 8 * 4
    gdn = 4 * 8 * 6 + (2 * 2 * 8 + 4 * 6) * 4          # recurrent + conv (kernel 4)
    ple = 3 * 32 * (3 - 1) * 3 * 4 + (3 - 1) * 8        # conv window (fp32) + token ids
    assert lc.linear_state_bytes(cfg, batch=BATCH, dtype="fp32") == (3 * gdn * 4 + 2 * ple) * BATCH


# --- MLA and sparse attention ---------------------------------------------------------------


def test_mla_tiny_models_by_hand():
    """MLA caches its compressed latent (kv_lora_rank 8) and RoPE key (4) once per token and
    layer (3 layers); under sparse attention each indexer caches a key of index_head_dim 8:
    in every layer for DeepSeek-V3.2, in the 2 "full" layers of GLM-5's three."""
    for mt, indexers in (("glm4_moe_lite", 0), ("deepseek_v32", 3), ("glm_moe_dsa", 2)):
        d = dict(MLA_TINY, model_type=mt)
        if mt == "glm_moe_dsa":
            d["indexer_types"] = ["full", "shared", "full"]
        cfg = lc.from_hf_config(d)
        assert lc.indexer_cache_bytes_per_token(cfg, dtype="fp32") == indexers * 8 * 4
        assert _fp32(cfg) == (0, (3 * (8 + 4) + indexers * 8) * SEQ * BATCH)


def test_longcat_tiny_model_by_hand():
    """Each of its 2 x 2 attention sublayers caches MLA's latent (kv_lora_rank) and RoPE key
    per token; no fixed-size state."""
    assert _fp32(lc.from_hf_config(LONGCAT_TINY)) == (0, 2 * 2 * (8 + 4) * SEQ * BATCH)


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


def test_longcat_decode_flops_by_hand():
    """Decode at 100,000 tokens: 56 MLA sublayers, 64 heads, q.k over 128 + 64 and the V
    sum over 128, 2 FLOPs per multiply-add; matmul: 2 x the weights a token multiplies when
    its 12 picks are all real experts (the lm_head, not the embedding lookup)."""
    cfg = lc.from_hf_config(fixture_json("longcat_flash_class_defaults.json"))
    n = 100_000
    f = lc.flops_per_token(cfg, n, mode="decode")
    assert f.attention == 56 * 2 * 64 * (192 + 128) * n
    pc = lc.param_count(cfg)
    norms_and_buffers = pc.components["norms"]
    assert f.matmul == 2 * (pc.active - pc.embedding - norms_and_buffers)


# --- DeepSeek-V4: a window of one K = V head plus compressed entries -----------------------


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
    cfg = lc.from_hf_config(V4_TINY)
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


# --- Qwen4-Exp: a query-selection indexer --------------------------------------------------


def test_prefill_flops_average_the_decode_steps():
    """The prefill average is the decode steps' FLOPs summed over positions 1..n, divided by
    n (closed form over the selected keys and scored blocks)."""
    cfg = lc.load_model("Qwen3.8-Flash-Next")
    for n in (1, 7, 2048, 2049, 5000):
        steps = sum(lc.flops_per_token(cfg, i, mode="decode").attention for i in range(1, n + 1))
        assert lc.flops_per_token(cfg, n).attention == steps // n


def test_decode_attention_by_hand_at_long_context():
    """At 100,000 tokens: each of the 12 attention layers attends to the 2,048 tokens of its
    512 best blocks of 4 (24 heads, head_dim 256, q.k and V sum) and scores all 25,000
    blocks with 4 indexer heads of 128; each of the 36 DeltaNet layers 6 x 48 x 128 x 128."""
    cfg = lc.load_model("Qwen3.8-Flash-Next")
    f = lc.flops_per_token(cfg, 100_000, mode="decode")
    assert f.attention == (12 * (2 * 24 * 2 * 256 * 2048 + 2 * 4 * 128 * 25_000)
                           + 36 * 6 * 48 * 128 * 128)


# --- the dense families (llmcourse/families/dense.py) ----------------------------------------


def test_cohere2_and_exaone4_three_sliding_layers_to_one_full():
    """Their class defaults: layer i slides where (i + 1) % 4; Cohere2 has 40 layers (30 of
    4096 tokens, 10 full), 64 KV heads of 8192 / 64 = 128; EXAONE 4.0 32 layers (24 of 4096,
    8 full), 32 KV heads of 128. bf16: 2 bytes a value, K and V."""
    for mt, layers, kv in (("cohere2", 40, 64), ("exaone4", 32, 32)):
        cfg = lc.from_hf_config({"model_type": mt})
        full, sliding = layers // 4, layers - layers // 4
        for seq in (100, 4096, 10_000):
            assert lc.kv_cache_bytes(cfg, seq) == 2 * kv * 128 * 2 * (
                full * seq + sliding * min(seq, 4096))


def test_cwm_and_granite_swa_one_full_layer_then_three_sliding():
    """CWM: layer i attends fully where i % 4 == 0: 64 layers, 16 full, 48 of 8192 tokens,
    8 KV heads of 128. Granite SWA: 24 layers, 6 full, 18 of 128 tokens, 4 KV heads of
    2560 / 20 = 128."""
    cwm = lc.from_hf_config({"model_type": "cwm"})
    swa = lc.from_hf_config({"model_type": "granite_swa"})
    seq = 20_000
    assert lc.kv_cache_bytes(cwm, seq) == 2 * 8 * 128 * 2 * (16 * seq + 48 * 8192)
    assert lc.kv_cache_bytes(swa, seq) == 2 * 4 * 128 * 2 * (6 * seq + 18 * 128)


def test_modernbert_decoder_window_is_half_its_local_attention():
    """ModernBERT-decoder: local_attention 128 gives its sliding layers a window of 64 tokens;
    one full layer in 3 (layers 0, 3, ..., 21: 8 of 22); 12 heads of 768 / 12 = 64, K and V
    of every head (no KV heads)."""
    cfg = lc.from_hf_config({"model_type": "modernbert-decoder"})
    seq = 1000
    assert cfg.sliding_window == 64
    assert lc.kv_cache_bytes(cfg, seq) == 2 * 12 * 64 * 2 * (8 * seq + 14 * 64)


def test_diffllama_attends_over_both_halves_of_v():
    """DiffLlama: one score per key and head (q.k, head_dim), the weighted sum over two
    head_dim-wide values: 2 x heads x 3 x head_dim FLOPs per key, where plain attention has
    2 x heads x 2 x head_dim. Class defaults: 16 layers, 32 heads of 2048 / 32 = 64."""
    cfg = lc.from_hf_config({"model_type": "diffllama"})
    n = 1000
    assert lc.flops_per_token(cfg, n, "decode").attention == 16 * 2 * 32 * 3 * 64 * n
    assert lc.kv_cache_bytes(cfg, n) == 16 * 2 * 32 * 64 * 2 * n


def test_youtu_caches_the_latent():
    """Youtu-LLM's multi-head latent attention caches kv_lora_rank + qk_rope_head_dim = 512 +
    64 values per token and layer (32 layers), bf16."""
    cfg = lc.from_hf_config({"model_type": "youtu"})
    assert lc.kv_cache_bytes(cfg, 1000) == 32 * (512 + 64) * 2 * 1000
