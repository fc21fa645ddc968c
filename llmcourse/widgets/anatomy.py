"""Lesson 0, the anatomy of a decoder: the layer-anatomy explorer. (The lesson's
tables, the decoder trace, the layer view and the weight listings, are in
:mod:`llmcourse.tables.anatomy`.)"""

from __future__ import annotations

from ..counts import dtype_bits, param_count, weight_bytes
from ..units import human_bytes, human_count
from ..zoo import load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection
from .kvcache import _fixed_kv

__all__ = ["layer_anatomy_rows", "layer_anatomy_explorer"]


# --- the explorer -------------------------------------------------------------------

def layer_anatomy_rows(cfg, layer=0, dtype="bf16"):
    """Summary rows of one layer (pure; the explorer and tests call it)."""
    from ..plots.anatomy import layer_modules
    from ..tables.anatomy import layer_kind, layer_rows
    kind = layer_kind(cfg, layer)
    rows = [Row("layer", "kind", kind, f"{layer}: {kind}")]
    for name, shape, n, _comp, buf in layer_rows(cfg, layer):
        rows.append(Row(name, name, n, f"{shape} = " + ("buffer" if buf else f"{n:,}")))
    mods = layer_modules(cfg, layer)
    by_comp = {}
    for _, c, n in mods:
        by_comp[c] = by_comp.get(c, 0) + n
    for c, n in by_comp.items():
        rows.append(Row(f"{c} (this layer)", f"layer_{c}", n, f"{n:,}"))
    n_layer = sum(by_comp.values())
    total = param_count(cfg).total
    nbytes = int(n_layer * dtype_bits(dtype) / 8)
    rows += [
        Row("this layer", "layer_params", n_layer, f"{n_layer:,} ({human_count(n_layer)})"),
        Row(f"this layer in {dtype}", "layer_bytes", nbytes,
            f"{human_bytes(nbytes, 'MiB')} ({nbytes:,} B)"),
        Row("whole model", "total", total, f"{total:,} ({human_count(total)})"),
        Row(f"whole model in {dtype}", "weight_bytes", weight_bytes(cfg, dtype),
            human_bytes(weight_bytes(cfg, dtype))),
    ]
    return rows


@register("layer_anatomy")
def layer_anatomy_explorer(model="Llama-3.2-3B", layer=0, dtype="bf16"):
    """Pick a zoo model and a layer: see its tensors and where its parameters sit.
    The KV-heads box takes any number: one that does not divide the head count shows
    the engine's message."""
    base = {"cfg": load_model(model)}
    n = base["cfg"].num_hidden_layers
    controls = {
        "model": model_dropdown(model),
        "layer": selection("layer", list(range(n)), layer),
        "num_key_value_heads": int_text("KV heads", base["cfg"].num_key_value_heads, width="170px"),
        "dtype": dropdown("dtype", ["bf16", "fp32", "fp8"], dtype, width="160px"),
    }

    def config(v):
        cfg = base["cfg"]
        if v["num_key_value_heads"] == cfg.num_key_value_heads:
            return cfg
        return cfg.replace(num_key_value_heads=v["num_key_value_heads"])

    def compute(v):
        return layer_anatomy_rows(config(v), v["layer"], v["dtype"])

    def draw(fig, v, rows):
        from ..plots.anatomy import draw_layer_components
        draw_layer_components(fig, config(v), v["layer"])

    ex = Explorer("layer_anatomy", controls, compute, draw, title="Layer anatomy explorer",
                  figsize=(10, 4.8))
    # no KV heads to choose (MLA's latent, DeepSeek-V4's one K = V head, GPT-2's MHA-only
    # config): the box is off, as in the KV-cache explorer
    controls["num_key_value_heads"].disabled = _fixed_kv(base["cfg"])

    def on_model(change):  # a new model: its layers and its own KV-head count
        base["cfg"] = load_model(change["new"])
        with ex.hold():
            c = controls["layer"]
            c.options = list(range(base["cfg"].num_hidden_layers))
            c.value = 0
            controls["num_key_value_heads"].value = base["cfg"].num_key_value_heads
            controls["num_key_value_heads"].disabled = _fixed_kv(base["cfg"])
    ex.on_change("model", on_model)
    return ex
