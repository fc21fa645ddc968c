"""Explorer for the depth-and-width lesson."""

from __future__ import annotations

import math

from ..approx import (SEQ_LEN, approx_params_12Ld2, dense_models, layer_params,
                      outside_layers_params, prompt_len)
from ..counts import flops_per_token, param_count, weight_bytes
from ..units import human_bytes, human_count
from ..families import family_of
from ..zoo import load_model
from .base import Explorer, Row, int_text, model_dropdown, register, selection

__all__ = ["depth_width_explorer", "depth_width_rows", "depth_width_config", "hidden_options",
           "layer_options", "engine_only_fields"]

def engine_only_fields(cfg):
    """``{field: why}``: the config fields transformers ignores for ``cfg``'s family, so a
    change to them would be an engine-only what-if (GQA for GPT-2 or Pythia): the explorers
    leave these boxes out and say why (tests/test_topic_whatif.py builds every edit)."""
    return dict(family_of(cfg.model_type).engine_only)


def layer_options(cfg, top=160):
    """The depths the layers slider offers for ``cfg``: every depth the model can have
    (Gemma 4 E2B needs more than its 20 KV-shared layers), up to ``top``."""
    from ..plots.depth import min_layers
    return list(range(min_layers(cfg), max(top, cfg.num_hidden_layers) + 1))


def hidden_options(cfg, top=16384):
    """hidden_size values that keep the model's heads valid: multiples of 128, and of
    num_attention_heads too when head_dim is derived as hidden_size / heads or the family
    requires it anyway (and, for
    Granite 4.0, widths whose Mamba-2 part splits into its mamba_n_heads)."""
    fam = family_of(cfg.model_type)
    explicit = "head_dim" in cfg.to_hf_config() and cfg.to_hf_config()["head_dim"] is not None
    free = (explicit or cfg.uses_mla) and not fam.divisible_heads   # (Llama's class checks it)
    step = 128 if free else math.lcm(128, cfg.num_attention_heads)
    multiple = fam.hidden_multiple
    if multiple:   # the family's own (Granite 4.0: its Mamba-2 part in whole heads)
        step = math.lcm(step, multiple(cfg))
    opts = list(range(step, top + 1, step))
    return sorted(set(opts) | {cfg.hidden_size})


def depth_width_config(base, num_hidden_layers, hidden_size, num_attention_heads=None,
                       num_key_value_heads=None):
    """``base`` at another depth and width. intermediate_size keeps the model's
    ratio to hidden_size (rounded to a multiple of 64; unchanged at the model's own
    width). Raises the engine's ValueError for an impossible setting (e.g. query
    heads that the KV heads do not divide)."""
    changes = {"num_hidden_layers": num_hidden_layers}
    if hidden_size != base.hidden_size:
        changes["hidden_size"] = hidden_size
        changes["intermediate_size"] = max(
            64, 64 * round(base.intermediate_size * hidden_size / base.hidden_size / 64))
        changes.update(family_of(base.model_type).on_width)   # re-derived with the width
    if num_attention_heads is not None and num_attention_heads != base.num_attention_heads:
        changes["num_attention_heads"] = num_attention_heads
    if num_key_value_heads is not None and num_key_value_heads != base.num_key_value_heads:
        changes["num_key_value_heads"] = num_key_value_heads
    return base.replace(**changes)


