"""Strategies, tiny models and decode-step gaps of the state-space and recurrent families
(llmcourse/families/state_space.py), shared by their rows. Standard library, hypothesis and
llmcourse only (the fast tests import the rows too).

The decode-step gaps (FLOPs PyTorch counts in transformers' reference code minus the engine's)
are derived by hand, layer by layer, from the sizes of each tiny config written out:

* A Mamba-1 or Mamba-2 mixer: the engine counts 4 x d_inner x d_state (Mamba-2: heads x
  head_dim for d_inner): the state's decayed rank-one update, elementwise in transformers
  (FlopCounterMode counts none of it), and its read-out with C, a matmul it counts. The decode
  convolution runs over the cached conv_kernel inputs and the new one without padding: two
  output positions, the convolution counted twice where the engine counts its taps once.
"""

from hypothesis import strategies as st


def mamba_gap(layers, d_inner, state, conv_channels, kernel):
    """Per Mamba layer: less the elementwise update (2 x d_inner x d_state), plus the
    convolution once more (2 x channels x kernel)."""
    return layers * (-2 * d_inner * state + 2 * conv_channels * kernel)


# --- Mamba and Falcon-Mamba -----------------------------------------------------------------

MAMBA_TINY = {"model_type": "mamba", "vocab_size": 64, "hidden_size": 16,
              "num_hidden_layers": 2, "state_size": 4, "conv_kernel": 3, "expand": 2,
              "time_step_rank": 3, "use_bias": True}


def mamba_flops_gap(d, n):
    # d_inner = expand x hidden = 32, state 4, the convolution over x: 32 channels, 3 taps
    return mamba_gap(2, 32, 4, 32, 3)


@st.composite
def mamba_configs(draw, model_type):
    """A small Mamba or Falcon-Mamba config: intermediate_size given or left to expand x
    hidden_size, the step-size rank a number or "auto", biases on or off."""
    d8 = st.integers(1, 8)
    d = {"model_type": model_type, "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 2 * draw(d8), "num_hidden_layers": draw(st.integers(1, 4)),
         "state_size": draw(d8), "conv_kernel": draw(st.integers(1, 4)),
         "expand": draw(st.integers(1, 3)), "use_bias": draw(st.booleans()),
         "use_conv_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans()),
         "pad_token_id": 0}
    if draw(st.booleans()):
        d["intermediate_size"] = 2 * draw(d8)
    if draw(st.booleans()):
        d["time_step_rank"] = draw(d8)
    return d


# --- Mamba-2 --------------------------------------------------------------------------------

MAMBA2_TINY = {"model_type": "mamba2", "vocab_size": 64, "hidden_size": 16,
               "num_hidden_layers": 2, "state_size": 4, "conv_kernel": 3, "expand": 2,
               "num_heads": 4, "head_dim": 8, "n_groups": 2, "chunk_size": 4}


def mamba2_flops_gap(d, n):
    # 4 heads of 8 (d_inner 32), state 4; the convolution over x, B and C: 32 + 2 x 2 x 4
    return mamba_gap(2, 32, 4, 32 + 2 * 2 * 4, 3)


