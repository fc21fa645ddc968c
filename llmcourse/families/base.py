"""What an entry says: :class:`Family` (one ``model_type``), :class:`Wrapper` (a multimodal
type holding its language model in ``text_config``), and the defaults many entries share.
Standard library only."""

from __future__ import annotations

from typing import NamedTuple

from ..architectures import Layout


class Family(NamedTuple):
    """What the engine knows about one ``model_type``. Only ``defaults`` is required; every
    other field has the value of the plain Llama-style decoder."""
    #: transformers' own defaults (its ``*Config`` class) for keys a config.json may leave
    #: out. A null where the default is a value is refused, unless the field is ``nullable``
    defaults: dict
    #: how its layers are built: attention, MLP, experts, norms, names, biases
    layout: Layout = Layout()
    #: the family the zoo's model pickers list it under (None: its own)
    group: str | None = None
    #: the field holding the routed-expert count (None: a dense model)
    moe: str | None = None
    #: (model type, its expert-count field): the same attention and norms with routed experts,
    #: the what-if ``lc.as_moe`` turns this dense family into (Llama -> Mixtral)
    moe_variant: tuple | None = None
    #: ``r -> bool``: the experts are built only when it says so (Gemma 4's enable_moe_block)
    moe_when: object = None
    #: an expert count of 0 means the model is dense (Granite 4.0-H's shared MLP alone)
    dense_when_no_experts: bool = False
    #: the field counting weightless "zero-computation" experts the router may also pick
    zero_experts: str | None = None
    #: a field read for num_experts_per_tok when the config gives none (gpt-oss's)
    top_k_fallback: str | None = None
    #: ``r -> {property: Axis}``: the layer schedule (CONTRIBUTING.md, "Layer schedules");
    #: None: every layer slides when sliding_window is set, else attends fully
    layers: object = None
    #: the values an explicit ``layer_types`` list may hold
    attention_kinds: tuple = ("full_attention", "sliding_attention")
    #: its own names for standard fields (transformers' ``attribute_map``: standard -> own)
    attribute_map: dict = {}
    #: standard names the class takes as arguments of their own: given with the alias,
    #: the standard name wins (Qwen3-MoE's num_experts)
    own_wins: tuple = ()
    #: hidden_size must divide by the heads even with head_dim given (Gemma-3)
    divisible_heads: bool = False
    #: fields a config must give, beyond the common ones (validation.REQUIRED)
    required: tuple = ()
    #: fields that must be positive whole numbers when present (beyond validation.POSITIVE)
    positive: tuple = ()
    #: fields that must be whole numbers, zero or more (multi-token-prediction layer counts
    #: among them are bounded too)
    non_negative: tuple = ()
    #: fields with a default whose null transformers nevertheless accepts (then: off)
    nullable: tuple = ()
    #: fields whose null transformers refuses for this family, though a null there derives a
    #: value for others (validation.NULL_DERIVES: Gemma 4's sliding_window)
    never_null: tuple = ()
    #: fields that take one of a few values, not true/false: ``{field: (values...)}``
    enums: dict = {}
    #: per-layer fields of its own and how ``replace(num_hidden_layers=n)`` carries them to
    #: the new depth: "repeat" (the pattern) or "clip" (keep the indices below n)
    depth_lists: dict = {}
    #: ``f(r, raw)``: read its own spellings before the generic rules (aliases, nested objects)
    prepare: tuple = ()
    #: ``f(r, raw)``: fields computed from others, once nulls are refused
    derive: tuple = ()
    #: ``f(r, head_dim)``: its own rules, after the generic ones
    check: tuple = ()
    #: llama.cpp's architecture for the type (its GGUF converter's), where the course sizes
    #: its GGUF files (llmcourse.quantization.gguf_tensors)
    gguf: str | None = None
    #: ``f(cfg, full_attention) -> {field: value}``: the changes beyond a KV head per query
    #: head that make its MHA baseline (llmcourse.sizing.mha_baseline), where its own fields
    #: say more (Gemma 4's KV sharing, Nemotron-H's block pattern)
    mha_baseline: object = None
    #: ``{field: why}``: fields a config.json may carry that transformers builds nothing from
    #: for this family (an edit there would be an engine-only what-if)
    engine_only: dict = {}
    #: ``{field: value}``: fields re-derived when hidden_size changes (Granite 4.0's Mamba-2
    #: head size), and ``r -> int``: a multiple hidden_size must keep beyond the heads'
    on_width: dict = {}
    hidden_multiple: object = None


class Wrapper(NamedTuple):
    """A multimodal ``model_type``: a language model (its ``text_config``) and the towers
    beside it, counted whole as transformers builds its ``*ForConditionalGeneration``."""
    #: the text_config's model type when it gives none
    text: str
    #: other text_config model types it may hold, each read as the type it names here
    #: (Kimi K2.5's ``kimi_k2`` is DeepSeek-V3; Ministral 3's ``ministral3`` is its own)
    also: dict = {}
    #: the family the zoo's model pickers list it under (None: its text model's)
    group: str | None = None
    #: its vision and audio towers: kinds in :data:`llmcourse.towers.TOWERS`
    towers: tuple = ()
    #: where its checkpoints store the language model: (the text model's own name prefix,
    #: the checkpoint's), the first that matches; other names are kept (Qwen3.5's ``mtp.``)
    names: tuple = (("model.", "model.language_model."),)
    #: the wrapper class's ``tie_word_embeddings`` default, which (given or not) ties the
    #: language model's head inside it; None: the text config's own governs (Llama 4)
    tie: bool | None = False
    #: what a missing or null text_config holds (the class's SubConfigSpec init_kwargs)
    text_absent: dict = {}
    #: keys a config saved flat (no text_config) gives its language model from the top
    #: level, as the wrapper class reads them (Fuyu's); with none of them present, text_absent
    flat: tuple = ()
    #: what the wrapper class adds to a text config it reads from flat keys
    flat_adds: dict = {}

    def text_of(self, raw):
        """The language model's config dict of a wrapper config ``raw`` (a fresh copy): its
        text_config, or what the class reads from flat keys, or its text_absent."""
        text = raw.get("text_config")
        if text is not None:
            return dict(text) if isinstance(text, dict) else text
        flat = {k: raw[k] for k in self.flat if k in raw}
        return dict(self.flat_adds, **flat) if flat else dict(self.text_absent)


# the keys every Llama-style transformers config declares, with their defaults
_COMMON = dict(num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
               attention_bias=False, sliding_window=None, layer_types=None)
# what multi-head latent attention needs, and with routed experts; DeepSeek Sparse
# Attention's indexer
_MLA = ("moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
        "v_head_dim")
_MLA_MOE = _MLA + ("n_routed_experts", "num_experts_per_tok")
_INDEXER = ("q_lora_rank", "index_topk", "index_head_dim", "index_n_heads")
