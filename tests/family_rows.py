"""What the exactness test checks a model type with: :class:`Row` (a type's own is
``tests/families/<type>.py``, collected by ``tests/families/__init__.py``), the strategies
that draw small random configs, the tiny configs whose caches are compared, and the work
transformers' reference code does beyond the engine's FLOP count.

tests/test_exact_vs_transformers.py holds every row against transformers 5.23 (tests/
transformers_ref.py): small random configs of the type built on the meta device (total,
active and routed-expert parameters, and every tensor by name and shape), the cache a
tiny model holds after a CPU prefill, and the FLOPs PyTorch counts in one decode step.
A type in ``lc.SUPPORTED_MODEL_TYPES`` without a file fails that test.

Standard library, hypothesis and llmcourse only: the fast tests import it too.
"""

from typing import NamedTuple

from hypothesis import strategies as st

import llmcourse as lc
from llmcourse.family_rules import one_kv_head
from llmcourse.validation import REQUIRED


class FlopsCase(NamedTuple):
    """One decode step of a tiny model: PyTorch's FlopCounterMode count equals the engine's
    ``flops_per_token(cfg, n, "decode").total`` plus ``gap(d, n)``: the work transformers'
    reference code does beyond (or short of) what the engine counts, derived by hand."""
    config: dict
    n: int = 20                  # the context: n - 1 cached tokens and the new one
    gap: object = None           # (d, n) -> FLOPs PyTorch counts beyond the engine; None: 0
    check: object = None         # (d, counted, ours) -> a check of its own instead


class Row(NamedTuple):
    """How the exactness test checks one model type."""
    #: () -> a hypothesis strategy of small random config.json dicts of the type written for
    #: it (None: the generic draw below is enough)
    random: object = None
    examples: int = 30
    #: keyword arguments of :func:`small_configs`, the generic draw from the family's class
    #: defaults every text type also gets (its own fields: ``fields={...}``); None: not drawn
    small: dict | None = {}
    #: the class defaults alone ({"model_type": type}): True, transformers builds them and
    #: they count as built, tensor by tensor; False, transformers cannot build them and the
    #: engine refuses them in one line; None: not checked
    defaults: bool | None = None
    #: real published config.json files of the type kept as test fixtures
    #: (tests/fixtures/configs/, each with its source in tests/fixtures/README.md)
    real: tuple = ()
    #: a drawn config also reads back equal from to_hf_config, and a copy one layer deeper
    #: (as a reader edits it) counts as built
    round_trip: bool = False
    deeper: bool = False
    #: (model, cfg) -> weights the build allocates that no checkpoint holds (not counted)
    uncounted: object = None
    #: (d, cfg, model) -> further checks of a drawn config against its build
    extra: object = None
    #: the breakdown's "experts" component is the routed experts transformers builds, no more
    routed_component: bool = True
    #: model -> the build's routed-expert parameters, where module paths do not say which
    #: they are (JetMoE's attention experts); None: transformers_ref.routed_expert_params
    routed: object = None
    #: tiny configs: the cache a tiny model holds after a CPU prefill equals the engine's
    tiny: tuple = ()
    #: decode steps whose FLOPs PyTorch counts (FlopsCase)
    flops: tuple = ()


# booleans of a family's config that switch tensors on or off: drawn when the family has them
SWITCHES = ("attention_bias", "mlp_bias", "use_qk_norm", "qk_layernorm", "use_bias",
            "attention_out_bias", "tie_word_embeddings", "qkv_bias", "use_sliding_window")


@st.composite
def small_configs(draw, model_type, fields=None, switches=SWITCHES, explicit_head_dim=None):
    """A small random config.json of ``model_type`` drawn from its family's own defaults (the
    transformers config class's, as the entry keeps them): the sizes every family has, small
    (heads and KV heads that divide, head_dim given where the class defaults one), the
    routed-expert count and top-k of a MoE family, a small window where it slides, the
    family's on/off switches; each drawn value is sometimes left out, so the class defaults
    fill it in. ``fields``: ``{field: strategy, ...}`` or ``d -> {...}`` for the family's own
    (a Mamba state size, a layer pattern); they are always given."""
    fam = lc.families.ENTRIES[model_type]
    name = lambda f: f if f in fam.defaults or f in fam.required else fam.attribute_map.get(f, f)  # noqa: E731
    d8 = st.integers(1, 8)
    kv = 1 if one_kv_head in fam.check else draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 3))
    d = {"model_type": model_type, "vocab_size": draw(st.integers(16, 300))}
    sizes = {"num_hidden_layers": draw(st.integers(1, 4)), "num_attention_heads": heads,
             "intermediate_size": 4 * draw(d8), "max_position_embeddings": 64}
    # head_dim given where the class defaults one, and sometimes where it may be given
    # (then hidden_size need not divide by the heads: the families that refuse that, refuse)
    head_dim_given = (explicit_head_dim if explicit_head_dim is not None
                      else fam.defaults.get("head_dim") is not None
                      or ("head_dim" in fam.defaults and "head_dim" not in fam.engine_only
                          and fam.layout.attention != "mla" and draw(st.booleans())))
    if head_dim_given:
        sizes["head_dim"] = 2 * draw(d8)
        sizes["hidden_size"] = 4 * draw(d8)
    else:
        sizes["hidden_size"] = heads * 2 * draw(d8)
    if "num_key_value_heads" in fam.defaults or "num_key_value_heads" in fam.attribute_map:
        sizes["num_key_value_heads"] = kv
    if not lc.families.has_kv_heads(model_type):   # GPT-NeoX's MHA: no KV-head field
        sizes.pop("num_key_value_heads", None)
    for f, v in sizes.items():
        key = name(f)
        if key in fam.defaults or key in fam.required or f in REQUIRED:
            d[key] = v
    if fam.moe:
        E = draw(st.integers(1, 8))
        d[fam.moe] = E
        d[name("num_experts_per_tok")] = draw(st.integers(1, E))
        if "moe_intermediate_size" in fam.defaults or "moe_intermediate_size" in fam.required:
            d["moe_intermediate_size"] = 2 * draw(d8)
    if fam.defaults.get("sliding_window") is not None:
        d["sliding_window"] = draw(st.integers(1, 64))
    if "pad_token_id" in fam.defaults:   # the embedding's padding row must exist
        d["pad_token_id"] = draw(st.one_of(st.none(), st.integers(0, d["vocab_size"] - 1)))
    for f in switches:
        if f in fam.defaults and isinstance(fam.defaults[f], bool):
            d[f] = draw(st.booleans())
    # each drawn value is sometimes left to the class default (the sizes always stay)
    keep = {"model_type", "vocab_size", "hidden_size", "num_hidden_layers",
            "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size",
            "moe_intermediate_size", "pad_token_id", fam.moe, name("num_experts_per_tok"),
            *(name(f) for f in ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                "num_key_value_heads", "head_dim", "intermediate_size"))}
    for f in sorted(set(d) - keep):
        if draw(st.booleans()) and fam.defaults.get(f) is not None:
            del d[f]
    extra = fields(d) if callable(fields) else fields or {}
    for f, strategy in extra.items():
        d[f] = draw(strategy) if isinstance(strategy, st.SearchStrategy) else strategy
    return d