@st.composite
def mamba2_configs(draw):
    """A small Mamba-2 config whose heads x head_dim is expand x hidden_size (or, sometimes,
    is not: refused by transformers and the engine alike)."""
    d8 = st.integers(1, 8)
    groups = draw(st.integers(1, 3))
    heads = groups * draw(st.integers(1, 3))
    head_dim = draw(d8)
    expand = draw(st.integers(1, 2))
    hidden = heads * head_dim * draw(st.integers(1, 2))
    d = {"model_type": "mamba2", "vocab_size": draw(st.integers(2, 200)), "hidden_size": hidden,
         "num_hidden_layers": draw(st.integers(1, 4)), "state_size": draw(d8),
         "conv_kernel": draw(st.integers(1, 4)), "num_heads": heads, "n_groups": groups,
         "head_dim": head_dim * (hidden * expand // (heads * head_dim)), "expand": expand,
         "use_bias": draw(st.booleans()), "use_conv_bias": draw(st.booleans()),
         "chunk_size": draw(d8), "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0}
    if draw(st.integers(0, 9)) == 0:
        d["head_dim"] += 1   # heads x head_dim != expand x hidden_size: refused
    return d


def conv_gap(layers, hidden, kernel):
    """Per short-convolution layer: transformers' decode step convolves the cached inputs and
    the new one without padding, two output positions: the convolution once more."""
    return layers * 2 * hidden * kernel


# --- LFM2 and LFM3 --------------------------------------------------------------------------

LFM2_TINY = {"model_type": "lfm2", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 48,
             "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
             "layer_types": ["conv", "full_attention", "conv"], "conv_L_cache": 3,
             "block_multiple_of": 8}
LFM3_TINY = {"model_type": "lfm3", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 24,
             "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2,
             "head_dim": 8, "sliding_window": 16, "conv_L_cache": 4, "pad_token_id": 0}
# (a window shorter than the context: the sliding layer attends to its last 8 keys)
LFM3_FLOPS = dict(LFM3_TINY, sliding_window=8)


def lfm2_flops_gap(d, n):
    return conv_gap(2, 32, 3)        # 2 convolution layers of 32 channels, 3 taps


def lfm3_flops_gap(d, n):
    return conv_gap(4, 32, 4)        # layers 0, 1, 3 and 5 convolve: 32 channels, 4 taps


@st.composite
def lfm2_configs(draw):
    """A small LFM2 config: its layers by layer_types, by full_attn_idxs or (neither) all
    attention; the MLP width LFM2 adjusts (or not), the tie by either name."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 5))
    kv = draw(st.integers(1, 3))
    heads = kv * draw(st.integers(1, 3))
    d = {"model_type": "lfm2", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": heads * 2 * draw(d8), "intermediate_size": 3 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads,
         "num_key_value_heads": kv, "conv_L_cache": draw(st.integers(1, 4)),
         "conv_bias": draw(st.booleans()), "block_multiple_of": draw(d8),
         "block_auto_adjust_ff_dim": draw(st.booleans()), "pad_token_id": 0}
    if draw(st.booleans()):
        d["head_dim"] = 2 * draw(d8)
    way = draw(st.integers(0, 2))
    if way == 0:
        d["layer_types"] = draw(st.lists(st.sampled_from(["conv", "full_attention"]),
                                         min_size=L, max_size=L))
    elif way == 1:
        d["full_attn_idxs"] = draw(st.lists(st.integers(0, L - 1), unique=True, max_size=L))
    if draw(st.booleans()):
        d["block_ffn_dim_multiplier"] = draw(st.sampled_from([None, 1.0, 1.5, 0.75]))
    if draw(st.booleans()):
        d["block_ff_dim"] = 3 * draw(d8)
    d["tie_embedding" if draw(st.booleans()) else "tie_word_embeddings"] = draw(st.booleans())
    return d


@st.composite
def lfm3_configs(draw):
    """A small LFM3 config: its layers by layer_types or its own pattern, the gate, the
    sandwich norms and the attention biases on or off."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 7))
    kv = draw(st.integers(1, 3))
    d = {"model_type": "lfm3", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": kv * draw(st.integers(1, 3)),
         "num_key_value_heads": kv, "head_dim": 2 * draw(d8), "sliding_window": draw(d8),
         "conv_L_cache": draw(st.integers(1, 7)), "conv_bias": draw(st.booleans()),
         "use_sandwich_norm": draw(st.booleans()), "use_attention_gate": draw(st.booleans()),
         "attention_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans()),
         "pad_token_id": 0}
    if draw(st.booleans()):
        d["layer_types"] = draw(st.lists(st.sampled_from(["conv", "sliding_attention",
                                                          "full_attention"]),
                                         min_size=L, max_size=L))
    return d


# --- Bamba, Falcon-H1, Jamba ----------------------------------------------------------------

BAMBA_TINY = {"model_type": "bamba", "vocab_size": 64, "hidden_size": 32,
              "intermediate_size": 24, "num_hidden_layers": 3, "num_attention_heads": 4,
              "num_key_value_heads": 2, "attn_layer_indices": [1], "mamba_n_heads": 4,
              "mamba_n_groups": 2, "mamba_d_state": 6, "mamba_d_conv": 3,
              "mamba_chunk_size": 4, "mamba_expand": 1}
FALCON_H1_TINY = {"model_type": "falcon_h1", "vocab_size": 64, "hidden_size": 32,
                  "intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 4,
                  "num_key_value_heads": 2, "mamba_d_ssm": 48, "mamba_n_heads": 4,
                  "mamba_n_groups": 2, "mamba_d_state": 6, "mamba_d_conv": 3,
                  "mamba_chunk_size": 4, "mamba_rms_norm": True, "projectors_bias": True}
JAMBA_TINY = {"model_type": "jamba", "vocab_size": 64, "hidden_size": 32,
              "intermediate_size": 24, "num_hidden_layers": 4, "num_attention_heads": 4,
              "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2,
              "attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 2,
              "expert_layer_offset": 0, "mamba_d_state": 6, "mamba_d_conv": 3,
              "mamba_dt_rank": 5, "mamba_expand": 2}


def bamba_flops_gap(d, n):
    # 2 Mamba-2 layers: 4 heads of 8 (d_inner = 1 x 32), state 6; x, B, C: 32 + 2 x 2 x 6
    return mamba_gap(2, 32, 6, 32 + 2 * 2 * 6, 3)


def falcon_h1_flops_gap(d, n):
    # 2 layers, each a Mamba-2 mixer of width mamba_d_ssm 48 (4 heads of 12), state 6, beside
    # attention (counted alike); x, B, C: 48 + 2 x 2 x 6 channels
    return mamba_gap(2, 48, 6, 48 + 2 * 2 * 6, 3)


def jamba_flops_gap(d, n):
    # 2 Mamba-1 layers (0 and 2) of d_inner 2 x 32, state 6; the experts a token picks (2 of
    # 4, in layers 0 and 2) are the experts transformers runs: counted alike
    return mamba_gap(2, 64, 6, 64, 3)


def _mamba2_sizes(draw, hidden, prefix="mamba_"):
    """Heads, groups, state, kernel and expand of a Mamba-2 mixer whose heads divide
    expand x hidden_size (Granite's, Bamba's and Falcon-H1's names)."""
    groups = draw(st.integers(1, 2))
    return {prefix + "n_heads": groups * draw(st.sampled_from([1, 2])),
            prefix + "n_groups": groups, prefix + "d_state": draw(st.integers(1, 8)),
            prefix + "d_conv": draw(st.integers(1, 4)), prefix + "expand": draw(st.integers(1, 2)),
            prefix + "chunk_size": draw(st.integers(1, 8)),
            prefix + "conv_bias": draw(st.booleans()), prefix + "proj_bias": draw(st.booleans())}


@st.composite
def bamba_configs(draw):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 5))
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 2))
    d = {"model_type": "bamba", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * heads * draw(st.integers(1, 3)), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads, "num_key_value_heads": kv,
         "attention_bias": draw(st.booleans()), "mlp_bias": draw(st.booleans()),
         "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0}
    d.update(_mamba2_sizes(draw, d["hidden_size"]))
    if draw(st.booleans()):
        d["attn_layer_indices"] = draw(st.lists(st.integers(0, L - 1), unique=True, max_size=L))
    if draw(st.booleans()):
        d["mamba_d_head"] = d["mamba_expand"] * d["hidden_size"] // d["mamba_n_heads"]
    return d


@st.composite
def falcon_h1_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 2))
    d = {"model_type": "falcon_h1", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * heads * draw(st.integers(1, 3)), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": draw(st.integers(1, 4)), "num_attention_heads": heads,
         "num_key_value_heads": kv, "attention_bias": draw(st.booleans()),
         "mlp_bias": draw(st.booleans()), "mamba_rms_norm": draw(st.booleans()),
         "projectors_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans()),
         "pad_token_id": 0}
    d.update(_mamba2_sizes(draw, d["hidden_size"]))
    if draw(st.booleans()):   # its own width, or (null) expand x hidden_size
        d["mamba_d_ssm"] = d["mamba_n_heads"] * draw(d8)
    else:
        d["mamba_d_ssm"] = None
    if draw(st.booleans()):
        d["head_dim"] = 2 * draw(d8)
    return d


