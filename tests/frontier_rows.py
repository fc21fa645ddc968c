"""The random configs, tiny models and decode steps of 2026's decoders
(llmcourse/families/frontier.py): what tests/families/<type>.py hands the exactness test
(tests/family_rows.py has the shared ones). Standard library, hypothesis and llmcourse only.

Every gap below is the work transformers' reference code does beyond (or short of) the
engine's FLOP count, derived by hand from the modeling code:

* MLA (A.X-K2, Hy4, dots3-note): the re-expansion of every cached latent through kv_b_proj
  at every step, (n - 1) x 2 x |kv_b_proj| per layer (tests/family_rows.py, _mla_reexpansion).
* Hy4's hyper-connections: the coefficient weights are matmuls, counted alike; the collapse
  of the streams into a block's input and the write-back of its output (m x H multiply-adds
  each, two blocks a layer), and the head's collapse, are elementwise: the engine counts
  them, PyTorch does not.
* MiniMax-M3's eager block-sparse attention scores every key and masks those outside the
  kept blocks; the engine counts only the kept ones, as the block-sparse kernel computes.
"""

from hypothesis import strategies as st

d8 = st.integers(1, 8)


def _maybe(draw, d, key, strategy):
    if draw(st.booleans()):
        d[key] = draw(strategy)


def _gqa(draw, mt, kv_max=3):
    kv = draw(st.integers(1, kv_max))
    L = draw(st.integers(1, 6))
    d = {"model_type": mt, "vocab_size": draw(st.integers(16, 200)),
         "hidden_size": 4 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": kv * draw(st.integers(1, 3)), "num_key_value_heads": kv,
         "head_dim": 2 * draw(d8), "max_position_embeddings": 64,
         "tie_word_embeddings": draw(st.booleans())}
    return d, L


def _experts(draw, d, field="num_experts", top_k=None):
    E = draw(st.integers(1, 6))
    d[field] = E
    d["num_experts_per_tok"] = top_k or draw(st.integers(1, E))
    d["moe_intermediate_size"] = 2 * draw(d8)
    return E


def _kinds(draw, L, values):
    return draw(st.lists(st.sampled_from(values), min_size=L, max_size=L))


@st.composite
def kolibri1_configs(draw):
    d, L = _gqa(draw, "kolibri1")
    _experts(draw, d, draw(st.sampled_from(["num_experts", "num_local_experts"])))
    d["shared_expert_intermediate_size"] = 2 * draw(d8)
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["full_attention", "sliding_attention"])
    d["sliding_window"] = draw(st.one_of(st.none(), st.integers(1, 32)))
    return d


@st.composite
def laguna_configs(draw):
    d, L = _gqa(draw, "laguna")
    _experts(draw, d)
    d.update(intermediate_size=2 * draw(d8), shared_expert_intermediate_size=2 * draw(d8),
             attention_bias=draw(st.booleans()),
             gating=draw(st.sampled_from([True, False, "per-head", "per-element"])))
    kv = d["num_key_value_heads"]
    if draw(st.booleans()):
        d["num_attention_heads_per_layer"] = [kv * draw(st.integers(1, 4)) for _ in range(L)]
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["full_attention", "sliding_attention"])
        d["sliding_window"] = draw(st.integers(1, 32))
    if draw(st.booleans()):
        d["mlp_layer_types"] = _kinds(draw, L, ["dense", "sparse"])
    return d


@st.composite
def hy_v3_configs(draw):
    d, L = _gqa(draw, "hy_v3")
    _experts(draw, d, draw(st.sampled_from(["num_experts", "num_local_experts"])))
    d.update(intermediate_size=2 * draw(d8), num_shared_experts=draw(st.integers(0, 2)),
             mlp_bias=draw(st.booleans()), attention_bias=draw(st.booleans()))
    if draw(st.booleans()):
        d["mlp_layer_types"] = _kinds(draw, L, ["dense", "sparse"])
    return d


