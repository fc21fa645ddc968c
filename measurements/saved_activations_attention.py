"""The bytes PyTorch saves for backward in small decoders whose attention differs from Llama's.

The same count as :mod:`measurements.saved_activations` (``saved_tensors_hooks``, each storage
once and only if still held when the forward ends, weights excluded, per decoder layer), for
tiny random configs of:

* Gemma 2: attention-logit softcapping in eager attention (tanh keeps an s x s output per
  head), final-logit softcapping (tanh keeps one value per logit), RMSNorm scaled by an fp32
  ``1 + w`` (a new tensor per norm call), sliding and full layers; eager only (transformers'
  Gemma 2 refuses SDPA);
* Gemma 3: a local rotary table for the sliding layers beside the global one, QK-norm, the
  sliding-window mask SDPA keeps once ``seq_len >= sliding_window`` (with k and v repeated
  to every head, or a view of a single KV head);
* multi-query attention (one KV head): eager attention's matmuls keep k and v at their one
  head for a single sequence (repeat_kv's expansion folds into a view), copies for several.

Each in fp32 and bf16, and under ``torch.autocast(bfloat16)`` with fp32 weights (``amp``) and
with bf16 weights (``bf16+autocast``: the Hugging Face Trainer's ``bf16=True`` on a model
loaded in bf16, pure bf16).

    python -m measurements saved-activations-attention   # writes llmcourse/data/saved_activations_attention.json

CPU only. ``tests/test_training_attention_variants.py`` compares the engine with every row and
re-measures one case per mechanism.
"""

from __future__ import annotations

from .common import AUTOCAST_DTYPES, DTYPES, package_file
from .saved_activations_hybrid import run

__all__ = ["MODELS", "SHAPES", "OUT", "ENGINE_PRECISION", "main"]

OUT = package_file("saved_activations_attention.json")
ENGINE_PRECISION = {**DTYPES, **AUTOCAST_DTYPES}

MODELS = {
    "gemma2 (softcapping, GQA 4:2, window 20)": dict(
        model_type="gemma2", vocab_size=200, hidden_size=64, intermediate_size=96,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        sliding_window=20, attn_logit_softcapping=50.0, final_logit_softcapping=30.0,
        query_pre_attn_scalar=16, max_position_embeddings=4096),
    "gemma2 (MQA 3:1, softcapping)": dict(
        model_type="gemma2", vocab_size=160, hidden_size=48, intermediate_size=80,
        num_hidden_layers=2, num_attention_heads=3, num_key_value_heads=1, head_dim=16,
        sliding_window=24, attn_logit_softcapping=50.0, final_logit_softcapping=30.0,
        query_pre_attn_scalar=16, max_position_embeddings=4096),
    "gemma3_text (local + global rotary, GQA 4:2, window 20)": dict(
        model_type="gemma3_text", vocab_size=200, hidden_size=64, intermediate_size=96,
        num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        sliding_window=20, layer_types=["sliding_attention", "sliding_attention",
                                        "full_attention"],
        query_pre_attn_scalar=16, rope_local_base_freq=10000.0, final_logit_softcapping=20.0,
        max_position_embeddings=4096),
    "gemma3_text (MQA 3:1, as gemma-3-1b)": dict(
        model_type="gemma3_text", vocab_size=160, hidden_size=48, intermediate_size=80,
        num_hidden_layers=2, num_attention_heads=3, num_key_value_heads=1, head_dim=16,
        sliding_window=24, layer_types=["sliding_attention", "full_attention"],
        query_pre_attn_scalar=16, rope_local_base_freq=10000.0, max_position_embeddings=4096),
    "llama (MQA 6:1)": dict(
        model_type="llama", hidden_size=96, num_hidden_layers=2, num_attention_heads=6,
        num_key_value_heads=1, intermediate_size=200, vocab_size=300, head_dim=16,
        max_position_embeddings=4096, tie_word_embeddings=False),
}
# (batch, seq_len): one sequence (MQA's view), several; shorter than, equal to and longer
# than the sliding windows
SHAPES = [(1, 40), (2, 20), (1, 16), (3, 30)]
DTYPE_NAMES = ("fp32", "bf16", "amp", "bf16+autocast")
IMPLS = {"sdpa": DTYPE_NAMES, "eager": DTYPE_NAMES}
EAGER_ONLY = {"gemma2": {"eager": DTYPE_NAMES}}   # transformers' Gemma 2 refuses SDPA

ABOUT = ("Bytes PyTorch saves for backward in one training forward (with labels) of small "
         "random-weight decoders whose attention differs from Llama's (Gemma 2's softcapping, "
         "Gemma 3's local rotary table and sliding-window mask, multi-query attention), built "
         "with transformers, counted with torch.autograd.graph.saved_tensors_hooks, each "
         "storage once and only if still held when the forward ends, parameters and buffers "
         "excluded; 'layers' splits the count by decoder layer. amp: fp32 weights under "
         "torch.autocast('cpu', bfloat16); bf16+autocast: bf16 weights under it (the Hugging "
         "Face Trainer's bf16=True on a model loaded in bf16). Written by "
         "measurements/saved_activations_attention.py.")


def main(argv=()):
    return run(MODELS, lambda c: EAGER_ONLY.get(c["model_type"], IMPLS), ABOUT, OUT,
               list(argv) or None, shapes=SHAPES, engine_precision=ENGINE_PRECISION)