def wrapped(outer, strategy):
    """A multimodal wrapper's config around a text config drawn from ``strategy``."""
    return strategy.map(lambda d: {"model_type": outer, "text_config": d})


# --- random configs, type by type -----------------------------------------------------------

@st.composite
def zoo_based_configs(draw, model_types=("llama", "mistral", "qwen2", "qwen3", "qwen3_moe",
                                         "mixtral", "gemma2", "phi", "gpt_oss", "deepseek_v2",
                                         "deepseek_v3"), small=False):
    """A valid config.json: a zoo model of a drawn type with drawn sizes."""
    zoo = lc.list_models()
    mt = draw(st.sampled_from(model_types))
    # (a multimodal wrapper's file is not a text config: Kimi K2.5 holds DeepSeek-V3's inside)
    base = lc.load_model(draw(st.sampled_from([n for n in zoo if lc.load_model(n).model_type == mt
                                               and not lc.load_model(n).is_multimodal]
                                              or ["Meta-Llama-3-8B"])))
    d = base.to_hf_config()
    d["model_type"] = mt
    dim = st.integers(1, 8) if small else st.integers(1, 64)
    kv = draw(st.integers(1, 8))
    d["num_key_value_heads"] = kv
    d["num_attention_heads"] = kv * draw(st.integers(1, 4))
    d["head_dim"] = 2 * draw(dim)
    d["hidden_size"] = d["num_attention_heads"] * draw(dim) * 2
    d["intermediate_size"] = draw(dim) * 4
    d["vocab_size"] = draw(st.integers(1, 500))
    d["num_hidden_layers"] = draw(st.integers(1, 6))
    d["tie_word_embeddings"] = draw(st.booleans())
    d.pop("layer_types", None)
    for token in ("pad_token_id", "bos_token_id", "eos_token_id"):  # ids past a tiny vocab
        d.pop(token, None)
    if mt == "phi":
        d.pop("head_dim")
        d["hidden_size"] = d["num_attention_heads"] * 2 * draw(dim)
    if mt in ("qwen3_moe", "mixtral", "gpt_oss", "deepseek_v2", "deepseek_v3"):
        field = {"qwen3_moe": "num_experts", "deepseek_v2": "n_routed_experts",
                 "deepseek_v3": "n_routed_experts"}.get(mt, "num_local_experts")
        d[field] = draw(st.integers(1, 8))
        d["num_experts_per_tok"] = draw(st.integers(1, d[field]))
        d["moe_intermediate_size"] = draw(dim) * 2
    if mt.startswith("deepseek"):
        d.update(kv_lora_rank=draw(dim) * 2, qk_rope_head_dim=2 * draw(dim),
                 qk_nope_head_dim=2 * draw(dim), v_head_dim=2 * draw(dim),
                 q_lora_rank=draw(st.one_of(st.none(), dim.map(lambda x: 2 * x))),
                 n_shared_experts=draw(st.integers(0, 2)),
                 first_k_dense_replace=draw(st.integers(0, d["num_hidden_layers"])),
                 n_group=1, topk_group=1)
    if mt == "gpt_oss":
        d["sliding_window"] = draw(st.integers(1, 256))
    return d


MOE_FIELD = {"qwen2_moe": "num_experts", "qwen3_next": "num_experts",
             "glm4_moe": "n_routed_experts", "llama4_text": "num_local_experts"}


