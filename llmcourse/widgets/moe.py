"""Explorer for the MoE-versus-dense lesson."""

from __future__ import annotations

from ..approx import SEQ_LEN, expert_size_field, moe_layer_count, moe_models
from ..counts import flops_per_token, param_count, weight_bytes
from ..units import human_bytes, human_count
from ..zoo import load_model
from .base import Explorer, Row, int_text, model_dropdown, register, selection

__all__ = ["moe_explorer", "moe_rows", "moe_config", "EXPERT_OPTIONS", "SHARED_OPTIONS"]

EXPERT_OPTIONS = [1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 192, 256, 384, 512]
SHARED_OPTIONS = [0, 1, 2, 3, 4]
SIZE_OPTIONS = list(range(128, 16384 + 1, 128))


def has_shared_count(cfg):
    """Whether the config's number of shared experts (``n_shared_experts``) changes what
    is built: DeepSeek, GLM and Kimi build that many. Nemotron 3 and DeepSeek-V4 carry
    the field but build one shared expert whatever it says (transformers' nemotron_h and
    deepseek_v4), so their count is no control; Qwen-MoE's one gated shared expert is
    sized by ``shared_expert_intermediate_size``, Llama-4's fixed at one."""
    n = cfg.get("n_shared_experts")
    if n is None:
        return False
    try:
        more = cfg.replace(n_shared_experts=n + 1)
    except ValueError:
        return False
    return param_count(more).total != param_count(cfg).total


def shared_count(cfg):
    return cfg.get("n_shared_experts") or 0


def moe_config(base, num_experts, num_experts_per_tok, n_shared_experts, expert_size):
    """``base`` with other expert counts and sizes (Hugging Face fields).
    ``n_shared_experts`` applies where the config has that field (DeepSeek, GLM);
    for the others it is ignored. Raises the engine's ValueError for an impossible
    setting (e.g. top-k > experts)."""
    changes = {base.moe_field: num_experts, "num_experts_per_tok": num_experts_per_tok,
               expert_size_field(base): expert_size}
    if has_shared_count(base):
        changes["n_shared_experts"] = n_shared_experts
    return base.replace(**changes)


_BLOCK_NAMES = {"mamba": "Mamba-2", "linear_attention": "linear-attention",  # not model types
                "full_attention": "attention", "sliding_attention": "sliding-attention"}


def layer_layout(cfg):
    """'3 dense-MLP + 58 MoE layers', '3 hash-routed MoE + 40 MoE layers', or for a
    hybrid that counts blocks (Nemotron 3: 52) '23 MoE blocks + 29 blocks without an
    MLP (23 Mamba-2, 6 attention)': each layer by what its MLP is."""
    sched = cfg.layer_schedule
    kinds = [sched.kind_at(i) for i in range(cfg.num_hidden_layers)]
    mlp = {}
    for k in kinds:
        mlp[k.mlp] = mlp.get(k.mlp, 0) + 1
    parts = []
    if mlp.get("dense"):
        parts.append(f"{mlp['dense']} dense-MLP")
    if mlp.get("hash_moe"):
        parts.append(f"{mlp['hash_moe']} hash-routed MoE")
    if mlp.get("moe"):
        parts.append(f"{mlp['moe']} MoE")
    unit = "blocks" if mlp.get("none") else "layers"
    text = " + ".join(parts) + f" {unit}"
    if mlp.get("none"):
        other = {}
        for k in kinds:
            if k.mlp == "none":
                name = _BLOCK_NAMES.get(k.attention, k.attention)
                other[name] = other.get(name, 0) + 1
        text += (f" + {mlp['none']} blocks without an MLP ("
                 + ", ".join(f"{n} {name}" for name, n in other.items()) + ")")
    return text


