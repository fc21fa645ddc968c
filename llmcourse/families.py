"""One entry per Hugging Face ``model_type``: everything the engine knows about a family.

An entry (:class:`Family`) says how to read a ``config.json`` of the type (the defaults its
transformers ``*Config`` class gives keys a file leaves out, its own names for standard
fields, the fields it requires or lets be null), how its layers are built (a
:class:`~llmcourse.architectures.Layout`: attention, MLP, experts, norms, checkpoint names,
biases), where its routed-expert count lives, its layer schedule, and the few rules of its
own the generic ones in :mod:`llmcourse.validation` do not cover (functions in
:mod:`llmcourse.family_rules`). A multimodal wrapper whose language model sits in its
``text_config`` is a :class:`Wrapper`. Adding a family: CONTRIBUTING.md, "Adding a family".
Standard library only.
"""

from __future__ import annotations

from typing import NamedTuple

from . import family_rules as rules
from .architectures import Layout

__all__ = ["Family", "Wrapper", "ENTRIES", "WRAPPERS", "SUPPORTED_MODEL_TYPES", "GROUP_ORDER",
           "family_of", "zoo_groups", "has_kv_heads", "kv_heads_fixed"]


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


# the keys every Llama-style transformers config declares, with their defaults
_COMMON = dict(num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
               attention_bias=False, sliding_window=None, layer_types=None)
# what multi-head latent attention needs, and with routed experts; DeepSeek Sparse
# Attention's indexer
_MLA = ("moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
        "v_head_dim")
_MLA_MOE = _MLA + ("n_routed_experts", "num_experts_per_tok")
_INDEXER = ("q_lora_rank", "index_topk", "index_head_dim", "index_n_heads")

