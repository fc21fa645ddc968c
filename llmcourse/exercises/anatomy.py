"""Exercises for lesson 0, the anatomy of a decoder. Every expected value is computed
by the engine when it is checked, never stored as a number."""

from ..config import from_hf_config
from ..counts import param_count, weight_bytes, weight_shapes
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []


def what_if(model, name, **changes):
    """A zoo model with ``changes``, named as the feedback names it ("phi-2 with 8 KV
    heads"): a config no notebook shows, for a derive exercise's cases."""
    cfg = load_model(model).replace(**changes)
    return from_hf_config(cfg.to_hf_config(), name=name)

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


def _phi_params(cfg):
    """The worked solution: a phi-2-style model (parallel block, LayerNorms with a bias,
    biases on every linear layer, a plain MLP, an untied lm_head with a bias)."""
    d, hd, ff = cfg.hidden_size, cfg.head_dim, cfg.intermediate_size
    q, kv = cfg.num_attention_heads * hd, cfg.num_key_value_heads * hd
    attention = (q + 2 * kv) * d + (q + 2 * kv)     # q, k, v: weight + bias
    attention += q * d + d                          # dense (o): weight + bias of width d
    mlp = (d * ff + ff) + (ff * d + d)              # fc1 and fc2, each with its bias
    layer = attention + mlp + 2 * d                 # one LayerNorm: weight and bias
    embedding = cfg.vocab_size * d
    lm_head = cfg.vocab_size * d + cfg.vocab_size   # untied, with a bias per token
    return embedding + cfg.num_hidden_layers * layer + 2 * d + lm_head


def _phi_rms(cfg):       # LayerNorms counted as RMSNorms: a weight, no bias
    return _phi_params(cfg) - cfg.hidden_size * (cfg.num_hidden_layers + 1)


def _phi_two_norms(cfg):  # two LayerNorms per layer, as Llama's block has two norms
    return _phi_params(cfg) + 2 * cfg.hidden_size * cfg.num_hidden_layers


def _phi_no_head_bias(cfg):
    return _phi_params(cfg) - cfg.vocab_size


def _phi_gated(cfg):     # gate, up and down, as in Llama's SwiGLU
    return _phi_params(cfg) + cfg.num_hidden_layers * (cfg.hidden_size + 1) * cfg.intermediate_size


def _phi_tied(cfg):      # lm_head taken as the embedding again
    return _phi_params(cfg) - cfg.vocab_size * cfg.hidden_size


def _phi_no_linear_biases(cfg):
    hd, d = cfg.head_dim, cfg.hidden_size
    per_layer = (cfg.num_attention_heads + 2 * cfg.num_key_value_heads) * hd + d \
        + cfg.intermediate_size + d
    return _phi_params(cfg) - cfg.num_hidden_layers * per_layer


def _phi_gqa():   # its k and v biases shrink with k_proj and v_proj
    return what_if("phi-2", "phi-2 with 8 KV heads", num_key_value_heads=8)


def _phi_1_5():   # phi-1.5's shape
    return what_if("phi-2", "phi-2 at 24 layers of 2,048", hidden_size=2048,
                   num_hidden_layers=24, intermediate_size=8192)


def _phi_wider_vocab():
    return what_if("phi-2", "phi-2 with 20 layers and a 50,304-token vocabulary",
                   vocab_size=50304, num_hidden_layers=20)


derive(
    "anatomy-2", NB,
    reference=lambda cfg: param_count(cfg).total,
    cases=("phi-2", _phi_gqa, _phi_1_5, _phi_wider_vocab),
    why="One phi-2 layer is q, k, v and dense (o) with a bias each, (n_h + 2·n_kv)·d_h·(d + 1) "
        "+ n_h·d_h·d + d; a plain MLP, 2·d·d_ff + d_ff + d; and one LayerNorm, 2·d (a weight "
        "and a bias). The model adds the embedding V·d, the final LayerNorm 2·d, and the "
        "untied lm_head V·d + V. A bias has one number per output unit, so k's and v's are "
        "n_kv·d_h wide and dense's is d wide.",
    solution=_phi_params,
    hint="List one layer's tensors as the prompt describes them, each weight and each bias "
         "with its width; then what exists once per model, lm_head's bias included.",
    mistakes=(
        (_phi_rms, "that counts each LayerNorm as an RMSNorm, a weight only: a LayerNorm also "
                   "has a bias of hidden_size"),
        (_phi_two_norms, "that gives each layer two LayerNorms, as Llama's block has two "
                         "norms: phi-2's attention and MLP run side by side after one"),
        (_phi_no_head_bias, "that leaves out lm_head's bias, one number per token of the "
                            "vocabulary"),
        (_phi_gated, "that counts a gated MLP (gate, up, down): phi-2's is plain, fc1 then fc2"),
        (_phi_tied, "that ties lm_head to the embedding: phi-2's lm_head is a matrix of its own"),
        (_phi_no_linear_biases, "that leaves out the linear layers' biases: q, k, v, dense, "
                                "fc1 and fc2 each have one"),
    ),
    wrong=(_phi_rms, _phi_two_norms, _phi_no_head_bias, _phi_gated, _phi_tied),
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
