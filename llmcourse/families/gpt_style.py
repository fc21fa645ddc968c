"""GPT-style decoders of 2018-2023: learned, sinusoidal, rotary or ALiBi positions, LayerNorms
with biases, fused or separate q/k/v, sequential or parallel blocks (GPT-1, GPT-Neo, GPT-J,
CodeGen, GPT-BigCode, BLOOM, Falcon, MPT, OPT, XGLM, BioGPT, CTRL, GPT-NeoX-Japanese,
CPM-Ant).

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a family");
the rules and builders only these families need sit beside them. Names are transformers'
state-dict names (a checkpoint saved without the base model's prefix, ``h.0...`` for
``transformer.h.0...``, loads into the same tensors). Standard library only.
"""

from .. import family_rules as rules
from ..architectures import (Layout, Tensor, _attention, _dense_mlp, _layer_norms, _linear, _norm,
                             register_block, register_outside)
from ..limits import _fail, _is_int
from .base import Family

# the keys a GPT-style config may carry that every entry here reads the same way: no KV-head
# or head_dim field of their own (one k and one v per head; a head is hidden / heads wide)
_MHA = dict(num_key_value_heads=None, head_dim=None, layer_types=None, sliding_window=None)
# a rope_if switch no config of these families sets: no rotary tables (ALiBi, sinusoidal or
# learned positions, relative-position buckets)
_NO_ROTARY = ("rotary", True)
_MHA_ONLY = dict(num_key_value_heads="transformers builds one k and one v for every head of "
                 "this family and reads no num_key_value_heads",
                 head_dim="this family's head_dim is always hidden / heads")


# --- rules -----------------------------------------------------------------------------------

def _no_alias_clash(r, raw, old, new):
    """A backward-compatible alias the config class reads in place of a field (BLOOM's and
    Falcon's n_embed for hidden_size): it wins, as the class sets it last."""
    if raw.get(old) is not None:
        r[new] = raw[old]


def n_embed_prepare(r, raw):
    """BLOOM and Falcon read n_embed (their configs' older name) as hidden_size."""
    _no_alias_clash(r, raw, "n_embed", "hidden_size")


def four_x_hidden(r, raw):
    """MLPs 4 x hidden wide: BLOOM's and MPT's always (transformers reads no width field)."""
    if _is_int(r.get("hidden_size")):
        r["intermediate_size"] = 4 * r["hidden_size"]


def bigcode_kv_heads(r, raw):
    """GPT-BigCode: one K and V head with multi_query, else one per head (GPTBigCodeConfig
    sets num_key_value_heads so, whatever a config says)."""
    r["num_key_value_heads"] = 1 if r.get("multi_query") else r.get("num_attention_heads")


def falcon_prepare(r, raw):
    """n_embed as hidden_size; FalconConfig's head_dim is a property (hidden / heads) that a
    config cannot set: transformers refuses one that tries."""
    n_embed_prepare(r, raw)
    if raw.get("head_dim") is not None:
        _fail("head_dim", "FalconConfig derives it (hidden_size / num_attention_heads); a "
              "config cannot set it", raw["head_dim"])


def falcon_derive(r, raw):
    """Falcon's variants: the new decoder architecture (Falcon-40B/180B) has num_kv_heads
    K and V heads (the head count when absent) and, in a parallel block, two LayerNorms
    unless num_ln_in_parallel_attn says one; the old one (Falcon-7B, RW) one K and V head
    with multi_query, else one per head. ffn_hidden_size defaults to 4 x hidden."""
    heads = r.get("num_attention_heads")
    if r.get("new_decoder_architecture"):
        kv = r.get("num_kv_heads")
        r["num_key_value_heads"] = heads if kv is None else kv
        if r.get("num_ln_in_parallel_attn") is None:
            r["num_ln_in_parallel_attn"] = 2
    else:
        r["num_key_value_heads"] = 1 if r.get("multi_query") else heads
    if r.get("intermediate_size") is None and _is_int(r.get("hidden_size")):
        r["intermediate_size"] = 4 * r["hidden_size"]


def falcon_check(r, head_dim):
    ln = r.get("num_ln_in_parallel_attn")
    if ln is not None and ln not in (1, 2):
        _fail("num_ln_in_parallel_attn", "must be 1 or 2 (one LayerNorm before both branches "
              "of a parallel block, or one each)", ln)