@st.composite
def new_family_configs(draw, model_type):
    """A small random config.json of ``model_type``, written from scratch; optional keys
    are sometimes left out so transformers' defaults (and ours) fill them in."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 6))
    kv = draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 3))
    hd = 2 * draw(d8)
    hidden = heads * 2 * draw(d8)
    maybe = lambda: draw(st.booleans())  # noqa: E731
    outer = None
    if model_type in ("gemma3", "llama4"):
        outer, model_type = model_type, model_type + "_text"
    d = {"model_type": model_type, "vocab_size": draw(st.integers(2, 300))}
    if model_type == "gpt2":
        std = maybe()  # GPT-2 by its own names, or by the standard ones (the attribute map)
        d.update({("hidden_size" if std else "n_embd"): hidden,
                  ("num_attention_heads" if std else "n_head"): heads,
                  ("num_hidden_layers" if std else "n_layer"): L,
                  ("max_position_embeddings" if std else "n_positions"): draw(st.integers(1, 64))})
        if maybe():
            d["n_inner"] = draw(st.one_of(st.none(), d8.map(lambda x: 4 * x)))
        if maybe():
            d["tie_word_embeddings"] = draw(st.booleans())
        return d
    d.update(hidden_size=hidden, num_attention_heads=heads, num_hidden_layers=L,
             intermediate_size=4 * draw(d8), max_position_embeddings=64,
             # the embedding's padding row must exist (defaults such as Phi-3's 32000 do not)
             pad_token_id=draw(st.one_of(st.none(), st.integers(0, d["vocab_size"] - 1))))
    if model_type != "gpt_neox":
        d["num_key_value_heads"] = kv
        if model_type in ("gemma", "gemma3_text", "llama4_text", "qwen3_next") or maybe():
            d["head_dim"] = hd  # those four default to 256 or 128 when it is left out
    if maybe():
        d["tie_word_embeddings"] = draw(st.booleans())
    if model_type in ("gpt_neox", "gemma", "gemma3_text", "olmo2", "granite", "smollm3",
                      "glm4_moe", "llama4_text", "qwen3_next") and maybe():
        d["attention_bias"] = draw(st.booleans())
    if model_type in ("granite", "smollm3") and maybe():
        d["mlp_bias"] = draw(st.booleans())
    if model_type == "granite":
        d.update(embedding_multiplier=12.0, residual_multiplier=0.22, logits_scaling=8.0,
                 attention_multiplier=0.0078125)
    if model_type == "gemma3_text":
        d.update(sliding_window=draw(st.integers(1, 64)),
                 sliding_window_pattern=draw(st.integers(1, 4)))
    if model_type == "phi3" and maybe():
        d["sliding_window"] = draw(st.integers(1, 64))
    if model_type == "smollm3":
        d.update(no_rope_layer_interval=draw(st.integers(1, 4)),
                 use_sliding_window=draw(st.booleans()), sliding_window=draw(st.integers(1, 64)))
    if model_type in MOE_FIELD:
        E = draw(st.integers(1, 8))
        d[MOE_FIELD[model_type]] = E
        d["num_experts_per_tok"] = draw(st.integers(1, E))
        if model_type != "llama4_text":
            d["moe_intermediate_size"] = 2 * draw(d8)
    if model_type in ("qwen2_moe", "qwen3_next"):
        d["shared_expert_intermediate_size"] = 2 * draw(d8)
        d["decoder_sparse_step"] = draw(st.integers(1, 3))
        d["mlp_only_layers"] = draw(st.lists(st.integers(0, L - 1), unique=True, max_size=L))
    if model_type == "qwen2_moe" and maybe():
        d["qkv_bias"] = draw(st.booleans())
    if model_type == "glm4_moe":
        d.update(n_shared_experts=draw(st.integers(0, 2)), use_qk_norm=draw(st.booleans()),
                 first_k_dense_replace=draw(st.integers(0, L)), n_group=1, topk_group=1)
    if model_type == "llama4_text":
        d.update(intermediate_size_mlp=4 * draw(d8),
                 interleave_moe_layer_step=draw(st.integers(1, 3)),
                 attention_chunk_size=draw(st.integers(1, 64)),
                 no_rope_layer_interval=draw(st.integers(1, 4)),
                 use_qk_norm=draw(st.booleans()))
    if model_type == "qwen3_next":
        kh = draw(st.integers(1, 3))
        d.update(linear_num_key_heads=kh, linear_num_value_heads=kh * draw(st.integers(1, 3)),
                 linear_key_head_dim=2 * draw(d8), linear_value_head_dim=2 * draw(d8),
                 linear_conv_kernel_dim=draw(st.integers(1, 4)),
                 full_attention_interval=draw(st.integers(1, 4)))
    if outer:
        return {"model_type": outer, "text_config": d}
    return d


@st.composite
def qwen3_5_configs(draw, moe):
    """A small random Qwen3.5 (dense) or Qwen3.6-style (MoE) text config, written from
    scratch; layer_types sometimes listed, sometimes left to full_attention_interval."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 6))
    kv = draw(st.integers(1, 3))
    kh = draw(st.integers(1, 3))
    d = {"model_type": "qwen3_5_moe_text" if moe else "qwen3_5_text",
         "vocab_size": draw(st.integers(2, 300)), "hidden_size": 4 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": kv * draw(st.integers(1, 3)),
         "num_key_value_heads": kv, "head_dim": 2 * draw(d8), "max_position_embeddings": 64,
         "linear_num_key_heads": kh, "linear_num_value_heads": kh * draw(st.integers(1, 3)),
         "linear_key_head_dim": 2 * draw(d8), "linear_value_head_dim": 2 * draw(d8),
         "linear_conv_kernel_dim": draw(st.integers(1, 4)),
         "tie_word_embeddings": draw(st.booleans())}
    if draw(st.booleans()):
        d["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]),
                                         min_size=L, max_size=L))
    else:
        d["full_attention_interval"] = draw(st.integers(1, 4))
    if moe:
        E = draw(st.integers(1, 8))
        d.update(num_experts=E, num_experts_per_tok=draw(st.integers(1, E)),
                 moe_intermediate_size=2 * draw(d8), shared_expert_intermediate_size=2 * draw(d8))
    else:
        d["intermediate_size"] = 4 * draw(d8)
    return d


@st.composite
def mla_configs(draw, mt):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 5))
    E = draw(st.integers(1, 6))
    heads = draw(st.integers(1, 4))
    d = {"model_type": mt, "vocab_size": draw(st.integers(12, 200)),  # mistral4 pads with 11
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "moe_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": heads, "num_key_value_heads": heads,
         "kv_lora_rank": 2 * draw(d8), "q_lora_rank": 2 * draw(d8),
         "qk_rope_head_dim": 2 * draw(st.integers(1, 4)), "qk_nope_head_dim": 2 * draw(d8),
         "v_head_dim": 2 * draw(d8), "n_routed_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "n_group": 1, "topk_group": 1,
         "n_shared_experts": draw(st.integers(1, 2)), "max_position_embeddings": 64,
         "tie_word_embeddings": draw(st.booleans())}
    if mt in ("deepseek_v32", "glm_moe_dsa"):
        d.update(index_n_heads=draw(st.integers(1, 4)), index_topk=draw(st.integers(1, 16)),
                 index_head_dim=d["qk_rope_head_dim"] + 2 * draw(st.integers(0, 4)),
                 first_k_dense_replace=draw(st.integers(0, L)))
    if mt == "glm_moe_dsa" and draw(st.booleans()):
        d["indexer_types"] = draw(st.lists(st.sampled_from(["full", "shared"]),
                                           min_size=L, max_size=L))
    if mt in ("glm4_moe_lite", "deepseek_v32") and draw(st.booleans()):
        d["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]),
                                             min_size=L, max_size=L))
    if mt == "mistral4":
        d["first_k_dense_replace"] = draw(st.integers(0, L))
        if draw(st.booleans()):
            d["q_lora_rank"] = None  # a plain q_proj
    return d


@st.composite
def minimax_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    E = draw(st.integers(1, 6))
    return {"model_type": "minimax_m2", "vocab_size": draw(st.integers(2, 200)),
            "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
            "num_hidden_layers": draw(st.integers(1, 4)),
            "num_attention_heads": kv * draw(st.integers(1, 3)), "num_key_value_heads": kv,
            "head_dim": 2 * draw(d8), "num_local_experts": E,
            "num_experts_per_tok": draw(st.integers(1, E)), "max_position_embeddings": 64}


