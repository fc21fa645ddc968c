"""Tables for lesson 1, attention heads and head_dim: the zoo's head arithmetic, and
a widely shared table of weight shapes checked against the engine. (The lesson's
own arithmetic, the q/k/v/o shapes and the MHA split, is done in the notebook.)"""

from __future__ import annotations

import re

from ..counts import weight_shapes
from ..zoo import as_config, list_models, load_model
from .anatomy import wide

__all__ = ["head_dim_table", "shape_table_claims", "SHAPE_TABLE"]


def head_dim_table(models=None, mismatches_only=False):
    """One row per model: hidden_size, heads, head_dim, heads × head_dim, whether that
    equals hidden_size, and whether head_dim is in the 64–128 range of the lecture slides' rule.
    For MLA models (DeepSeek, Kimi, GLM) the column holds the q/k head width,
    qk_nope_head_dim + qk_rope_head_dim, marked "(q/k)": their config's ``head_dim``
    field is ``qk_rope_head_dim`` where it is set at all. ``mismatches_only``: only the
    rows where heads × head_dim ≠ hidden_size."""
    import pandas as pd
    from ..tables import fmt
    cfgs = [as_config(m) for m in (models or list_models())]
    rows = []
    for c in cfgs:
        prod = c.num_attention_heads * c.head_dim
        if mismatches_only and prod == c.hidden_size:
            continue
        width = f"{c.head_dim:,} (q/k)" if c.uses_mla else c.head_dim
        rows.append((c.name, c.attention_kind, c.hidden_size, c.num_attention_heads,
                     c.num_key_value_heads, width, prod,
                     "yes" if prod == c.hidden_size else "no",
                     "yes" if 64 <= c.head_dim <= 128 else "no"))
    df = pd.DataFrame(rows, columns=["model", "attention", "hidden_size", "heads", "kv_heads",
                                     "head_dim", "heads×head_dim", "= hidden_size?",
                                     "head_dim in 64–128?"]).set_index("model")
    if mismatches_only:   # every row says "no": the column says nothing
        df = df.drop(columns="= hidden_size?")
    return wide(fmt(df))


# --- a widely shared table of weight shapes, checked ----------------------------------------------------------------
_Q, _K, _V, _O = (f"self_attn.{p}_proj.weight" for p in "qkvo")
_GATE, _UP, _DOWN = "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"
# (the table's model name, zoo model, tensor as the table names it, its shape (in, out),
#  the checkpoint tensors in layer 0 it stands for, what else is off or worth knowing)
SHAPE_TABLE = [
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
     "intermediate_size is 12,288, not 22,016 (the lecture slides have it right)"),
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
     "right for gate and for up, each 2,880 × 2,880; fused in one gate_up_proj of "
     "2,880 × 5,760 per expert, gate and up interleaved column by column (even columns "
     "gate, odd columns up), with a bias"),
    ("GPT-OSS 20B (MoE)", "gpt-oss-20b", "expert down", (2880, 2880), ("mlp.experts.down_proj",),
     "all 32 experts in one tensor, with a bias"),
    ("Mixtral 8x7B (MoE)", "Mixtral-8x7B-v0.1", "expert gate/up", (4096, 14336),
     ("block_sparse_moe.experts.0.w1.weight", "block_sparse_moe.experts.0.w3.weight"),
     "named w1 (gate) and w3 (up) in the file, one per expert; transformers 5 merges "
     "them into one gate_up_proj for all experts as it loads"),
    ("Mixtral 8x7B (MoE)", "Mixtral-8x7B-v0.1", "expert down", (14336, 4096),
     ("block_sparse_moe.experts.0.w2.weight",), "named w2 in the file; down_proj in transformers 5"),
    ("Gemma-2 2B", "gemma-2-2b", "q/o", (2304, 2304), (_Q, _O),
     "8 heads × head_dim 256 = 2,048, not 2,304: q maps 2,304 → 2,048, o maps back"),
    ("Gemma-2 2B", "gemma-2-2b", "k/v", (2304, 1024), (_K, _V), ""),
    ("Gemma-2 2B", "gemma-2-2b", "gate/up", (2304, 9216), (_GATE, _UP), ""),
    ("Gemma-2 2B", "gemma-2-2b", "down", (9216, 2304), (_DOWN,), ""),
]


def _in_out(stored):
    """A stored shape as ``(in, out)``: a Linear is (out, in); gpt-oss's fused experts
    are (experts, in, out), one expert's (in, out) per slice."""
    if len(stored) == 3:
        return stored[1], stored[2]
    return stored[1], stored[0]


