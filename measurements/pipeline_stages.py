"""Measure what each pipeline stage saves for backward under a real schedule, on CPU.

A small random-weight Llama built with transformers is cut into ``pp`` stages the way
:func:`llmcourse.training.pipeline_stages` cuts it (the embedding on the first stage,
the final norm, the lm_head and transformers' loss on the last; every stage computes
its own rotary tables, as Megatron-LM's stages do). ``m`` micro-batches then run in
one process in the order the schedule gives each stage:

* ``"1f1b"``: Megatron-LM's ``forward_backward_pipelining_without_interleaving``: stage
  ``r`` runs ``min(pp - r - 1, m)`` warm-up forwards, then one forward and one backward
  in turn, then the cool-down backwards;
* ``"gpipe"``: every forward, then every backward;
* ``"interleaved-1f1b"``: Megatron-LM's ``forward_backward_pipelining_with_interleaving``:
  each GPU holds ``v`` chunks (virtual stages ``r, r + pp, ...`` of ``pp x v`` equal ones)
  and runs them in Megatron's order (:func:`_interleaved`).

A stage's forward receives the previous stage's output detached (what a pipeline
receives over the wire) and its backward sends the input's gradient back. Every tensor
autograd saves during a stage's forward of a micro-batch is recorded through
``torch.autograd.graph.saved_tensors_hooks`` (each storage once, weights left out, as
``measurements/saved_activations.py`` does) and released when that micro-batch's
backward on that stage has run. The result is, per stage, the most bytes saved at once:
what ``training_memory(..., pp=pp, pp_schedule=..., num_micro_batches=m)`` counts as
that stage's saved tensors. ``tests/test_training_pipeline.py`` runs it.

    python -m measurements pipeline-stages      # prints one measurement
"""

from __future__ import annotations

from .common import build


def schedule(pp, m, kind, v=1):
    """Each GPU's operations in order: ``[[("F" | "B", virtual stage, micro-batch), ...], ...]``
    (virtual stage = the stage index when there is one chunk per GPU)."""
    out = []
    for r in range(pp):
        if kind == "gpipe":
            out.append([("F", r, j) for j in range(m)] + [("B", r, j) for j in range(m)])
            continue
        if kind == "interleaved-1f1b":
            out.append(_interleaved(r, pp, m, v))
            continue
        if kind == "zero-bubble-h1":
            out.append(_zero_bubble_h1(r, pp, m))
            continue
        warm = min(pp - r - 1, m)
        ops = [("F", r, j) for j in range(warm)]
        for j in range(m - warm):
            ops += [("F", r, warm + j), ("B", r, j)]
        ops += [("B", r, j) for j in range(m - warm, m)]
        out.append(ops)
    return out


