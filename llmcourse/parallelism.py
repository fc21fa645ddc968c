"""Training across GPUs: pipeline schedules and their bubbles, the bytes a step moves
between GPUs, and the communication buffers a tool keeps.

* **Pipeline schedules** (:func:`pipeline_stages`, :func:`in_flight_micro_batches`,
  :func:`pipeline_bubble`): GPipe, 1F1B (PipeDream-Flush, Megatron-LM's default), Megatron's
  interleaved 1F1B with virtual stages (Narayanan et al. 2021) and the zero-bubble ZB-H1
  schedule (Qi et al. 2024), each with the micro-batches a stage holds and the share of a
  step it idles.
* **Communication volume** (:func:`communication_volume`): the bytes each GPU sends in
  one optimizer step for data parallelism (DDP's all-reduce, ZeRO's reduce-scatter and
  all-gathers), tensor (and sequence) parallelism, context parallelism (ring attention)
  and expert parallelism (all-to-all), as ring collectives move them.
* **Buffers** (:func:`tool_buffers`): what a tool allocates beside the states: DDP's
  gradient buckets, the bf16 weights FSDP gathers for compute, DeepSpeed's buckets (from
  their default sizes).

Standard library only.
"""

from __future__ import annotations

from fractions import Fraction

from .activations import cdiv
from .architectures import global_tensors, layer_groups
from .config import ConfigError
from .training_settings import (MAX_GPUS, MAX_STAGES, MAX_TOKENS, PP_SCHEDULES, PRECISIONS,
                                check_choice, check_int)
from .zoo import as_config

__all__ = ["PP_SCHEDULES", "pipeline_stages", "virtual_stage_layers",
           "in_flight_micro_batches", "interleaved_in_flight", "pipeline_bubble",
           "pipeline_orders", "pipeline_dependencies", "run_pipeline_orders",
           "CommunicationVolume", "communication_volume", "tool_buffers",
           "DEEPSPEED_DEFAULTS", "DDP_BUCKET_CAP_MB", "deepspeed_buckets",
           "GPUS_PER_NODE", "INTER_NODE_BYTES_PER_S", "link_for"]

# --- pipeline schedules --------------------------------------------------------------------


def pipeline_stages(cfg, pp):
    """``[(first layer, stop), ...]``: the layers each of ``pp`` pipeline stages holds,
    as evenly as possible, the first stages taking one more when ``pp`` does not divide
    ``num_hidden_layers`` (Megatron-LM asks that it divide unless told otherwise)."""
    cfg = as_config(cfg)
    L = cfg.num_hidden_layers
    check_int("pp", pp, hi=min(L, MAX_STAGES))
    base, extra = divmod(L, pp)
    out, start = [], 0
    for i in range(pp):
        stop = start + base + (i < extra)
        out.append((start, stop))
        start = stop
    return out


def virtual_stage_layers(cfg, pp, virtual_stages):
    """Interleaved 1F1B: ``[[(first layer, stop) of chunk 0, chunk 1, ...] of GPU 0, ...]``.
    The model is cut into ``pp x virtual_stages`` equal virtual stages, and GPU ``r`` holds
    virtual stages ``r, r + pp, r + 2 pp, ...`` (Megatron-LM's
    ``--num-layers-per-virtual-pipeline-stage``: the layers must divide evenly)."""
    cfg = as_config(cfg)
    L = cfg.num_hidden_layers
    check_int("pp", pp, hi=min(L, MAX_STAGES))
    check_int("virtual_stages", virtual_stages, hi=L)
    if L % (pp * virtual_stages):
        raise ConfigError(f"virtual_stages: pp x virtual_stages = {pp * virtual_stages} must "
                          f"divide num_hidden_layers={L} (each virtual stage holds as many "
                          f"layers) (got {virtual_stages})")
    per = L // (pp * virtual_stages)
    return [[((c * pp + r) * per, (c * pp + r + 1) * per) for c in range(virtual_stages)]
            for r in range(pp)]


def _interleaved_warmup(stage, pp, m, v):
    """Megatron-LM's forward_backward_pipelining_with_interleaving: the forwards a GPU runs
    before its first backward (all of them when m equals pp)."""
    total = m * v
    if m == pp:
        return total
    return min((pp - stage - 1) * 2 + (v - 1) * pp, total)


