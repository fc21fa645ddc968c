"""Decoders whose causal LM takes images as built into the model: Fuyu (a linear embedding of
image patches beside Persimmon), GOT-OCR 2.0 (a SAM image encoder beside Qwen2), Llama 3.2
Vision (cross-attention layers and a tiled image encoder), Gemma 3n's language model, and the
decoder types whose parts the course does not size (refused in one line: BLT, Gemma 3n whole,
GIT, HRM-Text, Phi-4-multimodal).

Each entry is a :class:`~llmcourse.families.Family` or :class:`~llmcourse.families.Wrapper`
(CONTRIBUTING.md, "Adding a family"); the towers they add are registered with
:func:`llmcourse.towers.register_tower`. Standard library only.
"""

from ..architectures import (Layout, Tensor, _linear, _norm, _swiglu, register_block,
                             register_matmul_extra, register_outside)
from ..layers import Axis
from ..limits import MAX_LIST, MAX_SIZE, _fail, _is_int
from ..towers import Tower, register_tower
from .base import _COMMON, Family, Wrapper

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

# --- GOT-OCR 2.0: a SAM image encoder ----------------------------------------------------------

def _sam_encoder(v, w, text_hidden):
    """GOT-OCR 2.0's vision tower, SAM's ViT encoder: a patch convolution (biased), learned
    absolute positions (one per patch of the image_size grid, use_abs_pos), layers of a fused
    qkv (biased by qkv_bias) and a biased output projection with decomposed relative positions
    (rel_pos_h, rel_pos_w: 2 x size - 1 rows of head_dim, use_rel_pos; size the window for the
    windowed layers, the patch grid for those in global_attn_indexes), LayerNorms and a plain
    GELU MLP (lin1, lin2); a neck of two convolutions and LayerNorms into output_channels. The
    projector: two strided 3 x 3 convolutions up to the language model's width and a biased
    matrix. Names as the hub checkpoint stores them (LLaVA's: vision_tower.*)."""
    H, I, C, p = v["hidden_size"], v["mlp_dim"], v["num_channels"], v["patch_size"]
    n, out, hd = v["image_size"] // p, v["output_channels"], H // v["num_attention_heads"]
    c, t, j = "vision", "vision_tower.", "multi_modal_projector."
    ts = [Tensor(t + "patch_embed.projection.weight", (H, C, p, p), c, matmul=True),
          Tensor(t + "patch_embed.projection.bias", (H,), c)]
    if v["use_abs_pos"]:
        ts.append(Tensor(t + "pos_embed", (1, n, n, H), c))
    glob = set(v["global_attn_indexes"])
    for i in range(v["num_hidden_layers"]):
        a = f"{t}layers.{i}."
        ts += [Tensor(a + "layer_norm1.weight", (H,), c), Tensor(a + "layer_norm1.bias", (H,), c)]
        if v["use_rel_pos"]:
            size = n if i in glob or not v["window_size"] else v["window_size"]
            ts += [Tensor(a + "attn.rel_pos_h", (2 * size - 1, hd), c),
                   Tensor(a + "attn.rel_pos_w", (2 * size - 1, hd), c)]
        ts += [Tensor(a + "attn.qkv.weight", (3 * H, H), c, matmul=True)]
        if v["qkv_bias"]:
            ts.append(Tensor(a + "attn.qkv.bias", (3 * H,), c))
        ts += [Tensor(a + "attn.proj.weight", (H, H), c, matmul=True),
               Tensor(a + "attn.proj.bias", (H,), c),
               Tensor(a + "layer_norm2.weight", (H,), c), Tensor(a + "layer_norm2.bias", (H,), c),
               Tensor(a + "mlp.lin1.weight", (I, H), c, matmul=True),
               Tensor(a + "mlp.lin1.bias", (I,), c),
               Tensor(a + "mlp.lin2.weight", (H, I), c, matmul=True),
               Tensor(a + "mlp.lin2.bias", (H,), c)]
    k = t + "neck."
    ts += [Tensor(k + "conv1.weight", (out, H, 1, 1), c, matmul=True),
           Tensor(k + "layer_norm1.weight", (out,), c), Tensor(k + "layer_norm1.bias", (out,), c),
           Tensor(k + "conv2.weight", (out, out, 3, 3), c, matmul=True),
           Tensor(k + "layer_norm2.weight", (out,), c), Tensor(k + "layer_norm2.bias", (out,), c)]
    return ts + [Tensor(j + "conv_upsampler1.weight", (2 * out, out, 3, 3), c, matmul=True),
                 Tensor(j + "conv_upsampler2.weight", (text_hidden, 2 * out, 3, 3), c,
                        matmul=True),
                 Tensor(j + "multimodal_projector.weight", (text_hidden, text_hidden), c,
                        matmul=True),
                 Tensor(j + "multimodal_projector.bias", (text_hidden,), c)]


