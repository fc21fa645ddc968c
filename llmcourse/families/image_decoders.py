"""Decoders whose causal LM takes images as built into the model: Fuyu (a linear embedding of
image patches beside Persimmon), GOT-OCR 2.0 (a SAM image encoder beside Qwen2), and the
decoder types whose parts the course does not size (refused in one line).

Each entry is a :class:`~llmcourse.families.Family` or :class:`~llmcourse.families.Wrapper`
(CONTRIBUTING.md, "Adding a family"); the towers they add are registered with
:func:`llmcourse.towers.register_tower`. Standard library only.
"""

from ..architectures import Tensor
from ..limits import _fail, _is_int, MAX_SIZE
from ..towers import Tower, register_tower
from .base import Wrapper

# a wrapper checkpoint saved before transformers 5 (LLaVA's names: language_model.model.*)
_LLAVA_NAMES = (("model.", "language_model.model."), ("lm_head.", "language_model.lm_head."))


def _positive_fields(w, prefix, fields):
    for f in fields:
        if not _is_int(w[f]) or not 0 < w[f] <= MAX_SIZE:
            _fail(f, "must be a positive whole number", w[f])


# --- Fuyu: image patches straight into the language model ------------------------------------

def _fuyu_patches(v, w, text_hidden):
    """Fuyu has no image encoder: each patch_size x patch_size x num_channels patch is one
    linear projection (biased) into the language model's width, vision_embed_tokens."""
    p, c = w["patch_size"], w["num_channels"]
    return [Tensor("vision_embed_tokens.weight", (text_hidden, p * p * c), "vision", matmul=True),
            Tensor("vision_embed_tokens.bias", (text_hidden,), "vision")]


register_tower("fuyu_patches", Tower(
    key="vision_config", component="vision", label="Fuyu patch embedding", build=_fuyu_patches,
    defaults={}, wrapper=dict(patch_size=30, num_channels=3)),
    wrapper_check=lambda w, prefix: _positive_fields(w, prefix, ("patch_size", "num_channels")))

ENTRIES = {}

WRAPPERS = {
    # Fuyu (Adept): Persimmon's decoder, and image patches embedded by one linear layer; its
    # hub configs are flat (the language model's keys at the top level), read as FuyuConfig
    # reads them; with neither, its class's text defaults
    "fuyu": Wrapper("persimmon", towers=("fuyu_patches",), names=_LLAVA_NAMES, tie=False,
                    flat=("vocab_size", "max_position_embeddings", "hidden_size",
                          "intermediate_size", "num_hidden_layers", "num_attention_heads",
                          "hidden_act", "initializer_range", "layer_norm_eps", "use_cache",
                          "qk_layernorm", "hidden_dropout", "attention_dropout",
                          "eos_token_id", "rope_scaling", "rope_theta"),
                    flat_adds=dict(partial_rotary_factor=0.5),
                    text_absent=dict(vocab_size=262144, max_position_embeddings=16384,
                                     hidden_size=4096, intermediate_size=16384,
                                     num_hidden_layers=36, num_attention_heads=64,
                                     hidden_act="relu2", qk_layernorm=True)),
}

#: decoder types with a part the course does not size: refused in one line naming it
NOT_SIZED = {
    "blt": "its byte-level local encoder and decoder (cross-attending to patches of bytes), "
           "hashed byte n-gram embeddings and entropy patcher are not sized by the course",
    "gemma3n": "its MobileNet-V5 vision tower (a timm model) is not sized by the course",
}
