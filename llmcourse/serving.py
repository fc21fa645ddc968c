"""Will it start? The KV-cache budget as vLLM's V1 engine computes it, per GPU, by release.

The idealised plan (:func:`llmcourse.memory_plan`: weights + KV <= 0.9 x datasheet
capacity, all GPUs one pool) is the first, derivable step. This module is the second:
what the engine does when it is launched (``vllm/v1/worker/gpu_worker.py:
determine_available_memory``, ``vllm/v1/core/kv_cache_utils.py``,
``vllm/engine/arg_utils.py``). Its accounting changed between releases, so the plan takes a
``vllm_version``: ``"0.31"`` (the default, :data:`CURRENT_VLLM`: v0.31.0 of 5 October 2026,
the newest release found) or ``"0.10"``/``"0.11"`` (October 2025); :data:`VLLM_RELEASES`
holds the budget terms of each, with the PRs that changed them.

1. requested = ``gpu_memory_utilization`` x the total the GPU runtime reports
   (:attr:`GPU.reported_memory_bytes`: 79.18 GiB on an H100 80GB, not 80 GB); the default
   utilization is 0.9 up to 0.11 and 0.92 in the current release (vLLM PR 38284);
2. minus the weights as loaded on this GPU (its tensor-parallel shard, its pipeline stage);
3. minus the peak activation of the profiling run (``gpu_model_runner.profile_run``: a
   dummy forward over ``max_num_batched_tokens`` tokens, then a dummy sampler run over
   ``min(max_num_seqs, max_num_batched_tokens)`` rows of full-vocabulary logits; the torch
   peak is the larger of the two) -- an ESTIMATE here (:func:`activation_peak_bytes`). The
   sampler's bytes per logit depend on the release: 38 with PyTorch's sort (0.10/0.11 once
   PR 26859 turned FlashInfer's sampler off by default), 14 with FlashInfer's, on again by
   default since PR 40376 (April 2026);
4. minus non-torch memory (cuBLAS/NCCL buffers created after vLLM's first snapshot): a
   STATED figure from published logs (:func:`non_torch_range`: 0.13 GiB on one GPU, 0.55
   GiB with TP; logged 0.07-0.14 GiB on one GPU, 0.21-1.38 GiB with TP);
5. minus, in the current release only, vLLM's own estimate of the CUDA-graph pool
   (``profile_cudagraph_memory``, PR 30515, subtracted by default "since v0.21.0" as the
   log says): a STATED figure (:data:`CUDA_GRAPH_ESTIMATE_BYTES`: 0.6 GiB, logged 0.13-4.2
   GiB); in 0.10/0.11 the graphs are
   captured after the KV cache is allocated and come out of the ``1 - utilization``
   headroom instead;
6. what is left is the KV cache, cut into blocks of ``block_size`` tokens (16) in every
   attention layer of this GPU. The engine refuses to start when no block fits or when
   one request of ``max_model_len`` tokens does not fit, with the messages in
   :func:`vllm_plan`'s ``reason``.

Tensor parallelism (vLLM's rules): the tensor-parallel size must divide
``num_attention_heads``; when it is below ``num_key_value_heads`` it must divide them
too, and when it is at or above them it must be a multiple of them, and each GPU holds
one (replicated) KV head. An MLA latent (DeepSeek) has no heads to split: every rank
caches the whole latent.

Llama-3.1-8B on one H100 at max_model_len 16,000: 0.11 plans 0.9 x 79.18 - 14.99 - 4.73 -
0.13 = 51.42 GiB = 421,200 KV tokens; 0.31 plans 0.92 x 79.18 - 14.99 - 1.79 - 0.13 - 0.60 =
55.34 GiB = 453,312 tokens. :func:`vllm_changes` walks from one to the other, PR by PR.

Exact here: the arithmetic of steps 1, 2, 6 and the parallelism rules. Estimated: the
activation peak. Stated: non-torch and CUDA-graph memory. Checked against published startup
logs of both releases in ``llmcourse/data/vllm_logs.json`` (:func:`vllm_logs`;
tests/test_vllm_logs.py).
"""

from __future__ import annotations

import json
import math
import os
from typing import NamedTuple

from .config import ConfigError
from .counts import kv_cache_bytes
from .hardware import as_gpu
from .quantization import AS_SHIPPED, stored_weights
from .zoo import as_config

__all__ = ["VLLM_VERSION", "CURRENT_VLLM", "VLLM_RELEASES", "VllmRelease", "vllm_release",
           "BLOCK_SIZE", "NON_TORCH_BYTES", "NON_TORCH_BYTES_TP", "NonTorchRange",
           "non_torch_range", "CUDA_GRAPH_BYTES", "CUDA_GRAPH_ESTIMATE_BYTES",
           "SAMPLER_BYTES_PER_LOGIT", "SAMPLERS", "VllmPlan", "vllm_plan", "BudgetChange",
           "vllm_changes", "CUDA_GRAPH_ESTIMATE_RANGE_GIB",
           "vllm_defaults", "check_parallelism", "kv_heads_per_rank", "weights_per_gpu",
           "kv_bytes_per_token_per_gpu", "rope_cache_bytes", "GpuDecodeBound",
           "decode_step_per_gpu", "activation_peak_bytes", "ProfilePeak", "profile_peak",
           "kv_bytes_needed", "allreduce_seconds", "VLLM_LOGS", "vllm_logs", "log_plan",
           "log_configs",
           "DECODE_SPEEDS", "decode_speeds", "ENGINE_FAMILIES", "typical_decode_efficiency",
           "ExpectedDecode", "expected_decode_speed"]

