"""Exercises for lesson 0, the anatomy of a decoder. Every expected value is computed
by the engine when it is checked, never stored as a number."""

from ..counts import param_count, weight_bytes, weight_shapes
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "00_start_here_anatomy"


def _listed_sum(name):
    """What summing every tensor of a state dict gives (a tied lm_head listed again)."""
    return int(weight_shapes(load_model(name))["numel"].sum())


predict(
    "anatomy-1", NB,
    expected=lambda: _listed_sum("Llama-3.2-1B"),
    why="A state dict lists lm_head.weight although it is the embedding matrix, so the sum "
        "counts vocab_size × hidden_size twice: 1,235,814,400 unique parameters + "
        "128,256 × 2,048 = 262,668,288 gives 1,498,482,688. That is the slip of the "
        "Llama-3.2-3B census and of the Qwen3-0.6B weight listing.",
    hint="Which matrix does a tied model's state dict list under two names?",
    mistakes=(
        (lambda: param_count(load_model("Llama-3.2-1B")).total,
         "That is the model's unique count, each matrix once. The script sums every listed "
         "tensor, and the state dict lists the tied matrix a second time as lm_head.weight."),
        (lambda: _listed_sum("Llama-3.2-1B")
         - load_model("Llama-3.2-1B").hidden_size * (2 * load_model("Llama-3.2-1B").num_hidden_layers + 1),
         "You counted the tied matrix twice, as the script does, but left out the RMSNorm "
         "weights (two per layer and the final norm), as the Llama-3.2-3B census does; a "
         "state dict lists them, and the script counts them."),
    ),
    wrong=(1_235_814_400, 1_761_150_976, "1498482688"),
)


def _model_params(cfg):
    """The worked solution: a dense Llama/Qwen3-style model, from its config."""
    d, hd = cfg.hidden_size, cfg.head_dim
    nh, nkv = cfg.num_attention_heads, cfg.num_key_value_heads
    inter, vocab, layers = cfg.intermediate_size, cfg.vocab_size, cfg.num_hidden_layers
    layer = 2 * d * hd * (nh + nkv) + 3 * d * inter + 2 * d
    if cfg.layout.qk_norm:                  # QK-norm (Qwen3): q_norm and k_norm, head_dim each
        layer += 2 * hd
    if cfg.layout.qkv_bias is True:         # biases on q, k, v (Qwen2): one per output unit
        layer += (nh + 2 * nkv) * hd
    embedding = vocab * d
    lm_head = 0 if cfg.tie_word_embeddings else vocab * d
    return embedding + layers * layer + d + lm_head     # + d: the final norm


def _tied_twice(cfg):
    return _model_params(cfg) + (cfg.vocab_size * cfg.hidden_size if cfg.tie_word_embeddings else 0)


def _no_qk_norm(cfg):
    d, hd = cfg.hidden_size, cfg.head_dim
    layer = 2 * d * hd * (cfg.num_attention_heads + cfg.num_key_value_heads) \
        + 3 * d * cfg.intermediate_size + 2 * d
    lm_head = 0 if cfg.tie_word_embeddings else cfg.vocab_size * d
    return cfg.vocab_size * d + cfg.num_hidden_layers * layer + d + lm_head


def _bias_as_hidden(cfg):
    """Qwen2's three biases taken as hidden_size wide each (k and v are n_kv · d_h)."""
    extra = 0
    if cfg.layout.qkv_bias is True:
        hd, nkv = cfg.head_dim, cfg.num_key_value_heads
        extra = cfg.num_hidden_layers * (3 * cfg.hidden_size - (cfg.num_attention_heads + 2 * nkv) * hd)
    return _model_params(cfg) + extra


def _qwen2_what_if():
    """A config no notebook shows: Qwen2-7B with 7 KV heads (its biases on k and v grow)."""
    return load_model("Qwen2-7B").replace(num_key_value_heads=7)