@st.composite
def nemotron_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    E = draw(st.integers(1, 6))
    groups = draw(st.integers(1, 3))
    d = {"model_type": "nemotron_h", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_attention_heads": kv * draw(st.integers(1, 3)), "num_key_value_heads": kv,
         "head_dim": 2 * draw(d8), "ssm_state_size": draw(d8),
         "mamba_num_heads": groups * draw(st.integers(1, 3)), "mamba_head_dim": draw(d8),
         "n_groups": groups, "conv_kernel": draw(st.integers(1, 4)),
         "use_conv_bias": draw(st.booleans()), "n_routed_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "moe_intermediate_size": 2 * draw(d8),
         "moe_shared_expert_intermediate_size": 2 * draw(d8), "pad_token_id": 0,
         "tie_word_embeddings": draw(st.booleans())}
    blocks = draw(st.text(alphabet="ME*-", min_size=1, max_size=8))
    if draw(st.booleans()):
        d["hybrid_override_pattern"] = blocks
    else:  # the form transformers writes back
        names = {"M": "linear_attention", "*": "full_attention", "E": "moe", "-": "mlp"}
        d["layers_block_type"] = [names[c] for c in blocks]
    if draw(st.booleans()):
        d["moe_latent_size"] = 2 * draw(d8)  # Nemotron 3 Super's latent experts
    return d


@st.composite
def dense_gqa_configs(draw, mt):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    d = {"model_type": mt, "vocab_size": draw(st.integers(12, 200)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": kv * draw(st.integers(1, 3)),
         "num_key_value_heads": kv, "max_position_embeddings": 64,
         "tie_word_embeddings": draw(st.booleans())}
    if mt in ("ministral3", "seed_oss"):
        d["head_dim"] = 2 * draw(d8)
        if mt == "seed_oss":
            d.update(attention_bias=draw(st.booleans()), attention_out_bias=draw(st.booleans()),
                     mlp_bias=draw(st.booleans()))
    else:
        d["hidden_size"] = d["num_attention_heads"] * 2 * draw(d8)
        d["attention_bias"] = draw(st.booleans())
        if draw(st.booleans()):
            d["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention",
                                                              "full_attention"]),
                                             min_size=L, max_size=L))
    return d


@st.composite
def gemma4_configs(draw):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 7))
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 3))
    d = {"model_type": "gemma4_text", "vocab_size": draw(st.integers(2, 100)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads, "num_key_value_heads": kv,
         "head_dim": 2 * draw(d8), "global_head_dim": 2 * draw(d8),
         "vocab_size_per_layer_input": draw(st.integers(2, 100)),
         "hidden_size_per_layer_input": draw(st.integers(0, 4)),
         "attention_k_eq_v": draw(st.booleans()), "use_double_wide_mlp": draw(st.booleans()),
         "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0}
    if draw(st.booleans()):
        d["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                         min_size=L, max_size=L))
    if d["attention_k_eq_v"] and draw(st.booleans()):
        d["num_global_key_value_heads"] = draw(st.sampled_from([g for g in range(1, heads + 1)
                                                                if heads % g == 0]))
    if L >= 3 and draw(st.booleans()):
        d.update(layer_types=["sliding_attention", "full_attention"] * (L // 2) + (
            ["sliding_attention"] if L % 2 else []), num_kv_shared_layers=draw(st.integers(0, L - 2)))
    if draw(st.booleans()):
        E = draw(st.integers(1, 4))
        d.update(enable_moe_block=True, num_experts=E, top_k_experts=draw(st.integers(1, E)),
                 moe_intermediate_size=2 * draw(d8))
    return d


@st.composite
def kimi_linear_configs(draw):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 6))
    E = draw(st.integers(1, 6))
    d = {"model_type": "kimi_linear", "vocab_size": draw(st.integers(2, 200)), "pad_token_id": 0,
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "moe_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": draw(st.integers(1, 4)), "kv_lora_rank": 2 * draw(d8),
         "qk_rope_head_dim": 2 * draw(st.integers(1, 4)), "qk_nope_head_dim": 2 * draw(d8),
         "v_head_dim": 2 * draw(d8), "num_experts": E,
         "num_experts_per_token": draw(st.integers(1, E)),
         "first_k_dense_replace": draw(st.integers(0, L)),
         "tie_word_embeddings": draw(st.booleans())}
    d["num_key_value_heads"] = d["num_attention_heads"]
    kinds = draw(st.lists(st.booleans(), min_size=L, max_size=L))
    lac = {"head_dim": 2 * draw(d8), "num_heads": draw(st.integers(1, 3)),
           "short_conv_kernel_size": draw(st.integers(1, 4))}
    if draw(st.booleans()):
        lac.update(full_attn_layers=[i + 1 for i, full in enumerate(kinds) if full],
                   kda_layers=[i + 1 for i, full in enumerate(kinds) if not full])
    if draw(st.booleans()):
        d["q_lora_rank"] = 2 * draw(d8)
    d["linear_attn_config"] = lac
    return d


@st.composite
def v4_configs(draw):
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 5))
    E = draw(st.integers(1, 5))
    g = draw(st.integers(1, 2))
    d = {"model_type": "deepseek_v4", "vocab_size": draw(st.integers(2, 100)),
         "hidden_size": 4 * draw(d8), "moe_intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": 2 * draw(st.integers(1, 2)),
         "num_key_value_heads": 1, "head_dim": 8 * draw(st.integers(1, 3)),
         "q_lora_rank": 2 * draw(d8), "n_routed_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "hc_mult": draw(st.integers(1, 3)),
         "sliding_window": draw(st.integers(2, 16)), "o_groups": g, "o_lora_rank": 2 * draw(d8),
         "index_n_heads": draw(st.integers(1, 3)), "index_head_dim": 8, "index_topk": 4,
         "partial_rotary_factor": 0.5,
         "compress_rates": {"compressed_sparse_attention": draw(st.sampled_from([2, 4])),
                            "heavily_compressed_attention": draw(st.sampled_from([4, 8]))}}
    d["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention",
                                                      "compressed_sparse_attention",
                                                      "heavily_compressed_attention"]),
                                     min_size=L, max_size=L))
    d["num_hash_layers"] = draw(st.integers(0, L))
    return d