GiB = 2 ** 30
BLOCK_SIZE = 16
# Stated, not derived: the "non-torch forward increase memory" / "GiB for non-torch memory"
# of published V1 logs (llmcourse/data/vllm_logs.json): 0.13-0.14 GiB on one H100 and 0.54-0.55
# GiB per GPU at TP=2 over NVLink (llm-d/llm-d-benchmark config_explorer/
# empirical-vllm-memory-results.md). One figure each, not fitted per launch; the spread the
# logs show (0.07-0.14 GiB on one GPU, 0.21-1.38 GiB with TP, by GPU and all-reduce backend)
# is non_torch_range().
NON_TORCH_BYTES = round(0.13 * GiB)
NON_TORCH_BYTES_TP = round(0.55 * GiB)
# Stated: "Graph capturing finished in N secs, took 0.3-0.9 GiB" in published 0.10/0.11 logs;
# captured after the KV cache is allocated, from the headroom (not from the KV budget).
CUDA_GRAPH_BYTES = round(0.5 * GiB)
# Stated: vLLM's own estimate of the CUDA-graph pool, subtracted from the KV budget since
# v0.21 ("CUDA graph memory profiling is enabled (default since v0.21.0)"). It captures two
# graphs per mode and extrapolates (gpu_model_runner.profile_cudagraph_memory), so it is not a
# function of the model the course can derive: "Estimated CUDA graph memory: 0.52 GiB total"
# for Qwen3-8B on one 24 GB GPU with the default 51 + 35 graphs (LMCache issue 3430, vLLM
# 0.21.0), 0.73 and 1.62 GiB on one GPU (vLLM PR 39559), 0.37 GiB with 35 + 19 graphs; 0.17 to
# 2.2 GiB per GPU with TP (noonghunna/club-3090 issue 127, vllm issue 50722). 0.6 GiB stated.
# The range logged: 0.13 GiB (two RTX 3090s, 5 graphs: noonghunna/club-3090 issue 104) to ~4.2
# GiB (a hybrid model on 0.26, vllm issue 50780, which traces it to a profiling transient).
CUDA_GRAPH_ESTIMATE_BYTES = round(0.6 * GiB)
CUDA_GRAPH_ESTIMATE_RANGE_GIB = (0.13, 4.2)
# The sampler's dummy run (gpu_model_runner._dummy_sampler_run): logits for
# min(max_num_seqs, max_num_batched_tokens) rows of the whole vocabulary, sampled with
# temperature 0.5, top_p 0.9 and top_k = V - 1, so top-k/top-p runs on every row. Bytes alive
# per logit at the sampler's peak:
#   "pytorch" (TopKTopPSampler.forward_native, apply_top_k_top_p): the lm_head's bf16 logits (2)
#     kept by the caller + their fp32 copy (4) + logits.sort(): sorted values (4) and int64
#     indices (8), and inside the sort an int64 index scratch (8) and CUB's alternate key and
#     value buffers (4 + 8) = 38;
#   "flashinfer" (forward_cuda -> flashinfer.sampling.top_k_top_p_sampling_from_logits): bf16
#     logits (2) + fp32 copy (4) + top-k masked logits (4) + softmax probabilities (4) = 14.
# Which one runs is the release's default (VLLM_USE_FLASHINFER_SAMPLER): on whenever flashinfer
# was importable until vLLM PR 26859 (15 Oct 2025, after v0.11.0) turned it off; on again by
# default since PR 40376 (April 2026). The log says "Using FlashInfer for top-p & top-k
# sampling" or "Falling back to the PyTorch-native implementation".
SAMPLER_BYTES_PER_LOGIT = {"pytorch": 38, "flashinfer": 14}
SAMPLERS = tuple(SAMPLER_BYTES_PER_LOGIT)
KV_CACHE_DTYPES = {"auto": None, "bf16": "bf16", "fp16": "fp16", "fp8": "fp8",
                   "fp8_e4m3": "fp8", "fp8_e5m2": "fp8"}


class VllmRelease(NamedTuple):
    """The budget terms of one vLLM release line, with the changes that set them."""
    version: str                      # "0.11", "0.31"
    label: str                        # what the plan prints
    default_utilization: float        # gpu_memory_utilization when not given
    sampler: str                      # the profiling run's default top-k/top-p sampler
    cuda_graph_in_budget: bool        # the CUDA-graph estimate is subtracted from the KV budget
    cuda_graph_bytes: int             # stated graph pool (in the budget or in the headroom)
    big_gpu_tier: bool                # GPUs reporting >= 160 GiB get 16,384 batched tokens
    sources: tuple                    # (what changed, where) pairs


VLLM_RELEASES = {
    "0.11": VllmRelease(
        "0.11", "vLLM 0.10/0.11 (V1 engine, August-October 2025)", 0.9, "pytorch", False,
        CUDA_GRAPH_BYTES, False,
        (("determine_available_memory: KV = utilization x total - weights - torch peak of the "
          "profiling run - non-torch increase", "vllm PR 19312 (June 2025, 0.9.2)"),
         ("FlashInfer sampler off by default", "https://github.com/vllm-project/vllm/pull/26859"),
         ("CUDA graphs captured after the KV cache, from the headroom",
          "vllm/v1/worker/gpu_worker.py compile_or_warm_up_model (0.10/0.11)"))),
    "0.31": VllmRelease(
        "0.31", "vLLM 0.31 (v0.31.0 of 5 October 2026, the newest release found)", 0.92,
        "flashinfer", True, CUDA_GRAPH_ESTIMATE_BYTES, True,
        (("default gpu_memory_utilization 0.9 -> 0.92",
          "https://github.com/vllm-project/vllm/pull/38284; vllm/config/cache.py at v0.30.0: "
          "gpu_memory_utilization: float = Field(default=0.92, gt=0, le=1)"),
         ("FlashInfer top-k/top-p sampler on by default again",
          "https://github.com/vllm-project/vllm/pull/40376"),
         ("CUDA-graph memory estimated during profiling and subtracted from the KV budget, "
          "default since v0.21.0", "https://github.com/vllm-project/vllm/pull/30515"),
         ("GPUs reporting >= 160 GiB default to 16,384 batched tokens for vllm serve too "
          "(v0.28.0)", "https://github.com/vllm-project/vllm/pull/51726"),
         ("the newest release found: v0.31.0, 5 October 2026",
          "https://github.com/vllm-project/vllm/releases/tag/v0.31.0"))),
}
VLLM_RELEASES["0.10"] = VLLM_RELEASES["0.11"]
CURRENT_VLLM = "0.31"
VLLM_VERSION = VLLM_RELEASES[CURRENT_VLLM].label
# the release lines the plan models: 0.10/0.11, and 0.21 (the CUDA-graph estimate in the
# budget) to 0.31; 0.12-0.20 changed the defaults piece by piece and are not modelled
_MODELLED = ("0.10", "0.11") + tuple(f"0.{m}" for m in range(21, 32))


