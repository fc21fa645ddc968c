"""Exercises for lessons 03 and 04, beyond GQA: the caches that shrink (ids shrink-*: MLA,
sliding windows, KV shared across layers) and the caches that stop growing (ids state-*:
sparse attention's indexer, compressed KV, linear attention and Mamba-2 state).

Every expected value is computed by the engine when the reader checks; no answer here is
printed in a notebook above its exercise.
"""

from __future__ import annotations

from ..config import ConfigError
from ..counts import flops_per_token, kv_cache_bytes, linear_state_bytes
from ..sizing import plain_mha_cache_bytes
from ..units import GB, GiB, count_of
from ..zoo import load_model
from .anatomy import what_if
from .base import concept, derive, design, predict

__all__ = []

SHRINK = "03_caches_that_shrink"
STATE = "04_caches_that_stop_growing"


# === lesson 03: caches that shrink =========================================================

# --- shrink-1: derive the plain-MHA baseline's bytes per token ----------------------------

def _plain_mha_solution(cfg):
    """The worked solution: plain MHA's bytes per token over all layers, bf16: every layer
    a K and a V per query head, at its own head width; no window, no sharing."""
    heads = cfg.num_attention_heads
    if cfg.uses_mla:                                     # the DeepSeek-V2 paper's baseline
        widths = [cfg.v_head_dim] * cfg.num_hidden_layers
    else:                                                # Gemma 4's full layers: wider
        wide = cfg.get("global_head_dim") or cfg.head_dim
        widths = [wide if t == "full_attention" else cfg.head_dim for t in cfg.layer_types]
    return sum(2 * heads * w * 2 for w in widths)


def _own_kv_heads(cfg):   # the model's own KV heads, not one per query head
    if cfg.uses_mla or cfg.num_key_value_heads == cfg.num_attention_heads:
        return None
    return sum(n * 2 * (k.kv_heads or cfg.num_key_value_heads) * (k.head_dim or cfg.head_dim) * 2
               for k, n in cfg.layer_schedule.counts().items() if k.attention != "none")


def _one_width(cfg):      # every layer at head_dim, Gemma 4's global_head_dim forgotten
    if cfg.uses_mla or not cfg.get("global_head_dim"):
        return None
    return 2 * cfg.num_attention_heads * cfg.head_dim * 2 * cfg.num_hidden_layers


def _storing_only(cfg):   # the KV-shared layers left out, as the model's own cache leaves them
    shared = cfg.get("num_kv_shared_layers") or 0
    if not shared:
        return None
    wide = cfg.get("global_head_dim") or cfg.head_dim
    kinds = list(cfg.layer_types)[:cfg.num_hidden_layers - shared]
    return sum(2 * cfg.num_attention_heads * (wide if t == "full_attention" else cfg.head_dim)
               * 2 for t in kinds)


def _mla_qk_width(cfg):   # MLA's heads at their q/k width, not v_head_dim
    if not cfg.uses_mla:
        return None
    qk = cfg.qk_nope_head_dim + cfg.qk_rope_head_dim
    if qk == cfg.v_head_dim:
        return None
    return 2 * cfg.num_attention_heads * qk * 2 * cfg.num_hidden_layers


def _or_right(mistake):
    """A whole wrong answer: the mistake where it applies, the right count elsewhere."""
    def answer(cfg):
        wrong = mistake(cfg)
        return _plain_mha_solution(cfg) if wrong is None else wrong
    return answer