def rotary_dim_factor(r, raw):
    """GPT-J and CodeGen rotate rotary_dim of each head's dimensions."""
    rd, hidden, heads = r.get("rotary_dim"), r.get("hidden_size"), r.get("num_attention_heads")
    if not (_is_int(rd) and rd > 0):
        _fail("rotary_dim", "must be a positive whole number", rd)
    if _is_int(hidden) and _is_int(heads) and heads > 0:
        r["partial_rotary_factor"] = min(rd / (hidden // heads or 1), 1.0)


def gpt_neo_layers(r):
    """GPT-Neo: each layer "global" (full) or "local" (a window of window_size keys), as
    attention_layers lists them where a config gives that list (saved configs do, and
    GPTNeoConfig keeps it), else as attention_types expands: ([kinds], repeats) pairs, by
    default global and local in turn."""
    from ..layers import Axis
    L = r["num_hidden_layers"]
    kinds, field = r.get("attention_layers"), "attention_layers"
    if kinds is None:
        field = "attention_types"
        at = r.get("attention_types")
        at = [[["global", "local"], 12]] if at is None else at
        kinds = []
        ok = isinstance(at, list)
        for item in at if ok else ():
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], list)
                    and _is_int(item[1]) and 0 <= item[1] <= 10_000):
                ok = False
                break
            kinds += item[0] * item[1]
            if len(kinds) > 10_000:
                ok = False
                break
        if not ok:
            _fail("attention_types", 'must list [["global" or "local", ...], repeats] pairs', at)
    if not isinstance(kinds, list) or not all(k in ("global", "local") for k in kinds):
        _fail(field, 'must list "global" or "local" for each layer', kinds)
    if len(kinds) != L:
        _fail(field, f"must give one kind per layer (num_layers={L:,}, {len(kinds):,} given)",
              show_value=False)
    return dict(attention=Axis.from_list(
        ["sliding_attention" if k == "local" else "full_attention" for k in kinds], field=field))


