"""The state-space and recurrent families (llmcourse/families/state_space.py): their fixed
states, caches and FLOPs derived by hand from real configs' fields, the shared blocks of
Zamba counted once, and the refusals.

The hand derivations read only the config fields named in each docstring; the exactness test
(tests/test_exact_vs_transformers.py, the rows in tests/families/) holds the same functions
against tiny models' caches after a CPU prefill and PyTorch's FlopCounterMode.
"""

import pytest

import llmcourse as lc
from config_files import fixture_json


def load(name):
    return lc.from_hf_config(fixture_json(f"configs/{name}.json"))


def test_mamba_2_8b_state_and_decode_flops_by_hand():
    """64 Mamba-1 layers of d_inner 5120 (intermediate_size), state 16, 4 convolution taps:
    per layer 5120 x 16 state values and 5120 x 4 convolution inputs, bf16; the recurrence
    4 x 5120 x 16 FLOPs a token (update and read-out, 2 FLOPs a multiply-add)."""
    cfg = load("mamba-2.8b-hf")
    assert lc.linear_state_bytes(cfg) == 64 * 5120 * (16 + 4) * 2
    assert lc.linear_state_bytes(cfg, batch=3, dtype="fp32") == 3 * 64 * 5120 * 20 * 4
    assert lc.kv_cache_bytes(cfg, 100_000) == 0
    assert lc.kv_cache_bytes_per_token_per_layer(cfg) == 0   # no layer caches K and V
    for n in (1, 4096, 10**6):   # the same work at any context length
        assert lc.flops_per_token(cfg, n, mode="decode").attention == 64 * 4 * 5120 * 16
        assert lc.flops_per_token(cfg, n).attention == 64 * 4 * 5120 * 16


def test_falcon_mamba_7b_reads_the_given_width_over_expand():
    """Its expand 16 would make d_inner 65,536; the given intermediate_size 8192 wins (as
    FalconMambaConfig reads it). 64 layers x 8192 x (16 + 4) state values."""
    cfg = load("falcon-mamba-7b")
    assert lc.linear_state_bytes(cfg) == 64 * 8192 * 20 * 2
    ws = lc.weight_shapes(cfg)
    shapes = dict(zip(ws["name"], ws["shape"]))
    assert shapes["backbone.layers.0.mixer.in_proj.weight"] == (2 * 8192, 4096)
    assert shapes["backbone.layers.0.mixer.x_proj.weight"] == (256 + 2 * 16, 8192)


def test_mamba_codestral_state_by_hand():
    """64 Mamba-2 layers: 128 heads of 64, state 128, 8 groups, 4 taps: 128 x 64 x 128 state
    values and (8192 + 2 x 8 x 128) x 4 convolution inputs per layer."""
    cfg = load("Mamba-Codestral-7B-v0.1")
    per_layer = 128 * 64 * 128 + (128 * 64 + 2 * 8 * 128) * 4
    assert lc.linear_state_bytes(cfg) == 64 * per_layer * 2
    assert lc.flops_per_token(cfg, 10, mode="decode").attention == 64 * 4 * 128 * 64 * 128


def test_jamba_1_5_mini_cache_state_and_experts_by_hand():
    """32 layers, attention where i % 8 == 4 (4 layers: 8 KV heads of 4096 / 32 = 128), the
    other 28 Mamba-1 (d_inner 2 x 4096, state 16, 4 taps); experts (16, top-2) where
    i % 2 == 1."""
    cfg = load("AI21-Jamba-1.5-Mini")
    kinds = cfg.layer_schedule
    assert kinds.count(attention="full_attention") == 4
    assert kinds.count(attention="mamba1") == 28
    assert kinds.count(mlp="moe") == 16
    assert lc.kv_cache_bytes(cfg, 1000) == 4 * 2 * 8 * 128 * 1000 * 2
    assert lc.linear_state_bytes(cfg) == 28 * 8192 * (16 + 4) * 2
    assert [i for i in range(8) if kinds.kind_at(i).attention == "full_attention"] == [4]


def test_lfm2_1_2b_layers_width_and_state_by_hand():
    """full_attn_idxs [2, 5, 8, 10, 12, 14] of 16 layers attend (8 KV heads of 2048 / 32); the
    other 10 convolve 2048 channels over 3 taps; the MLP is 2 x 12288 / 3 = 8192 wide (a
    multiple of 256 already)."""
    cfg = load("LFM2-1.2B-trimmed")
    assert [i for i, t in enumerate(cfg.layer_types) if t == "full_attention"] == [2, 5, 8, 10,
                                                                                  12, 14]
    assert lc.linear_state_bytes(cfg) == 10 * 2048 * 3 * 2
    assert lc.kv_cache_bytes(cfg, 100) == 6 * 2 * 8 * 64 * 100 * 2
    ws = lc.weight_shapes(cfg)
    assert dict(zip(ws["name"], ws["shape"]))["model.layers.0.feed_forward.w1.weight"] == (8192,
                                                                                           2048)