derive(
    "shrink-1", SHRINK,
    reference=lambda cfg: plain_mha_cache_bytes(cfg, 1, 1, "bf16"),
    cases=["gemma-4-E2B", "gemma-4-31B", "gemma-3-1b-it", "gpt-oss-20b", "DeepSeek-V2",
           "GLM-4.7-Flash",
           lambda: what_if("gemma-4-E2B", "gemma-4-E2B with 10 KV-shared layers",
                           num_kv_shared_layers=10)],
    why="Plain MHA caches, in every layer, a K and a V per query head: 2 · n_h · w values a "
        "token, with w the layer's own head width (Gemma 4's full layers at global_head_dim, "
        "MLA at v_head_dim), 2 bytes each in bf16. Windows, KV sharing, K = V and the latent "
        "are what the models do instead, so none of them appears in the baseline: "
        "gemma-4-E2B's 35 layers give 8 · (28 · 256 + 7 · 512) · 2 · 2 = 344,064 B a token, "
        "whatever num_kv_shared_layers says.",
    solution=_plain_mha_solution,
    hint="Go layer by layer through cfg.layer_types: which head width does each layer have, "
         "and how many K and V vectors would MHA give it?",
    unit="bytes",
    mistakes=(
        (_own_kv_heads, "that keeps the model's own KV heads: plain MHA gives every query "
                        "head its own K and V"),
        (_one_width, "that puts every layer at head_dim: Gemma 4's full layers are "
                     "global_head_dim wide"),
        (_storing_only, "that leaves out the KV-shared layers: the baseline has no sharing, "
                        "every layer caches its own"),
        (_mla_qk_width, "that gives MLA's heads their q/k width: the paper's baseline caches "
                        "heads of v_head_dim"),
        (lambda cfg: _plain_mha_solution(cfg) // 2,
         "that caches one vector per head: MHA keeps a K and a V"),
    ),
    wrong=tuple(_or_right(f) for f in (_own_kv_heads, _one_width, _storing_only,
                                         _mla_qk_width))
    + (lambda cfg: _plain_mha_solution(cfg) // 2,),
)


# --- shrink-2: predict Gemma 4 E2B's cache at a long context ----------------------------

_E2B_TOKENS = 100_000   # within its 131,072; not a context the explorer's slider offers


def _e2b_cache(**changes):
    cfg = load_model("gemma-4-E2B")
    return kv_cache_bytes(cfg.replace(**changes) if changes else cfg, _E2B_TOKENS, 1,
                          "bf16") / GiB


def _e2b_full_layers_narrow():
    """Every storing layer at the sliding layers' width, head_dim = 256."""
    cfg = load_model("gemma-4-E2B")
    stores = cfg.num_hidden_layers - cfg.num_kv_shared_layers
    kinds = cfg.layer_types[:stores]
    values = 2 * cfg.num_key_value_heads * cfg.head_dim * (
        kinds.count("sliding_attention") * cfg.sliding_window
        + kinds.count("full_attention") * _E2B_TOKENS)
    return values * 2 / GiB


predict(
    "shrink-2", SHRINK,
    expected=_e2b_cache,
    why="Only the first 35 - 20 = 15 layers store K and V: 12 sliding layers keep 512 tokens "
        "of 2 · 256 values, 3 full layers keep all 100,000 tokens of 2 · 512 values. "
        "(12 · 512 · 512 + 3 · 100,000 · 1,024) values · 2 bytes = 620,691,456 B = 0.578 GiB. "
        "Without the sharing the 7 full layers alone would take 1.34 GiB.",
    hint="list which layers store anything, then what each keeps: a window of tokens or all "
         "of them, at its own head width.",
    rel_tol=0.01, unit="GiB",
    mistakes=((lambda: _e2b_cache(num_kv_shared_layers=0),
               "that is the cache with every layer storing its own K and V: the last 20 layers "
               "store nothing"),
              (_e2b_full_layers_narrow,
               "the full layers' heads are global_head_dim = 512 wide, not head_dim = 256"),
              (lambda: _e2b_cache(layer_types=["full_attention"] * 35),
               "that keeps every token in every storing layer: the sliding layers keep only "
               "their window of 512")),
    wrong=(1.35, 0.29, 0.62, "0.578"),
)


# --- shrink-3: design how many layers share their KV ----------------------------------------

def _e2b_shared_cache(shared):
    """gemma-4-E2B's cache at 8 x 131,072 tokens with ``shared`` KV-shared layers (None
    where the engine refuses that count)."""
    try:
        cfg = load_model("gemma-4-E2B").replace(num_kv_shared_layers=shared)
    except ConfigError:
        return None
    return kv_cache_bytes(cfg, 131072, 8, "bf16")


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
                       f"8, not under 4 GiB: {count_of(full_storing, 'full layer')} still "
                       "store every token")
    fewest = min(n for n in range(base.num_hidden_layers + 1)
                 if (_e2b_shared_cache(n) or 4 * GiB) < 4 * GiB)
    more = answer - fewest
    note = ("" if not more else f" {fewest} shared layers fit too, and then "
            f"{count_of(more, 'more layer')} would compute {'its' if more == 1 else 'their'} "
            "own K and V.")
    return True, (f"{answer} shared layers: {cache / GiB:,.2f} GiB. Only "
                  f"{count_of(full_storing, 'full layer')} stores all 131,072 tokens; every "
                  "layer after the sharing point reads an earlier layer's K and V. Fewer layers "
                  "computing their own K and V is the price." + note)


