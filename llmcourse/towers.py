"""The vision and audio towers of multimodal wrappers, tensor by tensor.

A multimodal wrapper (Gemma 3 and 4, Llama 4, Mistral 3, Qwen3.5, Kimi K2.5, ...) holds a
language model (its ``text_config``) and one or two encoders beside it: a vision tower that
turns image patches into vectors, an audio tower for sound, each with a projector (or
"embedder") into the language model's hidden size. transformers builds all of them, and the
checkpoint stores them, so the engine counts them: each tower kind here reads the wrapper's
``vision_config`` or ``audio_config`` with its transformers ``*Config`` class's defaults for
missing keys (as :mod:`llmcourse.families` keeps a text family's) and returns its
:class:`~llmcourse.architectures.Tensor` rows, named as the checkpoint names them, component
``"vision"`` or ``"audio"`` (the projector counted with its tower). Which kinds a wrapper
has is its :class:`~llmcourse.families.Wrapper` entry's ``towers``.

A tower's layers are identical: a layer's tensor is one row with ``{e}`` in its name and
``per_expert`` its layer count (the same expansion ``weight_shapes`` gives experts).
Standard library only.
"""

from __future__ import annotations

from typing import NamedTuple

from .architectures import Tensor
from .limits import MAX_SIZE, ConfigError, _fail, _is_int, show

__all__ = ["Tower", "TOWERS", "resolve_towers", "tower_tensors", "checkpoint_name",
           "register_tower"]


class Tower(NamedTuple):
    """One kind of tower: where its config sits, its class's defaults, its builder."""
    #: the wrapper's key holding its config ("vision_config", "audio_config")
    key: str
    #: the parameter component its tensors count under ("vision", "audio")
    component: str
    #: what the course calls it in a refusal or a note ("SigLIP vision")
    label: str
    #: ``(v, w, text_hidden) -> [Tensor]``: v its resolved config, w the wrapper's own fields
    build: object
    #: the defaults of its transformers ``*Config`` class (a config given as an object
    #: fills what it leaves out from these)
    defaults: dict
    #: what transformers adds for a config that is absent or null (a ``SubConfigSpec``'s
    #: init_kwargs); a given object does not get these
    absent: dict = {}
    #: the only ``model_type`` its config may name (None: the wrapper's class reads any
    #: given one as this tower's); a config without one is read as this type
    model_type: str | None = None
    #: absent or null builds no tower (Gemma 4's vision and audio)
    optional: bool = False
    #: the config class's own names for standard keys (attribute_map: standard -> own);
    #: given both, the standard one wins, as transformers sets it last
    aliases: dict = {}
    #: fields that must be positive whole numbers
    positive: tuple = ()
    #: fields that must be whole numbers, zero or more (layer counts)
    counts: tuple = ()
    #: fields that must be true or false
    flags: tuple = ()
    #: the wrapper's own fields it reads, with the wrapper class's defaults
    wrapper: dict = {}


# --- helpers ----------------------------------------------------------------------------

def _w(name, out_f, in_f, component, bias=False):
    t = [Tensor(f"{name}.weight", (out_f, in_f), component, matmul=True)]
    if bias:
        t.append(Tensor(f"{name}.bias", (out_f,), component))
    return t


def _norm(name, dim, component, bias=False):
    t = [Tensor(f"{name}.weight", (dim,), component)]
    if bias:
        t.append(Tensor(f"{name}.bias", (dim,), component))
    return t


# the field a layer's count goes in: each tensor is rebuilt as a tuple, a third of the time of
# Tensor._replace (a wrapper's towers are built on every cold count)
_PER_EXPERT = Tensor._fields.index("per_expert")


def _layers(tensors, n):
    """A layer's tensors (named with ``{e}``) repeated n times: one row each, its count in
    ``per_expert``; none when n is 0, the index written in when n is 1."""
    if n == 0:
        return []
    new, i = tuple.__new__, _PER_EXPERT
    if n == 1:
        return [new(Tensor, (t.name.format(e=0),) + t[1:]) for t in tensors]
    return [new(Tensor, t[:i] + (n,) + t[i + 1:]) for t in tensors]