def test_recurrentgemma_2b_state_window_and_mlp_by_hand():
    """26 layers in the pattern recurrent, recurrent, attention: 8 local-attention layers (MQA,
    head 2560 / 10 = 256, window 2048) and 18 RG-LRU layers (2560 channels: the state and the
    convolution's last 3 of 4 inputs); the MLP is half of intermediate_size, 7680 wide."""
    cfg = load("recurrentgemma-2b-trimmed")
    assert cfg.layer_types.count("sliding_attention") == 8
    assert lc.linear_state_bytes(cfg) == 18 * (2560 + 2560 * 3) * 2
    assert lc.kv_cache_bytes(cfg, 1000) == 8 * 2 * 1 * 256 * 1000 * 2
    assert lc.kv_cache_bytes(cfg, 10_000) == 8 * 2 * 256 * 2048 * 2   # the window's
    ws = lc.weight_shapes(cfg)
    shapes = dict(zip(ws["name"], ws["shape"]))
    assert shapes["model.layers.0.mlp_block.gate_proj.weight"] == (7680, 2560)
    assert shapes["model.layers.0.temporal_block.rg_lru.input_gate_weight"] == (10, 256, 256)


def test_falcon_h1_layers_cache_attention_and_keep_a_state():
    """Every Falcon-H1 layer runs attention and a Mamba-2 mixer side by side: it caches K and V
    (num_key_value_heads x head_dim each) and keeps a Mamba-2 state."""
    d = {"model_type": "falcon_h1", "hidden_size": 64, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_hidden_layers": 3, "intermediate_size": 32,
         "mamba_d_ssm": 32, "mamba_n_heads": 4, "mamba_d_state": 8, "mamba_n_groups": 1,
         "mamba_d_conv": 4, "vocab_size": 100}
    cfg = lc.from_hf_config(d)
    assert lc.kv_cache_bytes(cfg, 10, dtype="fp32") == 3 * 2 * 2 * 16 * 10 * 4
    assert lc.linear_state_bytes(cfg, dtype="fp32") == 3 * (4 * 8 * 8 + (32 + 2 * 8) * 4) * 4


def test_zamba_shared_block_is_listed_at_each_use_and_counted_once():
    """With tied embeddings transformers ties every hybrid layer's shared block to the first:
    the listing shows it at each use, tied to the first, and the count holds it once; untied,
    each use holds its own."""
    d = {"model_type": "zamba", "vocab_size": 50, "hidden_size": 16, "intermediate_size": 24,
         "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
         "n_mamba_heads": 2, "mamba_d_state": 4,
         "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"]}
    tied = lc.from_hf_config(d)
    ws = lc.weight_shapes(tied)
    q1 = "model.layers.1.shared_transf.self_attn.q_proj.weight"
    q3 = "model.layers.3.shared_transf.self_attn.q_proj.weight"
    notes = dict(zip(ws["name"], ws["note"]))
    assert notes[q1] == "" and notes[q3] == f"tied to {q1}"
    counted = int(ws.loc[ws["note"] == "", "numel"].sum())
    assert lc.param_count(tied).total == counted
    untied = lc.from_hf_config(dict(d, tie_word_embeddings=False))
    block = int(ws.loc[ws["name"].str.startswith("model.layers.3.shared_transf."), "numel"].sum())
    embedding = 50 * 16
    assert lc.param_count(untied).total == lc.param_count(tied).total + block + embedding
    # the block's matmuls run at both uses: the same FLOPs either way
    assert lc.flops_per_token(untied, 100).total == lc.flops_per_token(tied, 100).total


@pytest.mark.parametrize("d, field", [
    ({"model_type": "mamba", "time_step_rank": "big"}, "time_step_rank"),
    ({"model_type": "mamba2", "num_heads": 100}, "num_heads"),
    ({"model_type": "bamba", "layer_types": ["mamba"] * 32}, "layer_types"),
    ({"model_type": "jamba", "attn_layer_offset": 8}, "attn_layer_offset"),
    ({"model_type": "falcon_h1", "mamba_d_head": 7}, "mamba_d_head"),
    ({"model_type": "zamba", "num_hidden_layers": 5}, "layers_block_type"),
    ({"model_type": "zamba2", "num_hidden_layers": 10}, "layers_block_type"),
    ({"model_type": "lfm2", "block_auto_adjust_ff_dim": "yes"}, "block_auto_adjust_ff_dim"),
    ({"model_type": "olmo_hybrid", "layer_types": ["linear_attention"] * 32}, "layer_types"),
    ({"model_type": "recurrent_gemma", "block_types": ["recurrent", "local"]}, "block_types"),
    ({"model_type": "xlstm", "embedding_dim": 1024}, "embedding_dim"),
    ({"model_type": "xlstm", "weight_mode": "stacked"}, "weight_mode"),
    ({"model_type": "minimax", "layer_types": ["lightning"] * 32}, "layer_types"),
    ({"model_type": "bailing_hybrid", "mlp_layer_types": ["dense"]}, "mlp_layer_types"),
])
def test_impossible_values_are_refused_in_one_line(d, field):
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(d)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(field), msg


def test_a_new_mixer_is_refused_in_one_line_where_its_training_memory_is_not_modelled():
    """Training memory needs what a layer saves for backward: not measured for these mixers,
    so it is refused, naming the layer kind."""
    for mt in ("mamba", "rwkv", "xlstm", "recurrent_gemma", "minimax", "zamba2"):
        with pytest.raises(ValueError) as e:
            lc.training_memory({"model_type": mt}, 1024)
        assert "\n" not in str(e.value) and "not modelled" in str(e.value)