@st.composite
def flint_configs(draw):
    d, L = _gqa(draw, "flint")
    _experts(draw, d)
    d.update(intermediate_size=2 * draw(d8), shared_expert_intermediate_size=2 * draw(d8),
             attention_bias=draw(st.booleans()))
    _maybe(draw, d, "decoder_sparse_step", st.integers(1, 3))
    _maybe(draw, d, "mlp_only_layers", st.lists(st.integers(0, L - 1), unique=True, max_size=L))
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["full_attention", "sliding_attention"])
    d["sliding_window"] = draw(st.integers(1, 32))
    return d


@st.composite
def beam_configs(draw):
    d, L = _gqa(draw, "beam")
    E = draw(st.sampled_from([2, 4, 6]))
    d.update(num_experts=E, num_experts_per_tok=draw(st.integers(1, E)),
             moe_intermediate_size=2 * draw(d8), n_group=draw(st.sampled_from([1, 2])),
             topk_group=1, intermediate_size=2 * draw(d8), attention_bias=draw(st.booleans()))
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["full_attention", "sliding_attention"])
    _maybe(draw, d, "sliding_window", st.integers(1, 32))
    if draw(st.booleans()):
        d["mlp_layer_types"] = _kinds(draw, L, ["dense", "sparse"])
    return d


@st.composite
def mimo_configs(draw):
    d, L = _gqa(draw, "mimo_v2_flash", kv_max=2)
    d["num_attention_heads"] = 2 * d["num_key_value_heads"] * draw(st.integers(1, 2))
    _experts(draw, d, draw(st.sampled_from(["n_routed_experts", "num_local_experts"])))
    d.update(intermediate_size=2 * draw(d8), v_head_dim=2 * draw(d8),
             attention_bias=draw(st.booleans()))
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["full_attention", "sliding_attention"])
    if draw(st.booleans()):
        d["mlp_layer_types"] = _kinds(draw, L, ["dense", "sparse"])
    _maybe(draw, d, "sliding_window_size", st.integers(1, 32))
    return d


@st.composite
def minimax_m3_configs(draw):
    d, L = _gqa(draw, "minimax_m3_vl_text")
    E = draw(st.integers(1, 6))
    d.update(num_local_experts=E, num_experts_per_tok=draw(st.integers(1, E)),
             intermediate_size=2 * draw(d8), dense_intermediate_size=2 * draw(d8),
             shared_intermediate_size=2 * draw(d8), index_n_heads=draw(st.integers(1, 3)),
             index_head_dim=2 * draw(d8), index_block_size=draw(st.integers(1, 8)),
             index_topk_blocks=draw(st.integers(1, 4)))
    sparse = _kinds(draw, L, [0, 1])
    mlp = _kinds(draw, L, [0, 1])
    if draw(st.booleans()):   # the hub's form
        d["sparse_attention_config"] = {"sparse_attention_freq": sparse,
                                        "sparse_num_index_heads": d.pop("index_n_heads")}
        d["moe_layer_freq"] = mlp
    else:
        d["layer_types"] = ["minimax_m3_sparse" if s else "full_attention" for s in sparse]
        d["mlp_layer_types"] = ["sparse" if m else "dense" for m in mlp]
    return d