def vllm_release(version=None):
    """The :class:`VllmRelease` whose budget :func:`vllm_plan` follows for ``version``
    (``"0.10"``, ``"0.11"``, or ``"0.21"`` to ``"0.31"``; None: :data:`CURRENT_VLLM`). A patch
    version (``"0.11.0"``, ``"v0.28.1"``) counts as its minor release. 0.21-0.27 budget as 0.31
    but give GPUs of >= 160 GiB vLLM's older 8,192 batched tokens."""
    if version is None:
        return VLLM_RELEASES[CURRENT_VLLM]
    if not isinstance(version, str):
        raise ConfigError(f"vllm_version: a release such as '0.11' or '0.31' (got {version!r})")
    parts = version.strip().lstrip("vV").split(".")
    key = ".".join(parts[:2])
    if key not in _MODELLED:
        raise ConfigError(f"vllm_version: the plan models 0.10/0.11 and 0.21-0.31, the newest "
                          f"release found (got {version!r})")
    if key in VLLM_RELEASES:
        return VLLM_RELEASES[key]
    cur = VLLM_RELEASES[CURRENT_VLLM]
    return cur._replace(version=key, label=f"vLLM {key} (budgeted as {cur.version})",
                        big_gpu_tier=int(parts[1]) >= 28)


def _whole(name, v, minimum=1):
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise ConfigError(f"{name}: must be a whole number >= {minimum} (got {v!r})")
    return v


USAGES = ("serve", "llm")


def vllm_defaults(gpu, usage="serve", vllm_version=None):
    """(max_num_seqs, max_num_batched_tokens) vLLM picks when they are not given
    (``EngineArgs.get_batch_defaults``): on GPUs reporting >= 70 GiB that are not A100s
    (H100, H200, MI300X, B200) 1024 sequences and 8192 tokens for ``vllm serve``
    (``usage="serve"``), 1024 and 16384 for the offline ``LLM`` class (``usage="llm"``);
    on the others 256 sequences and 2048 tokens (serve) or 8192 (LLM). Since v0.28.0 (vLLM
    PR 51726) GPUs reporting >= 160 GiB (B200, B300, MI300X, MI325X, MI355X) get 16384
    tokens for both. ``vllm_version``: as for :func:`vllm_release` (default: the current
    release)."""
    gpu = as_gpu(gpu)
    release = vllm_release(vllm_version)
    if usage not in USAGES:
        raise ConfigError(f"usage: 'serve' (vllm serve) or 'llm' (the LLM class) (got {usage!r})")
    if release.big_gpu_tier and gpu.reported_memory_bytes >= 160 * GiB:
        return 1024, 16384
    big = gpu.reported_memory_bytes >= 70 * GiB and "a100" not in gpu.name.lower()
    if big:
        return (1024, 8192) if usage == "serve" else (1024, 16384)
    return (256, 2048) if usage == "serve" else (256, 8192)


def check_parallelism(cfg, tensor_parallel_size=1, pipeline_parallel_size=1):
    """Raise vLLM's own complaint (as a one-line ConfigError naming the field) when the
    model cannot be split this way; return None when it can."""
    cfg = as_config(cfg)
    tp = _whole("tensor_parallel_size", tensor_parallel_size)
    pp = _whole("pipeline_parallel_size", pipeline_parallel_size)
    heads = cfg.num_attention_heads
    if heads % tp:
        raise ConfigError(f"tensor_parallel_size: Total number of attention heads ({heads}) "
                          f"must be divisible by tensor parallel size ({tp}).")
    if not cfg.uses_mla:
        kv = cfg.num_key_value_heads
        if tp < kv and kv % tp:
            raise ConfigError(f"tensor_parallel_size: {kv} KV heads must be divisible by the "
                              f"tensor parallel size ({tp}) when it is smaller")
        if tp >= kv and tp % kv:
            raise ConfigError(f"tensor_parallel_size: must be a multiple of the {kv} KV "
                              f"heads when it is larger (got {tp}): each GPU holds one")
    layers = cfg.num_hidden_layers
    if pp > layers:
        raise ConfigError(f"pipeline_parallel_size: at most num_hidden_layers ({layers}) "
                          f"stages (got {pp})")


