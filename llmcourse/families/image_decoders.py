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
}
