"""Exercises for lesson 1, attention heads and head_dim. Each answer is computed by
the engine when it is checked, never stored as a number."""

from ..counts import param_count, weight_shapes
from ..zoo import load_model
from .base import exercise

__all__ = []


def _layer0(model, tensor):
    ws = weight_shapes(load_model(model)).set_index("name")
    return int(ws.loc[f"model.layers.0.{tensor}", "numel"])


def _attention_per_layer(cfg):
    return param_count(cfg).components["attention"] // cfg.num_hidden_layers


exercise(
    "heads-1",
    "How many parameters does one gemma-2-2b q_proj weight hold? (seed 000 implies "
    "2304 × 2304; give the exact integer)",
    answer=lambda: _layer0("gemma-2-2b", "self_attn.q_proj.weight"),
    why="q_proj maps hidden 2,304 to heads × head_dim = 8 × 256 = 2,048, stored as "
        "(2,048, 2,304): 4,718,592 parameters, not 2,304² = 5,308,416.",
    hint="Its output is num_attention_heads × head_dim, not hidden_size.",
)

exercise(
    "heads-2",
    "Keep Qwen3-8B's head_dim (128), its 8 KV heads and its hidden_size (4096), but use 64 "
    "query heads instead of 32. How many parameters do one layer's q_proj, k_proj, v_proj "
    "and o_proj hold together?",
    answer=lambda: _attention_per_layer(load_model("Qwen3-8B").replace(num_attention_heads=64)),
    why="With head_dim fixed, q_proj and o_proj grow with the head count: each becomes "
        "(64 × 128) × 4,096 = 33,554,432, and k and v stay 1,024 × 4,096 = 4,194,304 each: "
        "75,497,472 (41,943,040 with 32 heads). The QK-norm scales (2 × 128) count as norms.",
    hint="Try lc.load_model('Qwen3-8B').replace(num_attention_heads=64) and look at "
         "lc.param_count(...).components['attention'] per layer.",
)

exercise(
    "heads-3",
    "phi-2 is plain MHA (32 heads × head_dim 80 = hidden 2560) and its q_proj, k_proj, "
    "v_proj and dense (its o_proj) all have biases. How many attention parameters does "
    "one layer have? (an exact integer)",
    answer=lambda: _attention_per_layer(load_model("phi-2")),
    why="Four 2,560 × 2,560 weights (26,214,400) plus four biases of 2,560 (10,240): "
        "26,224,640. In MHA with heads × head_dim = hidden, the head count does not enter.",
    hint="A Linear with a bias has out × in + out parameters.",
)
