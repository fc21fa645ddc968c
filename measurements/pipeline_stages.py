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
  and runs them in Megatron's order.

The orders are :func:`llmcourse.parallelism.pipeline_orders`' (the package draws and times
the same ones).

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

from llmcourse.parallelism import pipeline_orders, run_pipeline_orders

from .common import build, saved_storages


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
        hooks, seen = saved_storages(weights, into=saved.setdefault((s, j), {}))
        with hooks:
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

    run_pipeline_orders(pipeline_orders(pp, m, kind, v), G - 1,
                 lambda r, op, s, j, deps: (forward if op == "F" else backward)(s, j))
    assert all(x == 0 for x in held)
    return most


def main(argv=()):
    from .saved_activations import MODELS
    cfg = dict(MODELS["llama (GQA 8:2, SwiGLU)"], num_hidden_layers=4)
    for kind in ("1f1b", "gpipe"):
        print(kind, measure(cfg, 2, 4, 1, 128, kind))
    print("interleaved-1f1b, 2 chunks", measure(cfg, 2, 4, 1, 128, "interleaved-1f1b", 2))