design(
    "shrink-3", SHRINK,
    validate=_validate_shared,
    why="Each full layer that stores K and V costs 131,072 · 1,024 values · 2 B · 8 = 2 GiB; "
        "the sliding ones only 4 MiB each. Under 4 GiB allows one storing full layer. The "
        "full layers are 4, 9, 14, ...: storing the first 5 to 9 layers keeps one, so 26 to "
        "30 shared layers fit, and 26 keeps the most layers computing their own K and V. The "
        "shipped 20 leaves 3 full layers storing: 6 GiB.",
    solution=26,
    hint="find what one storing full layer costs at this batch and context; then count how "
         "many of the first layers may store.",
    wrong=(20, 25, 34, 35, "26"),
)


# --- shrink-4: concept: what a wider window costs once the context is long ------------------

concept(
    "shrink-4", SHRINK,
    correct="a",
    feedback={
        "b": "only the 22 sliding layers keep more, 512 more tokens each; the 4 full layers "
             "already keep all 32,768, and they hold most of the cache.",
        "c": "the sliding layers do store what their window covers: a wider window keeps "
             "more tokens in each of them.",
        "d": "a doubled window doubles the sliding layers' share, but at 32K that share is "
             "small beside the full layers'.",
    },
    why="At 32,768 tokens the 4 full layers keep 4 · 32,768 = 131,072 token-layers and the 22 "
        "sliding ones 22 · 512 = 11,264; a window of 1,024 adds 11,264 more: 153,600 against "
        "142,336, about 8%. Past the window, the full layers decide the cache.",
)


# === lesson 04: caches that stop growing ===================================================

# --- state-1: predict DSA's saving at a short context ---------------------------------------

def _dsa_ratio(n=4096):
    dense = flops_per_token(load_model("DeepSeek-V3"), n, mode="decode").attention
    return dense / flops_per_token(load_model("DeepSeek-V3.2"), n, mode="decode").attention


def _dsa_ratio_without_indexer():
    return 4096 / load_model("DeepSeek-V3.2").index_topk


predict(
    "state-1", STATE,
    expected=_dsa_ratio,
    why="Per layer and decoded token: DeepSeek-V3 reads 4,096 keys at 2 · 128 · (192 + 128) "
        "= 81,920 FLOPs each; V3.2 reads 2,048 of them and its indexer scores all 4,096 at "
        "2 · 64 · 129 = 16,512: 81,920 · 4,096 / (81,920 · 2,048 + 16,512 · 4,096) = 1.43. "
        "At 2,048 tokens or fewer, V3.2 does more work than V3: the indexer is pure overhead.",
    hint="write both per-layer counts at n = 4,096 with the lesson's cost model: the main "
         "attention over the keys it reads, plus the indexer over every key.",
    rel_tol=0.01, unit="×",
    mistakes=((_dsa_ratio_without_indexer,
               "that counts the main attention only (4,096 / 2,048); the indexer still scores "
               "all 4,096 keys"),
              (lambda: _dsa_ratio(131072),
               "that is the ratio at 131,072 tokens; the question asks at 4,096")),
    wrong=(2.0, 4.6, 1.0, "1.43"),
)


