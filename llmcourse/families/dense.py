"""Dense decoders built like Llama with a few changes each: other norms (weightless, LayerNorm,
after the sublayers), other MLPs (plain, fused, a learned activation), parallel blocks,
sliding-window layers, extra attention parameters (differential attention, a dynamic mask,
sinks), a latent-attention variant, and one mixture of experts (Mellum).

Each entry is a :class:`~llmcourse.families.Family` (CONTRIBUTING.md, "Adding a family");
the layers whose tensors the standard decoder builder does not cover have their own builder
here, registered under what the layer is (:func:`~llmcourse.architectures.register_block`).
Standard library only.
"""

from .. import family_rules as rules
from ..architectures import (Layout, Tensor, _decoder_layer, _flag, _linear, _norm,
                             register_block, register_global_extras)
from ..layers import Axis
from ..limits import MAX_LIST, _fail, _is_int
from .base import Family

# --- layer builders: the standard decoder layer plus what a family adds -------------------


@register_block("decoder_learned_activation")
def _xielu_layer(cfg, kind):
    """Apertus: the standard layer whose MLP activation, xIELU (hidden_act "xielu"), has
    two learned scalars (alpha_p, alpha_n) and two constants kept as buffers (beta, eps)."""
    t = list(_decoder_layer(cfg, kind))
    if cfg.get("hidden_act") == "xielu":
        t += [Tensor("mlp.act_fn.alpha_p", (1,), "mlp"), Tensor("mlp.act_fn.alpha_n", (1,), "mlp"),
              Tensor("mlp.act_fn.beta", (), "mlp", buffer=True),
              Tensor("mlp.act_fn.eps", (), "mlp", buffer=True)]
    return t


@register_block("decoder_sub_norms")
def _sub_norm_layer(cfg, kind):
    """BitNet b1.58: the standard layer with one more RMSNorm inside each sublayer, on the
    attention output before o_proj (hidden_size wide, as transformers builds it) and on the
    MLP's product before down_proj (intermediate_size wide)."""
    return (list(_decoder_layer(cfg, kind)) + _norm("self_attn.attn_sub_norm", cfg.hidden_size)
            + _norm("mlp.ffn_sub_norm", cfg.intermediate_size))


@register_block("differential_attention")
def _differential_layer(cfg, kind):
    """DiffLlama: the standard layer whose attention also learns four head_dim-wide vectors
    (lambda_q1, lambda_k1, lambda_q2, lambda_k2) weighting the difference of its two maps;
    its group norm has no weights."""
    hd = cfg.head_dim
    return list(_decoder_layer(cfg, kind)) + [
        Tensor(f"self_attn.lambda_{x}", (hd,), "attention")
        for x in ("q1", "k1", "q2", "k2")]


@register_block("dynamic_mask_attention")
def _doge_layer(cfg, kind):
    """Doge: the standard layer (QK-norm) whose attention also turns its values into a
    dynamic mask (dt_proj: KV heads x head_dim to one score per KV head, biases by
    attention_bias; A: one learned rate per KV head), and a learned scale of each residual
    (input_residual, post_attention_residual)."""
    kv, hd, H = cfg.num_key_value_heads, cfg.head_dim, cfg.hidden_size
    bias = _flag(cfg, "attention_bias")
    return (list(_decoder_layer(cfg, kind))
            + [Tensor("self_attn.A", (kv,), "attention")]
            + _linear("self_attn.dt_proj", kv, kv * hd, "attention", bias)
            + [Tensor("input_residual", (H,), "norms"),
               Tensor("post_attention_residual", (H,), "norms")])


@register_block("fused_qkv_with_qk_layernorms")
def _persimmon_layer(cfg, kind):
    """Persimmon: the standard layer with q, k and v fused and, with qk_layernorm, a
    LayerNorm (with a bias) over each head's q and k, one head_dim-wide weight for all heads."""
    t = list(_decoder_layer(cfg, kind))
    if cfg.get("qk_layernorm"):
        t += (_norm("self_attn.q_layernorm", cfg.head_dim, "layer")
              + _norm("self_attn.k_layernorm", cfg.head_dim, "layer"))
    return t


@register_block("decoder_o_proj_hidden_in")
def _helium_layer(cfg, kind):
    """Helium: the standard layer whose o_proj transformers builds hidden_size x hidden_size
    (not heads x head_dim wide; the two agree in every released checkpoint)."""
    H = cfg.hidden_size
    return [t._replace(shape=(H, H)) if t.name == "self_attn.o_proj.weight" else t
            for t in _decoder_layer(cfg, kind)]


