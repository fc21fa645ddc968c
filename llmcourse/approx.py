"""Rules of thumb and the small computations behind lessons 6 and 7's tables,
widgets and figures.

The lessons derive these formulas in their own cells for one model, then check
the result against the engine; the package keeps them for what a reader should
not retype (tables of the whole zoo, explorers, figures). Standard library only.

    >>> import llmcourse as lc
    >>> from llmcourse import approx
    >>> cfg = lc.load_model("Meta-Llama-3-8B")
    >>> approx.approx_params_12Ld2(cfg), approx.layer_params(cfg)
    (6442450944, 6979584000)
"""

from __future__ import annotations

from .architectures import global_tensors, layer_groups
from .counts import param_count
from .zoo import as_config, list_models, load_model

__all__ = ["approx_params_12Ld2", "layer_params", "outside_layers_params", "moe_layer_count",
           "expert_size_field", "dense_models", "moe_models", "SEQ_LEN", "prompt_len"]

SEQ_LEN = 4096  # the prompt length the lessons quote FLOPs per token at


def prompt_len(cfg, seq_len=SEQ_LEN):
    """``seq_len``, or the model's whole context (``max_position_embeddings``) where that
    is shorter: gpt2 (1,024) and phi-2 (2,048) cannot read a 4,096-token prompt."""
    cfg = as_config(cfg)
    ctx = cfg.max_position_embeddings
    return min(seq_len, ctx) if ctx else seq_len


def approx_params_12Ld2(cfg):
    """The textbook estimate of the parameters in the decoder layers: 12 * L * d**2.

    Per layer it assumes 4 d x d attention matrices (q, k, v, o: one KV head per
    query head, heads x head_dim = d) and a 2-matrix MLP 4x wider than d
    (2 x 4d x d = 8 d**2). Embeddings, lm_head, norms and biases are left out
    (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", section 2.1).
    """
    cfg = as_config(cfg)
    return 12 * cfg.num_hidden_layers * cfg.hidden_size ** 2


def outside_layers_params(cfg):
    """Exact parameters outside the decoder layers: token (and position) embedding,
    final norm and an untied lm_head (a tied lm_head shares the embedding, counted once)."""
    cfg = as_config(cfg)
    return sum(t.numel for t in global_tensors(cfg) if not t.tied and not t.buffer)


def layer_params(cfg):
    """Exact parameters inside the decoder layers (what 12 * L * d**2 estimates): the
    language model's (a multimodal wrapper's vision and audio towers are no decoder
    layers)."""
    cfg = as_config(cfg).text_model
    return param_count(cfg).total - outside_layers_params(cfg)


def moe_layer_count(cfg):
    """How many layers hold routed experts (the rest have a dense MLP)."""
    cfg = as_config(cfg)
    return sum(len(idx) for idx, ts in layer_groups(cfg) if any(t.routed for t in ts))


def expert_size_field(cfg):
    """The config field that sets one routed expert's intermediate size:
    ``moe_intermediate_size`` where the config has one (Qwen-MoE, DeepSeek, GLM),
    else ``intermediate_size`` (Mixtral, gpt-oss, Llama-4)."""
    cfg = as_config(cfg)
    return "moe_intermediate_size" if cfg.get("moe_intermediate_size") else "intermediate_size"


def dense_models():
    """Zoo models without experts, family by family (the order the model pickers show)."""
    return [m for m in list_models(grouped=True) if not load_model(m).is_moe]


def moe_models():
    """Zoo models with routed experts, family by family."""
    return [m for m in list_models(grouped=True) if load_model(m).is_moe]