def _mla(draw, mt, heads=None):
    L = draw(st.integers(1, 5))
    h = heads or draw(st.integers(1, 4))
    d = {"model_type": mt, "vocab_size": draw(st.integers(16, 200)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "moe_intermediate_size": 2 * draw(d8), "num_hidden_layers": L,
         "num_attention_heads": h, "num_key_value_heads": h, "kv_lora_rank": 2 * draw(d8),
         "q_lora_rank": 2 * draw(d8), "qk_rope_head_dim": 2 * draw(st.integers(1, 4)),
         "qk_nope_head_dim": 2 * draw(d8), "v_head_dim": 2 * draw(d8),
         "max_position_embeddings": 64, "tie_word_embeddings": draw(st.booleans()),
         "attention_bias": draw(st.booleans()), "pad_token_id": 0}
    E = draw(st.sampled_from([2, 4, 6]))
    d.update(n_routed_experts=E, num_experts_per_tok=draw(st.integers(1, E)),
             n_shared_experts=draw(st.integers(1, 2)), n_group=1, topk_group=1)
    return d, L


def _index(draw, d):
    d.update(index_n_heads=draw(st.integers(1, 3)), index_topk=draw(st.integers(1, 16)),
             index_head_dim=d["qk_rope_head_dim"] + 2 * draw(st.integers(0, 3)))


@st.composite
def axk1_configs(draw):
    d, L = _mla(draw, "axk1")
    if draw(st.booleans()):
        d["mlp_layer_types"] = _kinds(draw, L, ["dense", "sparse"])
    else:
        _maybe(draw, d, "first_k_dense_replace", st.integers(0, L))
        _maybe(draw, d, "moe_layer_freq", st.integers(1, 3))
    return d


@st.composite
def axk2_configs(draw):
    d, L = _mla(draw, "axk2")
    _index(draw, d)
    d["gated_norm_rank"] = draw(d8)
    groups = draw(st.sampled_from([None, 1, 2]))
    d.update(n_group=groups, topk_group=None if groups is None else draw(st.integers(1, groups)))
    if draw(st.booleans()):
        d["mlp_layer_types"] = _kinds(draw, L, ["dense", "sparse"])
    else:
        _maybe(draw, d, "first_k_dense_replace", st.integers(0, L))
    return d


@st.composite
def hy_v4_configs(draw):
    d, L = _mla(draw, "hy_v4")
    _index(draw, d)
    d["hc_mult"] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        d["indexer_types"] = ["full"] + _kinds(draw, L - 1, ["full", "shared"])
    if draw(st.booleans()):
        d["mlp_layer_types"] = _kinds(draw, L, ["dense", "sparse"])
    return d


@st.composite
def dots3_configs(draw, mt="dots3_note_text"):
    d, L = _mla(draw, mt)
    if mt == "dots3_note":   # the width its default vision and audio adapters write
        d["hidden_size"] = 5120
        if draw(st.booleans()):   # the form transformers saves: the text model nested
            d = {"model_type": mt, "text_config": dict(d, model_type="dots3_note_text")}
            inner = d["text_config"]
            _index(draw, inner)
            inner["index_head_dim"] = max(inner["index_head_dim"], 8)
            inner["shared_experts_intermediate_size"] = 2 * draw(d8)
            inner["qk_rope_head_dim"] = min(inner["qk_rope_head_dim"], 8)
            return d
    _index(draw, d)
    d["index_head_dim"] = max(d["index_head_dim"], 8)
    d["shared_experts_intermediate_size"] = 2 * draw(d8)
    d["qk_rope_head_dim"] = min(d["qk_rope_head_dim"], 8)
    swa_heads = draw(st.integers(1, 4))
    swa_nope = 2 * draw(d8)
    d.update(swa_num_attention_heads=swa_heads, swa_num_key_value_heads=swa_heads,
             swa_q_lora_rank=2 * draw(d8), swa_kv_lora_rank=2 * draw(d8),
             swa_qk_nope_head_dim=swa_nope, swa_v_head_dim=2 * draw(d8),
             swa_head_dim=swa_nope + 2 * draw(st.integers(1, 4)),
             sliding_window=draw(st.integers(2, 32)))
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["indexed_attention", "sliding_attention"])
    if draw(st.booleans()):
        d["first_k_dense_replace"] = draw(st.integers(0, L))
    if draw(st.booleans()):
        d["moe_layer_freq"] = _kinds(draw, L, [0, 1])
    return d


# --- tiny models: their caches after a CPU prefill ------------------------------------------

MIMO_TINY = {"model_type": "mimo_v2_flash", "vocab_size": 64, "hidden_size": 32,
             "intermediate_size": 24, "moe_intermediate_size": 8, "num_hidden_layers": 3,
             "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 12,
             "v_head_dim": 6, "n_routed_experts": 4, "num_experts_per_tok": 2,
             "sliding_window": 16,
             "layer_types": ["full_attention", "sliding_attention", "full_attention"]}