@register_block("decoder_optional_post_norms")
def _post_norm_layer(cfg, kind):
    """HyperCLOVA X: Granite's layer with a norm after attention and after the MLP as well
    (post_norm1, post_norm2), when use_post_norm."""
    t = list(_decoder_layer(cfg, kind))
    if cfg.get("use_post_norm", True):
        t += _norm("post_norm1", cfg.hidden_size) + _norm("post_norm2", cfg.hidden_size)
    return t


@register_block("decoder_per_head_layernorms_parallel_option")
def _stablelm_layer(cfg, kind):
    """StableLM: LayerNorms with biases, attention and MLP side by side after the input norm
    when use_parallel_residual (else a second norm before the MLP), and with qk_layernorm a
    LayerNorm without bias for each head's q and each KV head's k, stored one by one
    (q_layernorm.norms.{h})."""
    t = list(_decoder_layer(cfg, kind))
    if not cfg.get("use_parallel_residual"):
        t += _norm("post_attention_layernorm", cfg.hidden_size, "layer")
    if cfg.get("qk_layernorm"):
        hd = cfg.head_dim
        t += [Tensor("self_attn.q_layernorm.norms.{e}.weight", (hd,), "norms",
                     per_expert=cfg.num_attention_heads),
              Tensor("self_attn.k_layernorm.norms.{e}.weight", (hd,), "norms",
                     per_expert=cfg.num_key_value_heads)]
    return t


def _layer_norm(cfg, name, dim):
    """ModernBERT's LayerNorm: a weight, and a bias when norm_bias."""
    return _norm(name, dim, "layer" if cfg.get("norm_bias") else "layer_no_bias")


@register_block("modernbert_decoder_layer")
def _modernbert_layer(cfg, kind):
    """ModernBERT-decoder: attention (q, k, v and Wo, hidden wide, biases by attention_bias)
    after attn_norm (none in the first layer), a GeGLU MLP with its two halves in one Wi,
    biases by mlp_bias, after mlp_norm; LayerNorms with biases by norm_bias."""
    t = list(_decoder_layer(cfg, kind)) + _layer_norm(cfg, "mlp_norm", cfg.hidden_size)
    if kind.attention_norm:
        t += _layer_norm(cfg, "attn_norm", cfg.hidden_size)
    return t


@register_global_extras("modernbert_embedding_norm_and_head", before_norm=True)
def _modernbert_globals(cfg):
    """ModernBERT-decoder outside its layers: the embedding's LayerNorm, the final norm, and
    the prediction head before the decoder (lm_head.dense, hidden x hidden, bias by
    classifier_bias, then lm_head.norm)."""
    H = cfg.hidden_size
    return (_layer_norm(cfg, "model.embeddings.norm", H) + _layer_norm(cfg, "model.final_norm", H)
            + _linear("lm_head.dense", H, H, "lm_head", bool(cfg.get("classifier_bias")))
            + _layer_norm(cfg, "lm_head.norm", H))


# --- layer schedules and rules ---------------------------------------------------------------

def _listed(r):
    """The config's own layer_types, where it lists one kind per layer (validation reads
    the list again and refuses a bad one)."""
    lt, n = r.get("layer_types"), r.get("num_hidden_layers")
    if isinstance(lt, list) and _is_int(n) and len(lt) == n <= MAX_LIST:
        return lt
    return None


def _positive(r, field, default):
    v = r.get(field, default)
    if not _is_int(v) or v <= 0:
        _fail(field, "must be a positive whole number (transformers derives layer_types from "
              "it)", v)
    return v


def _cohere2_layers(r):
    """Cohere2 (Command R7B, Command A): sliding_window_pattern - 1 sliding-window layers with
    RoPE, then one full-attention layer without (Cohere2Config's layer_types: layer i slides
    where (i + 1) % sliding_window_pattern, 4 by default); without a window no layer uses
    RoPE."""
    n = _positive(r, "sliding_window_pattern", 4)
    attention = Axis.cycle(("sliding_attention", n - 1), ("full_attention", 1),
                           field="sliding_window_pattern")
    listed, windowed = _listed(r), r.get("sliding_window") is not None
    kinds = Axis.from_list(listed) if listed else attention
    return dict(attention=attention,
                rope=kinds.map(lambda v: windowed and v == "sliding_attention"))