def _hidden_over_heads(cfg):
    return _model_params(cfg.replace(head_dim=cfg.hidden_size // cfg.num_attention_heads))


def _dense_what_if():
    """A config no notebook shows: Meta-Llama-3-8B with 2 KV heads and LLaMA-2's MLP width."""
    return load_model("Meta-Llama-3-8B").replace(num_key_value_heads=2, intermediate_size=11008)


def _untied_qwen():
    return load_model("Qwen3-4B").replace(tie_word_embeddings=False)


derive(
    "anatomy-2", NB,
    reference=lambda cfg: param_count(cfg).total,
    cases=("Qwen3-0.6B", "Llama-3.2-1B", "Meta-Llama-3-70B", "Qwen3-14B",
           "Mistral-Nemo-Base-2407", "Qwen2-7B", _untied_qwen, _dense_what_if, _qwen2_what_if),
    why="One layer is 2·d·d_h·(n_h + n_kv) + 3·d·d_ff + 2·d (+ 2·d_h for Qwen3's q_norm and "
        "k_norm; + (n_h + 2·n_kv)·d_h for Qwen2's biases, one per output unit of q, k and v); "
        "the model adds the embedding V·d, the final norm d, and V·d again only when lm_head "
        "is not tied. The formula reads head_dim from the config, so Qwen3's "
        "heads × head_dim ≠ hidden_size is no special case.",
    solution=_model_params,
    hint="Start from the one-layer formula above; then ask which matrices exist once per "
         "model, whether a tied lm_head is a new matrix, and how wide each projection's output "
         "(and so its bias) is.",
    wrong=(_tied_twice, _no_qk_norm, _hidden_over_heads, _bias_as_hidden),
)


predict(
    "anatomy-3", NB,
    expected=lambda: weight_bytes(load_model("Qwen3-0.6B"), "bf16") / 2**20,
    why="596,049,920 parameters × 2 bytes = 1,192,099,840 B = 1,136.88 MiB (1,192.10 MB). "
        "The Qwen3-0.6B weight listing's '1433.62 MB' is MiB too, and counts the "
        "296.75 MiB matrix twice.",
    hint="bf16 is two bytes per parameter; a MiB is 2**20 bytes, not 10**6.",
    rel_tol=5e-5, unit="MiB",     # two decimals; a rounded GiB figure x 1024 is 2e-4 off
    mistakes=(
        (lambda: _listed_sum("Qwen3-0.6B") * 2 / 2**20,
         "You counted the tied matrix twice, as the weight listing does: lm_head.weight is "
         "the embedding's storage under a second name."),
        (lambda: weight_bytes(load_model("Qwen3-0.6B"), "bf16") / 10**6,
         "That is MB (10**6 bytes). A MiB is 2**20 = 1,048,576 bytes."),
        (lambda: weight_bytes(load_model("Qwen3-0.6B"), "fp32") / 2**20,
         "That is fp32 (4 bytes per parameter); bf16 is 2."),
        (lambda: weight_bytes(load_model("Qwen3-0.6B"), "bf16") / 2**30,
         "That is GiB (2**30 bytes); the question asks for MiB (2**20 bytes)."),
        (lambda: round(weight_bytes(load_model("Qwen3-0.6B"), "bf16") / 2**30, 2) * 1024,
         "That scales a GiB figure rounded to two decimals (1.11 GiB, as the explorer shows "
         "it); work from the exact byte count."),
    ),
    wrong=(1433.62, 1192.1, 568.44, 1136.64),
)


concept(
    "anatomy-4", NB,
    correct="d",
    feedback={
        "a": "The storage, yes; the compute, no. Every token's logits are still x·Wᵀ over "
             "the whole vocabulary, 2·V·d FLOPs, whichever name W has.",
        "b": "lm_head.weight is a second name for the same storage; safetensors writes a "
             "shared tensor once, and the parameter count counts it once.",
        "c": "The matrix is whole at both ends: the input looks up a row of it, the output "
             "multiplies by all of it.",
        "d": "Right: one matrix serves both ends. The lookup at the input reads one row; "
             "the output multiplies by all of it, as an untied lm_head would.",
    },
    why="Tying (Press & Wolf, 2017) shares one V × d matrix between the input lookup and "
        "the output projection: fewer parameters to store and train, the same FLOPs.",
)


# --- anatomy-5: design an untied Llama-3.2-3B at the same size --------------------------

_TIED_3B = "Llama-3.2-3B"


def _untied_same_size_ok(answer):
    if not isinstance(answer, dict) or not answer:
        return False, ("answer with the fields you change, as a dict, e.g. "
                       "{\"tie_word_embeddings\": False, ...}")
    kept = [f for f in ("vocab_size", "hidden_size") if f in answer]
    if kept:
        return False, (f"keep {' and '.join(kept)} as {'it is' if len(kept) == 1 else 'they are'}: "
                       "the brief changes the model's depth or MLP, not its vocabulary or width")
    base = load_model(_TIED_3B)
    cfg = base.replace(**answer)  # an impossible config: the engine's one-line message
    if cfg.tie_word_embeddings:
        return False, "the model is still tied: set tie_word_embeddings to False"
    n0, n = param_count(base).total, param_count(cfg).total
    drift = n / n0 - 1
    if abs(drift) > 0.01:
        return False, (f"untied, it holds {abs(n - n0):,} parameters "
                       f"{'more' if n > n0 else 'fewer'} than the original ({abs(drift):.1%}); "
                       "the brief allows 1%")
    return True, (f"untied at {n:,} parameters, {drift:+.2%} from the original: the second "
                  f"{base.vocab_size:,} × {base.hidden_size:,} matrix (394,002,432) paid for "
                  "elsewhere.")


design(
    "anatomy-5", NB,
    validate=_untied_same_size_ok,
    why="Untying adds a second V × d matrix, 128,256 × 3,072 = 394,002,432 parameters (12.3%). "
        "One layer is 2·d·d_h·(n_h + n_kv) + 3·d·d_ff + 2·d = 100,669,440, so four layers fewer "
        "(24) pay for it; a narrower MLP would too.",
    solution={"tie_word_embeddings": False, "num_hidden_layers": 24},
    hint="How many parameters does untying add, and how many does one layer hold?",
    wrong=({"tie_word_embeddings": False}, {"num_hidden_layers": 24},
           {"tie_word_embeddings": False, "vocab_size": 64_000},
           {"tie_word_embeddings": False, "num_hidden_layers": 20}, 24),
)