LAGUNA_TINY = {"model_type": "laguna", "vocab_size": 64, "hidden_size": 32,
               "intermediate_size": 24, "moe_intermediate_size": 8,
               "shared_expert_intermediate_size": 12, "num_hidden_layers": 3,
               "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
               "num_attention_heads_per_layer": [2, 4, 6], "num_experts": 4,
               "num_experts_per_tok": 2, "sliding_window": 16,
               "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]}
MINIMAX_M3_TINY = {"model_type": "minimax_m3_vl_text", "vocab_size": 64, "hidden_size": 32,
                   "intermediate_size": 8, "dense_intermediate_size": 24,
                   "shared_intermediate_size": 12, "num_hidden_layers": 3,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
                   "rotary_dim": 4, "num_local_experts": 4, "num_experts_per_tok": 2,
                   "index_n_heads": 2, "index_head_dim": 8, "index_block_size": 4,
                   "index_topk_blocks": 2, "index_local_blocks": 1,
                   "layer_types": ["full_attention", "minimax_m3_sparse", "minimax_m3_sparse"],
                   "mlp_layer_types": ["dense", "sparse", "sparse"]}
_MLA_BASE = {"vocab_size": 64, "pad_token_id": 0, "hidden_size": 32, "intermediate_size": 24,
             "moe_intermediate_size": 8, "num_hidden_layers": 3, "num_attention_heads": 4,
             "num_key_value_heads": 4, "kv_lora_rank": 8, "q_lora_rank": 12,
             "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6,
             "n_routed_experts": 4, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1,
             "index_n_heads": 2, "index_head_dim": 8, "index_topk": 64}
AXK2_TINY = dict(_MLA_BASE, model_type="axk2", gated_norm_rank=4)
HY_V4_TINY = dict(_MLA_BASE, model_type="hy_v4", hc_mult=2, num_hidden_layers=4,
                  indexer_types=["full", "shared", "full", "shared"])
DOTS3_TINY = dict(_MLA_BASE, model_type="dots3_note_text", shared_experts_intermediate_size=8,
                  num_hidden_layers=4, sliding_window=16,
                  layer_types=["indexed_attention", "indexed_attention", "sliding_attention",
                               "indexed_attention"],
                  swa_num_attention_heads=2, swa_num_key_value_heads=2, swa_q_lora_rank=10,
                  swa_kv_lora_rank=6, swa_head_dim=12, swa_qk_nope_head_dim=8,
                  swa_v_head_dim=4)


# --- decode steps -----------------------------------------------------------------------------

def _kv_b(d, heads=None, rank=None, nope=None, v=None):
    return ((rank or d["kv_lora_rank"]) * (heads or d["num_attention_heads"])
            * ((nope or d["qk_nope_head_dim"]) + (v or d["v_head_dim"])))


def mla_reexpansion(d, n):
    """Every MLA layer re-expands the n - 1 cached latents through kv_b_proj."""
    return d["num_hidden_layers"] * (n - 1) * 2 * _kv_b(d)


def hy_v4_gap(d, n):
    """The re-expansion, less the streams' elementwise collapse and write-back (two blocks
    a layer, 2 x m x H each) and the head's collapse (2 x m x H)."""
    m, H, layers = d["hc_mult"], d["hidden_size"], d["num_hidden_layers"]
    streams = layers * 2 * (2 * m * H + 2 * m * H) + 2 * m * H
    return mla_reexpansion(d, n) - streams


def dots3_gap(d, n):
    """The re-expansion in each layer, the sliding layer's at its own heads and ranks over
    the window - 1 latents its cache keeps between steps."""
    total = 0
    for kind in d["layer_types"]:
        if kind == "sliding_attention":   # its cache holds the last window - 1 latents
            kv_b = _kv_b(d, d["swa_num_attention_heads"], d["swa_kv_lora_rank"],
                         d["swa_qk_nope_head_dim"], d["swa_v_head_dim"])
            total += (min(n, d["sliding_window"]) - 1) * 2 * kv_b
        else:
            total += (n - 1) * 2 * _kv_b(d)
    return total


def minimax_m3_gap(d, n):
    """The keys outside the kept blocks that eager attention scores and masks: with blocks
    of 4 and 2 kept (the query's own and one more), a query at n = 20 keeps 4 + 4 keys of
    20; 12 masked per sparse layer, 2 x heads x (head_dim + head_dim) FLOPs each."""
    B, T = d["index_block_size"], d["index_topk_blocks"]
    kept = n if n <= T * B else (T - 1) * B + (n - 1) % B + 1
    sparse = d["layer_types"].count("minimax_m3_sparse")
    return sparse * (n - kept) * 2 * d["num_attention_heads"] * 2 * d["head_dim"]


# --- ZAYA1, Inkling, Inkling 2, Cohere Compass, Gemma 4 unified --------------------------------

@st.composite
def zaya_configs(draw):
    d, L = _gqa(draw, "zaya")
    d["head_dim"] = 2 * d["head_dim"]   # v is two halves of head_dim
    E = draw(st.integers(1, 6))
    d.update(num_experts=E, num_experts_per_tok=1, moe_intermediate_size=2 * draw(d8),
             router_hidden_size=draw(st.integers(2, 12)), cca_time0=draw(st.integers(1, 3)),
             cca_time1=draw(st.integers(1, 3)), attention_bias=draw(st.booleans()),
             lm_head_bias=draw(st.booleans()), pad_token_id=0)
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["hybrid", "hybrid_sliding"])
        d["sliding_window"] = draw(st.integers(1, 32))
    return d


