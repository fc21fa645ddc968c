"""flops_per_token against what PyTorch counts (torch.utils.flop_counter.FlopCounterMode) in
one decode step of a tiny transformers model on the CPU: the new token after n - 1 cached
ones, eager attention, experts computed one by one (FlopCounterMode has no formula for
grouped expert matmuls).

Where transformers' reference code does the same work as the engine's count, the numbers
are equal (Gemma 4's sliding, full, KV-shared and K = V layers, its experts beside a dense
MLP, OLMo 3, Ministral 3, MiniMax-M2). Where it does more or less, the difference is the
stated piece of work, and the test says which:

* MLA (GLM-4.7-Flash, DeepSeek-V3.2): transformers expands every cached latent through
  kv_b_proj at every step, (n - 1) x 2 x |kv_b_proj| FLOPs per layer more than the absorbed
  form the engine counts (the DeepSeek-V2 paper's). Sparse attention's indexer is counted
  alike; below index_topk keys its attention equals dense attention.
* Mamba-2 (Nemotron-H): the read-out y = state . C is a batched matmul (2 h p N); the
  state's decayed rank-one update is elementwise, which FlopCounterMode does not count (the
  engine counts it: 4 h p N in all); transformers' decode convolution runs over its whole
  window of conv_kernel positions twice over.
* Gated DeltaNet (Qwen3.5) and Kimi Delta Attention (Kimi-Linear): transformers' torch
  fallback runs the whole recurrence elementwise, so FlopCounterMode counts none of the
  engine's 6 x heads x d_k x d_v, and the decode convolution twice over, as for Mamba-2.

* DeepSeek-V4: the hyper-connections' coefficient weights and their m x m mix of the
  streams are matmuls, counted alike; the collapse of the streams into a block's input (and
  at the head) and the block's output written back into them are elementwise, and so is a
  compressor's pooling of the window the step closes, and the indexer's weighted sum over
  its heads: the engine counts those, PyTorch does not. transformers' eager CSA layer
  multiplies the query with every compressed entry and masks all but the indexer's
  index_topk, which the engine counts (as a sparse kernel computes them).
"""

import pytest

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)

pytestmark = pytest.mark.slow

N = 20  # the context of the decode step: 19 cached tokens and the new one


