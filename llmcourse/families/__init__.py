"""One entry per Hugging Face ``model_type``: everything the engine knows about a family.

An entry (:class:`Family`) says how to read a ``config.json`` of the type (the defaults its
transformers ``*Config`` class gives keys a file leaves out, its own names for standard
fields, the fields it requires or lets be null), how its layers are built (a
:class:`~llmcourse.architectures.Layout`: attention, MLP, experts, norms, checkpoint names,
biases), where its routed-expert count lives, its layer schedule, and the few rules of its
own the generic ones in :mod:`llmcourse.validation` do not cover (functions in
:mod:`llmcourse.family_rules`). A multimodal wrapper whose language model sits in its
``text_config`` is a :class:`Wrapper`. Adding a family: CONTRIBUTING.md, "Adding a family".
The entries live in this package's modules, one per lineage (``classic``, ``llama``,
``qwen``, ``gemma``, ``latent``, ``hybrid``, ``dense``, ``moe``, ``state_space``), each an
``ENTRIES`` dict; a new lineage is a new module listed in ``MODULES``. Standard library only.
"""

from __future__ import annotations


from .. import family_rules as rules
from . import (classic, dense, frontier, gemma, gemma4_variants, gpt_style, hybrid,
               image_decoders, latent, llama, moe, qwen, state_space)
from .base import Family, Wrapper

__all__ = ["Family", "Wrapper", "ENTRIES", "WRAPPERS", "SUPPORTED_MODEL_TYPES", "NOT_DECODERS",
           "NOT_SIZED",
           "GROUP_ORDER", "family_of", "zoo_groups", "has_kv_heads", "kv_heads_fixed"]

#: the modules holding the entries, in the order the zoo's pickers show them
MODULES = (classic, llama, qwen, gemma, latent, hybrid, dense, moe, frontier, gemma4_variants,
           gpt_style, image_decoders, state_space)
ENTRIES = {}
for _module in MODULES:
    _clash = set(ENTRIES) & set(_module.ENTRIES)
    if _clash:
        raise ValueError(f"model types with two entries: {sorted(_clash)}")
    ENTRIES.update(_module.ENTRIES)
#: decoder types whose parts the course does not size, each refused in one line naming the
#: part (a module's ``NOT_SIZED``)
NOT_SIZED = {mt: why for _module in MODULES
             for mt, why in getattr(_module, "NOT_SIZED", {}).items()}

# the checkpoint names of a wrapper saved before transformers 5 (LLaVA's layout)
_LLAVA_NAMES = (("model.", "language_model.model."), ("lm_head.", "language_model.lm_head."))

WRAPPERS = {
    # Gemma 3: a SigLIP vision tower; Google's checkpoints use the LLaVA names
    "gemma3": Wrapper("gemma3_text", towers=("siglip",), names=_LLAVA_NAMES, tie=True),
    # Gemma 4: a vision and an audio encoder, each only where its config is given
    "gemma4": Wrapper("gemma4_text", towers=("gemma4_vision", "gemma4_audio"), tie=True),
    # Gemma 4 unified: light vision and audio embedders, each only where its config is given
    "gemma4_unified": Wrapper("gemma4_unified_text",
                              towers=("gemma4_unified_vision", "gemma4_unified_audio"), tie=True),
    # Llama 4: its own vision model; the text model (a ForCausalLM inside) ties by its own
    "llama4": Wrapper("llama4_text", towers=("llama4_vision",), names=_LLAVA_NAMES, tie=None),
    "qwen3_5": Wrapper("qwen3_5_text", towers=("qwen3_5_vision",)),
    "qwen3_5_moe": Wrapper("qwen3_5_moe_text", towers=("qwen3_5_vision",)),
    "qwen4_exp": Wrapper("qwen4_exp_text", towers=("qwen3_5_vision",)),
    # Kimi K2.5: DeepSeek-V3's layout, 384 experts, and the MoonViT vision tower
    "kimi_k25": Wrapper("deepseek_v3", also=dict(kimi_k2="deepseek_v3"), group="Kimi",
                        towers=("kimi_k25_vision",), names=_LLAVA_NAMES, tie=True),
    # Mistral 3: a Pixtral vision tower; Mistral Small 3.x holds mistral inside (its class's
    # default, with the sizes below when the text_config is missing), Ministral 3 ministral3
    "mistral3": Wrapper("mistral", also=dict(ministral3="ministral3"), towers=("pixtral",),
                        names=_LLAVA_NAMES, tie=True,
                        text_absent=dict(model_type="mistral", head_dim=128, hidden_size=5120,
                                         intermediate_size=32768,
                                         max_position_embeddings=131072,
                                         num_attention_heads=32, num_hidden_layers=40,
                                         num_key_value_heads=8, sliding_window=None,
                                         vocab_size=131072)),
}