@st.composite
def jamba_configs(draw):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 6))
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 2))
    E = draw(st.integers(1, 5))
    ap, ep = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    d = {"model_type": "jamba", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 2 * heads * draw(st.integers(1, 4)), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads, "num_key_value_heads": kv,
         "attn_layer_period": ap, "attn_layer_offset": draw(st.integers(0, ap - 1)),
         "expert_layer_period": ep, "expert_layer_offset": draw(st.integers(0, ep - 1)),
         "mamba_d_state": draw(d8), "mamba_d_conv": draw(st.integers(1, 4)),
         "mamba_expand": draw(st.integers(1, 2)), "mamba_conv_bias": draw(st.booleans()),
         "mamba_proj_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans()),
         "pad_token_id": 0, ("num_local_experts" if draw(st.booleans()) else "num_experts"): E,
         "num_experts_per_tok": draw(st.integers(1, E))}
    if draw(st.booleans()):
        d["mamba_dt_rank"] = draw(d8)
    return d


def deltanet_gap(layers, value_heads, key_dim, value_dim, conv_channels, kernel):
    """Per gated-DeltaNet layer: transformers' torch fallback runs the whole recurrence
    elementwise (FlopCounterMode counts none of the engine's 6 x heads x d_k x d_v) and the
    decode convolution twice over."""
    return layers * (-6 * value_heads * key_dim * value_dim + 2 * conv_channels * kernel)