def _sam_check(v, prefix):
    if v["hidden_size"] % v["num_attention_heads"]:
        _fail(f"{prefix}.hidden_size", "must be divisible by "
              f"{prefix}.num_attention_heads={v['num_attention_heads']}", v["hidden_size"])
    g = v["global_attn_indexes"]
    if not isinstance(g, (list, tuple)) or not all(_is_int(i) for i in g):
        _fail(f"{prefix}.global_attn_indexes", "must list layer indices (the layers that "
              "attend over the whole image)", g)
    if v["image_size"] < v["patch_size"]:
        _fail(f"{prefix}.image_size", f"must hold at least one patch ({prefix}.patch_size="
              f"{v['patch_size']})", v["image_size"])


register_tower("sam_vision", Tower(
    key="vision_config", component="vision", label="SAM vision (GOT-OCR 2.0)",
    build=_sam_encoder,
    positive=("hidden_size", "output_channels", "num_attention_heads", "num_channels",
              "image_size", "patch_size", "mlp_dim"),
    counts=("num_hidden_layers", "window_size"), flags=("qkv_bias", "use_abs_pos", "use_rel_pos"),
    defaults=dict(hidden_size=768, output_channels=256, num_hidden_layers=12,
                  num_attention_heads=12, num_channels=3, image_size=1024, patch_size=16,
                  qkv_bias=True, use_abs_pos=True, use_rel_pos=True, window_size=14,
                  global_attn_indexes=[2, 5, 8, 11], mlp_dim=3072)),
    check=_sam_check)

# --- Gemma 3n's language model ---------------------------------------------------------------

def gemma3n_prepare(r, raw):
    """intermediate_size may list one width per layer: the course reads a list whose widths
    are all equal (every released Gemma 3n) as that width, and refuses one that differs."""
    inter = r.get("intermediate_size")
    if isinstance(inter, list):
        L = r.get("num_hidden_layers")
        if _is_int(L) and len(inter) != L:
            _fail("intermediate_size", f"must give one width for every layer ({L:,}) or one "
                  "for all", f"{len(inter):,} widths", show_value=True)
        if not inter or any(v != inter[0] for v in inter):
            _fail("intermediate_size", "per-layer MLP widths that differ are not sized by the "
                  "course (every released Gemma 3n has one width)", show_value=False)
        r["intermediate_size"] = inter[0]
    asp = r.get("activation_sparsity_pattern")
    if isinstance(asp, list) and _is_int(r.get("num_hidden_layers")) \
            and len(asp) != r["num_hidden_layers"]:
        _fail("activation_sparsity_pattern", "must give one value for every layer "
              f"({r['num_hidden_layers']:,})", f"{len(asp):,} values", show_value=True)


def gemma3n_layers(r):
    """Gemma 3n: four sliding-window layers to one full layer (or layer_types); the last
    num_kv_shared_layers layers reuse the K and V of the last earlier layer of their kind
    (which must exist: transformers refuses a kind only shared layers have)."""
    L, n = r["num_hidden_layers"], r["num_kv_shared_layers"]
    lt = r.get("layer_types")
    if lt is None:
        attn = Axis.cycle(("sliding_attention", 4), ("full_attention", 1), field="layer_types")
        first = ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention"
                 for i in range(min(L, MAX_LIST))]
    else:
        if not isinstance(lt, list) or len(lt) != L or not all(
                v in ("sliding_attention", "full_attention") for v in lt):
            _fail("layer_types", "must list sliding_attention or full_attention for each of the "
                  f"{L:,} layers", lt)
        attn, first = Axis.from_list(lt, field="layer_types"), list(lt)
    if n > L:
        _fail("num_kv_shared_layers", f"cannot exceed num_hidden_layers={L:,}", n)
    if n and L <= MAX_LIST and set(first[:L - n]) != set(first[:L]):
        _fail("num_kv_shared_layers", "the layers before the shared ones must include every "
              "attention kind (transformers: the set of layer types producing a cache is "
              "different than the set using them)", n)
    r["layer_types"] = None   # read here
    return dict(attention=attn, kv_shared=Axis.cycle((True, 1), prefix=[(False, L - n)],
                                                     field="num_kv_shared_layers"))


