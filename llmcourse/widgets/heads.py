"""Lesson 1, attention heads and head_dim: tables of the zoo's head arithmetic, the
seed 000 shape table checked against the engine, and the heads explorer."""

from __future__ import annotations

from ..counts import kv_cache_bytes_per_token_per_layer, param_count, weight_shapes
from ..zoo import as_config, list_models, load_model
from .anatomy import _shape, _wide
from .base import Explorer, Row, divisors, dropdown, model_dropdown, register, selection

__all__ = ["head_dim_table", "mha_split_table", "seed000_table", "SEED_000", "heads_rows",
           "heads_explorer", "HEAD_DIMS"]

HEAD_DIMS = [32, 64, 80, 96, 128, 160, 192, 256]


def head_dim_table(models=None):
    """One row per model: hidden_size, heads, head_dim, heads × head_dim, whether that
    equals hidden_size, and whether head_dim is in the 64–128 range of seed 004's rule.
    For MLA models (DeepSeek) head_dim is the q·k width, qk_nope + qk_rope."""
    import pandas as pd
    from ..tables import fmt
    cfgs = [as_config(m) for m in (models or list_models())]
    rows = []
    for c in cfgs:
        prod = c.num_attention_heads * c.head_dim
        rows.append((c.name, c.attention_kind, c.hidden_size, c.num_attention_heads,
                     c.num_key_value_heads, c.head_dim, prod,
                     "yes" if prod == c.hidden_size else "no",
                     "yes" if 64 <= c.head_dim <= 128 else "no"))
    df = pd.DataFrame(rows, columns=["model", "attention", "hidden_size", "heads", "kv_heads",
                                     "head_dim", "heads×head_dim", "= hidden_size?",
                                     "head_dim in 64–128?"]).set_index("model")
    return _wide(fmt(df))