def _divides(v, key, by, prefix):
    if v[key] % v[by]:
        raise ConfigError(f"{prefix}.{key}: must be divisible by {prefix}.{by} (got "
                          f"{v[key]:,} and {v[by]:,})")


# --- SigLIP (Gemma 3) -------------------------------------------------------------------------

def _siglip(v, w, text_hidden):
    """Gemma 3's SigLIP vision tower (transformers' SiglipVisionModel) and its projector:
    a patch convolution and learned positions, pre-norm encoder layers of LayerNorms with
    biases, biased q, k, v and out projections and a plain GELU MLP (fc1, fc2), a final
    LayerNorm, and, with vision_use_head, an attention-pooling head (a probe, a fused
    in-projection, a LayerNorm and an MLP). The projector: one matrix stored
    (vision hidden, text hidden), no bias, after an RMSNorm. Names as Gemma 3's
    checkpoints store them (transformers loads vision_tower.vision_model.* as
    model.vision_tower.*)."""
    H, I, C, p = v["hidden_size"], v["intermediate_size"], v["num_channels"], v["patch_size"]
    c, t = "vision", "vision_tower.vision_model."
    positions = (v["image_size"] // p) ** 2
    out = [Tensor(t + "embeddings.patch_embedding.weight", (H, C, p, p), c, matmul=True),
           Tensor(t + "embeddings.patch_embedding.bias", (H,), c),
           Tensor(t + "embeddings.position_embedding.weight", (positions, H), c)]
    layer = (_norm(t + "encoder.layers.{e}.layer_norm1", H, c, True)
             + _w(t + "encoder.layers.{e}.self_attn.k_proj", H, H, c, True)
             + _w(t + "encoder.layers.{e}.self_attn.v_proj", H, H, c, True)
             + _w(t + "encoder.layers.{e}.self_attn.q_proj", H, H, c, True)
             + _w(t + "encoder.layers.{e}.self_attn.out_proj", H, H, c, True)
             + _norm(t + "encoder.layers.{e}.layer_norm2", H, c, True)
             + _w(t + "encoder.layers.{e}.mlp.fc1", I, H, c, True)
             + _w(t + "encoder.layers.{e}.mlp.fc2", H, I, c, True))
    out += _layers(layer, v["num_hidden_layers"])
    out += _norm(t + "post_layernorm", H, c, True)
    if v["vision_use_head"]:
        out += [Tensor(t + "head.probe", (1, 1, H), c),
                Tensor(t + "head.attention.in_proj_weight", (3 * H, H), c, matmul=True),
                Tensor(t + "head.attention.in_proj_bias", (3 * H,), c)]
        out += (_w(t + "head.attention.out_proj", H, H, c, True)
                + _norm(t + "head.layernorm", H, c, True)
                + _w(t + "head.mlp.fc1", I, H, c, True) + _w(t + "head.mlp.fc2", H, I, c, True))
    return out + [Tensor("multi_modal_projector.mm_input_projection_weight", (H, text_hidden),
                         c, matmul=True),
                  Tensor("multi_modal_projector.mm_soft_emb_norm.weight", (H,), c)]


def _siglip_check(v, prefix):
    _divides(v, "hidden_size", "num_attention_heads", prefix)


# --- Gemma 4 ----------------------------------------------------------------------------------

def _clipped(name, out_f, in_f, component, clipped):
    """Gemma 4's clippable linear: its weight under .linear and, with use_clipped_linears,
    four scalar clamp bounds stored beside it (buffers, not parameters)."""
    t = [Tensor(f"{name}.{b}", (), component, buffer=True)
         for b in ("input_min", "input_max", "output_min", "output_max")] if clipped else []
    return t + [Tensor(f"{name}.linear.weight", (out_f, in_f), component, matmul=True)]


def _gemma4_vision(v, w, text_hidden):
    """Gemma 4's vision encoder: a linear patch embedding and a two-axis position table,
    encoder layers like its text layers (four RMSNorms; q, k and v with an RMSNorm over each
    head's q and k; a gated MLP), every linear clippable, and, with standardize, a stored
    mean and scale (buffers). Its embedder into the language model: one matrix, after a
    weightless RMSNorm."""
    H, I, hd = v["hidden_size"], v["intermediate_size"], v["head_dim"]
    nh, kv, p, clip = (v["num_attention_heads"], v["num_key_value_heads"], v["patch_size"],
                       v["use_clipped_linears"])
    c, t = "vision", "model.vision_tower."
    out = [Tensor(t + "patch_embedder.input_proj.weight", (H, 3 * p * p), c, matmul=True),
           Tensor(t + "patch_embedder.position_embedding_table",
                  (2, v["position_embedding_size"], H), c)]
    a, m = t + "encoder.layers.{e}.self_attn.", t + "encoder.layers.{e}.mlp."
    layer = (_clipped(a + "q_proj", nh * hd, H, c, clip) + _clipped(a + "k_proj", kv * hd, H, c, clip)
             + _clipped(a + "v_proj", kv * hd, H, c, clip) + _clipped(a + "o_proj", H, nh * hd, c, clip)
             + _norm(a + "q_norm", hd, c) + _norm(a + "k_norm", hd, c)
             + _clipped(m + "gate_proj", I, H, c, clip) + _clipped(m + "up_proj", I, H, c, clip)
             + _clipped(m + "down_proj", H, I, c, clip))
    for n in ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
              "post_feedforward_layernorm"):
        layer += _norm(t + "encoder.layers.{e}." + n, H, c)
    out += _layers(layer, v["num_hidden_layers"])
    if v["standardize"]:
        out += [Tensor(t + "std_bias", (H,), c, buffer=True),
                Tensor(t + "std_scale", (H,), c, buffer=True)]
    # the embedder reads output_proj_dims where the config has one (an audio config's key)
    width = v.get("output_proj_dims") or H
    return out + [Tensor("model.embed_vision.embedding_projection.weight", (text_hidden, width),
                         c, matmul=True)]


