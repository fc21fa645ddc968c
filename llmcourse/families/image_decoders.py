"""Decoders whose causal LM takes images (or bytes) as built into the model: Fuyu's linear
patch embedding, GOT-OCR 2.0's SAM encoder, Llama 3.2 Vision's cross-attention layers, and
the types whose parts the course does not size (refused in one line).

Each entry is a :class:`~llmcourse.families.Family` or :class:`~llmcourse.families.Wrapper`
(CONTRIBUTING.md, "Adding a family"). Standard library only.
"""

from .base import Family, Wrapper  # noqa: F401

ENTRIES = {}

WRAPPERS = {}

#: decoder types with a part the course does not size: refused in one line naming it
NOT_SIZED = {
    "blt": "its byte-level local encoder and decoder (cross-attending to patches of bytes), "
           "hashed byte n-gram embeddings and entropy patcher are not sized by the course",
    "gemma3n": "its MobileNet-V5 vision tower (a timm model) is not sized by the course",
}
