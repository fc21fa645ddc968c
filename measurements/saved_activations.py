"""The bytes PyTorch saves for backward in small decoder models, counted and stored.

For each small model (a random config of a real family: Llama, Qwen3 with QK-norm,
Qwen3-MoE and Mixtral), each attention implementation (``sdpa``: PyTorch's fused
kernel, no seq_len x seq_len scores; ``eager``: the scores materialised), each dtype
(fp32; bf16 weights and activations, as FSDP or DeepSpeed mixed precision run the
forward) and a few (batch, seq_len): run one forward with labels and count every
tensor autograd saves for backward, through ``torch.autograd.graph.saved_tensors_hooks``.
Each storage is counted once (a tensor saved by two ops, or two views of one
buffer, is one allocation); parameters and buffers are left out (they are the
weights, counted elsewhere). Nothing is freed before the count: the hooks see the
saved tensors as the forward creates them, and they are all alive at the end of the
forward, when memory peaks.

    python -m measurements saved-activations    # writes llmcourse/data/saved_activations.json

CPU only (this project's CI has no GPU). ``tests/test_training_torch.py``
re-measures a few cases with :func:`measure` and compares them with the engine. The
package reads the stored file (``llmcourse.training.measured_activations``), so it ships
inside it.
"""

from __future__ import annotations

import platform
import time
import weakref

from .common import ATTENTION, DTYPES, WEIGHTS, autocast, build, package_file, write_json

__all__ = ["MODELS", "SHAPES", "ATTENTION", "DTYPES", "OUT", "build", "measure", "main"]

OUT = package_file("saved_activations.json")

# small random configs of real families (the engine reads the same dicts)
MODELS = {
    "llama (GQA 8:2, SwiGLU)": dict(
        model_type="llama", hidden_size=256, num_hidden_layers=2, num_attention_heads=8,
        num_key_value_heads=2, intermediate_size=688, vocab_size=1024, head_dim=32,
        max_position_embeddings=4096, tie_word_embeddings=False),
    "qwen3 (QK-norm, head_dim 64)": dict(
        model_type="qwen3", hidden_size=256, num_hidden_layers=2, num_attention_heads=8,
        num_key_value_heads=4, intermediate_size=768, vocab_size=1024, head_dim=64,
        max_position_embeddings=4096, tie_word_embeddings=True),
    "qwen3_moe (16 experts, top-4)": dict(
        model_type="qwen3_moe", hidden_size=256, num_hidden_layers=2, num_attention_heads=8,
        num_key_value_heads=4, intermediate_size=768, moe_intermediate_size=128,
        num_experts=16, num_experts_per_tok=4, norm_topk_prob=True, vocab_size=1024,
        head_dim=32, max_position_embeddings=4096, tie_word_embeddings=False),
    "mixtral (8 experts, top-2)": dict(
        model_type="mixtral", hidden_size=256, num_hidden_layers=2, num_attention_heads=8,
        num_key_value_heads=2, intermediate_size=512, num_local_experts=8,
        num_experts_per_tok=2, vocab_size=1024, max_position_embeddings=4096,
        sliding_window=None, tie_word_embeddings=False),
}
SHAPES = [(1, 128), (4, 128), (2, 512), (1, 2048)]   # (batch, seq_len)