# the table, family group by group (the order the zoo's pickers show them)
ENTRIES = {
    # GPT-2: one fused c_attn (Conv1D weights stored in, out), a plain 4 x d GELU MLP,
    # LayerNorms with biases, learned positions (wpe, a weight); its own names for the
    # standard fields (transformers' attribute_map)
    "gpt2": Family(
        group="GPT-2",
        layout=Layout(attention="fused_qkv", attention_prefix="attn.",
                      attention_names=("c_attn", "c_proj"), qkv_bias=True, o_bias=True,
                      stored_in_out=True, mlp="plain", mlp_names=("c_fc", "c_proj"),
                      mlp_bias=True, norm_bias=True, layer_norms=("ln_1", "ln_2"),
                      layer_prefix="h.{i}.", embedding="wte", position_embedding="wpe",
                      final_norm="ln_f"),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="n_embd", num_hidden_layers="n_layer",
                           num_attention_heads="n_head", max_position_embeddings="n_positions",
                           intermediate_size="n_inner"),
        positive=("n_embd", "n_layer", "n_head", "n_positions", "n_inner"),
        prepare=(rules.gpt2_prepare,),
        check=(rules.no_cross_attention, rules.one_kv_per_head),
        defaults=dict(num_key_value_heads=None, head_dim=None, vocab_size=50257,
                      n_positions=1024, n_embd=768, n_layer=12, n_head=12, n_inner=None,
                      tie_word_embeddings=True, add_cross_attention=False, layer_types=None,
                      sliding_window=None)),
    # GPT-NeoX (Pythia): q, k and v fused (heads interleaved), biases by attention_bias, a
    # plain GELU MLP, LayerNorms with biases; the head is called embed_out
    "gpt_neox": Family(
        group="Pythia",
        layout=Layout(attention="fused_qkv", attention_prefix="attention.",
                      attention_names=("query_key_value", "dense"),
                      qkv_bias=("attention_bias", True), o_bias=("attention_bias", True),
                      mlp="plain", mlp_names=("dense_h_to_4h", "dense_4h_to_h"), mlp_bias=True,
                      norm_bias=True, layer_prefix="gpt_neox.layers.{i}.",
                      embedding="gpt_neox.embed_in", final_norm="gpt_neox.final_layer_norm",
                      lm_head="embed_out"),
        layers=rules.full_attention_layers,
        check=(rules.one_kv_per_head,),
        defaults=dict(num_key_value_heads=None, head_dim=None, vocab_size=50432,
                      hidden_size=6144, num_hidden_layers=44, num_attention_heads=64,
                      intermediate_size=24576, max_position_embeddings=2048,
                      tie_word_embeddings=False, attention_bias=True, layer_types=None,
                      sliding_window=None)),
    # Llama: the layout's defaults (RMSNorm before attention and MLP, SwiGLU, biases by
    # attention_bias and mlp_bias)
    "llama": Family(
        group="Llama",
        moe_variant=("mixtral", "num_local_experts"),
        defaults=dict(_COMMON, mlp_bias=False)),
    # Llama-4: chunked attention on RoPE layers, every 4th layer NoPE and global; MoE layers
    # with fused experts (experts, in, out) and a shared expert, dense layers a wider MLP
    "llama4_text": Family(
        group="Llama",
        layout=Layout(mlp_prefix="feed_forward", mlp_width="intermediate_size_mlp",
                      mlp_bias=False, experts="fused_shared"),
        moe="num_local_experts",
        layers=rules.llama4_layers,
        attention_kinds=("full_attention", "chunked_attention"),
        positive=("intermediate_size_mlp", "interleave_moe_layer_step", "attention_chunk_size",
                  "no_rope_layer_interval"),
        depth_lists=dict(moe_layers="clip"),
        check=(rules.llama4_moe_layers, rules.no_rope_layers),
        defaults=dict(_COMMON, vocab_size=202048, hidden_size=5120, intermediate_size=8192,
                      intermediate_size_mlp=16384, num_hidden_layers=48, num_attention_heads=40,
                      num_key_value_heads=8, head_dim=128, max_position_embeddings=131072,
                      num_experts_per_tok=1, num_local_experts=16, moe_layers=None,
                      interleave_moe_layer_step=1, use_qk_norm=True, no_rope_layers=None,
                      no_rope_layer_interval=4, attention_chunk_size=8192)),
    # Mistral: Llama's layout without biases; every layer slides when sliding_window is set
    "mistral": Family(
        group="Mistral",
        layout=Layout(qkv_bias=False, o_bias=False),
        moe_variant=("mixtral", "num_local_experts"),
        nullable=("attention_bias",),
        defaults=dict(_COMMON, num_key_value_heads=8, sliding_window=4096)),
    # Mixtral: Mistral's attention, experts under Mixtral's checkpoint names (w1, w2, w3)
    "mixtral": Family(
        group="Mistral",
        layout=Layout(qkv_bias=False, o_bias=False, experts="block_sparse"),
        moe="num_local_experts",
        attribute_map=dict(num_experts="num_local_experts"),
        nullable=("attention_bias",),
        defaults=dict(_COMMON, num_key_value_heads=8, num_local_experts=8,
                      num_experts_per_tok=2)),
    # Ministral 3 and Devstral 2: Mistral's layout (no biases, a given head_dim)
    "ministral3": Family(
        group="Mistral",
        layout=Layout(qkv_bias=False, o_bias=False),
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=131072, hidden_size=4096, intermediate_size=14336,
                      num_hidden_layers=34, num_attention_heads=32, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=262144, pad_token_id=11)),
    # Qwen2: biases on q, k and v, none on o; with use_sliding_window, layers from
    # max_window_layers on slide
    "qwen2": Family(
        group="Qwen",
        layout=Layout(qkv_bias=True, o_bias=False),
        layers=rules.windowed_by_depth,
        nullable=("attention_bias",),
        defaults=dict(_COMMON, num_key_value_heads=32, sliding_window=4096,
                      use_sliding_window=False, max_window_layers=28)),
    # Qwen1.5/2-MoE: biases on q, k and v (qkv_bias), experts and one sigmoid-gated shared expert
    "qwen2_moe": Family(
        group="Qwen",
        layout=Layout(qkv_bias=("qkv_bias", True), o_bias=False, shared_experts="gated"),
        moe="num_experts",
        layers=rules.qwen2_moe_layers,
        positive=("shared_expert_intermediate_size",),
        prepare=(rules.qwen2_moe_prepare,),
        check=(rules.mlp_only_layers,),
        defaults=dict(_COMMON, vocab_size=151936, hidden_size=2048, intermediate_size=5632,
                      num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=16,
                      max_position_embeddings=32768, use_sliding_window=False,
                      sliding_window=4096, max_window_layers=28, decoder_sparse_step=1,
                      moe_intermediate_size=1408, shared_expert_intermediate_size=5632,
                      num_experts_per_tok=4, num_experts=60, mlp_only_layers=[], qkv_bias=True)),
    # Qwen3: Llama's layout with an RMSNorm over each head's q and k (QK-norm)
    "qwen3": Family(
        group="Qwen",
        layout=Layout(qk_norm="head"),
        moe_variant=("qwen3_moe", "num_experts"),
        layers=rules.windowed_by_depth,
        defaults=dict(_COMMON, num_key_value_heads=32, head_dim=128, sliding_window=4096,
                      use_sliding_window=False, max_window_layers=28)),
    # Qwen3-MoE: Qwen3's attention, routed experts in every decoder_sparse_step-th layer.
    # transformers 5 stores the expert count as num_local_experts (num_experts is its alias)
    # and writes that key back: a saved fine-tune has no num_experts
    "qwen3_moe": Family(
        group="Qwen",
        layout=Layout(qk_norm="head"),
        moe="num_experts",
        layers=rules.qwen3_moe_layers,
        attribute_map=dict(num_experts="num_local_experts"),
        own_wins=("num_experts",),
        required=("moe_intermediate_size",),
        nullable=("max_window_layers",),
        check=(rules.mlp_only_layers,),
        defaults=dict(_COMMON, num_key_value_heads=4, sliding_window=4096,
                      use_sliding_window=False, max_window_layers=28,
                      decoder_sparse_step=1, mlp_only_layers=[], num_local_experts=128,
                      num_experts_per_tok=8, moe_intermediate_size=768)),
    # Qwen3-Next: full_attention_interval - 1 gated-DeltaNet layers (q, k, v, z and b, a
    # fused), then one full-attention layer with an output gate and QK-norm; routed experts
    # and a sigmoid-gated shared expert; a multi-token-prediction layer in the checkpoint
    "qwen3_next": Family(
        group="Qwen",
        layout=Layout(output_gate=True, qk_norm="head", linear_attention="deltanet_fused",
                      shared_experts="gated", mtp="qwen3_next"),
        moe="num_experts",
        layers=rules.qwen3_next_layers,
        attention_kinds=("full_attention", "linear_attention"),
        positive=("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval",
                  "shared_expert_intermediate_size"),
        non_negative=("num_nextn_predict_layers", "mtp_num_hidden_layers"),
        check=(rules.mlp_only_layers, rules.deltanet_heads),
        defaults=dict(_COMMON, vocab_size=151936, hidden_size=2048, intermediate_size=5632,
                      num_hidden_layers=48, num_attention_heads=16, num_key_value_heads=2,
                      head_dim=256, max_position_embeddings=32768, linear_conv_kernel_dim=4,
                      linear_key_head_dim=128, linear_value_head_dim=128,
                      linear_num_key_heads=16, linear_num_value_heads=32, decoder_sparse_step=1,
                      moe_intermediate_size=512, shared_expert_intermediate_size=512,
                      num_experts_per_tok=10, num_experts=512, mlp_only_layers=[],
                      full_attention_interval=4)),
    # Qwen3.5 (dense) and Qwen3.6 (below, MoE): Qwen3-Next's layout, the DeltaNet projections
    # stored unfused, the output gate by attn_output_gate. Defaults: Qwen3_5TextConfig
    "qwen3_5_text": Family(
        group="Qwen",
        layout=Layout(output_gate=("attn_output_gate", True), qk_norm="head", mtp="qwen3_next"),
        layers=rules.qwen3_5_layers,
        attention_kinds=("full_attention", "linear_attention"),
        positive=("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval"),
        non_negative=("mtp_num_hidden_layers",),
        check=(rules.deltanet_heads,),
        defaults=dict(_COMMON, vocab_size=248320, hidden_size=4096, intermediate_size=12288,
                      num_hidden_layers=32, num_attention_heads=16, num_key_value_heads=4,
                      head_dim=256, max_position_embeddings=32768, linear_conv_kernel_dim=4,
                      linear_key_head_dim=128, linear_value_head_dim=128,
                      linear_num_key_heads=16, linear_num_value_heads=32,
                      full_attention_interval=4)),
    # Qwen3.6: Qwen3.5's layout with routed experts and a sigmoid-gated shared expert; no
    # dense MLP anywhere: intermediate_size is not a field (read as the experts' width).
    # Defaults: Qwen3_5MoeTextConfig
    "qwen3_5_moe_text": Family(
        group="Qwen",
        layout=Layout(output_gate=("attn_output_gate", True), qk_norm="head",
                      shared_experts="gated", mtp="qwen3_next"),
        moe="num_experts",
        layers=rules.qwen3_5_layers,
        attention_kinds=("full_attention", "linear_attention"),
        positive=("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval",
                  "shared_expert_intermediate_size"),
        non_negative=("mtp_num_hidden_layers",),
        derive=(rules.experts_only_derive,),
        check=(rules.deltanet_heads,),
        defaults=dict(_COMMON, vocab_size=248320, hidden_size=2048, num_hidden_layers=40,
                      num_attention_heads=16, num_key_value_heads=2, head_dim=256,
                      max_position_embeddings=32768, linear_conv_kernel_dim=4,
                      linear_key_head_dim=128, linear_value_head_dim=128,
                      linear_num_key_heads=16, linear_num_value_heads=32,
                      full_attention_interval=4, moe_intermediate_size=512,
                      shared_expert_intermediate_size=512, num_experts_per_tok=8,
                      num_experts=256)),
    # Qwen4-Exp (Qwen3.8-Flash-Next): Qwen3.5's gated-DeltaNet and gated attention layers with
    # a query-selection indexer, 4 residual streams mixed by low-rank hyper-connections (no
    # layer norms), hashed n-gram embedding tables in a few layers, MoE with a shared expert
    # in every layer. transformers builds the indexer on every attention layer, so it cannot
    # build a model without its sizes. Defaults: Qwen4ExpTextConfig
    "qwen4_exp_text": Family(
        group="Qwen",
        layout=Layout(block="qwen4_exp_text", output_gate=True, qk_norm="head",
                      shared_experts="gated", final_norm=None,
                      extra_globals="hyper_connection_mixer"),
        moe="num_experts",
        layers=rules.qwen4_layers,
        required=("indexer_n_heads", "indexer_kv_heads", "indexer_head_dim", "indexer_budget",
                  "indexer_compress_ratio"),
        positive=("linear_conv_kernel_dim", "linear_key_head_dim", "linear_value_head_dim",
                  "linear_num_key_heads", "linear_num_value_heads", "full_attention_interval",
                  "shared_expert_intermediate_size", "hc_count", "hc_lowrank", "ple_embed_dim",
                  "ple_conv_kernel_size", "ngram_size", "heads_per_ngram",
                  "make_ngram_vocab_size_divisible_by", "split_ngram_parts", "indexer_n_heads",
                  "indexer_kv_heads", "indexer_head_dim", "indexer_budget",
                  "indexer_compress_ratio"),
        non_negative=("mtp_num_hidden_layers", "ngram_vocab_size_base"),
        derive=(rules.qwen4_derive,),
        check=(rules.deltanet_heads, rules.qwen4_rules),
        defaults=dict(_COMMON, vocab_size=248320, hidden_size=2048, num_hidden_layers=40,
                      num_attention_heads=16, num_key_value_heads=2, head_dim=256,
                      max_position_embeddings=32768, linear_conv_kernel_dim=4,
                      linear_key_head_dim=128, linear_value_head_dim=128,
                      linear_num_key_heads=16, linear_num_value_heads=32,
                      full_attention_interval=4, moe_intermediate_size=512,
                      shared_expert_intermediate_size=512, num_experts_per_tok=10,
                      num_experts=512, hc_count=4, hc_lowrank=320, ple_layer_ids=None,
                      ple_embed_dim=None, ple_conv_kernel_size=4, ngram_size=3,
                      heads_per_ngram=8, ngram_vocab_size_base=20_000_000,
                      make_ngram_vocab_size_divisible_by=128, seed=1234, split_ngram_parts=512,
                      indexer_n_heads=None, indexer_kv_heads=None, indexer_head_dim=None,
                      indexer_budget=None, indexer_compress_ratio=None, output_gate_type=None,
                      eos_token_id=None)),
    # Gemma: Llama's layout, a GeGLU MLP under the same names, the head tied
    "gemma": Family(
        group="Gemma",
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=256000, hidden_size=3072, intermediate_size=24576,
                      num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=16,
                      head_dim=256, max_position_embeddings=8192, tie_word_embeddings=True,
                      pad_token_id=0)),
    # Gemma-2: norms before and after both attention and MLP; sliding and full layers in turn
    "gemma2": Family(
        group="Gemma",
        layout=Layout(layer_norms=("input_layernorm", "post_attention_layernorm",
                                   "pre_feedforward_layernorm", "post_feedforward_layernorm")),
        layers=rules.alternating,
        defaults=dict(_COMMON, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True,
                      sliding_window=4096)),
    # Gemma-3: Gemma-2's four norms and QK-norm; 5 sliding layers to 1 full
    "gemma3_text": Family(
        group="Gemma",
        layout=Layout(qk_norm="head",
                      layer_norms=("input_layernorm", "post_attention_layernorm",
                                   "pre_feedforward_layernorm", "post_feedforward_layernorm")),
        layers=rules.gemma3_layers,
        divisible_heads=True,
        positive=("sliding_window_pattern",),
        check=(rules.gemma3_bidirectional,),
        defaults=dict(_COMMON, vocab_size=262208, hidden_size=2304, intermediate_size=9216,
                      num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4,
                      head_dim=256, max_position_embeddings=131072, tie_word_embeddings=True,
                      sliding_window=4096, sliding_window_pattern=6,
                      use_bidirectional_attention=False, pad_token_id=0)),
    # Gemma 4 (text model): sliding and full layers of different widths, KV shared across
    # the last layers, K = V on full layers (26B, 31B), per-layer embeddings (E2B, E4B),
    # and in the 26B-A4B a dense MLP beside 128 routed experts in every layer
    "gemma4_text": Family(
        group="Gemma",
        layout=Layout(block="gemma4_text", extra_globals="per_layer_embeddings"),
        moe="num_experts",
        moe_when=rules.gemma4_has_experts,
        layers=rules.gemma4_layers,
        attribute_map=dict(num_experts_per_tok="top_k_experts"),
        positive=("vocab_size_per_layer_input",),
        non_negative=("num_kv_shared_layers", "hidden_size_per_layer_input"),
        enums=dict(use_bidirectional_attention=("all", "vision", None)),
        check=(rules.gemma4_rules,),
        defaults=dict(_COMMON, vocab_size=262144, hidden_size=2304, intermediate_size=9216,
                      num_hidden_layers=30, num_attention_heads=8, num_key_value_heads=4,
                      head_dim=256, max_position_embeddings=131072, tie_word_embeddings=True,
                      sliding_window=512, pad_token_id=0, vocab_size_per_layer_input=262144,
                      hidden_size_per_layer_input=256, attention_k_eq_v=False,
                      num_kv_shared_layers=0, enable_moe_block=False, use_double_wide_mlp=False,
                      num_experts=None, top_k_experts=None, moe_intermediate_size=None,
                      global_head_dim=512, num_global_key_value_heads=None,
                      per_layer_config=None)),
    # Phi-2: attention and a plain GELU MLP side by side after one LayerNorm; biases
    # everywhere, the head's too; QK-norm (LayerNorms) with qk_layernorm
    "phi": Family(
        group="Phi",
        layout=Layout(attention_names=("q_proj", "k_proj", "v_proj", "dense"), qkv_bias=True,
                      o_bias=True, qk_norm="head", qk_norm_if="qk_layernorm",
                      qk_norm_names=("q_layernorm", "k_layernorm"), mlp="plain",
                      mlp_names=("fc1", "fc2"), mlp_bias=True, norm_bias=True,
                      layer_norms=("input_layernorm",), parallel=True,
                      final_norm="model.final_layernorm", lm_head_bias=True),
        layers=rules.full_attention_layers,
        nullable=("attention_bias",),
        defaults=dict(_COMMON, qk_layernorm=False)),
    # Phi-3: q, k and v fused in qkv_proj, gate and up in gate_up_proj, no biases
    "phi3": Family(
        group="Phi",
        layout=Layout(attention="fused_qkv", attention_names=("qkv_proj", "o_proj"),
                      o_first=True, qkv_bias=False, o_bias=False, mlp="fused_gated",
                      mlp_names=("gate_up_proj", "down_proj"), mlp_bias=False),
        defaults=dict(_COMMON, vocab_size=32064, hidden_size=3072, intermediate_size=8192,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=4096, pad_token_id=32000)),
    # OLMo 2: norms after each sublayer, not before; one norm over all of q, one over all of k
    "olmo2": Family(
        group="OLMo",
        layout=Layout(qk_norm="all",
                      layer_norms=("post_attention_layernorm", "post_feedforward_layernorm")),
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=50304, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, pad_token_id=1)),
    # OLMo 3: OLMo 2's layout with three sliding-window layers to one full layer
    "olmo3": Family(
        group="OLMo",
        layout=Layout(qk_norm="all",
                      layer_norms=("post_attention_layernorm", "post_feedforward_layernorm")),
        layers=rules.olmo3_layers,
        defaults=dict(_COMMON, vocab_size=50304, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, pad_token_id=1, sliding_window=4096)),
    # Granite 3: Llama's layout (its multipliers scale activations, not weights)
    "granite": Family(
        group="Granite",
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=32000, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, mlp_bias=False)),
    # Granite 4.0 (IBM): Mamba-2 layers and a few attention layers (NoPE), each followed by
    # routed experts (fused, SwiGLU) beside a shared MLP, or by the shared MLP alone (dense
    # Granite 4.0-H-350M/1B/Micro: num_local_experts 0). Defaults: GraniteMoeHybridConfig
    "granitemoehybrid": Family(
        group="Granite",
        layout=Layout(block="granitemoehybrid",
                      mamba_fields=("mamba_n_heads", "mamba_d_head", "mamba_n_groups",
                                    "mamba_d_state", "mamba_d_conv", "mamba_conv_bias",
                                    "mamba_proj_bias")),
        moe="num_local_experts",
        dense_when_no_experts=True,
        layers=rules.granite_hybrid_layers,
        positive=("shared_intermediate_size", "mamba_n_heads", "mamba_n_groups", "mamba_d_state",
                  "mamba_d_conv", "mamba_expand", "mamba_chunk_size"),
        depth_lists=dict(hybrid_override_pattern="repeat", layers_block_type="repeat"),
        check=(rules.granite_mamba_head,),
        defaults=dict(_COMMON, vocab_size=32000, hidden_size=4096, intermediate_size=11008,
                      num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, num_local_experts=8, num_experts_per_tok=2,
                      shared_intermediate_size=1024, position_embedding_type=None,
                      layers_block_type=None, mamba_n_heads=128, mamba_n_groups=1,
                      mamba_d_state=256, mamba_d_head="auto", mamba_d_conv=4, mamba_expand=2,
                      mamba_conv_bias=True, mamba_proj_bias=False, mamba_chunk_size=256)),
    # SmolLM3: Llama's layout, a NoPE layer in every 4
    "smollm3": Family(
        group="SmolLM",
        layers=rules.smollm3_layers,
        positive=("no_rope_layer_interval",),
        check=(rules.no_rope_layers,),
        defaults=dict(_COMMON, vocab_size=128256, hidden_size=2048, intermediate_size=11008,
                      num_hidden_layers=36, num_attention_heads=16, num_key_value_heads=4,
                      max_position_embeddings=32768, tie_word_embeddings=True, mlp_bias=False,
                      use_sliding_window=False, no_rope_layers=None, pad_token_id=128004,
                      no_rope_layer_interval=4)),
    # GLM-4.5: biases on q, k and v, QK-norm with use_qk_norm; the first layers dense, then
    # routed experts with a load-balancing bias and a shared expert; an MTP layer shipped
    "glm4_moe": Family(
        group="GLM",
        layout=Layout(o_bias=False, qk_norm="head", qk_norm_if="use_qk_norm", router_buffer=True,
                      shared_experts="deepseek_always", mtp="deepseek"),
        moe="n_routed_experts",
        layers=rules.glm4_moe_layers,
        attribute_map=dict(num_local_experts="n_routed_experts",
                           num_mtp_layers="num_nextn_predict_layers"),
        own_wins=("num_mtp_layers",),
        non_negative=("num_nextn_predict_layers",),
        check=(rules.dense_prefix_fits,),
        defaults=dict(_COMMON, vocab_size=151552, hidden_size=4096, intermediate_size=10944,
                      num_hidden_layers=46, num_attention_heads=96, num_key_value_heads=8,
                      max_position_embeddings=131072, moe_intermediate_size=1408,
                      num_experts_per_tok=8, n_shared_experts=1, n_routed_experts=128,
                      first_k_dense_replace=1, use_qk_norm=False, num_nextn_predict_layers=1)),
    # GLM-4.7-Flash: DeepSeek-V3's MLA and MoE (defaults: Glm4MoeLiteConfig)
    "glm4_moe_lite": Family(
        group="GLM",
        layout=Layout(attention="mla", router_buffer=True, shared_experts="deepseek_always",
                      mtp="deepseek"),
        moe="n_routed_experts",
        layers=rules.glm4_moe_lite_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts", head_dim="qk_rope_head_dim"),
        required=_MLA_MOE,
        non_negative=("num_nextn_predict_layers",),
        defaults=dict(_COMMON, vocab_size=154880, hidden_size=2048, intermediate_size=10240,
                      moe_intermediate_size=1536, num_hidden_layers=47, num_attention_heads=20,
                      num_key_value_heads=20, n_shared_experts=1, n_routed_experts=64,
                      kv_lora_rank=512, q_lora_rank=768, qk_rope_head_dim=64, v_head_dim=256,
                      qk_nope_head_dim=192, num_experts_per_tok=4,
                      max_position_embeddings=202752, mlp_layer_types=None,
                      num_nextn_predict_layers=0)),
    # GLM-5: DeepSeek Sparse Attention (a lightning indexer picks index_topk keys for MLA),
    # some layers reusing the previous layer's choice (defaults: GlmMoeDsaConfig)
    "glm_moe_dsa": Family(
        group="GLM",
        layout=Layout(attention="mla", router_buffer=True, shared_experts="deepseek_always",
                      mtp="deepseek"),
        moe="n_routed_experts",
        layers=rules.glm_moe_dsa_layers,
        attention_kinds=("indexed_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA_MOE + _INDEXER,
        positive=("index_topk", "index_head_dim", "index_n_heads"),
        non_negative=("num_nextn_predict_layers",),
        defaults=dict(_COMMON, vocab_size=154880, hidden_size=6144, intermediate_size=12288,
                      moe_intermediate_size=2048, num_hidden_layers=78, num_attention_heads=64,
                      num_key_value_heads=64, n_shared_experts=1, n_routed_experts=256,
                      kv_lora_rank=512, q_lora_rank=2048, qk_rope_head_dim=64, v_head_dim=256,
                      qk_nope_head_dim=192, num_experts_per_tok=8,
                      max_position_embeddings=202752, index_topk=2048, index_head_dim=128,
                      index_n_heads=32, first_k_dense_replace=3, mlp_layer_types=None,
                      indexer_types=None, num_nextn_predict_layers=0)),
    # DeepSeek-V2: multi-head latent attention; MoE with shared experts
    "deepseek_v2": Family(
        group="DeepSeek",
        layout=Layout(attention="mla", shared_experts="deepseek"),
        moe="n_routed_experts",
        layers=rules.deepseek_layers,
        attribute_map=dict(num_experts="n_routed_experts"),
        required=_MLA_MOE,
        nullable=("moe_layer_freq",),
        check=(rules.dense_prefix_fits,),
        defaults=dict(_COMMON, first_k_dense_replace=0, n_shared_experts=2, q_lora_rank=1536,
                      moe_layer_freq=1)),
    # DeepSeek-V3: DeepSeek-V2's layout with the router's load-balancing bias
    "deepseek_v3": Family(
        group="DeepSeek",
        layout=Layout(attention="mla", router_buffer=True, shared_experts="deepseek"),
        moe="n_routed_experts",
        layers=rules.deepseek_layers,
        attribute_map=dict(num_local_experts="n_routed_experts",
                           num_mtp_layers="num_nextn_predict_layers"),
        own_wins=("num_mtp_layers",),
        required=_MLA_MOE,
        nullable=("moe_layer_freq",),
        check=(rules.dense_prefix_fits,),
        defaults=dict(_COMMON, num_key_value_heads=128, first_k_dense_replace=3, n_shared_experts=1, q_lora_rank=1536,
                      moe_layer_freq=1)),
    # DeepSeek-V3.2: DeepSeek-V3 with DeepSeek Sparse Attention in every layer
    "deepseek_v32": Family(
        group="DeepSeek",
        layout=Layout(attention="mla", router_buffer=True, shared_experts="deepseek_always",
                      mtp="deepseek"),
        moe="n_routed_experts",
        layers=rules.deepseek_v32_layers,
        attention_kinds=("indexed_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA_MOE + _INDEXER,
        positive=("index_topk", "index_head_dim", "index_n_heads"),
        non_negative=("num_nextn_predict_layers",),
        defaults=dict(_COMMON, vocab_size=129280, hidden_size=7168, intermediate_size=18432,
                      moe_intermediate_size=2048, num_hidden_layers=61, num_attention_heads=128,
                      num_key_value_heads=128, n_shared_experts=1, n_routed_experts=256,
                      kv_lora_rank=512, q_lora_rank=1536, qk_rope_head_dim=64, v_head_dim=128,
                      qk_nope_head_dim=128, num_experts_per_tok=8,
                      max_position_embeddings=163840, index_topk=2048, index_head_dim=128,
                      index_n_heads=64, first_k_dense_replace=3, mlp_layer_types=None,
                      num_nextn_predict_layers=0)),
    # DeepSeek-V4: one shared K = V head of 512 per layer, sliding windows plus compressed
    # entries (CSA with an indexer, HCA), a grouped low-rank output projection, attention
    # sinks, 4-stream hyper-connections around each sublayer, and MoE with hash-routed
    # first layers. Names as transformers loads them (the checkpoint's own are DeepSeek's:
    # attn.wq_a, ffn.experts.N.w1, ...)
    "deepseek_v4": Family(
        group="DeepSeek",
        layout=Layout(block="deepseek_v4", extra_globals="hc_head"),
        moe="n_routed_experts",
        layers=rules.deepseek_v4_layers,
        check=(rules.one_kv_head,),
        attribute_map=dict(num_local_experts="n_routed_experts",
                           intermediate_size="moe_intermediate_size"),
        required=("q_lora_rank", "sliding_window"),
        positive=("q_lora_rank", "hc_mult", "o_groups", "o_lora_rank", "index_n_heads",
                  "index_head_dim", "index_topk"),
        defaults=dict(_COMMON, vocab_size=129280, hidden_size=4096, moe_intermediate_size=2048,
                      num_hidden_layers=43, num_attention_heads=64, num_key_value_heads=1,
                      head_dim=512, q_lora_rank=1024, num_experts_per_tok=6,
                      n_routed_experts=256, n_shared_experts=1, max_position_embeddings=1048576,
                      compress_rates=None, hc_mult=4, mlp_layer_types=None, sliding_window=128,
                      o_groups=8, o_lora_rank=1024, index_n_heads=64, index_head_dim=128,
                      index_topk=512, num_nextn_predict_layers=1, compress_ratios=None,
                      num_hash_layers=None)),
    # gpt-oss: attention with biases and a learned sink per head, sliding and full layers in
    # turn; all experts fused in one tensor each, with biases
    "gpt_oss": Family(
        group="gpt-oss",
        layout=Layout(sinks=True, experts="fused_biased"),
        moe="num_local_experts",
        top_k_fallback="experts_per_token",
        layers=rules.alternating,
        attribute_map=dict(num_experts="num_local_experts"),
        defaults=dict(_COMMON, num_key_value_heads=8, head_dim=64, attention_bias=True,
                      sliding_window=128, num_local_experts=128,
                      num_experts_per_tok=4)),
    # MiniMax-M2: GQA with one RMSNorm over all query heads and one over all key heads
    # (OLMo-2's QK-norm), 256 experts top-8 in every layer (Mixtral's names, MiniMax's
    # load-balancing bias), no shared expert
    "minimax_m2": Family(
        group="MiniMax",
        layout=Layout(qk_norm="all", experts="block_sparse", router_buffer=True),
        moe="num_local_experts",
        layers=rules.full_attention_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_experts="num_local_experts"),
        defaults=dict(_COMMON, vocab_size=200064, hidden_size=3072, intermediate_size=1536,
                      num_hidden_layers=62, num_attention_heads=48, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=196608, num_experts_per_tok=8,
                      num_local_experts=256)),
    # Kimi-Linear: three Kimi Delta Attention layers (a gated delta rule with a decay per
    # channel) to one MLA layer, and DeepSeek-V3's MoE; transformers' own names for its keys.
    # Every standard name is a declared field, set before the file's own key: given both,
    # the file's own (num_experts_per_token) wins
    "kimi_linear": Family(
        group="Kimi",
        layout=Layout(attention="mla", linear_attention="kda", router_buffer=True,
                      shared_experts="deepseek_always", never_tied=True),
        moe="num_experts",
        layers=rules.kimi_linear_layers,
        attention_kinds=("full_attention", "linear_attention"),
        attribute_map=dict(max_position_embeddings="model_max_length",
                           n_group="num_expert_group", num_local_experts="num_experts",
                           num_experts_per_tok="num_experts_per_token",
                           n_shared_experts="num_shared_experts"),
        own_wins=("max_position_embeddings", "n_group", "num_local_experts",
                  "num_experts_per_tok", "n_shared_experts"),
        required=_MLA,
        positive=("linear_head_dim", "linear_num_heads", "linear_conv_kernel_dim"),
        prepare=(rules.kimi_linear_prepare,),
        defaults=dict(_COMMON, vocab_size=163840, hidden_size=2304, intermediate_size=9216,
                      moe_intermediate_size=1024, num_hidden_layers=27, num_attention_heads=32,
                      num_key_value_heads=32, num_shared_experts=1, kv_lora_rank=512,
                      q_lora_rank=None, qk_rope_head_dim=64, v_head_dim=128,
                      qk_nope_head_dim=128, num_experts_per_token=8, model_max_length=1048576,
                      num_experts=256, pad_token_id=163839, mlp_layer_types=None,
                      linear_attn_config=None, first_k_dense_replace=1, linear_head_dim=128,
                      linear_num_heads=32, linear_conv_kernel_dim=4)),
    # Nemotron 3 (Nemotron-H): Mamba-2 blocks, a few attention blocks and MoE blocks of
    # non-gated ReLU^2 experts with a shared expert, each block one of them
    # (hybrid_override_pattern); num_hidden_layers is the pattern's length
    "nemotron_h": Family(
        group="Nemotron",
        layout=Layout(block="nemotron_h", layer_prefix="backbone.layers.{i}.",
                      embedding="backbone.embeddings", final_norm="backbone.norm_f",
                      never_tied=True),
        moe="n_routed_experts",
        layers=rules.nemotron_h_layers,
        attribute_map=dict(num_local_experts="n_routed_experts"),
        positive=("ssm_state_size", "mamba_num_heads", "mamba_head_dim", "n_groups", "conv_kernel",
                  "moe_shared_expert_intermediate_size", "moe_latent_size", "chunk_size"),
        depth_lists=dict(hybrid_override_pattern="repeat", layers_block_type="repeat"),
        prepare=(rules.nemotron_h_prepare,),
        defaults=dict(_COMMON, vocab_size=131072, hidden_size=4096, num_attention_heads=32,
                      num_key_value_heads=8, head_dim=128, max_position_embeddings=4096,
                      intermediate_size=21504, mlp_bias=False, ssm_state_size=128,
                      mamba_num_heads=128, mamba_head_dim=64, n_groups=8, conv_kernel=4,
                      chunk_size=128, use_conv_bias=True, mamba_proj_bias=False, use_bias=False,
                      n_routed_experts=8, n_shared_experts=1, moe_intermediate_size=7688,
                      moe_shared_expert_intermediate_size=7688, moe_latent_size=None,
                      num_experts_per_tok=2, hybrid_override_pattern=None,
                      layers_block_type=None, pad_token_id=0, num_nextn_predict_layers=0)),
    # StarCoder2: GQA and a plain GELU MLP (c_fc, c_proj), biases on every projection by
    # use_bias, LayerNorms with biases; every layer slides when sliding_window is set.
    # Defaults: Starcoder2Config (no attention_bias or head_dim field: head_dim = hidden / heads)
    "starcoder2": Family(
        group="StarCoder",
        layout=Layout(qkv_bias="use_bias", o_bias="use_bias", mlp="plain",
                      mlp_names=("c_fc", "c_proj"), mlp_bias="use_bias", norm_bias=True),
        defaults=dict(vocab_size=49152, hidden_size=3072, intermediate_size=12288,
                      num_hidden_layers=30, num_attention_heads=24, num_key_value_heads=2,
                      head_dim=None, max_position_embeddings=4096, sliding_window=None,
                      use_bias=True, tie_word_embeddings=True)),
    # Mistral Small 4: DeepSeek-V3's MLA and MoE without the load-balancing bias (defaults:
    # Mistral4Config)
    "mistral4": Family(
        layout=Layout(attention="mla", shared_experts="deepseek_always"),
        moe="n_routed_experts",
        layers=rules.deepseek_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts"),
        required=_MLA_MOE,
        check=(rules.dense_prefix_fits,),
        defaults=dict(_COMMON, num_key_value_heads=32, vocab_size=131072, hidden_size=4096, intermediate_size=12288,
                      moe_intermediate_size=2048, num_hidden_layers=36, num_attention_heads=32,
                      n_shared_experts=1, n_routed_experts=128, kv_lora_rank=256,
                      q_lora_rank=1024, qk_rope_head_dim=64, v_head_dim=128,
                      qk_nope_head_dim=64, num_experts_per_tok=4, first_k_dense_replace=0,
                      max_position_embeddings=1048576, pad_token_id=11)),
    # Seed-OSS: Llama's layout with biases on q, k and v (attention_bias) and, separately,
    # on o_proj (attention_out_bias); defaults from SeedOssConfig (not the 36B's sizes)
    "seed_oss": Family(
        layout=Layout(o_bias="attention_out_bias"),
        layers=rules.full_attention_layers,
        defaults=dict(_COMMON, vocab_size=155136, hidden_size=4096, intermediate_size=27648,
                      num_hidden_layers=64, num_attention_heads=80, num_key_value_heads=8,
                      head_dim=128, max_position_embeddings=524288, pad_token_id=1,
                      attention_bias=True, attention_out_bias=False, mlp_bias=False)),
    # LFM2-8B-A1B (LiquidAI): gated short-convolution layers (a depthwise causal convolution of
    # conv_L_cache taps between two gates) and a few GQA layers with QK-norm; the first
    # num_dense_layers with a dense SwiGLU MLP, then sigmoid-routed experts. Defaults:
    # Lfm2MoeConfig
    "lfm2_moe": Family(
        layout=Layout(block="lfm2_moe", final_norm="model.embedding_norm"),
        moe="num_experts",
        layers=rules.lfm2_moe_layers,
        attention_kinds=("conv", "full_attention"),
        positive=("conv_L_cache",),
        non_negative=("num_dense_layers",),
        prepare=(rules.lfm2_moe_prepare,),
        defaults=dict(_COMMON, vocab_size=65536, hidden_size=2048, intermediate_size=7168,
                      moe_intermediate_size=1792, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=8, max_position_embeddings=128000,
                      tie_word_embeddings=True, pad_token_id=0, conv_bias=False, conv_L_cache=3,
                      num_dense_layers=2, num_experts_per_tok=4, num_experts=32,
                      use_expert_bias=True)),
    # LongCat-Flash: two MLA sublayers per layer (num_layers; transformers' num_hidden_layers is
    # twice it, and a config's num_hidden_layers sets num_layers to half of it), a dense MLP
    # after each, one MoE per layer whose router also picks among zero_expert_num
    # "zero-computation" experts: identities without weights. Its MLA always has a low-rank
    # query (q_a_proj)
    "longcat_flash": Family(
        layout=Layout(block="longcat_flash", attention="mla", layer_prefix="model.layers.{b}."),
        moe="n_routed_experts",
        zero_experts="zero_expert_num",
        layers=rules.longcat_layers,
        attention_kinds=("full_attention",),
        attribute_map=dict(num_local_experts="n_routed_experts", num_experts_per_tok="moe_topk",
                           intermediate_size="ffn_hidden_size",
                           moe_intermediate_size="expert_ffn_hidden_size"),
        required=_MLA + ("q_lora_rank",),
        positive=("num_layers", "qk_head_dim"),
        non_negative=("zero_expert_num",),
        prepare=(rules.longcat_prepare,),
        derive=(rules.longcat_derive,),
        defaults=dict(_COMMON, vocab_size=131072, hidden_size=6144, num_layers=28,
                      num_attention_heads=64, max_position_embeddings=131072,
                      ffn_hidden_size=12288, q_lora_rank=1536, kv_lora_rank=512,
                      qk_nope_head_dim=128, qk_rope_head_dim=64, head_dim=64, v_head_dim=128,
                      qk_head_dim=None, moe_topk=12, n_routed_experts=512, zero_expert_num=256,
                      expert_ffn_hidden_size=2048, router_bias=False)),
}

# the checkpoint names of a wrapper saved before transformers 5 (LLaVA's layout)
_LLAVA_NAMES = (("model.", "language_model.model."), ("lm_head.", "language_model.lm_head."))

WRAPPERS = {
    # Gemma 3: a SigLIP vision tower; Google's checkpoints use the LLaVA names
    "gemma3": Wrapper("gemma3_text", towers=("siglip",), names=_LLAVA_NAMES, tie=True),
    # Gemma 4: a vision and an audio encoder, each only where its config is given
    "gemma4": Wrapper("gemma4_text", towers=("gemma4_vision", "gemma4_audio"), tie=True),
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

SUPPORTED_MODEL_TYPES = tuple(sorted(set(ENTRIES) | set(WRAPPERS)))

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
