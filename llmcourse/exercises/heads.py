"""Exercises for lesson 1, attention heads and head_dim. Every expected value is
computed by the engine when it is checked, never stored as a number."""

from ..config import ConfigError
from ..counts import param_count, weight_shapes
from ..units import count_of
from ..zoo import load_model
from .anatomy import what_if
from .base import concept, derive, design, predict

__all__ = []

NB = "01_heads_and_head_dim"


def _attention_per_layer(cfg):
    """q/k/v/o (with any biases) of one layer, from the engine's count."""
    return param_count(cfg).components["attention"] // cfg.num_hidden_layers


def _llama8b_mha(heads):
    base = load_model("Meta-Llama-3-8B")
    return base.replace(num_attention_heads=heads, num_key_value_heads=heads,
                        head_dim=base.hidden_size // heads)


predict(
    "heads-1", NB,
    expected=lambda: _attention_per_layer(_llama8b_mha(128)),
    why="q, k and v each map hidden 4,096 to heads × head_dim = 128 × 32 = 4,096, and o maps "
        "it back: four 4,096 × 4,096 matrices, 67,108,864, exactly as with 32 heads of 128. "
        "In MHA the head count only decides how the same width is cut.",
    hint="Write each projection's shape from heads and head_dim; what is heads × head_dim here?",
    mistakes=(
        (lambda: 4 * _attention_per_layer(_llama8b_mha(32)),
         "That scales with the head count, as if each head brought its own full-width "
         "matrices. Four times the heads, but each head is a quarter as wide."),
        (lambda: _attention_per_layer(load_model("Meta-Llama-3-8B").replace(
            num_attention_heads=128, head_dim=32)),
         "That keeps Meta-Llama-3-8B's 8 KV heads (GQA). The question makes it MHA: one KV "
         "head per query head, 128 of them."),
    ),
    wrong=(268_435_456, 35_651_584, "67108864"),
)


def _gpt_oss_attention(cfg):
    """The worked solution: one gpt-oss layer's attention, biases and sinks included."""
    d, hd = cfg.hidden_size, cfg.head_dim
    q, kv = cfg.num_attention_heads * hd, cfg.num_key_value_heads * hd
    weights = q * d + 2 * kv * d + d * q            # q, k, v (out, in); o maps back to d
    biases = (q + 2 * kv + d) if cfg.attention_bias else 0   # one per output unit
    return weights + biases + cfg.num_attention_heads        # a sink per query head


def _no_sinks(cfg):
    return _gpt_oss_attention(cfg) - cfg.num_attention_heads


def _sinks_per_kv_head(cfg):
    return _no_sinks(cfg) + cfg.num_key_value_heads


def _o_bias_as_wide_as_q(cfg):   # o's bias taken n_h·d_h wide, its input width
    extra = cfg.num_attention_heads * cfg.head_dim - cfg.hidden_size
    return _gpt_oss_attention(cfg) + extra if cfg.attention_bias and extra else None


def _biases_always(cfg):         # biases counted though attention_bias is false
    if cfg.attention_bias:
        return None
    hd = cfg.head_dim
    return _gpt_oss_attention(cfg) + (cfg.num_attention_heads + 2 * cfg.num_key_value_heads) \
        * hd + cfg.hidden_size


def _no_biases(cfg):
    return _gpt_oss_attention(cfg.replace(attention_bias=False)) if cfg.attention_bias else None


def _kv_as_wide_as_q(cfg):       # k and v with a head per query head (MHA)
    return _gpt_oss_attention(cfg.replace(num_key_value_heads=cfg.num_attention_heads))


derive(
    "heads-3", NB,
    reference=_attention_per_layer,
    cases=("gpt-oss-20b",
           lambda: what_if("gpt-oss-20b", "gpt-oss-20b without attention biases",
                           attention_bias=False),
           lambda: what_if("gpt-oss-20b", "gpt-oss-20b with 4 KV heads", num_key_value_heads=4),
           lambda: what_if("gpt-oss-20b", "gpt-oss-20b with 32 heads of 128",
                           num_attention_heads=32, head_dim=128)),
    why="q: (n_h·d_h, d), k and v: (n_kv·d_h, d) each, o: (d, n_h·d_h); with attention_bias "
        "each has a bias of its output width, n_h·d_h + 2·n_kv·d_h + d in all (o's is d wide, "
        "not n_h·d_h); and one sink per query head. gpt-oss-20b: 26,550,144 a layer, of "
        "which 8,000 are biases and 64 sinks.",
    solution=_gpt_oss_attention,
    hint="Write each tensor of the layer with its shape: four weights, a bias of each one's "
         "output width when attention_bias is true, and the sinks. How wide is o_proj's "
         "output?",
    mistakes=(
        (_no_sinks, "that leaves out the sinks: one learned logit per query head"),
        (_sinks_per_kv_head, "that gives a sink to each KV head: each query head has its own"),
        (_o_bias_as_wide_as_q, "that makes o_proj's bias n_h·d_h wide: a bias has one number "
                               "per output unit, and o_proj outputs hidden_size"),
        (_no_biases, "that leaves out the biases: with attention_bias true, q, k, v and o "
                     "each have one"),
        (_biases_always, "that counts biases where attention_bias is false"),
        (_kv_as_wide_as_q, "that makes k and v as wide as q: they have num_key_value_heads "
                           "heads"),
    ),
    wrong=(_no_sinks, _sinks_per_kv_head, _kv_as_wide_as_q,
           lambda cfg: _gpt_oss_attention(cfg) + (cfg.num_attention_heads * cfg.head_dim
                                                  - cfg.hidden_size)),
)


_TARGET = 50_331_648      # q/k/v/o of one layer, the design's budget
_ALLOWED_HEAD_DIMS = (64, 96, 128)
_KEYS = {"num_attention_heads", "num_key_value_heads", "head_dim"}


def _design_config(answer):
    if not isinstance(answer, dict) or set(answer) != _KEYS:
        raise ConfigError("answer: give a dict with the keys num_attention_heads, "
                          "num_key_value_heads and head_dim, e.g. "
                          "dict(num_attention_heads=32, num_key_value_heads=8, head_dim=128)")
    return load_model("Meta-Llama-3-8B").replace(**answer)   # the engine's rules, Llama's


def _validate_design(answer):
    try:
        cfg = _design_config(answer)
    except (ValueError, TypeError) as err:
        return False, str(err)
    if cfg.head_dim not in _ALLOWED_HEAD_DIMS:
        return False, (f"head_dim {cfg.head_dim} is not one of {_ALLOWED_HEAD_DIMS}, the "
                       "widths attention kernels are tuned for")
    n = _attention_per_layer(cfg)
    h, kv = cfg.num_attention_heads, cfg.num_key_value_heads
    if n != _TARGET:
        off = 100 * (n - _TARGET) / _TARGET
        return False, (f"{h} heads × head_dim {cfg.head_dim} with {count_of(kv, 'KV head')} "
                       f"gives {n:,} attention parameters per layer, "
                       f"{abs(off):.1f}% {'above' if off > 0 else 'below'} the budget")
    return True, (f"{h} query heads of {cfg.head_dim}, {count_of(kv, 'KV head')} "
                  f"({count_of(h // kv, 'query head')} per KV head): {n:,} per layer. "
                  + _DESIGN_WHY)


_DESIGN_WHY = (
    "2·d·d_h·(n_h + n_kv) = 50,331,648 with d = 4,096 means d_h·(n_h + n_kv) = 6,144, with "
    "n_h dividing 4,096 and n_kv dividing n_h: 32 heads and 16 KV heads of 128, 32 and 32 of "
    "96, or 64 and 32 of 64. Every one is a valid design; the budget fixes "
    "d_h·(n_h + n_kv), not the head count.")

design(
    "heads-4", NB,
    validate=_validate_design,
    why=_DESIGN_WHY,
    solution=dict(num_attention_heads=32, num_key_value_heads=16, head_dim=128),
    hint="Write the layer's attention parameters with d = 4,096 and solve for the product "
         "that the budget fixes; then look for head counts the rules allow.",
    wrong=(dict(num_attention_heads=32, num_key_value_heads=8, head_dim=128),
           dict(num_attention_heads=40, num_key_value_heads=8, head_dim=128),   # 40 ∤ 4,096
           dict(num_attention_heads=16, num_key_value_heads=32, head_dim=128),  # kv > heads
           dict(num_attention_heads=64, num_key_value_heads=32, head_dim=96),
           dict(num_attention_heads=48, num_key_value_heads=16, head_dim=128),  # 48 ∤ 4,096
           {"heads": 32, "head_dim": 128},
           dict(num_attention_heads=32, head_dim=128)),
)


concept(
    "heads-5", NB,
    correct="a",
    feedback={
        "b": "The query heads do double, but every one of them reads the same 8 KV heads: "
             "k_proj and v_proj still output 8 × 128 values per token, and those are what "
             "a token keeps.",
        "c": "Each KV head now serves 8 query heads instead of 4, but it is still one key "
             "and one value vector per token: sharing more does not make a vector shorter.",
        "d": "q_proj and o_proj grow (their rows are n_h × head_dim), so the layer does; "
             "but what a token keeps is its k and v, set by n_kv × head_dim alone.",
    },
    why="A token keeps its k and v: 2 × n_kv × head_dim values per layer, 2 × 8 × 128 = "
        "2,048 here, with 32 query heads or 64. More query heads grow q_proj and o_proj "
        "(the attention parameters), not the cache; only the KV heads and head_dim set it "
        "(lesson 2).",
)


def _gemma_q_proj():
    return int(weight_shapes(load_model("gemma-2-2b")).set_index("name")
               .loc["model.layers.0.self_attn.q_proj.weight", "numel"])


predict(
    "heads-2", NB,
    expected=_gemma_q_proj,
    why="q_proj maps hidden 2,304 to heads × head_dim = 8 × 256 = 2,048, stored (2,048, 2,304): "
        "4,718,592 parameters, not 2,304² = 5,308,416.",
    hint="q_proj's output width is num_attention_heads × head_dim, whatever hidden_size is.",
    mistakes=(
        (lambda: load_model("gemma-2-2b").hidden_size ** 2,
         "That is the shape table's 2304 × 2304. q_proj's output is heads × head_dim, "
         "which for gemma-2-2b is not hidden_size."),
        (lambda: (load_model("gemma-2-2b").num_attention_heads
                  * load_model("gemma-2-2b").head_dim) ** 2,
         "That is heads × head_dim on both sides. The output is 8 × 256, but q_proj reads "
         "the hidden state, so its input is hidden_size."),
        (lambda: 2 * _gemma_q_proj(),
         "That counts q_proj and o_proj together; the question asks for q_proj alone."),
    ),
    wrong=(5_308_416, 2_048 * 2_048, "4718592"),
)