# --- state-2: derive Kimi-Linear's fixed state (Kimi Delta Attention) --------------------

def _kda_solution(cfg):
    """The worked solution: bytes of the fixed state one sequence keeps in bf16 over the
    Kimi Delta Attention layers (linear_attention in layer_types), 0 without them."""
    n = cfg.layer_types.count("linear_attention")
    if not n:
        return 0
    kda = cfg.linear_attn_config
    h, d, w = kda["num_heads"], kda["head_dim"], kda["short_conv_kernel_size"]
    matrix = h * d * d                  # one head_dim x head_dim state per head
    conv = 3 * h * d * w                # the last w inputs of q's, k's and v's convolutions
    return n * (matrix + conv) * 2      # bf16


def _kda(field, value, name):
    def make():
        cfg = load_model(_KIMI)
        return what_if(_KIMI, name, linear_attn_config={**cfg.linear_attn_config, field: value})
    return make


_KIMI = "Kimi-Linear-48B-A3B-Instruct"


def _kda_parts(cfg):
    n = cfg.layer_types.count("linear_attention")
    if not n:
        return None
    kda = cfg.linear_attn_config
    h, d, w = kda["num_heads"], kda["head_dim"], kda["short_conv_kernel_size"]
    return n, h, d, w


def _kda_wrong(matrix, conv, layers=None, bytes_per=2):
    def f(cfg):
        parts = _kda_parts(cfg)
        if parts is None:
            return None
        n, h, d, w = parts
        return (layers(cfg) if layers else n) * (matrix(h, d) + conv(h, d, w)) * bytes_per
    return f


_kda_no_conv = _kda_wrong(lambda h, d: h * d * d, lambda h, d, w: 0)
_kda_conv_v_only = _kda_wrong(lambda h, d: h * d * d, lambda h, d, w: h * d * w)
_kda_every_layer = _kda_wrong(lambda h, d: h * d * d, lambda h, d, w: 3 * h * d * w,
                              layers=lambda cfg: cfg.num_hidden_layers)
_kda_fp32 = _kda_wrong(lambda h, d: h * d * d, lambda h, d, w: 3 * h * d * w, bytes_per=4)
_kda_k_and_v = _kda_wrong(lambda h, d: 2 * h * d * d, lambda h, d, w: 3 * h * d * w)


derive(
    "state-2", STATE,
    reference=lambda cfg: linear_state_bytes(cfg, 1, "bf16"),
    cases=[_KIMI, _kda("num_heads", 16, "Kimi-Linear with 16 KDA heads"),
           _kda("head_dim", 64, "Kimi-Linear with KDA heads of 64"),
           _kda("short_conv_kernel_size", 2, "Kimi-Linear with a convolution of 2"),
           "Llama-3.1-8B"],
    why="Kimi Delta Attention keeps, per head, one head_dim x head_dim matrix (the delta rule's "
        "state, as gated DeltaNet's), plus the last short_conv_kernel_size inputs of its q, k "
        "and v convolutions, 3 x num_heads x head_dim channels; in bf16 and per KDA layer: "
        "(h·d² + 3·h·d·w) · 2 bytes. Kimi-Linear's 20 KDA layers keep 21.88 MiB per "
        "sequence at any context; its 7 MLA layers keep a latent cache that grows.",
    solution=_kda_solution,
    hint="Count the KDA layers with cfg.layer_types.count(...); then, per layer, the state "
         "matrix of each head and the convolution's last few inputs.",
    unit="bytes",
    mistakes=(
        (_kda_no_conv, "that counts the state matrices only: each layer also keeps the last "
                       "few inputs of its short convolutions"),
        (_kda_conv_v_only, "that keeps one convolution's inputs: q, k and v each have their "
                           "own short convolution"),
        (_kda_k_and_v, "that keeps two matrices per head, as if K and V were cached apart: "
                       "the delta rule keeps one d_k x d_v state"),
        (_kda_every_layer, "that gives every layer a state: only the KDA layers "
                           "(linear_attention) have one; the MLA layers keep a cache"),
        (_kda_fp32, "that is fp32 (4 bytes a value); the question asks bf16"),
    ),
    wrong=(lambda cfg: _kda_no_conv(cfg) or 0, lambda cfg: _kda_every_layer(cfg) or 0,
           lambda cfg: _kda_fp32(cfg) or 0, lambda cfg: _kda_conv_v_only(cfg) or 0),
)


