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