def _exaone4_layers(r):
    """EXAONE 4.0: sliding_window_pattern - 1 sliding-window layers, then one full-attention
    layer (layer i slides where (i + 1) % sliding_window_pattern); the full layers use no
    RoPE while there is a window. Without a window, or with a pattern string ("LLLG"),
    transformers derives nothing: the config must list layer_types."""
    listed, windowed = _listed(r), r.get("sliding_window") is not None
    if r.get("layer_types") is None:
        if not windowed:
            _fail("layer_types", "must be listed when sliding_window is null (EXAONE 4.0's "
                  "pattern is then 0, which transformers cannot derive layers from)", None)
        n = r.get("sliding_window_pattern", 4)
        if not _is_int(n) or n <= 0:
            _fail("sliding_window_pattern", "must be a positive whole number when layer_types "
                  "is not listed (transformers derives the layers from it)", n)
        attention = Axis.cycle(("sliding_attention", n - 1), ("full_attention", 1),
                               field="sliding_window_pattern")
    else:
        attention = Axis.from_list(listed) if listed else Axis.constant("full_attention")
    return dict(attention=attention,
                rope=attention.map(lambda v: not windowed or v == "sliding_attention"))


def _one_full_in(n_field, default):
    """Layer i attends fully where i % n == 0 and slides otherwise (CWM and Granite SWA: n = 4;
    ModernBERT-decoder: global_attn_every_n_layers, 3)."""
    def layers(r):
        n = _positive(r, n_field, default) if n_field else default
        return dict(attention=Axis.cycle(("full_attention", 1), ("sliding_attention", n - 1),
                                         field=n_field or "layer_types"))
    return layers


def _modernbert_layers(r):
    """ModernBERT-decoder: one full-attention layer in every global_attn_every_n_layers (the
    first of each), the others sliding; the first layer has no attention norm."""
    return dict(_one_full_in("global_attn_every_n_layers", 3)(r),
                attention_norm=Axis.cycle((True, 1), prefix=[(False, 1)], field="layers"))


def _modernbert_window(r, raw):
    """ModernBertDecoderConfig sets sliding_window to half of local_attention (a window of
    local_attention tokens centred on the token: the causal half), whatever the file says."""
    la = r.get("local_attention")
    if not _is_int(la) or la <= 1:
        _fail("local_attention", "must be a whole number of at least 2 (transformers' sliding "
              "layers attend to local_attention // 2 tokens; it makes that -1 or 0 otherwise)",
              la)
    r["sliding_window"] = la // 2


def _mellum_layers(r):
    """Mellum: every layer attends fully and holds routed experts unless layer_types and
    mlp_layer_types (dense or sparse per layer) say otherwise."""
    mlt = r.get("mlp_layer_types")
    if mlt is None:
        mlp = Axis.constant("moe", field="mlp_layer_types")
    else:
        L = r["num_hidden_layers"]
        if not isinstance(mlt, list) or len(mlt) != L or not all(
                v in ("dense", "sparse") for v in mlt):
            _fail("mlp_layer_types", f"must list dense or sparse for each of the {L:,} layers",
                  mlt)
        mlp = Axis.from_list(["moe" if v == "sparse" else "dense" for v in mlt],
                             field="mlp_layer_types")
    return dict(attention=Axis.constant("full_attention"), mlp=mlp)


def _mellum_check(r, head_dim):
    """MellumConfig builds at most one multi-token-prediction layer."""
    for f in ("num_mtp_layers", "num_nextn_predict_layers"):
        v = r.get(f)
        if v is not None and (not _is_int(v) or not 0 <= v <= 1):
            _fail(f, "Mellum supports a single multi-token-prediction layer (0, 1 or null)", v)


def _even_kv_heads(r, head_dim):
    """DiffLlama splits the values along the KV heads into two halves."""
    kv = r.get("num_key_value_heads") or r["num_attention_heads"]
    if kv % 2:
        _fail("num_key_value_heads", "DiffLlama needs an even number of KV heads (its two "
              "attention maps share the values' two halves)", kv)


def _no_dropout(r, head_dim):
    """DiffLlama refuses attention dropout (no differential form of it is defined)."""
    v = r.get("attention_dropout")
    if v not in (None, 0, 0.0):
        _fail("attention_dropout", "DiffLlama does not support attention dropout (must be 0)", v)


def _doge_dense_only(r, head_dim):
    """Doge's cross-domain mixture of experts (is_moe: num_experts single-vector experts
    retrieved by product keys) is not sized by the course; its dense models are."""
    if r.get("is_moe"):
        _fail("is_moe", "Doge's cross-domain mixture of experts (product-key retrieved "
              "single-vector experts) is not sized here; its dense models are", True)


def _same_biases(r, head_dim):
    """InternLM3 (transformers' Llama layers) has one bias switch for q, k, v, o and the MLP:
    qkv_bias and bias must agree, as InternLM3Config checks."""
    if bool(r.get("attention_bias")) != bool(r.get("mlp_bias")):
        _fail("qkv_bias", "must equal bias (mlp_bias): transformers' Llama layers that build "
              "InternLM3 use one bias setting for q, k, v, o and the MLP",
              r.get("attention_bias"))