def kv_heads_per_rank(cfg, tensor_parallel_size):
    """KV heads each GPU caches: ``num_key_value_heads / tp``, or 1 (a replica) when tp
    is at or above them. An MLA model caches its whole latent on every rank: returns
    None for it."""
    cfg = as_config(cfg)
    check_parallelism(cfg, tensor_parallel_size)
    if cfg.uses_mla:
        return None
    return max(1, cfg.num_key_value_heads // tensor_parallel_size)


def _stage_layers(cfg, pp):
    return math.ceil(cfg.num_hidden_layers / pp)   # the fullest stage (vLLM splits evenly)


def kv_bytes_per_token_per_gpu(cfg, tensor_parallel_size=1, pipeline_parallel_size=1,
                               kv_cache_dtype="bf16"):
    """Bytes one token takes in the KV cache of one GPU (the fullest pipeline stage):
    every attention layer of the stage, this rank's KV heads (replicated when tp >
    ``num_key_value_heads``), or the whole MLA latent."""
    cfg = as_config(cfg)
    check_parallelism(cfg, tensor_parallel_size, pipeline_parallel_size)
    per_token_all_layers = kv_cache_bytes(cfg, 1, 1, kv_cache_dtype)
    stage = _stage_layers(cfg, pipeline_parallel_size)
    layers = cfg.num_hidden_layers
    if cfg.uses_mla:
        share_num, share_den = 1, 1
    else:
        share_num, share_den = kv_heads_per_rank(cfg, tensor_parallel_size), \
            cfg.num_key_value_heads
    return per_token_all_layers * stage * share_num // (layers * share_den)


def weights_per_gpu(cfg, tensor_parallel_size=1, pipeline_parallel_size=1,
                    weights=AS_SHIPPED):
    """Bytes of weights one GPU loads: the stored weights split over tensor-parallel
    ranks (matrices and the vocab-parallel embedding and lm_head split; the RMSNorm
    weights, ``num_hidden_layers * 2 + 1`` vectors of ``hidden_size``, replicated),
    and the fullest pipeline stage's share of the layers; plus the rotary embedding's
    cos/sin cache vLLM keeps beside them (``max_position_embeddings x rotary dim`` in the
    model's 16-bit dtype, on every rank): vLLM's "Model loading took 14.9888 GiB" for
    Llama-3.1-8B is 8,030,261,248 x 2 bytes + 131,072 x 128 x 2 bytes, exactly.

    An mxfp4 checkpoint (gpt-oss) is loaded as vLLM's Marlin path lays it out on GPUs
    without FP4 tensor cores (``Mxfp4MoEMethod.create_weights``, 0.10/0.11): each rank's
    expert width padded to a multiple of 128 and the hidden size to a multiple of 256,
    values, e8m0 scales and bf16 biases alike (:func:`_mxfp4_padding_bytes`)."""
    cfg = as_config(cfg)
    check_parallelism(cfg, tensor_parallel_size, pipeline_parallel_size)
    sw = stored_weights(cfg, weights)
    total = sw.total
    norms = (2 * cfg.num_hidden_layers + 1) * cfg.hidden_size * 2
    split = (total - norms) // tensor_parallel_size + norms
    if sw.scheme.startswith("mxfp4"):
        split += _mxfp4_padding_bytes(cfg, tensor_parallel_size)
    stage = _stage_layers(cfg, pipeline_parallel_size)
    return split * stage // cfg.num_hidden_layers + rope_cache_bytes(cfg)


def _round_up(x, m):
    return -(-x // m) * m


def _mxfp4_padding_bytes(cfg, tensor_parallel_size):
    """Bytes vLLM's Marlin mxfp4 layout adds on one rank: ``w13`` (E, 2 I', H'/2) and ``w2``
    (E, H', I'/2) uint8 values, one uint8 scale per 32 values, bf16 biases (E, 2 I') and
    (E, H'), with I' = round_up(I / tp, 128) and H' = round_up(H, 256), less the same
    tensors unpadded."""
    e = cfg.get("num_local_experts") or cfg.get("num_experts") or 0
    if not e:
        return 0
    i = (cfg.get("moe_intermediate_size") or cfg.intermediate_size) // tensor_parallel_size
    h = cfg.hidden_size

    def layer(i_, h_):
        w13 = 2 * i_ * h_ // 2 + 2 * i_ * h_ // 32 + 2 * i_ * 2
        w2 = h_ * i_ // 2 + h_ * i_ // 32 + h_ * 2
        return e * (w13 + w2)
    # every layer of the mxfp4 checkpoints in the zoo (gpt-oss) is a MoE layer
    return cfg.num_hidden_layers * (layer(_round_up(i, 128), _round_up(h, 256)) - layer(i, h))


def rope_cache_bytes(cfg):
    """vLLM's rotary cos/sin cache: ``max_position_embeddings x rotary_dim x 2`` bytes
    (``rotary_dim`` = ``qk_rope_head_dim`` for MLA, else ``head_dim`` x
    ``partial_rotary_factor``); 0 without rotary positions (learned ``wpe``)."""
    cfg = as_config(cfg)
    mpe = cfg.get("max_position_embeddings") or 0
    if cfg.layout.position_embedding:   # learned positions (GPT-2's wpe): no rotary cache
        return 0
    if cfg.uses_mla:
        rot = cfg.qk_rope_head_dim
    else:
        rot = int(cfg.head_dim * (cfg.get("partial_rotary_factor") or 1))
    return mpe * rot * 2


class ProfilePeak(NamedTuple):
    """The two halves of vLLM's profiling run on one GPU, in bytes above what was allocated
    before it (weights, persistent buffers): their peaks do not add, the run's torch peak
    is the larger (:attr:`bytes`)."""
    forward: int       # the dummy forward over max_num_batched_tokens tokens
    sampler: int       # the dummy sampler run, plus the hidden states kept alive across it
    sampler_rows: int  # min(max_num_seqs, max_num_batched_tokens)
    sampler_name: str

    @property
    def bytes(self):
        return max(self.forward, self.sampler)

    @property
    def bound_by(self):
        return "sampler" if self.sampler >= self.forward else "forward"


def profile_peak(cfg, max_num_batched_tokens, max_num_seqs, tensor_parallel_size=1,
                 sampler="pytorch"):
    """ESTIMATE of the torch peak of vLLM's profiling run on one GPU
    (``GPUModelRunner.profile_run``, 0.10/0.11), as its two steps allocate it:

    * ``_dummy_run(max_num_batched_tokens)``: T tokens through the model. Alive at the MLP
      of a dense layer: the gate/up output (2 d_ff/tp), its activation (d_ff/tp) and about
      four d-wide tensors (hidden state, residual, normed input, output), bf16:
      ``T x 2 x (3 d_ff/tp + 4 d)``. A MoE layer's fused-MoE workspaces instead:
      ``T x k x (max(2 n, d) + n)`` values (``workspace13``, ``workspace2``, n = expert
      width per rank, k = experts per token) plus the same four d-wide tensors.
    * ``_dummy_sampler_run``: logits for ``min(max_num_seqs, T)`` rows of the whole
      vocabulary on every rank (vLLM all-gathers them), sampled with top-k and top-p:
      :data:`SAMPLER_BYTES_PER_LOGIT` bytes per logit (``sampler`` = ``"pytorch"`` or
      ``"flashinfer"``), while the forward's T x d hidden states and the rows' hidden states
      (and a random copy of them) are still alive.

    The forward's activations are freed before the sampler runs, so the peak is the larger
    of the two. With vLLM's defaults the sampler is the larger for every model in the zoo but
    Mixtral-8x7B, whose vocabulary is 32,000 (1024 rows x 151,936 logits x 38 B = 5.5 GiB
    for Qwen3 on an H100)."""
    cfg = as_config(cfg)
    t = _whole("max_num_batched_tokens", max_num_batched_tokens)
    s = _whole("max_num_seqs", max_num_seqs)
    tp = _whole("tensor_parallel_size", tensor_parallel_size)
    if sampler not in SAMPLER_BYTES_PER_LOGIT:
        raise ConfigError(f"sampler: one of {', '.join(SAMPLERS)} (got {sampler!r})")
    d = cfg.hidden_size
    if cfg.is_moe:
        n = (cfg.get("moe_intermediate_size") or cfg.intermediate_size) // tp
        k = cfg.num_experts_per_tok
        forward = t * 2 * (k * (max(2 * n, d) + n) + 4 * d)
    else:
        d_ff = cfg.get("intermediate_size") or 4 * d
        forward = t * 2 * (3 * d_ff // tp + 4 * d)
    rows = min(s, t)
    samp = rows * cfg.vocab_size * SAMPLER_BYTES_PER_LOGIT[sampler] + t * d * 2 + 2 * rows * d * 2
    return ProfilePeak(forward, samp, rows, sampler)


def activation_peak_bytes(cfg, max_num_batched_tokens, max_num_seqs,
                          tensor_parallel_size=1, sampler="pytorch"):
    """ESTIMATE of the torch peak of vLLM's profiling run on one GPU: the larger of the
    dummy forward and the dummy sampler run (:func:`profile_peak`)."""
    return profile_peak(cfg, max_num_batched_tokens, max_num_seqs, tensor_parallel_size,
                        sampler).bytes


def allreduce_seconds(gpu, nbytes, tensor_parallel_size):
    """Ring all-reduce of ``nbytes`` over ``tp`` GPUs: each sends and receives
    ``2 (tp - 1) / tp x nbytes`` over the link (:attr:`GPU.interconnect_bytes_per_s`,
    both directions, so half of it each way). A lower bound (no latency term)."""
    gpu = as_gpu(gpu)
    tp = _whole("tensor_parallel_size", tensor_parallel_size)
    if tp == 1:
        return 0.0
    bw = gpu.interconnect_bytes_per_s
    if not bw:
        raise ConfigError(f"gpu: {gpu.name!r} has no interconnect_bytes_per_s in the table")
    return 2 * (tp - 1) / tp * nbytes / (bw / 2)


class NonTorchRange(NamedTuple):
    """Non-torch memory per GPU (NCCL, cuBLAS, custom all-reduce buffers) as published vLLM
    logs show it for a tensor-parallel size: ``typical`` is the figure the plan uses,
    ``low``/``high`` the spread of the logged launches (bytes), ``logged`` the (gpu, tp,
    GiB, source) rows they come from."""
    tensor_parallel_size: int
    low: int
    typical: int
    high: int
    logged: tuple

    def __repr__(self):
        return (f"NonTorchRange(TP={self.tensor_parallel_size}: ~{self.typical / GiB:.2f} GiB, "
                f"logged {self.low / GiB:.2f}-{self.high / GiB:.2f} GiB over "
                f"{len(self.logged)} launches)")


def non_torch_range(tensor_parallel_size=1, gpu=None):
    """The non-torch memory of one GPU as the published logs of ``vllm_logs.json`` show it
    (their ``non_torch_gib``, and the extra observations it keeps with their sources), for one
    GPU (``tensor_parallel_size`` 1) or with TP (> 1): a STATED range, not a derivation. The
    figure a plan uses is ``typical`` (0.13 GiB alone, 0.55 GiB with TP: the H100 logs); alone
    the logs run from 0.07 GiB (a B200) to 0.14 GiB; with TP from 0.21 GiB (8 x L40S without
    custom all-reduce) to 1.38 GiB (2 x H200). ``gpu`` narrows the logged rows to that
    accelerator when it has any."""
    tp = _whole("tensor_parallel_size", tensor_parallel_size)
    rows = []
    for r in _log_file().get("non_torch_observations", []) + vllm_logs():
        nt = (r.get("logged") or {}).get("non_torch_gib", r.get("non_torch_gib"))
        if nt is None or not r.get("gpu") or r.get("tensor_parallel_size") is None:
            continue
        if (r["tensor_parallel_size"] > 1) != (tp > 1):
            continue
        rows.append((r["gpu"], r["tensor_parallel_size"], nt, r.get("source", "")))
    if gpu is not None:
        name = as_gpu(gpu).name
        mine = [r for r in rows if r[0] == name]
        rows = mine or rows
    typical = NON_TORCH_BYTES if tp == 1 else NON_TORCH_BYTES_TP
    gib = [r[2] for r in rows] or [typical / GiB]
    return NonTorchRange(tp, round(min(gib) * GiB), typical, round(max(gib) * GiB),
                         tuple(sorted(rows)))


class VllmPlan(NamedTuple):
    """vLLM's budget on one GPU (the fullest one), in bytes, under one release's accounting
    (``vllm_version``)."""
    model: str
    gpu: str
    tensor_parallel_size: int
    pipeline_parallel_size: int
    gpu_memory_utilization: float
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    kv_cache_dtype: str
    block_size: int
    total_bytes: int            # what the runtime reports (the datasheet's if unknown)
    requested_bytes: int        # utilization x total
    weight_bytes: int           # as loaded on this GPU
    activation_bytes: int       # profiling run's torch peak (estimate unless given)
    non_torch_bytes: int        # stated unless given
    cuda_graph_bytes: int       # stated unless given; in the budget from 0.21, else headroom
    kv_bytes_per_token: int     # on this GPU, all its attention layers
    reason: str                 # "" when it starts; else vLLM's message
    sampler: str = "pytorch"    # which top-k/top-p sampler the profiling run used
    usage: str = "serve"        # "serve" (vllm serve) or "llm" (the offline LLM class)
    kv_bytes_needed: int = 0    # one request of max_model_len on this GPU (vLLM's check)
    vllm_version: str = "0.11"  # the release whose accounting this is
    cuda_graph_in_budget: bool = False
    memory_caveat: str = ""     # "datasheet capacity, runtime unknown" when it is
    non_torch_range: tuple = () # (low, high) bytes the logs show for this TP size

    @property
    def kv_budget_bytes(self):
        """Available KV cache memory (vLLM's log line), may be negative."""
        graphs = self.cuda_graph_bytes if self.cuda_graph_in_budget else 0
        return self.requested_bytes - self.weight_bytes - self.activation_bytes \
            - self.non_torch_bytes - graphs

    @property
    def num_blocks(self):
        return max(0, self.kv_budget_bytes // (self.kv_bytes_per_token * self.block_size))

    @property
    def kv_tokens(self):
        """GPU KV cache size: N tokens (whole blocks)."""
        return self.num_blocks * self.block_size

    def _tokens_at(self, non_torch):
        budget = self.kv_budget_bytes + self.non_torch_bytes - non_torch
        return max(0, budget // (self.kv_bytes_per_token * self.block_size)) * self.block_size

    @property
    def kv_tokens_range(self):
        """(fewest, most) KV tokens when non-torch memory takes the (high, low) end of what
        the logs show for this TP size: how much the answer moves with that stated term."""
        if not self.non_torch_range:
            return self.kv_tokens, self.kv_tokens
        low, high = self.non_torch_range
        return self._tokens_at(high), self._tokens_at(low)

    @property
    def max_concurrency(self):
        """Maximum concurrency for max_model_len tokens per request (vLLM's "x")."""
        return self.kv_tokens / self.max_model_len

    @property
    def starts(self):
        return not self.reason

    @property
    def release(self):
        """The :class:`VllmRelease` whose accounting this plan follows."""
        return vllm_release(self.vllm_version)

    @property
    def equivalent_utilization(self):
        """The utilization that would give the same KV budget without the CUDA-graph estimate,
        as the current release logs it ("The current --gpu-memory-utilization=0.9200 is
        equivalent to --gpu-memory-utilization=0.9129 without CUDA graph memory profiling"):
        utilization - graphs / total. None when the release does not subtract graphs."""
        if not self.cuda_graph_in_budget:
            return None
        return self.gpu_memory_utilization - self.cuda_graph_bytes / self.total_bytes

    def terms(self):
        """The budget term by term (name, bytes, how it is known), as the lesson lists it."""
        out = [("total the runtime reports", self.total_bytes,
                self.memory_caveat or "reported by the runtime (sourced)"),
               (f"requested = {self.gpu_memory_utilization} x total", self.requested_bytes,
                "exact"),
               ("weights as loaded", -self.weight_bytes, "exact"),
               (f"profiling peak ({self.sampler} sampler)", -self.activation_bytes, "estimate"),
               ("non-torch memory", -self.non_torch_bytes, "stated")]
        if self.cuda_graph_in_budget:
            out.append(("CUDA-graph estimate", -self.cuda_graph_bytes, "stated"))
        out.append(("KV cache", self.kv_budget_bytes, f"{self.kv_tokens:,} tokens"))
        return out

    def __repr__(self):
        g = GiB
        caveat = f" [{self.memory_caveat}]" if self.memory_caveat else ""
        graphs = (f", CUDA graphs ~{self.cuda_graph_bytes / g:.2f} GiB"
                  if self.cuda_graph_in_budget else "")
        head = (f"VllmPlan(vLLM {self.vllm_version}: {self.model} on {self.gpu}, TP="
                f"{self.tensor_parallel_size}, PP={self.pipeline_parallel_size}: "
                f"{self.gpu_memory_utilization} x {self.total_bytes / g:.2f} GiB{caveat} = "
                f"{self.requested_bytes / g:.2f} GiB; weights {self.weight_bytes / g:.2f} GiB, "
                f"activations ~{self.activation_bytes / g:.2f} GiB, non-torch "
                f"~{self.non_torch_bytes / g:.2f} GiB{graphs}; KV "
                f"{self.kv_budget_bytes / g:.2f} GiB = {self.kv_tokens:,} tokens")
        if self.starts:
            return head + f", {self.max_concurrency:.2f}x at {self.max_model_len:,} tokens)"
        return head + f": would not start: {self.reason})"


def kv_bytes_needed(cfg, max_model_len, max_num_batched_tokens, tensor_parallel_size=1,
                    pipeline_parallel_size=1, kv_cache_dtype="bf16", block_size=BLOCK_SIZE):
    """Bytes of KV cache one request of ``max_model_len`` tokens needs on this GPU, as
    vLLM's ``check_enough_kv_cache_memory`` adds them up (``KVCacheSpec.
    max_memory_usage_bytes``, 0.10/0.11): ``cdiv(max_model_len, block_size)`` blocks in a
    full-attention layer; ``cdiv(min(sliding_window - 1 + max_num_batched_tokens,
    max_model_len), block_size) + 1`` blocks in a sliding-window layer;
    ``cdiv(min(attention_chunk_size + max_num_batched_tokens, max_model_len), block_size)``
    in a chunked-local one; per GPU as :func:`kv_bytes_per_token_per_gpu` shares them."""
    cfg = as_config(cfg)
    mml = _whole("max_model_len", max_model_len)
    t = _whole("max_num_batched_tokens", max_num_batched_tokens)
    blk = _whole("block_size", block_size)
    check_parallelism(cfg, tensor_parallel_size, pipeline_parallel_size)
    from .counts import dtype_bits, indexer_cache_bytes_per_token, kv_values_per_token
    full_tokens = -(-mml // blk) * blk
    values = 0   # per layer kind: its values per token (its own heads; 0 when KV-shared)
    for kind, count in cfg.layer_schedule.counts().items():
        per_token = kv_values_per_token(cfg, kind)
        if kind.attention == "sliding_attention":
            w = min(cfg.sliding_window - 1 + t, mml)
            tokens = (-(-w // blk) + 1) * blk
        elif kind.attention == "chunked_attention":
            tokens = -(-min(cfg.attention_chunk_size + t, mml) // blk) * blk
        else:
            tokens = full_tokens
        values += count * per_token * tokens
    whole = (int(values * dtype_bits(kv_cache_dtype) / 8)
             + indexer_cache_bytes_per_token(cfg, kv_cache_dtype) * full_tokens)
    stage = _stage_layers(cfg, pipeline_parallel_size)
    if cfg.uses_mla:
        num, den = 1, 1
    else:
        num, den = kv_heads_per_rank(cfg, tensor_parallel_size), cfg.num_key_value_heads
    return whole * stage * num // (cfg.num_hidden_layers * den)


def vllm_plan(cfg, gpu, tensor_parallel_size=1, pipeline_parallel_size=1,
              gpu_memory_utilization=None, max_model_len=None, max_num_seqs=None,
              max_num_batched_tokens=None, kv_cache_dtype="auto", block_size=BLOCK_SIZE,
              weights=AS_SHIPPED, activation_bytes=None, non_torch_bytes=None,
              weight_bytes=None, usage="serve", sampler=None, vllm_version=None,
              cuda_graph_bytes=None):
    """The plan vLLM makes at startup on the fullest GPU of the group, as the release
    ``vllm_version`` budgets it (default :data:`CURRENT_VLLM`, "0.31"; "0.10"/"0.11" for the
    2025 accounting; see :func:`vllm_release`). The plan's ``vllm_version`` says which.

    ``gpu_memory_utilization`` defaults to the release's (0.92 since vLLM PR 38284, 0.9
    before). ``max_model_len`` defaults to the model's ``max_position_embeddings`` (as
    vLLM's does); ``max_num_seqs`` and ``max_num_batched_tokens`` to :func:`vllm_defaults`
    for ``usage`` (``"serve"``: ``vllm serve``; ``"llm"``: the offline ``LLM`` class).
    ``kv_cache_dtype``: ``"auto"`` (the model's dtype) or ``"fp8"`` -- vLLM's cache dtypes
    are fp8 only (int8/int4 caches exist in other engines). ``sampler``: the top-k/top-p
    sampler of the profiling run, ``"pytorch"`` or ``"flashinfer"``
    (:data:`SAMPLER_BYTES_PER_LOGIT`; default: the release's). ``activation_bytes``,
    ``non_torch_bytes``, ``weight_bytes``, ``cuda_graph_bytes``: pass a log's figures to
    replace the estimate and the stated figures.

    A GPU whose runtime total is not in the table is planned on its datasheet capacity and
    the plan says so (``memory_caveat``: "datasheet capacity, runtime unknown").
    """
    cfg = as_config(cfg)
    gpu = as_gpu(gpu)
    release = vllm_release(vllm_version)
    check_parallelism(cfg, tensor_parallel_size, pipeline_parallel_size)
    u = release.default_utilization if gpu_memory_utilization is None else \
        gpu_memory_utilization
    if isinstance(u, bool) or not isinstance(u, (int, float)) or not 0 < u <= 1:
        raise ConfigError(f"gpu_memory_utilization: must be a fraction in (0, 1] (got {u!r})")
    key = str(kv_cache_dtype).lower()
    if key not in KV_CACHE_DTYPES:
        raise ConfigError(f"kv_cache_dtype: vLLM offers {', '.join(KV_CACHE_DTYPES)} "
                          f"(got {kv_cache_dtype!r}; int8/int4 caches exist in other engines)")
    sampler = release.sampler if sampler is None else sampler
    if sampler not in SAMPLER_BYTES_PER_LOGIT:
        raise ConfigError(f"sampler: one of {', '.join(SAMPLERS)} (got {sampler!r})")
    kv_dtype = KV_CACHE_DTYPES[key] or ("fp16" if str(cfg.get("torch_dtype") or
                                                      cfg.get("dtype") or "") in
                                        ("float16", "torch.float16") else "bf16")
    _whole("block_size", block_size)
    mpe = cfg.get("max_position_embeddings")
    if max_model_len is None:
        max_model_len = mpe
    _whole("max_model_len", max_model_len)
    if mpe and max_model_len > mpe:
        raise ConfigError(f"max_model_len: User-specified max_model_len ({max_model_len}) is "
                          f"greater than the derived max_model_len (max_position_embeddings="
                          f"{mpe} in model's config.json).")
    seqs, batched = vllm_defaults(gpu, usage, release.version)
    max_num_seqs = seqs if max_num_seqs is None else _whole("max_num_seqs", max_num_seqs)
    max_num_batched_tokens = (batched if max_num_batched_tokens is None else
                              _whole("max_num_batched_tokens", max_num_batched_tokens))
    tp, pp = tensor_parallel_size, pipeline_parallel_size
    total = gpu.reported_memory_bytes
    # 0.10/0.11 multiply the float total by the utilization and truncate; the current
    # release rounds the request up (request_memory: math.ceil(total * utilization))
    requested = math.ceil(u * total) if release.cuda_graph_in_budget else math.floor(u * total)
    w = weights_per_gpu(cfg, tp, pp, weights) if weight_bytes is None else \
        _whole("weight_bytes", weight_bytes)
    act = activation_peak_bytes(cfg, max_num_batched_tokens, max_num_seqs, tp, sampler) \
        if activation_bytes is None else _whole("activation_bytes", activation_bytes, 0)
    nt = (NON_TORCH_BYTES if tp * pp == 1 else NON_TORCH_BYTES_TP) \
        if non_torch_bytes is None else _whole("non_torch_bytes", non_torch_bytes, 0)
    graphs = release.cuda_graph_bytes if cuda_graph_bytes is None else \
        _whole("cuda_graph_bytes", cuda_graph_bytes, 0)
    spread = non_torch_range(tp * pp, gpu)
    per_token = kv_bytes_per_token_per_gpu(cfg, tp, pp, kv_dtype)

    def needed(mml):
        return kv_bytes_needed(cfg, mml, max_num_batched_tokens, tp, pp, kv_dtype, block_size)
    need = needed(max_model_len)
    plan = VllmPlan(cfg.name, gpu.name, tp, pp, u, max_model_len, max_num_seqs,
                    max_num_batched_tokens, kv_dtype, block_size, total, requested, w, act,
                    nt, graphs, per_token, "", sampler, usage, need, release.version,
                    release.cuda_graph_in_budget, gpu.memory_caveat,
                    (min(spread.low, nt), max(spread.high, nt)))
    if plan.kv_budget_bytes <= 0 or plan.num_blocks == 0:
        return plan._replace(reason="No available memory for the cache blocks. Try "
                                    "increasing `gpu_memory_utilization` when initializing "
                                    "the engine.")
    if need > plan.kv_budget_bytes:
        lo, hi = 0, max_model_len      # vLLM's estimate: the longest length that fits
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if needed(mid) <= plan.kv_budget_bytes else (lo, mid - 1)
        return plan._replace(reason=(
            f"To serve at least one request with the models's max seq len ({max_model_len}), "
            f"({need / GiB:.2f} GiB KV cache is needed, which is larger than the available KV "
            f"cache memory ({plan.kv_budget_bytes / GiB:.2f} GiB). Based on the available "
            f"memory, the estimated maximum model length is {lo}. Try increasing "
            f"`gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
            f"engine."))
    return plan


class BudgetChange(NamedTuple):
    """One step from the 0.10/0.11 budget to the current release's (:func:`vllm_changes`)."""
    what: str
    source: str
    plan: VllmPlan

    @property
    def kv_budget_bytes(self):
        return self.plan.kv_budget_bytes

    @property
    def kv_tokens(self):
        return self.plan.kv_tokens


def vllm_changes(cfg, gpu, **settings):
    """What changed between vLLM 0.10/0.11 and the current release, one term at a time, for
    one launch (``settings``: :func:`vllm_plan`'s, except ``vllm_version``, ``sampler`` and
    ``gpu_memory_utilization``, which the steps set): a list of :class:`BudgetChange`, each
    with the plan after that change and the PR that made it. The first is the 0.10/0.11
    plan, the last the current release's. Llama-3.1-8B on one H100 at max_model_len 16,000:
    51.42 GiB (421,200 tokens) under 0.11; 53.00 GiB (434,176) with the default utilization
    0.92 (PR 38284); 55.94 GiB (458,224) with FlashInfer's sampler (PR 40376: its profiling
    peak is 1.79 GiB, not 4.73); 55.34 GiB = 453,312 tokens with the 0.6 GiB CUDA-graph
    estimate subtracted (PR 30515)."""
    for k in ("vllm_version", "sampler", "gpu_memory_utilization"):
        if k in settings:
            raise ConfigError(f"{k}: vllm_changes sets it at each step; plan one release with "
                              f"vllm_plan(..., {k}=...) instead")
    old, cur = VLLM_RELEASES["0.11"], VLLM_RELEASES[CURRENT_VLLM]
    src = dict((what.split(" ")[0], where) for what, where in cur.sources)
    steps = [(f"vLLM 0.10/0.11: utilization {old.default_utilization}, {old.sampler} sampler, "
              f"CUDA graphs from the headroom", "the 0.11 accounting",
              dict(vllm_version="0.11")),
             (f"default gpu_memory_utilization {old.default_utilization} -> "
              f"{cur.default_utilization}", src["default"],
              dict(vllm_version="0.11", gpu_memory_utilization=cur.default_utilization)),
             ("FlashInfer's top-k/top-p sampler on by default (14 B per logit, not 38)",
              src["FlashInfer"], dict(vllm_version="0.11",
                                      gpu_memory_utilization=cur.default_utilization,
                                      sampler="flashinfer")),
             ("the CUDA-graph estimate subtracted from the KV budget (default since v0.21.0)",
              src["CUDA-graph"], dict(vllm_version="0.27"))]
    out = [BudgetChange(w, s, vllm_plan(cfg, gpu, **settings, **kw)) for w, s, kw in steps]
    last = vllm_plan(cfg, gpu, **settings)
    if last.max_num_batched_tokens != out[-1].plan.max_num_batched_tokens:
        out.append(BudgetChange("GPUs of >= 160 GiB: 16,384 batched tokens for vllm serve "
                                "(v0.28.0)", src["GPUs"], last))
    return out


VLLM_LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "vllm_logs.json")
_LOG_SETTINGS = ("tensor_parallel_size", "pipeline_parallel_size", "gpu_memory_utilization",
                 "max_model_len", "max_num_seqs", "max_num_batched_tokens", "kv_cache_dtype",
                 "block_size", "weights", "usage", "sampler")
_LOGS = {}


def _log_file():
    if not _LOGS:
        with open(VLLM_LOGS, encoding="utf-8") as fh:
            _LOGS.update(json.load(fh))
    return _LOGS


def vllm_logs(usable=None):
    """The published vLLM startup logs of ``llmcourse/data/vllm_logs.json`` (a list of
    dicts: launch settings, quoted lines, logged figures, source, and ``budget_release``: the
    release whose accounting the row is checked against). ``usable=True``: only the rows the
    plan can be checked on; ``False``: only the excluded ones, with ``excluded_reason``."""
    rows = [dict(r) for r in _log_file()["launches"]]
    if usable is None:
        return rows
    return [r for r in rows if bool(r.get("usable")) == bool(usable)]


def log_configs():
    """The configs of the logged checkpoints outside the zoo, as the data file carries them
    (``configs``: ``{"fixture:FILE": Config}``), so every usable row can be planned offline."""
    from .config import from_hf_config
    if "_configs" not in _LOGS:
        _LOGS["_configs"] = {
            name: from_hf_config(entry["config"], name=name.split(":", 1)[1].rsplit(".", 1)[0])
            for name, entry in _log_file().get("configs", {}).items()}
    return dict(_LOGS["_configs"])


def log_plan(row, cfg=None):
    """:func:`vllm_plan` for one row of :func:`vllm_logs` (its model, GPU and launch
    settings, under the accounting of the release it ran: ``budget_release``). A row naming
    a checkpoint outside the zoo (``"fixture:..."``) is planned on the config the data file
    carries (:func:`log_configs`) unless ``cfg`` is given."""
    if not isinstance(row, dict):
        raise ConfigError(f"row: a launch from vllm_logs() (got {type(row).__name__})")
    if not row.get("usable"):
        raise ConfigError(f"usable: row {row.get('id')!r} cannot be checked: "
                          f"{row.get('excluded_reason', 'no reason given')}")
    name = row.get("config")
    if cfg is None:
        if not isinstance(name, str):
            raise ConfigError(f"config: row {row.get('id')!r} names no config (got {name!r})")
        if name.startswith("fixture:"):
            carried = log_configs()
            if name not in carried:
                raise ConfigError(f"config: row {row.get('id')!r} needs the config {name!r}, "
                                  f"which the data file does not carry; pass cfg=")
            cfg = carried[name]
        else:
            cfg = name
    kw = {k: row[k] for k in _LOG_SETTINGS if row.get(k) is not None}
    kw["vllm_version"] = row.get("budget_release") or "0.11"
    return vllm_plan(cfg, row["gpu"], **kw)


class GpuDecodeBound(NamedTuple):
    """A lower bound on one decode step with tensor parallelism, per GPU: the bytes one
    GPU reads over its own bandwidth (or its FLOPs over its peak), plus two ring
    all-reduces of the hidden states per layer over the interconnect."""
    model: str
    gpu: str
    tensor_parallel_size: int
    batch: int
    seq_len: int
    weight_bytes_read: float      # on one GPU
    kv_bytes: float               # on one GPU (replicated KV heads / whole MLA latent)
    t_memory: float
    t_compute: float
    t_allreduce: float            # 2 x num_hidden_layers all-reduces

    @property
    def seconds(self):
        return max(self.t_memory, self.t_compute) + self.t_allreduce

    @property
    def tokens_per_s_per_user(self):
        return 1 / self.seconds


def decode_step_per_gpu(cfg, gpu, tensor_parallel_size=1, weights=AS_SHIPPED,
                        kv_cache_dtype="bf16", seq_len=4096, batch=1):
    """The decode bound of :func:`llmcourse.decode_step_time`, per GPU: each of ``tp``
    GPUs reads its shard of the weights (the replicated norms are a few KB, left to
    the split) and its own KV cache (a KV head replicated when ``tp`` exceeds
    ``num_key_value_heads``, the whole MLA latent on every GPU), over its own
    bandwidth; then the two all-reduces per layer (after attention and after the MLP)
    of ``batch x hidden_size`` bf16 values. A bound: no kernel or NCCL latency."""
    from .inference import decode_step_time
    cfg = as_config(cfg)
    gpu = as_gpu(gpu)
    check_parallelism(cfg, tensor_parallel_size)
    tp = tensor_parallel_size
    whole = decode_step_time(cfg, gpu, 1, weights, kv_cache_dtype, seq_len, batch)
    if cfg.uses_mla:
        kv = whole.kv_bytes
    else:
        kv = whole.kv_bytes * kv_heads_per_rank(cfg, tp) / cfg.num_key_value_heads
    w = whole.weight_bytes_read / tp
    t_mem = (w + kv) / gpu.bandwidth_bytes_per_s
    t_cmp = whole.flops / tp / whole.peak
    t_ar = 2 * cfg.num_hidden_layers * allreduce_seconds(gpu, batch * cfg.hidden_size * 2, tp) \
        if tp > 1 else 0.0
    return GpuDecodeBound(cfg.name, gpu.name, tp, batch, seq_len, w, kv, t_mem, t_cmp, t_ar)


# --- expected decode speed: a fitted estimate with a band (llmcourse/decode_speed.py) -------
# imported at the end: decode_speed uses decode_step_per_gpu above
from .decode_speed import (DECODE_SPEEDS, ENGINE_FAMILIES, ExpectedDecode,  # noqa: E402
                           decode_speeds, expected_decode_speed, typical_decode_efficiency)