# --- OLMo-Hybrid ----------------------------------------------------------------------------

OLMO_HYBRID_TINY = {"model_type": "olmo_hybrid", "vocab_size": 64, "hidden_size": 32,
                    "intermediate_size": 24, "num_hidden_layers": 3, "num_attention_heads": 4,
                    "num_key_value_heads": 2, "linear_num_key_heads": 2,
                    "linear_num_value_heads": 4, "linear_key_head_dim": 6,
                    "linear_value_head_dim": 10, "linear_conv_kernel_dim": 3,
                    "layer_types": ["linear_attention", "full_attention", "linear_attention"],
                    "pad_token_id": 0}


def olmo_hybrid_flops_gap(d, n):
    # 2 DeltaNet layers: 4 value heads, d_k 6, d_v 10; q, k, v channels 2 x 2 x 6 + 4 x 10
    return deltanet_gap(2, 4, 6, 10, 2 * 2 * 6 + 4 * 10, 3)


@st.composite
def olmo_hybrid_configs(draw):
    """A small OLMo-Hybrid config: its DeltaNet sizes given or derived, its layers listed or
    left to the class's pattern (sometimes a list without attention: refused alike)."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(2, 6))
    kv = draw(st.integers(1, 3))
    heads = kv * draw(st.integers(1, 2))
    d = {"model_type": "olmo_hybrid", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * heads * draw(st.integers(1, 3)), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads, "num_key_value_heads": kv,
         "linear_conv_kernel_dim": draw(st.integers(1, 4)),
         "attention_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans()),
         "pad_token_id": 0}
    if draw(st.booleans()):
        kh = draw(st.integers(1, 2))
        d.update(linear_num_key_heads=kh, linear_num_value_heads=kh * draw(st.integers(1, 2)),
                 linear_key_head_dim=draw(d8), linear_value_head_dim=draw(d8))
    if draw(st.booleans()):
        d["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                                         min_size=L, max_size=L))
    return d


# --- MiniMax-01 -----------------------------------------------------------------------------
# Its lightning attention's decode step is two matmuls per head, k^T v (a rank-one update) and
# q . state, which FlopCounterMode counts as the engine does (4 x heads x head_dim^2); only
# the decay of the state is elementwise, and the engine counts it inside the update's
# multiply-add: no gap.

MINIMAX_TINY = {"model_type": "minimax", "vocab_size": 64, "hidden_size": 32,
                "intermediate_size": 24, "num_hidden_layers": 3, "num_attention_heads": 4,
                "num_key_value_heads": 2, "num_local_experts": 4, "num_experts_per_tok": 2,
                "block_size": 4,
                "layer_types": ["linear_attention", "full_attention", "linear_attention"]}


@st.composite
def minimax_configs(draw):
    """A small MiniMax-01 config: its layers listed or left to the class's alternation, its
    head width given or derived, the expert count by either name."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 5))
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 3))
    E = draw(st.integers(1, 5))
    d = {"model_type": "minimax", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 2 * heads * draw(st.integers(1, 4)), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads, "num_key_value_heads": kv,
         "block_size": draw(d8), "tie_word_embeddings": draw(st.booleans()),
         ("num_experts" if draw(st.booleans()) else "num_local_experts"): E,
         "num_experts_per_tok": draw(st.integers(1, E))}
    if draw(st.booleans()):
        d["head_dim"] = 2 * draw(d8)
    if draw(st.booleans()):
        d["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                                         min_size=L, max_size=L))
    return d


# --- RecurrentGemma -------------------------------------------------------------------------
# Its decode step convolves elementwise (the cached inputs times the taps, summed) and runs
# the recurrence elementwise: FlopCounterMode counts neither the engine's 2 x lru_width x
# conv1d_width of convolution taps nor its 2 x lru_width of recurrence. Its gates are
# batched matmuls (baddbmm), counted alike.

RECURRENT_GEMMA_TINY = {"model_type": "recurrent_gemma", "vocab_size": 64, "hidden_size": 32,
                        "intermediate_size": 48, "num_hidden_layers": 3,
                        "num_attention_heads": 4, "num_key_value_heads": 1, "lru_width": 24,
                        "conv1d_width": 3, "attention_window_size": 16, "pad_token_id": 0}


def recurrent_gemma_flops_gap(d, n):
    lru, width, layers = 24, 3, 2       # 2 recurrent blocks (layers 0 and 1) of 24 channels
    return -layers * (2 * lru * width + 2 * lru)


@st.composite
def recurrent_gemma_configs(draw):
    """A small RecurrentGemma config: its block pattern, the RG-LRU's width given or the
    hidden size, MQA or more KV heads."""
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 3))
    d = {"model_type": "recurrent_gemma", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": heads * draw(st.integers(1, 4)), "intermediate_size": draw(d8),
         "num_hidden_layers": draw(st.integers(1, 6)), "num_attention_heads": heads,
         "num_key_value_heads": kv, "conv1d_width": draw(st.integers(1, 4)),
         "attention_window_size": draw(d8), "attention_bias": draw(st.booleans()),
         "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0,
         "block_types": draw(st.lists(st.sampled_from(["recurrent", "attention"]), min_size=1,
                                      max_size=3))}
    if draw(st.booleans()):
        d["lru_width"] = heads * draw(st.integers(1, 3))
    return d


