"""Training memory against PyTorch itself (CPU): the bytes of weights, grads and
optimizer state after one real optimizer step (fp32 and pure bf16, foreach and fused
AdamW, SGD with momentum), and the bytes autograd saves for backward."""

import pytest
import torch

import llmcourse as lc
from llmcourse.training import training_memory

import stored_rows  # noqa: F401  (puts the repository root on sys.path)
from measurements import saved_activations as M  # noqa: E402  (the script that wrote the stored data)

# small random configs of zoo families (a tied embedding, QK-norm, biases, GQA, MoE)
SMALL = {
    "llama": dict(model_type="llama", hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, intermediate_size=96, vocab_size=128,
                  tie_word_embeddings=False),
    "qwen3-tied": dict(model_type="qwen3", hidden_size=64, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=1, head_dim=32,
                       intermediate_size=160, vocab_size=160, tie_word_embeddings=True),
    "qwen2-bias": dict(model_type="qwen2", hidden_size=96, num_hidden_layers=3,
                       num_attention_heads=6, num_key_value_heads=2, intermediate_size=200,
                       vocab_size=100, tie_word_embeddings=False),
}


# (the model's dtype, the optimizer PyTorch builds, whether its step counters sit beside the
# parameters): foreach AdamW (torch.optim.AdamW's default) creates each step as a CPU tensor
# unless fused=True or capturable=True (torch/optim/adam.py, _init_group), so on a GPU only
# the fused AdamW's count; m and v are created like the parameter (bf16 for a bf16 model)
OPTIMIZERS = {
    ("fp32", "adamw"): ("fp32", lambda ps: torch.optim.AdamW(ps, lr=1e-3), False),
    ("fp32", "adamw-fused"): ("fp32", lambda ps: torch.optim.AdamW(ps, lr=1e-3, fused=True), True),
    ("fp32", "sgd-momentum"): ("fp32", lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9),
                               False),
    # pure bf16 (the Hugging Face Trainer's bf16=True on a model loaded in bf16): 8 B/param
    ("bf16", "adamw-fused"): ("bf16", lambda ps: torch.optim.AdamW(ps, lr=1e-3, fused=True), True),
    ("bf16", "adamw"): ("bf16", lambda ps: torch.optim.AdamW(ps, lr=1e-3), False),
}


def _one_step(config, dtype, make_optimizer, steps_on_device):
    model = M.build(config, "sdpa", dtype)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = make_optimizer(params)
    ids = torch.randint(0, config["vocab_size"], (2, 16), generator=torch.Generator().manual_seed(0))
    model(input_ids=ids, labels=ids).loss.backward()
    opt.step()
    held = {
        "params": sum(p.nbytes for p in params),
        "grads": sum(p.grad.nbytes for p in params),
        "optimizer": sum(t.nbytes for st in opt.state.values() for k, t in st.items()
                         if isinstance(t, torch.Tensor) and (k != "step" or steps_on_device)),
    }
    return held


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("precision, optimizer", sorted(OPTIMIZERS))
def test_states_equal_what_pytorch_holds(name, precision, optimizer):
    held = _one_step(SMALL[name], *OPTIMIZERS[precision, optimizer])
    m = training_memory(lc.from_hf_config(SMALL[name]), 16, 2, precision=precision,
                        optimizer=optimizer)
    assert {"params": m.params, "grads": m.grads, "optimizer": m.optimizer} == held


# One small case per family and attention kernel, re-measured now. The stored data
# (llmcourse/data/saved_activations.json, 64 settings) matches the engine to the
# byte, so the tolerance is zero: any difference means PyTorch or transformers changed
# what they save, and the lesson's table must be measured again.
CASES = [("llama (GQA 8:2, SwiGLU)", "sdpa", "fp32", 2, 64),
         ("qwen3 (QK-norm, head_dim 64)", "eager", "bf16", 1, 96),
         ("qwen3_moe (16 experts, top-4)", "sdpa", "bf16", 3, 32),
         ("mixtral (8 experts, top-2)", "eager", "fp32", 2, 48)]


@pytest.mark.parametrize("name, impl, dtype, batch, seq_len", CASES)
def test_saved_activations_equal_the_engine(name, impl, dtype, batch, seq_len):
    config = M.MODELS[name]
    measured = M.measure(config, batch, seq_len, impl, dtype)["saved_bytes"]
    est = training_memory(lc.from_hf_config(config), seq_len, batch,
                          precision=M.DTYPES[dtype], attention=M.ATTENTION[impl])
    assert est.saved_for_backward == measured