def _gemma4_audio(v, w, text_hidden):
    """Gemma 4's audio encoder (a Universal Speech Model conformer): two strided 3 x 3
    convolutions with LayerNorms (no bias) and a linear projection subsample the
    spectrogram; each conformer layer is a feed-forward half-step, chunked self-attention
    (q, k, v and post projections, a relative-position key projection, a learned scale per
    head dimension), a light convolution block (a GLU projection, a depthwise causal
    convolution, norms) and a second feed-forward half-step, with RMSNorms; every linear
    but the relative-position one clippable. Then an output projection with a bias, and
    the embedder into the language model: one matrix."""
    H, heads, out_dims, clip = (v["hidden_size"], v["num_attention_heads"],
                                v["output_proj_dims"], v["use_clipped_linears"])
    c0, c1 = v["subsampling_conv_channels"][:2]
    hd = H // heads
    c, t = "audio", "model.audio_tower."
    s = t + "subsample_conv_projection."
    out = [Tensor(s + "layer0.conv.weight", (c0, 1, 3, 3), c, matmul=True),
           Tensor(s + "layer0.norm.weight", (c0,), c),
           Tensor(s + "layer1.conv.weight", (c1, c0, 3, 3), c, matmul=True),
           Tensor(s + "layer1.norm.weight", (c1,), c),
           Tensor(s + "input_proj_linear.weight", (H, (c0 // 4) * c1), c, matmul=True)]
    L = t + "layers.{e}."
    layer = []
    for ff in ("feed_forward1", "feed_forward2"):
        layer += (_clipped(L + ff + ".ffw_layer_1", 4 * H, H, c, clip)
                  + _clipped(L + ff + ".ffw_layer_2", H, 4 * H, c, clip)
                  + _norm(L + ff + ".pre_layer_norm", H, c) + _norm(L + ff + ".post_layer_norm", H, c))
    a = L + "self_attn."
    layer += ([Tensor(a + "per_dim_scale", (hd,), c)]
              + _clipped(a + "q_proj", heads * hd, H, c, clip)
              + _clipped(a + "k_proj", heads * hd, H, c, clip)
              + _clipped(a + "v_proj", heads * hd, H, c, clip)
              + _clipped(a + "post", H, H, c, clip)
              + _w(a + "relative_k_proj", heads * hd, H, c))
    lc_ = L + "lconv1d."
    layer += (_clipped(lc_ + "linear_start", 2 * H, H, c, clip) + _clipped(lc_ + "linear_end", H, H, c, clip)
              + [Tensor(lc_ + "depthwise_conv1d.weight", (H, 1, v["conv_kernel_size"]), c,
                        matmul=True)]
              + _norm(lc_ + "pre_layer_norm", H, c) + _norm(lc_ + "conv_norm", H, c))
    for n in ("norm_pre_attn", "norm_post_attn", "norm_out"):
        layer += _norm(L + n, H, c)
    out += _layers(layer, v["num_hidden_layers"])
    out += _w(t + "output_proj", out_dims, H, c, True)
    return out + [Tensor("model.embed_audio.embedding_projection.weight", (text_hidden, out_dims),
                         c, matmul=True)]


def _gemma4_audio_check(v, prefix):
    ch = v["subsampling_conv_channels"]
    if not isinstance(ch, (list, tuple)) or len(ch) < 2 or not all(
            _is_int(x) and 0 < x <= MAX_SIZE for x in ch[:2]):
        _fail(f"{prefix}.subsampling_conv_channels", "must be a list of two positive whole "
              "numbers (the two subsampling convolutions' channels)", ch)


def _gemma4_unified_vision(v, w, text_hidden):
    """Gemma 4 unified's vision embedder (no encoder layers): a LayerNorm over each
    (patch_size x pooling_kernel_size)-square RGB patch, a dense projection to mm_embed_dim,
    a LayerNorm, a two-axis position table with its LayerNorm (all LayerNorms with biases),
    and the projection into the language model (one matrix, its norm weightless). Names as
    the checkpoint stores them (transformers loads vision_embedder.* as embed_vision.*)."""
    c, t = "vision", "model.vision_embedder."
    patch = (v["patch_size"] * v["pooling_kernel_size"]) ** 2 * 3
    D = v["mm_embed_dim"]
    return (_norm(t + "patch_ln1", patch, c, True) + _w(t + "patch_dense", D, patch, c, True)
            + _norm(t + "patch_ln2", D, c, True)
            + [Tensor(t + "pos_embedding", (v["mm_posemb_size"], 2, D), c)]
            + _norm(t + "pos_norm", D, c, True)
            + [Tensor("model.embed_vision.embedding_projection.weight",
                      (text_hidden, v["output_proj_dims"]), c, matmul=True)])


def _gemma4_unified_audio(v, w, text_hidden):
    """Gemma 4 unified's audio embedder: audio_embed_dim samples per token projected into
    the language model (one matrix, its norm weightless)."""
    return [Tensor("model.embed_audio.embedding_projection.weight",
                   (text_hidden, v["audio_embed_dim"]), "audio", matmul=True)]


# --- Llama 4 ----------------------------------------------------------------------------------

def _llama4_vision(v, w, text_hidden):
    """Llama 4's vision model: patches unfolded and projected (one matrix, no bias), a class
    embedding and learned positions, LayerNorms with biases before and after, encoder layers
    of biased q, k, v, o projections and a plain GELU MLP (fc1, fc2), then the pixel-shuffle
    adapter (two matrices) and the projector into the language model (one matrix)."""
    H, I, C, p = v["hidden_size"], v["intermediate_size"], v["num_channels"], v["patch_size"]
    heads = v["num_attention_heads"]
    qkv = heads * (H // heads)
    c, t = "vision", "vision_model."
    out = [Tensor(t + "class_embedding", (H,), c),
           Tensor(t + "positional_embedding_vlm", ((v["image_size"] // p) ** 2 + 1, H), c)]
    out += _w(t + "patch_embedding.linear", H, C * p * p, c)
    out += _norm(t + "layernorm_pre", H, c, True) + _norm(t + "layernorm_post", H, c, True)
    a = t + "model.layers.{e}."
    layer = (_w(a + "self_attn.q_proj", qkv, H, c, True) + _w(a + "self_attn.k_proj", qkv, H, c, True)
             + _w(a + "self_attn.v_proj", qkv, H, c, True) + _w(a + "self_attn.o_proj", H, qkv, c, True)
             + _w(a + "mlp.fc1", I, H, c, True) + _w(a + "mlp.fc2", H, I, c, True)
             + _norm(a + "input_layernorm", H, c, True)
             + _norm(a + "post_attention_layernorm", H, c, True))
    out += _layers(layer, v["num_hidden_layers"])
    out += (_w(t + "vision_adapter.mlp.fc1", v["projector_input_dim"], I, c)
            + _w(t + "vision_adapter.mlp.fc2", v["projector_output_dim"],
                 v["projector_output_dim"], c))
    return out + _w("multi_modal_projector.linear_1", text_hidden, v["vision_output_dim"], c)


# --- Pixtral (Mistral 3) ----------------------------------------------------------------------

def _pixtral(v, w, text_hidden):
    """Mistral 3's Pixtral vision encoder: a patch convolution without a bias, an RMSNorm,
    layers of RMSNorms, bias-free q, k, v, o projections (hidden x hidden) and a gated MLP;
    its projector: an RMSNorm, the patch merger (spatial_merge_size^2 patches into one) and
    two matrices into the language model, biased by multimodal_projector_bias. Names as
    Ministral 3's checkpoints store them (transformers loads them under model.)."""
    H, I, C, p = v["hidden_size"], v["intermediate_size"], v["num_channels"], v["patch_size"]
    c, t, j = "vision", "vision_tower.", "multi_modal_projector."
    s, bias = w["spatial_merge_size"], w["multimodal_projector_bias"]
    feature_layers = w["vision_feature_layer"]
    n = 1 if _is_int(feature_layers) else len(feature_layers)
    out = [Tensor(t + "patch_conv.weight", (H, C, p, p), c, matmul=True)]
    out += _norm(t + "ln_pre", H, c)
    a = t + "transformer.layers.{e}."
    layer = (_norm(a + "attention_norm", H, c)
             + _w(a + "feed_forward.gate_proj", I, H, c) + _w(a + "feed_forward.up_proj", I, H, c)
             + _w(a + "feed_forward.down_proj", H, I, c)
             + _w(a + "attention.k_proj", H, H, c) + _w(a + "attention.v_proj", H, H, c)
             + _w(a + "attention.q_proj", H, H, c) + _w(a + "attention.o_proj", H, H, c)
             + _norm(a + "ffn_norm", H, c))
    out += _layers(layer, v["num_hidden_layers"])
    return (out + _norm(j + "norm", H, c) + _w(j + "patch_merger.merging_layer", H, H * s * s, c)
            + _w(j + "linear_1", text_hidden, H * n, c, bias)
            + _w(j + "linear_2", text_hidden, text_hidden, c, bias))


def _pixtral_wrapper_check(w, prefix):
    f = w["vision_feature_layer"]
    if not (_is_int(f) or (isinstance(f, list) and f and all(_is_int(x) for x in f))):
        _fail("vision_feature_layer", "must be a whole number or a non-empty list of them "
              "(the vision layers whose outputs are projected)", f)


# --- Qwen3.5 (and Qwen3.6, Qwen4-Exp) -----------------------------------------------------------

def _qwen3_5_vision(v, w, text_hidden):
    """Qwen3.5's vision model: a 3-D patch convolution (temporal_patch_size frames x
    patch_size^2) with a bias, learned positions, blocks of LayerNorms with biases, a fused
    biased qkv, a biased output projection and a plain MLP (linear_fc1, linear_fc2), then
    the merger: a LayerNorm and two biased matrices from spatial_merge_size^2 patches to
    out_hidden_size (the language model's width as shipped)."""
    H, I, C, p, tp = (v["hidden_size"], v["intermediate_size"], v["in_channels"],
                      v["patch_size"], v["temporal_patch_size"])
    M = H * v["spatial_merge_size"] ** 2
    c, t = "vision", "model.visual."
    out = [Tensor(t + "patch_embed.proj.weight", (H, C, tp, p, p), c, matmul=True),
           Tensor(t + "patch_embed.proj.bias", (H,), c),
           Tensor(t + "pos_embed.weight", (v["num_position_embeddings"], H), c)]
    b = t + "blocks.{e}."
    layer = (_norm(b + "norm1", H, c, True) + _norm(b + "norm2", H, c, True)
             + _w(b + "attn.qkv", 3 * H, H, c, True) + _w(b + "attn.proj", H, H, c, True)
             + _w(b + "mlp.linear_fc1", I, H, c, True) + _w(b + "mlp.linear_fc2", H, I, c, True))
    out += _layers(layer, v["depth"])
    return (out + _norm(t + "merger.norm", H, c, True) + _w(t + "merger.linear_fc1", M, M, c, True)
            + _w(t + "merger.linear_fc2", v["out_hidden_size"], M, c, True))


# --- Kimi K2.5 ----------------------------------------------------------------------------------

def _kimi_k25_vision(v, w, text_hidden):
    """Kimi K2.5's MoonViT: a biased patch convolution and a learned 2-D position grid,
    encoder blocks of LayerNorms with biases, a fused biased wqkv, a biased output wo and a
    plain MLP (fc0, fc1), a final LayerNorm; its projector: a LayerNorm over
    projection_hidden_size and two biased matrices from merge_kernel_size patches into the
    language model. Names as Kimi's checkpoint stores them (transformers splits wqkv into
    q, k and v and renames the rest on load)."""
    H, I, p = v["hidden_size"], v["intermediate_size"], v["patch_size"]
    k0, k1 = v["merge_kernel_size"][:2]
    M = H * k0 * k1
    c, t, j = "vision", "vision_tower.", "mm_projector."
    out = [Tensor(t + "patch_embed.proj.weight", (H, 3, p, p), c, matmul=True),
           Tensor(t + "patch_embed.proj.bias", (H,), c),
           Tensor(t + "patch_embed.pos_emb.weight", (v["pos_emb_height"], v["pos_emb_width"], H), c)]
    b = t + "encoder.blocks.{e}."
    layer = (_norm(b + "norm0", H, c, True) + _norm(b + "norm1", H, c, True)
             + _w(b + "wqkv", 3 * H, H, c, True) + _w(b + "wo", H, H, c, True)
             + _w(b + "mlp.fc0", I, H, c, True) + _w(b + "mlp.fc1", H, I, c, True))
    out += _layers(layer, v["num_hidden_layers"])
    out += _norm(t + "encoder.final_layernorm", H, c, True)
    return (out + _norm(j + "pre_norm", w["projection_hidden_size"], c, True)
            + _w(j + "proj.0", M, M, c, True) + _w(j + "proj.2", text_hidden, M, c, True))


def _kimi_check(v, prefix):
    k = v["merge_kernel_size"]
    if not isinstance(k, (list, tuple)) or len(k) < 2 or not all(
            _is_int(x) and 0 < x <= MAX_SIZE for x in k[:2]):
        _fail(f"{prefix}.merge_kernel_size", "must be a list of two positive whole numbers "
              "(the patches merged, down and across)", k)


# --- the tower kinds ------------------------------------------------------------------------------

_QWEN_VISION = dict(depth=27, hidden_size=1152, intermediate_size=4304, num_heads=16,
                    in_channels=3, patch_size=16, spatial_merge_size=2, temporal_patch_size=2,
                    out_hidden_size=3584, num_position_embeddings=2304)

#: the tower kinds a :class:`~llmcourse.families.Wrapper` names; defaults from each
#: transformers 5.23 ``*Config`` class (and the wrapper class for its own fields)
TOWERS = {
    "siglip": Tower(
        key="vision_config", component="vision", label="SigLIP vision", build=_siglip,
        model_type="siglip_vision_model",
        positive=("hidden_size", "intermediate_size", "num_attention_heads", "num_channels",
                  "image_size", "patch_size"),
        counts=("num_hidden_layers",), flags=("vision_use_head",),
        defaults=dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12,
                      num_attention_heads=12, num_channels=3, image_size=224, patch_size=16,
                      vision_use_head=True)),
    "gemma4_vision": Tower(
        key="vision_config", component="vision", label="Gemma 4 vision",
        build=_gemma4_vision, optional=True,
        positive=("hidden_size", "intermediate_size", "num_attention_heads",
                  "num_key_value_heads", "head_dim", "patch_size", "position_embedding_size"),
        counts=("num_hidden_layers",), flags=("use_clipped_linears", "standardize"),
        defaults=dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=16,
                      num_attention_heads=12, num_key_value_heads=12, head_dim=64,
                      patch_size=16, position_embedding_size=10240, use_clipped_linears=False,
                      standardize=False)),
    "gemma4_audio": Tower(
        key="audio_config", component="audio", label="Gemma 4 audio",
        build=_gemma4_audio, optional=True,
        positive=("hidden_size", "num_attention_heads", "conv_kernel_size",
                  "output_proj_dims"),
        counts=("num_hidden_layers",), flags=("use_clipped_linears",),
        defaults=dict(hidden_size=1024, num_hidden_layers=12, num_attention_heads=8,
                      subsampling_conv_channels=[128, 32], conv_kernel_size=5,
                      use_clipped_linears=True, output_proj_dims=1536)),
    "gemma4_unified_vision": Tower(
        key="vision_config", component="vision", label="Gemma 4 unified vision",
        build=_gemma4_unified_vision, optional=True,
        positive=("patch_size", "pooling_kernel_size", "mm_embed_dim", "mm_posemb_size",
                  "output_proj_dims"),
        defaults=dict(patch_size=16, pooling_kernel_size=3, mm_embed_dim=3840,
                      mm_posemb_size=1120, output_proj_dims=3840)),
    "gemma4_unified_audio": Tower(
        key="audio_config", component="audio", label="Gemma 4 unified audio",
        build=_gemma4_unified_audio, optional=True, positive=("audio_embed_dim",),
        defaults=dict(audio_embed_dim=640)),
    "llama4_vision": Tower(
        key="vision_config", component="vision", label="Llama 4 vision",
        build=_llama4_vision,
        positive=("hidden_size", "intermediate_size", "num_attention_heads", "num_channels",
                  "image_size", "patch_size", "vision_output_dim", "projector_input_dim",
                  "projector_output_dim"),
        counts=("num_hidden_layers",),
        defaults=dict(hidden_size=768, intermediate_size=5632, num_hidden_layers=34,
                      num_attention_heads=16, num_channels=3, image_size=448, patch_size=14,
                      vision_output_dim=7680, projector_input_dim=4096,
                      projector_output_dim=4096)),
    "pixtral": Tower(
        key="vision_config", component="vision", label="Pixtral vision", build=_pixtral,
        model_type="pixtral",
        positive=("hidden_size", "intermediate_size", "num_attention_heads", "num_channels",
                  "patch_size"),
        counts=("num_hidden_layers",),
        defaults=dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24,
                      num_attention_heads=16, num_channels=3, patch_size=16),
        # Mistral3Config's SubConfigSpec init_kwargs (sizes only)
        absent=dict(intermediate_size=4096, hidden_size=1024, patch_size=14,
                    num_hidden_layers=24, num_attention_heads=16),
        wrapper=dict(spatial_merge_size=2, multimodal_projector_bias=False,
                     vision_feature_layer=-1)),
    "qwen3_5_vision": Tower(
        key="vision_config", component="vision", label="Qwen3.5 vision",
        build=_qwen3_5_vision,
        aliases=dict(num_attention_heads="num_heads", num_hidden_layers="depth"),
        positive=("hidden_size", "intermediate_size", "num_heads", "in_channels",
                  "patch_size", "spatial_merge_size", "temporal_patch_size", "out_hidden_size",
                  "num_position_embeddings"),
        counts=("depth",), defaults=_QWEN_VISION),
    "kimi_k25_vision": Tower(
        key="vision_config", component="vision", label="Kimi K2.5 vision",
        build=_kimi_k25_vision,
        positive=("hidden_size", "intermediate_size", "num_attention_heads", "patch_size",
                  "pos_emb_height", "pos_emb_width"),
        counts=("num_hidden_layers",),
        defaults=dict(patch_size=14, pos_emb_height=64, pos_emb_width=64, num_attention_heads=16,
                      num_hidden_layers=27, hidden_size=1152, intermediate_size=4304,
                      merge_kernel_size=[2, 2]),
        wrapper=dict(projection_hidden_size=1152)),
}

# checks a field-by-field reading cannot make (a tower's own rules), and the wrapper's
_CHECKS = {"siglip": _siglip_check, "gemma4_audio": _gemma4_audio_check,
           "kimi_k25_vision": _kimi_check}
_WRAPPER_CHECKS = {"pixtral": _pixtral_wrapper_check}


def register_tower(kind, tower, check=None, wrapper_check=None):
    """Add a tower kind (a family module's own: Fuyu's patch embedding, GOT-OCR 2.0's SAM
    encoder), with its config's checks ``check(v, prefix)`` and its wrapper fields' checks
    ``wrapper_check(w, prefix)``, each raising a one-line ConfigError."""
    if kind in TOWERS:
        raise ValueError(f"a tower kind named {kind!r} exists already")
    TOWERS[kind] = tower
    if check is not None:
        _CHECKS[kind] = check
    if wrapper_check is not None:
        _WRAPPER_CHECKS[kind] = wrapper_check
    return tower


def _resolve_one(outer, kind, raw):
    """A tower's config: the wrapper's given one over its class's defaults, checked; None
    when the wrapper builds none."""
    tower = TOWERS[kind]
    given = raw.get(tower.key)
    if given is None:
        if tower.optional:
            return None
        v = dict(tower.defaults, **tower.absent)
    else:
        if not isinstance(given, dict):
            _fail(tower.key, "must be a JSON object or null", given)
        if tower.model_type is not None:
            mt = given.get("model_type", tower.model_type)
            if mt != tower.model_type:
                raise ConfigError(f"{outer}: its {show(mt, 40)} {tower.component} tower is "
                                  f"not sized by the course (it sizes {tower.model_type})")
        v = dict(tower.defaults)
        for key, value in given.items():
            if key in tower.aliases:
                continue
            v[key] = value
        for std, own in tower.aliases.items():  # the standard name wins over the own one
            if std in given:
                v[own] = given[std]
    prefix = tower.key
    for f in tower.positive + tower.counts:
        x = v.get(f)
        if not _is_int(x):
            _fail(f"{prefix}.{f}", "must be a whole number", x)
        if x < (0 if f in tower.counts else 1):
            _fail(f"{prefix}.{f}", "must be zero or positive" if f in tower.counts
                  else "must be positive", x)
        if x > MAX_SIZE:
            _fail(f"{prefix}.{f}", f"at most {MAX_SIZE:,} (a trillion) here; no real model "
                  "comes near", x)
    for f in tower.flags:
        if not isinstance(v.get(f), bool):
            _fail(f"{prefix}.{f}", "must be true or false", v.get(f))
    if kind in _CHECKS:
        _CHECKS[kind](v, prefix)
    w = {}
    for f, default in tower.wrapper.items():
        x = raw.get(f)
        w[f] = default if x is None else x
    for f in w:
        if f in ("spatial_merge_size", "projection_hidden_size"):
            if not _is_int(w[f]) or not 0 < w[f] <= MAX_SIZE:
                _fail(f, "must be a positive whole number", w[f])
        elif f == "multimodal_projector_bias" and not isinstance(w[f], bool):
            _fail(f, "must be true or false", w[f])
    if kind in _WRAPPER_CHECKS:
        _WRAPPER_CHECKS[kind](w, prefix)
    return v, w


def resolve_towers(outer, kinds, raw):
    """``((kind, config, wrapper fields), ...)``: the towers a wrapper config builds, each
    config resolved and checked (one-line :class:`ConfigError` for a bad field; a tower of
    a kind the course does not size is refused)."""
    out = []
    for kind in kinds:
        got = _resolve_one(outer, kind, raw)
        if got is not None:
            out.append((kind, got[0], got[1]))
    return tuple(out)


def tower_tensors(cfg):
    """The tensors of a wrapper config's towers and projectors (full checkpoint names;
    component "vision" or "audio"); empty for a text model. Cached on the config."""
    cached = cfg._cache.get("tower_tensors")
    if cached is not None:
        return cached
    text_hidden = cfg.hidden_size
    out = tuple(t for kind, v, w in cfg._r.get("towers", ())
                for t in TOWERS[kind].build(v, w, text_hidden))
    cfg._cache["tower_tensors"] = out
    return out


def checkpoint_name(cfg, name):
    """A text-model tensor name (``model.layers.0...``, ``lm_head.weight``) as a wrapper's
    checkpoint stores it (``model.language_model.layers.0...``; Gemma 3's, Llama 4's,
    Ministral 3's and Kimi K2.5's ``language_model.model.layers.0...``); unchanged for a
    text model, and for a name outside the language model (Qwen3.5's ``mtp.``)."""
    outer = cfg._r["text_model_of"]
    if outer is None:
        return name
    from .families import WRAPPERS
    for old, new in WRAPPERS[outer].names:
        if name.startswith(old):
            return new + name[len(old):]
    return name