def _iquest_refusals(r, head_dim):
    """IQuestCoderConfig refuses clip_qkv and use_sliding_window (no released checkpoint
    enables them)."""
    if r.get("clip_qkv") is not None:
        _fail("clip_qkv", "IQuestCoder in transformers does not support it (leave it out)",
              r["clip_qkv"])
    if r.get("use_sliding_window"):
        _fail("use_sliding_window", "IQuestCoder in transformers does not support it", True)


def _head_is_hidden_over_heads(r, raw):
    """StableLM: every head is hidden_size / num_attention_heads wide; transformers' attention
    reads no head_dim field."""
    r["head_dim"] = None


# the keys of the plain Llama-style config classes, with their usual defaults
_LLAMA = dict(num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
              attention_bias=False, layer_types=None)
_LLAMA_BIASES = dict(_LLAMA, mlp_bias=False)

ENTRIES = {
    # Apertus (Swiss AI): Llama's attention with QK-norm, a plain MLP (up, down) with the
    # learned xIELU activation, norms named attention_layernorm and feedforward_layernorm
    "apertus": Family(
        layout=Layout(block="decoder_learned_activation", qk_norm="shared", mlp="plain",
                      mlp_names=("up_proj", "down_proj"), mlp_bias=False,
                      layer_norms=("attention_layernorm", "feedforward_layernorm")),
        layers=rules.full_attention_layers,
        defaults=dict(_LLAMA, vocab_size=131072, hidden_size=4096, intermediate_size=14336,
                      num_hidden_layers=32, num_attention_heads=32, hidden_act="xielu",
                      max_position_embeddings=65536, pad_token_id=3)),
    # Arcee (AFM-4.5B): Llama's layout with a plain ReLU^2 MLP (up, down)
    "arcee": Family(
        layout=Layout(mlp="plain", mlp_names=("up_proj", "down_proj")),
        layers=rules.full_attention_layers,
        divisible_heads=True,
        defaults=dict(_LLAMA_BIASES, vocab_size=32000, hidden_size=2560,
                      intermediate_size=18432, num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=4096, hidden_act="relu2", pad_token_id=None)),
    # BitNet b1.58: Llama's layout (a ReLU^2-gated MLP) with a norm inside each sublayer;
    # the weights ternary in training, stored unpacked in the -bf16 checkpoint
    "bitnet": Family(
        layout=Layout(block="decoder_sub_norms", mlp_bias=False),
        layers=rules.full_attention_layers,
        defaults=dict(_LLAMA, vocab_size=128256, hidden_size=2560, intermediate_size=6912,
                      num_hidden_layers=30, num_attention_heads=20, num_key_value_heads=5,
                      max_position_embeddings=2048, hidden_act="relu2", pad_token_id=None)),
    # Cohere (Command R, Aya): attention and a SwiGLU MLP side by side after one LayerNorm
    # without bias; with use_qk_norm a q and k norm whose weights are per head, stored
    # (heads, head_dim); logits scaled by logit_scale (no weights); the head tied
    "cohere": Family(
        layout=Layout(parallel=True, norm="layer_no_bias", layer_norms=("input_layernorm",),
                      qk_norm="per_head", qk_norm_if="use_qk_norm", mlp_bias=False),
        layers=rules.full_attention_layers,
        nullable=("use_qk_norm",),
        defaults=dict(_LLAMA, hidden_act="silu", vocab_size=256000, hidden_size=8192,
                      intermediate_size=22528, num_hidden_layers=40, num_attention_heads=64,
                      max_position_embeddings=8192, pad_token_id=0, tie_word_embeddings=True,
                      use_qk_norm=False)),
    # Cohere2 (Command R7B, Command A): Cohere's parallel block (no QK-norm); three
    # sliding-window layers with RoPE to one full-attention layer without
    "cohere2": Family(
        layout=Layout(parallel=True, norm="layer_no_bias", layer_norms=("input_layernorm",),
                      mlp_bias=False),
        layers=_cohere2_layers,
        positive=("sliding_window_pattern",),
        defaults=dict(_LLAMA, hidden_act="silu", vocab_size=256000, hidden_size=8192,
                      intermediate_size=22528, num_hidden_layers=40, num_attention_heads=64,
                      max_position_embeddings=8192, pad_token_id=0, tie_word_embeddings=True,
                      sliding_window=4096)),
    # Code World Model (Meta CWM): Llama's layout without attention biases; one full
    # attention layer, then three sliding-window layers
    "cwm": Family(
        layout=Layout(qkv_bias=False, o_bias=False),
        layers=_one_full_in(None, 4),
        divisible_heads=True,
        never_null=("num_key_value_heads", "head_dim", "sliding_window"),
        defaults=dict(hidden_act="silu", vocab_size=128256, hidden_size=6144,
                      intermediate_size=21504, num_hidden_layers=64, num_attention_heads=48,
                      num_key_value_heads=8, head_dim=128, max_position_embeddings=131072,
                      pad_token_id=None, tie_word_embeddings=False, mlp_bias=False,
                      sliding_window=8192, layer_types=None)),
    # DiffLlama: Llama's layout with differential attention: two attention maps from one set
    # of scores over the values' two halves, weighted by four learned vectors; each head's
    # weighted sum runs over two head_dim-wide values
    "diffllama": Family(
        layout=Layout(block="differential_attention", mlp_bias=False, value_width=2),
        layers=rules.full_attention_layers,
        check=(_even_kv_heads, _no_dropout),
        defaults=dict(_LLAMA, hidden_act="silu", vocab_size=32000, hidden_size=2048,
                      intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                      max_position_embeddings=2048, pad_token_id=None)),
    # Doge (SmallDoge): Llama's layout with QK-norm, a dynamic attention mask made from the
    # values, learned residual scales; every layer slides when sliding_window is set
    "doge": Family(
        layout=Layout(block="dynamic_mask_attention", qk_norm="shared"),
        check=(_doge_dense_only,),
        defaults=dict(_LLAMA_BIASES, hidden_act="silu", vocab_size=32768, hidden_size=1024,
                      intermediate_size=2048, num_hidden_layers=32, num_attention_heads=8,
                      max_position_embeddings=2048, sliding_window=None, keep_window_size=2048,
                      is_moe=False, pad_token_id=None)),
    # ERNIE 4.5 (dense): Llama's layout, every projection's bias by use_bias; the head tied
    "ernie4_5": Family(
        layout=Layout(qkv_bias="use_bias", o_bias="use_bias", mlp_bias="use_bias"),
        layers=rules.full_attention_layers,
        nullable=("use_bias",),
        defaults=dict(hidden_act="silu", vocab_size=103424, hidden_size=1024,
                      intermediate_size=3072, num_hidden_layers=18, num_attention_heads=16,
                      num_key_value_heads=2, head_dim=128, max_position_embeddings=131072,
                      pad_token_id=0, tie_word_embeddings=True, use_bias=False)),
    # EXAONE 4.0: no biases, QK-norm, norms after each sublayer (none before); three
    # sliding-window layers to one full-attention layer without RoPE
    "exaone4": Family(
        layout=Layout(qkv_bias=False, o_bias=False, mlp_bias=False, qk_norm="shared",
                      layer_norms=("post_attention_layernorm", "post_feedforward_layernorm")),
        layers=_exaone4_layers,
        nullable=("sliding_window_pattern",),
        never_null=("num_key_value_heads",),
        defaults=dict(hidden_act="silu", vocab_size=102400, hidden_size=4096,
                      intermediate_size=16384, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=32, head_dim=None, max_position_embeddings=2048,
                      pad_token_id=None, tie_word_embeddings=False, sliding_window=4096,
                      sliding_window_pattern=4, layer_types=None)),
    # GLM-4 (the first, glm): biases on q, k and v (attention_bias), gate and up fused,
    # RoPE on half of each head
    "glm": Family(
        group="GLM",
        layout=Layout(o_bias=False, mlp="fused_gated", mlp_names=("gate_up_proj", "down_proj"),
                      mlp_bias=False, partial_rotary=("partial_rotary_factor", 0.5)),
        layers=rules.full_attention_layers,
        never_null=("num_key_value_heads", "head_dim"),
        defaults=dict(hidden_act="silu", vocab_size=151552, hidden_size=4096,
                      intermediate_size=13696, num_hidden_layers=40, num_attention_heads=32,
                      num_key_value_heads=2, head_dim=128, max_position_embeddings=131072,
                      pad_token_id=151329, tie_word_embeddings=False, attention_bias=True)),
    # GLM-4-0414 (glm4): GLM's layout with a norm after attention and after the MLP as well
    "glm4": Family(
        group="GLM",
        layout=Layout(o_bias=False, mlp="fused_gated", mlp_names=("gate_up_proj", "down_proj"),
                      mlp_bias=False, partial_rotary=("partial_rotary_factor", 0.5),
                      layer_norms=("input_layernorm", "post_attention_layernorm",
                                   "post_self_attn_layernorm", "post_mlp_layernorm")),
        layers=rules.full_attention_layers,
        never_null=("num_key_value_heads", "head_dim"),
        defaults=dict(hidden_act="silu", vocab_size=151552, hidden_size=4096,
                      intermediate_size=13696, num_hidden_layers=40, num_attention_heads=32,
                      num_key_value_heads=2, head_dim=128, max_position_embeddings=131072,
                      pad_token_id=151329, tie_word_embeddings=False, attention_bias=True)),
    # Helium (Kyutai): Llama's layout, biases on q, k and v by attention_bias, none on o
    # (built hidden x hidden)
    "helium": Family(
        layout=Layout(block="decoder_o_proj_hidden_in", o_bias=False),
        layers=rules.full_attention_layers,
        never_null=("num_key_value_heads", "head_dim"),
        defaults=dict(_LLAMA_BIASES, hidden_act="silu", vocab_size=48000, hidden_size=2560,
                      intermediate_size=7040, num_hidden_layers=24, num_attention_heads=20,
                      num_key_value_heads=20, head_dim=128, max_position_embeddings=4096,
                      pad_token_id=3)),
    # HyperCLOVA X SEED (Naver): Granite's layout (its multipliers scale activations) with
    # norms after attention and after the MLP as well (use_post_norm)
    "hyperclovax": Family(
        layout=Layout(block="decoder_optional_post_norms"),
        layers=rules.full_attention_layers,
        divisible_heads=True,
        defaults=dict(_LLAMA_BIASES, hidden_act="silu", vocab_size=32000, hidden_size=4096,
                      intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, pad_token_id=None, use_post_norm=True)),
    # InternLM3: built by transformers' Llama layers; its own names for the bias switches,
    # which must agree
    "internlm3": Family(
        layers=rules.full_attention_layers,
        divisible_heads=True,
        attribute_map=dict(qkv_bias="attention_bias", bias="mlp_bias"),
        check=(_same_biases,),
        defaults=dict(_LLAMA_BIASES, hidden_act="silu", vocab_size=128512, hidden_size=4096,
                      intermediate_size=10240, num_hidden_layers=48, num_attention_heads=32,
                      num_key_value_heads=2, head_dim=128, max_position_embeddings=32768,
                      pad_token_id=2)),
    # IQuest-Coder: built by transformers' Llama layers (no clip_qkv, no sliding window)
    "iquestcoder": Family(
        layers=rules.full_attention_layers,
        divisible_heads=True,
        check=(_iquest_refusals,),
        defaults=dict(_LLAMA_BIASES, hidden_act="silu", vocab_size=76800, hidden_size=5120,
                      intermediate_size=27648, num_hidden_layers=80, num_attention_heads=40,
                      num_key_value_heads=8, head_dim=128, max_position_embeddings=131072,
                      pad_token_id=None)),
    # Jais 2: Llama's attention (biases by attention_bias), a plain ReLU^2 MLP (biases by
    # mlp_bias), LayerNorms with biases
    "jais2": Family(
        layout=Layout(mlp="plain", mlp_names=("up_proj", "down_proj"), norm="layer"),
        layers=rules.full_attention_layers,
        divisible_heads=True,
        defaults=dict(_LLAMA, hidden_act="relu2", vocab_size=150272, hidden_size=3328,
                      intermediate_size=26624, num_hidden_layers=32, num_attention_heads=26,
                      max_position_embeddings=8192, pad_token_id=None, attention_bias=True,
                      mlp_bias=True)),
    # Mellum (JetBrains, MoE): Qwen3-MoE's attention (QK-norm, biases by attention_bias),
    # full or sliding layers by layer_types, routed experts (stored one by one) or a dense
    # MLP by mlp_layer_types; a multi-token-prediction layer transformers does not build
    "mellum": Family(
        layout=Layout(qk_norm="shared", router_norm_topk=True),
        moe="num_experts",
        layers=_mellum_layers,
        attribute_map=dict(num_experts="num_local_experts",
                           num_mtp_layers="num_nextn_predict_layers"),
        own_wins=("num_experts", "num_mtp_layers"),
        never_null=("num_key_value_heads", "head_dim"),
        check=(_mellum_check,),
        defaults=dict(hidden_act="silu", vocab_size=98304, hidden_size=2304,
                      intermediate_size=7168, num_hidden_layers=28, num_attention_heads=32,
                      num_key_value_heads=4, head_dim=128, max_position_embeddings=131072,
                      tie_word_embeddings=False, attention_bias=False, sliding_window=1024,
                      moe_intermediate_size=896, num_experts_per_tok=8, num_local_experts=64,
                      pad_token_id=None, layer_types=None, mlp_layer_types=None)),
    # nanochat (Karpathy): RMSNorms without weights everywhere (QK-norm too), a plain ReLU^2
    # MLP (fc1, fc2) without biases, final logits softcapped
    "nanochat": Family(
        layout=Layout(norm="rms_no_weight", qk_norm="shared", mlp="plain",
                      mlp_names=("fc1", "fc2"), mlp_bias=False, final_softcap=True),
        layers=rules.full_attention_layers,
        nullable=("final_logit_softcapping",),
        defaults=dict(_LLAMA, hidden_act="relu2", vocab_size=50304, hidden_size=768,
                      intermediate_size=8192, num_hidden_layers=12, num_attention_heads=6,
                      max_position_embeddings=2048, pad_token_id=1,
                      final_logit_softcapping=15.0)),
    # OLMo (the first): Llama's layout with LayerNorms that have no weights at all
    "olmo": Family(
        group="OLMo",
        layout=Layout(norm="layer_no_weight", mlp_bias=False),
        layers=rules.full_attention_layers,
        defaults=dict(_LLAMA, hidden_act="silu", vocab_size=50304, hidden_size=4096,
                      intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                      max_position_embeddings=2048, pad_token_id=1, clip_qkv=None)),
    # Persimmon (Adept): GPT-NeoX-like: q, k and v fused (every head its own k and v),
    # biases everywhere, a LayerNorm over each head's q and k (qk_layernorm), a plain ReLU^2
    # MLP, LayerNorms with biases; RoPE on half of each head
    "persimmon": Family(
        layout=Layout(block="fused_qkv_with_qk_layernorms", attention="fused_qkv",
                      attention_names=("query_key_value", "dense"), qkv_bias=True,
                      o_bias=True, mlp="plain",
                      mlp_names=("dense_h_to_4h", "dense_4h_to_h"), mlp_bias=True,
                      norm="layer", final_norm="model.final_layernorm",
                      partial_rotary=("partial_rotary_factor", 0.5)),
        layers=rules.full_attention_layers,
        check=(rules.one_kv_per_head,),
        engine_only=dict(num_key_value_heads="transformers' Persimmon has no KV heads: one "
                         "fused query_key_value projects q, k and v, 3 × hidden wide",
                         head_dim="Persimmon's head_dim is always hidden / heads"),
        defaults=dict(hidden_act="relu2", vocab_size=262144, hidden_size=4096,
                      intermediate_size=16384, num_hidden_layers=36, num_attention_heads=64,
                      max_position_embeddings=16384, tie_word_embeddings=False,
                      qk_layernorm=True, pad_token_id=None)),
    # StableLM (2): LayerNorms with biases, q, k and v biases by use_qkv_bias, o without,
    # per-head q/k LayerNorms (qk_layernorm), a parallel block (use_parallel_residual);
    # RoPE on a quarter of each head
    "stablelm": Family(
        layout=Layout(block="decoder_per_head_layernorms_parallel_option", norm="layer",
                      layer_norms=("input_layernorm",), qkv_bias="use_qkv_bias", o_bias=False,
                      mlp_bias=False, partial_rotary=("partial_rotary_factor", 0.25)),
        layers=rules.full_attention_layers,
        never_null=("num_key_value_heads",),
        derive=(_head_is_hidden_over_heads,),
        engine_only=dict(head_dim="StableLM's head_dim is always hidden / heads"),
        defaults=dict(hidden_act="silu", vocab_size=50304, hidden_size=2560,
                      intermediate_size=6912, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=32, max_position_embeddings=4096,
                      tie_word_embeddings=False, use_qkv_bias=False, qk_layernorm=False,
                      use_parallel_residual=False, pad_token_id=None)),
    # VaultGemma (Google, trained with differential privacy): Gemma-2's layers with only the
    # norms before attention and before the MLP; sliding and full layers in turn
    "vaultgemma": Family(
        group="Gemma",
        layout=Layout(norm="rms_one_plus_w", mlp_bias=False,
                      layer_norms=("input_layernorm", "pre_feedforward_layernorm"),
                      final_softcap=True, attention_softcap_eager=True),
        layers=rules.alternating,
        divisible_heads=True,
        nullable=("final_logit_softcapping", "attn_logit_softcapping"),
        never_null=("num_key_value_heads", "head_dim"),
        defaults=dict(hidden_activation="gelu_pytorch_tanh", vocab_size=256000,
                      hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
                      num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                      max_position_embeddings=8192, pad_token_id=0, tie_word_embeddings=True,
                      attention_bias=False, sliding_window=4096, layer_types=None,
                      final_logit_softcapping=30.0, attn_logit_softcapping=50.0)),
    # Youtu-LLM (Tencent): DeepSeek-V3's multi-head latent attention with a dense SwiGLU MLP
    # in every layer; the head tied
    "youtu": Family(
        layout=Layout(attention="mla", mlp_bias=False),
        layers=rules.full_attention_layers,
        attention_kinds=("full_attention",),
        never_null=("num_key_value_heads",),
        defaults=dict(hidden_act="silu", vocab_size=128256, hidden_size=2048,
                      intermediate_size=6144, num_hidden_layers=32, num_attention_heads=16,
                      num_key_value_heads=16, kv_lora_rank=512, q_lora_rank=1536,
                      qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128,
                      max_position_embeddings=131072, pad_token_id=None,
                      tie_word_embeddings=True, attention_bias=False)),
    # Granite with sliding-window attention (IBM): Granite's layout (multipliers scale
    # activations) with a learned sink per head; one full layer, then three sliding ones
    "granite_swa": Family(
        group="Granite",
        layout=Layout(sinks=True),
        layers=_one_full_in(None, 4),
        defaults=dict(_LLAMA_BIASES, hidden_act="silu", vocab_size=100352, hidden_size=2560,
                      intermediate_size=8192, num_hidden_layers=24, num_attention_heads=20,
                      num_key_value_heads=4, max_position_embeddings=8192, pad_token_id=None,
                      tie_word_embeddings=True, sliding_window=128)),
    # ModernBERT-decoder (Ettin decoders): ModernBERT's layers causal: attention without KV
    # heads (q, k, v, Wo), a GeGLU MLP (Wi fused, Wo), LayerNorms (biases by norm_bias), the
    # first layer without an attention norm; a norm after the embedding and a prediction
    # head (dense, norm) before the decoder; one full layer in three, the others sliding
    "modernbert-decoder": Family(
        layout=Layout(block="modernbert_decoder_layer", attention_prefix="attn.",
                      attention_names=("q_proj", "k_proj", "v_proj", "Wo"), mlp="fused_gated",
                      mlp_names=("Wi", "Wo"), norm="layer_no_bias", layer_norms=(),
                      embedding="model.embeddings.tok_embeddings", final_norm=None,
                      extra_globals="modernbert_embedding_norm_and_head", lm_head="decoder",
                      lm_head_bias="decoder_bias"),
        layers=_modernbert_layers,
        positive=("global_attn_every_n_layers",),
        derive=(_modernbert_window,),
        check=(rules.one_kv_per_head,),
        never_null=("pad_token_id",),
        engine_only=dict(num_key_value_heads="transformers' ModernBERT-decoder has no KV heads: "
                         "q, k and v are each hidden wide",
                         head_dim="ModernBERT-decoder's head_dim is always hidden / heads",
                         sliding_window="ModernBERT-decoder's window is local_attention // 2"),
        defaults=dict(hidden_activation="gelu", vocab_size=50368, hidden_size=768,
                      intermediate_size=1152, num_hidden_layers=22, num_attention_heads=12,
                      max_position_embeddings=8192, norm_bias=False, pad_token_id=50283,
                      attention_bias=False, mlp_bias=False, decoder_bias=True,
                      classifier_bias=False, local_attention=128, layer_types=None,
                      tie_word_embeddings=True)),
    # Ministral (8B, 2410): Mistral's layout (no biases, every layer sliding when
    # sliding_window is set); transformers builds it only from a config that gives head_dim,
    # which the class does not default or derive
    "ministral": Family(
        group="Mistral",
        layout=Layout(qkv_bias=False, o_bias=False, mlp_bias=False),
        required=("head_dim",),
        never_null=("num_key_value_heads",),
        defaults=dict(hidden_act="silu", vocab_size=32000, hidden_size=4096,
                      intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                      num_key_value_heads=8, head_dim=None, max_position_embeddings=131072,
                      pad_token_id=None, tie_word_embeddings=False, sliding_window=4096,
                      layer_types=None)),
    # Nemotron-4 and Minitron (NVIDIA): LayerNorms with biases (the 1p form scales by 1 + w,
    # same tensors), a plain ReLU^2 MLP, biases by attention_bias and mlp_bias, RoPE on half
    # of each head; transformers builds it only from a config that gives num_key_value_heads
    "nemotron": Family(
        group="Nemotron",
        layout=Layout(norm="layer", mlp="plain", mlp_names=("up_proj", "down_proj"),
                      partial_rotary=("partial_rotary_factor", 0.5)),
        layers=rules.full_attention_layers,
        required=("num_key_value_heads",),
        defaults=dict(_LLAMA_BIASES, hidden_act="relu2", vocab_size=256000, hidden_size=6144,
                      intermediate_size=24576, num_hidden_layers=32, num_attention_heads=48,
                      max_position_embeddings=4096, pad_token_id=None)),
}