@register_block("altup_laurel_kv_shared")
def _gemma3n_layer(c, kind):
    """A Gemma 3n layer: q and an RMSNorm over each head's q; k, v and k's norm only in a
    layer that computes its own K and V (a KV-shared layer reads an earlier layer's; v's
    norm has no weight); o; a GeGLU MLP; Gemma's four norms. AltUp (altup_num_inputs
    streams): a router (modality_router after its norm), the prediction and correction
    coefficient matrices and a correction scale; LAuReL: a low-rank (laurel_rank) residual
    beside attention and its norm; the per-layer embedding's gate, projection and norm."""
    H, nh, kv, hd = c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim
    bias, n, r = c.get("attention_bias", False), c.altup_num_inputs, c.laurel_rank
    hpl = c.hidden_size_per_layer_input
    a = "self_attn."
    t = _linear(a + "q_proj", nh * hd, H, "attention", bias) + _norm(a + "q_norm", hd)
    if not kind.kv_shared:
        t += (_linear(a + "k_proj", kv * hd, H, "attention", bias)
              + _linear(a + "v_proj", kv * hd, H, "attention", bias) + _norm(a + "k_norm", hd))
    t += _linear(a + "o_proj", H, nh * hd, "attention", bias)
    t += _swiglu("mlp", H, c.intermediate_size, "mlp")
    for name in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                 "post_feedforward_layernorm"):
        t += _norm(name, H)
    t += ([Tensor("altup.correct_output_scale", (H,), "norms")]
          + _linear("altup.correction_coefs", n, n, "norms")
          + _linear("altup.prediction_coefs", n * n, n, "norms")
          + _linear("altup.modality_router", n, H, "norms") + _norm("altup.router_norm", H))
    t += (_linear("laurel.linear_left", r, H, "attention")
          + _linear("laurel.linear_right", H, r, "attention") + _norm("laurel.post_laurel_norm", H))
    return (t + _linear("per_layer_input_gate", hpl, H, "mlp")
            + _linear("per_layer_projection", H, hpl, "mlp")
            + _norm("post_per_layer_input_norm", H))


@register_matmul_extra("altup_stream_mixing")
def _altup_flops(cfg):
    """AltUp's work per token beyond its weights once, in every layer: the router runs twice
    (to predict and to correct: 2 x altup_num_inputs x hidden FLOPs more), and the prediction
    mixes the altup_num_inputs streams by an n x n matrix (2 x n x n x hidden)."""
    n, H = cfg.altup_num_inputs, cfg.hidden_size
    return cfg.num_hidden_layers * (2 * n * H + 2 * n * n * H)


@register_outside("altup_per_layer_embeddings")
def _gemma3n_outside(cfg):
    """Gemma 3n outside the layers: the token embedding; the per-layer embeddings (a second
    table of hidden_size_per_layer_input values per layer, projected from the token embedding
    too, normed); altup_num_inputs - 1 projections that make the extra AltUp streams and as
    many that fold them back before the final norm; the head, tied by default."""
    H, V, L = cfg.hidden_size, cfg.vocab_size, cfg.num_hidden_layers
    hpl, n = cfg.hidden_size_per_layer_input, cfg.altup_num_inputs
    t = [Tensor("model.embed_tokens.weight", (V, H), "embedding"),
         Tensor("model.embed_tokens_per_layer.weight", (cfg.vocab_size_per_layer_input, L * hpl),
                "embedding")]
    t += (_linear("model.per_layer_model_projection", L * hpl, H, "mlp")
          + _norm("model.per_layer_projection_norm", hpl))
    for k in ("altup_projections", "altup_unembed_projections"):
        for i in range(n - 1):
            t += _linear(f"model.{k}.{i}", H, H, "norms")
    return t + _norm("model.norm", H) + [Tensor("lm_head.weight", (V, H), "lm_head", matmul=True,
                                                tied=cfg.tie_word_embeddings)]


