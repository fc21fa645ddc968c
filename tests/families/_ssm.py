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