# --- RWKV-4 ---------------------------------------------------------------------------------
# Its recurrence (rwkv_linear_attention_cpu) is elementwise: FlopCounterMode counts none of the
# engine's 8 x attention_hidden_size per layer; its projections are matmuls, counted alike.

RWKV_TINY = {"model_type": "rwkv", "vocab_size": 64, "hidden_size": 32,
             "intermediate_size": 48, "num_hidden_layers": 2, "context_length": 64}


def rwkv_flops_gap(d, n):
    return -2 * 8 * 32          # 2 layers, 32 channels


@st.composite
def rwkv_configs(draw):
    """A small RWKV-4 config: widths given or derived (attention_hidden_size equal to the
    hidden size, as every released RWKV-4 and transformers' state need), the context length by
    either name."""
    d8 = st.integers(1, 8)
    h = 2 * draw(d8)
    d = {"model_type": "rwkv", "vocab_size": draw(st.integers(2, 200)), "hidden_size": h,
         "num_hidden_layers": draw(st.integers(1, 4)),
         ("context_length" if draw(st.booleans()) else "max_position_embeddings"): 64,
         "tie_word_embeddings": draw(st.booleans())}
    if draw(st.booleans()):
        d["intermediate_size"] = 2 * draw(d8)
    if draw(st.booleans()):
        d["attention_hidden_size"] = h if draw(st.booleans()) else 2 * draw(d8)
    return d


# --- xLSTM ----------------------------------------------------------------------------------
# The mLSTM's decode step (mlstm_recurrent_step_native): the outer product k v^T, q . C and
# q . n are matmuls FlopCounterMode counts (4 x heads x d_qk x d_v + 2 x heads x d_qk); the
# normaliser's update is elementwise: the engine's 2 x heads x d_qk more.

XLSTM_TINY = {"model_type": "xlstm", "vocab_size": 64, "hidden_size": 128,
              "num_hidden_layers": 2, "num_heads": 2, "ffn_proj_factor": 1.5,
              "ffn_round_up_to_multiple_of": 16, "pad_token_id": 0}


def xlstm_flops_gap(d, n):
    heads, dqk = 2, 64 // 2     # qk_dim int(128 x 0.5) = 64, over 2 heads
    return -2 * heads * dqk * 2  # 2 layers