def gemma3n_check(r, head_dim):
    pad = r.get("pad_token_id")
    if _is_int(pad) and pad >= r["vocab_size_per_layer_input"]:
        _fail("pad_token_id", "must be below vocab_size_per_layer_input="
              f"{r['vocab_size_per_layer_input']:,} (the per-layer embedding's padding row)", pad)
    if r["hidden_size"] % r["num_attention_heads"]:
        _fail("hidden_size", f"must be divisible by num_attention_heads="
              f"{r['num_attention_heads']} (a Gemma 3n rule, even with head_dim given)",
              r["hidden_size"])


# --- Llama 3.2 Vision (mllama) ------------------------------------------------------------------

def mllama_head_dim(r, raw):
    """Llama 3.2 Vision's attention heads are hidden_size / num_attention_heads wide, whatever
    a config's head_dim says (transformers reads none)."""
    if _is_int(r.get("hidden_size")) and _is_int(r.get("num_attention_heads")) \
            and r["num_attention_heads"] > 0:
        r["head_dim"] = r["hidden_size"] // r["num_attention_heads"]


def mllama_layers(r):
    """Llama 3.2 Vision's language model: cross-attention layers at cross_attention_layers
    (by default 3, 8, ..., 38), self-attention layers elsewhere."""
    L = r["num_hidden_layers"]
    cal = r.get("cross_attention_layers")
    cal = [3, 8, 13, 18, 23, 28, 33, 38] if cal is None else cal
    if not isinstance(cal, list) or len(cal) > MAX_LIST or not all(_is_int(i) for i in cal):
        _fail("cross_attention_layers", "must list layer indices", cal)
    return dict(attention=Axis.constant("full_attention", field="cross_attention_layers")
                .override(sorted({i for i in cal if 0 <= i < L}), "cross_attention"))


@register_block("self_or_cross_attention")
def _mllama_layer(c, kind):
    """A Llama 3.2 Vision text layer: Llama's (q, k, v, o, a SwiGLU MLP, two RMSNorms), or in
    a cross-attention layer the same projections under cross_attn, an RMSNorm over each head's
    q and k, and a tanh gate (one scalar) on the attention and on the MLP output."""
    H, nh, kv, hd = c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.head_dim
    a = "cross_attn." if kind.attention == "cross_attention" else "self_attn."
    t = (_linear(a + "q_proj", nh * hd, H, "attention")
         + _linear(a + "k_proj", kv * hd, H, "attention")
         + _linear(a + "v_proj", kv * hd, H, "attention")
         + _linear(a + "o_proj", H, nh * hd, "attention"))
    if kind.attention == "cross_attention":
        t += (_norm(a + "q_norm", hd) + _norm(a + "k_norm", hd)
              + [Tensor("cross_attn_attn_gate", (1,), "attention"),
                 Tensor("cross_attn_mlp_gate", (1,), "mlp")])
    return (t + _swiglu("mlp", H, c.intermediate_size, "mlp")
            + _norm("input_layernorm", H) + _norm("post_attention_layernorm", H))


@register_outside("vocab_plus_image_tokens")
def _mllama_outside(cfg):
    """The embedding holds the vocabulary and 8 more rows (the image tokens); the head
    predicts the vocabulary alone, so it is never tied (transformers leaves it untied even
    with tie_word_embeddings: the shapes differ)."""
    H, V = cfg.hidden_size, cfg.vocab_size
    return ([Tensor("model.embed_tokens.weight", (V + 8, H), "embedding")] + _norm("model.norm", H)
            + [Tensor("lm_head.weight", (V, H), "lm_head", matmul=True)])


@register_matmul_extra("text_tokens_skip_cross_attention")
def _mllama_text_flops(cfg):
    """Without an image transformers skips the cross-attention layers: a text token's step
    uses none of their weights (with an image their q, o and MLP run on it too, and k and v
    on the image's states: the course does not size an image's work)."""
    from ..architectures import layer_groups
    return -2 * sum(t.numel * g.count for g in layer_groups(cfg) if g.kind.attention
                    == "cross_attention" for t in g.tensors if t.matmul)


