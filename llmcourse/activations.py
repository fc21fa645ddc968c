"""What one layer saves for backward, per token, layer kind by layer kind.

The tensors autograd keeps from the forward pass to the backward pass of a Hugging Face
``transformers`` decoder, one named term per kind of tensor: the norms, the attention
kernel's inputs and outputs (or a linear mixer's: Gated DeltaNet, Mamba-2, KDA, a short
convolution), the MLP or the routed experts, and the terms outside the layers (token ids,
rotary tables, the final norm, the loss's log-probabilities). :mod:`llmcourse.training`
multiplies them by tokens and layers, divides them over GPUs and adds the transients of a
step; each family's rules are held against what PyTorch saves on CPU
(``tests/test_training*.py``; :func:`llmcourse.training.activation_accuracy` says how
close, per model). Standard library only.
"""

from __future__ import annotations

from fractions import Fraction

from .architectures import layer_groups, mamba_dims
from .layers import LayerKind
from .limits import ConfigError


def cdiv(a, b):
    return -(-a // b)


TERM_LABELS = {
    "norms": "norms (input, rstd, normalized)",
    "qk_norm": "QK-norm (q, k before norm, rstd, normalized)",
    "other_norms": "other norms",
    "mla_latents": "MLA latents (q, kv) and their norms",
    "attention_input": "attention input (norm output)",
    "autocast_input_copies": "autocast's separate bf16 copies of the layer input",
    "qkv": "q, k, v (attention kernel)",
    "attention_output": "attention output (o_proj input)",
    "softmax_stats": "softmax statistics (fp32 log-sum-exp)",
    "attention_scores": "attention scores (s x s per head)",
    "output_gate": "output gate (sigmoid, gated output)",
    "mlp_input": "MLP input (norm output)",
    "mlp": "MLP (gate, act, up, product)",
    "router": "router (softmax, top-k)",
    "routed_experts": "routed experts (k per token)",
    "routed_experts_zero": "routed experts (k per token; zero experts pass the input through)",
    "shared_experts": "shared experts",
    "shared_expert_gate": "shared expert gate (sigmoid, shared output)",
    "hyper_connections": "hyper-connections (grouped norm, stream mix, injection)",
    "ngram_embedding": "n-gram embedding (hashed ids, embedding, gates)",
    "ngram_conv": "n-gram dilated conv (padded input, silu input)",
    "indexer_mask": "indexer mask (float, s x s per sequence) and K, V repeated to every head",
    "v4_hyper_connections": ("hyper-connections (stream norm, coefficients, Sinkhorn, expand "
                             "and mix)"),
    "v4_q_latent": "q latent, its norm and q_b_norm (per head)",
    "v4_kv_norm": "K = V head norm (kv_norm)",
    "v4_rotary": "rotary cos/sin (q, K = V, output; per position)",
    "v4_compressor": "compressor (window softmax, values, entry norm, rotary)",
    "v4_indexer_compressor": "indexer's compressor (softmax, values, key norm, rotary)",
    "v4_grouped_output": "grouped output projection inputs (o_a, o_b)",
    "gemma4_norms": "Gemma 4 norms (fp32 input, mean square, rstd, normalized; q/k/v per head)",
    "sliding_window_mask": "sliding-window mask (s x s, in the model's dtype)",
    "attention_softcap": "attention logit softcapping (tanh output, s x s per head)",
    "final_softcap": "final logit softcapping (tanh output per logit)",
    "checkpoint_position_ids": "position ids (int64, held by every checkpoint)",
    "checkpoint_masks": "attention masks (s x s per sequence, held by every checkpoint)",
    "per_layer_embedding_gate": "per-layer embedding gate (input, gate, GELU, product)",
    "per_layer_embeddings": "per-layer embeddings (projection input, norm, per-layer inputs)",
    "gdn_conv": "Gated DeltaNet conv (q, k, v projection; padded conv output)",
    "gdn_gates": "Gated DeltaNet gates (beta, fp32 decay)",
    "gdn_qk": "Gated DeltaNet q, k (fp32, l2-normalized)",
    "gdn_recurrence": "Gated DeltaNet chunked recurrence (torch reference, 64-token chunks)",
    "gdn_output": "Gated DeltaNet output norm and gate (out_proj input)",
    "kda_conv_gates": ("KDA conv, gates and decay (q, k, v conv input; forget/output gate; "
                       "fp32 softplus)"),
    "kda_recurrence": ("KDA chunked recurrence (torch reference: 64 x 64 x head_dim decay "
                       "products, row-by-row solve)"),
    "kda_output": "KDA output norm and gate (out_proj input)",
    "mamba_conv": "Mamba-2 conv (in_proj output; padded conv output)",
    "mamba_dt": "Mamba-2 dt (softplus, fp32)",
    "mamba_scan": "Mamba-2 chunked scan (torch reference, chunk_size chunks)",
    "mamba_norm": "Mamba-2 gated norm (out_proj input)",
    "short_conv": "short conv (in_proj output B, C, x; B * x)",
    "short_conv_output": "short conv output (padded) and C * conv (out_proj input)",
    "token_ids": "token ids (int64)",
    "rotary_tables": "rotary cos/sin tables (once per model)",
    "final_norm": "final norm and lm_head input",
    "log_probs": "log-probabilities (fp32, saved by the loss)",
    "labels": "labels (int64) and the loss's weight",
    "logits": "logits (held by the model output)",
    "checkpoints": "layer inputs (checkpoints)",
    "amp_weight_copies": "bf16 weight copies (autocast saves them for backward)",
    "lora_adapters": "LoRA adapters (fp32 input copy, A output)",
    "lora_dropout_masks": "LoRA dropout masks",
    "loss_grads": "loss gradients at the start of backward",
    "optimizer_step": "optimizer step temporaries",
    "recomputed_layer": "one layer recomputed in backward (saved tensors + temporaries)",
    "grad_between_layers": "gradient flowing between layers (and a tied lm_head's)",
    "freed_before_layers": "freed before the first layer is recomputed (loss and final norm)",
    # buffers a tool keeps beside the states (llmcourse.parallelism.tool_buffers)
    "ddp_buckets": "DDP's gradient buckets (a second copy of the gradients)",
    "fsdp_unsharded": "FSDP's gathered bf16 weights",
    "deepspeed_reduce_bucket": "DeepSpeed's reduce bucket",
    "deepspeed_prefetch_bucket": "DeepSpeed's stage-3 prefetch bucket",
    "deepspeed_live_parameters": "DeepSpeed's gathered parameters (at most)",
    # traffic per step (llmcourse.parallelism.communication_volume)
    "dp_gradients": "data parallel: gradients (all-reduce or reduce-scatter)",
    "dp_weights": "data parallel: weights (all-gather)",
    "tp_layers": "tensor parallel: the layers' four all-reduces per micro-batch",
    "tp_embedding_head": "tensor parallel: embedding and lm_head",
    "cp_ring_kv": "context parallel: K and V around the ring",
    "ep_all_to_all": "expert parallel: tokens to their experts and back",
}
"""Every accounting term's identifier (the keys of ``activation_terms`` and ``transients``,
which the modules sum and compare) and the words a table shows for it. The identifiers are
the interface between modules; a label may be reworded without changing any sum."""


def term_label(key):
    """The words for one term's identifier (the identifier itself when it has none)."""
    return TERM_LABELS.get(key, key)


# --- activations -----------------------------------------------------------------------



def _repeats(nh, nkv, repeated, view, amp):
    """``(k, v)``: how many times the attention kernel's saved k and v hold each KV head.
    Not ``repeated``: the kernel reads the KV heads (1, 1). Repeated by ``repeat_kv``:
    copies at every query head, unless the expansion stays a stride-0 ``view`` of the
    single KV head (1). Under autocast (fp32 weights) k leaves the rotary embedding in fp32
    and the KV cache transformers builds (``use_cache``, on by default outside gradient
    checkpointing) stores v in k's dtype, so the kernel's bf16 casts of the expanded k and v
    are dense copies at every head (with ``use_cache=False`` v keeps the view: a few kB
    less)."""
    full = nh // max(nkv, 1)
    if not repeated or full == 1:
        return 1, 1
    if view and not amp:
        return 1, 1
    return full, full


def sdpa_sliding_mask(cfg, kind, s):
    """Whether SDPA receives a materialized sliding-window mask in this layer kind: where
    the family's transformers code passes one (``Layout.sdpa_sliding_mask``) once a query
    would see past the window (seq_len >= sliding_window; a full layer, or a shorter
    sequence, runs causal without one)."""
    window = cfg.get("sliding_window")
    return (cfg.layout.sdpa_sliding_mask and kind.attention == "sliding_attention"
            and bool(window) and s >= window)
_QK_NORM = ("q_norm", "k_norm", "q_layernorm", "k_layernorm")


def mlp_width(tensors, h, component, per_expert=False):
    """A feed-forward block's intermediate width and whether it is gated, read off its
    matmul tensors (gated: gate, up and down = 3 x h x I values; plain: 2 x h x I)."""
    mm = [t for t in tensors if t.component == component and t.matmul and min(t.shape) > 1]
    if not mm:
        return 0, False
    elems = sum(t.numel // t.fused for t in mm)
    # Granite's input_linear is gate and up fused in one matrix
    gated = len(mm) >= 3 or any("gate" in t.name or "input_linear" in t.name for t in mm)
    return elems // ((3 if gated else 2) * h), gated


def kind_of(cfg, tensors):
    """The :class:`~llmcourse.layers.LayerKind` of the layer group whose tensors these are
    (a plain attention + MLP layer when they belong to none)."""
    for g in layer_groups(cfg):
        if g.tensors is tensors:
            return g.kind
    return LayerKind()


def layer_terms(cfg, tensors, is_moe, s, attention, act, tp, amp=False, frozen=False, b=1):
    """Bytes one layer saves for backward, per token (a dict of named terms;
    ``s`` only enters the eager attention-score term and the chunked mixers' padding,
    ``b`` the terms a layer saves once, whatever its tokens). The norms and the
    feed-forward widths are read off the layer's tensors (architectures.py); a mixer
    that is not softmax attention (the layer kind's ``attention``) has its own terms
    (:func:`_mixer_terms`), and a layer without a feed-forward block (``mlp == "none"``)
    none for it.

    ``frozen=True``: the layer's own weights need no gradient (a LoRA base; the adapters
    are counted by :mod:`llmcourse.finetune`). A matmul or a norm scale then keeps no
    input for a weight gradient: the norms keep their fp32 input and rstd only, the
    projections' inputs and the MLP's product (the down projection's input) are not
    saved, a routed expert keeps gate_up, act and its output (not its gathered input)."""
    h = cfg.hidden_size
    nh = cfg.num_attention_heads // tp
    nkv = cdiv(cfg.num_key_value_heads, tp)
    f32, i64 = 4, 8
    L = cfg.layout
    terms = {}
    if L.block == "two_mla_sublayers":   # LongCat-Flash: a shortcut MoE, its own rules
        return _longcat_layer_terms(cfg, s, is_moe, act, tp)
    if L.block == "hyper_connected_compressed":   # DeepSeek-V4: its own rules
        terms = _deepseek_v4_terms(cfg, kind_of(cfg, tensors), s, b, act, tp, attention,
                                   frozen)
        return {k: v for k, v in terms.items() if v}
    kind = kind_of(cfg, tensors)
    mixer = _mixer_terms(cfg, kind, tensors, s, b, act, tp, amp, attention)
    if mixer is None and kind.attention not in _SOFTMAX_KINDS:
        raise ConfigError(f"model: what a {kind.attention} layer saves for backward is not "
                          f"modelled, so {cfg.name}'s training memory is not counted")
    if mixer is not None:   # the mixer's own norms are its terms
        prefix = mixer.pop("_prefix")
        tensors = [t for t in tensors if not t.name.startswith(prefix)]
    own = {}
    if L.block == "hyper_connected_ngram":   # Qwen4-Exp: hyper-connections, n-gram PLE
        own = _qwen4_terms(cfg, kind, s, b, act, attention, tp)
        tensors = [t for t in tensors if not t.name.startswith(_QWEN4_OWN)]

    def add(name, v):
        terms[name] = terms.get(name, 0) + v

    # every norm the layer has, as HF runs it: RMSNorm keeps its input upcast to fp32,
    # its fp32 rstd and the normalized value (in fp32 for Gemma's (1 + w) form);
    # nn.LayerNorm (a norm with a bias) keeps its input, mean and rstd
    names = {t.name for t in tensors}
    for t in tensors:
        if t.component != "norms" or len(t.shape) != 1 or not t.name.endswith("weight"):
            continue
        w = t.shape[0]
        if t.name[:-len("weight")] + "bias" in names:
            cost = act * w + 2 * f32
        elif frozen:   # the normalized value is kept only for the scale's gradient
            cost = f32 * w + f32
        elif L.norm == "rms_fp32_weight":
            # w * fp32 normalized value, in fp32; a bf16 model keeps an fp32 copy of w
            cost = f32 * w + f32 + f32 * w + (Fraction(f32 * w, s * b) if act < f32 else 0)
        elif L.norm == "rms_one_plus_w":
            # fp32 normalized value times (1 + w.float()): that fp32 (1 + w) is a new tensor
            # the product keeps, once per norm call
            cost = f32 * w + f32 + f32 * w + Fraction(f32 * w, s * b)
        elif amp and w == h and t.name.rsplit(".", 2)[-2] not in _QK_NORM:
            # fp32 normalized value (under autocast the residual stream is fp32, while
            # QK-norm normalizes the bf16 q and k)
            cost = f32 * w + f32 + f32 * w
        else:
            cost = f32 * w + f32 + act * w
        base = t.name.rsplit(".", 2)[-2]
        if base in _QK_NORM:
            times = (nh if base[0] == "q" else nkv) if w == cfg.head_dim else 1
            once = Fraction(f32 * w, s * b) if L.norm == "rms_one_plus_w" else 0
            add("qk_norm", times * (cost - once) + once)
        elif w == h:
            add("norms", cost)
        elif cfg.uses_mla:
            add("mla_latents",
                cost + (0 if frozen else act * w))  # + the next matmul's input
        else:
            add("other_norms", cost)

    if kind.attention != "none":
        terms["attention_input"] = 0 if frozen else act * h
    if amp:
        # autocast caches the bf16 casts of weights, not of activations: each projection
        # that reads the fp32 norm output (q, k, v; the router; gate and up) casts and
        # saves its own bf16 copy of it, where a bf16 model shares one tensor
        def readers(components):
            return sum(1 for t in tensors if t.component in components and t.matmul
                       and not t.routed and len(t.shape) == 2 and t.shape[1] == h
                       and not any(x in t.name for x in ("o_proj", "out_proj", "dense")))
        extra = max(readers(("attention",)) - 1, 0) + max(readers(("mlp", "router",
                                                                   "shared_experts")) - 1, 0)
        if extra:
            terms["autocast_input_copies"] = act * h * extra
    if mixer is not None:
        terms.update(mixer)
    elif cfg.uses_mla:
        nope, rope, vd = cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim
        q_el = k_el = nh * (nope + rope)
        v_el = o_el = nh * vd
        nkv_k = nh
    else:
        hd = cfg.head_dim
        q_el, k_el, v_el, o_el = nh * hd, nkv * hd, nkv * hd, nh * hd
        nkv_k = nkv
    if mixer is not None:
        pass
    elif attention == "flash":
        # the kernel saves q, k, v (k and v at the KV heads: GQA saves memory here),
        # its output (also the o_proj input) and one fp32 log-sum-exp per head
        masked = sdpa_sliding_mask(cfg, kind, s)
        # with a mask, transformers' SDPA path repeats k and v to every query head first
        # (repeat_kv: a copy, or a stride-0 view of a single KV head)
        rep_k, rep_v = _repeats(nh, nkv_k, masked, view=nkv_k == 1, amp=amp)
        terms["qkv"] = act * (q_el + k_el * rep_k + v_el * rep_v)
        terms["attention_output"] = act * o_el
        terms["softmax_stats"] = f32 * nh
        if masked:   # SDPA keeps the sliding-window mask, as a float of the model's dtype
            terms["sliding_window_mask"] = act * s
    else:
        # eager: k and v repeated to every query head, the s x s probabilities in fp32
        # (plus their cast to the activation dtype when that is narrower). torch.matmul folds
        # (batch, heads) into one dimension: for one sequence with a single KV head,
        # repeat_kv's stride-0 expansion folds into a view, and the matmuls keep k and v at
        # their one head (MQA at micro-batch 1); otherwise they copy them to every head
        rep_k, rep_v = _repeats(nh, nkv_k, True, view=b == 1 and nkv_k == 1, amp=amp)
        terms["qkv"] = act * (q_el + k_el * rep_k + v_el * rep_v)
        terms["attention_output"] = act * o_el
        terms["attention_scores"] = nh * s * (f32 + (act if act < f32 else 0))
        if cfg.get("attn_logit_softcapping") and L.attention_softcap_eager:
            # Gemma 2: scores / cap, tanh, * cap: tanh keeps its output, s x s per head in
            # the scores' dtype (the matmul's)
            terms["attention_softcap"] = nh * s * act
    if mixer is None and not cfg.uses_mla and _output_gated(cfg, tensors):
        # Qwen3.5's gated attention: q_proj writes q and a gate; the output is multiplied by
        # sigmoid(gate): the sigmoid and the product are kept (with SDPA also the output's
        # reshaped copy); in fp32 the QK-norm's input is a view of q_proj's whole output
        terms["output_gate"] = (
            act * o_el * (3 if attention == "flash" else 2)
            + (f32 * q_el if act == f32 and any(t.name.endswith("q_norm.weight") for t in tensors)
               else 0))
    if kind.mlp == "none":   # a mixer-only block (Nemotron-H): no feed-forward terms
        return {k: v for k, v in terms.items() if v}
    # side by side (Phi), attention and MLP read one norm's output: kept once
    terms["mlp_input"] = act * h if not L.parallel and not frozen else 0
    if not is_moe:
        inter, gated = mlp_width(tensors, h, "mlp")
        inter = cdiv(inter, tp)
        # gated: gate, act(gate), up, act * up; plain: fc1's output (kept by the
        # activation function) and the activation's output (kept by fc2)
        # (frozen: the product / the activation's output only fed the frozen down matmul)
        terms["mlp"] = act * ((4 if gated else 2) - frozen) * inter
    else:
        E, k = cfg.num_experts, cfg.num_experts_per_tok
        inter = cdiv(mlp_width(tensors, h, "experts")[0], tp)
        # router: fp32 softmax over all experts, top-k indices; normalized top-k
        # probabilities save the k values and their sum
        router = f32 * E + i64 * k
        if cfg.get("norm_topk_prob", L.router_norm_topk):
            router += f32 * (k + 1)
        if L.router == "grouped":
            router += _group_router_extra(cfg, h, act, s, b)
        elif L.router == "topk_softmax":   # top-k of the fp32 logits, then a softmax over k
            router = (i64 + f32) * k
        elif L.router == "sigmoid":   # sigmoid scores in the activations' dtype, normalized
            router = act * E + i64 * k + act * (k + 1)
        terms["router"] = router
        # per (token, expert) pair: gathered input, gate_up, act, product, expert
        # output (multiplied by the routing weight), the weight (Mixtral keeps it in
        # fp32, Qwen3-MoE casts it to the router logits' dtype), three index tensors.
        # Under autocast the experts run in fp32: grouped_mm is not an autocast op and
        # transformers casts its input to the (fp32) weights' dtype, so every per-pair
        # tensor is fp32 (and no bf16 copy of the expert weights is saved)
        weight = f32 if L.router_weight_fp32 else act
        e_act = f32 if amp else act
        per_pair = (h + 3 * inter) if frozen else (2 * h + 4 * inter)
        terms["routed_experts"] = k * (e_act * per_pair + weight + 3 * i64)
        shared, _ = mlp_width(tensors, h, "shared_experts")
        if shared:
            terms["shared_experts"] = act * (4 - frozen) * cdiv(shared, tp)
    terms.update(own)
    return {k: v for k, v in terms.items() if v}


# Qwen4-Exp's own modules: their terms are _qwen4_terms', not the norm rules'
_QWEN4_OWN = ("attn_hyper_connection.", "mlp_hyper_connection.", "ple.", "self_attn.indexer.")


def _hyper_connection_terms(cfg, s, b, act, combine=True):
    """Bytes per token one Qwen4-Exp gated residual saves (``Qwen4ExpTextGatedResidual``: it
    stands where a layer norm would, over ``hc_count`` residual streams of ``hidden_size``
    each, W values a token): its grouped RMSNorm keeps the fp32 input (a copy in a bf16
    model, the stream itself in fp32), one fp32 rstd per stream and the fp32 normalized
    value ((1 + w) in fp32 once a layer); the low-rank mixer keeps the normalized streams
    (its down projection's input, also multiplied by the mix), the silu's input and output
    (hc_lowrank wide) and the sigmoid mix (W); ``combine``: the injection weights' sigmoid
    (one per stream), and the block's output times them (its output and the weights)."""
    f32 = 4
    n, r = cfg.hc_count, cfg.hc_lowrank
    W = n * cfg.hidden_size
    v = 2 * f32 * W + f32 * n + Fraction(f32 * W, s * b) + 2 * act * W + 2 * act * r
    if combine:
        v += act * n + act * cfg.hidden_size + act * n
    return v


def _qwen4_terms(cfg, kind, s, b, act, attention, tp):
    """Per-token bytes Qwen4-Exp (qwen4_exp_text) saves beyond Gated DeltaNet, gated
    attention and the MoE block, as transformers' PyTorch code runs it (CPU measurements,
    ``measurements/saved_activations_hybrid.py``):

    - two hyper-connections a layer (:func:`_hyper_connection_terms`), no layer norms;
    - the per-layer n-gram embedding (``ple``, where ``kind.ple``): the int64 hashed n-gram
      ids of each sequence (with ``ngram_size - 1`` tokens of context), the embedding (the
      key and value projections' input), three grouped RMSNorms over the W stream values
      (key, query: the residual streams, and the conv's input), the normalized key and
      query (multiplied), five per-stream gate values (abs, clamp, sqrt, sign, sigmoid),
      the value, and the dilated depthwise conv's padded input and its silu's input;
    - the indexer keeps nothing: its top-k selection is a boolean mask, so the graph it
      builds is freed when it returns; its mask makes SDPA run with an explicit mask, which
      it keeps as a float (s x s per sequence, in the activations' dtype) beside K and V
      repeated to every query head;
    - the shared expert's sigmoid gate: the gate and the shared expert's output."""
    h = cfg.hidden_size
    f32, i64 = 4, 8
    once, per_seq = Fraction(1, s * b), Fraction(1, s)
    terms = {"hyper_connections":
             2 * _hyper_connection_terms(cfg, s, b, act)}
    if kind.ple:
        n, W = cfg.hc_count, cfg.hc_count * h
        ng = cfg.get("ngram_size") or 3
        heads = (ng - 1) * cfg.heads_per_ngram
        K = cfg.ple_conv_kernel_size
        terms["ngram_embedding"] = (
            i64 * heads * (s + ng - 1) * per_seq + act * cfg.ple_embed_dim
            + 3 * (2 * f32 * W + f32 * n + f32 * W * once) + 2 * act * W + 5 * act * n + act * h)
        terms["ngram_conv"] = (
            act * W * (s + (K - 1) * ng) * per_seq + act * W)
    if kind.indexer:
        nh, nkv = cfg.num_attention_heads // tp, cdiv(cfg.num_key_value_heads, tp)
        if attention == "flash":
            terms["indexer_mask"] = (
                act * s + 2 * act * (nh - nkv) * cfg.head_dim)
    terms["shared_expert_gate"] = act * (h + 1)
    return terms


def _longcat_layer_terms(cfg, s, is_moe, act, tp):
    """Per-token bytes one LongCat-Flash sublayer saves (``LongcatFlashDecoderLayer`` holds
    two, which :mod:`llmcourse.architectures` lists as two layer groups): an MLA block and
    a dense gated MLP behind its own pair of RMSNorms; the first (``is_moe``) also feeds
    its MLP input to the layer's MoE block. Measured on CPU
    (``measurements/saved_activations_hybrid.py``):

    - each MLA block: its input, the q and kv latents' RMSNorms (fp32 input, rstd,
      normalized; the kv norm's fp32 input is a view of the whole kv_a output, k_pe
      included, in an fp32 model) and the up-projections' inputs; the attention itself
      runs SDPA's math path (q and v head widths differ, which the CPU flash kernel does
      not take): q, k, v and the fp32 s x s probabilities per head, as eager attention;
    - the MoE block: an fp32 softmax over the real and the zero-computation experts, the
      top-k indices; per (token, expert) pair routed to a real expert the gathered input,
      gate_up, act, product, output and weighted output, the weight and the index; per pair
      routed to a zero expert (the identity) the index, the weight, the input and the
      weighted output. **Estimate**: the share of pairs that land on zero experts depends
      on the router; taken as the uniform zero_expert_num / (experts + zero experts)."""
    h = cfg.hidden_size
    f32, i64 = 4, 8
    nh = cfg.num_attention_heads // tp
    ql, kl, rope = cfg.q_lora_rank, cfg.kv_lora_rank, cfg.qk_rope_head_dim
    qk, vd = cfg.qk_nope_head_dim + rope, cfg.v_head_dim
    inter = cdiv(cfg.ffn_hidden_size, tp)
    E, Z, k = cfg.n_routed_experts, cfg.get("zero_expert_num") or 0, cfg.moe_topk
    I = cdiv(cfg.expert_ffn_hidden_size, tp)
    norm = f32 * h + f32 + act * h
    kv_in = f32 * (kl + (rope if act == f32 else 0))
    mla = (act * h + (f32 * ql + f32 + act * ql + act * ql) + (kv_in + f32 + act * kl + act * kl))
    scores = nh * s * (f32 + (act if act < f32 else 0))
    real = Fraction(E, E + Z)
    terms = {
        "norms": 2 * norm,
        "mla_latents": mla,
        "qkv": act * nh * (2 * qk + vd),
        "attention_scores": scores,
        "attention_output": act * nh * vd,
        "mlp_input": act * h,
        "mlp": act * 4 * inter,
    }
    if is_moe:
        terms["router"] = f32 * (E + Z) + i64 * k   # zero experts included
        terms["routed_experts_zero"] = (
            k * real * (i64 + act * (3 * h + 4 * I) + act)
            + k * (1 - real) * (i64 + act + 2 * act * h))
    return terms


def _v4_rope(cfg):
    """DeepSeek-V4's rotary width: the trailing partial_rotary_factor of each head (64 of
    512 in the released models)."""
    return int(cfg.head_dim * (cfg.get("partial_rotary_factor") or Fraction(64, 512)))


def _v4_hyper_connection(cfg, s, b, act, head=False):
    """Bytes per token one DeepSeek-V4 hyper-connection saves (``DeepseekV4HyperConnection``;
    ``head=True``: ``DeepseekV4HyperHead``, the final collapse), over ``hc_mult`` (n)
    streams of hidden_size, W = n x hidden_size values a token. Exact on CPU:

    - the unweighted RMSNorm of the flattened streams: their fp32 form (the stream itself
      in fp32, a copy in bf16) and one fp32 rstd; the normalized value (the coefficient
      matmul's input, fp32);
    - the coefficient matmul's fp32 output, 2n + n x n values (pre, post, comb; the head:
      n), the sigmoids of pre and post and pre + eps (the collapse's weight);
    - comb's Sinkhorn-Knopp projection: the softmax (n x n) and, for each of its
      2 x hc_sinkhorn_iters - 1 normalizations, the numerator (n x n) and the sums (n);
    - the post-expand and the comb mix: the block's output (hidden_size) and post and
      comb cast to the activations' dtype;
    - bf16 only: the collapse keeps the bf16 streams (W) besides their fp32 copy, and the
      coefficient matrix is cast to fp32 once per layer (its .float()); the head also
      casts its one scale."""
    f32 = 4
    n, h = cfg.hc_mult, cfg.hidden_size
    W = n * h
    mix = n if head else 2 * n + n * n
    v = f32 * (2 * W + 1) + f32 * mix + f32 * (n if head else 2 * n) + f32 * n
    if not head:
        iters = cfg.get("hc_sinkhorn_iters") or 20
        v += f32 * (n * n + (2 * iters - 1) * (n * n + n)) + act * (h + n + n * n)
    if act < f32:
        v += act * W + Fraction(f32 * mix * W + (f32 if head else 0), s * b)
    return v


def _deepseek_v4_terms(cfg, kind, s, b, act, tp, attention, frozen=False):
    """Per-token bytes one DeepSeek-V4 layer saves, as transformers' PyTorch code runs it
    (eager attention, the only one it offers; CPU, ``measurements/saved_activations_hybrid.py``):
    exact to the byte in fp32 and bf16 for one sequence and for several.

    - two hyper-connections (:func:`_v4_hyper_connection`), one around attention, one
      around the MoE block; V4's RMSNorms multiply by an fp32 weight, so each keeps its
      fp32 input, rstd and an fp32 normalized value (the input norms, q_a_norm, kv_norm);
    - attention: the norm output (q_a_proj's, kv_proj's and the compressors' input), q's
      latent and its norm, q_b_norm (unweighted, per head: q in fp32 and its rstd; in
      bf16 also q and the rstd cast back), the interleaved rotary's cos and sin at full
      rotary width for q, for the K = V head and for undoing it on the output (six
      tensors of seq_len x rotary width, whatever the batch), q, the K = V head with the
      compressed entries appended (one head with one sequence; with more, PyTorch's
      matmul copies it to every head for the scores and again for the values), the
      max's int64 indices, the probabilities over the keys plus the sink (in the
      activations' dtype: the softmax runs in it), the grouped output projection's
      input and o_b_proj's;
    - the compressor (CSA, HCA) keeps, per window of compress_rate tokens, its fp32
      softmax over the window (CSA: 2 x rate slots, the overlapping Ca / Cb halves; in
      bf16 also its cast), the values it weights (HCA: kv_proj's whole output; CSA: the
      2 x rate slot copy), the compressed entries' RMSNorm and rotary cos/sin; a CSA
      layer's indexer keeps the same at index_head_dim (the cache transformers builds
      holds its compressed keys, so that graph stays; its scores feed only a top-k and
      keep nothing);
    - MoE: the router's input, its score function's two tensors (sqrt(softplus)), the
      int64 top-k (hash layers: the table's) indices, the gathered weights and their sum;
      per (token, expert) pair the gathered input, gate_up, the clamped gate and up, the
      silu, the product, the routing weight, the weighted output and three int64
      indices; the shared expert's gate and up outputs, their clamps, silu and product.

    ``attention="flash"`` (no such path in transformers for V4: an **estimate** of what a
    fused kernel with sinks would keep): q, the K = V head with its compressed entries,
    the output and one fp32 log-sum-exp per head, in place of the probabilities.
    ``frozen`` (a LoRA base): an **approximation**: the projections' inputs are dropped
    (no weight gradient), everything else is counted as trained."""
    f32, i64 = 4, 8
    h, d, qr = cfg.hidden_size, cfg.head_dim, cfg.q_lora_rank
    nh = cfg.num_attention_heads // tp
    rope = _v4_rope(cfg)
    norm = lambda w: f32 * (2 * w + 1)   # noqa: E731  fp32 input, rstd, fp32 normalized
    mm = 0 if frozen else 1              # a projection's input: kept for its weight grad
    per_pos = Fraction(1, b)             # a tensor of seq_len rows, shared by the batch
    terms = {"v4_hyper_connections":
             2 * _v4_hyper_connection(cfg, s, b, act)}
    terms["norms"] = 2 * norm(h)
    terms["attention_input"] = act * h * mm
    q_norm = f32 * nh * (d + 1) + (act * nh * (d + 1) if act < f32 else 0)
    terms["v4_q_latent"] = norm(qr) + act * qr * mm + q_norm
    terms["v4_kv_norm"] = norm(d)
    terms["v4_rotary"] = 6 * act * rope * per_pos
    rates = cfg.get("compress_rates") or {}
    n_c = 0
    if kind.attention in ("compressed_sparse_attention", "heavily_compressed_attention"):
        csa = kind.attention == "compressed_sparse_attention"
        m = rates.get(kind.attention) or (4 if csa else 128)
        n_c = s // m
        per_win = Fraction(n_c, s)

        def compressor(width, slots):
            soft = f32 * width * slots * per_win * (1 + (Fraction(act, f32) if act < f32 else 0))
            # HCA weights kv_proj's output in place (none kept below one whole window)
            values = act * width * slots * per_win if csa else act * width * (n_c > 0)
            return soft + values + norm(width) * per_win + 2 * act * rope * per_win
        terms["v4_compressor"] = (
            compressor(d, 2 * m) if csa else compressor(d, m))
        if csa:
            terms["v4_indexer_compressor"] = compressor(
                cfg.index_head_dim, 2 * m)
    keys = Fraction(s + n_c, s)   # keys per query position: the sequence + compressed entries
    terms["qkv"] = act * nh * d + (
        act * d * keys if b == 1 or attention == "flash" else 2 * act * nh * d * keys)
    if attention == "flash":
        terms["attention_output"] = act * nh * d
        terms["softmax_stats"] = f32 * nh
    else:
        terms["attention_scores"] = act * nh * (s + n_c + 1) + i64 * nh
    terms["v4_grouped_output"] = (
        act * (nh * d + cfg.o_groups * cfg.o_lora_rank // tp) * mm)
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    I = cdiv(cfg.moe_intermediate_size, tp)
    terms["mlp_input"] = act * h * mm
    terms["router"] = 2 * act * E + i64 * k + act * (k + 1)
    terms["routed_experts"] = k * (act * (h * (1 + mm) + 6 * I + 1) + 3 * i64)
    terms["shared_experts"] = act * 6 * I
    return terms


# softmax-attention layers, whose terms are the common rules below
_SOFTMAX_KINDS = ("full_attention", "sliding_attention", "chunked_attention",
                  "indexed_attention")
# layer shapes whose terms have no frozen-weight (LoRA base) form: Gemma 4's
_NO_FROZEN_FORM = ("per_kind_heads_kv_shared",)


def has_frozen_form(cfg):
    """Whether :func:`layer_terms` can count this model's layers with frozen weights (a
    LoRA base) for every recomputation setting (else only under full recomputation)."""
    return cfg.layout.block not in _NO_FROZEN_FORM


def _mixer_prefix(tensors, what):
    """The name prefix of a layer's ``what`` mixer (Mamba-2's: ``mamba.`` in Granite 4.0,
    ``mixer.`` in Nemotron-H), read off the tensor only it has (its A_log)."""
    return next(t.name[:-len("A_log")] for t in tensors if t.name.endswith("A_log"))


def _output_gated(cfg, tensors):
    """Whether q_proj also writes a per-head output gate (twice the query width)."""
    return any(t.name.endswith("q_proj.weight") and t.shape[0] == 2 * cfg.num_attention_heads
               * cfg.head_dim for t in tensors)


# transformers' chunked delta-rule reference (torch_chunk_gated_delta_rule): 64 tokens a chunk
DELTA_RULE_CHUNK = 64


def _mixer_terms(cfg, kind, tensors, s, b, act, tp, amp=False, attention="flash"):
    """Per-token bytes a token mixer that is not softmax attention saves (named terms,
    and ``"_prefix"``: the name prefix of the mixer's own tensors), or None for softmax
    attention (the caller's rules).

    **Mamba-2** (Nemotron-H's ``mamba`` blocks, Granite 4.0's): what transformers' PyTorch
    path saves (``torch_forward`` with its chunked scan, ``chunk_size`` tokens a chunk;
    mamba-ssm's fused kernel saves far less): the in_proj output and the padded
    convolution output, the silu's output (fp32; a bf16 model keeps fp32 copies of x, B
    and C instead), dt, the chunk matrices (L, C B^T, their product: chunk_size x
    chunk_size per head), one state per chunk, and the gated RMSNorm; equal to what
    PyTorch saves in every measured setting (fp32 and bf16, one or two sequences,
    ``tests/test_training_hybrid_layers.py`` and ``tests/test_training_hybrid_layers.py``).

    **Gated DeltaNet** (Qwen3.5's ``linear_attention``): what transformers' PyTorch code
    saves (``torch_chunk_gated_delta_rule``, the path that runs without
    flash-linear-attention, e.g. on a CPU), exactly for one sequence padded to two or
    more chunks, within 3% otherwise (PyTorch's matmuls then copy a few operands
    differently; ``tests/test_training_hybrid_layers.py``):
    the q, k, v projection (the short convolution's input) and the convolution's output,
    padded by ``kernel - 1`` positions per sequence; the gates (beta; the decay's input
    and softplus in fp32); q and k in fp32, l2-normalized; the chunked recurrence, in
    fp32 over the sequence padded to a multiple of 64: per token and value head the
    padded v, k, q, beta, k * beta, the decays, five 64 x 64 chunk matrices (decays,
    k k^T, q k^T, the triangular system, the masked q k^T), the solved values and
    decayed keys, and per chunk one recurrent state (dk x dv per head); then the gated
    RMSNorm of the output (fp32 input, rstd, normalized, the gate's fp32 silu, the
    product). A fused kernel (flash-linear-attention) saves far less: it keeps q, k, v,
    the gates and a few per-chunk tensors, and recomputes the 64 x 64 matrices in its
    backward; this count is an upper bound for it.
    """
    f32 = 4
    L = cfg.layout
    if L.block == "per_kind_heads_kv_shared" and kind.attention in ("sliding_attention",
                                                                    "full_attention"):
        return _gemma4_terms(cfg, kind, tensors, s, b, act, tp, attention)
    if L.linear_attention == "kda" and kind.attention == "linear_attention":
        return _kda_terms(cfg, s, b, act, tp)
    if cfg.uses_mla and kind.attention in ("full_attention", "indexed_attention"):
        return _mla_terms(cfg, kind, s, b, act, tp, attention, indexer=kind.indexer)
    if kind.attention == "linear_attention" and cfg.get("linear_num_value_heads"):
        hv = cdiv(cfg.linear_num_value_heads, tp)
        hk = cdiv(cfg.linear_num_key_heads, tp)
        dk, dv = cfg.linear_key_head_dim, cfg.linear_value_head_dim
        K, C = cfg.linear_conv_kernel_dim, DELTA_RULE_CHUNK
        conv = 2 * hk * dk + hv * dv
        n = cdiv(s, C)
        padded = Fraction(n * C, s)          # padded tokens per token
        per_seq = Fraction(1, s)             # once per sequence
        once = Fraction(1, s * b)            # once per layer
        return {
            "_prefix": "linear_attn.",
            "gdn_conv":
                act * conv + act * conv * (s + K - 1) * per_seq,
            "gdn_gates": act * hv + 2 * f32 * hv + 2 * f32 * hv * once,
            "gdn_qk": 2 * f32 * hv * (dk + 1),
            "gdn_recurrence":
                f32 * hv * (4 + 5 * C + 3 * dv + 6 * dk) * padded
                + f32 * hv * n * (1 + dk * dv) * per_seq + C * C * once,
            "gdn_output":
                hv * dv * (3 * f32 + 3 * act) + f32 * hv,
        }
    if kind.attention == "conv":
        return _short_conv_terms(cfg, s, act, tp)
    if kind.attention == "none":   # a Nemotron-H MLP or MoE block: no mixer at all
        return {"_prefix": "mixer.self_attn."}
    if kind.attention == "mamba":
        m = mamba_dims(cfg)   # Nemotron-H's or Granite 4.0's field names, one module
        H = cdiv(m.heads, tp)
        P, N, G = m.head_dim, m.state, cdiv(m.groups, tp)
        K = m.kernel
        C = m.chunk
        inner, conv = H * P, H * P + 2 * G * N
        n = cdiv(s, C)
        padded, per_seq, once = Fraction(n * C, s), Fraction(1, s), Fraction(1, s * b)
        narrow = act < f32   # fp32 copies that an fp32 model does not make
        return {
            "_prefix": _mixer_prefix(tensors, "mamba"),
            "mamba_conv":
                act * (2 * inner + 2 * G * N + H) + act * conv * (s + K - 1) * per_seq
                # fp32: the silu's output (x, B and C in fp32 are views of it; a narrower
                # model keeps fp32 copies instead, counted with dt and the scan)
                + act * conv * (not narrow),
            "mamba_dt": 2 * act * H + f32 * H * (1 + narrow) + f32 * inner * narrow
                + 2 * f32 * H * once,
            "mamba_scan":
                f32 * (4 * inner + 3 * H * C + 5 * H * N + 2 * H) * padded
                + f32 * (H * (n + 1) ** 2 + (2 * n + 1) * H * P * N) * per_seq
                + (2 * C * C + 2 * (n + 1) ** 2) * once,
            "mamba_norm":
                f32 * inner * (3 + narrow) + f32 * inner * padded + f32 * G + act * inner,
        }
    return None


def _short_conv_terms(cfg, s, act, tp):
    """Per-token bytes LFM2's gated short convolution saves (``Lfm2MoeShortConv``, the
    PyTorch path; exact against the CPU measurement): in_proj writes B, C and x (3 x
    hidden, one tensor: the products keep views of it), B * x (the convolution's input),
    the depthwise convolution's output, padded by ``conv_L_cache - 1`` positions per
    sequence (C * it keeps the padded buffer), and C * conv, transposed into a contiguous
    copy (out_proj's input)."""
    h = cdiv(cfg.hidden_size, tp)
    K = cfg.conv_L_cache
    return {
        "_prefix": "conv.",
        "short_conv": act * 3 * h + act * h,
        "short_conv_output":
            act * h * Fraction(s + K - 1, s) + act * h,
    }


# the layer's own tensors that _gemma4_terms counts (its attention, every norm, the
# per-layer-embedding gate); the MLP and the routed experts follow the common rules
_GEMMA4_OWN = ("self_attn.", "input_layernorm", "post_attention_layernorm",
               "pre_feedforward_layernorm", "post_feedforward_layernorm", "per_layer_",
               "post_per_layer_input_norm", "layer_scalar")


def _gemma4_norm(w, rows, act, s, b):
    """Bytes per token of Gemma 4's RMSNorm (``x.float()``, ``x * pow(mean(x^2) + eps, -0.5)``,
    times ``weight.float()``) over ``rows`` rows of width ``w``: the fp32 input, the
    mean square and its ``pow`` (two fp32 values a row: ``pow`` keeps its input, the
    product its output), the fp32 normalized value; a bf16 model also keeps the fp32
    copy of the weight, once per call. ``w=0``-weight norms (v_norm) are counted apart."""
    f32 = 4
    return rows * (2 * f32 * w + 2 * f32) + (Fraction(f32 * w, s * b) if act < f32 else 0)


def _gemma4_terms(cfg, kind, tensors, s, b, act, tp, attention):
    """Per-token bytes of one Gemma 4 layer's attention, norms and per-layer-embedding
    gate, as transformers' ``Gemma4TextDecoderLayer`` saves them (exact on CPU, fp32 and
    bf16, SDPA and eager; ``tests/test_training_hybrid_layers.py``):

    * every norm (four of the hidden width, five with per-layer embeddings; q_norm and
      k_norm per head): :func:`_gemma4_norm`; v_norm has no scale, so only its fp32 input
      and two values a row (its input is k_norm's where K = V, in an fp32 model);
    * the attention's own: q_proj's input (the norm output, in the model's dtype, the
      caller's "attention input" term), q after the rotation, and with SDPA the kernel's
      k, v, output and fp32 log-sum-exp. A sliding layer whose window is shorter than the
      sequence passes a mask, so SDPA gets k and v repeated to every query head and saves
      the mask converted to the model's dtype (s x s per sequence, every sliding layer);
      a full layer (no mask) runs SDPA's GQA at the KV heads, and a KV-shared layer then
      saves nothing new for k and v (they are the earlier layer's). Eager: q, k and v
      repeated to every query head (copies, even in a KV-shared layer), the fp32 s x s
      probabilities (and their cast), the o_proj input (for one sequence with a single KV
      head, or none to repeat, k and v are views of the KV heads instead);
    * with per-layer embeddings: the gate's input (the residual), its output and GELU
      output, the product (the projection's input)."""
    f32 = 4
    h = cfg.hidden_size
    hd = kind.head_dim or cfg.head_dim
    nh = cdiv(cfg.num_attention_heads, tp)
    nkv = cdiv(kind.kv_heads or cfg.num_key_value_heads, tp)
    k_eq_v = bool(cfg.get("attention_k_eq_v")) and kind.attention == "full_attention"
    n_h_norms = sum(1 for t in tensors if t.component == "norms" and t.shape == (h,))
    norms = n_h_norms * _gemma4_norm(h, 1, act, s, b) + _gemma4_norm(hd, nh, act, s, b)
    if not kind.kv_shared:
        norms += _gemma4_norm(hd, nkv, act, s, b)   # k_norm
        # v_norm: fp32 input (k_norm's own in an fp32 model where K = V) and two values a row
        norms += f32 * nkv * hd * (0 if k_eq_v and act == f32 else 1) + 2 * f32 * nkv
    terms = {"gemma4_norms": norms}
    masked = kind.attention == "sliding_attention" and s >= cfg.sliding_window
    if attention == "flash":
        # no mask: SDPA's own GQA reads the KV heads; with a mask, repeat_kv copies them
        # (a view of the one head when there is a single KV head)
        copies = masked and 1 < nkv < nh
        kv = 0 if kind.kv_shared and not copies else 2 * act * (nh if copies else nkv) * hd
        terms["qkv"] = act * nh * hd + kv
        terms["attention_output"] = act * nh * hd
        terms["softmax_stats"] = f32 * nh
        if masked:
            terms["sliding_window_mask"] = act * s
    else:
        # torch.matmul folds (batch, heads) into one dimension: a view of k and v (the KV
        # heads' own storage) for one sequence when repeat_kv is itself a view (one KV head)
        # or has nothing to repeat; a copy at every query head otherwise
        view = b == 1 and (nkv == 1 or nkv == nh)
        kv = 0 if kind.kv_shared and view else 2 * act * (nkv if view else nh) * hd
        terms["qkv"] = act * nh * hd + kv
        terms["attention_output"] = act * nh * hd
        terms["attention_scores"] = nh * s * (f32 + (act if act < f32 else 0))
    p = cfg.get("hidden_size_per_layer_input") or 0
    if p:
        terms["per_layer_embedding_gate"] = act * (h + 3 * p)
    return dict(terms, _prefix=_GEMMA4_OWN)


def _gemma4_global_terms(cfg, s, b, act):
    """Gemma 4's terms outside the layers, beside the common ones: the rotary tables of
    both layer widths (sliding head_dim, full global_head_dim), the final norm as
    :func:`_gemma4_norm`, and with per-layer embeddings the projection's bf16 input (an
    fp32 model shares it with the first norm's), its norm over the layers' slices and
    the per-layer inputs (every layer's slice, kept once)."""
    f32 = 4
    h, L = cfg.hidden_size, cfg.num_hidden_layers
    kinds = {k.attention for k in cfg.layer_schedule.counts()}
    widths = (cfg.head_dim if "sliding_attention" in kinds else 0) \
        + ((cfg.get("global_head_dim") or cfg.head_dim) if "full_attention" in kinds else 0)
    out = {"rotary_tables": 2 * act * s * widths,
           "final norm": _gemma4_norm(h, 1, act, s, b)}
    p = cfg.get("hidden_size_per_layer_input") or 0
    if p:
        out["per_layer_embeddings"] = (
            act * h if act < f32 else 0) + _gemma4_norm(p, L, act, s, b) + act * L * p
    return out




def _group_router_extra(cfg, h, act, s, b):
    """What the group-limited router holds per token beyond the softmax router's fp32
    scores, top-k indices and normalized weights: it runs in fp32, so a bf16 model also
    keeps fp32 copies of its input and (once per layer) of its weight. The int64 indices
    of each group's best scores and of the chosen groups and the bool mask of the experts
    left out are saved too, but feed no gradient: they are freed before the forward ends
    (measured: counting only what is still held). Its routing weights stay fp32 (the
    caller's per-pair weight)."""
    E = cfg.num_experts
    return 4 * h + Fraction(4 * E * h, s * b) if act < 4 else 0


def _mla_terms(cfg, kind, s, b, act, tp, attention, indexer=False):
    """Per-token bytes of one multi-head latent attention block (DeepSeek-V3's MLA) as
    transformers' PyTorch code saves it (exact on CPU in fp32 and bf16, eager):

    * the latents and their RMSNorms: q_a_proj's output (the norm's fp32 input), its rstd,
      the normalized value and q_b_proj's input; kv_a_proj's output likewise, where the
      norm's input is the whole latent (kv_lora_rank + the rotary part) in an fp32 model
      and an fp32 copy of its kv_lora_rank part in bf16;
    * q and k (nope + rope per head, both new tensors), and v, a view of kv_b_proj's
      output: autograd keeps that whole output (k_nope and v per head) when the kernel
      reads the view (FlashAttention; eager with one sequence, where the matmul folds
      batch and heads into a view; with more, it copies v);
    * FlashAttention: its output and fp32 log-sum-exp; eager: the fp32 probabilities
      (and their cast), the o_proj input.

    DSA's lightning indexer (``indexer=True``: GLM-5, DeepSeek-V3.2) runs under
    ``torch.no_grad`` in transformers (its top-k choice has no gradient): it saves
    nothing, only the s x s mask it builds changes which keys each query sees. On CPU
    PyTorch's SDPA runs that masked MLA (q and v of different widths) in its math
    kernel, which keeps what eager keeps in fp32 (s x s probabilities; in bf16 fp32
    copies of q, k and v): a GPU kernel does not, so ``attention="flash"`` counts the
    kernel's q, k, v, output and log-sum-exp (``tests/test_training_hybrid_layers.py``)."""
    f32 = 4
    nh = cdiv(cfg.num_attention_heads, tp)
    nope, rope, vd = cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim
    qr, kvr = cfg.get("q_lora_rank"), cfg.kv_lora_rank
    latents = (f32 * qr + f32 + 2 * act * qr) if qr else 0
    latents += f32 * (kvr + (rope if act == f32 else 0)) + f32 + 2 * act * kvr
    qk = nh * (nope + rope)
    view = attention == "flash" or b == 1
    v = nh * (nope + vd) if view else nh * vd
    terms = {"mla_latents": latents,
             "qkv": act * (2 * qk + v),
             "attention_output": act * nh * vd}
    if attention == "flash":
        terms["softmax_stats"] = f32 * nh
    else:
        terms["attention_scores"] = nh * s * (f32 + (act if act < f32 else 0))
    return dict(terms, _prefix="self_attn.")


def _kda_terms(cfg, s, b, act, tp):
    """Per-token bytes of Kimi Delta Attention (Kimi-Linear's ``linear_attention`` layers)
    as transformers' PyTorch reference saves them (``chunk_kimi_delta_attention``, the path
    that runs without flash-linear-attention, e.g. on a CPU): an **estimate** from the
    tensors it saves, within a few percent (``tests/test_training_hybrid_layers.py``).

    Per token: the stacked q, k, v short convolution's input; the low-rank forget and
    output gates' inner values and beta; the forget gate's softplus (its where-mask, exp
    and log input) and decay, per channel; q and k in fp32, l2-normalized; the output's
    gated RMSNorm and o_proj's input. The chunked recurrence, in fp32 over the sequence
    padded to 64-token chunks, keeps per chunk and head: the decay mask and two
    64 x 64 x head_dim products (the decay is per channel, so these are head_dim times
    Gated DeltaNet's 64 x 64 matrices), the row-by-row triangular solve (each of the 63
    rows saves its row and the i x i block above it: about 64^3 / 3 values), the solved
    64 x 64 matrices and the padded q, k, v, beta and their decayed forms, and one state
    (head_dim x head_dim) per chunk. A fused kernel (flash-linear-attention) saves far
    less: it keeps q, k, v, the gates and a few per-chunk tensors and recomputes the
    chunk matrices in its backward; this count is an upper bound for it."""
    f32, C = 4, DELTA_RULE_CHUNK
    H = cdiv(cfg.linear_num_heads, tp)
    d = cfg.linear_head_dim
    n = cdiv(s, C)
    per_chunk = f32 * H * ((C - 1) * C + Fraction((C - 1) * C * (2 * C - 1), 6)
                           + 3 * C * C * d + 2 * C * C + 3 * C * d + C + 9 * C * d + d * d)
    per_token = (act * 3 * H * d + act * (2 * d + H)
                 + f32 * (2 * H * d + 2 * H) + 9 * H * d + f32 * H * d)
    once = 3 * C * C + 2 * f32 * H + (2 * f32 * d if act < f32 else 0)
    return {
        "_prefix": "self_attn.",
        "kda_conv_gates":
            per_token,
        "kda_recurrence": per_chunk * n / s + Fraction(once, s * b),
        "kda_output": f32 * (3 * H * d + H) + act * H * d,
    }


def global_terms(cfg, s, b, act, tp, amp=False, frozen=False):
    """Bytes saved outside the layers, for the whole micro-batch (``frozen``: a LoRA base,
    whose embedding keeps no token ids and whose lm_head keeps no input)."""
    h, V = cfg.hidden_size, cdiv(cfg.vocab_size, tp)
    f32, i64 = 4, 8
    L = cfg.layout
    if cfg.uses_mla:
        rot = cfg.qk_rope_head_dim
    elif L.partial_rotary:   # RoPE on part of each head (Phi-2, Qwen3.5): that part's table
        field, fraction = L.partial_rotary
        rot = int(cfg.head_dim * (cfg.get(field) or fraction))
    else:
        rot = cfg.head_dim
    if L.norm == "layer":   # LayerNorm with a bias: its input, mean and rstd
        final_norm = act * h + 2 * f32
    elif L.norm == "rms_fp32_weight" and not frozen:   # fp32 normalized value (+ fp32 w)
        final_norm = f32 * h + f32 + f32 * h + (Fraction(f32 * h, s * b) if act < f32 else 0)
    elif L.norm == "rms_one_plus_w" and not frozen:
        # fp32 normalized value times the fp32 (1 + w), a new tensor kept once
        final_norm = f32 * h + f32 + f32 * h + Fraction(f32 * h, s * b)
    else:
        final_norm = f32 * h + f32 + (0 if frozen else (f32 if amp else act) * h)
    if L.rope_per_attention_kind:
        # one cos/sin pair per attention kind: the local (sliding) layers' own rotary base
        # (Gemma 3's rope_local_base_freq) beside the global one
        kinds = {k.attention for k in cfg.layer_schedule.counts()}
        rot = cfg.head_dim * (("sliding_attention" in kinds) + ("full_attention" in kinds))
    if L.rope_if and cfg.get(L.rope_if[0]) != L.rope_if[1]:
        rot = 0   # NoPE: no rotary tables (Granite 4.0 without position_embedding_type rope)
    if L.extra_globals == "hyper_connection_mixer":   # the streams mixed into one: no norm
        final_norm = _hyper_connection_terms(cfg, s, b, act, combine=False)
    if L.block == "hyper_connected_compressed":
        # each layer expands its own cos/sin (its terms); the head collapses the streams,
        # then the final RMSNorm keeps an fp32 normalized value (fp32 weight)
        rot = 0
        final_norm = (_v4_hyper_connection(cfg, s, b, act, head=True)
                      + (f32 * h + f32 + (0 if frozen else f32 * h)))
    g4 = (_gemma4_global_terms(cfg, s, b, act)
          if L.block == "per_kind_heads_kv_shared" and not amp else {})
    if g4:
        final_norm = g4["final norm"] if not frozen else final_norm
        rot = Fraction(g4["rotary_tables"], 2 * act * s)
    per_layer_embeddings = {k: v * s * b for k, v in g4.items() if k.startswith("per_layer")}
    return per_layer_embeddings | {
        "token_ids": 0 if frozen else i64 * s * b,
        # cast to the hidden states' dtype: fp32 under autocast (fp32 weights)
        "rotary_tables": 2 * (f32 if amp else act) * s * rot,
        "final_norm": (final_norm + (0 if frozen else act * h)) * s * b,
        "log_probs": f32 * V * s * b,
        # the shifted labels; with one sequence the slice is already contiguous, so the
        # padded (seq_len + 1) buffer is what is kept
        "labels": i64 * (s * b + (b == 1)) + f32,
        # Gemma's final-logit softcapping: logits / cap, tanh, * cap: tanh keeps its output
        "final_softcap": (act * V * s * b if cfg.get("final_logit_softcapping")
                          and L.final_softcap else 0),
        "logits": act * V * s * b,
    }
