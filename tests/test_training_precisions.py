"""Precisions named by tool and default, and FP8 training's states: bookkeeping against hand
arithmetic and the sources each setting names (PyTorch's own bytes: test_training_torch.py;
the peaks they lead to: test_training_loops.py and test_training_comm_buffers.py)."""

import pytest

import llmcourse as lc
from llmcourse.counts import param_count
from llmcourse.training import (FP8_RECIPES, PRECISIONS, TRAINING_SETUPS, bytes_per_param,
                                fp8_state_bytes, setup_settings, training_memory)

L31 = lc.load_model("Llama-3.1-8B")
N = param_count(L31).total
TENSORS = 9 * 32 + 3   # q, k, v, o, gate, up, down and two norms a layer; embedding, norm, head


def _matmul(cfg):
    pc = param_count(cfg)
    return pc.total - pc.components["embedding"] - pc.components["norms"]


def test_every_precision_says_what_it_holds_and_who_runs_it():
    for name, p in PRECISIONS.items():
        assert {"param", "grad", "master", "accum", "act", "state", "unsharded", "about"} <= set(p)
        assert p["about"], name
    assert PRECISIONS["bf16"]["state"] == 2 and "dtype='auto'" in PRECISIONS["bf16"]["about"]
    assert PRECISIONS["fsdp-bf16"]["unsharded"] == 2
    assert "from_pretrained(..., dtype=torch.float32)" in PRECISIONS["amp-bf16"]["about"]


@pytest.mark.parametrize("setup, per_param, steps", [
    ("hf-trainer", 8, True),                  # pure bf16, the fused AdamW's steps on the GPU
    ("hf-trainer-fp32-weights", 16, True),    # fp32 under autocast
    ("hf-trainer-fsdp", 16, True),            # fp32 shards, sharded over dp
    ("hf-trainer-deepspeed-zero3", 16, False),
    ("pytorch-amp", 16, False),               # foreach AdamW: its steps stay on the CPU
    ("megatron", 18, False),                  # fp32 main_grad
])
def test_each_tools_states_per_parameter(setup, per_param, steps):
    s = setup_settings(setup)
    assert bytes_per_param(s["precision"], s["optimizer"]) == per_param
    m = training_memory(L31, 2048, **setup_settings(setup, dp=1))
    assert m.states == per_param * N + (4 * TENSORS if steps else 0)


def test_pure_bf16_against_the_amp_row_for_llama_3_1_8b():
    """The reviewer's finding: transformers 5 loads Llama-3.1-8B in bf16, so the Trainer's
    bf16=True trains pure bf16 (64.2 GB of states, no master, no weight copies), not amp-bf16
    (128.5 GB, plus 2 N_mm of bf16 copies, 15.0 GB, saved for backward)."""
    pure = training_memory(L31, 4096, 1, **setup_settings("hf-trainer"))
    amp = training_memory(L31, 4096, 1, **setup_settings("hf-trainer-fp32-weights"))
    assert 64.2e9 < pure.states < 64.3e9 and 128.4e9 < amp.states < 128.6e9
    assert "amp_weight_copies" not in pure.activation_terms
    assert amp.activation_terms["amp_weight_copies"] == 2 * _matmul(L31)
    assert round(2 * _matmul(L31) / 1e9, 1) == 15.0


def test_setups_cite_their_sources_and_take_overrides():
    for name, s in TRAINING_SETUPS.items():
        assert s["sources"] and s["about"], name
        training_memory(L31, 512, **setup_settings(name, dp=8))
    assert setup_settings("hf-trainer-fsdp", dp=8)["dp"] == 8


def test_fp8_states_by_hand():
    """Transformer Engine in Megatron-LM on Hopper: bf16 weights 2, fp32 main_grad 4, fp32
    master 4, AdamW 8, and an FP8 copy of every matmul weight with its transpose (1 + 1).
    DeepSeek-V3: fp32 master 4 and gradients 4, AdamW's moments in bf16 (2 + 2), FP8 weights
    in 128 x 128 blocks with one fp32 scale each."""
    mm = _matmul(L31)
    assert fp8_state_bytes(N, mm, "te-megatron") == 18 * N + 2 * mm
    assert fp8_state_bytes(N, mm, "deepseek-v3") == 12 * N + mm + 4 * -(-mm // (128 * 128))
    # Llama-3.1-8B: 159.6 and 103.9 GB before sharding, against bf16-mixed's 128.5
    assert 159.5e9 < fp8_state_bytes(N, mm, "te-megatron") < 159.6e9
    assert 103.8e9 < fp8_state_bytes(N, mm, "deepseek-v3") < 103.9e9
    assert all(r["sources"] for r in FP8_RECIPES.values())
    with pytest.raises(lc.ConfigError, match="recipe: must be one of"):
        fp8_state_bytes(N, mm, "fp8")