def _mllama_vision(v, w, text_hidden):
    """Llama 3.2 Vision's image encoder: a patch convolution (no bias), a class embedding, a
    gated position table (one row per patch and the class token) and a gated tile-position
    table (every tile's patches, one row per supported aspect ratio and none), gated
    pre- and post-tile position embeddings, LayerNorms before and after; num_hidden_layers
    local layers (q, k, v, o without biases, a biased GELU MLP fc1 and fc2, two LayerNorms)
    and num_global_layers gated global layers (a tanh gate on attention and on the MLP). The
    projector: one biased matrix from vision_output_dim (the final and intermediate layers'
    states concatenated) into the language model."""
    H, I, C, p = v["hidden_size"], v["intermediate_size"], v["num_channels"], v["patch_size"]
    tiles, rows = v["max_num_tiles"], len(v["supported_aspect_ratios"]) + 1
    patches = (v["image_size"] // p) ** 2 + 1
    c, t = "vision", "vision_model."
    out = [Tensor(t + "patch_embedding.weight", (H, C, p, p), c, matmul=True),
           Tensor(t + "class_embedding", (H,), c),
           Tensor(t + "gated_positional_embedding.gate", (1,), c),
           Tensor(t + "gated_positional_embedding.embedding", (patches, H), c),
           Tensor(t + "gated_positional_embedding.tile_embedding.weight",
                  (rows, tiles * patches * H), c)]
    for e in ("pre_tile_positional_embedding", "post_tile_positional_embedding"):
        out += [Tensor(f"{t}{e}.gate", (1,), c),
                Tensor(f"{t}{e}.embedding.weight", (rows, tiles * H), c)]
    for n in ("layernorm_pre", "layernorm_post"):
        out += [Tensor(f"{t}{n}.weight", (H,), c), Tensor(f"{t}{n}.bias", (H,), c)]

    def layer(a):
        ts = []
        for x in ("q_proj", "k_proj", "v_proj", "o_proj"):
            ts.append(Tensor(f"{a}self_attn.{x}.weight", (H, H), c, matmul=True))
        ts += [Tensor(a + "mlp.fc1.weight", (I, H), c, matmul=True),
               Tensor(a + "mlp.fc1.bias", (I,), c),
               Tensor(a + "mlp.fc2.weight", (H, I), c, matmul=True),
               Tensor(a + "mlp.fc2.bias", (H,), c)]
        for n in ("input_layernorm", "post_attention_layernorm"):
            ts += [Tensor(f"{a}{n}.weight", (H,), c), Tensor(f"{a}{n}.bias", (H,), c)]
        return ts
    out += _tower_layers(layer(t + "transformer.layers.{e}."), v["num_hidden_layers"])
    g = t + "global_transformer.layers.{e}."
    gates = [Tensor(g + "gate_attn", (1,), c), Tensor(g + "gate_ffn", (1,), c)]
    out += _tower_layers(layer(g) + gates, v["num_global_layers"])
    return out + [Tensor("multi_modal_projector.weight", (text_hidden, v["vision_output_dim"]), c,
                         matmul=True),
                  Tensor("multi_modal_projector.bias", (text_hidden,), c)]


def _mllama_vision_check(v, prefix):
    if v["hidden_size"] % v["attention_heads"]:
        _fail(f"{prefix}.hidden_size", f"must be divisible by {prefix}.attention_heads="
              f"{v['attention_heads']}", v["hidden_size"])
    sar = v["supported_aspect_ratios"]
    if not isinstance(sar, list) or len(sar) > MAX_LIST:
        _fail(f"{prefix}.supported_aspect_ratios", "must list [width, height] tile counts", sar)
    if sar == _MLLAMA_RATIOS and v["max_num_tiles"] != 4:
        _fail(f"{prefix}.max_num_tiles", "must be 4 with the default supported_aspect_ratios "
              "(as MllamaVisionConfig requires)", v["max_num_tiles"])


_MLLAMA_RATIOS = [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]]


register_tower("mllama_vision", Tower(
    key="vision_config", component="vision", label="Llama 3.2 Vision", build=_mllama_vision,
    model_type="mllama_vision_model",
    positive=("hidden_size", "intermediate_size", "attention_heads", "num_channels",
              "image_size", "patch_size", "max_num_tiles", "vision_output_dim"),
    counts=("num_hidden_layers", "num_global_layers"),
    defaults=dict(hidden_size=1280, num_hidden_layers=32, num_global_layers=8, attention_heads=16,
                  num_channels=3, intermediate_size=5120, vision_output_dim=7680, image_size=448,
                  patch_size=14, max_num_tiles=4, supported_aspect_ratios=_MLLAMA_RATIOS)),
    check=_mllama_vision_check)


def _tower_layers(tensors, n):
    """A tower layer's tensors (named with {e}) repeated n times (llmcourse.towers._layers)."""
    from ..towers import _layers
    return _layers(tensors, n)