def interleaved_chunk(k, pp, v, forward=True):
    """The model chunk of a GPU's ``k``-th forward (or backward) under interleaved 1F1B:
    groups of ``pp`` micro-batches go through chunk 0, then chunk 1, ... (Megatron-LM's
    ``get_model_chunk_id``; the backward walks the chunks in reverse)."""
    c = (k % (pp * v)) // pp
    return c if forward else v - 1 - c


def _chunk_count(c, n, pp, v, forward=True):
    """How many of a GPU's first ``n`` forwards (or backwards) run chunk ``c``."""
    period = pp * v
    full, rest = divmod(n, period)
    c_f = c if forward else v - 1 - c            # the chunk's slot within a period
    return full * pp + max(0, min(rest - c_f * pp, pp))


def interleaved_in_flight(stage, pp, num_micro_batches, virtual_stages, weights=None):
    """Under interleaved 1F1B, ``[n_0, n_1, ...]``: how many micro-batches of each of its
    chunks GPU ``stage`` holds at its fullest. It runs its warm-up forwards, then one
    forward and one backward in turn; its k-th backward walks the chunks in the reverse of
    its forwards' order (Megatron-LM's ``get_model_chunk_id``), so what it holds after its
    ``warm-up + k``-th forward is every chunk-micro-batch it has run forward less the ``k``
    it has run backward (all of them when ``num_micro_batches == pp``). The count repeats
    every ``pp x v`` steps. ``weights``: the bytes one micro-batch of each chunk holds (the
    moment that holds the most bytes is chosen; by default every chunk weighs the same)."""
    pp, m, v = stage_args(stage, pp, num_micro_batches, virtual_stages)
    if m % pp:
        raise ConfigError(f"num_micro_batches: must be a multiple of pp={pp} under "
                          f"interleaved 1F1B (Megatron-LM refuses otherwise) (got {m})")
    weights = list(weights) if weights is not None else [1] * v
    total = m * v
    warm = _interleaved_warmup(stage, pp, m, v)
    if warm == total:
        return [m] * v
    best, best_n = None, None
    for k in range(min(total - warm, pp * v)):
        n = [_chunk_count(c, warm + k + 1, pp, v) - _chunk_count(c, k, pp, v, forward=False)
             for c in range(v)]
        w = sum(ni * wi for ni, wi in zip(n, weights))
        if best is None or w > best:
            best, best_n = w, n
    return best_n


def stage_args(stage, pp, num_micro_batches, virtual_stages=1):
    check_int("pp", pp, hi=MAX_STAGES)
    check_int("num_micro_batches", num_micro_batches, hi=MAX_TOKENS)
    check_int("virtual_stages", virtual_stages, hi=MAX_STAGES)
    check_int("stage", stage, lo=0, hi=pp - 1)
    return pp, num_micro_batches, virtual_stages


def in_flight_micro_batches(stage, pp, num_micro_batches, schedule="1f1b", virtual_stages=1):
    """How many micro-batches' saved tensors pipeline stage ``stage`` (0-based) holds at
    its fullest, in units of one micro-batch through all of that GPU's layers.

    * ``"gpipe"``: every forward before any backward: all ``num_micro_batches``.
    * ``"1f1b"`` (PipeDream-Flush, Megatron-LM's default): a micro-batch's backward starts as
      soon as the last stage has run its forward, so stage ``i`` holds at most ``pp - i``:
      the first stage ``pp`` micro-batches of its ``L / pp`` layers, as many layers' worth
      as the whole model without a pipeline (Korthikanti et al. 2022, section 4.2.3).
    * ``"zero-bubble-h1"`` (Qi et al. 2024): the backward split into the input gradient (B)
      and the weight gradient (W), some W deferred into the bubbles. Every stage has
      ``min(pp, m)`` micro-batches whose W has not run (counted by running the authors' order:
      ``measurements/pipeline_stages.py``), the first stage's 1F1B count on every stage. An
      upper bound on memory, not a measurement: a micro-batch's B frees what only it needed
      (the loss's tensors among them) and W keeps the matmuls' inputs and output gradients.
    * ``"interleaved-1f1b"`` (Narayanan et al. 2021): each GPU holds ``virtual_stages``
      chunks of ``L / (pp v)`` layers and runs ``2 (pp - i - 1) + (v - 1) pp`` warm-up
      forwards of chunks: it holds ``warm-up + 1`` chunk-micro-batches, ``/ v`` in these
      units (a Fraction): for the first stage ``1 + (pp - 1) / (pp v)`` times 1F1B's
      ``pp`` when ``m > pp``. More memory, a smaller bubble."""
    check_choice("pp_schedule", schedule, PP_SCHEDULES)
    stage_args(stage, pp, num_micro_batches, virtual_stages)
    if schedule == "gpipe":
        return num_micro_batches
    if schedule == "interleaved-1f1b":
        return Fraction(sum(interleaved_in_flight(stage, pp, num_micro_batches, virtual_stages)),
                        virtual_stages)
    if schedule == "zero-bubble-h1":
        return min(pp, num_micro_batches)
    return min(pp - stage, num_micro_batches)