def gpt_neo_follow_depth(attention_types, n):
    """``replace(num_hidden_layers=n)`` on GPT-Neo: its attention_types pattern (global and
    local in turn, by default) repeated to n layers, written as GPTNeoConfig reads it."""
    if attention_types is None:   # the class's default pattern, which fits 24 layers only
        attention_types = [[["global", "local"], 12]]
    kinds = []
    for item in attention_types if isinstance(attention_types, list) else ():
        if isinstance(item, list) and len(item) == 2 and _is_int(item[1]) \
                and isinstance(item[0], list) and item[1] <= 10_000:
            kinds += item[0] * item[1]
        if len(kinds) > 10_000:
            break
    if not kinds or n > 10_000:
        return attention_types   # left as given: the layer rule says what is wrong
    period = attention_types[0][0] if len(attention_types) == 1 else kinds
    if n % len(period) == 0:
        return [[list(period), n // len(period)]]
    return [[[kinds[i % len(kinds)]], 1] for i in range(n)]


def gpt_neo_prepare(r, raw):
    """GPT-Neo's intermediate_size null is 4 x hidden; its window is window_size. A null
    attention_layers is kept by GPTNeoConfig over its own expansion and then refused."""
    if "attention_layers" in raw and raw["attention_layers"] is None:
        _fail("attention_layers", "must list each layer's kind, or be left out (it is then "
              "attention_types expanded)", None)
    if r.get("intermediate_size") is None and _is_int(r.get("hidden_size")):
        r["intermediate_size"] = 4 * r["hidden_size"]


def mpt_prepare(r, raw):
    """MPT in transformers: every layer MHA with a 4 x d_model MLP and no biases, whatever
    attn_config, expansion_ratio and no_bias say. A checkpoint that differs there does not
    load into the model transformers builds: refused, naming the field."""
    ac = r.get("attn_config")
    if ac is not None and not isinstance(ac, dict):
        _fail("attn_config", "must be a JSON object or null", ac)
    ac = ac or {}
    if ac.get("attn_type", "multihead_attention") != "multihead_attention":
        _fail("attn_config.attn_type", "transformers' MPT builds multi-head attention only "
              "(one fused Wqkv, 3 x d_model); a checkpoint with another is not sized here",
              ac.get("attn_type"))
    if ac.get("qk_ln"):
        _fail("attn_config.qk_ln", "transformers' MPT builds no q/k LayerNorms; a checkpoint "
              "with them is not sized here", True)
    if ac.get("kv_n_heads") not in (None, r.get("num_attention_heads")):
        _fail("attn_config.kv_n_heads", "transformers' MPT builds one K and V head per head; a "
              "checkpoint with fewer is not sized here", ac.get("kv_n_heads"))
    if r.get("expansion_ratio") != 4:
        _fail("expansion_ratio", "transformers' MPT MLP is always 4 x d_model; a checkpoint "
              "with another ratio is not sized here", r.get("expansion_ratio"))
    if r.get("no_bias") is False:
        _fail("no_bias", "transformers' MPT builds no biases; a checkpoint with them is not "
              "sized here", False)
    four_x_hidden(r, raw)


def opt_derive(r, raw):
    """OPT's word_embed_proj_dim (null: hidden_size) is the embedding's and the head's width."""
    if r.get("word_embed_proj_dim") is None:
        r["word_embed_proj_dim"] = r.get("hidden_size")


def gpt_neox_japanese_derive(r, raw):
    """GPT-NeoX-Japanese: the MLP is hidden x intermediate_multiple_size wide."""
    m, hidden = r.get("intermediate_multiple_size"), r.get("hidden_size")
    if not (_is_int(m) and m > 0):
        _fail("intermediate_multiple_size", "must be a positive whole number", m)
    if _is_int(hidden):
        r["intermediate_size"] = hidden * m
    pct = r.get("rotary_pct")
    if pct is not None:
        r["partial_rotary_factor"] = pct


def sinusoid_width(r, head_dim):
    """XGLM's sinusoidal table spreads log(10000) over d_model / 2 - 1 frequencies: d_model
    of 2 or 3 leaves none (transformers divides by zero); its max_position_embeddings + 2
    rows zero the row of pad_token_id, which must be one of them."""
    if r["hidden_size"] < 4:
        _fail("d_model", "must be at least 4 (the sinusoidal position table's frequencies)",
              r["hidden_size"])
    pad, rows = r.get("pad_token_id"), r["max_position_embeddings"] + 2
    if _is_int(pad) and pad >= rows:
        _fail("pad_token_id", f"must be below max_position_embeddings + 2 = {rows:,} (XGLM "
              "zeroes that row of its sinusoidal position table)", pad)


def cpmant_derive(r, raw):
    """CPM-Ant: heads of dim_head, an MLP of dim_ff (its own names)."""
    r["head_dim"] = r.get("dim_head")
    r["intermediate_size"] = r.get("dim_ff")


# --- layer builders --------------------------------------------------------------------------

@register_block("parallel_or_sequential_by_config")
def _falcon_layer(c, kind):
    """A Falcon layer: fused q/k/v (heads + 2 x KV heads wide) and an output projection, a
    plain GELU MLP, biases by ``bias``; with parallel_attn, attention and MLP side by side
    after one LayerNorm, or (num_ln_in_parallel_attn 2) one each, ln_attn and ln_mlp;
    without, input_layernorm and post_attention_layernorm in turn."""
    H = c.hidden_size
    if not c.get("parallel_attn"):
        norms = ("input_layernorm", "post_attention_layernorm")
    elif c.get("num_ln_in_parallel_attn") == 2:
        norms = ("ln_attn", "ln_mlp")
    else:
        norms = ("input_layernorm",)
    return (_attention(c) + _dense_mlp(c)
            + [t for n in norms for t in _norm(n, H, "layer")])


@register_block("post_norms_maybe_weightless")
def _opt_layer(c, kind):
    """An OPT layer: q, k, v and out_proj, fc1 and fc2 in the layer itself, biased by
    enable_bias; two LayerNorms, without weight or bias when layer_norm_elementwise_affine
    is false."""
    t = _attention(c) + _dense_mlp(c)
    return t + (_layer_norms(c) if c.get("layer_norm_elementwise_affine", True) else [])


@register_block("cpmant")
def _cpmant_layer(c, kind):
    """A CPM-Ant layer: an RMS-style LayerNorm (a weight), q, k, v and attention_out without
    biases (heads of dim_head), a LayerNorm and a gated MLP (w_in.w_0, w_in.w_1, w_out)."""
    H, nh, hd, ff = c.hidden_size, c.num_attention_heads, c.head_dim, c.intermediate_size
    a, f = "self_att.", "ffn."
    return (_norm(a + "layernorm_before_attention", H)
            + _linear(a + "self_attention.project_q", nh * hd, H, "attention")
            + _linear(a + "self_attention.project_k", nh * hd, H, "attention")
            + _linear(a + "self_attention.project_v", nh * hd, H, "attention")
            + _linear(a + "self_attention.attention_out", H, nh * hd, "attention")
            + _norm(f + "layernorm_before_ffn", H)
            + _linear(f + "ffn.w_in.w_0", ff, H, "mlp") + _linear(f + "ffn.w_in.w_1", ff, H, "mlp")
            + _linear(f + "ffn.w_out", H, ff, "mlp"))


# --- outside the layers ----------------------------------------------------------------------

def _head(cfg, name, width, tied, bias=False):
    t = [Tensor(f"{name}.weight", (cfg.vocab_size, width), "lm_head", matmul=True, tied=tied)]
    return t + ([Tensor(f"{name}.bias", (cfg.vocab_size,), "lm_head")] if bias else [])


@register_outside("embedding_layernorm")
def _bloom_outside(cfg):
    """BLOOM: the word embedding, a LayerNorm right after it, the final LayerNorm, the head
    (tied by default)."""
    H, p = cfg.hidden_size, "transformer."
    return ([Tensor(p + "word_embeddings.weight", (cfg.vocab_size, H), "embedding")]
            + _norm(p + "word_embeddings_layernorm", H, "layer") + _norm(p + "ln_f", H, "layer")
            + _head(cfg, "lm_head", H, cfg.tie_word_embeddings))


@register_outside("projected_embedding")
def _opt_outside(cfg):
    """OPT: the embedding and the head word_embed_proj_dim wide, projected in and out of
    hidden_size (project_in, project_out) where that differs; learned positions with 2
    extra rows (OPT offsets positions by 2); the final LayerNorm only when the layers
    normalise first (do_layer_norm_before) and _remove_final_layer_norm is false."""
    H, P, p = cfg.hidden_size, cfg.word_embed_proj_dim, "model.decoder."
    t = [Tensor(p + "embed_tokens.weight", (cfg.vocab_size, P), "embedding"),
         Tensor(p + "embed_positions.weight", (cfg.max_position_embeddings + 2, H),
                "embedding")]
    if cfg.get("do_layer_norm_before", True) and not cfg.get("_remove_final_layer_norm"):
        if cfg.get("layer_norm_elementwise_affine", True):
            t += _norm(p + "final_layer_norm", H, "layer")
    if P != H:
        t += (_linear(p + "project_out", P, H, "mlp") + _linear(p + "project_in", H, P, "mlp"))
    return t + _head(cfg, "lm_head", P, cfg.tie_word_embeddings)


@register_outside("offset_positions")
def _biogpt_outside(cfg):
    """BioGPT: learned positions with 2 extra rows (an offset of 2, as OPT), a final
    LayerNorm, the head (output_projection, tied by default)."""
    H, p = cfg.hidden_size, "biogpt."
    return ([Tensor(p + "embed_tokens.weight", (cfg.vocab_size, H), "embedding"),
             Tensor(p + "embed_positions.weight", (cfg.max_position_embeddings + 2, H),
                    "embedding")]
            + _norm(p + "layer_norm", H, "layer")
            + _head(cfg, "output_projection", H, cfg.tie_word_embeddings))


@register_outside("last_layer_dense_bias")
def _gpt_neox_japanese_outside(cfg):
    """GPT-NeoX-Japanese: the embedding, the final LayerNorm and the head (embed_out, tied by
    default), and the one bias of the model's attention outputs: the last layer's
    attention.dense_bias (a parameter of that layer, added after its residual)."""
    H, p = cfg.hidden_size, "gpt_neox_japanese."
    last = f"{p}layers.{cfg.num_hidden_layers - 1}.attention.dense_bias"
    return ([Tensor(p + "embed_in.weight", (cfg.vocab_size, H), "embedding"),
             Tensor(last, (H,), "attention")]
            + _norm(p + "final_layer_norm", H, "layer")
            + _head(cfg, "embed_out", H, cfg.tie_word_embeddings))


@register_outside("prompt_segment_embeddings")
def _cpmant_outside(cfg):
    """CPM-Ant: the input embedding holds the vocabulary and prompt_types x prompt_length
    prompt tokens; a segment embedding; one relative-position bias table for all layers
    (position_bias_num_buckets + segment_types^2 buckets per head); the final LayerNorm
    (a weight); the head over the vocabulary alone (its own weight, not tied)."""
    H, p = cfg.hidden_size, "cpmant."
    V = cfg.vocab_size + cfg.prompt_types * cfg.prompt_length
    buckets = cfg.position_bias_num_buckets + cfg.segment_types ** 2
    return ([Tensor(p + "input_embedding.weight", (V, H), "embedding"),
             Tensor(p + "segment_embedding.weight", (cfg.segment_types, H), "embedding"),
             Tensor(p + "position_bias.relative_attention_bias",
                    (buckets, cfg.num_attention_heads), "attention")]
            + _norm(p + "encoder.output_layernorm", H)
            + _head(cfg, "lm_head", H, False))


# --- the entries -----------------------------------------------------------------------------

# the names of a GPT-2-like layer (ln_1, attn, ln_2, mlp) under transformer.h.{i}
_GPT2_NAMES = dict(layer_norms=("ln_1", "ln_2"), layer_prefix="transformer.h.{i}.",
                   embedding="transformer.wte", final_norm="transformer.ln_f", norm="layer")

ENTRIES = {
    # GPT (OpenAI GPT-1): GPT-2's Conv1D layer (fused c_attn stored in, out; a plain 4 x d
    # GELU MLP), but each LayerNorm after its sublayer and no final LayerNorm; learned
    # positions; the head tied. Defaults: OpenAIGPTConfig
    "openai-gpt": Family(
        group="GPT-2",
        layout=Layout(attention="fused_qkv", attention_prefix="attn.",
                      attention_names=("c_attn", "c_proj"), qkv_bias=True, o_bias=True,
                      stored_in_out=True, mlp="plain", mlp_names=("c_fc", "c_proj"),
                      mlp_bias=True, norm="layer", layer_norms=("ln_1", "ln_2"),
                      layer_prefix="transformer.h.{i}.", embedding="transformer.tokens_embed",
                      position_embedding="transformer.positions_embed", final_norm=None,
                      activation_field=("afn",)),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="n_embd", num_hidden_layers="n_layer",
                           num_attention_heads="n_head", max_position_embeddings="n_positions"),
        positive=("n_embd", "n_layer", "n_head", "n_positions"),
        prepare=(four_x_hidden,),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=40478, n_positions=512, n_embd=768, n_layer=12,
                      n_head=12, tie_word_embeddings=True, intermediate_size=None)),
    # GPT-BigCode (SantaCoder, StarCoder): GPT-2's layer as Linear weights (out, in), with
    # multi-query attention: one c_attn of hidden + 2 x head_dim (one K and V head) with
    # multi_query, else 3 x hidden. Defaults: GPTBigCodeConfig
    "gpt_bigcode": Family(
        group="StarCoder",
        layout=Layout(attention="fused_qkv", attention_prefix="attn.",
                      attention_names=("c_attn", "c_proj"), qkv_bias=True, o_bias=True,
                      mlp="plain", mlp_names=("c_fc", "c_proj"), mlp_bias=True,
                      position_embedding="transformer.wpe",
                      activation_field=("activation_function",), **_GPT2_NAMES),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="n_embd", num_hidden_layers="n_layer",
                           num_attention_heads="n_head", max_position_embeddings="n_positions",
                           intermediate_size="n_inner"),
        positive=("n_embd", "n_layer", "n_head", "n_positions", "n_inner"),
        prepare=(rules.gpt2_prepare,),
        derive=(bigcode_kv_heads,),
        check=(rules.no_cross_attention,),
        engine_only=dict(num_key_value_heads="GPT-BigCode's KV heads follow multi_query (1, "
                         "or one per head)", head_dim="its head_dim is always hidden / heads"),
        defaults=dict(_MHA, vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12,
                      n_head=12, n_inner=None, multi_query=True, add_cross_attention=False,
                      tie_word_embeddings=True)),
    # GPT-Neo: GPT-2's layout with q, k, v (no biases) and out_proj (biased) as Linears;
    # global and local (a window of window_size keys) layers as attention_types says.
    # Defaults: GPTNeoConfig
    "gpt_neo": Family(
        group="GPT-Neo",
        layout=Layout(attention_prefix="attn.attention.",
                      attention_names=("q_proj", "k_proj", "v_proj", "out_proj"),
                      qkv_bias=False, o_bias=True, mlp="plain", mlp_names=("c_fc", "c_proj"),
                      mlp_bias=True, position_embedding="transformer.wpe",
                      activation_field=("activation_function",), **_GPT2_NAMES),
        layers=gpt_neo_layers,
        attribute_map=dict(num_hidden_layers="num_layers", num_attention_heads="num_heads",
                           sliding_window="window_size"),
        positive=("num_layers", "num_heads", "window_size"),
        prepare=(gpt_neo_prepare,),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        depth_lists=dict(attention_types=gpt_neo_follow_depth, attention_layers="repeat"),
        defaults=dict(_MHA, vocab_size=50257, max_position_embeddings=2048, hidden_size=2048,
                      num_layers=24, num_heads=16, intermediate_size=None, window_size=256,
                      attention_types=None, attention_layers=None, tie_word_embeddings=True)),
    # GPT-J: attention and MLP side by side after one LayerNorm (ln_1); q, k, v, out_proj
    # without biases; a plain biased MLP (fc_in, fc_out); rotary on rotary_dim dimensions of
    # each head; the head has a bias and is not tied. Defaults: GPTJConfig
    "gptj": Family(
        group="GPT-J",
        layout=Layout(attention_prefix="attn.",
                      attention_names=("q_proj", "k_proj", "v_proj", "out_proj"),
                      qkv_bias=False, o_bias=False, mlp="plain", mlp_names=("fc_in", "fc_out"),
                      mlp_bias=True, norm="layer", layer_norms=("ln_1",), parallel=True,
                      layer_prefix="transformer.h.{i}.", embedding="transformer.wte",
                      final_norm="transformer.ln_f", lm_head_bias=True,
                      partial_rotary=("partial_rotary_factor", 1.0),
                      activation_field=("activation_function",)),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="n_embd", num_hidden_layers="n_layer",
                           num_attention_heads="n_head", max_position_embeddings="n_positions",
                           intermediate_size="n_inner"),
        positive=("n_embd", "n_layer", "n_head", "n_positions", "n_inner"),
        prepare=(rules.gpt2_prepare, rotary_dim_factor),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=50400, n_positions=2048, n_embd=4096, n_layer=28,
                      n_head=16, rotary_dim=64, n_inner=None, tie_word_embeddings=False)),
    # CodeGen: GPT-J's parallel layer with q, k and v fused (qkv_proj, no bias).
    # Defaults: CodeGenConfig
    "codegen": Family(
        group="GPT-J",
        layout=Layout(attention="fused_qkv", attention_prefix="attn.",
                      attention_names=("qkv_proj", "out_proj"), qkv_bias=False, o_bias=False,
                      mlp="plain", mlp_names=("fc_in", "fc_out"), mlp_bias=True, norm="layer",
                      layer_norms=("ln_1",), parallel=True, layer_prefix="transformer.h.{i}.",
                      embedding="transformer.wte", final_norm="transformer.ln_f",
                      lm_head_bias=True, partial_rotary=("partial_rotary_factor", 1.0),
                      activation_field=("activation_function",)),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="n_embd", num_hidden_layers="n_layer",
                           num_attention_heads="n_head", max_position_embeddings="n_positions",
                           intermediate_size="n_inner"),
        positive=("n_embd", "n_layer", "n_head", "n_positions", "n_inner"),
        prepare=(rules.gpt2_prepare, rotary_dim_factor),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=50400, n_positions=2048, n_embd=4096, n_layer=28,
                      n_head=16, rotary_dim=64, n_inner=None, tie_word_embeddings=False)),
    # BLOOM: ALiBi (no position tensors), a LayerNorm right after the word embedding, fused
    # biased q/k/v (query_key_value) and dense, a 4 x hidden GELU MLP, every LayerNorm
    # biased; the head tied. Defaults: BloomConfig
    "bloom": Family(
        group="BLOOM",
        layout=Layout(attention="fused_qkv", attention_prefix="self_attention.",
                      attention_names=("query_key_value", "dense"), qkv_bias=True,
                      o_bias=True, mlp="plain", mlp_names=("dense_h_to_4h", "dense_4h_to_h"),
                      mlp_bias=True, norm="layer", layer_prefix="transformer.h.{i}.",
                      outside="embedding_layernorm", rope_if=_NO_ROTARY),
        layers=rules.full_attention_layers,
        attribute_map=dict(num_hidden_layers="n_layer", num_attention_heads="n_head"),
        positive=("n_layer", "n_head"),
        prepare=(n_embed_prepare, four_x_hidden),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=250880, hidden_size=64, n_layer=2, n_head=8,
                      intermediate_size=None, tie_word_embeddings=True)),
    # Falcon: fused q/k/v and dense, a plain GELU MLP, biases by `bias`; rotary, or ALiBi
    # with `alibi`; the variants switched by the config: new_decoder_architecture (GQA with
    # num_kv_heads, two LayerNorms in the parallel block: Falcon-40B/180B), multi_query (one
    # K and V head: Falcon-7B), parallel_attn (one norm, attention and MLP side by side), or
    # neither (Falcon-RW: sequential, MHA). Defaults: FalconConfig
    "falcon": Family(
        group="Falcon",
        layout=Layout(block="parallel_or_sequential_by_config", attention="fused_qkv",
                      attention_prefix="self_attention.",
                      attention_names=("query_key_value", "dense"), qkv_bias="bias",
                      o_bias="bias", mlp="plain", mlp_names=("dense_h_to_4h", "dense_4h_to_h"),
                      mlp_bias="bias", norm="layer", parallel=True,
                      layer_prefix="transformer.h.{i}.", embedding="transformer.word_embeddings",
                      final_norm="transformer.ln_f", rope_if=("alibi", False),
                      activation_field=("activation",)),
        layers=rules.full_attention_layers,
        attribute_map=dict(intermediate_size="ffn_hidden_size",
                           num_key_value_heads="num_kv_heads"),
        positive=("num_kv_heads", "ffn_hidden_size"),
        nullable=("alibi", "new_decoder_architecture", "multi_query", "parallel_attn", "bias"),
        prepare=(falcon_prepare,),
        derive=(falcon_derive,),
        check=(falcon_check,),
        defaults=dict(layer_types=None, sliding_window=None, vocab_size=65024, hidden_size=4544,
                      num_hidden_layers=32, num_attention_heads=71, num_kv_heads=None,
                      num_ln_in_parallel_attn=None, alibi=False, new_decoder_architecture=False,
                      multi_query=True, parallel_attn=True, bias=False,
                      max_position_embeddings=2048, ffn_hidden_size=None,
                      tie_word_embeddings=True)),
    # MPT (MosaicML): ALiBi, fused Wqkv and out_proj, a 4 x d_model GELU MLP (up_proj,
    # down_proj), no biases anywhere, LayerNorms without a bias. Defaults: MptConfig
    "mpt": Family(
        group="MPT",
        layout=Layout(attention="fused_qkv", attention_prefix="attn.",
                      attention_names=("Wqkv", "out_proj"), qkv_bias=False, o_bias=False,
                      mlp="plain", mlp_prefix="ffn", mlp_names=("up_proj", "down_proj"),
                      mlp_bias=False, norm="layer_no_bias", layer_norms=("norm_1", "norm_2"),
                      layer_prefix="transformer.blocks.{i}.", embedding="transformer.wte",
                      final_norm="transformer.norm_f", rope_if=_NO_ROTARY),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="d_model", num_hidden_layers="n_layers",
                           num_attention_heads="n_heads", max_position_embeddings="max_seq_len"),
        positive=("d_model", "n_layers", "n_heads", "max_seq_len"),
        nullable=("attn_config",),
        prepare=(mpt_prepare,),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=50368, d_model=2048, n_heads=16, n_layers=24,
                      expansion_ratio=4, max_seq_len=2048, no_bias=True, attn_config=None,
                      intermediate_size=None, tie_word_embeddings=True)),
    # OPT (Meta): q, k, v, out_proj and fc1/fc2 in the layer, biased by enable_bias, ReLU;
    # the embedding and head word_embed_proj_dim wide (OPT-350m: 512, projected in and out);
    # learned positions offset by 2. Defaults: OPTConfig
    "opt": Family(
        group="OPT",
        layout=Layout(block="post_norms_maybe_weightless",
                      attention_names=("q_proj", "k_proj", "v_proj", "out_proj"),
                      qkv_bias=("enable_bias", True), o_bias=("enable_bias", True),
                      mlp="plain", mlp_prefix="", mlp_names=("fc1", "fc2"),
                      mlp_bias=("enable_bias", True), mlp_width="intermediate_size",
                      norm="layer", layer_norms=("self_attn_layer_norm", "final_layer_norm"),
                      layer_prefix="model.decoder.layers.{i}.", outside="projected_embedding",
                      position_embedding="model.decoder.embed_positions",
                      activation_field=("activation_function",)),
        layers=rules.full_attention_layers,
        attribute_map=dict(intermediate_size="ffn_dim"),
        positive=("ffn_dim", "word_embed_proj_dim"),
        derive=(opt_derive,),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=50272, hidden_size=768, num_hidden_layers=12,
                      ffn_dim=3072, max_position_embeddings=2048, do_layer_norm_before=True,
                      _remove_final_layer_norm=False, word_embed_proj_dim=None,
                      num_attention_heads=12, pad_token_id=1, enable_bias=True,
                      layer_norm_elementwise_affine=True, tie_word_embeddings=True)),
    # XGLM (Meta): OPT's layer (every projection biased, fc1/fc2 in the layer); sinusoidal
    # positions (no weights); a final LayerNorm; the head tied. Defaults: XGLMConfig
    "xglm": Family(
        group="OPT",
        layout=Layout(attention_names=("q_proj", "k_proj", "v_proj", "out_proj"),
                      qkv_bias=True, o_bias=True, mlp="plain", mlp_prefix="",
                      mlp_names=("fc1", "fc2"), mlp_bias=True, norm="layer",
                      layer_norms=("self_attn_layer_norm", "final_layer_norm"),
                      final_norm="model.layer_norm", rope_if=_NO_ROTARY,
                      activation_field=("activation_function",)),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="d_model", num_hidden_layers="num_layers",
                           num_attention_heads="attention_heads", intermediate_size="ffn_dim"),
        positive=("d_model", "num_layers", "attention_heads", "ffn_dim"),
        check=(rules.one_kv_per_head, rules.no_cross_attention, sinusoid_width),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=256008, max_position_embeddings=2048, d_model=1024,
                      ffn_dim=4096, num_layers=24, attention_heads=16, pad_token_id=1,
                      add_cross_attention=False, tie_word_embeddings=True)),
    # BioGPT (Microsoft): OPT's layer (biased), learned positions offset by 2, a final
    # LayerNorm, the head (output_projection) tied. Defaults: BioGptConfig
    "biogpt": Family(
        group="OPT",
        layout=Layout(attention_names=("q_proj", "k_proj", "v_proj", "out_proj"),
                      qkv_bias=True, o_bias=True, mlp="plain", mlp_prefix="",
                      mlp_names=("fc1", "fc2"), mlp_bias=True, norm="layer",
                      layer_norms=("self_attn_layer_norm", "final_layer_norm"),
                      layer_prefix="biogpt.layers.{i}.", outside="offset_positions",
                      position_embedding="biogpt.embed_positions"),
        layers=rules.full_attention_layers,
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=42384, hidden_size=1024, num_hidden_layers=24,
                      num_attention_heads=16, intermediate_size=4096,
                      max_position_embeddings=1024, pad_token_id=1, tie_word_embeddings=True)),
    # CTRL (Salesforce): sinusoidal positions (no weights), biased Wq, Wk, Wv and dense, a
    # ReLU MLP (ffn.0, ffn.2), LayerNorms before each; the head tied, with its own bias.
    # Defaults: CTRLConfig
    "ctrl": Family(
        group="CTRL",
        layout=Layout(attention_prefix="multi_head_attention.",
                      attention_names=("Wq", "Wk", "Wv", "dense"), qkv_bias=True, o_bias=True,
                      mlp="plain", mlp_prefix="ffn", mlp_names=("0", "2"), mlp_bias=True,
                      norm="layer", layer_norms=("layernorm1", "layernorm2"),
                      layer_prefix="transformer.h.{i}.", embedding="transformer.w",
                      final_norm="transformer.layernorm", lm_head_bias=True,
                      rope_if=_NO_ROTARY),
        layers=rules.full_attention_layers,
        attribute_map=dict(hidden_size="n_embd", num_hidden_layers="n_layer",
                           num_attention_heads="n_head", max_position_embeddings="n_positions",
                           intermediate_size="dff"),
        positive=("n_embd", "n_layer", "n_head", "n_positions", "dff"),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=246534, n_positions=256, n_embd=1280, dff=8192,
                      n_layer=48, n_head=16, tie_word_embeddings=True)),
    # GPT-NeoX-Japanese (ABEJA): GPT-NeoX's fused query_key_value and dense without biases,
    # except one bias on the last layer's attention output (dense_bias); an MLP of
    # hidden x intermediate_multiple_size without biases; rotary on rotary_pct of each
    # head. Defaults: GPTNeoXJapaneseConfig
    "gpt_neox_japanese": Family(
        group="Pythia",
        layout=Layout(attention="fused_qkv", attention_prefix="attention.",
                      attention_names=("query_key_value", "dense"), qkv_bias=False,
                      o_bias=False, mlp="plain", mlp_names=("dense_h_to_4h", "dense_4h_to_h"),
                      mlp_bias=False, norm="layer", layer_prefix="gpt_neox_japanese.layers.{i}.",
                      outside="last_layer_dense_bias",
                      partial_rotary=("partial_rotary_factor", 1.0)),
        layers=rules.full_attention_layers,
        derive=(gpt_neox_japanese_derive,),
        check=(rules.one_kv_per_head,),
        engine_only=_MHA_ONLY,
        defaults=dict(_MHA, vocab_size=32000, hidden_size=2560, num_hidden_layers=32,
                      num_attention_heads=32, intermediate_multiple_size=4,
                      intermediate_size=None, max_position_embeddings=2048,
                      tie_word_embeddings=True)),
    # CPM-Ant (OpenBMB): pre-norm layers of q, k, v and attention_out without biases and a
    # gated GELU MLP, RMS-style norms (a weight); T5-style relative-position buckets (one
    # table for all layers), a segment embedding and prompt tokens in the input embedding.
    # Defaults: CpmAntConfig
    "cpmant": Family(
        group="CPM",
        layout=Layout(block="cpmant", layer_prefix="cpmant.encoder.layers.{i}.",
                      outside="prompt_segment_embeddings", rope_if=_NO_ROTARY),
        layers=rules.full_attention_layers,
        positive=("dim_head", "dim_ff", "prompt_types", "prompt_length", "segment_types",
                  "position_bias_num_buckets"),
        derive=(cpmant_derive,),
        engine_only=dict(num_key_value_heads="CPM-Ant builds one k and one v for every head",
                         head_dim="CPM-Ant's head width is dim_head"),
        defaults=dict(_MHA, vocab_size=30720, hidden_size=4096, num_attention_heads=32,
                      dim_head=128, dim_ff=10240, num_hidden_layers=48, intermediate_size=None,
                      position_bias_num_buckets=512, prompt_types=32, prompt_length=32,
                      segment_types=32, tie_word_embeddings=True)),
}