def decode_step_flops(d, n=N):
    """(FLOPs PyTorch counts in one decode step, the engine's FlopCount) for config ``d``."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    torch.manual_seed(0)
    hf = transformers_ref.hf_config(d)
    hf._attn_implementation = "eager"
    hf._experts_implementation = "eager"
    model = transformers_ref.causal_lm(hf).eval()
    ids = torch.randint(0, d["vocab_size"], (1, n))
    with torch.no_grad():
        cache = model(ids[:, :n - 1], use_cache=True).past_key_values
        counter = FlopCounterMode(display=False)
        with counter:
            model(ids[:, n - 1:], past_key_values=cache, use_cache=True)
    return counter.get_total_flops(), lc.flops_per_token(lc.from_hf_config(d), n, mode="decode")


GEMMA4 = {"model_type": "gemma4_text", "vocab_size": 64, "hidden_size": 32,
          "intermediate_size": 24, "num_hidden_layers": 6, "num_attention_heads": 4,
          "num_key_value_heads": 2, "head_dim": 8, "global_head_dim": 16, "sliding_window": 8,
          "layer_types": ["sliding_attention", "full_attention"] * 3,
          "vocab_size_per_layer_input": 64, "hidden_size_per_layer_input": 4}

EQUAL = {
    "gemma4 sliding + full": GEMMA4,
    "gemma4 KV-shared": dict(GEMMA4, num_kv_shared_layers=2, use_double_wide_mlp=True),
    "gemma4 K = V": dict(GEMMA4, attention_k_eq_v=True, num_global_key_value_heads=1),
    "gemma4 experts": dict(GEMMA4, enable_moe_block=True, num_experts=4, top_k_experts=2,
                           moe_intermediate_size=8, hidden_size_per_layer_input=0),
    "olmo3": {"model_type": "olmo3", "vocab_size": 64, "hidden_size": 32,
              "intermediate_size": 24, "num_hidden_layers": 4, "num_attention_heads": 4,
              "num_key_value_heads": 2, "sliding_window": 8, "max_position_embeddings": 64},
    "ministral3": {"model_type": "ministral3", "vocab_size": 64, "hidden_size": 32,
                   "intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "head_dim": 8, "max_position_embeddings": 64},
    "minimax_m2": {"model_type": "minimax_m2", "vocab_size": 64, "hidden_size": 32,
                   "intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "head_dim": 8, "num_local_experts": 4,
                   "num_experts_per_tok": 2, "max_position_embeddings": 64},
}


@pytest.mark.parametrize("case", sorted(EQUAL))
def test_decode_step_flops_equal_what_pytorch_counts(case):
    counted, ours = decode_step_flops(EQUAL[case])
    assert ours.attention > 0
    assert counted == ours.total


MLA = {"vocab_size": 64, "hidden_size": 32, "intermediate_size": 24, "moe_intermediate_size": 8,
       "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
       "kv_lora_rank": 8, "q_lora_rank": 12, "qk_rope_head_dim": 4, "qk_nope_head_dim": 6,
       "v_head_dim": 6, "n_routed_experts": 4, "num_experts_per_tok": 2, "n_group": 1,
       "topk_group": 1, "first_k_dense_replace": 1, "index_n_heads": 2, "index_head_dim": 8,
       "index_topk": 64}


@pytest.mark.parametrize("mt", ["glm4_moe_lite", "deepseek_v32"])
def test_mla_decode_step_is_the_absorbed_count_plus_transformers_reexpansion(mt):
    d = dict(MLA, model_type=mt)
    counted, ours = decode_step_flops(d)
    kv_b = d["kv_lora_rank"] * d["num_attention_heads"] * (d["qk_nope_head_dim"] + d["v_head_dim"])
    assert counted == ours.total + d["num_hidden_layers"] * (N - 1) * 2 * kv_b


def test_mamba2_decode_step_reads_out_the_state_as_counted():
    d = {"model_type": "nemotron_h", "vocab_size": 64, "hidden_size": 32,
         "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
         "intermediate_size": 24, "ssm_state_size": 6, "mamba_num_heads": 4,
         "mamba_head_dim": 4, "n_groups": 2, "conv_kernel": 3, "chunk_size": 4,
         "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
         "moe_shared_expert_intermediate_size": 8, "hybrid_override_pattern": "M*-",
         "use_mamba_kernels": False}
    counted, ours = decode_step_flops(d)
    h, p, N_state, k = 4, 4, 6, 3
    conv_channels = h * p + 2 * 2 * N_state
    # the engine's 4 h p N: the read-out (a bmm PyTorch counts) and the elementwise update
    update = 2 * h * p * N_state
    conv_once = 2 * conv_channels * k   # transformers' decode runs the convolution twice over
    assert counted == ours.total - update + conv_once


def test_delta_rule_decode_step_counts_the_projections_not_the_recurrence():
    d = {"model_type": "qwen3_5_text", "vocab_size": 64, "hidden_size": 32,
         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
         "head_dim": 8, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
         "linear_key_head_dim": 6, "linear_value_head_dim": 10, "linear_conv_kernel_dim": 3,
         "layer_types": ["linear_attention", "full_attention"], "intermediate_size": 16}
    counted, ours = decode_step_flops(d)
    recurrence = 6 * 4 * 6 * 10                 # the engine's, elementwise in transformers
    conv_once = 2 * (2 * 2 * 6 + 4 * 10) * 3    # q, k, v channels x kernel, counted again
    assert counted == ours.total - recurrence + conv_once


def test_kimi_delta_attention_decode_step_as_counted():
    d = {"model_type": "kimi_linear", "vocab_size": 64, "pad_token_id": 0, "hidden_size": 32,
         "intermediate_size": 24, "moe_intermediate_size": 8, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 4, "kv_lora_rank": 8,
         "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6, "num_experts": 4,
         "num_experts_per_token": 2, "first_k_dense_replace": 2,
         "linear_attn_config": {"full_attn_layers": [2], "kda_layers": [1], "head_dim": 6,
                                "num_heads": 2, "short_conv_kernel_size": 3}}
    counted, ours = decode_step_flops(d)
    recurrence = 6 * 2 * 6 * 6                  # 2 heads of 6: elementwise in transformers
    conv_once = 2 * (3 * 2 * 6) * 3             # q, k and v convolutions, counted again
    mla_reexpansion = (N - 1) * 2 * (8 * 4 * (6 + 6))   # the MLA layer's kv_b_proj per step
    assert counted == ours.total - recurrence + conv_once + mla_reexpansion


V4 = {"model_type": "deepseek_v4", "vocab_size": 64, "hidden_size": 32,
      "moe_intermediate_size": 8, "num_hidden_layers": 4, "num_attention_heads": 4,
      "num_key_value_heads": 1, "head_dim": 16, "q_lora_rank": 12, "num_experts_per_tok": 2,
      "n_routed_experts": 4, "hc_mult": 3, "sliding_window": 8, "o_groups": 2,
      "o_lora_rank": 8, "index_n_heads": 2, "index_head_dim": 8, "index_topk": 4,
      "compress_rates": {"compressed_sparse_attention": 4, "heavily_compressed_attention": 8},
      "layer_types": ["sliding_attention", "compressed_sparse_attention",
                      "heavily_compressed_attention", "compressed_sparse_attention"],
      "num_hash_layers": 1, "partial_rotary_factor": 0.5}


@pytest.mark.parametrize("n", [12, 23, 24])
def test_deepseek_v4_decode_step_as_counted(n):
    """Steps 12 (closes a CSA window; its 3 entries are all within index_topk = 4), 23
    (closes none; 5 CSA entries) and 24 (closes a CSA and an HCA window; 6 CSA entries)."""
    counted, ours = decode_step_flops(V4, n)
    H, m, layers, heads, hd = 32, 3, 4, 4, 16
    n_csa, n_hca, csa_rate, hca_rate = 2, 1, 4, 8
    index_heads, index_dim, topk = 2, 8, 4
    # elementwise in transformers, counted by the engine: the collapse of the m streams into
    # each block's input and the block's output written into m streams (2 blocks a layer),
    # the head's collapse, each m x H multiply-adds
    streams = layers * 2 * (2 * m * H + 2 * m * H) + 2 * m * H
    # the pooling of a window this step closes: 2 x rate inputs of the entry and of the
    # indexer's key in a CSA layer, rate inputs of the entry in an HCA layer
    pooling = (n_csa * 2 * (2 * csa_rate) * (hd + index_dim) * (n % csa_rate == 0)
               + n_hca * 2 * hca_rate * hd * (n % hca_rate == 0))
    entries = n // csa_rate            # compressed entries a CSA layer holds after the step
    head_sum = n_csa * 2 * index_heads * entries   # the indexer's sum over its heads
    # transformers' eager CSA attention: q.k and the V sum over the entries it masks out too
    masked = n_csa * 2 * heads * 2 * hd * (entries - min(entries, topk))
    assert counted == ours.total - streams - pooling - head_sum + masked