@st.composite
def xlstm_configs(draw):
    """A small xLSTM config: mLSTM widths a multiple of 64 (transformers' cache rounds them
    up to one), single or fused weights, biases on or off, its layer count or width under
    xLSTM's own names."""
    heads = draw(st.sampled_from([1, 2, 4]))
    h = 64 * draw(st.integers(1, 2))
    d = {"model_type": "xlstm", "vocab_size": draw(st.integers(2, 200)), "hidden_size": h,
         "num_heads": heads, "qk_dim_factor": draw(st.sampled_from([0.5, 1.0])),
         "v_dim_factor": draw(st.sampled_from([0.5, 1.0])),
         "ffn_proj_factor": draw(st.sampled_from([1.0, 1.3, 2.667])),
         "ffn_round_up_to_multiple_of": draw(st.sampled_from([1, 8, 64])),
         "use_bias": draw(st.booleans()), "weight_mode": draw(st.sampled_from(["single", "fused"])),
         "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0}
    L = draw(st.integers(1, 3))
    d["num_blocks" if draw(st.booleans()) else "num_hidden_layers"] = L
    if draw(st.booleans()):
        d["embedding_dim"] = h
    return d


# --- Bailing-Hybrid -------------------------------------------------------------------------

BAILING_HYBRID_TINY = {"model_type": "bailing_hybrid", "vocab_size": 64, "hidden_size": 32,
                       "intermediate_size": 24, "moe_intermediate_size": 8,
                       "num_hidden_layers": 3, "num_attention_heads": 4,
                       "num_key_value_heads": 4, "kv_lora_rank": 8, "qk_rope_head_dim": 4,
                       "qk_nope_head_dim": 6, "v_head_dim": 6, "head_dim": 6, "num_experts": 4,
                       "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1,
                       "first_k_dense_replace": 1, "layer_group_size": 3,
                       "short_conv_kernel_size": 3, "pad_token_id": 0}


def bailing_hybrid_flops_gap(d, n):
    # 2 delta-attention layers: 4 heads of 6 (q, k, v convolved: 3 x 24 channels, 3 taps);
    # 1 MLA layer whose cached latents transformers expands through kv_b_proj at every step
    # (kv_lora_rank 8 to 4 heads x (6 + 6)): (n - 1) x 2 x |kv_b_proj| beyond the absorbed form
    delta = deltanet_gap(2, 4, 6, 6, 3 * 4 * 6, 3)
    return delta + (n - 1) * 2 * (8 * 4 * (6 + 6))


@st.composite
def bailing_hybrid_configs(draw):
    """A small Bailing-Hybrid config: its layers by layer_group_size or listed, its MLPs by
    first_k_dense_replace or mlp_layer_types, the experts' fields by either name."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 6))
    heads = draw(st.integers(1, 4))
    E = draw(st.integers(1, 6))
    d = {"model_type": "bailing_hybrid", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "moe_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": heads, "num_key_value_heads": heads,
         "kv_lora_rank": 2 * draw(d8), "qk_rope_head_dim": 2 * draw(st.integers(1, 3)),
         "qk_nope_head_dim": 2 * draw(d8), "v_head_dim": 2 * draw(d8), "head_dim": 2 * draw(d8),
         ("num_experts" if draw(st.booleans()) else "num_local_experts"): E,
         ("num_experts_per_tok" if draw(st.booleans()) else "num_experts_per_token"):
             draw(st.integers(1, E)),
         "n_group": 1, "topk_group": 1, "short_conv_kernel_size": draw(st.integers(1, 4)),
         ("n_shared_experts" if draw(st.booleans()) else "num_shared_experts"):
             draw(st.integers(0, 2)),
         "attention_bias": draw(st.booleans()), "pad_token_id": 0}
    if draw(st.booleans()):
        d["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                                         min_size=L, max_size=L))
    else:
        d["layer_group_size"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        d["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]),
                                             min_size=L, max_size=L))
    else:
        d["first_k_dense_replace"] = draw(st.integers(0, L))
    # a config.json the class wrote also gives the linear attention's own sizes
    for f, v in (("linear_num_heads", draw(st.integers(1, 4))),
                 ("linear_head_dim", 2 * draw(d8)),
                 ("linear_conv_kernel_dim", draw(st.integers(1, 4)))):
        if draw(st.booleans()):
            d[f] = v
    return d


# --- Zamba and Zamba2 -----------------------------------------------------------------------
# The shared block's weights are multiplied at every hybrid layer that runs it: the engine
# counts them there as transformers does (Zamba2: each use's own adapters, one set per use).
# What is left is each layer's Mamba mixer, as above.

ZAMBA_TINY = {"model_type": "zamba", "vocab_size": 64, "hidden_size": 16,
              "intermediate_size": 24, "num_hidden_layers": 4, "num_attention_heads": 4,
              "num_key_value_heads": 2, "n_mamba_heads": 2, "mamba_d_state": 4,
              "mamba_d_conv": 3, "mamba_dt_rank": 3,
              "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"]}
ZAMBA2_TINY = {"model_type": "zamba2", "vocab_size": 64, "hidden_size": 16,
               "intermediate_size": 24, "num_hidden_layers": 5, "num_attention_heads": 4,
               "num_key_value_heads": 4, "n_mamba_heads": 4, "mamba_ngroups": 2,
               "mamba_d_state": 4, "mamba_d_conv": 3, "chunk_size": 4, "num_mem_blocks": 2,
               "adapter_rank": 3, "use_shared_attention_adapter": True,
               "layers_block_type": ["mamba", "hybrid", "hybrid", "mamba", "hybrid"]}


def zamba_flops_gap(d, n):
    # 4 Mamba-1 mixers (one in every layer) of d_inner 2 x 16, state 4, 3 taps
    return mamba_gap(4, 32, 4, 32, 3)


def zamba2_flops_gap(d, n):
    # 5 Mamba-2 mixers: 4 heads of 8 (d_inner 2 x 16), state 4; x, B, C: 32 + 2 x 2 x 4
    return mamba_gap(5, 32, 4, 32 + 2 * 2 * 4, 3)


def _zamba_layer_list(draw, L):
    return draw(st.lists(st.sampled_from(["mamba", "hybrid", "linear_attention"]), min_size=L,
                         max_size=L))


@st.composite
def zamba_configs(draw):
    """A small Zamba config: its layers listed (sometimes under layer_types, the legacy
    "mamba" among them) or left to ZambaConfig's pattern, the Mamba heads dividing its width."""
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 2))
    nm = draw(st.integers(1, 2))
    d = {"model_type": "zamba", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 2 * heads * nm * draw(st.integers(1, 2)), "intermediate_size": 2 * draw(d8),
         "num_attention_heads": heads, "num_key_value_heads": kv, "n_mamba_heads": nm,
         "mamba_d_state": draw(d8), "mamba_d_conv": draw(st.integers(1, 4)),
         "mamba_expand": draw(st.integers(1, 2)), "mamba_conv_bias": draw(st.booleans()),
         "mamba_proj_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans()),
         "pad_token_id": 0}
    L = draw(st.integers(1, 6))
    if draw(st.booleans()):
        d["num_hidden_layers"] = L
        field = "layers_block_type" if draw(st.booleans()) else "layer_types"
        d[field] = _zamba_layer_list(draw, L)
    else:   # (ZambaConfig's pattern: its second hybrid layer is layer 7 at the earliest)
        p = draw(st.integers(1, 4))
        d.update(num_hidden_layers=draw(st.integers(3, 12)), attn_layer_period=p,
                 attn_layer_offset=draw(st.integers(0, p - 1)))
    if draw(st.booleans()):
        d["mamba_dt_rank"] = draw(d8)
    if draw(st.booleans()):
        d["attention_head_dim"] = 2 * draw(d8)
    return d