def _inkling_common(draw, mt):
    d, L = _gqa(draw, mt)
    swa_kv = draw(st.integers(1, 2))
    d.update(swa_num_key_value_heads=swa_kv, swa_num_attention_heads=swa_kv * draw(
        st.integers(1, 3)), swa_head_dim=2 * draw(d8), sliding_window_size=draw(
        st.integers(2, 24)), d_rel=draw(st.integers(1, 6)), rel_extent=draw(st.integers(1, 24)),
        conv_kernel_size=draw(st.integers(1, 4)), n_routed_experts=draw(st.integers(1, 6)),
        moe_intermediate_size=2 * draw(d8), pad_token_id=0)
    d["num_experts_per_tok"] = draw(st.integers(1, d["n_routed_experts"]))
    return d, L


@st.composite
def inkling_configs(draw):
    d, L = _inkling_common(draw, "inkling_text")
    d.update(intermediate_size=2 * draw(d8), n_shared_experts=draw(st.integers(1, 2)))
    form = draw(st.sampled_from(["types", "local", "default"]))
    if form == "types":
        d["layer_types"] = _kinds(draw, L, ["hybrid", "hybrid_sliding"])
    elif form == "local":
        d["local_layer_ids"] = draw(st.lists(st.integers(0, L - 1), unique=True, max_size=L))
    if draw(st.booleans()):   # the hub's spelling: the dense MLP's width apart
        d["dense_intermediate_size"] = 2 * draw(d8)
        d["dense_mlp_idx"] = draw(st.integers(0, L))
    elif draw(st.booleans()):
        d["mlp_layer_types"] = _kinds(draw, L, ["dense", "sparse"])
    if draw(st.booleans()):
        d["sconv_kernel_size"] = d.pop("conv_kernel_size")
    return d


@st.composite
def inkling2_configs(draw):
    d, L = _inkling_common(draw, "inkling2_text")
    d["n_layers_per_attn_res_block"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["hybrid", "hybrid_sliding"])
    return d


