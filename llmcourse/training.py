"""What training costs: memory per GPU and compute, from a model's ``config.json``.

Two kinds of number live here, and the course keeps them apart:

* **Exact bookkeeping** (:func:`training_memory`'s ``params``, ``grads`` and
  ``optimizer``): bytes per parameter under a named convention, times the exact
  parameter count, divided over GPUs as ZeRO and tensor parallelism divide them.
  For fp32 and AdamW this equals, to the byte, what PyTorch holds after one
  ``optimizer.step()`` (``tests/test_training_torch.py``).
* **Activation memory** (``activations``, ``logits``): the tensors that autograd
  saves for the backward pass, one entry per tensor a Hugging Face ``transformers``
  decoder layer saves (its norms, q/k/v, the attention kernel's outputs, the MLP or
  the routed experts). For Llama, Qwen3, Qwen3-MoE and Mixtral (fp32, bf16 and autocast)
  it matches the bytes PyTorch saves, measured with ``torch.autograd.graph.saved_tensors_hooks`` on CPU
  (``benchmarks/measure_activations.py``, ``llmcourse/data/activations_measured.json``);
  a layer that is not softmax attention counts its own mixer's tensors (Qwen3.5's Gated
  DeltaNet exactly as transformers' PyTorch path saves them, Mamba-2 (Nemotron-H, Granite
  4.0) exactly in the measured settings, Kimi Delta Attention within 1%), Gemma 4's layers
  and MLA with DSA's indexer (eager) are counted to the byte
  (``benchmarks/measure_activations_2026.py``, ``benchmarks/measure_activations_2026_more.py``,
  ``tests/test_training_2026.py``, ``tests/test_training_2026_more.py``); for the other
  families the same per-tensor rules are an estimate.

Everything is closed-form arithmetic on the layer groups of
:mod:`llmcourse.architectures`: the cost does not grow with a number's size.
Standard library only.
"""

from __future__ import annotations

from fractions import Fraction

from .architectures import global_tensors, layer_groups, mamba_dims
from .config import ConfigError
from .layers import LayerKind
from .counts import flops_per_token, param_count
from .zoo import as_config

__all__ = ["PRECISIONS", "OPTIMIZERS", "RECOMPUTE", "ATTENTION", "TrainingMemory",
           "training_memory", "bytes_per_param", "fewest_gpus", "layer_activation_bytes",
           "data_parallel_size",
           "measured_activations", "korthikanti_activation_bytes", "TrainingFlops", "training_flops",
           "training_time", "CHINCHILLA_TOKENS_PER_PARAM", "chinchilla_tokens", "MFU_CONVENTIONS",
           "RESERVE_FRACTION", "usable_bytes", "fit_verdict", "measured_peaks", "PP_SCHEDULES",
           "pipeline_stages", "in_flight_micro_batches", "pipeline_bubble", "activation_accuracy"]

# --- conventions: bytes per parameter ------------------------------------------------
# param: the weights the forward pass reads; grad: the gradient buffer;
# master: an fp32 copy the optimizer updates (mixed precision);
# accum: an extra fp32 gradient buffer kept beside the bf16 one (fp32 accumulation);
# act: bytes of one activation value.
PRECISIONS = {
    "fp32": dict(param=4, grad=4, master=0, accum=0, act=4,
                 about="fp32 weights 4 + fp32 grads 4"),
    "bf16-mixed": dict(param=2, grad=2, master=4, accum=0, act=2,
                       about="bf16 weights 2 + bf16 grads 2 + fp32 master weights 4 "
                             "(pure bf16 forward: FSDP MixedPrecision(param_dtype=bf16), "
                             "DeepSpeed bf16; ZeRO paper, Ultra-Scale Playbook)"),
    "bf16-mixed-fp32-grads": dict(param=2, grad=4, master=4, accum=0, act=2,
                                  about="bf16 weights 2 + fp32 grads 4 + fp32 master 4 "
                                        "(DeepSpeed's fp32 gradient partition, Megatron's "
                                        "fp32 main_grad; Transformer Math 101)"),
    "amp-bf16": dict(param=4, grad=4, master=0, accum=0, act=2,
                     about="fp32 weights 4 + fp32 grads 4 under torch.autocast(bfloat16) "
                           "(Hugging Face Trainer bf16=True, PyTorch AMP), plus a bf16 copy of "
                           "every weight matrix that autocast saves for backward, 2 (routed "
                           "experts excepted: transformers runs them in fp32)"),
    "bf16-mixed-fp32-accum": dict(param=2, grad=2, master=4, accum=4, act=2,
                                  about="bf16 weights 2 + bf16 grads 2 + fp32 grad "
                                        "accumulation buffer 4 + fp32 master 4 "
                                        "(Ultra-Scale Playbook, fp32 accumulation)"),
}

# optimizer state per parameter: (bytes, about). AdamW also keeps one fp32 ``step``
# per parameter *tensor* (PyTorch stores it as a 0-d tensor); 8-bit Adam keeps m and v
# in 8 bits with one fp32 scale per block of 2,048 values (Dettmers et al. 2022), and
# bitsandbytes keeps tensors under 4,096 values (min_8bit_size) in fp32.
OPTIMIZERS = {
    "adamw": (8, "AdamW: m and v in fp32, 8 (+ a 4-byte step per tensor)"),
    "sgd-momentum": (4, "SGD with momentum: one fp32 buffer, 4"),
    "sgd": (0, "plain SGD: no state"),
    "adamw-8bit": (2, "8-bit AdamW: m and v in int8, 2 (+ fp32 scales per 2,048 values)"),
}
BLOCK_8BIT = 2048
MIN_8BIT_SIZE = 4096

RECOMPUTE = ("none", "selective", "full")
LOSSES = ("plain", "chunked")
ATTENTION = ("flash", "eager")
MAX_TOKENS = 2**40   # seq_len, micro_batch: far above any real run
MAX_GPUS = 2**24


def _int(name, v, lo=1, hi=MAX_TOKENS):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(f"{name}: must be a whole number (got {v!r})")
    if v < lo:
        raise ConfigError(f"{name}: must be at least {lo} (got {v!r})")
    if v > hi:
        raise ConfigError(f"{name}: must be at most {hi:,} (got {v!r})")
    return v


def _choice(name, v, options):
    if v not in options:
        raise ConfigError(f"{name}: must be one of {', '.join(map(str, options))} (got {v!r})")
    return v