def mha_split_table(model="Meta-Llama-3-8B", heads=(8, 16, 32, 64, 128)):
    """MHA what-ifs of ``model``: the same hidden_size split into different head counts
    (KV heads = heads, head_dim = hidden/heads). q/k/v/o shapes and the attention
    parameters per layer, from the engine."""
    import pandas as pd
    from ..plots.heads import attention_per_layer
    from ..tables import fmt
    base = as_config(model)
    H = base.hidden_size
    rows = []
    for h in heads:
        c = base.replace(num_attention_heads=h, num_key_value_heads=h, head_dim=H // h)
        ws = weight_shapes(c).query("layer == 0").set_index("name")
        shape = {p: ws.loc[f"model.layers.0.self_attn.{p}.weight", "shape"]
                 for p in ("q_proj", "k_proj", "v_proj", "o_proj")}
        rows.append((h, H // h, f"{h} × {H // h} = {h * (H // h):,}",
                     *(_shape(shape[p]) for p in shape), attention_per_layer(c)))
    df = pd.DataFrame(rows, columns=["heads", "head_dim", "heads × head_dim", "q_proj",
                                     "k_proj", "v_proj", "o_proj",
                                     "attention params per layer"]).set_index("heads")
    return _wide(fmt(df))


# --- seed 000, checked ----------------------------------------------------------------
_Q, _K, _V, _O = (f"self_attn.{p}_proj.weight" for p in "qkvo")
_GATE, _UP, _DOWN = "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"
# (seed's model name, zoo model, tensor as the seed names it, seed shape (in, out),
#  the checkpoint tensors in layer 0 it stands for, what else is off or worth knowing)
SEED_000 = [
    ("Llama-3 8B", "Meta-Llama-3-8B", "q_proj", (4096, 4096), (_Q,), ""),
    ("Llama-3 8B", "Meta-Llama-3-8B", "k_proj", (4096, 1024), (_K,), ""),
    ("Llama-3 8B", "Meta-Llama-3-8B", "v_proj", (4096, 1024), (_V,), ""),
    ("Llama-3 8B", "Meta-Llama-3-8B", "o_proj", (4096, 4096), (_O,), ""),
    ("Llama-3 8B", "Meta-Llama-3-8B", "gate_proj/up_proj", (4096, 14336), (_GATE, _UP), ""),
    ("Llama-3 8B", "Meta-Llama-3-8B", "down_proj", (14336, 4096), (_DOWN,), ""),
    ("Llama-3 70B", "Meta-Llama-3-70B", "q/o", (8192, 8192), (_Q, _O), ""),
    ("Llama-3 70B", "Meta-Llama-3-70B", "k/v", (8192, 1024), (_K, _V), ""),
    ("Llama-3 70B", "Meta-Llama-3-70B", "gate/up", (8192, 28672), (_GATE, _UP), ""),
    ("Llama-3 70B", "Meta-Llama-3-70B", "down", (28672, 8192), (_DOWN,), ""),
    ("Llama-3.2 3B", "Llama-3.2-3B", "q/o", (3072, 3072), (_Q, _O), ""),
    ("Llama-3.2 3B", "Llama-3.2-3B", "k/v", (3072, 1024), (_K, _V), ""),
    ("Llama-3.2 3B", "Llama-3.2-3B", "gate/up", (3072, 8192), (_GATE, _UP), ""),
    ("Llama-3.2 3B", "Llama-3.2-3B", "down", (8192, 3072), (_DOWN,), ""),
    ("Llama-3.2 1B", "Llama-3.2-1B", "q/o", (2048, 2048), (_Q, _O), ""),
    ("Llama-3.2 1B", "Llama-3.2-1B", "k/v", (2048, 512), (_K, _V), ""),
    ("Llama-3.2 1B", "Llama-3.2-1B", "gate/up", (2048, 8192), (_GATE, _UP), ""),
    ("Llama-3.2 1B", "Llama-3.2-1B", "down", (8192, 2048), (_DOWN,), ""),
    ("Qwen3 8B", "Qwen3-8B", "q/o", (4096, 4096), (_Q, _O), ""),
    ("Qwen3 8B", "Qwen3-8B", "k/v", (4096, 1024), (_K, _V), ""),
    ("Qwen3 8B", "Qwen3-8B", "gate/up", (4096, 22016), (_GATE, _UP),
     "intermediate_size is 12,288, not 22,016 (seed 004 has it right)"),
    ("Qwen3 8B", "Qwen3-8B", "down", (22016, 4096), (_DOWN,), "intermediate_size is 12,288"),
    ("Phi-2 (2.7B)", "phi-2", "q/o", (2560, 2560), (_Q, "self_attn.dense.weight"),
     "o is named self_attn.dense; q/k/v/dense all have biases"),
    ("Phi-2 (2.7B)", "phi-2", "k/v", (2560, 2560), (_K, _V), "MHA: 32 KV heads × head_dim 80"),
    ("Phi-2 (2.7B)", "phi-2", "gate/up", (2560, 10240), ("mlp.fc1.weight",),
     "shape right, names wrong: Phi-2 has no gate; its MLP is fc1 → GELU → fc2, with biases"),
    ("Phi-2 (2.7B)", "phi-2", "down", (10240, 2560), ("mlp.fc2.weight",),
     "named mlp.fc2 (with a bias), not down_proj"),
    ("GPT-OSS 20B (MoE)", "gpt-oss-20b", "q_proj", (2880, 4096), (_Q,),
     "64 heads × 64 = 4,096 ≠ hidden 2,880; q/k/v/o have biases"),
    ("GPT-OSS 20B (MoE)", "gpt-oss-20b", "k/v", (2880, 512), (_K, _V), ""),
    ("GPT-OSS 20B (MoE)", "gpt-oss-20b", "expert gate/up", (2880, 2880),
     ("mlp.experts.gate_up_proj",),
     "per expert, but stored fused for all 32 experts as (experts, in, 2 × out), with a bias"),
    ("GPT-OSS 20B (MoE)", "gpt-oss-20b", "expert down", (2880, 2880), ("mlp.experts.down_proj",),
     "stored for all 32 experts at once as (experts, in, out), with a bias"),
    ("Mixtral 8x7B (MoE)", "Mixtral-8x7B-v0.1", "expert gate/up", (4096, 14336),
     ("block_sparse_moe.experts.0.w1.weight", "block_sparse_moe.experts.0.w3.weight"),
     "named w1 (gate) and w3 (up), one per expert"),
    ("Mixtral 8x7B (MoE)", "Mixtral-8x7B-v0.1", "expert down", (14336, 4096),
     ("block_sparse_moe.experts.0.w2.weight",), "named w2"),
    ("Gemma-2 2B", "gemma-2-2b", "q/o", (2304, 2304), (_Q, _O),
     "8 heads × head_dim 256 = 2,048, not 2,304: q maps 2,304 → 2,048, o maps back"),
    ("Gemma-2 2B", "gemma-2-2b", "k/v", (2304, 1024), (_K, _V), ""),
    ("Gemma-2 2B", "gemma-2-2b", "gate/up", (2304, 9216), (_GATE, _UP), ""),
    ("Gemma-2 2B", "gemma-2-2b", "down", (9216, 2304), (_DOWN,), ""),
]


def _in_out(stored, name):
    """A stored shape as ``(in, out)``: a Linear is (out, in); gpt-oss's fused experts
    are (experts, in, out) with gate and up side by side in ``out``."""
    if len(stored) == 3:
        return stored[1], stored[2] // (2 if "gate_up" in name else 1)
    return stored[1], stored[0]


def seed000_table():
    """Seed 000's weight shapes next to the real ones from the engine.

    The seed writes ``in × out``; checkpoints store a Linear weight as ``(out, in)``
    (gpt-oss's fused experts as ``(experts, in, out)``). ``✓`` means the seed's
    ``in × out`` is right for every tensor it stands for (a ``q/o`` row: for q_proj
    and for o_proj); the note says what else is off. Also: seed 000 gives Qwen3 8B
    32 layers; the config says 36.
    """
    import pandas as pd
    rows = []
    shapes = {}
    for seed_model, zoo, label, seed, tensors, note in SEED_000:
        if zoo not in shapes:
            shapes[zoo] = weight_shapes(load_model(zoo)).query("layer == 0").set_index("name")
        stored = [shapes[zoo].loc[f"model.layers.0.{t}", "shape"] for t in tensors]
        real = [_in_out(s, t) for s, t in zip(stored, tensors)]
        ok = all(r == tuple(seed) for r in real)
        short = [t.split(".")[-2] if t.endswith(".weight") else t.split(".")[-1] for t in tensors]
        rows.append((seed_model, label, f"{seed[0]:,} × {seed[1]:,}",
                     "; ".join(f"{n} ({', '.join(f'{d:,}' for d in s)})"
                               for n, s in zip(short, stored)),
                     "; ".join(f"{n} {i:,} × {o:,}" for n, (i, o) in zip(short, real)),
                     ("✓" if ok else "✗") + (f" {note}" if note else "")))
    return _wide(pd.DataFrame(rows, columns=["seed model", "seed tensor", "seed (in × out)",
                                             "stored (out, in)", "real (in × out)", "check"]))


# --- the explorer ---------------------------------------------------------------------

def _head_options(cfg, upto=256):
    return sorted(set(d for d in divisors(cfg.hidden_size) if d <= upto)
                  | {cfg.num_attention_heads})


def _model_head_dim(cfg):
    """The head_dim the model's config.json states, or 0 when it leaves it to
    hidden/heads."""
    return cfg.to_hf_config().get("head_dim") or 0


def _head_dim_options(cfg):
    own = _model_head_dim(cfg)
    opts = [("hidden / heads", 0)] + [(str(d), d) for d in sorted(set(HEAD_DIMS) | ({own} - {0}))]
    return opts


def heads_rows(cfg, dtype="bf16"):
    """Summary rows for one attention setting (pure; the explorer and tests call it)."""
    from ..plots.heads import attention_per_layer
    h, kv, hd, H = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.hidden_size
    kind = cfg.attention_kind
    ws = weight_shapes_layer0(cfg)
    rows = [Row("attention", "kind", kind, f"{kind}: {h} query heads, {kv} KV heads"
                + ("" if kind == "MHA" else f" ({h // kv} query heads per KV head)")),
            Row("head_dim", "head_dim", hd, f"{hd}"),
            Row("heads × head_dim", "heads_x_head_dim", h * hd,
                f"{h} × {hd} = {h * hd:,} " + ("= hidden_size" if h * hd == H
                                               else f"≠ hidden_size {H:,}"))]
    for p, label in (("q_proj", "q_proj"), ("k_proj", "k_proj"), ("v_proj", "v_proj"),
                     ("o_proj", "o_proj"), ("dense", "o_proj (dense)")):
        name = f"self_attn.{p}.weight"
        if name in ws:
            shape, n = ws[name]
            bias = ws.get(f"self_attn.{p}.bias")
            rows.append(Row(f"{label} (out, in)", p if p != "dense" else "o_proj", n,
                            f"({shape[0]:,}, {shape[1]:,}) = {n:,}"
                            + (f" + bias {bias[1]:,}" if bias else "")))
    per_layer = attention_per_layer(cfg)
    pc = param_count(cfg)
    kvb = kv_cache_bytes_per_token_per_layer(cfg, dtype) * cfg.num_hidden_layers
    rows += [Row("attention parameters per layer", "attention_per_layer", per_layer,
                 f"{per_layer:,}"),
             Row(f"attention, all {cfg.num_hidden_layers} layers", "attention_total",
                 pc.components["attention"], f"{pc.components['attention']:,}"),
             Row("model total", "total", pc.total, f"{pc.total:,}"),
             Row(f"KV cache per token, all layers ({dtype})", "kv_bytes_per_token", kvb,
                 f"{kvb:,} B")]
    return rows


def weight_shapes_layer0(cfg):
    """``{name: (shape, numel)}`` of layer 0's tensors (names without the layer prefix)."""
    from ..architectures import layer_groups
    return {t.name: (t.shape, t.numel) for t in layer_groups(cfg)[0][1]}


@register("heads")
def heads_explorer(model="Meta-Llama-3-8B"):
    """Change a real model's head count, head_dim and KV heads; see q/k/v/o shapes and
    attention parameters. A KV-head count that does not divide the heads shows the
    engine's message."""
    models = [m for m in list_models() if not load_model(m).uses_mla]
    base = {"cfg": load_model(model)}
    c0 = base["cfg"]
    controls = {
        "model": model_dropdown(model, models),
        "num_attention_heads": selection("heads", _head_options(c0), c0.num_attention_heads),
        "head_dim": dropdown("head_dim", _head_dim_options(c0), _model_head_dim(c0),
                             width="200px"),
        "num_key_value_heads": selection("KV heads", divisors(c0.num_attention_heads),
                                         c0.num_key_value_heads, width="300px"),
    }

    def config(v):
        return base["cfg"].replace(num_attention_heads=v["num_attention_heads"],
                                   num_key_value_heads=v["num_key_value_heads"],
                                   head_dim=v["head_dim"] or None)

    def compute(v):
        return heads_rows(config(v))

    def draw(fig, v, rows):
        from ..plots.heads import draw_attention_vs_heads
        cfg = config(v)
        draw_attention_vs_heads(
            fig, base["cfg"], kv=cfg.num_key_value_heads, head_dim=cfg.head_dim,
            heads=controls["num_attention_heads"].options,
            mark=(cfg.num_attention_heads,
                  next(r.value for r in rows if r.key == "attention_per_layer")),
            mark_label=f"this setting: {cfg.num_attention_heads} heads × {cfg.head_dim}, "
                       f"{cfg.num_key_value_heads} KV",
            title=f"{base['cfg'].name}: attention parameters per layer vs head count")

    ex = Explorer("heads", controls, compute, draw, title="Heads explorer", figsize=(10, 5))

    def on_heads(change):  # offer the divisors of the new head count; keep the KV value
        c = controls["num_key_value_heads"]
        keep = c.value
        with ex.hold():  # one redraw, after the KV slider has its new options
            c.options = sorted(set(divisors(change["new"])) | {keep})
            c.value = keep

    def on_model(change):  # a new model: its own heads, head_dim and KV heads
        base["cfg"] = cfg = load_model(change["new"])
        with ex.hold():
            controls["num_attention_heads"].options = _head_options(cfg)
            controls["num_attention_heads"].value = cfg.num_attention_heads
            controls["head_dim"].options = _head_dim_options(cfg)
            controls["head_dim"].value = _model_head_dim(cfg)
            controls["num_key_value_heads"].options = divisors(cfg.num_attention_heads)
            controls["num_key_value_heads"].value = cfg.num_key_value_heads
    ex.on_change("num_attention_heads", on_heads)
    ex.on_change("model", on_model)
    return ex