@st.composite
def cohere_compass_configs(draw):
    kv = draw(st.integers(1, 3))
    heads = kv * draw(st.integers(1, 3))
    L = draw(st.integers(1, 5))
    d = {"model_type": "cohere_compass_text", "vocab_size": draw(st.integers(16, 200)),
         "hidden_size": heads * 2 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads, "num_key_value_heads": kv,
         "max_position_embeddings": 64, "attention_bias": draw(st.booleans()),
         "tie_word_embeddings": draw(st.booleans()), "sliding_window": draw(st.integers(1, 32))}
    types = ["full_attention"] * L
    if draw(st.booleans()):
        types = _kinds(draw, L, ["full_attention", "sliding_attention"])
        d["layer_types"] = types
    rope = {"rope_type": "default", "rope_theta": 10000.0}
    d["rope_parameters"] = {t: (None if t == "full_attention" and draw(st.booleans()) else rope)
                            for t in set(types)}
    if draw(st.booleans()):   # transformers overwrites a given head_dim
        d["head_dim"] = 2 * draw(d8)
    return d


@st.composite
def gemma4_unified_configs(draw, wrapper=False):
    L = draw(st.integers(1, 7))
    kv = draw(st.integers(1, 2))
    heads = kv * draw(st.integers(1, 3))
    d = {"model_type": "gemma4_unified_text", "vocab_size": draw(st.integers(2, 100)),
         "hidden_size": 4 * draw(d8), "intermediate_size": 2 * draw(d8),
         "num_hidden_layers": L, "num_attention_heads": heads, "num_key_value_heads": kv,
         "head_dim": 2 * draw(d8), "global_head_dim": 2 * draw(d8),
         "attention_k_eq_v": draw(st.booleans()), "use_double_wide_mlp": draw(st.booleans()),
         "tie_word_embeddings": draw(st.booleans()), "pad_token_id": 0,
         "sliding_window": draw(st.integers(2, 64)),
         "use_bidirectional_attention": draw(st.sampled_from(["vision", "all", None]))}
    if draw(st.booleans()):
        d["layer_types"] = _kinds(draw, L, ["sliding_attention", "full_attention"])
    if d["attention_k_eq_v"] and draw(st.booleans()):
        d["num_global_key_value_heads"] = draw(st.sampled_from(
            [g for g in range(1, heads + 1) if heads % g == 0]))
    if L >= 3 and draw(st.booleans()):
        d.update(layer_types=["sliding_attention", "full_attention"] * (L // 2) + (
            ["sliding_attention"] if L % 2 else []),
            num_kv_shared_layers=draw(st.integers(0, L - 2)))
    if draw(st.booleans()):   # a Gemma 4 text config's keys the unified model builds nothing of
        d.update(hidden_size_per_layer_input=4, vocab_size_per_layer_input=16,
                 enable_moe_block=True)
    if not wrapper:
        return d
    w = {"model_type": "gemma4_unified", "text_config": d}
    if draw(st.booleans()):
        w["vision_config"] = {"patch_size": draw(st.integers(1, 4)),
                              "pooling_kernel_size": draw(st.integers(1, 3)),
                              "mm_embed_dim": 2 * draw(d8), "mm_posemb_size": draw(d8),
                              "output_proj_dims": 2 * draw(d8)}
    if draw(st.booleans()):
        w["audio_config"] = {"audio_embed_dim": 2 * draw(d8)}
    _maybe(draw, w, "tie_word_embeddings", st.booleans())
    return w


ZAYA_TINY = {"model_type": "zaya", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
             "num_experts": 4, "num_experts_per_tok": 1, "moe_intermediate_size": 8,
             "router_hidden_size": 8, "cca_time0": 2, "cca_time1": 3, "sliding_window": 16,
             "layer_types": ["hybrid", "hybrid_sliding"]}
INKLING_TINY = {"model_type": "inkling_text", "vocab_size": 64, "pad_token_id": 0,
                "hidden_size": 32, "num_hidden_layers": 3, "num_attention_heads": 4,
                "num_key_value_heads": 2, "head_dim": 8, "swa_num_attention_heads": 2,
                "swa_num_key_value_heads": 1, "swa_head_dim": 6, "sliding_window_size": 16,
                "d_rel": 4, "rel_extent": 12, "conv_kernel_size": 3, "n_routed_experts": 4,
                "num_experts_per_tok": 2, "n_shared_experts": 1, "moe_intermediate_size": 8,
                "intermediate_size": 24,
                "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding"],
                "mlp_layer_types": ["dense", "sparse", "sparse"]}