def _per_projection(in_out, name):
    """gpt-oss's gate_up_proj holds gate and up interleaved: each is half its width."""
    return (in_out[0], in_out[1] // 2) if "gate_up" in name else in_out


def _file_and_module(cfg, tensor, shape):
    """(as the Hub file stores it, as a transformers 5 module holds it) for one tensor
    of layer 0. They differ where a file keeps one tensor per routed expert (Mixtral's
    w1/w3/w2, DeepSeek's and Qwen's gate/up/down_proj), which transformers 5 merges on load
    into gate_up_proj and down_proj for all experts (its ``conversion_mapping.py``), and
    where a file keeps experts in MXFP4 (gpt-oss: blocks of 32 values in 16 bytes with one
    scale each), which transformers dequantizes and transposes on load
    (``integrations/mxfp4.py``)."""
    short = tensor.split(".")[-2] if tensor.endswith(".weight") else tensor.split(".")[-1]
    here = f"{short} {tuple(shape)}"
    E, H = cfg.num_experts, cfg.hidden_size
    if re.search(r"\.experts\.(\d+|\{e\}|\*)\.", tensor):   # one tensor per expert in the file
        I = shape[0] if short in _GATE_OR_UP else shape[1]
        module = (f"experts.gate_up_proj ({E}, {2 * I}, {H})" if short in _GATE_OR_UP
                  else f"experts.down_proj ({E}, {H}, {I})")
        return here, module
    quant = cfg.get("quantization_config") or {}
    if quant.get("quant_method") == "mxfp4" and "experts." in tensor and len(shape) == 3:
        rows, cols = shape[2], shape[1]   # stored (experts, in, out) once loaded
        return (f"{short}_blocks ({E}, {rows}, {cols // 32}, 16) + _scales "
                f"({E}, {rows}, {cols // 32}), MXFP4"), here
    return here, here


# per-expert checkpoint tensors that transformers 5 merges into gate_up_proj on load
_GATE_OR_UP = ("w1", "w3", "gate_proj", "up_proj")


def shape_table_claims(wrong_only=False):
    """A widely shared table of weight shapes (nine models), each row next to the real
    tensors; ``wrong_only``: only the rows whose shapes are wrong (``✗``).

    The table writes ``in × out``; a ``nn.Linear`` weight is stored ``(out, in)``,
    gpt-oss's fused experts as ``(experts, in, out)`` in transformers (and GPT-2's Conv1D
    as ``(in, out)``). Two columns say where a tensor lives: the Hub file (the
    checkpoint's safetensors) and the transformers 5 module (``model.state_dict()``);
    they differ for Mixtral's and gpt-oss's experts. ``✓`` means the table's ``in × out``
    is right for every tensor it stands for (a ``q/o`` row: for q_proj and for o_proj);
    the note says what else is off. Also: the table gives Qwen3 8B 32 layers; its config
    says 36.
    """
    import pandas as pd
    rows = []
    shapes = {}
    for claimed_model, zoo, label, claimed, tensors, note in SHAPE_TABLE:
        cfg = load_model(zoo)
        if zoo not in shapes:
            shapes[zoo] = weight_shapes(cfg).query("layer == 0").set_index("name")
        stored = [shapes[zoo].loc[f"model.layers.0.{t}", "shape"] for t in tensors]
        real = [_in_out(s) for s in stored]
        ok = all(_per_projection(r, t) == tuple(claimed) for r, t in zip(real, tensors))
        short = [t.split(".")[-2] if t.endswith(".weight") else t.split(".")[-1] for t in tensors]
        where = [_file_and_module(cfg, t, s) for t, s in zip(tensors, stored)]
        module = list(dict.fromkeys(m for _, m in where))   # Mixtral's w1 and w3: one tensor
        rows.append((claimed_model, label, f"{claimed[0]:,} × {claimed[1]:,}",
                     "; ".join(f for f, _ in where), "; ".join(module),
                     "; ".join(f"{n} {i:,} × {o:,}" for n, (i, o) in zip(short, real)),
                     ("✓" if ok else "✗") + (f" {note}" if note else "")))
    if wrong_only:
        rows = [r for r in rows if r[-1].startswith("✗")]
    return wide(pd.DataFrame(rows, columns=["model (as named)", "tensor (as named)",
                                            "table says (in × out)", "Hub file",
                                            "transformers 5 module", "real (in × out)",
                                            "check"]))