@st.composite
def zamba2_configs(draw):
    """A small Zamba2 config: its layers listed (Zamba2Config's own 54 are drawn from the class
    defaults), one to three shared blocks, adapters on q, k and v or not, biases on or off."""
    d8 = st.integers(1, 8)
    heads = draw(st.integers(1, 4))
    groups = draw(st.integers(1, 2))
    nm = groups * draw(st.integers(1, 2))
    d = {"model_type": "zamba2", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 2 * heads * nm, "num_attention_heads": heads,
         "n_mamba_heads": nm, "mamba_ngroups": groups, "mamba_d_state": draw(d8),
         "mamba_d_conv": draw(st.integers(1, 4)), "mamba_expand": draw(st.integers(1, 2)),
         "chunk_size": draw(d8), "num_mem_blocks": draw(st.integers(1, 3)),
         "adapter_rank": draw(st.integers(1, 4)),
         "use_shared_attention_adapter": draw(st.booleans()),
         "add_bias_linear": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans()),
         "pad_token_id": 0}
    if draw(st.booleans()):
        d["intermediate_size"] = 2 * draw(d8)
    if draw(st.booleans()):
        d["num_key_value_heads"] = heads
    L = draw(st.integers(1, 7))
    d["num_hidden_layers"] = L
    d["layers_block_type"] = _zamba_layer_list(draw, L)
    return d