def measure(config, batch, seq_len, attn_implementation="sdpa", dtype="fp32", model=None,
            per_layer=False, alive=True, detail=False):
    """Bytes saved for backward by one forward (with labels) of ``config``:
    ``{"saved_bytes": ..., "tensors": ...}``, each storage once, weights excluded, and only
    if a tensor saved on it is still alive when the forward ends (``alive=False``: every
    storage ever saved; a storage freed during the forward, such as a router's indices
    that feed no gradient, may otherwise have its address reused by a new tensor).
    ``per_layer=True`` adds ``"layers"``: the bytes each decoder layer saves (a storage
    belongs to the innermost ``model.layers.<i>`` module running when it is first
    saved), in layer order; what is saved outside the layers is the rest. ``detail=True``
    adds ``"tensors_by_layer"``: per layer, (module path, shape, dtype, bytes) of each
    storage counted, then those outside the layers."""
    import torch
    model = model or build(config, attn_implementation, WEIGHTS[dtype])
    weights = {t.untyped_storage().data_ptr() for t in model.parameters()}
    weights |= {t.untyped_storage().data_ptr() for t in model.buffers()}
    seen = {}   # ptr -> [nbytes, layer, [weakrefs], where, shape, dtype]
    layer_of, name_of = {}, {}   # module -> its decoder layer's index, its path
    for name, mod in model.named_modules():
        name_of[mod] = name
        parts = name.split(".")
        if "layers" in parts[:-1] and parts[parts.index("layers") + 1].isdigit():
            layer_of[mod] = int(parts[parts.index("layers") + 1])
    stack, hooks = [], []
    if per_layer or detail:
        nn = torch.nn.modules.module
        hooks = [nn.register_module_forward_pre_hook(lambda m, a: stack.append(m)),
                 nn.register_module_forward_hook(lambda m, a, o: (stack.pop(), None)[1])]

    def pack(t):
        st = t.untyped_storage()
        ptr = st.data_ptr()
        if ptr in weights:
            return t
        t = t.detach()   # the graph holds a plain view: no cycle through an op's saved output
        e = seen.get(ptr)
        if e is not None and alive and not any(r() is not None for r in e[2]):
            e = None   # that storage was freed and its address reused: a new allocation
        if e is None:
            layer = next((layer_of[m] for m in reversed(stack) if m in layer_of), None)
            where = name_of.get(stack[-1], "") if stack else ""
            e = seen[ptr] = [st.nbytes(), layer, [], where, tuple(t.shape), str(t.dtype)]
        e[2].append(weakref.ref(t))
        return t

    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, config["vocab_size"], (batch, seq_len), generator=g)
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), autocast(dtype):
            out = model(input_ids=ids, labels=ids)
    finally:
        for h in hooks:
            h.remove()
    kept = [e for e in seen.values() if not alive or any(r() is not None for r in e[2])]
    out.loss.backward()  # the saved tensors were used: the graph was complete
    r = {"saved_bytes": sum(e[0] for e in kept), "tensors": len(kept)}
    if per_layer or detail:
        layers = [0] * len(model.model.layers)
        for e in kept:
            if e[1] is not None:
                layers[e[1]] += e[0]
        r["layers"] = layers
    if detail:
        r["tensors_by_layer"] = [[(e[3], e[4], e[5], e[0]) for e in kept if e[1] == i]
                                 for i in range(len(model.model.layers))] + [
            [(e[3], e[4], e[5], e[0]) for e in kept if e[1] is None]]
    return r


def main(argv=()):
    import torch
    import transformers
    rows = []
    t0 = time.perf_counter()
    for name, config in MODELS.items():
        for impl in ATTENTION:
            for dtype in DTYPES:
                model = build(config, impl, dtype)
                for batch, seq_len in SHAPES:
                    r = measure(config, batch, seq_len, impl, dtype, model=model)
                    rows.append(dict(model=name, attn_implementation=impl, dtype=dtype,
                                     batch=batch, seq_len=seq_len, **r))
                    print(f"{name:32s} {impl:5s} {dtype:4s} b={batch} s={seq_len:5d} "
                          f"{r['saved_bytes']:>14,d} B")
    data = {
        "_about": ("Bytes PyTorch saves for backward in one training forward (with labels) of "
                   "small random-weight decoders built with transformers, counted with "
                   "torch.autograd.graph.saved_tensors_hooks, each storage once and only if still "
                   "held when the forward ends, parameters and buffers excluded. bf16 rows: weights and activations in bf16 "
                   "(model.to(torch.bfloat16)), as FSDP/DeepSpeed mixed precision run the "
                   "forward. Written by measurements/saved_activations.py."),
        "device": "CPU",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "attention_implementations": {
            "sdpa": "torch.nn.functional.scaled_dot_product_attention; on CPU it runs the "
                    "flash-attention kernel (_scaled_dot_product_flash_attention_for_cpu): "
                    "no seq_len x seq_len scores are saved",
            "eager": "transformers' eager attention: matmul, fp32 softmax, matmul; the "
                     "seq_len x seq_len probabilities are saved"},
        "engine_attention": ATTENTION,
        "engine_precision": DTYPES,
        "models": MODELS,
        "rows": rows,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_json(OUT, data)
    print(f"wrote {OUT} ({len(rows)} rows, {data['seconds']} s)")