def _cdiv(a, b):
    return -(-a // b)


def _groups(cfg):
    """``[(n_layers, tensors, is_moe), ...]``: one entry per layer kind, its layer count
    by arithmetic (a layer schedule's runs), so a billion layers cost what 32 cost."""
    return [(g.count, g.tensors, any(t.routed for t in g.tensors)) for g in layer_groups(cfg)]


def bytes_per_param(precision="bf16-mixed", optimizer="adamw"):
    """Bytes per parameter of weights + grads + optimizer state (master weights
    included), before any sharding: 16 for fp32 or bf16-mixed with AdamW, 18 with
    fp32 grads, 20 with an fp32 accumulation buffer, 10 for bf16-mixed with 8-bit
    AdamW. Per-tensor extras (AdamW's step counters, 8-bit scales) are left out here;
    :func:`training_memory` counts them."""
    p = PRECISIONS[_choice("precision", precision, tuple(PRECISIONS))]
    o = OPTIMIZERS[_choice("optimizer", optimizer, tuple(OPTIMIZERS))][0]
    return p["param"] + p["grad"] + p["accum"] + p["master"] + o


def _optimizer_state_bytes(sizes, optimizer):
    """Exact optimizer state of the parameters ``sizes`` (``[(numel, count), ...]``,
    before any sharding)."""
    per, _ = OPTIMIZERS[optimizer]
    n_params = sum(numel * count for numel, count in sizes)
    if optimizer == "adamw":
        return per * n_params + 4 * sum(count for _, count in sizes)
    if optimizer != "adamw-8bit":
        return per * n_params
    total = 0
    for numel, count in sizes:
        if numel < MIN_8BIT_SIZE:
            total += count * 8 * numel           # kept in fp32 by bitsandbytes
        else:
            total += count * (2 * numel + 2 * 4 * _cdiv(numel, BLOCK_8BIT))
    return total


# --- pipeline stages ---------------------------------------------------------------------
PP_SCHEDULES = ("1f1b", "gpipe")
MAX_STAGES = 4096   # far above any real pipeline (the largest runs use 16-64 stages)


def pipeline_stages(cfg, pp):
    """``[(first layer, stop), ...]``: the layers each of ``pp`` pipeline stages holds,
    as evenly as possible, the first stages taking one more when ``pp`` does not divide
    ``num_hidden_layers`` (Megatron-LM asks that it divide unless told otherwise)."""
    cfg = as_config(cfg)
    L = cfg.num_hidden_layers
    _int("pp", pp, hi=min(L, MAX_STAGES))
    base, extra = divmod(L, pp)
    out, start = [], 0
    for i in range(pp):
        stop = start + base + (i < extra)
        out.append((start, stop))
        start = stop
    return out


def in_flight_micro_batches(stage, pp, num_micro_batches, schedule="1f1b"):
    """How many micro-batches' saved tensors pipeline stage ``stage`` (0-based) holds at
    its fullest. GPipe runs every forward before any backward: all ``num_micro_batches``.
    1F1B (PipeDream-Flush, Megatron-LM's default) starts a micro-batch's backward as soon
    as the last stage has run its forward, so stage ``i`` holds at most ``pp - i``: the
    first stage ``pp`` micro-batches of its ``L / pp`` layers, as many layers' worth as
    the whole model without a pipeline (Korthikanti et al. 2022, section 4.2.3)."""
    _choice("pp_schedule", schedule, PP_SCHEDULES)
    if schedule == "gpipe":
        return num_micro_batches
    return min(pp - stage, num_micro_batches)


def pipeline_bubble(pp, num_micro_batches):
    """The share of a step each GPU idles while a pipeline fills and drains:
    ``(pp - 1) / (m + pp - 1)`` for GPipe and 1F1B alike (Narayanan et al. 2021)."""
    _int("pp", pp, hi=MAX_STAGES)
    _int("num_micro_batches", num_micro_batches, hi=MAX_TOKENS)
    return Fraction(pp - 1, num_micro_batches + pp - 1)


def _stage_groups(cfg, start, stop):
    """``[(n_layers, tensors, is_moe), ...]`` of layers ``start .. stop - 1``."""
    if start == 0 and stop == cfg.num_hidden_layers:
        return _groups(cfg)
    tensors = {g.kind: g.tensors for g in layer_groups(cfg)}
    return [(n, tensors[k], any(t.routed for t in tensors[k]))
            for k, n in cfg.layer_schedule.counts_between(start, stop).items()]


def _stage_globals(cfg, first, last):
    """The tensors outside the layers a stage holds: the embeddings (and Gemma 4's
    per-layer input projection) on the first stage, the final norm and the lm_head on
    the last. A tied lm_head on a last stage that is not also the first is a second copy
    of the embedding (Megatron-LM keeps one on each and sums their gradients)."""
    out = []
    for t in global_tensors(cfg):
        at_first = t.component == "embedding" or "per_layer" in t.name
        if first if at_first else last:
            out.append(t._replace(tied=False) if t.tied and not first else t)
    return out


def _stage_params(groups, globals_):
    """``(sizes, norm values, matmul values)`` of a stage's trainable parameters:
    ``sizes`` is ``[(numel, how many such tensors), ...]`` in the checkpoint's layout
    (each routed expert its own tensors); the matmul values are every weight a forward
    multiplies by (the lm_head included even when tied; the embedding lookup, norms and
    biases are not matmuls): what ``torch.autocast`` casts to bf16 and saves. The routed
    experts are left out: ``transformers``' grouped-matmul experts call ``grouped_mm``,
    which autocast does not cast, on the weights as stored (fp32), casting the input to
    the weights' dtype instead, so no bf16 copy of them is made."""
    sizes, norms, matmul = [], 0, 0
    for n, tensors, _ in groups:
        for t in tensors:
            if t.buffer:
                continue
            sizes.append((t.numel, n * t.per_expert))
            if t.component == "norms":
                norms += n * t.per_expert * t.numel
            if t.matmul and len(t.shape) >= 2 and not t.routed:
                matmul += n * t.per_expert * t.numel
    for t in globals_:
        if t.matmul:
            matmul += t.numel
        if not t.tied:
            sizes.append((t.numel, 1))
            if t.component == "norms":
                norms += t.numel
    return sizes, norms, matmul


# --- activations -----------------------------------------------------------------------

_GEMMA_NORM = ("gemma", "gemma2", "gemma3", "gemma3_text")   # normalize, scale by (1 + w) in fp32
_QK_NORM = ("q_norm", "k_norm", "q_layernorm", "k_layernorm")
# RMSNorm as (x * rstd) * (1 + w) in fp32, then cast: Qwen3.5 (its (1 + w) a new tensor)
_ONE_PLUS_W_NORM = ("qwen3_5_text", "qwen3_5_moe_text")
# ... and Qwen4-Exp's attention QK-norm (its hyper-connection norms: _hyper_connection_terms)
_ONE_PLUS_W_LAYER_NORM = _ONE_PLUS_W_NORM + ("qwen4_exp_text",)


def _mlp_width(tensors, h, component, per_expert=False):
    """A feed-forward block's intermediate width and whether it is gated, read off its
    matmul tensors (gated: gate, up and down = 3 x h x I values; plain: 2 x h x I)."""
    mm = [t for t in tensors if t.component == component and t.matmul and min(t.shape) > 1]
    if not mm:
        return 0, False
    elems = sum(t.numel // t.fused for t in mm)
    # Granite's input_linear is gate and up fused in one matrix
    gated = len(mm) >= 3 or any("gate" in t.name or "input_linear" in t.name for t in mm)
    return elems // ((3 if gated else 2) * h), gated


def _kind_of(cfg, tensors):
    """The :class:`~llmcourse.layers.LayerKind` of the layer group whose tensors these are
    (a plain attention + MLP layer when they belong to none)."""
    for g in layer_groups(cfg):
        if g.tensors is tensors:
            return g.kind
    return LayerKind()


def _layer_terms(cfg, tensors, is_moe, s, attention, act, tp, amp=False, frozen=False, b=1):
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
    nkv = _cdiv(cfg.num_key_value_heads, tp)
    f32, i64 = 4, 8
    mt, fam = cfg.model_type, cfg.family
    terms = {}
    if mt == "longcat_flash":   # two MLA sublayers and a shortcut MoE: its own rules
        return _longcat_layer_terms(cfg, s, is_moe, act, tp)
    if mt == "deepseek_v4":   # hyper-connections, compressed K = V attention: its own rules
        terms = _deepseek_v4_terms(cfg, _kind_of(cfg, tensors), s, b, act, tp, attention,
                                   frozen)
        return {k: v for k, v in terms.items() if v}
    kind = _kind_of(cfg, tensors)
    mixer = _mixer_terms(cfg, kind, tensors, s, b, act, tp, amp, attention)
    if mixer is not None:   # the mixer's own norms are its terms
        prefix = mixer.pop("_prefix")
        tensors = [t for t in tensors if not t.name.startswith(prefix)]
    own = {}
    if mt == "qwen4_exp_text":   # hyper-connections (no layer norms), n-gram PLE, indexer
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
        elif mt == "nemotron_h":
            # w * fp32 normalized value, in fp32; a bf16 model keeps an fp32 copy of w
            cost = f32 * w + f32 + f32 * w + (Fraction(f32 * w, s * b) if act < f32 else 0)
        elif mt in _ONE_PLUS_W_LAYER_NORM:
            # fp32 normalized value times (1 + w), that fp32 (1 + w) kept once per layer
            cost = f32 * w + f32 + f32 * w + Fraction(f32 * w, s * b)
        elif mt in _GEMMA_NORM or (amp and w == h and t.name.rsplit(".", 2)[-2] not in _QK_NORM):
            # fp32 normalized value (Gemma's (1 + w); under autocast the residual stream is
            # fp32, while QK-norm normalizes the bf16 q and k)
            cost = f32 * w + f32 + f32 * w
        else:
            cost = f32 * w + f32 + act * w
        base = t.name.rsplit(".", 2)[-2]
        if base in _QK_NORM:
            times = (nh if base[0] == "q" else nkv) if w == cfg.head_dim else 1
            once = Fraction(f32 * w, s * b) if mt in _ONE_PLUS_W_LAYER_NORM else 0
            add("QK-norm (q, k before norm, rstd, normalized)", times * (cost - once) + once)
        elif w == h:
            add("norms (input, rstd, normalized)", cost)
        elif cfg.uses_mla:
            add("MLA latents (q, kv) and their norms",
                cost + (0 if frozen else act * w))  # + the next matmul's input
        else:
            add("other norms", cost)

    if kind.attention != "none":
        terms["attention input (norm output)"] = 0 if frozen else act * h
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
            terms["autocast's separate bf16 copies of the layer input"] = act * h * extra
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
        terms["q, k, v (attention kernel)"] = act * (q_el + k_el + v_el)
        terms["attention output (o_proj input)"] = act * o_el
        terms["softmax statistics (fp32 log-sum-exp)"] = f32 * nh
    else:
        # eager: k and v repeated to every query head, the s x s probabilities in fp32
        # (plus their cast to the activation dtype when that is narrower)
        rep = nh // max(nkv_k, 1)
        terms["q, k, v (attention kernel)"] = act * (q_el + k_el * rep + v_el * rep)
        terms["attention output (o_proj input)"] = act * o_el
        terms["attention scores (s x s per head)"] = nh * s * (f32 + (act if act < f32 else 0))
    if mixer is None and not cfg.uses_mla and _output_gated(cfg, tensors):
        # Qwen3.5's gated attention: q_proj writes q and a gate; the output is multiplied by
        # sigmoid(gate): the sigmoid and the product are kept (with SDPA also the output's
        # reshaped copy); in fp32 the QK-norm's input is a view of q_proj's whole output
        terms["output gate (sigmoid, gated output)"] = (
            act * o_el * (3 if attention == "flash" else 2)
            + (f32 * q_el if act == f32 and any(t.name.endswith("q_norm.weight") for t in tensors)
               else 0))
    if kind.mlp == "none":   # a mixer-only block (Nemotron-H): no feed-forward terms
        return {k: v for k, v in terms.items() if v}
    terms["MLP input (norm output)"] = act * h if fam != "phi" and not frozen else 0  # phi: one norm
    if not is_moe:
        inter, gated = _mlp_width(tensors, h, "mlp")
        inter = _cdiv(inter, tp)
        # gated: gate, act(gate), up, act * up; plain: fc1's output (kept by the
        # activation function) and the activation's output (kept by fc2)
        # (frozen: the product / the activation's output only fed the frozen down matmul)
        terms["MLP (gate, act, up, product)"] = act * ((4 if gated else 2) - frozen) * inter
    else:
        E, k = cfg.num_experts, cfg.num_experts_per_tok
        inter = _cdiv(_mlp_width(tensors, h, "experts")[0], tp)
        # router: fp32 softmax over all experts, top-k indices; normalized top-k
        # probabilities save the k values and their sum
        router = f32 * E + i64 * k
        if cfg.get("norm_topk_prob", mt in ("mixtral", "qwen4_exp_text", "lfm2_moe") + _GROUP_ROUTED):
            router += f32 * (k + 1)
        if mt in _GROUP_ROUTED:
            router += _group_router_extra(cfg, h, act, s, b)
        if mt == "granitemoehybrid":   # top-k of the fp32 logits, then a softmax over those k
            router = (i64 + f32) * k
        if mt == "lfm2_moe":   # sigmoid scores in the activations' dtype, normalized top-k
            router = act * E + i64 * k + act * (k + 1)
        terms["router (softmax, top-k)"] = router
        # per (token, expert) pair: gathered input, gate_up, act, product, expert
        # output (multiplied by the routing weight), the weight (Mixtral keeps it in
        # fp32, Qwen3-MoE casts it to the router logits' dtype), three index tensors.
        # Under autocast the experts run in fp32: grouped_mm is not an autocast op and
        # transformers casts its input to the (fp32) weights' dtype, so every per-pair
        # tensor is fp32 (and no bf16 copy of the expert weights is saved)
        weight = f32 if mt in ("mixtral",) + _GROUP_ROUTED else act
        e_act = f32 if amp else act
        per_pair = (h + 3 * inter) if frozen else (2 * h + 4 * inter)
        terms["routed experts (k per token)"] = k * (e_act * per_pair + weight + 3 * i64)
        shared, _ = _mlp_width(tensors, h, "shared_experts")
        if shared:
            terms["shared experts"] = act * (4 - frozen) * _cdiv(shared, tp)
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
    ``benchmarks/measure_activations_2026_more.py``):

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
    terms = {"hyper-connections (grouped norm, stream mix, injection)":
             2 * _hyper_connection_terms(cfg, s, b, act)}
    if kind.ple:
        n, W = cfg.hc_count, cfg.hc_count * h
        ng = cfg.get("ngram_size") or 3
        heads = (ng - 1) * cfg.heads_per_ngram
        K = cfg.ple_conv_kernel_size
        terms["n-gram embedding (hashed ids, embedding, gates)"] = (
            i64 * heads * (s + ng - 1) * per_seq + act * cfg.ple_embed_dim
            + 3 * (2 * f32 * W + f32 * n + f32 * W * once) + 2 * act * W + 5 * act * n + act * h)
        terms["n-gram dilated conv (padded input, silu input)"] = (
            act * W * (s + (K - 1) * ng) * per_seq + act * W)
    if kind.indexer:
        nh, nkv = cfg.num_attention_heads // tp, _cdiv(cfg.num_key_value_heads, tp)
        if attention == "flash":
            terms["indexer mask (float, s x s per sequence) and K, V repeated to every head"] = (
                act * s + 2 * act * (nh - nkv) * cfg.head_dim)
    terms["shared expert gate (sigmoid, shared output)"] = act * (h + 1)
    return terms


def _longcat_layer_terms(cfg, s, is_moe, act, tp):
    """Per-token bytes one LongCat-Flash sublayer saves (``LongcatFlashDecoderLayer`` holds
    two, which :mod:`llmcourse.architectures` lists as two layer groups): an MLA block and
    a dense gated MLP behind its own pair of RMSNorms; the first (``is_moe``) also feeds
    its MLP input to the layer's MoE block. Measured on CPU
    (``benchmarks/measure_activations_2026_more.py``):

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
    inter = _cdiv(cfg.ffn_hidden_size, tp)
    E, Z, k = cfg.n_routed_experts, cfg.get("zero_expert_num") or 0, cfg.moe_topk
    I = _cdiv(cfg.expert_ffn_hidden_size, tp)
    norm = f32 * h + f32 + act * h
    kv_in = f32 * (kl + (rope if act == f32 else 0))
    mla = (act * h + (f32 * ql + f32 + act * ql + act * ql) + (kv_in + f32 + act * kl + act * kl))
    scores = nh * s * (f32 + (act if act < f32 else 0))
    real = Fraction(E, E + Z)
    terms = {
        "norms (input, rstd, normalized)": 2 * norm,
        "MLA latents (q, kv) and their norms": mla,
        "q, k, v (attention kernel)": act * nh * (2 * qk + vd),
        "attention scores (s x s per head)": scores,
        "attention output (o_proj input)": act * nh * vd,
        "MLP input (norm output)": act * h,
        "MLP (gate, act, up, product)": act * 4 * inter,
    }
    if is_moe:
        terms["router (softmax, top-k)"] = f32 * (E + Z) + i64 * k   # zero experts included
        terms["routed experts (k per token; zero experts pass the input through)"] = (
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
    (eager attention, the only one it offers; CPU, ``benchmarks/measure_activations_2026.py``):
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
    terms = {"hyper-connections (stream norm, coefficients, Sinkhorn, expand and mix)":
             2 * _v4_hyper_connection(cfg, s, b, act)}
    terms["norms (input, rstd, normalized)"] = 2 * norm(h)
    terms["attention input (norm output)"] = act * h * mm
    q_norm = f32 * nh * (d + 1) + (act * nh * (d + 1) if act < f32 else 0)
    terms["q latent, its norm and q_b_norm (per head)"] = norm(qr) + act * qr * mm + q_norm
    terms["K = V head norm (kv_norm)"] = norm(d)
    terms["rotary cos/sin (q, K = V, output; per position)"] = 6 * act * rope * per_pos
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
        terms["compressor (window softmax, values, entry norm, rotary)"] = (
            compressor(d, 2 * m) if csa else compressor(d, m))
        if csa:
            terms["indexer's compressor (softmax, values, key norm, rotary)"] = compressor(
                cfg.index_head_dim, 2 * m)
    keys = Fraction(s + n_c, s)   # keys per query position: the sequence + compressed entries
    terms["q, k, v (attention kernel)"] = act * nh * d + (
        act * d * keys if b == 1 or attention == "flash" else 2 * act * nh * d * keys)
    if attention == "flash":
        terms["attention output (o_proj input)"] = act * nh * d
        terms["softmax statistics (fp32 log-sum-exp)"] = f32 * nh
    else:
        terms["attention scores (s x s per head)"] = act * nh * (s + n_c + 1) + i64 * nh
    terms["grouped output projection inputs (o_a, o_b)"] = (
        act * (nh * d + cfg.o_groups * cfg.o_lora_rank // tp) * mm)
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    I = _cdiv(cfg.moe_intermediate_size, tp)
    terms["MLP input (norm output)"] = act * h * mm
    terms["router (softmax, top-k)"] = 2 * act * E + i64 * k + act * (k + 1)
    terms["routed experts (k per token)"] = k * (act * (h * (1 + mm) + 6 * I + 1) + 3 * i64)
    terms["shared experts"] = act * 6 * I
    return terms


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
    ``tests/test_training_2026.py`` and ``tests/test_training_2026_more.py``).

    **Gated DeltaNet** (Qwen3.5's ``linear_attention``): what transformers' PyTorch code
    saves (``torch_chunk_gated_delta_rule``, the path that runs without
    flash-linear-attention, e.g. on a CPU), exactly for one sequence padded to two or
    more chunks, within 3% otherwise (PyTorch's matmuls then copy a few operands
    differently; ``tests/test_training_2026.py``):
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
    if cfg.model_type in _GEMMA4 and kind.attention in ("sliding_attention", "full_attention"):
        return _gemma4_terms(cfg, kind, tensors, s, b, act, tp, attention)
    if cfg.model_type == "kimi_linear" and kind.attention == "linear_attention":
        return _kda_terms(cfg, s, b, act, tp)
    if (kind.attention == "indexed_attention" or cfg.model_type == "kimi_linear") and cfg.uses_mla:
        return _mla_terms(cfg, kind, s, b, act, tp, attention, indexer=kind.indexer)
    if kind.attention == "linear_attention" and cfg.get("linear_num_value_heads"):
        hv = _cdiv(cfg.linear_num_value_heads, tp)
        hk = _cdiv(cfg.linear_num_key_heads, tp)
        dk, dv = cfg.linear_key_head_dim, cfg.linear_value_head_dim
        K, C = cfg.linear_conv_kernel_dim, DELTA_RULE_CHUNK
        conv = 2 * hk * dk + hv * dv
        n = _cdiv(s, C)
        padded = Fraction(n * C, s)          # padded tokens per token
        per_seq = Fraction(1, s)             # once per sequence
        once = Fraction(1, s * b)            # once per layer
        return {
            "_prefix": "linear_attn.",
            "Gated DeltaNet conv (q, k, v projection; padded conv output)":
                act * conv + act * conv * (s + K - 1) * per_seq,
            "Gated DeltaNet gates (beta, fp32 decay)": act * hv + 2 * f32 * hv + 2 * f32 * hv * once,
            "Gated DeltaNet q, k (fp32, l2-normalized)": 2 * f32 * hv * (dk + 1),
            "Gated DeltaNet chunked recurrence (torch reference, 64-token chunks)":
                f32 * hv * (4 + 5 * C + 3 * dv + 6 * dk) * padded
                + f32 * hv * n * (1 + dk * dv) * per_seq + C * C * once,
            "Gated DeltaNet output norm and gate (out_proj input)":
                hv * dv * (3 * f32 + 3 * act) + f32 * hv,
        }
    if kind.attention == "conv" and cfg.model_type in ("lfm2", "lfm2_moe"):
        return _short_conv_terms(cfg, s, act, tp)
    if kind.attention == "none":   # a Nemotron-H MLP or MoE block: no mixer at all
        return {"_prefix": "mixer.self_attn."}
    if kind.attention == "mamba":
        m = mamba_dims(cfg)   # Nemotron-H's or Granite 4.0's field names, one module
        H = _cdiv(m.heads, tp)
        P, N, G = m.head_dim, m.state, _cdiv(m.groups, tp)
        K = m.kernel
        C = cfg.mamba_chunk_size if cfg.model_type == "granitemoehybrid" else cfg.chunk_size
        inner, conv = H * P, H * P + 2 * G * N
        n = _cdiv(s, C)
        padded, per_seq, once = Fraction(n * C, s), Fraction(1, s), Fraction(1, s * b)
        narrow = act < f32   # fp32 copies that an fp32 model does not make
        return {
            "_prefix": "mamba." if cfg.model_type == "granitemoehybrid" else "mixer.",
            "Mamba-2 conv (in_proj output; padded conv output)":
                act * (2 * inner + 2 * G * N + H) + act * conv * (s + K - 1) * per_seq
                # fp32: the silu's output (x, B and C in fp32 are views of it; a narrower
                # model keeps fp32 copies instead, counted with dt and the scan)
                + act * conv * (not narrow),
            "Mamba-2 dt (softplus, fp32)": 2 * act * H + f32 * H * (1 + narrow) + f32 * inner * narrow
                + 2 * f32 * H * once,
            "Mamba-2 chunked scan (torch reference, chunk_size chunks)":
                f32 * (4 * inner + 3 * H * C + 5 * H * N + 2 * H) * padded
                + f32 * (H * (n + 1) ** 2 + (2 * n + 1) * H * P * N) * per_seq
                + (2 * C * C + 2 * (n + 1) ** 2) * once,
            "Mamba-2 gated norm (out_proj input)":
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
    h = _cdiv(cfg.hidden_size, tp)
    K = cfg.conv_L_cache
    return {
        "_prefix": "conv.",
        "short conv (in_proj output B, C, x; B * x)": act * 3 * h + act * h,
        "short conv output (padded) and C * conv (out_proj input)":
            act * h * Fraction(s + K - 1, s) + act * h,
    }


_GEMMA4 = ("gemma4_text", "gemma4")
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
    bf16, SDPA and eager; ``tests/test_training_2026.py``):

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
    nh = _cdiv(cfg.num_attention_heads, tp)
    nkv = _cdiv(kind.kv_heads or cfg.num_key_value_heads, tp)
    k_eq_v = bool(cfg.get("attention_k_eq_v")) and kind.attention == "full_attention"
    n_h_norms = sum(1 for t in tensors if t.component == "norms" and t.shape == (h,))
    norms = n_h_norms * _gemma4_norm(h, 1, act, s, b) + _gemma4_norm(hd, nh, act, s, b)
    if not kind.kv_shared:
        norms += _gemma4_norm(hd, nkv, act, s, b)   # k_norm
        # v_norm: fp32 input (k_norm's own in an fp32 model where K = V) and two values a row
        norms += f32 * nkv * hd * (0 if k_eq_v and act == f32 else 1) + 2 * f32 * nkv
    terms = {"Gemma 4 norms (fp32 input, mean square, rstd, normalized; q/k/v per head)": norms}
    masked = kind.attention == "sliding_attention" and s >= cfg.sliding_window
    if attention == "flash":
        # no mask: SDPA's own GQA reads the KV heads; with a mask, repeat_kv copies them
        # (a view of the one head when there is a single KV head)
        copies = masked and 1 < nkv < nh
        kv = 0 if kind.kv_shared and not copies else 2 * act * (nh if copies else nkv) * hd
        terms["q, k, v (attention kernel)"] = act * nh * hd + kv
        terms["attention output (o_proj input)"] = act * nh * hd
        terms["softmax statistics (fp32 log-sum-exp)"] = f32 * nh
        if masked:
            terms["sliding-window mask (s x s, in the model's dtype)"] = act * s
    else:
        # torch.matmul folds (batch, heads) into one dimension: a view of k and v (the KV
        # heads' own storage) for one sequence when repeat_kv is itself a view (one KV head)
        # or has nothing to repeat; a copy at every query head otherwise
        view = b == 1 and (nkv == 1 or nkv == nh)
        kv = 0 if kind.kv_shared and view else 2 * act * (nkv if view else nh) * hd
        terms["q, k, v (attention kernel)"] = act * nh * hd + kv
        terms["attention output (o_proj input)"] = act * nh * hd
        terms["attention scores (s x s per head)"] = nh * s * (f32 + (act if act < f32 else 0))
    p = cfg.get("hidden_size_per_layer_input") or 0
    if p:
        terms["per-layer embedding gate (input, gate, GELU, product)"] = act * (h + 3 * p)
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
    out = {"rotary cos/sin tables (once per model)": 2 * act * s * widths,
           "final norm": _gemma4_norm(h, 1, act, s, b)}
    p = cfg.get("hidden_size_per_layer_input") or 0
    if p:
        out["per-layer embeddings (projection input, norm, per-layer inputs)"] = (
            act * h if act < f32 else 0) + _gemma4_norm(p, L, act, s, b) + act * L * p
    return out


# DeepSeek-V3's router (sigmoid scores, a bias for the choice, top-k groups first) as
# GLM-5's, DeepSeek-V3.2's and Kimi-Linear's transformers code runs it
_GROUP_ROUTED = ("glm_moe_dsa", "deepseek_v32", "kimi_linear")


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
    kernel's q, k, v, output and log-sum-exp (``tests/test_training_2026.py``)."""
    f32 = 4
    nh = _cdiv(cfg.num_attention_heads, tp)
    nope, rope, vd = cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim
    qr, kvr = cfg.get("q_lora_rank"), cfg.kv_lora_rank
    latents = (f32 * qr + f32 + 2 * act * qr) if qr else 0
    latents += f32 * (kvr + (rope if act == f32 else 0)) + f32 + 2 * act * kvr
    qk = nh * (nope + rope)
    view = attention == "flash" or b == 1
    v = nh * (nope + vd) if view else nh * vd
    terms = {"MLA latents (q, kv) and their norms": latents,
             "q, k, v (attention kernel)": act * (2 * qk + v),
             "attention output (o_proj input)": act * nh * vd}
    if attention == "flash":
        terms["softmax statistics (fp32 log-sum-exp)"] = f32 * nh
    else:
        terms["attention scores (s x s per head)"] = nh * s * (f32 + (act if act < f32 else 0))
    return dict(terms, _prefix="self_attn.")


def _kda_terms(cfg, s, b, act, tp):
    """Per-token bytes of Kimi Delta Attention (Kimi-Linear's ``linear_attention`` layers)
    as transformers' PyTorch reference saves them (``chunk_kimi_delta_attention``, the path
    that runs without flash-linear-attention, e.g. on a CPU): an **estimate** from the
    tensors it saves, within a few percent (``tests/test_training_2026.py``).

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
    H = _cdiv(cfg.linear_num_heads, tp)
    d = cfg.linear_head_dim
    n = _cdiv(s, C)
    per_chunk = f32 * H * ((C - 1) * C + Fraction((C - 1) * C * (2 * C - 1), 6)
                           + 3 * C * C * d + 2 * C * C + 3 * C * d + C + 9 * C * d + d * d)
    per_token = (act * 3 * H * d + act * (2 * d + H)
                 + f32 * (2 * H * d + 2 * H) + 9 * H * d + f32 * H * d)
    once = 3 * C * C + 2 * f32 * H + (2 * f32 * d if act < f32 else 0)
    return {
        "_prefix": "self_attn.",
        "KDA conv, gates and decay (q, k, v conv input; forget/output gate; fp32 softplus)":
            per_token,
        "KDA chunked recurrence (torch reference: 64 x 64 x head_dim decay products, "
        "row-by-row solve)": per_chunk * n / s + Fraction(once, s * b),
        "KDA output norm and gate (out_proj input)": f32 * (3 * H * d + H) + act * H * d,
    }


def _global_terms(cfg, s, b, act, tp, amp=False, frozen=False):
    """Bytes saved outside the layers, for the whole micro-batch (``frozen``: a LoRA base,
    whose embedding keeps no token ids and whose lm_head keeps no input)."""
    h, V = cfg.hidden_size, _cdiv(cfg.vocab_size, tp)
    f32, i64 = 4, 8
    if cfg.uses_mla:
        rot = cfg.qk_rope_head_dim
    elif cfg.family == "phi":
        rot = int(cfg.head_dim * cfg.get("partial_rotary_factor", 0.5))
    elif cfg.model_type in _ONE_PLUS_W_NORM:   # Qwen3.5 rotates a quarter of each head
        rot = int(cfg.head_dim * (cfg.get("partial_rotary_factor") or 0.25))
    else:
        rot = cfg.head_dim
    final_norm = ((act * h + 2 * f32) if cfg.family == "phi"
                  else (f32 * h + f32 + (0 if frozen else (f32 if amp else act) * h)))
    if cfg.model_type == "nemotron_h" and not frozen:   # fp32 normalized value (+ fp32 w)
        final_norm = f32 * h + f32 + f32 * h + (Fraction(f32 * h, s * b) if act < f32 else 0)
    if cfg.model_type in _ONE_PLUS_W_NORM and not frozen:   # fp32 normalized, (1 + w) once
        final_norm = f32 * h + f32 + f32 * h + Fraction(f32 * h, s * b)
    if cfg.model_type == "granitemoehybrid" and cfg.get("position_embedding_type") != "rope":
        rot = 0   # NoPE: no rotary tables
    if cfg.model_type == "qwen4_exp_text":   # the streams mixed into one: no final norm
        rot = int(cfg.head_dim * (cfg.get("partial_rotary_factor") or 1))
        final_norm = _hyper_connection_terms(cfg, s, b, act, combine=False)
    if cfg.model_type == "deepseek_v4":
        # each layer expands its own cos/sin (its terms); the head collapses the streams,
        # then the final RMSNorm keeps an fp32 normalized value (fp32 weight)
        rot = 0
        final_norm = (_v4_hyper_connection(cfg, s, b, act, head=True)
                      + (f32 * h + f32 + (0 if frozen else f32 * h)))
    g4 = _gemma4_global_terms(cfg, s, b, act) if cfg.model_type in _GEMMA4 and not amp else {}
    if g4:
        final_norm = g4["final norm"] if not frozen else final_norm
        rot = Fraction(g4["rotary cos/sin tables (once per model)"], 2 * act * s)
    per_layer_embeddings = {k: v * s * b for k, v in g4.items() if k.startswith("per-layer")}
    return per_layer_embeddings | {
        "token ids (int64)": 0 if frozen else i64 * s * b,
        # cast to the hidden states' dtype: fp32 under autocast (fp32 weights)
        "rotary cos/sin tables (once per model)": 2 * (f32 if amp else act) * s * rot,
        "final norm and lm_head input": (final_norm + (0 if frozen else act * h)) * s * b,
        "log-probabilities (fp32, saved by the loss)": f32 * V * s * b,
        # the shifted labels; with one sequence the slice is already contiguous, so the
        # padded (seq_len + 1) buffer is what is kept
        "labels (int64) and the loss's weight": i64 * (s * b + (b == 1)) + f32,
        "logits (held by the model output)": act * V * s * b,
    }


AMP_COPIES = "bf16 weight copies (autocast saves them for backward)"

# recompute="full": the transients of the moment a layer is recomputed in backward
RECOMPUTED_LAYER = "one layer recomputed in backward (saved tensors + temporaries)"
GRAD_BETWEEN_LAYERS = "gradient flowing between layers (and a tied lm_head's)"
FREED_BEFORE_LAYERS = "freed before the first layer is recomputed (loss and final norm)"
_FREED_TERMS = ("final norm and lm_head input", "log-probabilities (fp32, saved by the loss)",
                "labels (int64) and the loss's weight")


def _stream_width(cfg):
    """Values a token's residual stream holds between layers: hidden_size, or hc_mult
    streams of it (DeepSeek-V4's hyper-connections: the layer's input, its checkpoint)."""
    return cfg.hidden_size * (cfg.hc_mult if cfg.model_type == "deepseek_v4" else 1)


def _layer_matmul(tensors):
    """Values of one layer's weight matrices that autocast casts to bf16 (not the routed
    experts': see :func:`_stage_params`)."""
    return sum(t.per_expert * t.numel for t in tensors
               if t.matmul and not t.buffer and len(t.shape) >= 2 and not t.routed)


def _recomputed_layer(cfg, lt, per_layer, is_moe, tensors, tokens, act, param, tp, split, amp,
                      frozen=False):
    """Bytes one layer adds while it is recomputed and backpropagated under full
    recomputation (``torch.utils.checkpoint``, use_reentrant=False): everything it saves
    again, less its input (already held as the checkpoint) where the norm keeps that same
    fp32 tensor, plus the largest temporaries of that moment, as measured on CPU
    (``benchmarks/measure_peak.py``): a dense MLP's backward holds the gradients of the
    product, of act(gate) and of up beside gate, act and up (2 x intermediate more than
    it saves); a routed-expert block peaks either while it is recomputed (the gradient of
    the k weighted expert outputs, computed before the recomputation starts, and the two
    scatter buffers that put the experts' outputs back in token order: 3 x k x hidden)
    or in the experts' backward (the gradient of the down projection's input, k x its
    width, and the stacked weight gradient of every expert's down projection).

    ``frozen=True`` (a LoRA base, bf16; measured with ``benchmarks/measure_lora.py``): a
    gated MLP's backward holds the three gradients beside the gate, act and up it saves
    (3 x intermediate more; a plain MLP's, the gradients of the activation's output and
    input beside fc1's output: 2 x, not measured); a routed-expert block has no weight
    gradient, and its recomputation holds the gradient of the k weighted outputs, the
    weighted outputs and the gathered input (k x hidden each, the first two in the routing
    weight's dtype when wider: fp32 for Mixtral), the layer's residual and the MLP's input
    (the forward's locals: a frozen layer saves neither)."""
    h = cfg.hidden_size
    res = 4 if act == 4 or amp else act
    extra = 2 * _cdiv(_layer_matmul(tensors), tp) if amp else 0   # its bf16 weight copies
    if res == 4:   # the input norm keeps the fp32 residual itself: the checkpoint
        extra -= Fraction(4 * _stream_width(cfg) * tokens, split)
    if not is_moe:
        inter, gated = _mlp_width(tensors, h, "mlp")
        inter = _cdiv(inter, tp)
        # frozen: gated, the gradients of the product, act and up; plain, of the
        # activation's output and input
        extra += (3 if frozen and gated else 2) * act * inter * tokens
        if amp:   # by then one bf16 copy of the MLP's input is freed
            extra -= Fraction(act * h * tokens, split)
    else:
        E, k = cfg.num_experts, cfg.num_experts_per_tok
        inter = _cdiv(_mlp_width(tensors, h, "experts")[0], tp)
        e_act = 4 if amp else act
        # the weighted output takes the wider of the expert's dtype and the routing
        # weight's (Mixtral keeps the weight in fp32)
        w_out = 4 if cfg.model_type == "mixtral" else e_act
        recompute_peak = 3 * k * h * w_out * tokens
        backward_peak = k * inter * e_act * tokens + (0 if frozen else E * h * inter * param)
        if frozen:
            # the gradient of the weighted outputs and the weighted outputs (w_out), the
            # gathered input (the experts' dtype), the residual and the MLP's input
            recompute_peak = (k * h * (2 * w_out + e_act) * tokens
                              + 2 * act * Fraction(h * tokens, split))
        extra += max(recompute_peak, backward_peak)
    return per_layer + extra

# the global terms only the first or the last pipeline stage holds
_FIRST_STAGE_TERMS = ("token ids (int64)",)
_LAST_STAGE_TERMS = ("final norm and lm_head input", "log-probabilities (fp32, saved by the loss)",
                     "labels (int64) and the loss's weight", "logits (held by the model output)")

# the terms that make up ``logits``
_LOGIT_TERMS = ("log-probabilities (fp32, saved by the loss)", "labels (int64) and the loss's weight",
                "logits (held by the model output)")


class _Peaks:
    """The peak of one training step, from ``total``, ``states`` and ``transients``
    (shared by :class:`TrainingMemory` and :class:`~llmcourse.finetune.LoraMemory`)."""

    __slots__ = ()

    @property
    def peak_start_of_backward(self):
        """Bytes held at the start of the backward pass: everything in :attr:`total`
        plus the loss's gradients (fp32, the size of the logits: see ``transients``)."""
        return self.total + self.transients["loss gradients at the start of backward"]

    @property
    def peak_recompute(self):
        """With ``recompute="full"``: bytes held while the first layer is recomputed in
        backward (the last of the stage, when the most checkpoints are still held): the
        checkpoints, token ids, rotary tables and returned logits, the gradient flowing
        between layers, and that layer's saved tensors and temporaries; the loss's tensors
        are freed by then. 0 without full recomputation."""
        t = self.transients
        if RECOMPUTED_LAYER not in t:
            return 0
        return (self.total - t[FREED_BEFORE_LAYERS] + t[GRAD_BETWEEN_LAYERS]
                + t[RECOMPUTED_LAYER])

    @property
    def peak_backward(self):
        """The most bytes held in the backward pass: :attr:`peak_start_of_backward`, or
        with ``recompute="full"`` the larger of it and :attr:`peak_recompute`."""
        return max(self.peak_start_of_backward, self.peak_recompute)

    @property
    def peak_step(self):
        """Bytes held during ``optimizer.step()``: the states plus the step's largest
        temporary (the activations are freed by then)."""
        return self.states + self.transients["optimizer step temporaries"]

    @property
    def peak(self):
        """The most bytes held at once in one training step: the larger of
        :attr:`peak_backward` and :attr:`peak_step`."""
        return max(self.peak_backward, self.peak_step)

    @property
    def transient(self):
        """``peak - total``: what the peak holds beyond the weights, grads, optimizer
        state, saved tensors and logits (the loss's gradients, or the step's temporaries)."""
        return self.peak - self.total

    @property
    def peak_decided_by(self):
        """In words, which moment decides :attr:`peak`."""
        if self.peak_backward < self.peak_step:
            return "the optimizer step"
        if self.peak_recompute > self.peak_start_of_backward:
            return ("the first layer recomputed in backward (checkpoints + logits + that "
                    "layer's saved tensors and backward temporaries)")
        if self.transients["loss gradients at the start of backward"]:
            return "the start of backward (saved tensors + the loss's fp32 gradients)"
        return "the start of backward (the saved tensors of the micro-batches in flight)"


class TrainingMemory(_Peaks):
    """Per-GPU training memory, in bytes.

    ``params``, ``grads``, ``optimizer``: exact for the named convention (see
    :func:`training_memory`). ``activations``: the tensors saved for backward by the
    layers (and the embedding, final norm and rotary tables); ``logits``: the fp32
    log-probabilities the loss saves, the labels, and the logits the model returns.
    ``total`` sums the five. ``activation_terms`` names every term (bytes per GPU);
    ``saved_for_backward`` is what ``saved_tensors_hooks`` sees (everything but the
    returned logits). ``conventions`` says, in words, what was assumed. With pipeline
    parallelism it is one stage's memory, and ``pipeline`` names the stage and holds
    every stage's (:func:`training_memory`); otherwise ``pipeline`` is None.
    """

    __slots__ = ("model", "params", "grads", "optimizer", "activations", "logits",
                 "activation_terms", "transients", "conventions", "settings", "pipeline")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))

    @property
    def total(self):
        return self.params + self.grads + self.optimizer + self.activations + self.logits

    @property
    def states(self):
        """Weights + grads + optimizer state (the part that does not depend on tokens)."""
        return self.params + self.grads + self.optimizer

    @property
    def saved_for_backward(self):
        return self.total - self.states - self.activation_terms.get("logits (held by the model output)", 0)

    def as_dict(self):
        return {"params": self.params, "grads": self.grads, "optimizer": self.optimizer,
                "activations": self.activations, "logits": self.logits, "total": self.total,
                "peak": self.peak}

    def __repr__(self):
        parts = ", ".join(f"{k} {v / 2**30:,.2f} GiB" for k, v in self.as_dict().items())
        return f"TrainingMemory({self.model}, per GPU: {parts})"