ENTRIES = {
    # Llama 3.2 Vision's language model: Llama's layers, and gated cross-attention layers
    # (cross_attention_layers) reading the image's states; 8 image-token rows in the
    # embedding. Without an image transformers skips the cross-attention layers: FLOPs and
    # cache are a text token's (the layers hold no text token's K and V). Defaults:
    # MllamaTextConfig
    "mllama_text_model": Family(
        group="Llama",
        layout=Layout(block="self_or_cross_attention", outside="vocab_plus_image_tokens",
                      matmul_extra="text_tokens_skip_cross_attention"),
        layers=mllama_layers,
        attention_kinds=("full_attention", "cross_attention"),
        derive=(mllama_head_dim,),
        engine_only=dict(tie_word_embeddings="the head (vocab_size rows) and the embedding "
                         "(vocab_size + 8) differ in shape: transformers never ties them",
                         head_dim="transformers' heads are hidden_size / num_attention_heads "
                         "wide; it reads no head_dim"),
        defaults=dict(_COMMON, vocab_size=128256, hidden_size=4096, num_hidden_layers=40,
                      num_attention_heads=32, num_key_value_heads=8, intermediate_size=14336,
                      max_position_embeddings=131072, tie_word_embeddings=False,
                      cross_attention_layers=None, pad_token_id=128004)),
    # Gemma 3n's language model (E2B, E4B): Gemma's layer with AltUp streams, a LAuReL
    # low-rank residual, per-layer embeddings and K and V shared by the last
    # num_kv_shared_layers layers; sliding and full layers. Defaults: Gemma3nTextConfig
    "gemma3n_text": Family(
        group="Gemma",
        layout=Layout(block="altup_laurel_kv_shared", outside="altup_per_layer_embeddings",
                      qk_norm="shared", final_norm="model.norm", final_softcap=True,
                      matmul_extra="altup_stream_mixing"),
        layers=gemma3n_layers,
        positive=("vocab_size_per_layer_input", "hidden_size_per_layer_input",
                  "altup_num_inputs", "laurel_rank"),
        non_negative=("num_kv_shared_layers",),
        never_null=("sliding_window",),
        prepare=(gemma3n_prepare,),
        check=(gemma3n_check,),
        defaults=dict(_COMMON, vocab_size=262400, hidden_size=2048, intermediate_size=16384,
                      num_hidden_layers=35, num_attention_heads=8, num_key_value_heads=2,
                      head_dim=256, max_position_embeddings=32768, pad_token_id=0,
                      tie_word_embeddings=True, sliding_window=512,
                      vocab_size_per_layer_input=262144, hidden_size_per_layer_input=256,
                      altup_num_inputs=4, num_kv_shared_layers=15, laurel_rank=64,
                      activation_sparsity_pattern=None)),
}

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
    # Llama 3.2 Vision (Meta): its language model with cross-attention layers, and its
    # tiled image encoder with a projector
    "mllama": Wrapper("mllama_text_model", towers=("mllama_vision",), names=_LLAVA_NAMES,
                      tie=None),
    # GOT-OCR 2.0 (StepFun): Qwen2's decoder and SAM's image encoder with a convolutional
    # projector; the head tied by the wrapper's tie_word_embeddings
    "got_ocr2": Wrapper("qwen2", towers=("sam_vision",), names=_LLAVA_NAMES, tie=True,
                        text_absent=dict(vocab_size=151860, hidden_size=1024,
                                         intermediate_size=2816, num_hidden_layers=24,
                                         num_attention_heads=16, num_key_value_heads=16,
                                         max_position_embeddings=32768,
                                         use_sliding_window=False, sliding_window=4096,
                                         max_window_layers=21)),
}

#: decoder types with a part the course does not size: refused in one line naming it
NOT_SIZED = {
    "blt": "its byte-level local encoder and decoder (cross-attending to patches of bytes), "
           "hashed byte n-gram embeddings and entropy patcher are not sized by the course",
    "gemma3n": "its MobileNet-V5 vision tower (a timm model) is not sized by the course",
    "git": "its image encoder (a CLIP vision model whose tokens the BERT-style decoder reads "
           "bidirectionally) is not sized by the course",
    "hrm_text": "its hierarchical recurrence (the L and H stacks rerun L_cycles x H_cycles and "
                "H_cycles times per token, each run caching its own K and V) is not sized by "
                "the course",
    "phi4_multimodal": "its conformer speech encoder (relative-position attention, GLU "
                       "convolutions, two projections into the language model) is not sized "
                       "by the course",
}