INKLING2_TINY = {"model_type": "inkling2_text", "vocab_size": 64, "pad_token_id": 0,
                 "hidden_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "head_dim": 8, "swa_num_attention_heads": 2,
                 "swa_num_key_value_heads": 1, "swa_head_dim": 6, "sliding_window_size": 16,
                 "d_rel": 4, "rel_extent": 12, "conv_kernel_size": 3, "n_routed_experts": 4,
                 "num_experts_per_tok": 2, "moe_intermediate_size": 8,
                 "n_layers_per_attn_res_block": 2,
                 "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding", "hybrid"]}
GEMMA4_UNIFIED_TINY = {"model_type": "gemma4_unified_text", "vocab_size": 64, "pad_token_id": 0,
                       "hidden_size": 32, "intermediate_size": 24, "num_hidden_layers": 6,
                       "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
                       "global_head_dim": 16, "sliding_window": 16,
                       "layer_types": ["sliding_attention", "full_attention"] * 3,
                       "num_kv_shared_layers": 2, "attention_k_eq_v": True,
                       "num_global_key_value_heads": 1}


def zaya_gap(d, n):
    """transformers' decode step convolves the cached (cca_time0 - 1) + (cca_time1 - 1)
    positions and the new one depthwise, cca_time1 outputs where the engine counts the one
    the grouped convolution reads: 2 x channels x cca_time0 x (cca_time1 - 1) more a layer."""
    C = (d["num_attention_heads"] + d["num_key_value_heads"]) * d["head_dim"]
    return d["num_hidden_layers"] * 2 * C * d["cca_time0"] * (d["cca_time1"] - 1)


def _sconv_channels(d, sliding):
    kv = d["swa_num_key_value_heads"] if sliding else d["num_key_value_heads"]
    hd = d["swa_head_dim"] if sliding else d["head_dim"]
    return kv * hd


def inkling_gap(d, n):
    """transformers' decode convolves its conv_kernel_size cached inputs and the new one
    without padding, two outputs, keeping the last: each of a layer's four short
    convolutions once more (k and v: KV heads x head_dim channels, the two outputs:
    hidden_size)."""
    K, H = d["conv_kernel_size"], d["hidden_size"]
    return sum(2 * K * (2 * _sconv_channels(d, t == "hybrid_sliding") + 2 * H)
               for t in d["layer_types"])


def inkling2_gap(d, n):
    """As Inkling's for its static short convolutions (a sliding layer's four, a full
    layer's two on the outputs), less a full layer's dynamic k and v convolutions, whose
    per-token taps multiply elementwise (the engine counts K multiply-adds per channel), and
    less the attention residuals: FlopCounterMode has no formula for the CPU kernel that
    runs their 4-D scaled_dot_product_attention. By hand for the tiny model (4 layers,
    a block every 2, hidden 32; a query over s states costs 2 x 2 x 32 x s): layer 0's MLP
    input over 2 states (256); layer 1's 3 attention queries over 2 (768) and its MLP input
    over 2 (256); layer 2's over 2 (256) and 3 (384); layer 3's 3 over 3 (1152) and 1 over
    3 (384); the final one over 3 (384): 3,840."""
    K, H = d["conv_kernel_size"], d["hidden_size"]
    gap = 0
    for t in d["layer_types"]:
        if t == "hybrid_sliding":
            gap += 2 * K * (2 * _sconv_channels(d, True) + 2 * H)
        else:
            gap += 2 * K * 2 * H - 2 * K * 2 * _sconv_channels(d, False)
    assert (d["num_hidden_layers"], d["n_layers_per_attn_res_block"], H) == (4, 2, 32)
    return gap - 3840