def moe_rows(cfg, seq_len=SEQ_LEN):
    """The summary rows for one MoE configuration (pure: explorer and tests call this)."""
    pc = param_count(cfg)
    moe_layers = moe_layer_count(cfg)
    shared_params = pc.components["shared_experts"]
    bf16, fp8 = weight_bytes(cfg, "bf16"), weight_bytes(cfg, "fp8")
    fl = flops_per_token(cfg, seq_len).total
    shared = (f"{shared_count(cfg)} shared" if has_shared_count(cfg) else
              "a shared expert" if shared_params else "no shared expert")
    layout = (f"{cfg.num_experts} routed, top-{cfg.num_experts_per_tok}, {shared}; "
              f"{layer_layout(cfg)}")
    return [
        Row("experts", "layout", layout, layout),
        Row("total parameters", "total", pc.total, f"{pc.total:,} ({human_count(pc.total)})"),
        Row("active per token", "active", pc.active,
            f"{pc.active:,} ({human_count(pc.active)})"),
        Row("active without the input embedding", "active_no_embed", pc.active - pc.embedding,
            f"{pc.active - pc.embedding:,} ({human_count(pc.active - pc.embedding)})"),
        Row("active / total", "active_share", round(pc.active / pc.total, 4),
            f"{100 * pc.active / pc.total:.1f}%"),
        Row("weights (bf16)", "bf16_bytes", bf16,
            f"{human_bytes(bf16)} ({human_bytes(bf16, 'GB')})"),
        Row("weights (fp8, 1 byte each)", "fp8_bytes", fp8, f"{human_bytes(fp8)} ({human_bytes(fp8, 'GB')})"),
        Row(f"FLOPs per token ({seq_len:,}-token prompt)", "flops_per_token", fl,
            f"{fl:,} ({fl / 10**9:,.2f} GFLOP)"),
    ]


@register("moe")
def moe_explorer(model="Qwen3-30B-A3B"):
    """Change the experts of a real MoE model: total vs active, memory vs compute."""
    base = {"cfg": load_model(model)}
    cfg0 = base["cfg"]
    controls = {
        "model": model_dropdown(model, moe_models()),
        "num_experts": selection("routed experts", [e for e in EXPERT_OPTIONS
                                                    if e >= cfg0.num_experts_per_tok],
                                 cfg0.num_experts),
        "num_experts_per_tok": int_text("top-k", cfg0.num_experts_per_tok, width="150px"),
        "n_shared_experts": selection("shared experts", SHARED_OPTIONS, shared_count(cfg0),
                                      width="260px"),
        "expert_size": selection("expert intermediate size", SIZE_OPTIONS,
                                 cfg0.get(expert_size_field(cfg0))),
    }
    controls["n_shared_experts"].disabled = not has_shared_count(cfg0)

    def config(v):
        return moe_config(base["cfg"], v["num_experts"], v["num_experts_per_tok"],
                          v["n_shared_experts"], v["expert_size"])

    def compute(v):
        return moe_rows(config(v))

    def draw(fig, v, rows):
        from ..plots.moe import draw_memory_vs_compute
        label = (f"{base['cfg'].name}: {v['num_experts']} experts, top-{v['num_experts_per_tok']}")
        draw_memory_vs_compute(fig, highlight=(label, config(v)))

    ex = Explorer("moe", controls, compute, draw, title="Mixture-of-experts explorer",
                  figsize=(10, 5.2),
                  note="The shared-experts slider works where the config's count sets how "
                       "many are built (DeepSeek, GLM, Kimi); elsewhere there is one shared "
                       "expert or none, whatever a field says. Type any top-k in the box (it "
                       "cannot exceed the expert count; the slider offers no fewer experts "
                       "than the top-k).")

    def expert_options(cfg, top_k):
        opts = sorted(set(EXPERT_OPTIONS) | {cfg.num_experts})
        return [e for e in opts if e >= top_k] or opts[-1:]

    def on_top_k(change):   # the slider offers no fewer experts than a token picks
        value = controls["num_experts"].value   # kept: a typed top-k above it is an error
        opts = sorted(set(expert_options(base["cfg"], change["new"])) | {value})
        if list(controls["num_experts"].options) != opts:
            controls["num_experts"].options = opts
            controls["num_experts"].value = value
    ex.on_change("num_experts_per_tok", on_top_k)

    def on_model(change):  # a new model: reset every control to its own values
        base["cfg"] = cfg = load_model(change["new"])
        with ex.hold():
            controls["num_experts"].options = expert_options(cfg, cfg.num_experts_per_tok)
            controls["num_experts"].value = cfg.num_experts
            controls["num_experts_per_tok"].value = cfg.num_experts_per_tok
            controls["n_shared_experts"].value = shared_count(cfg)
            controls["n_shared_experts"].disabled = not has_shared_count(cfg)
            size = cfg.get(expert_size_field(cfg))
            controls["expert_size"].options = sorted(set(SIZE_OPTIONS) | {size})
            controls["expert_size"].value = size
    ex.on_change("model", on_model)
    return ex