def training_memory(cfg, seq_len, micro_batch=1, precision="bf16-mixed", optimizer="adamw",
                    recompute="none", zero_stage=0, dp=1, tp=1, attention="flash", sp=False,
                    cp=1, loss="plain", loss_chunk=1024, pp=1, pp_schedule="1f1b",
                    num_micro_batches=None):
    """Training memory per GPU, in bytes, for one micro-batch of ``micro_batch``
    sequences of ``seq_len`` tokens.

    **Weights, grads, optimizer state** (bytes per parameter, :data:`PRECISIONS`
    and :data:`OPTIMIZERS`):

    * ``"fp32"``: weights 4 + grads 4; AdamW m and v 8: **16 B/param**.
    * ``"bf16-mixed"``: bf16 weights 2 + bf16 grads 2 + fp32 master copy 4 + AdamW
      8: **16** (the ZeRO paper's 2 + 2 + 12).
    * ``"bf16-mixed-fp32-grads"``: grads kept in fp32: 2 + 4 + 4 + 8 = **18**
      (Transformer Math 101).
    * ``"bf16-mixed-fp32-accum"``: bf16 grads plus an fp32 accumulation buffer:
      2 + 2 + 4 + 4 + 8 = **20** (the Ultra-Scale Playbook's upper figure).
    * ``optimizer="adamw-8bit"`` with bf16-mixed: 2 + 2 + 4 + 2 = **10**, plus one
      fp32 scale per 2,048 values for m and for v; tensors under 4,096 values stay
      fp32. ``"sgd-momentum"``: 4; ``"sgd"``: 0.
    * PyTorch's AdamW also keeps a 4-byte ``step`` per parameter tensor; counted.

    **Sharding**: ``zero_stage`` 1 divides the optimizer state (master weights
    included) over the ``dp`` data-parallel GPUs, 2 also the grads (and any fp32
    accumulation buffer), 3 also the weights (ceil division: ZeRO pads). ``tp``
    tensor-parallel GPUs split every matrix and the embedding; norms are replicated.

    **Activations** (bytes of one activation value: 4 for fp32, 2 for bf16): per
    layer and token, what a ``transformers`` decoder layer saves: each RMSNorm's
    fp32 input, its fp32 rstd and its normalized output; the q/k/v projections'
    input; with ``attention="flash"`` (FlashAttention, PyTorch SDPA) q, k and v at
    their own head counts (GQA saves here), the kernel's output and one fp32
    log-sum-exp per head; with ``"eager"`` k and v repeated to every query head and
    the ``seq_len x seq_len`` probabilities per head in fp32 (the score term); QK-norm
    (Qwen3) adds a norm per head; a SwiGLU MLP saves gate, act(gate), up and their
    product (4 x intermediate); a routed MoE layer saves the router's fp32 softmax
    and, for each of the top-k experts a token visits, its input, gate_up, act,
    product and weighted output. Outside the layers: token ids, the rotary tables,
    the final norm, the loss's fp32 log-probabilities and the labels (``logits``
    adds the returned logits). Tensor parallelism divides the head and intermediate
    terms by ``tp`` (no sequence parallelism: the hidden-size terms stay whole).

    ``recompute="selective"`` drops the attention-score term (Korthikanti et al.
    2022 recompute the attention core; with FlashAttention there is nothing to
    drop); ``"full"`` keeps each layer's input only and recomputes one layer at a
    time in the backward pass (so one layer's activations are added back).

    ``precision="amp-bf16"`` is the Hugging Face Trainer's ``bf16=True`` (PyTorch AMP):
    fp32 weights 4 + fp32 grads 4 + AdamW 8, the forward under ``torch.autocast``,
    which also saves a bf16 copy of every weight matrix (2 B per matrix value, a term
    of ``activations``), keeps the residual stream, its norms and the rotary tables in
    fp32, and casts the norm output once per projection that reads it (q, k, v; gate,
    up; the router). Routed experts are not cast: ``transformers``' default experts code
    (``grouped_mm``) is not an autocast op and casts its input to the weights' dtype, so
    the experts run in fp32: no bf16 copy of the expert weights, and each (token, expert)
    pair's tensors are saved in fp32 (Qwen3-MoE's routing weight stays bf16, Mixtral's
    fp32). Measured on CPU for Llama, Qwen3, Qwen3-MoE and Mixtral the saved tensors equal
    PyTorch's to the byte and the peak is within 0.04% (:func:`measured_peaks`).

    **Peak** (:attr:`TrainingMemory.peak`): the saved tensors are not the most a step
    holds. At the start of backward the loss's fp32 gradients (8 B per logit) sit
    beside everything saved; during the optimizer step, foreach AdamW's temporaries
    (4 B per parameter of the shard). Both are in ``transients``. Compare the peak plus
    a reserve with the GPU: :func:`fit_verdict`.

    **Parallelism and activations** (Korthikanti et al. 2022; the Ultra-Scale
    Playbook): tensor parallelism (``tp``) alone divides the head and intermediate terms
    but leaves the hidden-size terms (norm inputs and outputs, the layer input) whole on
    every GPU; with sequence parallelism (``sp=True``, Megatron's
    ``--sequence-parallel``) those are split over the ``tp`` GPUs along the sequence,
    so a whole layer's saved tensors divide by ``tp`` (when ``tp`` divides the head
    counts). Context parallelism (``cp``) gives each GPU ``seq_len / cp`` tokens of
    every sequence: every per-token term, the logits and the loss's gradients divide by
    ``cp`` (each local query still attends to all ``seq_len`` keys).

    **Pipeline parallelism** (``pp`` stages, :func:`pipeline_stages`): each stage holds
    its layers' weights, grads and optimizer state; the first also the embedding, the
    last the final norm, the lm_head (a tied one as a second copy) and the loss. What a
    stage saves depends on the schedule (:func:`in_flight_micro_batches`): with
    ``pp_schedule="1f1b"`` stage ``i`` holds ``min(pp - i, m)`` micro-batches in flight,
    so the first stage keeps ``pp`` micro-batches of its ``L / pp`` layers, as much as
    the whole model without a pipeline; with ``"gpipe"`` every stage keeps all ``m``
    (``num_micro_batches``, the micro-batches of one optimizer step; default ``pp``).
    The result is the stage whose peak is highest; its ``pipeline`` says which
    (``stage``, ``layers``, ``in_flight``) and holds every stage's memory (``stages``).
    Each stage's saved tensors equal, to the byte, what PyTorch saves when a small Llama
    or Qwen3 is run stage by stage in the schedule's order on CPU
    (``benchmarks/measure_pipeline.py``, ``tests/test_training_pipeline.py``).
    DeepSpeed's pipeline engine allows ZeRO-1 at most; Megatron-LM pairs its pipeline
    with a distributed optimizer (ZeRO-1); torchtitan combines it with FSDP2: the engine
    computes any of them, the reader picks what their tool allows.

    **Loss**: ``loss="plain"`` is ``transformers``' cross-entropy over the whole
    vocabulary x tokens matrix (the fp32 log-probabilities saved, 8 B per logit of fp32
    gradients at the start of backward). ``loss="chunked"`` computes it ``loss_chunk``
    tokens at a time, each chunk under ``torch.utils.checkpoint`` (the idea behind
    Liger Kernel's fused linear cross-entropy): no logits are kept, and the backward
    recomputes one chunk at a time, holding 12 B per logit of the chunk plus the
    chunk's lm_head weight gradient (measured on CPU, ``benchmarks/measure_peak.py``).

    Not included: collective and pipeline send/receive buffers, interleaved (virtual)
    pipeline stages; the CUDA context and the allocator's fragmentation are what
    :data:`RESERVE_FRACTION` stands for.
    """
    cfg = as_config(cfg)
    _int("seq_len", seq_len)
    _int("micro_batch", micro_batch)
    _choice("precision", precision, tuple(PRECISIONS))
    _choice("optimizer", optimizer, tuple(OPTIMIZERS))
    _choice("recompute", recompute, RECOMPUTE)
    _choice("attention", attention, ATTENTION)
    _choice("zero_stage", zero_stage, (0, 1, 2, 3))
    _int("dp", dp, hi=MAX_GPUS)
    _int("tp", tp, hi=MAX_GPUS)
    _int("cp", cp, hi=MAX_GPUS)
    if not isinstance(sp, bool):
        raise ConfigError(f"sp: must be True or False (sequence parallelism) (got {sp!r})")
    _choice("loss", loss, LOSSES)
    _int("loss_chunk", loss_chunk)
    if cp > seq_len:
        raise ConfigError(f"cp: must be at most seq_len={seq_len:,} (each GPU holds at least "
                          f"one token of the sequence) (got {cp})")
    if cfg.num_attention_heads % tp:
        raise ConfigError(f"tp: must divide num_attention_heads={cfg.num_attention_heads} "
                          f"(each GPU holds whole heads) (got {tp})")
    if isinstance(pp, int) and not isinstance(pp, bool) and pp > cfg.num_hidden_layers:
        raise ConfigError(f"pp: must be at most num_hidden_layers={cfg.num_hidden_layers:,} "
                          f"(each pipeline stage holds at least one layer) (got {pp})")
    stages = pipeline_stages(cfg, pp)
    _choice("pp_schedule", pp_schedule, PP_SCHEDULES)
    m = pp if num_micro_batches is None else _int("num_micro_batches", num_micro_batches)
    settings = dict(seq_len=seq_len, micro_batch=micro_batch, precision=precision,
                    optimizer=optimizer, recompute=recompute, zero_stage=zero_stage, dp=dp,
                    tp=tp, attention=attention, sp=sp, cp=cp, loss=loss, loss_chunk=loss_chunk,
                    pp=pp, pp_schedule=pp_schedule, num_micro_batches=m)
    per_kind = {}   # one layer kind's terms, computed once for every stage
    out = []
    for i, (start, stop) in enumerate(stages):
        f = in_flight_micro_batches(i, pp, m, pp_schedule)
        out.append(_stage_memory(cfg, settings, start, stop, i == 0, i == pp - 1, f, per_kind))
    if pp == 1:
        return out[0]
    worst = max(range(pp), key=lambda i: out[i].peak)   # the first of equals
    mem = out[worst]
    mem.pipeline = dict(stage=worst, layers=stages[worst], in_flight=mem.pipeline["in_flight"],
                        schedule=pp_schedule, num_micro_batches=m, stages=out)
    return mem