@st.composite
def granite_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    heads = kv * draw(st.integers(1, 3))
    E = draw(st.sampled_from([0, 0, 1, 2, 5]))
    expand = draw(st.integers(1, 3))
    hidden = heads * 2 * draw(d8)
    nh = draw(st.sampled_from([n for n in range(1, 9) if expand * hidden % n == 0]))
    d = {"model_type": "granitemoehybrid", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": hidden, "intermediate_size": 2 * draw(d8),
         "shared_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": heads, "num_key_value_heads": kv, "num_local_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)) if E else 0,
         "mamba_n_heads": nh, "mamba_n_groups": draw(st.integers(1, 3)),
         "mamba_d_state": draw(d8), "mamba_d_conv": draw(st.integers(1, 4)),
         "mamba_expand": expand, "mamba_conv_bias": draw(st.booleans()),
         "mamba_proj_bias": draw(st.booleans()), "attention_bias": draw(st.booleans()),
         "tie_word_embeddings": draw(st.booleans()),
         "position_embedding_type": draw(st.sampled_from([None, "nope", "rope"]))}
    if draw(st.booleans()):
        d["mamba_d_head"] = expand * hidden // nh
    form = draw(st.sampled_from(["hub", "saved", "alias", "none"]))
    kinds = draw(st.lists(st.booleans(), min_size=L, max_size=L))  # True: attention
    if form == "hub":
        d["layer_types"] = ["attention" if a else "mamba" for a in kinds]
    elif form == "saved":
        d["layer_types"] = ["full_attention" if a else "linear_attention" for a in kinds]
    elif form == "alias":  # transformers' attribute_map: layers_block_type is layer_types
        d["layers_block_type"] = ["attention" if a else "mamba" for a in kinds]
    return d


@st.composite
def lfm2_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    heads = kv * draw(st.integers(1, 3))
    E = draw(st.integers(1, 5))
    d = {"model_type": "lfm2_moe", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": heads * 2 * draw(d8), "intermediate_size": 2 * draw(d8),
         "moe_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": heads, "num_key_value_heads": kv, "num_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "pad_token_id": 0,
         "num_dense_layers": draw(st.integers(0, L + 1)),
         "conv_L_cache": draw(st.integers(1, 5)), "conv_bias": draw(st.booleans()),
         "use_expert_bias": draw(st.booleans()),
         "layer_types": draw(st.lists(st.sampled_from(["conv", "full_attention"]),
                                      min_size=L, max_size=L))}
    tie = draw(st.sampled_from([None, "tie_word_embeddings", "tie_embedding"]))
    if tie:  # LFM2's own name, tie_embedding, wins over the standard one
        d[tie] = draw(st.booleans())
    return d


@st.composite
def qwen4_configs(draw):
    d8 = st.integers(1, 4)
    E = draw(st.integers(1, 5))
    kh = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    n = draw(st.integers(1, 4))     # full_attention_interval
    heads = 2 * draw(d8)
    kv = draw(st.sampled_from([h for h in (1, 2, heads) if heads % h == 0]))
    ratio = draw(st.integers(1, 3))
    hd = 2 * draw(d8)
    d = {"model_type": "qwen4_exp_text", "vocab_size": draw(st.integers(2, 100)),
         "hidden_size": 4 * draw(d8), "num_hidden_layers": L, "num_attention_heads": heads,
         "num_key_value_heads": kv, "head_dim": hd,
         "linear_num_key_heads": kh, "linear_num_value_heads": kh * draw(st.integers(1, 2)),
         "linear_key_head_dim": 2 * draw(d8), "linear_value_head_dim": 2 * draw(d8),
         "linear_conv_kernel_dim": draw(st.integers(2, 4)),
         "moe_intermediate_size": 2 * draw(d8),
         "shared_expert_intermediate_size": 2 * draw(d8), "num_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "hc_count": draw(st.integers(2, 4)),
         "hc_lowrank": draw(st.integers(1, 6)), "indexer_n_heads": draw(d8),
         "indexer_kv_heads": 1, "indexer_head_dim": hd + 2 * draw(st.integers(0, 2)),
         "indexer_budget": ratio * draw(st.integers(1, 3)), "indexer_compress_ratio": ratio,
         "tie_word_embeddings": draw(st.booleans()), "attention_bias": draw(st.booleans()),
         "eos_token_id": 0}
    if draw(st.booleans()):
        kinds = draw(st.lists(st.sampled_from(["linear_attention", "full_attention",
                                               "indexed_attention"]), min_size=L, max_size=L))
        d["layer_types"] = kinds
        linear = [i + 1 for i, k in enumerate(kinds) if k == "linear_attention"]
    else:
        d["full_attention_interval"] = n
        linear = [i + 1 for i in range(L) if (i + 1) % n]
    if linear and draw(st.booleans()):
        size = draw(st.integers(2, 3))
        per = draw(st.integers(1, 2))
        d.update(ple_layer_ids=draw(st.lists(st.sampled_from(linear), min_size=1, max_size=3)),
                 ngram_size=size, heads_per_ngram=per,
                 ple_embed_dim=(size - 1) * per * draw(d8),
                 ngram_vocab_size_base=draw(st.integers(0, 300)),
                 make_ngram_vocab_size_divisible_by=draw(st.integers(1, 16)),
                 split_ngram_parts=draw(st.integers(1, 9)),
                 ple_conv_kernel_size=draw(st.integers(1, 4)))
    return d


@st.composite
def longcat_configs(draw):
    d8 = st.integers(1, 8)
    E = draw(st.integers(1, 5))
    zero = draw(st.integers(0, 4))
    heads = draw(st.integers(1, 4))
    d = {"model_type": "longcat_flash", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": 4 * draw(d8), "ffn_hidden_size": 2 * draw(d8),
         "expert_ffn_hidden_size": 2 * draw(d8), "num_attention_heads": heads,
         "kv_lora_rank": 2 * draw(d8), "q_lora_rank": 2 * draw(d8),
         "qk_rope_head_dim": 2 * draw(st.integers(1, 4)), "qk_nope_head_dim": 2 * draw(d8),
         "v_head_dim": 2 * draw(d8), "n_routed_experts": E, "zero_expert_num": zero,
         "moe_topk": draw(st.integers(1, E + zero)), "max_position_embeddings": 64,
         "attention_bias": draw(st.booleans()), "tie_word_embeddings": draw(st.booleans())}
    if draw(st.booleans()):
        d["num_layers"] = draw(st.integers(1, 3))
    else:  # transformers' num_hidden_layers (sublayers) sets num_layers to half of it
        d["num_hidden_layers"] = draw(st.integers(2, 7))
    if draw(st.booleans()):
        d["router_bias"] = True
    if draw(st.booleans()):  # the saved form writes it; a different one sizes q_b_proj
        d["qk_head_dim"] = d["qk_nope_head_dim"] + d["qk_rope_head_dim"] + 2 * draw(
            st.integers(0, 2))
    return d