for _module in MODULES:   # a module's own wrappers (its multimodal types)
    _clash = set(WRAPPERS) & set(getattr(_module, "WRAPPERS", {}))
    if _clash:
        raise ValueError(f"model types with two wrappers: {sorted(_clash)}")
    WRAPPERS.update(getattr(_module, "WRAPPERS", {}))

SUPPORTED_MODEL_TYPES = tuple(sorted(set(ENTRIES) | set(WRAPPERS)))

_ENCODER = "an encoder-only model (a causal-LM head on a bidirectional encoder)"
_ENCODER_DECODER = "the decoder of an encoder-decoder model"
#: types transformers registers for causal language modelling that are not decoder LLMs:
#: what each is, for the one-line refusal ("the course sizes decoder LLMs")
NOT_DECODERS = {
    **dict.fromkeys(("bert", "bert-generation", "big_bird", "camembert", "data2vec-text",
                     "electra", "ernie", "megatron-bert", "rembert", "roberta",
                     "roberta-prelayernorm", "roc_bert", "roformer", "xlm", "xlm-roberta",
                     "xlm-roberta-xl", "xmod"), _ENCODER),
    **dict.fromkeys(("bart", "bigbird_pegasus", "blenderbot", "blenderbot-small", "marian",
                     "mbart", "mvp", "pegasus", "plbart", "prophetnet"), _ENCODER_DECODER),
    "trocr": "the text decoder of an image-to-text encoder-decoder (OCR)",
    "whisper": "a speech-recognition encoder-decoder",
    "moshi": "a speech-text model (audio codec streams)",
    "moss_transcribe_diarize": "a speech transcription model",
    "musicgen": "a music-generation model (audio codebooks)",
    "musicgen_melody": "a music-generation model (audio codebooks)",
    "xlnet": "a permutation language model (two-stream attention), not a causal decoder",
    "reformer": "a Reformer (LSH attention, reversible layers), not a standard decoder",
}

#: the order the zoo's model pickers show the families in (a group not listed follows them)
GROUP_ORDER = ("GPT-2", "Pythia", "Llama", "Mistral", "Qwen", "Gemma", "Phi", "OLMo", "Granite",
               "SmolLM", "GLM", "DeepSeek", "gpt-oss", "MiniMax", "Kimi", "Nemotron")


def family_of(model_type):
    """The :class:`Family` entry of a (text) model type; KeyError if it has none."""
    return ENTRIES[model_type]


def zoo_groups():
    """``{group: (model types...)}``: the families the zoo's pickers show, in GROUP_ORDER."""
    groups = {g: [] for g in GROUP_ORDER}
    for mt, entry in list(ENTRIES.items()) + list(WRAPPERS.items()):
        if entry.group:
            groups.setdefault(entry.group, []).append(mt)
    return {g: tuple(types) for g, types in groups.items() if types}


# a wrapper's default text type, and the (wrapper, text type) pairs read as another type
_MULTIMODAL = {outer: w.text for outer, w in WRAPPERS.items()}
_TEXT_ALIASES = {(outer, inner): mt for outer, w in WRAPPERS.items()
                 for inner, mt in w.also.items()}


def has_kv_heads(model_type):
    """False where transformers builds one k and one v for every head and reads no
    num_key_value_heads (GPT-2, GPT-NeoX): such a family's KV heads are its heads."""
    return rules.one_kv_per_head not in ENTRIES[model_type].check


def kv_heads_fixed(cfg):
    """True where a config has no KV-head count to choose: multi-head latent attention (a
    latent, not KV heads), DeepSeek-V4 (one K = V head), GPT-2 and GPT-NeoX (MHA only)."""
    return (cfg.uses_mla or not has_kv_heads(cfg.model_type)
            or rules.one_kv_head in ENTRIES[cfg.model_type].check)