def _stage_memory(cfg, settings, start, stop, first, last, f, per_kind):
    """One pipeline stage's :class:`TrainingMemory` (the whole model when it is the only
    stage): its layers ``start .. stop - 1``, the embedding if ``first``, the head and
    the loss if ``last``, and ``f`` micro-batches' saved tensors in flight."""
    st = settings
    s, b, tp, dp, cp, sp = (st["seq_len"], st["micro_batch"], st["tp"], st["dp"], st["cp"],
                            st["sp"])
    precision, optimizer, zero_stage = st["precision"], st["optimizer"], st["zero_stage"]
    p = PRECISIONS[precision]
    groups = _stage_groups(cfg, start, stop)
    sizes, norms, matmul = _stage_params(groups, _stage_globals(cfg, first, last))
    n_stage = sum(numel * count for numel, count in sizes)
    n = n_stage
    if tp > 1:  # matrices and the embedding split over tp; norms (1-D) replicated
        n = _cdiv(n - norms, tp) + norms
    # weights, grads, optimizer state (master weights belong to the optimizer's state)
    weights = p["param"] * n
    grads = (p["grad"] + p["accum"]) * n
    opt_total = _optimizer_state_bytes(sizes, optimizer)
    if tp > 1:  # the same share of the state as of the weights
        opt_total = _cdiv(opt_total * n, n_stage)
    opt = p["master"] * n + opt_total
    if zero_stage >= 1:
        opt = _cdiv(opt, dp)
    if zero_stage >= 2:
        grads = _cdiv(grads, dp)
    if zero_stage >= 3:
        weights = _cdiv(weights, dp)

    act = p["act"]
    amp = precision == "amp-bf16"
    attn, recompute = st["attention"], st["recompute"]
    terms = {}
    largest_layer = 0
    layer_matmul = 0   # amp with full recomputation: matmul weights only the layers read
    s_loc = _cdiv(s, cp)      # the tokens of each sequence this GPU holds
    split = tp if sp else 1   # sequence parallelism: the hidden-size terms split too
    for n_layers, tensors, is_moe in groups:
        key = id(tensors)
        if key not in per_kind:
            lt = _layer_terms(cfg, tensors, is_moe, s, attn, act, 1 if sp else tp, amp, b=b)
            if sp:
                lt = {k: Fraction(v, tp) for k, v in lt.items()}
            if recompute == "selective":
                lt.pop("attention scores (s x s per head)", None)
            per_layer = sum(lt.values()) * s_loc * b
            if is_moe:  # grouped matmul: one int32 offset per expert, per layer
                k_r = "router (softmax, top-k)"
                lt[k_r] = lt[k_r] + Fraction(4 * cfg.num_experts, s_loc * b)
                per_layer += 4 * cfg.num_experts
            per_kind[key] = lt, per_layer
        lt, per_layer = per_kind[key]
        if recompute == "full":
            largest_layer = max(largest_layer, _recomputed_layer(
                cfg, lt, per_layer, is_moe, tensors, s_loc * b, act, p["param"], tp, split, amp))
        if recompute == "full":
            key = "layer inputs (checkpoints)"
            # the residual stream's dtype: fp32 under autocast (fp32 weights)
            terms[key] = terms.get(key, 0) + Fraction(n_layers * (4 if amp else act)
                                                      * _stream_width(cfg) * s_loc * b, split)
            if amp:   # the layers' bf16 weight copies are made again when they are recomputed
                layer_matmul += n_layers * _layer_matmul(tensors)
        else:
            for k, v in lt.items():
                terms[k] = terms.get(k, 0) + n_layers * v * s_loc * b
    g = _global_terms(cfg, s_loc, b, act, tp, amp)
    for k, v in g.items():   # token ids enter the first stage; the head is the last's
        if not v and k == "rotary cos/sin tables (once per model)":
            continue   # NoPE (Granite 4.0): no tables
        if (first or k not in _FIRST_STAGE_TERMS) and (last or k not in _LAST_STAGE_TERMS):
            terms[k] = v
    if amp:
        # autocast casts each fp32 weight matrix to bf16 for its matmul and the matmul
        # saves that copy for backward: 2 bytes per matrix value (the lm_head included)
        terms[AMP_COPIES] = 2 * _cdiv(matmul - layer_matmul, tp)
    if st["loss"] == "chunked" and last:   # no logits kept: each chunk is recomputed
        for k in ("log-probabilities (fp32, saved by the loss)", "logits (held by the model output)"):
            terms[k] = 0
        if amp:   # the lm_head's bf16 copy is made inside the checkpointed chunk, not kept
            terms[AMP_COPIES] -= 2 * _cdiv(cfg.vocab_size * cfg.hidden_size, tp)
    # each micro-batch in flight holds its own saved tensors (one pipeline stage may
    # hold several); a layer recomputed in backward is one at a time
    terms = {k: int(-(-v // 1)) * f for k, v in terms.items()}
    # transients. At the start of backward the loss's gradient exists beside everything
    # saved: cross-entropy's backward holds the fp32 gradient of the log-probabilities
    # and writes the fp32 gradient of the logits (transformers upcasts the logits to
    # fp32 before the loss): 4 + 4 bytes per logit. A fused/chunked loss never holds
    # the whole fp32 vocabulary x tokens matrix. The optimizer step's largest
    # temporary: foreach AdamW (PyTorch's default on a GPU) computes sqrt(v) for every
    # parameter of a group at once: 4 bytes per parameter of this GPU's shard.
    V = _cdiv(cfg.vocab_size, tp)
    if not last:
        loss_grads = 0
    elif st["loss"] == "plain":
        loss_grads = 8 * V * s_loc * b
    else:  # one chunk: 12 B per logit, and its lm_head weight gradient before it is summed
        loss_grads = 12 * V * min(st["loss_chunk"], s_loc * b) + p["grad"] * V * cfg.hidden_size
    transients = {"loss gradients at the start of backward": loss_grads,
                  "optimizer step temporaries": (4 * _cdiv(n, dp if zero_stage >= 1 else 1)
                                                 if optimizer.startswith("adamw") else 0)}
    if recompute == "full" and groups:
        # after the head's backward, before any layer is recomputed, the loss's tensors and
        # the final norm's are freed; the checkpoints, the token ids, the rotary tables
        # (held by each checkpoint's recompute closure) and the returned logits stay, and
        # the gradient of the hidden states flows from layer to layer (measured on CPU:
        # benchmarks/measure_peak.py's timeline)
        res = 4 if act == 4 or amp else act      # the residual stream's dtype
        # (under autocast also the lm_head's bf16 weight copy: the layers' own are made
        # again when they are recomputed)
        transients[FREED_BEFORE_LAYERS] = sum(terms.get(k, 0) for k in _FREED_TERMS
                                              + (AMP_COPIES,))
        transients[GRAD_BETWEEN_LAYERS] = int(-(-Fraction(res * cfg.hidden_size * s_loc * b,
                                                          split) // 1))
        transients[RECOMPUTED_LAYER] = int(-(-largest_layer // 1))
        if first and last and cfg.get("tie_word_embeddings", False):
            # a tied lm_head's weight gradient waits in autograd's input buffer for the
            # embedding's share, computed last: held through every layer's backward
            transients[GRAD_BETWEEN_LAYERS] += p["param"] * _cdiv(
                cfg.vocab_size * cfg.hidden_size, tp)
    logits = sum(terms.get(k, 0) for k in _LOGIT_TERMS)
    activations = sum(terms.values()) - logits
    o_name = OPTIMIZERS[optimizer][1]
    pp = st["pp"]
    conventions = (f"{p['about']}; {o_name}; activations {act} B per value, "
                   f"{'FlashAttention (no s x s scores)' if attn == 'flash' else 'eager attention (s x s scores)'}"
                   f", recompute {recompute}; ZeRO-{zero_stage} over dp={dp}, tp={tp}"
                   + (f"; pipeline stage holding layers {start}-{stop - 1} of pp={pp} "
                      f"({st['pp_schedule']}, {f} micro-batches in flight)" if pp > 1 else ""))
    return TrainingMemory(model=cfg.name, params=weights, grads=grads, optimizer=opt,
                          activations=activations, logits=logits, activation_terms=terms,
                          transients=transients, conventions=conventions,
                          settings=dict(st), pipeline=dict(in_flight=f) if pp > 1 else None)


RESERVE_FRACTION = 0.1
"""The share of a GPU's memory a training run should leave free: the CUDA context
(about 0.5-1 GB), the caching allocator's fragmentation and the collectives' buffers.
The course uses the same 10% that lesson 07 teaches for serving (vLLM's default
``gpu_memory_utilization=0.9``), so a setting "fits" when its peak is at most 90% of
the GPU. A rule of thumb stated as such, not a measurement."""


def usable_bytes(gpu, reserve=RESERVE_FRACTION):
    """Bytes of ``gpu`` (a name, ``GPU``, dict or a number of bytes) a run may use:
    ``(1 - reserve) x memory``."""
    if isinstance(reserve, bool) or not isinstance(reserve, (int, float)) \
            or not 0 <= reserve < 1:
        raise ConfigError(f"reserve: must be a fraction in [0, 1), e.g. 0.1 (got {reserve!r})")
    cap = gpu if isinstance(gpu, int) and not isinstance(gpu, bool) else None
    if cap is None:
        from .hardware import as_gpu
        cap = as_gpu(gpu).memory_bytes
    return int(cap * (1 - reserve))


def fit_verdict(mem, gpu, reserve=RESERVE_FRACTION):
    """``(fits, words)``: whether ``mem.peak`` (a :class:`TrainingMemory`) stays within
    :func:`usable_bytes` of ``gpu``, and a sentence saying by how much and which
    moment of the step decides the peak."""
    use = usable_bytes(gpu, reserve)
    spare = use - mem.peak
    head = (f"fits, {spare / 1e9:,.1f} GB to spare" if spare >= 0
            else f"does not fit: {-spare / 1e9:,.1f} GB over")
    return spare >= 0, (f"{head} (peak {mem.peak / 1e9:,.1f} GB, at {mem.peak_decided_by}; "
                        f"usable {use / 1e9:,.1f} GB after a {reserve:.0%} reserve)")


def layer_activation_bytes(cfg, seq_len=1, micro_batch=1, precision="bf16-mixed",
                           attention="flash", tp=1):
    """Bytes one layer saves for backward (no recomputation), per layer kind:
    ``[(n_layers, is_moe, bytes of one such layer), ...]``. With the defaults
    (one token), the bytes per token of one layer."""
    cfg = as_config(cfg)
    _int("seq_len", seq_len)
    _int("micro_batch", micro_batch)
    act = PRECISIONS[_choice("precision", precision, tuple(PRECISIONS))]["act"]
    _choice("attention", attention, ATTENTION)
    out = []
    for n_layers, tensors, is_moe in _groups(cfg):
        per_tok = sum(_layer_terms(cfg, tensors, is_moe, seq_len, attention, act, tp,
                                   precision == "amp-bf16", b=micro_batch).values())
        out.append((n_layers, is_moe, per_tok * seq_len * micro_batch
                    + (4 * cfg.num_experts if is_moe else 0)))
    return out


def data_parallel_size(n_gpus, tp=1, cp=1, pp=1):
    """How many data-parallel replicas ``n_gpus`` GPUs make when each replica is a group
    of ``tp x cp x pp`` GPUs (tensor, context and pipeline parallel): ``n_gpus // group``,
    refused unless the group divides ``n_gpus``."""
    _int("n_gpus", n_gpus, hi=MAX_GPUS)
    _int("tp", tp, hi=MAX_GPUS)
    _int("cp", cp, hi=MAX_GPUS)
    _int("pp", pp, hi=MAX_GPUS)
    group = tp * cp * pp
    if n_gpus % group:
        sizes = " x ".join(f"{k}={v}" for k, v in (("tp", tp), ("cp", cp), ("pp", pp))
                           if v > 1 or k == "tp")
        what = sizes if group == tp else f"{sizes} = {group}"
        raise ConfigError(f"n_gpus: must be a multiple of {what} (each data-parallel replica "
                          f"is a group of that many GPUs) (got {n_gpus})")
    return n_gpus // group


def fewest_gpus(cfg, gpu, seq_len, micro_batch=1, *, zero_stage=3, tp=1,
                reserve=RESERVE_FRACTION, **settings):
    """The fewest GPUs (``dp x tp x cp x pp``) on which :func:`training_memory`'s per-GPU
    **peak** stays within :func:`usable_bytes` (the GPU less ``reserve``), or ``None``
    if no count does (what is not sharded, such as the activations, already fills one
    GPU). ``gpu``: a name, ``GPU``, dict, or a number of bytes. Closed form from the
    peak at the start of backward, then checked against the engine."""
    cap = usable_bytes(gpu, reserve)
    # one data-parallel replica: tp x cp x pp GPUs
    group = tp * settings.get("cp", 1) * settings.get("pp", 1)

    def peak(dp):
        return training_memory(cfg, seq_len, micro_batch, zero_stage=zero_stage, dp=dp,
                               tp=tp, **settings).peak

    one = training_memory(cfg, seq_len, micro_batch, zero_stage=zero_stage, dp=1, tp=tp,
                          **settings)
    if one.peak <= cap:
        return group
    if zero_stage == 0:
        return None
    if settings.get("pp", 1) > 1:
        # the stage that decides may change with dp: bisect (the peak never grows with dp)
        if peak(MAX_GPUS) > cap:
            return None
        lo, hi = 1, MAX_GPUS
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if peak(mid) <= cap else (mid, hi)
        return hi * group
    sharded = one.optimizer + (one.grads if zero_stage >= 2 else 0) \
        + (one.params if zero_stage >= 3 else 0)
    fixed = one.peak_backward - sharded
    if fixed >= cap:
        return None
    dp = max(1, _cdiv(sharded, cap - fixed))
    if dp > MAX_GPUS:
        return None
    while dp > 1 and peak(dp - 1) <= cap:
        dp -= 1   # at most a step or two: the ceil divisions of each part
    while peak(dp) > cap:
        dp += 1
        if dp > MAX_GPUS:
            return None
    return dp * group


def korthikanti_activation_bytes(cfg, seq_len, micro_batch=1, flash=False, bytes_per_value=2):
    """The textbook estimate of one model's activations, for comparison:
    ``L x s x b x h x (34 + 5 a s / h)`` bytes at 2 bytes per value (Korthikanti et
    al. 2022, eq. 1: a GPT layer with a 4h GELU MLP and dropout, 16-bit activations;
    ``flash=True`` drops the ``5 a s / h`` score term). It ignores GQA, SwiGLU's
    wider MLP, QK-norm, MoE, the fp32 norm statistics, the embedding and the logits."""
    cfg = as_config(cfg)
    s, b, h, a = seq_len, micro_batch, cfg.hidden_size, cfg.num_attention_heads
    per_layer = Fraction(34 * s * b * h) + (0 if flash else Fraction(5 * a * s * s * b))
    return int(cfg.num_hidden_layers * per_layer * bytes_per_value / 2)


def measured_peaks():
    """The stored peak measurements (``llmcourse/data/peak_measured.json``, written by
    ``benchmarks/measure_peak.py`` on CPU): bytes above the states at the end of the
    forward, at the peak of forward + backward, and during the optimizer step."""
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "peak_measured.json")
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def measured_activations():
    """The stored measurements (``llmcourse/data/activations_measured.json``, written
    by ``benchmarks/measure_activations.py`` on CPU): a dict with the torch and
    transformers versions, the small models' configs and one row per setting."""
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        "activations_measured.json")
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _stored(name):
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", name)
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


_ACCURACY = {}


def activation_accuracy(cfg):
    """How far :func:`training_memory`'s saved tensors can be trusted for ``cfg``'s
    family, in words, from the stored CPU measurements of small models of the family
    (``llmcourse/data/activations_measured.json``, ``activations_measured_2026.json`` and
    ``activations_measured_2026_more.json``):
    ``"measured: equal to PyTorch's saved bytes"``, ``"estimate: measured X% to Y% off"``
    (the engine against every stored row of the family), or ``"estimate: not measured
    for <type>"``. The 2026 linear mixers are counted as transformers' reference PyTorch
    code saves them; a fused GPU kernel saves less."""
    cfg = as_config(cfg)
    mt = cfg.model_type
    key = (mt, cfg.is_moe)
    if key in _ACCURACY:
        return _ACCURACY[key]
    from .config import from_hf_config
    errors, with_experts = [], False
    for data in (measured_activations(), _stored("activations_measured_2026.json"),
                 _stored("activations_measured_2026_more.json")):
        for r in data["rows"]:
            model = data["models"][r["model"]]
            if model["model_type"] != mt and model.get("text_config", {}).get("model_type") != mt:
                continue
            small = from_hf_config(model)
            with_experts |= small.is_moe
            m = training_memory(small, r["seq_len"], r["batch"],
                                precision=data["engine_precision"][r["dtype"]],
                                attention=data["engine_attention"][r["attn_implementation"]])
            errors.append(m.saved_for_backward / r["saved_bytes"] - 1)
    if not errors:
        words = f"estimate: the same per-tensor rules, not measured for {mt}"
    elif max(abs(e) for e in errors) < 5e-4:
        words = f"measured: equal to PyTorch's saved bytes ({len(errors)} settings, CPU)"
    else:
        words = (f"estimate: {min(errors):+.0%} to {max(errors):+.0%} of PyTorch's saved bytes "
                 f"({len(errors)} settings of a small {mt}, CPU)")
    if errors and cfg.is_moe and not with_experts:   # the family measured without experts
        words = (f"estimate: layers as measured on a small dense {mt} ({words.split(': ')[1]}); "
                 f"its routed experts follow the common rules, not measured")
    _ACCURACY[key] = words
    return words


# --- compute --------------------------------------------------------------------------

CHINCHILLA_TOKENS_PER_PARAM = 20
"""Hoffmann et al. 2022 ("Training Compute-Optimal Large Language Models"): for a
compute-optimal model, about 20 training tokens per parameter (Chinchilla: 70B
parameters, 1.4T tokens). A reference point, not a rule: Llama-3-8B saw 15T tokens,
about 1,900 per parameter."""


def chinchilla_tokens(cfg):
    """``20 x`` the total parameter count: Chinchilla's compute-optimal token budget."""
    return CHINCHILLA_TOKENS_PER_PARAM * param_count(as_config(cfg)).total


class TrainingFlops:
    """Training FLOPs for ``tokens`` tokens in sequences of ``seq_len``.

    ``matmul`` = 6 x active matmul weights x tokens (forward 2, backward 4: the
    gradient with respect to the input and to the weight); ``attention`` = 3 x the
    forward attention FLOPs (causal, averaged over the sequence). ``model`` is
    their sum, what MFU counts; ``hardware`` adds the recomputed forward
    (``recompute="full"``: one more forward; ``"selective"`` with eager attention: one
    more attention forward; with FlashAttention there are no stored scores to drop, so
    selective recomputation adds nothing). The recomputation inside FlashAttention's
    own backward kernel is not counted, as MFU does not count it.
    """

    __slots__ = ("model_name", "tokens", "seq_len", "matmul", "attention", "recompute_extra")

    def __init__(self, model_name, tokens, seq_len, matmul, attention, recompute_extra):
        self.model_name, self.tokens, self.seq_len = model_name, tokens, seq_len
        self.matmul, self.attention, self.recompute_extra = matmul, attention, recompute_extra

    @property
    def model(self):
        return self.matmul + self.attention

    total = model

    @property
    def hardware(self):
        return self.model + self.recompute_extra

    def __int__(self):
        return self.model

    def __repr__(self):
        return (f"TrainingFlops({self.model_name}: {self.model:.4g} = 6ND {self.matmul:.4g} "
                f"+ attention {self.attention:.4g}, tokens={self.tokens:,}, seq_len={self.seq_len:,})")


MFU_CONVENTIONS = ("causal", "full")


def training_flops(cfg, tokens, seq_len, recompute="none", attention="flash",
                   convention="causal"):
    """Training FLOPs (forward + backward) for ``tokens`` tokens in sequences of
    ``seq_len``: ``6 x N x D`` for the N active matmul weights (the lm_head
    included, the embedding lookup not) plus 3 x the forward attention term.
    Exact integers (the attention average is rounded down per token). ``recompute``
    and ``attention`` only change the ``hardware`` FLOPs (see :class:`TrainingFlops`).

    ``convention``: how the attention FLOPs are counted, which changes a reported MFU.
    ``"causal"`` (the default): token i attends to i keys, the average over the
    sequence, (s + 1) / 2 keys (the causal mask halves the work). ``"full"``: every
    token attends to all s keys (window-limited layers to their window), as PaLM's
    46.2% MFU (Chowdhery et al. 2022, appendix B: 6N + 12 L H Q T per token) and
    Megatron-LM's formula (Narayanan et al. 2021) count it."""
    cfg = as_config(cfg)
    _int("tokens", tokens, hi=10**16)
    _int("seq_len", seq_len)
    _choice("recompute", recompute, RECOMPUTE)
    _choice("attention", attention, ATTENTION)
    _choice("convention", convention, MFU_CONVENTIONS)
    fpt = flops_per_token(cfg, seq_len, "prefill" if convention == "causal" else "decode")
    matmul = 3 * fpt.matmul * tokens
    attn_flops = 3 * fpt.attention * tokens
    extra = {"none": 0,
             "selective": fpt.attention * tokens if attention == "eager" else 0,
             "full": (fpt.matmul + fpt.attention) * tokens}[recompute]
    return TrainingFlops(cfg.name, tokens, seq_len, matmul, attn_flops, extra)


def training_time(flops, gpu, n_gpus=1, mfu=0.4, dtype="bf16"):
    """Seconds to run ``flops`` model FLOPs (a number or a :class:`TrainingFlops`)
    on ``n_gpus`` of ``gpu`` (a name, ``GPU`` or dict from :mod:`llmcourse.hardware`)
    at model-FLOPs utilization ``mfu``: ``flops / (n_gpus x peak(dtype) x mfu)``.

    MFU is an assumption, not a property of the model: large dense runs report
    about 0.35-0.55 (PaLM 46%, Llama-3 405B 38-43% on H100s).
    """
    from .hardware import as_gpu
    g = as_gpu(gpu)
    _int("n_gpus", n_gpus, hi=MAX_GPUS)
    if isinstance(mfu, bool) or not isinstance(mfu, (int, float, Fraction)) or not 0 < mfu <= 1:
        raise ConfigError(f"mfu: must be a fraction in (0, 1], e.g. 0.4 (got {mfu!r})")
    f = flops.model if isinstance(flops, TrainingFlops) else flops
    if isinstance(f, bool) or not isinstance(f, (int, float)) or f < 0:
        raise ConfigError(f"flops: must be a number of FLOPs, zero or more (got {f!r})")
    return float(f) / (n_gpus * g.peak(dtype) * float(mfu))