@st.composite
def starcoder2_configs(draw):
    d8 = st.integers(1, 8)
    kv = draw(st.integers(1, 3))
    heads = kv * draw(st.integers(1, 3))
    d = {"model_type": "starcoder2", "vocab_size": draw(st.integers(2, 200)),
         "hidden_size": heads * 2 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": draw(st.integers(1, 4)), "num_attention_heads": heads,
         "num_key_value_heads": kv, "max_position_embeddings": 64}
    for key, value in (("use_bias", st.booleans()), ("tie_word_embeddings", st.booleans()),
                       ("sliding_window", st.integers(1, 16))):
        if draw(st.booleans()):  # else transformers' default (biases, tied, no window)
            d[key] = draw(value)
    return d


# --- tiny models: their cache after a CPU prefill (and their parameters) --------------------

QWEN3_NEXT_TINY = {"model_type": "qwen3_next", "vocab_size": 64, "hidden_size": 32,
                   "intermediate_size": 16, "num_hidden_layers": 4, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "head_dim": 8, "linear_num_key_heads": 2,
                   "linear_num_value_heads": 4, "linear_key_head_dim": 6,
                   "linear_value_head_dim": 10, "linear_conv_kernel_dim": 3, "num_experts": 4,
                   "num_experts_per_tok": 2, "moe_intermediate_size": 8,
                   "shared_expert_intermediate_size": 8, "full_attention_interval": 2}
QWEN3_5_TINY = {"model_type": "qwen3_5_text", "vocab_size": 64, "hidden_size": 32,
                "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
                "head_dim": 8, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
                "linear_key_head_dim": 6, "linear_value_head_dim": 10,
                "linear_conv_kernel_dim": 3, "full_attention_interval": 2,
                "intermediate_size": 16}
QWEN3_5_MOE_TINY = {k: v for k, v in QWEN3_5_TINY.items() if k != "intermediate_size"} | dict(
    model_type="qwen3_5_moe_text", num_experts=4, num_experts_per_tok=2,
    moe_intermediate_size=8, shared_expert_intermediate_size=8)
# MLA and DeepSeek Sparse Attention: 3 layers, the first dense
MLA_TINY = {"vocab_size": 64, "hidden_size": 32, "intermediate_size": 24,
            "moe_intermediate_size": 8, "num_hidden_layers": 3, "num_attention_heads": 4,
            "num_key_value_heads": 4, "kv_lora_rank": 8, "q_lora_rank": 12,
            "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6, "n_routed_experts": 4,
            "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "index_n_heads": 2,
            "index_head_dim": 8, "index_topk": 4, "first_k_dense_replace": 1}
NEMOTRON_TINY = {"model_type": "nemotron_h", "vocab_size": 64, "hidden_size": 32,
                 "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
                 "intermediate_size": 24, "ssm_state_size": 6, "mamba_num_heads": 4,
                 "mamba_head_dim": 4, "n_groups": 2, "conv_kernel": 3, "chunk_size": 4,
                 "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
                 "moe_shared_expert_intermediate_size": 8, "hybrid_override_pattern": "ME*-M*E",
                 "use_mamba_kernels": False}
GEMMA4_TINY = {"model_type": "gemma4_text", "vocab_size": 64, "hidden_size": 32,
               "intermediate_size": 24, "num_hidden_layers": 6, "num_attention_heads": 4,
               "num_key_value_heads": 2, "head_dim": 8, "global_head_dim": 16,
               "sliding_window": 16, "layer_types": ["sliding_attention", "full_attention"] * 3,
               "vocab_size_per_layer_input": 64, "hidden_size_per_layer_input": 4}
# per-layer embeddings; KV shared by the last layers; K = V on full layers; experts
GEMMA4_VARIANTS = {
    "ple": {}, "kv-shared": {"num_kv_shared_layers": 2, "use_double_wide_mlp": True},
    "k-eq-v": {"attention_k_eq_v": True, "num_global_key_value_heads": 1},
    "moe": {"enable_moe_block": True, "num_experts": 4, "top_k_experts": 2,
            "moe_intermediate_size": 8, "hidden_size_per_layer_input": 0}}
KIMI_LINEAR_TINY = {"model_type": "kimi_linear", "vocab_size": 64, "pad_token_id": 0,
                    "hidden_size": 32, "intermediate_size": 24, "moe_intermediate_size": 8,
                    "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4,
                    "kv_lora_rank": 8, "qk_rope_head_dim": 4, "qk_nope_head_dim": 6,
                    "v_head_dim": 6, "num_experts": 4, "num_experts_per_token": 2,
                    "linear_attn_config": {"full_attn_layers": [2, 4], "kda_layers": [1, 3],
                                           "head_dim": 6, "num_heads": 2,
                                           "short_conv_kernel_size": 3}}
GRANITE_TINY = {"model_type": "granitemoehybrid", "vocab_size": 64, "hidden_size": 32,
                "intermediate_size": 8, "shared_intermediate_size": 12, "num_hidden_layers": 4,
                "num_attention_heads": 4, "num_key_value_heads": 2,
                "layer_types": ["mamba", "attention", "mamba", "attention"],
                "num_local_experts": 4, "num_experts_per_tok": 2, "mamba_n_heads": 4,
                "mamba_n_groups": 2, "mamba_d_state": 6, "mamba_d_conv": 3,
                "mamba_chunk_size": 4, "tie_word_embeddings": True}
LFM2_TINY = {"model_type": "lfm2_moe", "vocab_size": 64, "hidden_size": 32,
             "intermediate_size": 24, "moe_intermediate_size": 8, "num_hidden_layers": 4,
             "num_attention_heads": 4, "num_key_value_heads": 2,
             "layer_types": ["conv", "full_attention", "conv", "full_attention"],
             "num_experts": 4, "num_experts_per_tok": 2, "num_dense_layers": 1,
             "conv_L_cache": 3}
QWEN4_TINY = {"model_type": "qwen4_exp_text", "vocab_size": 64, "hidden_size": 32,
              "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
              "head_dim": 8, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
              "linear_key_head_dim": 8, "linear_value_head_dim": 6, "moe_intermediate_size": 8,
              "shared_expert_intermediate_size": 12, "num_experts": 4, "num_experts_per_tok": 2,
              "hc_count": 3, "hc_lowrank": 5, "ple_layer_ids": [1, 3], "ple_embed_dim": 16,
              "heads_per_ngram": 2, "ngram_vocab_size_base": 50,
              "make_ngram_vocab_size_divisible_by": 8, "split_ngram_parts": 3,
              "ple_conv_kernel_size": 3, "indexer_n_heads": 2, "indexer_kv_heads": 1,
              "indexer_head_dim": 8, "indexer_budget": 4, "indexer_compress_ratio": 2,
              "eos_token_id": 1}