def _interleaved(r, pp, m, v):
    """GPU ``r``'s order under Megatron-LM's forward_backward_pipelining_with_interleaving
    (megatron/core/pipeline_parallel/schedules.py): its k-th forward runs chunk
    ``(k mod pp v) // pp`` on micro-batch ``(k // pp v) pp + k mod pp``, its k-th backward the
    chunks in reverse; ``2 (pp - r - 1) + (v - 1) pp`` warm-up forwards (every forward when
    m == pp), then one forward and one backward in turn, then the cool-down backwards. A
    GPU's chunk c is virtual stage ``c pp + r``."""
    total = m * v

    def op(kind, k):
        c = (k % (pp * v)) // pp
        c = c if kind == "F" else v - 1 - c
        return (kind, c * pp + r, (k // (pp * v)) * pp + k % pp)
    warm = total if m == pp else min((pp - r - 1) * 2 + (v - 1) * pp, total)
    ops = [op("F", k) for k in range(warm)]
    for k in range(total - warm):
        ops += [op("F", warm + k), op("B", k)]
    ops += [op("B", k) for k in range(total - warm, total)]
    return ops


def _zero_bubble_h1(r, pp, m):
    """GPU ``r``'s order under ZB-H1 (Qi et al. 2024), as the authors' DeepSpeed schedule
    ``ZeroBubbleH1Pipeline`` runs it (sail-sg/zero-bubble-pipeline-parallelism, with
    ``enable_zbh1_exact_semantics``): the backward split into ``"B"`` (the input's gradient)
    and ``"W"`` (the weights'); ``pp - r - 1`` warm-up forwards, ``r`` pairs of a forward and
    a B with the W deferred, then F, B, W in turn (the first stage runs B and W together),
    the cool-down B and W, and last the ``r`` deferred W's. It keeps ``pp - r`` micro-batches'
    buffers, as 1F1B. Used for timing and counting only (:func:`measure` runs B and W as one
    backward)."""
    ops, f, b = [], 0, 0
    for _ in range(pp - r - 1):
        if f < m:
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


def measure(config, pp, m, batch, seq_len, kind="1f1b", v=1):
    """``[most bytes saved at once on GPU 0, GPU 1, ...]`` for one step of ``m``
    micro-batches of ``batch x seq_len`` tokens (fp32, sdpa attention); ``v`` chunks per GPU
    under ``kind="interleaved-1f1b"``."""
    import torch
    from llmcourse import from_hf_config
    from llmcourse.parallelism import pipeline_stages, virtual_stage_layers

    model = build(config, "sdpa", "fp32")
    base = model.model
    cfg = from_hf_config(config)
    if kind == "interleaved-1f1b":
        chunks = virtual_stage_layers(cfg, pp, v)
        stages = [chunks[g % pp][g // pp] for g in range(pp * v)]
    else:
        stages = pipeline_stages(cfg, pp)
    G = len(stages)   # virtual stages; GPU of virtual stage g: g % pp
    weights = {t.untyped_storage().data_ptr() for t in model.parameters()}
    weights |= {t.untyped_storage().data_ptr() for t in model.buffers()}
    g = torch.Generator().manual_seed(1)
    ids = [torch.randint(0, config["vocab_size"], (batch, seq_len), generator=g) for _ in range(m)]
    pos = torch.arange(seq_len).unsqueeze(0)

    saved = {}        # (virtual stage, micro-batch) -> {storage: bytes}
    held = [0] * pp
    most = [0] * pp
    inputs, outputs, grads = {}, {}, {}

    def forward(s, j):
        seen = saved.setdefault((s, j), {})

        def pack(t):
            st = t.untyped_storage()
            if st.data_ptr() not in weights:
                seen.setdefault(st.data_ptr(), st.nbytes())
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            if s == 0:
                h = base.embed_tokens(ids[j])
            else:
                h = outputs[s - 1, j].detach().requires_grad_()
                inputs[s, j] = h
            rope = base.rotary_emb(h, position_ids=pos)
            a, z = stages[s]
            for layer in base.layers[a:z]:
                h = layer(h, attention_mask=None, position_embeddings=rope, position_ids=pos)
            if s == G - 1:
                logits = model.lm_head(base.norm(h))
                h = model.loss_function(logits=logits, labels=ids[j], vocab_size=config["vocab_size"])
        outputs[s, j] = h
        held[s % pp] += sum(seen.values())
        most[s % pp] = max(most[s % pp], held[s % pp])

    def backward(s, j):
        if s == G - 1:
            outputs[s, j].backward()
        else:
            outputs[s, j].backward(grads.pop((s + 1, j)))
        if s > 0:
            grads[s, j] = inputs.pop((s, j)).grad
        del outputs[s, j]
        held[s % pp] -= sum(saved.pop((s, j)).values())

    run_in_order(schedule(pp, m, kind, v), G - 1,
                 lambda r, op, s, j, deps: (forward if op == "F" else backward)(s, j))
    assert all(x == 0 for x in held)
    return most


def dependencies(op, s, j, last):
    """What must have run before ``op`` of micro-batch ``j`` on virtual stage ``s`` (``last``:
    the last virtual stage): a forward after the previous stage's, a backward (B) after its
    own forward and the next stage's backward, a weight gradient (W) after its own B."""
    if op == "F":
        return [("F", s - 1, j)] if s > 0 else []
    if op == "B":
        return [("F", s, j)] + ([("B", s + 1, j)] if s < last else [])
    return [("B", s, j)]


def run_in_order(ops, last, run):
    """Run every GPU's ops in its own order (``ops[gpu]``), each as soon as what it depends on
    has run: ``run(gpu, op, virtual stage, micro-batch, its dependencies)``. A schedule whose
    orders cannot all finish is refused."""
    nxt = [0] * len(ops)
    done = set()
    while any(nxt[r] < len(ops[r]) for r in range(len(ops))):
        progressed = False
        for r in range(len(ops)):
            if nxt[r] == len(ops[r]):
                continue
            op, s, j = ops[r][nxt[r]]
            deps = dependencies(op, s, j, last)
            if all(d in done for d in deps):
                run(r, op, s, j, deps)
                done.add((op, s, j))
                nxt[r] += 1
                progressed = True
        assert progressed, "the schedule deadlocked"


def main(argv=()):
    from .saved_activations import MODELS
    cfg = dict(MODELS["llama (GQA 8:2, SwiGLU)"], num_hidden_layers=4)
    for kind in ("1f1b", "gpipe"):
        print(kind, measure(cfg, 2, 4, 1, 128, kind))
    print("interleaved-1f1b, 2 chunks", measure(cfg, 2, 4, 1, 128, "interleaved-1f1b", 2))