def pipeline_bubble(pp, num_micro_batches, schedule="1f1b", virtual_stages=1):
    """The share of a step each GPU idles while a pipeline fills and drains, ``m`` micro-
    batches per step:

    * GPipe and 1F1B: ``(pp - 1) / (m + pp - 1)`` (Narayanan et al. 2021: the bubble is
      ``(pp - 1)`` forward-and-backward times, the work ``m`` of them);
    * interleaved 1F1B with ``v`` virtual stages: ``(pp - 1) / (v m + pp - 1)``: each bubble
      slot is one chunk, ``1 / v`` of a stage's work;
    * ZB-H1: ``(pp - 1) / (3 m + pp - 1)``, the paper's ``(pp - 1)(T_F + T_B - T_W)`` bubble
      when the forward, the input-gradient and the weight-gradient passes take equal time
      (Qi et al. 2024, section 3), for ``m >= pp``.

    Every GPU idles the same share. A Fraction. Each formula equals a step-by-step run of the
    schedule's order with those times (``tests/test_training_pipeline.py``)."""
    check_choice("pp_schedule", schedule, PP_SCHEDULES)
    pp, m, v = stage_args(0, pp, num_micro_batches, virtual_stages)
    if schedule == "zero-bubble-h1" and m < pp:
        raise ConfigError(f"num_micro_batches: must be at least pp={pp} for ZB-H1's bubble "
                          f"(Qi et al. 2024 schedule m >= pp micro-batches) (got {m})")
    if schedule == "interleaved-1f1b":
        return Fraction(pp - 1, v * m + pp - 1)
    if schedule == "zero-bubble-h1":
        return Fraction(pp - 1, 3 * m + pp - 1)
    return Fraction(pp - 1, m + pp - 1)


def pipeline_orders(pp, num_micro_batches, schedule="1f1b", virtual_stages=1):
    """Each GPU's operations in the order the schedule runs them:
    ``[[(op, virtual stage, micro-batch), ...] for GPU 0, 1, ...]``, ``op`` one of ``"F"``
    (forward), ``"B"`` (backward; under ZB-H1 only the input's gradient) and ``"W"`` (ZB-H1's
    weight gradient); the virtual stage is the stage itself with one chunk per GPU, and
    ``c pp + r`` for GPU ``r``'s chunk ``c`` under interleaved 1F1B.

    * ``"gpipe"``: every forward, then every backward.
    * ``"1f1b"``: Megatron-LM's ``forward_backward_pipelining_without_interleaving``:
      ``min(pp - r - 1, m)`` warm-up forwards, one forward and one backward in turn, then
      the cool-down backwards.
    * ``"interleaved-1f1b"``: Megatron-LM's ``forward_backward_pipelining_with_interleaving``
      (its k-th forward runs chunk ``(k mod pp v) // pp`` on micro-batch
      ``(k // pp v) pp + k mod pp``, its backwards walk the chunks in reverse; ``2 (pp - r - 1)
      + (v - 1) pp`` warm-up forwards, every forward when ``m == pp``).
    * ``"zero-bubble-h1"``: the authors' ZB-H1 order (Qi et al. 2024; their DeepSpeed
      ``ZeroBubbleH1Pipeline`` with exact semantics): ``pp - r - 1`` warm-up forwards, ``r``
      pairs of a forward and a B with the W deferred, then F, B, W in turn, the cool-down B
      and W, and last the ``r`` deferred W's.

    These orders are what ``measurements/pipeline_stages.py`` runs on CPU and what
    :func:`pipeline_bubble`'s formulas are checked against (``tests/test_training_pipeline.py``)."""
    check_choice("pp_schedule", schedule, PP_SCHEDULES)
    pp, m, v = stage_args(0, pp, num_micro_batches, virtual_stages)
    out = []
    for r in range(pp):
        if schedule == "gpipe":
            out.append([("F", r, j) for j in range(m)] + [("B", r, j) for j in range(m)])
        elif schedule == "interleaved-1f1b":
            out.append(_interleaved_order(r, pp, m, v))
        elif schedule == "zero-bubble-h1":
            out.append(_zero_bubble_h1_order(r, pp, m))
        else:
            warm = min(pp - r - 1, m)
            ops = [("F", r, j) for j in range(warm)]
            for j in range(m - warm):
                ops += [("F", r, warm + j), ("B", r, j)]
            out.append(ops + [("B", r, j) for j in range(m - warm, m)])
    return out