LONGCAT_TINY = {"model_type": "longcat_flash", "vocab_size": 64, "hidden_size": 32,
                "ffn_hidden_size": 24, "expert_ffn_hidden_size": 8, "num_layers": 2,
                "num_attention_heads": 4, "kv_lora_rank": 8, "q_lora_rank": 12,
                "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6, "head_dim": 4,
                "n_routed_experts": 4, "zero_expert_num": 2, "moe_topk": 3}
# (a window longer than the prefill: between steps transformers' sliding cache keeps
# sliding_window - 1 tokens, the engine the sliding_window a step attends to)
STARCODER2_TINY = {"model_type": "starcoder2", "vocab_size": 64, "hidden_size": 32,
                   "intermediate_size": 24, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "sliding_window": 16, "max_position_embeddings": 64}
V4_TINY = {"model_type": "deepseek_v4", "vocab_size": 64, "hidden_size": 32,
           "moe_intermediate_size": 8, "num_hidden_layers": 4, "num_attention_heads": 4,
           "num_key_value_heads": 1, "head_dim": 16, "q_lora_rank": 12, "num_experts_per_tok": 2,
           "n_routed_experts": 4, "hc_mult": 2, "sliding_window": 8, "o_groups": 2,
           "o_lora_rank": 8, "index_n_heads": 2, "index_head_dim": 8, "index_topk": 4,
           "compress_rates": {"compressed_sparse_attention": 4,
                              "heavily_compressed_attention": 8},
           "layer_types": ["sliding_attention", "compressed_sparse_attention",
                           "heavily_compressed_attention", "compressed_sparse_attention"],
           "num_hash_layers": 1, "partial_rotary_factor": 0.5}


# --- what a drawn config's build must also show, for a few families -------------------------

def _longcat_zero_slots(model, cfg):
    """LongCat-Flash: ``LongcatFlashExperts`` allocates ``gate_up_proj`` for every slot the
    router can pick, n_routed_experts + zero_expert_num, but ``down_proj`` only for the real
    experts: a zero-computation expert returns its input and never reads its slot. The
    gate_up_proj slots beyond down_proj's, read off the built tensors, are not weights:
    ``{name: the shape the real experts fill}``."""
    out = {}
    for name, p in model.named_parameters():
        if name.endswith("mlp.experts.gate_up_proj"):
            down = model.get_parameter(name[:-len("gate_up_proj")] + "down_proj")
            out[name] = (down.shape[0],) + tuple(p.shape[1:])
    return out


def zero_slot_params(model, cfg=None):
    """Parameters of LongCat-Flash's gate_up_proj slots beyond the real experts'."""
    from math import prod
    return sum(model.get_parameter(k).numel() - prod(shape)
               for k, shape in _longcat_zero_slots(model, cfg).items())


def _longcat_checks(d, cfg, model):
    """One zero-slot count in every layer, as the config says; transformers' sublayer count;
    the fewest parameters a token uses: as many picks as there are zero experts fall on
    them."""
    import transformers_ref
    slots = {layer.mlp.experts.gate_up_proj.shape[0] - layer.mlp.experts.down_proj.shape[0]
             for layer in model.model.layers}
    zero = transformers_ref.hf_config(d).zero_expert_num   # as the config class reads it
    assert slots == {zero} and cfg.zero_expert_num == zero
    assert cfg.num_hidden_layers == transformers_ref.hf_config(d).num_hidden_layers
    routed = transformers_ref.routed_expert_params(model) - zero_slot_params(model)
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    pc = lc.param_count(cfg)
    per_expert = routed // E
    assert pc.active_min == pc.total - per_expert * (E - max(k - zero, 0))


def _granite_checks(d, cfg, model):
    assert cfg.is_moe == bool(d["num_local_experts"])


def _qwen4_checks(d, cfg, model):
    """transformers' layer_types (full_attention read as indexed_attention); the listing's
    weights add up to the build; the n-gram tables' shards add up to each table."""
    import transformers_ref
    assert list(cfg.layer_types) == transformers_ref.hf_config(d).layer_types
    total = sum(p.numel() for p in model.parameters())
    ws = lc.weight_shapes(cfg)
    assert int(ws.loc[ws["note"] == "", "numel"].sum()) == total
    tables = {}
    for n, s in zip(ws["name"], ws["shape"]):
        if ".shard_" in n:
            key = n.split(".shard_")[0] + ".weight"
            tables[key] = (tables.get(key, (0,))[0] + s[0], s[1])
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    assert tables == {n: s for n, s in shapes.items() if "ngram_embedding" in n}


# --- one decode step: where transformers' reference code does more or less work ------------
# Where transformers' reference code does the same work as the engine's count, the numbers are
# equal (Gemma 4's sliding, full, KV-shared and K = V layers, its experts beside a dense MLP,
# OLMo 3, Ministral 3, MiniMax-M2). Where it does more or less, the gap is the stated work:
#
# * MLA (GLM-4.7-Flash, DeepSeek-V3.2, LongCat-Flash): transformers expands every cached
#   latent through kv_b_proj at every step, (n - 1) x 2 x |kv_b_proj| FLOPs per layer more
#   than the absorbed form the engine counts (the DeepSeek-V2 paper's). Sparse attention's
#   indexer is counted alike; below index_topk keys its attention equals dense attention.
# * Mamba-2 (Nemotron-H, Granite 4.0): the read-out y = state . C is a batched matmul
#   (2 h p N); the state's decayed rank-one update is elementwise, which FlopCounterMode does
#   not count (the engine counts it: 4 h p N in all); transformers' decode convolution runs
#   over its whole window of conv_kernel positions twice over.
# * Gated DeltaNet (Qwen3.5, Qwen4-Exp) and Kimi Delta Attention (Kimi-Linear): transformers'
#   torch fallback runs the whole recurrence elementwise, so FlopCounterMode counts none of
#   the engine's 6 x heads x d_k x d_v, and the decode convolution twice over, as for Mamba-2.
# * LFM2's short convolution: the engine counts its taps as weights, 2 x hidden x
#   conv_L_cache; transformers' decode step convolves the cached inputs and the new one
#   without padding, two output positions, keeping the last: the convolution once more.
# * DeepSeek-V4: the hyper-connections' coefficient weights and their m x m mix of the
#   streams are matmuls, counted alike; the collapse of the streams into a block's input (and
#   at the head) and the block's output written back into them are elementwise, and so is a
#   compressor's pooling of the window the step closes, and the indexer's weighted sum over
#   its heads: the engine counts those, PyTorch does not. transformers' eager CSA layer
#   multiplies the query with every compressed entry and masks all but the indexer's
#   index_topk, which the engine counts (as a sparse kernel computes them).
# * Qwen4-Exp's eager attention scores every key and masks those the indexer did not
#   select, which the engine does not count (as a sparse kernel skips them).