def depth_width_rows(cfg, seq_len=SEQ_LEN):
    """The summary rows for one configuration (pure: the explorer and tests call this)."""
    pc = param_count(cfg)
    inside, est = layer_params(cfg), approx_params_12Ld2(cfg)
    outside = outside_layers_params(cfg)
    err = 100 * (est - inside) / inside
    n = prompt_len(cfg, seq_len)     # never past the model's context
    fl = flops_per_token(cfg, n)
    prompt = (f"{n:,}-token prompt" if n == seq_len else
              f"{n:,}-token prompt, the model's whole context")
    wb = weight_bytes(cfg, "bf16")
    shape = (f"{cfg.num_hidden_layers} layers, d {cfg.hidden_size:,}, "
             f"{cfg.num_attention_heads}×{cfg.head_dim} q heads, {cfg.num_key_value_heads} KV, "
             f"intermediate {cfg.intermediate_size:,}")
    return [
        Row("shape", "shape", shape, shape),
        Row("exact total parameters (language model)", "total", pc.total,
            f"{pc.total:,} ({human_count(pc.total)})"),
        Row("exact, in the layers", "layer_params", inside, f"{inside:,} ({human_count(inside)})"),
        Row("12·L·d² estimate (layers)", "approx_12Ld2", est, f"{est:,} ({human_count(est)})"),
        Row("estimate error vs exact layers", "approx_error_pct", round(err, 1), f"{err:+.1f}%"),
        Row("embedding + lm_head + final norm", "outside_layers", outside,
            f"{outside:,} ({100 * outside / pc.total:.1f}% of total)"),
        Row(f"FLOPs per token ({prompt})", "flops_per_token", fl.total,
            f"{fl.total:,} ({fl.total / 10**9:,.2f} GFLOP)"),
        Row("weights of the language model (bf16)", "weight_bytes", wb, human_bytes(wb)),
    ]


@register("depth_width")
def depth_width_explorer(model="Meta-Llama-3-8B"):
    """Change the depth, width and head count of a real dense model; compare the exact
    count with 12·L·d²."""
    # the language model: a multimodal wrapper's towers are no decoder layers
    base = {"cfg": load_model(model).text_model}
    cfg0 = base["cfg"]
    controls = {
        "model": model_dropdown(model, dense_models()),
        "num_hidden_layers": selection("layers", layer_options(cfg0), cfg0.num_hidden_layers),
        "hidden_size": selection("hidden_size", hidden_options(cfg0), cfg0.hidden_size),
        "num_attention_heads": int_text("query heads", cfg0.num_attention_heads),
        "num_key_value_heads": int_text("KV heads", cfg0.num_key_value_heads),
    }

    def config(v):
        # a family without KV heads (GPT-2, Pythia): they follow the query heads, as in
        # transformers; the box is disabled and shows them
        kv = (None if "num_key_value_heads" in engine_only_fields(base["cfg"])
              else v["num_key_value_heads"])
        return depth_width_config(base["cfg"], v["num_hidden_layers"], v["hidden_size"],
                                  v["num_attention_heads"], kv)

    def compute(v):
        return depth_width_rows(config(v))

    def draw(fig, v, rows):
        from ..plots.depth import draw_params_vs_layers
        cfg = config(v)
        draw_params_vs_layers(fig, cfg, real_layers=base["cfg"].num_hidden_layers,
                              title=f"{base['cfg'].name} at d = {cfg.hidden_size:,}: "
                              "parameters grow linearly with depth")

    note = ("intermediate_size keeps the model's ratio to hidden_size; "
            "hidden_size steps keep head_dim whole. Type any head counts in the boxes: "
            "the KV heads must divide the query heads.")
    ex = Explorer("depth_width", controls, compute, draw, title="Depth and width explorer",
                  note=note)

    def kv_box(cfg):
        why = engine_only_fields(cfg).get("num_key_value_heads")
        controls["num_key_value_heads"].disabled = why is not None
        ex.note.value = (f"<div style='color:#555'>{note}"
                         + (f" {cfg.name}: no KV-heads box ({why}); they follow the query "
                            "heads." if why else "") + "</div>")

    def on_model(change):  # a new model: reset the sliders to its own shape
        base["cfg"] = cfg = load_model(change["new"]).text_model
        with ex.hold():
            controls["hidden_size"].options = hidden_options(cfg)
            controls["hidden_size"].value = cfg.hidden_size
            controls["num_hidden_layers"].options = layer_options(cfg)
            controls["num_hidden_layers"].value = cfg.num_hidden_layers
            controls["num_attention_heads"].value = cfg.num_attention_heads
            controls["num_key_value_heads"].value = cfg.num_key_value_heads
            kv_box(cfg)
    ex.on_change("model", on_model)

    def on_heads(change):   # a family without KV heads: the disabled box shows them
        if controls["num_key_value_heads"].disabled:
            controls["num_key_value_heads"].value = change["new"]
    ex.on_change("num_attention_heads", on_heads)
    kv_box(cfg0)
    return ex