# --- state-3: design how many of Qwen3-Next's layers stay full attention ---------------------

_NEXT = "Qwen3-Next-80B-A3B"
_BUDGET = 16 * GiB


def _validate_interval(answer):
    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, "give a whole number: every how many layers one is full attention, e.g. 4"
    base = load_model(_NEXT)
    cfg = base.replace(full_attention_interval=answer)   # the engine refuses what cannot exist
    full = cfg.layer_types.count("full_attention")
    if not full:
        return False, (f"with an interval of {answer} none of the 48 layers is full attention: "
                       "keep at least one, for exact recall of early tokens")
    total = kv_cache_bytes(cfg, 262144, 8) + linear_state_bytes(cfg, 8)
    if total >= _BUDGET:
        return False, (f"an interval of {answer} keeps {count_of(full, 'full layer')}: cache and "
                       f"state take "
                       f"{total / GiB:,.2f} GiB at 8 × 262,144 tokens, not under 16 GiB")
    most = max(range(1, 49), key=lambda k: (
        kv_cache_bytes(base.replace(full_attention_interval=k), 262144, 8)
        + linear_state_bytes(base.replace(full_attention_interval=k), 8) < _BUDGET,
        base.replace(full_attention_interval=k).layer_types.count("full_attention")))
    best = base.replace(full_attention_interval=most).layer_types.count("full_attention")
    note = ("" if full == best else
            f" An interval as short as {most} would keep {count_of(best, 'full layer')} "
            "and still fit: more layers that recall early tokens exactly.")
    return True, (f"An interval of {answer}: {count_of(full, 'full layer')}, "
                  f"{total / GiB:,.2f} GiB of cache and state.{note}")


design(
    "state-3", STATE,
    validate=_validate_interval,
    why="Each full layer keeps 2 · 2 KV heads · 256 values · 2 B = 2 KiB per token: at "
        "8 × 262,144 tokens that is 4 GiB a layer, while the 36 to 47 linear layers' state "
        "stays under 0.4 GiB. Under 16 GiB leaves at most 3 full layers (12.37 GiB): an "
        "interval of 13 to 16 keeps 3 (layers 12, 25, 38 for 13); 17 to 24 keeps 2 and 25 to "
        "48 keeps 1, which fit too but recall less. The shipped 4 keeps 12, 48.3 GiB.",
    solution=13,
    hint="find what one full layer costs at this batch and context; the linear layers' state "
         "is small and fixed. Layer i is full when (i + 1) is a multiple of the interval.",
    wrong=(4, 12, 49, "13"),
)


# --- state-4: concept: what still grows with the context -------------------------------------

concept(
    "state-4", STATE,
    correct="d",
    feedback={
        "a": "DeepSeek-V4 adds one compressed entry per 4 tokens (CSA) or 128 (HCA) in every "
             "such layer, so its cache keeps growing, 4 to 128 times slower; and Qwen3-Next's "
             "12 full layers keep every token.",
        "b": "a compressed entry stands for 4 or 128 tokens, not for all the old ones: the "
             "number of entries grows with the context.",
        "c": "Qwen3-Next's DeltaNet state is fixed, but its 12 full-attention layers cache "
             "every token; and V4's entries grow too.",
    },
    why="From 32,768 to 262,144 tokens DeepSeek-V4's cache grows about 8× (0.22 to "
        "1.68 GiB) and Qwen3-Next's full layers' cache 8× as well (0.75 to 6 GiB); only the "
        "DeltaNet state (38.25 MiB) stays put. Memory that stops growing needs every layer to "
        "keep a fixed state.",
)