def _mla_reexpansion(d, n):
    kv_b = d["kv_lora_rank"] * d["num_attention_heads"] * (d["qk_nope_head_dim"]
                                                             + d["v_head_dim"])
    return d["num_hidden_layers"] * (n - 1) * 2 * kv_b


FLOPS_MLA = dict(MLA_TINY, num_hidden_layers=2, index_topk=64)
FLOPS_NEMOTRON = dict(NEMOTRON_TINY, hybrid_override_pattern="M*-")
FLOPS_QWEN3_5 = {"model_type": "qwen3_5_text", "vocab_size": 64, "hidden_size": 32,
                 "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                 "head_dim": 8, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
                 "linear_key_head_dim": 6, "linear_value_head_dim": 10,
                 "linear_conv_kernel_dim": 3, "layer_types": ["linear_attention",
                                                              "full_attention"],
                 "intermediate_size": 16}
FLOPS_KIMI = {"model_type": "kimi_linear", "vocab_size": 64, "pad_token_id": 0,
              "hidden_size": 32, "intermediate_size": 24, "moe_intermediate_size": 8,
              "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
              "kv_lora_rank": 8, "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6,
              "num_experts": 4, "num_experts_per_token": 2, "first_k_dense_replace": 2,
              "linear_attn_config": {"full_attn_layers": [2], "kda_layers": [1], "head_dim": 6,
                                     "num_heads": 2, "short_conv_kernel_size": 3}}
FLOPS_V4 = dict(V4_TINY, hc_mult=3)


def _nemotron_gap(d, n):
    h, p, N_state, k = 4, 4, 6, 3
    conv_channels = h * p + 2 * 2 * N_state
    # the engine's 4 h p N: the read-out (a bmm PyTorch counts) and the elementwise update
    update = 2 * h * p * N_state
    conv_once = 2 * conv_channels * k   # transformers' decode runs the convolution twice over
    return -update + conv_once


def _qwen3_5_gap(d, n):
    recurrence = 6 * 4 * 6 * 10                 # the engine's, elementwise in transformers
    conv_once = 2 * (2 * 2 * 6 + 4 * 10) * 3    # q, k, v channels x kernel, counted again
    return -recurrence + conv_once


def _kimi_gap(d, n):
    recurrence = 6 * 2 * 6 * 6                  # 2 heads of 6: elementwise in transformers
    conv_once = 2 * (3 * 2 * 6) * 3             # q, k and v convolutions, counted again
    mla_reexpansion = (n - 1) * 2 * (8 * 4 * (6 + 6))   # the MLA layer's kv_b_proj per step
    return -recurrence + conv_once + mla_reexpansion


def _v4_gap(d, n):
    """Steps 12 (closes a CSA window; its 3 entries are all within index_topk = 4), 23
    (closes none; 5 CSA entries) and 24 (closes a CSA and an HCA window; 6 CSA entries)."""
    H, m, layers, heads, hd = 32, 3, 4, 4, 16
    n_csa, n_hca, csa_rate, hca_rate = 2, 1, 4, 8
    index_heads, index_dim, topk = 2, 8, 4
    # elementwise in transformers, counted by the engine: the collapse of the m streams into
    # each block's input and the block's output written into m streams (2 blocks a layer),
    # the head's collapse, each m x H multiply-adds
    streams = layers * 2 * (2 * m * H + 2 * m * H) + 2 * m * H
    # the pooling of a window this step closes: 2 x rate inputs of the entry and of the
    # indexer's key in a CSA layer, rate inputs of the entry in an HCA layer
    pooling = (n_csa * 2 * (2 * csa_rate) * (hd + index_dim) * (n % csa_rate == 0)
               + n_hca * 2 * hca_rate * hd * (n % hca_rate == 0))
    entries = n // csa_rate            # compressed entries a CSA layer holds after the step
    head_sum = n_csa * 2 * index_heads * entries   # the indexer's sum over its heads
    # transformers' eager CSA attention: q.k and the V sum over the entries it masks out too
    masked = n_csa * 2 * heads * 2 * hd * (entries - min(entries, topk))
    return -streams - pooling - head_sum + masked


def _granite_gap(d, n):
    h, p, N, k, mamba_layers = 4, 16, 6, 3, 2
    update = mamba_layers * 2 * h * p * N
    conv_once = mamba_layers * 2 * (h * p + 2 * 2 * N) * k
    return -update + conv_once


def _lfm2_gap(d, n):
    return 2 * (2 * 32 * 3)   # 2 conv layers, hidden 32, 3 taps: the convolution once more


def _qwen4_gap(d, n):
    linear_layers = 3
    recurrence = linear_layers * 6 * 4 * 8 * 6
    conv_once = linear_layers * 2 * (2 * 2 * 8 + 4 * 6) * 4
    r, budget = 2, d["indexer_budget"]
    selected = r * min(budget // r, n // r) + n % r
    masked = (n - selected) * 2 * 4 * 2 * 8            # per key: 2 x heads x (q.k + V sum)
    if budget == 4:
        assert masked > 0
    return -recurrence + conv_once + masked


def _longcat_gap(d, n):
    """With no zero experts every pick is a real expert: the engine's FLOPs plus, as for every
    MLA in transformers, the re-expansion of each cached latent (2 x num_layers sublayers)."""
    kv_b = 8 * 4 * (6 + 6)
    return 2 * d["num_layers"] * (n - 1) * 2 * kv_b


def _longcat_zero_experts(d, counted, ours):
    """With zero experts, the step lies between the fewest and the most a token can use
    (active_min, active): which, depends on where its picks land."""
    pc = lc.param_count(lc.from_hf_config(d))
    fewest = ours.total - 2 * (pc.active - pc.active_min)
    reexpansion = _longcat_gap(d, 20)
    assert fewest + reexpansion <= counted <= ours.total + reexpansion


# --- the rows ------------------------------------------------------------------------------

NEW = dict(examples=100, round_trip=True, deeper=True)   # each type its 100 random configs
OLD = dict(examples=20)
