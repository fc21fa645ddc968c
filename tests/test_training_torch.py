"""Training memory against PyTorch itself (CPU): the bytes of weights, grads and
optimizer state after one real AdamW step, and the bytes autograd saves for backward."""

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


def _one_step(config, optimizer):
    model = M.build(config, "sdpa", "fp32")
    params = [p for p in model.parameters() if p.requires_grad]
    opt = {"adamw": lambda: torch.optim.AdamW(params, lr=1e-3),
           "sgd-momentum": lambda: torch.optim.SGD(params, lr=1e-3, momentum=0.9)}[optimizer]()
    ids = torch.randint(0, config["vocab_size"], (2, 16), generator=torch.Generator().manual_seed(0))
    model(input_ids=ids, labels=ids).loss.backward()
    opt.step()
    held = {
        "params": sum(p.nbytes for p in params),
        "grads": sum(p.grad.nbytes for p in params),
        "optimizer": sum(t.nbytes for st in opt.state.values() for t in st.values()
                         if isinstance(t, torch.Tensor)),
    }
    return held


@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("optimizer", ["adamw", "sgd-momentum"])
def test_fp32_states_equal_what_pytorch_holds(name, optimizer):
    held = _one_step(SMALL[name], optimizer)
    m = training_memory(lc.from_hf_config(SMALL[name]), 16, 2, precision="fp32",
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
