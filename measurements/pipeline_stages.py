"""Measure what each pipeline stage saves for backward under a real schedule, on CPU.

A small random-weight Llama built with transformers is cut into ``pp`` stages the way
:func:`llmcourse.training.pipeline_stages` cuts it (the embedding on the first stage,
the final norm, the lm_head and transformers' loss on the last; every stage computes
its own rotary tables, as Megatron-LM's stages do). ``m`` micro-batches then run in
one process in the order the schedule gives each stage:

* ``"1f1b"``: Megatron-LM's ``forward_backward_pipelining_without_interleaving``: stage
  ``r`` runs ``min(pp - r - 1, m)`` warm-up forwards, then one forward and one backward
  in turn, then the cool-down backwards;
* ``"gpipe"``: every forward, then every backward.

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


def schedule(pp, m, kind):
    """Each stage's operations in order: ``[[("F", j) | ("B", j), ...], ...]``."""
    out = []
    for r in range(pp):
        if kind == "gpipe":
            out.append([("F", j) for j in range(m)] + [("B", j) for j in range(m)])
            continue
        warm = min(pp - r - 1, m)
        ops = [("F", j) for j in range(warm)]
        for j in range(m - warm):
            ops += [("F", warm + j), ("B", j)]
        ops += [("B", j) for j in range(m - warm, m)]
        out.append(ops)
    return out


def measure(config, pp, m, batch, seq_len, kind="1f1b"):
    """``[most bytes saved at once on stage 0, stage 1, ...]`` for one step of ``m``
    micro-batches of ``batch x seq_len`` tokens (fp32, sdpa attention)."""
    import torch
    from llmcourse import from_hf_config
    from llmcourse.training import pipeline_stages

    model = build(config, "sdpa", "fp32")
    base = model.model
    stages = pipeline_stages(from_hf_config(config), pp)
    weights = {t.untyped_storage().data_ptr() for t in model.parameters()}
    weights |= {t.untyped_storage().data_ptr() for t in model.buffers()}
    g = torch.Generator().manual_seed(1)
    ids = [torch.randint(0, config["vocab_size"], (batch, seq_len), generator=g) for _ in range(m)]
    pos = torch.arange(seq_len).unsqueeze(0)

    saved = {}        # (stage, micro-batch) -> {storage: bytes}
    held = [0] * pp
    most = [0] * pp
    inputs, outputs, grads = {}, {}, {}

    def forward(r, j):
        seen = saved.setdefault((r, j), {})

        def pack(t):
            st = t.untyped_storage()
            if st.data_ptr() not in weights:
                seen.setdefault(st.data_ptr(), st.nbytes())
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            if r == 0:
                h = base.embed_tokens(ids[j])
            else:
                h = outputs[r - 1, j].detach().requires_grad_()
                inputs[r, j] = h
            rope = base.rotary_emb(h, position_ids=pos)
            a, z = stages[r]
            for layer in base.layers[a:z]:
                h = layer(h, attention_mask=None, position_embeddings=rope, position_ids=pos)
            if r == pp - 1:
                logits = model.lm_head(base.norm(h))
                h = model.loss_function(logits=logits, labels=ids[j], vocab_size=config["vocab_size"])
        outputs[r, j] = h
        held[r] += sum(seen.values())
        most[r] = max(most[r], held[r])

    def backward(r, j):
        if r == pp - 1:
            outputs[r, j].backward()
        else:
            outputs[r, j].backward(grads.pop((r + 1, j)))
        if r > 0:
            grads[r, j] = inputs.pop((r, j)).grad
        del outputs[r, j]
        held[r] -= sum(saved.pop((r, j)).values())

    ops = schedule(pp, m, kind)
    nxt = [0] * pp
    done = set()
    while any(nxt[r] < len(ops[r]) for r in range(pp)):
        progressed = False
        for r in range(pp):
            if nxt[r] == len(ops[r]):
                continue
            op, j = ops[r][nxt[r]]
            ready = ((r == 0 or ("F", r - 1, j) in done) if op == "F"
                     else ("F", r, j) in done and (r == pp - 1 or ("B", r + 1, j) in done))
            if ready:
                (forward if op == "F" else backward)(r, j)
                done.add((op, r, j))
                nxt[r] += 1
                progressed = True
        assert progressed, "the schedule deadlocked"
    assert all(v == 0 for v in held)
    return most


def main(argv=()):
    from .saved_activations import MODELS
    cfg = dict(MODELS["llama (GQA 8:2, SwiGLU)"], num_hidden_layers=4)
    for kind in ("1f1b", "gpipe"):
        print(kind, measure(cfg, 2, 4, 1, 128, kind))