def _interleaved_order(r, pp, m, v):
    total = m * v

    def op(kind, k):
        c = interleaved_chunk(k, pp, v, forward=kind == "F")
        return (kind, c * pp + r, (k // (pp * v)) * pp + k % pp)
    warm = _interleaved_warmup(r, pp, m, v)
    ops = [op("F", k) for k in range(warm)]
    for k in range(total - warm):
        ops += [op("F", warm + k), op("B", k)]
    return ops + [op("B", k) for k in range(total - warm, total)]


def _zero_bubble_h1_order(r, pp, m):
    ops, f, b = [], 0, 0
    for _ in range(min(pp - r - 1, m)):
        ops.append(("F", r, f))
        f += 1
    deferred = []
    for _ in range(r):
        if f < m:
            ops += [("F", r, f), ("B", r, b)]
            deferred.append(b)
            f += 1
            b += 1
    while f < m:
        ops += [("F", r, f), ("B", r, b), ("W", r, b)]
        f += 1
        b += 1
    while b < m:
        ops += [("B", r, b), ("W", r, b)]
        b += 1
    return ops + [("W", r, j) for j in deferred]


def pipeline_dependencies(op, stage, micro_batch, last):
    """What must have run before ``op`` of ``micro_batch`` on virtual stage ``stage``
    (``last``: the last virtual stage): a forward after the previous stage's forward, a
    backward (B) after its own forward and the next stage's backward, a weight gradient (W)
    after its own B."""
    if op == "F":
        return [("F", stage - 1, micro_batch)] if stage > 0 else []
    if op == "B":
        return [("F", stage, micro_batch)] + (
            [("B", stage + 1, micro_batch)] if stage < last else [])
    return [("B", stage, micro_batch)]


def run_pipeline_orders(orders, last, run):
    """Run every GPU's operations in its own order (``orders[gpu]``, as
    :func:`pipeline_orders` gives them), each as soon as what it depends on has run, calling
    ``run(gpu, op, virtual stage, micro-batch, its dependencies)``. An order that cannot
    finish is refused (RuntimeError): it would wait forever."""
    nxt = [0] * len(orders)
    done = set()
    while any(nxt[r] < len(orders[r]) for r in range(len(orders))):
        progressed = False
        for r, ops in enumerate(orders):
            if nxt[r] == len(ops):
                continue
            op, s, j = ops[nxt[r]]
            deps = pipeline_dependencies(op, s, j, last)
            if all(d in done for d in deps):
                run(r, op, s, j, deps)
                done.add((op, s, j))
                nxt[r] += 1
                progressed = True
        if not progressed:
            raise RuntimeError("the pipeline schedule deadlocked")


# --- buffers a tool keeps beside the states ---------------------------------------------------
# DDP's gradient buckets: 25 MiB each (the first 1 MiB), one gradient-sized copy in all with
# PyTorch's default gradient_as_bucket_view=False (torch/nn/parallel/distributed.py).
DDP_BUCKET_CAP_MB = 25
# DeepSpeed ZeRO's own defaults, in elements (deepspeed/runtime/zero/config.py, commit
# edaa722: reduce_bucket_size, allgather_bucket_size 5e8, stage3_prefetch_bucket_size 5e7,
# stage3_max_live_parameters 1e9, stage3_param_persistence_threshold 1e5)
DEEPSPEED_DEFAULTS = dict(reduce_bucket_size=5 * 10**8, allgather_bucket_size=5 * 10**8,
                          stage3_prefetch_bucket_size=5 * 10**7,
                          stage3_max_live_parameters=10**9,
                          stage3_param_persistence_threshold=10**5)


def deepspeed_buckets(kind="deepspeed", hidden_size=None):
    """DeepSpeed's bucket sizes in elements: its own defaults (``"deepspeed"``,
    :data:`DEEPSPEED_DEFAULTS`), or what the Hugging Face Trainer writes for a config whose
    sizes are ``"auto"`` (``"trainer-auto"``: transformers 5.23
    ``integrations/deepspeed.py``, ``trainer_config_finalize``: ``reduce_bucket_size =
    hidden_size**2``, ``stage3_prefetch_bucket_size = int(0.9 x hidden_size**2)``,
    ``stage3_param_persistence_threshold = 10 x hidden_size``; the live-parameter limit
    is not "auto" and keeps DeepSpeed's default)."""
    check_choice("deepspeed_buckets", kind, ("deepspeed", "trainer-auto"))
    if kind == "deepspeed":
        return dict(DEEPSPEED_DEFAULTS)
    check_int("hidden_size", hidden_size, hi=MAX_TOKENS)
    d2 = hidden_size * hidden_size
    return dict(DEEPSPEED_DEFAULTS, reduce_bucket_size=d2,
                stage3_prefetch_bucket_size=int(0.9 * d2),
                stage3_param_persistence_threshold=10 * hidden_size)
DDP_PRECISIONS = ("fp32", "bf16", "amp-bf16")   # what PyTorch DDP trains (the Trainer's DDP)


def tool_buffers(precision, zero_stage, dp, n_params, tail_params, largest_layer_params,
                 last=True, buckets="deepspeed", hidden_size=None):
    """``(buffers, reserve)``: bytes per GPU a tool allocates beside the states.

    ``buffers`` (``{identifier: (at the start of backward, while the first layer is
    recomputed, through the optimizer step)}``) are counted in the peak, measured on CPU
    with two gloo processes (``measurements/comm_buffers.py``):

    * ``ddp_buckets``: PyTorch DDP (``zero_stage=0``, ``dp > 1``, for the precisions it
      trains: fp32, bf16, amp-bf16) reduces gradients through buckets that, with the
      default ``gradient_as_bucket_view=False``, are a second copy of every gradient,
      allocated when the model is wrapped and held for good.
    * ``fsdp_unsharded``: FSDP's bf16 compute weights (``precision="fsdp-bf16"``). With
      ZeRO-3 (FULL_SHARD, Accelerate's FSDP2 units: each decoder layer, the input
      embedding, and the tail of final norm and lm_head, which is never resharded after its
      forward) the backward starts with only the tail gathered, ``2 x tail``; while a layer
      is recomputed (gradient checkpointing) that layer and the next one prefetched are
      gathered too (an estimate: not the moment that decided the measured peaks); with
      ZeRO-2 (SHARD_GRAD_OP) or without sharding every unit stays gathered from its forward
      to its backward: ``2 x N``. Freed before the optimizer step.

    ``reserve`` (``{identifier: bytes}``): DeepSpeed's buckets for the other precisions with
    ZeRO, at the sizes ``buckets`` names (:func:`deepspeed_buckets`: DeepSpeed's own
    defaults, or the Trainer's "auto" from ``hidden_size``): not in the peak (not
    measured: DeepSpeed is not installed here) but named, for the 10% reserve to hold:
    the reduce bucket (stage 2 and 3, ``reduce_bucket_size`` gradient values in bf16)
    and, with stage 3, the prefetch bucket and at most ``stage3_max_live_parameters``
    gathered bf16 weights (a limit, not an allocation)."""
    buffers, reserve = {}, {}
    if precision == "fsdp-bf16":
        b = PRECISIONS[precision]["unsharded"]
        if zero_stage >= 3:
            tail = tail_params if last else 0
            buffers["fsdp_unsharded"] = (b * tail, b * (tail + 2 * largest_layer_params), 0)
        else:
            buffers["fsdp_unsharded"] = (b * n_params, b * n_params, 0)
    elif precision in DDP_PRECISIONS:
        if zero_stage == 0 and dp > 1:
            buckets = PRECISIONS[precision]["grad"] * n_params
            buffers["ddp_buckets"] = (buckets, buckets, buckets)
    elif zero_stage >= 1 and dp > 1:
        d = deepspeed_buckets(buckets, hidden_size)
        if zero_stage >= 2:
            reserve["deepspeed_reduce_bucket"] = 2 * min(d["reduce_bucket_size"], n_params)
        if zero_stage >= 3:
            reserve["deepspeed_prefetch_bucket"] = 2 * min(d["stage3_prefetch_bucket_size"],
                                                           n_params)
            reserve["deepspeed_live_parameters"] = 2 * min(d["stage3_max_live_parameters"],
                                                           n_params)
    return buffers, reserve


# --- communication volume ------------------------------------------------------------------------


class CommunicationVolume:
    """Bytes each GPU sends in one optimizer step, by what the traffic is for
    (``parts``: ``{identifier: bytes}``), as NCCL's ring algorithms move them: an
    all-reduce of ``M`` bytes over ``n`` GPUs sends ``2 (n - 1) / n x M`` from each, a
    reduce-scatter or an all-gather ``(n - 1) / n x M``, an all-to-all ``(n - 1) / n`` of
    what each GPU holds. ``total`` sums them; ``about`` says what was assumed."""

    __slots__ = ("model", "parts", "about", "settings")

    def __init__(self, model, parts, about, settings):
        self.model, self.parts, self.about, self.settings = model, parts, about, settings

    @property
    def total(self):
        return sum(self.parts.values())

    def seconds(self, bandwidth_bytes_per_s):
        """The step's communication time at a bus bandwidth (bytes/s each GPU sends), if
        none of it overlapped computation: a bound, not a prediction."""
        return self.total / bandwidth_bytes_per_s

    def seconds_by_link(self, gpu, dp=1, tp=1, cp=1, ep=1, gpus_per_node=None,
                        inter_node=None):
        """``{kind: seconds}``: each kind of traffic timed at the link its group crosses
        (:func:`link_for`): tensor, context and expert parallelism inside a node (at the
        GPU's link), data parallelism at the GPU's link while all ``dp x tp x cp`` GPUs
        fit in one node, else at the inter-node network's rate per GPU. None of it
        overlapped with compute: a bound, not a prediction."""
        group = {"dp": dp * tp * cp, "tp": tp, "cp": tp * cp, "ep": ep}
        out = {}
        for k, v in self.parts.items():
            n = group[k.split("_")[0]]
            rate, _ = link_for(gpu, n, gpus_per_node, inter_node)
            out[k] = v / rate
        return out

    def __repr__(self):
        parts = ", ".join(f"{k} {v / 1e9:,.2f} GB" for k, v in self.parts.items())
        return f"CommunicationVolume({self.model}: {self.total / 1e9:,.2f} GB per GPU: {parts})"


# GPUs in one node, and the network each GPU reaches the other nodes by: an H100 or H200
# HGX node has 8 GPUs on NVLink and one 400 Gb/s NIC per GPU (NVIDIA DGX H100 user guide:
# eight ConnectX-7 400 Gb/s InfiniBand ports for the compute fabric), 50 GB/s each way
GPUS_PER_NODE = 8
INTER_NODE_BYTES_PER_S = 400 * 10**9 // 8


def link_for(gpu, n_gpus, gpus_per_node=None, inter_node=None):
    """``(bytes/s one GPU sends, words)``: the link a collective over ``n_gpus`` GPUs runs
    at. Within a node (``n_gpus <= gpus_per_node``, 8 by default) the GPU's own link, one
    direction (``gpu.interconnect_bytes_per_s / 2``: NVLink's 900 GB/s for an H100 is 450
    each way); beyond it a ring crosses the network, whose per-GPU rate bounds every GPU's
    share (``inter_node``, 50 GB/s: one 400 Gb/s NIC per GPU). A GPU without a stated link
    (a PCIe card) uses the network figure for both."""
    from .hardware import as_gpu
    g = as_gpu(gpu)
    per_node = GPUS_PER_NODE if gpus_per_node is None else check_int("gpus_per_node",
                                                                      gpus_per_node,
                                                                      hi=MAX_GPUS)
    net = INTER_NODE_BYTES_PER_S if inter_node is None else inter_node
    if isinstance(net, bool) or not isinstance(net, (int, float)) or net <= 0:
        raise ConfigError(f"inter_node: must be a positive number of bytes per second "
                          f"(got {net!r})")
    check_int("n_gpus", n_gpus, hi=MAX_GPUS)
    if n_gpus <= per_node and g.interconnect_bytes_per_s:
        rate = g.interconnect_bytes_per_s / 2
        name = g.interconnect.split(",")[0] if g.interconnect else "the GPU link"
        return rate, f"within a node ({name}, {rate / 1e9:,.0f} GB/s each way)"
    nodes = -(-n_gpus // per_node)
    return net, (f"across {nodes} nodes (the network, {net * 8 / 1e9:,.0f} Gb/s per GPU)"
                 if n_gpus > per_node else f"(no GPU link stated: the network, "
                                           f"{net * 8 / 1e9:,.0f} Gb/s per GPU)")


def _ring(n, size, kind):
    """Bytes one GPU sends in a ring collective of ``size`` bytes over ``n`` GPUs."""
    if n <= 1:
        return 0
    if kind == "all_reduce":
        return Fraction(2 * (n - 1), n) * size
    return Fraction(n - 1, n) * size   # reduce-scatter, all-gather, all-to-all


def communication_volume(cfg, seq_len, micro_batch=1, precision="bf16-mixed", zero_stage=0,
                         dp=1, tp=1, sp=False, cp=1, ep=1, num_micro_batches=1):
    """The bytes each GPU sends in one optimizer step of ``num_micro_batches``
    micro-batches (a :class:`CommunicationVolume`), by kind of traffic:

    * **data parallel** over ``dp`` GPUs (this GPU's shard of the weights, ``N / tp``):
      DDP all-reduces the gradients once a step (``no_sync`` while accumulating: the
      Trainer's and Accelerate's default), ``2 (dp - 1) / dp x`` the gradient bytes; ZeRO-1
      and ZeRO-2 reduce-scatter the gradients and all-gather the updated weights, the same
      volume; ZeRO-3 / FSDP all-gathers the weights in every micro-batch's forward and again
      in its backward and reduce-scatters the gradients, ``3 (dp - 1) / dp x`` per
      micro-batch in 16-bit values: 1.5 x DDP's for one micro-batch (Rajbhandari et al.
      2020). The gradients travel in the precision's gradient dtype (fsdp-bf16: its bf16
      reduce_dtype), the weights in their compute dtype (bf16; fp32 for fp32);
    * **tensor parallel** over ``tp``: Megatron's two all-reduces of the ``s x b x h``
      activations per layer in the forward (after attention, after the MLP) and two in the
      backward (the gradients of the attention's and the MLP's inputs; ``tp_layers``,
      measured with PyTorch's DTensor on two CPU processes), and Megatron's
      vocabulary-parallel embedding (an all-reduce forward) and lm_head (its input's
      gradient, backward) (``tp_embedding_head``; its cross-entropy's three all-reduces of
      ``s x b`` fp32 values are left out); with sequence parallelism (``sp``) each
      all-reduce becomes an all-gather and a reduce-scatter: the same bytes (Korthikanti et
      al. 2022);
    * **context parallel** over ``cp`` (ring attention, Liu et al. 2023): each GPU passes its
      ``s / cp`` tokens' K and V around the ring, ``cp - 1`` hops per attention layer in the
      forward, and K, V and their gradients in the backward;
    * **expert parallel** over ``ep`` (routed-expert layers): each token's hidden state goes
      to its ``k`` experts and comes back, an all-to-all each way in the forward and again
      in the backward, ``(ep - 1) / ep`` of it leaving the GPU when routing is uniform.

    A bound on traffic, not a time: overlap with compute is the tool's doing. The
    volumes follow the collectives each tool calls, as measured on CPU with gloo
    (``measurements/comm_buffers.py``: DDP's all-reduce and FSDP2's all-gathers and
    reduce-scatters, counted per call)."""
    cfg = as_config(cfg)
    check_int("seq_len", seq_len)
    check_int("micro_batch", micro_batch)
    check_choice("precision", precision, tuple(PRECISIONS))
    check_choice("zero_stage", zero_stage, (0, 1, 2, 3))
    for name, v in (("dp", dp), ("tp", tp), ("cp", cp), ("ep", ep)):
        check_int(name, v, hi=MAX_GPUS)
    check_int("num_micro_batches", num_micro_batches, hi=MAX_TOKENS)
    if not isinstance(sp, bool):
        raise ConfigError(f"sp: must be True or False (sequence parallelism) (got {sp!r})")
    p = PRECISIONS[precision]
    from .counts import param_count
    n_total = param_count(cfg).total
    norms = sum(g.count * t.per_expert * t.numel for g in layer_groups(cfg) for t in g.tensors
                if t.component == "norms" and not t.buffer) + sum(
        t.numel for t in global_tensors(cfg) if t.component == "norms")
    n = cdiv(n_total - norms, tp) + norms   # this GPU's weights (norms replicated)
    m = num_micro_batches
    grad_b = 2 if precision == "fsdp-bf16" else p["grad"]
    weight_b = 4 if precision == "fp32" else 2
    parts = {}
    if precision == "fsdp-bf16":
        # FSDP2 gathers every unit in each micro-batch's forward and, with ZeRO-3, all but
        # the tail again in its backward (the tail is never resharded after its forward);
        # it reduce-scatters every micro-batch's gradients (Accelerate's no_sync does nothing
        # under FSDP2)
        # the tail unit: the final norm and the lm_head (a tied one is the embedding)
        head = sum(t.numel for t in global_tensors(cfg) if t.component == "lm_head")
        tail = cdiv(head, tp) + sum(t.numel for t in global_tensors(cfg)
                                    if t.component == "norms")
        regather = n - tail if zero_stage >= 3 else 0
        parts["dp_gradients"] = m * _ring(dp, grad_b * n, "reduce_scatter")
        parts["dp_weights"] = m * _ring(dp, weight_b * (n + regather), "all_gather")
    elif zero_stage == 0:   # DDP: one all-reduce a step (no_sync while accumulating)
        parts["dp_gradients"] = _ring(dp, grad_b * n, "all_reduce")
    elif zero_stage <= 2:
        # DeepSpeed: ZeRO-1 reduces the accumulated gradients once a step, ZeRO-2 every
        # micro-batch into the partitions; both all-gather the updated bf16 weights
        parts["dp_gradients"] = (1 if zero_stage == 1 else m) * _ring(dp, grad_b * n,
                                                                      "reduce_scatter")
        parts["dp_weights"] = _ring(dp, weight_b * n, "all_gather")
    else:
        parts["dp_gradients"] = m * _ring(dp, grad_b * n, "reduce_scatter")
        parts["dp_weights"] = 2 * m * _ring(dp, weight_b * n, "all_gather")
    tokens = seq_len * micro_batch
    act = p["act"]
    h = cfg.hidden_size
    L = cfg.num_hidden_layers
    attn_layers = sum(g.count for g in layer_groups(cfg)
                      if g.kind.attention not in ("none", "mamba", "linear_attention", "conv"))
    moe_layers = sum(g.count for g in layer_groups(cfg) if any(t.routed for t in g.tensors))
    if tp > 1:
        one = act * h * Fraction(tokens, cp)   # one all-reduce of the s x b x h activations
        parts["tp_layers"] = m * _ring(tp, 4 * L * one, "all_reduce")
        parts["tp_embedding_head"] = m * _ring(tp, 2 * one, "all_reduce")
    if cp > 1:
        kv = 2 * cfg.num_key_value_heads * cfg.head_dim * act * cdiv(seq_len, cp) * micro_batch
        kv = Fraction(kv, tp) if tp > 1 else kv
        parts["cp_ring_kv"] = m * attn_layers * (cp - 1) * 3 * kv   # fwd K, V; bwd K, V, dK, dV
    if ep > 1 and moe_layers:
        k = cfg.num_experts_per_tok
        per_mb = k * Fraction(tokens, cp) * h * act
        parts["ep_all_to_all"] = m * moe_layers * 4 * _ring(ep, per_mb, "all_to_all")
    parts = {k: int(-(-v // 1)) for k, v in parts.items() if v}
    about = (f"{precision}, ZeRO-{zero_stage} over dp={dp}, tp={tp}"
             f"{' with sequence parallelism' if sp and tp > 1 else ''}, cp={cp}, ep={ep}; "
             f"{m} micro-batch{'es' if m > 1 else ''} of {micro_batch} x {seq_len:,} tokens; "
             f"ring collectives")
    return CommunicationVolume(cfg.name, parts, about,
                               dict(seq_len=seq_len, micro_batch=micro_batch,
                                    precision=precision, zero_stage=zero_stage, dp=dp, tp=tp,
                                    sp=sp, cp=cp, ep=ep, num_micro_batches=m))
