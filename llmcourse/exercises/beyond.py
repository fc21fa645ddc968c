"""Exercises for lesson 02b, Beyond GQA (ids bg-*).

Every expected value is computed by the engine when the reader checks; no answer
here is printed in the notebook above its exercise.
"""

from __future__ import annotations

from ..config import ConfigError
from ..counts import kv_cache_bytes, linear_state_bytes
from ..units import GB, GiB
from ..zoo import load_model
from .base import concept, derive, design, predict

__all__ = []

NB = "02b_beyond_gqa"


# --- bg-1: predict Gemma 4 E2B's cache at its full context ---------------------------------

def _e2b_cache(**changes):
    cfg = load_model("gemma-4-E2B")
    return kv_cache_bytes(cfg.replace(**changes) if changes else cfg, 131072, 1, "bf16") / GiB


predict(
    "bg-1", NB,
    expected=_e2b_cache,
    why="Only the first 35 - 20 = 15 layers store K and V: 12 sliding layers keep 512 tokens "
        "of 2 · 256 values, 3 full layers keep all 131,072 tokens of 2 · 512 values. "
        "(12 · 512 · 512 + 3 · 131,072 · 1,024) values · 2 bytes = 811,597,824 B = 0.756 GiB. "
        "Without the sharing the 7 full layers alone would take 1.75 GiB.",
    hint="list which layers store anything, then what each keeps: a window of tokens or all "
         "of them, at its own head width.",
    rel_tol=0.01, unit="GiB",
    mistakes=((lambda: _e2b_cache(num_kv_shared_layers=0),
               "that is the cache with every layer storing its own K and V: the last 20 layers "
               "store nothing"),
              (lambda: _e2b_cache() * GiB / GB,
               "that is in GB (10**9 bytes); the question asks GiB (2**30)"),
              (lambda: 3 * 131072 * 2 * 256 * 2 / GiB + 12 * 512 * 2 * 256 * 2 / GiB,
               "the full layers' heads are global_head_dim = 512 wide, not 256")),
    wrong=(1.757, 0.38, 0.812, "0.756"),
)


# --- bg-2: derive the fixed state of linear-attention and Mamba-2 layers -------------------

def _state_solution(cfg):
    """The worked solution: bytes of the fixed per-sequence state, bf16."""
    total = 0
    n_lin = cfg.layer_types.count("linear_attention")
    if n_lin:   # gated DeltaNet: a d_k x d_v matrix per value head, plus the conv's last w inputs
        conv = (2 * cfg.linear_num_key_heads * cfg.linear_key_head_dim
                + cfg.linear_num_value_heads * cfg.linear_value_head_dim)
        total += n_lin * (cfg.linear_num_value_heads * cfg.linear_key_head_dim
                          * cfg.linear_value_head_dim + conv * cfg.linear_conv_kernel_dim)
    n_mamba = cfg.layer_types.count("mamba")
    if n_mamba:  # Mamba-2: a head_dim x state matrix per head, plus the conv's last w inputs
        inner = cfg.mamba_num_heads * cfg.mamba_head_dim
        conv = inner + 2 * cfg.n_groups * cfg.ssm_state_size
        total += n_mamba * (inner * cfg.ssm_state_size + conv * cfg.conv_kernel)
    return total * 2


derive(
    "bg-2", NB,
    reference=lambda cfg: linear_state_bytes(cfg, 1, "bf16"),
    cases=["Qwen3.6-35B-A3B", "Qwen3.5-0.8B-Base", "Qwen3-Next-80B-A3B",
           "Nemotron-3-Nano-30B-A3B", "Llama-3.1-8B"],
    why="A DeltaNet layer keeps one linear_key_head_dim x linear_value_head_dim matrix per "
        "value head, plus linear_conv_kernel_dim positions of its q, k and v channels. A "
        "Mamba-2 layer keeps one mamba_head_dim x ssm_state_size matrix per head, plus "
        "conv_kernel positions of its x, B and C channels (mamba_num_heads x mamba_head_dim "
        "+ 2 x n_groups x ssm_state_size). Neither depends on the context.",
    solution=_state_solution,
    hint="count the layers of each kind with cfg.layer_types.count(...); each kind keeps a "
         "matrix per head and a few positions of its short convolution.",
    wrong=(
        lambda cfg: 2 * cfg.layer_types.count("linear_attention") * (
            cfg.linear_num_value_heads * cfg.linear_key_head_dim * cfg.linear_value_head_dim)
        if cfg.layer_types.count("linear_attention") else 0,
        lambda cfg: _state_solution(cfg) // 2,
        lambda cfg: _state_solution(cfg) + 2 * cfg.layer_types.count("full_attention"),
    ),
)


# --- bg-3: design how many layers share their KV ----------------------------------------------

def _validate_shared(answer):
    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, "give a whole number of layers, e.g. 20"
    base = load_model("gemma-4-E2B")
    try:
        cfg = base.replace(num_kv_shared_layers=answer)
    except ConfigError as e:
        return False, f"the engine refuses it: {e}"
    cache = kv_cache_bytes(cfg, 131072, 8, "bf16")
    full_storing = sum(n for k, n in cfg.layer_schedule.counts().items()
                       if k.attention == "full_attention" and not k.kv_shared)
    if cache >= 4 * GiB:
        return False, (f"with {answer} shared layers the cache is {cache / GiB:,.2f} GiB at batch "
                       f"8, not under 4 GiB: {full_storing} full layers still store every token")
    return True, (f"{answer} shared layers: {cache / GiB:,.2f} GiB. Only {full_storing} full "
                  "layer stores all 131,072 tokens; every layer after the sharing point reads "
                  "its K and V. Fewer layers computing their own K and V is the price.")


design(
    "bg-3", NB,
    validate=_validate_shared,
    why="Each full layer that stores K and V costs 131,072 · 1,024 values · 2 B · 8 = 2 GiB; "
        "the sliding ones only 4 MiB each. Under 4 GiB allows one storing full layer: the "
        "first full layer is layer 4, the next is layer 9, so 5 to 9 storing layers, i.e. 26 "
        "to 30 shared ones. The shipped 20 leaves 3 full layers storing: 6 GiB.",
    solution=28,
    hint="find what one storing full layer costs at this batch and context; then count how "
         "many of the first layers may store.",
    wrong=(20, 25, 34, 35, "28"),
)


# --- bg-4: concept: what sparse attention changes --------------------------------------------

concept(
    "bg-4", NB,
    correct="a",
    feedback={
        "b": "any earlier token may be picked later, so every token's latent stays cached; "
             "and the indexer's scoring over all keys remains.",
        "c": "the indexer reads every key, but with 64 small heads of 128 (and in fp8 in "
             "DeepSeek's kernels) it costs about a fifth of MLA's 128 heads per key.",
        "d": "the cache keeps every token (plus one indexer key each); only the main "
             "attention is capped at 2,048 keys.",
    },
    why="The lesson's decode count at 131,072 tokens: MLA over 2,048 keys plus the indexer "
        "over all 131,072, about 4.6 times fewer attention FLOPs than DeepSeek-V3; the cache "
        "holds 576 + 128 values per token and layer instead of 576.",
)
