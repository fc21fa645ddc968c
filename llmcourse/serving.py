"""Will it start? The KV-cache budget as vLLM's V1 engine computes it, per GPU, by release.

The idealised plan (:func:`llmcourse.memory_plan`: weights + KV <= a fraction of the datasheet
capacity, all GPUs one pool) is the first, derivable step. This module is the second: what the
engine does when it is launched (``vllm/v1/worker/gpu_worker.py: determine_available_memory``,
``vllm/v1/core/kv_cache_utils.py``, ``vllm/engine/arg_utils.py``). Its accounting changed
between releases, so the plan takes a ``vllm_version``, any minor release from ``"0.10"`` to
``"0.31"`` (the default, :data:`CURRENT_VLLM`: v0.31.0 of 5 October 2026, the newest release
found); :data:`RELEASE_CHANGES` holds each change with the first release that has it and the
pull request that made it, and :func:`vllm_changes` walks them for one launch.

1. requested = ``gpu_memory_utilization`` x the total the GPU runtime reports
   (:attr:`GPU.reported_memory_bytes`: 79.18 GiB on an H100 80GB, not 80 GB); the default
   utilization is 0.9 up to 0.20 and 0.92 from 0.21 (vLLM PR 38284); on a unified-memory
   device (DGX Spark) vLLM refuses to start when less than that is free at boot;
2. minus the weights as loaded on this GPU (its tensor-parallel shard, its pipeline stage);
3. minus the peak activation of the profiling run (``gpu_model_runner.profile_run``: a
   dummy forward over ``max_num_batched_tokens`` tokens, then a dummy sampler run over
   ``min(max_num_seqs, max_num_batched_tokens)`` rows of full-vocabulary logits; the torch
   peak is the larger of the two) -- an ESTIMATE here (:func:`activation_peak_bytes`). The
   sampler's bytes per logit depend on the release: 38 with PyTorch's sort (up to 0.20, once
   PR 26859 turned FlashInfer's sampler off by default), 14 with FlashInfer's, on again by
   default from 0.21 (PR 40376);
4. minus non-torch memory (cuBLAS/NCCL buffers created after vLLM's first snapshot): a
   STATED figure from published logs (:func:`non_torch_range`: 0.13 GiB on one GPU, 0.55
   GiB with TP; logged 0.07-0.14 GiB on one GPU, 0.21-1.38 GiB with TP; on ROCm 2.88 GiB,
   from one launch: :data:`NON_TORCH_BYTES_ROCM`);
5. minus, from 0.20 on the V1 model runner, vLLM's own estimate of the CUDA-graph pool
   (``profile_cudagraph_memory``, PR 30515; "default since v0.21.0", the log says, but the
   v0.20.0 logs already subtract it): an
   ESTIMATE here from the model and its capture sizes (:func:`cuda_graph_estimate`; logged
   0.13-4.2 GiB). Model Runner V2, the default for dense models from 0.22-0.26, returns 0
   for it (issue 49224); up to 0.19 the graphs are captured after the KV cache is allocated
   and come out of the ``1 - utilization`` headroom;
6. what is left is the KV cache, laid out in vLLM's groups (:mod:`llmcourse.vllm_kv`): pages of
   ``block_size`` tokens for attention layers, one padded page of state per request for Mamba
   and DeltaNet layers; a sliding-window group needs only its window per request. The engine
   refuses to start when no block fits or when one request of ``max_model_len`` tokens does
   not fit, with the messages in :func:`vllm_plan`'s ``reason``.

Tensor parallelism (vLLM's rules): the tensor-parallel size must divide
``num_attention_heads``; when it is below ``num_key_value_heads`` it must divide them
too, and when it is at or above them it must be a multiple of them, and each GPU holds
one (replicated) KV head. An MLA latent (DeepSeek) has no heads to split: every rank
caches the whole latent.

Llama-3.1-8B on one H100 at max_model_len 16,000: 0.11 plans 0.9 x 79.18 - 14.99 - 4.73 -
0.13 = 51.42 GiB = 421,200 KV tokens; 0.21 plans 0.92 x 79.18 - 14.99 - 1.79 - 0.13 - 0.55
(graphs) = 55.39 GiB = 453,712; from 0.23 Llama runs on Model Runner V2 and the graphs leave
the budget: 55.94 GiB = 458,224 tokens.

Exact here: the arithmetic of steps 1, 2, 6 and the parallelism rules. Estimated: the
activation peak and the CUDA-graph pool. Stated: non-torch memory. Checked against published
startup logs in ``llmcourse/data/vllm_logs.json`` (:func:`vllm_logs`; tests/test_vllm_logs.py);
a reader's own log is read and explained by :mod:`llmcourse.vllm_log`.
"""

from __future__ import annotations

import json
import math
import os
from typing import NamedTuple

from .config import ConfigError
from .counts import kv_cache_bytes
from .hardware import as_gpu
from .layers import STATE_AND_KV_KINDS, STATE_KINDS
from .quantization import AS_SHIPPED, stored_weights
from .zoo import as_config

__all__ = ["VLLM_VERSION", "CURRENT_VLLM", "FIRST_VLLM", "VLLM_RELEASES", "VllmRelease",
           "vllm_release", "RELEASE_CHANGES", "cuda_graph_capture_sizes", "CudaGraphEstimate",
           "cuda_graph_estimate", "CUDA_GRAPH_BYTES_PER_LAYER_GRAPH", "PLATFORMS",
           "BLOCK_SIZE", "NON_TORCH_BYTES", "NON_TORCH_BYTES_TP", "NonTorchRange",
           "non_torch_range", "CUDA_GRAPH_BYTES", "CUDA_GRAPH_ESTIMATE_BYTES",
           "NON_TORCH_BYTES_ROCM", "TOWER_MODALITIES", "towers_loaded",
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
# Stated, from one published ROCm launch (gemma-4-E2B on one MI300X virtual function, a ROCm
# nightly of vLLM 0.29.1rc1, row "mi300x-vf-gemma-4-e2b-rocm-v0.29.1" of vllm_logs.json): "11.88
# GiB for consumed memory (weights + non-torch)" less the 9.00 GiB of weights vLLM loads (the
# vision tower in, the audio tower out at --limit-mm-per-prompt audio 0) = 2.88 GiB, twenty
# times CUDA's 0.13. An older ROCm launch (0.9.2, TP=2, candidate-23) leaves about 1.9 GiB per
# GPU for it beside the plan's profiling estimate. One figure, not fitted per launch.
NON_TORCH_BYTES_ROCM = round(2.88 * GiB)
# Stated: "Graph capturing finished in N secs, took 0.3-0.9 GiB" in published 0.10/0.11 logs;
# captured after the KV cache is allocated, from the headroom (not from the KV budget).
CUDA_GRAPH_BYTES = round(0.5 * GiB)
# Kept for older notebooks: the single stated figure the plan used for vLLM's CUDA-graph
# estimate before cuda_graph_estimate(). vLLM's own estimate, subtracted from the KV budget since
# v0.21 ("CUDA graph memory profiling is enabled (default since v0.21.0)"). It captures two
# graphs per mode and extrapolates (gpu_model_runner.profile_cudagraph_memory); the course now
# estimates it from the capture sizes (cuda_graph_estimate). Logged: "Estimated CUDA graph
# memory: 0.52 GiB total"
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
# Model Runner V2 (the default for dense models from 0.22-0.26 on) profiles with the
# release's sampler here too: its two published logs disagree on more (v0.31.0, Llama-3.1-8B
# on an A100 80GB: 1.44 GiB of peak activation, 1 GiB above this estimate; v0.27.1,
# Qwen3-0.6B on a DGX Spark: 0.26 GiB for peak activation and graphs together, below it).
SAMPLERS = tuple(SAMPLER_BYTES_PER_LOGIT)


class VllmRelease(NamedTuple):
    """The budget terms of one vLLM minor release, with the changes that set them."""
    version: str                      # "0.11", "0.31"
    label: str                        # what the plan prints
    default_utilization: float        # gpu_memory_utilization when not given
    sampler: str                      # the profiling run's default top-k/top-p sampler (V1)
    cuda_graph_in_budget: bool        # the CUDA-graph estimate is subtracted from the KV budget
    cuda_graph_bytes: int             # stated graph pool of 0.10-0.20 (from the headroom)
    big_gpu_tier: bool                # GPUs reporting >= 160 GiB get 16,384 batched tokens
    sources: tuple                    # (what changed, where) pairs, every change up to it
    kv_size_by_concurrency: bool = False   # "GPU KV cache size" = int(concurrency x len)
    mrv2: tuple = ()                  # model classes (a config's architectures) on Model
                                      # Runner V2 by default ("dense": every dense model)

    @property
    def minor(self):
        return int(self.version.split(".")[1])

    def kv_dtypes(self):
        """The ``--kv-cache-dtype`` values this release accepts (of those the course models)."""
        from .vllm_kv import KV_CACHE_DTYPES
        return [n for n, d in KV_CACHE_DTYPES.items()
                if self.minor >= int(d.since.split(".")[1])]

    def model_runner(self, cfg):
        """"v2" when this release runs ``cfg`` on Model Runner V2 by default (dense models
        without Mamba or MLA), else "v1"."""
        cfg = as_config(cfg)
        dense = not (cfg.is_moe or cfg.uses_mla or any(
            k.attention in STATE_KINDS or k.attention in STATE_AND_KV_KINDS
            for k in cfg.layer_schedule.counts()))
        if not dense or not self.mrv2:
            return "v1"
        if "dense" in self.mrv2:
            return "v2"
        return "v2" if (cfg.get("architectures") or [None])[0] in self.mrv2 else "v1"


_PR = "https://github.com/vllm-project/vllm/pull/"
# (first minor release, field, value, what changed, where it is written). Releases 0.12-0.19
# keep 0.11's budget: v0.16.0's vllm/config/cache.py still defaults gpu_memory_utilization to
# 0.9 and the 0.19 logs print the CUDA-graph estimate without subtracting it (vllm PR 39559).
# Every later log calls the estimate "default since v0.21.0", yet the v0.20.0 logs kept in
# vllm_logs.json already subtract it, so the plan does from 0.20.
RELEASE_CHANGES = (
    ("0.11", "base", None,
     "determine_available_memory: KV = utilization x total - weights - torch peak of the "
     "profiling run - non-torch increase", "vllm PR 19312 (June 2025, 0.9.2)"),
    ("0.11", "sampler", "pytorch", "FlashInfer sampler off by default", _PR + "26859"),
    ("0.11", "base", None, "CUDA graphs captured after the KV cache, from the headroom",
     "vllm/v1/worker/gpu_worker.py compile_or_warm_up_model (0.10/0.11)"),
    ("0.20", "kv_dtype", "int8_per_token_head",
     "int8_per_token_head and fp8_per_token_head caches (Triton attention)", _PR + "38378"),
    ("0.20", "cuda_graph_in_budget", True,
     "CUDA-graph memory estimated during profiling and subtracted from the KV budget (the "
     "log says \"default since v0.21.0\", but v0.20.0 already subtracts it: its startup logs "
     "print \"Estimated CUDA graph memory\" and the budget without it)",
     _PR + "30515; v0.20.0 logs, llmcourse/data/vllm_logs.json (rows *-v0.20.0)"),
    ("0.21", "default_utilization", 0.92, "default gpu_memory_utilization 0.9 -> 0.92",
     _PR + "38284; vllm/config/cache.py at v0.30.0: gpu_memory_utilization: float = "
     "Field(default=0.92, gt=0, le=1)"),
    ("0.21", "sampler", "flashinfer", "FlashInfer top-k/top-p sampler on by default again",
     _PR + "40376"),
    ("0.21", "kv_dtype", "nvfp4", "nvfp4 cache (FlashInfer trtllm-gen, SM100)",
     _PR + "40177"),
    ("0.22", "kv_size_by_concurrency", True,
     "\"GPU KV cache size\" logged as int(max_concurrency x max_model_len), not "
     "num_blocks // groups x block_size (vllm issue 40691: the two disagree for hybrid models; "
     "logs of late May 2026 on print the new figure)",
     "https://github.com/vllm-project/vllm/issues/40691"),
    ("0.22", "mrv2", ("Qwen3ForCausalLM",), "Model Runner V2 the default for Qwen3 dense models",
     _PR + "39337"),
    ("0.23", "mrv2", ("Qwen3ForCausalLM", "LlamaForCausalLM", "MistralForCausalLM"),
     "Model Runner V2 the default for Llama and Mistral dense models too", _PR + "43458"),
    ("0.24", "kv_dtype", "int4_per_token_head", "int4_per_token_head cache (Triton attention)",
     _PR + "40835"),
    ("0.26", "mrv2", ("dense",),
     "Model Runner V2 the default for dense models (since 0.25.1); its CUDA-graph estimate is "
     "0, so nothing is subtracted for their graphs",
     "https://github.com/vllm-project/vllm/issues/49224"),
    ("0.28", "big_gpu_tier", True,
     "GPUs reporting >= 160 GiB default to 16,384 batched tokens for vllm serve too (v0.28.0; "
     "MI300X's 191.98 GiB included: vllm issue 53961)", _PR + "51726"),
    ("0.31", "base", None, "the newest release found: v0.31.0, 5 October 2026",
     "https://github.com/vllm-project/vllm/releases/tag/v0.31.0"),
)
FIRST_VLLM, CURRENT_VLLM = "0.10", "0.31"


def _build_releases():
    out = {}
    for m in range(10, 32):
        key = f"0.{m}"
        fields = dict(default_utilization=0.9, sampler="pytorch", cuda_graph_in_budget=False,
                      big_gpu_tier=False, kv_size_by_concurrency=False, mrv2=())
        sources = []
        for since, field, value, what, where in RELEASE_CHANGES:
            if int(since.split(".")[1]) > max(m, 11):
                continue
            if field in fields:
                fields[field] = value
            if since != "0.31" or m == 31:
                sources.append((what, where))
        label = (f"vLLM {key} (v0.31.0 of 5 October 2026, the newest release found)"
                 if key == CURRENT_VLLM else f"vLLM {key}")
        if m <= 11:
            label = "vLLM 0.10/0.11 (V1 engine, August-October 2025)"
        out[key] = VllmRelease(key, label, fields["default_utilization"], fields["sampler"],
                               fields["cuda_graph_in_budget"], CUDA_GRAPH_BYTES,
                               fields["big_gpu_tier"], tuple(sources),
                               fields["kv_size_by_concurrency"], tuple(fields["mrv2"]))
    return out


VLLM_RELEASES = _build_releases()
VLLM_VERSION = VLLM_RELEASES[CURRENT_VLLM].label


def vllm_release(version=None):
    """The :class:`VllmRelease` whose budget :func:`vllm_plan` follows for ``version``
    (``"0.10"`` to ``"0.31"``; None: :data:`CURRENT_VLLM`). A patch version (``"0.11.0"``,
    ``"v0.28.1"``) counts as its minor release."""
    if version is None:
        return VLLM_RELEASES[CURRENT_VLLM]
    if isinstance(version, VllmRelease):
        return version
    if not isinstance(version, str):
        raise ConfigError(f"vllm_version: a release such as '0.11' or '0.31' (got {version!r})")
    parts = version.strip().lstrip("vV").split(".")
    key = ".".join(parts[:2])
    if key not in VLLM_RELEASES:
        raise ConfigError(f"vllm_version: the plan models vLLM {FIRST_VLLM} to {CURRENT_VLLM}, "
                          f"the newest release found (got {version!r})")
    return VLLM_RELEASES[key]


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


# The modalities each kind of tower serves: vLLM builds a tower inside
# SupportsMultiModal._mark_tower_model(vllm_config, modalities), which "automatically skips"
# it "when --limit-mm-per-prompt is set to zero for all of their modalities" (a vision tower
# is marked with {"image", "video"}); --language-model-only sets every limit to 0.
TOWER_MODALITIES = {"vision": ("image", "video"), "audio": ("audio",)}
MODALITIES = ("image", "video", "audio")


def towers_loaded(cfg, limit_mm_per_prompt=None, language_model_only=False):
    """The towers (``"vision"``, ``"audio"``) of a multimodal wrapper that vLLM loads: all of
    them, except those whose every modality has ``--limit-mm-per-prompt`` 0 (a modality left
    out of the dict keeps vLLM's default of 999), and none with ``--language-model-only``."""
    from .towers import tower_tensors
    cfg = as_config(cfg)
    kinds = []
    for t in tower_tensors(cfg):
        if t.component not in kinds:
            kinds.append(t.component)
    limits = _limits(limit_mm_per_prompt)
    if language_model_only:
        return ()
    return tuple(k for k in kinds
                 if any(limits.get(m, 999) > 0 for m in TOWER_MODALITIES.get(k, (k,))))


def _limits(limit_mm_per_prompt):
    if limit_mm_per_prompt is None:
        return {}
    if not isinstance(limit_mm_per_prompt, dict):
        raise ConfigError(f"limit_mm_per_prompt: a dict of modality -> items a prompt, as "
                          f"vLLM takes it (got {limit_mm_per_prompt!r})")
    out = {}
    for k, v in limit_mm_per_prompt.items():
        if k not in MODALITIES:
            raise ConfigError(f"limit_mm_per_prompt: modalities are {', '.join(MODALITIES)} "
                              f"(got {k!r})")
        count = v.get("count", 999) if isinstance(v, dict) else v
        out[k] = _whole(f"limit_mm_per_prompt[{k!r}]", count, 0)
    return out


def _tower_bytes(cfg, kinds, base_bytes):
    """Bytes of the named towers as stored (kept at the checkpoint's base dtype)."""
    from .towers import tower_tensors
    return sum(t.numel * t.per_expert * (4 if t.buffer else base_bytes)
               for t in tower_tensors(cfg) if t.component in kinds)


def weights_per_gpu(cfg, tensor_parallel_size=1, pipeline_parallel_size=1,
                    weights=AS_SHIPPED, towers=None):
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
    values, e8m0 scales and bf16 biases alike (:func:`_mxfp4_padding_bytes`).

    A multimodal wrapper's towers are loaded beside the language model (split over the ranks
    like its matrices: ``mm_encoder_tp_mode`` "weights", vLLM's default); ``towers`` names
    the ones loaded (None: all; :func:`towers_loaded` gives what a launch's
    ``--limit-mm-per-prompt`` leaves)."""
    cfg = as_config(cfg)
    check_parallelism(cfg, tensor_parallel_size, pipeline_parallel_size)
    sw = stored_weights(cfg, weights)
    total = sw.total
    if towers is not None and cfg.is_multimodal:
        all_kinds = {"vision", "audio"}
        total -= _tower_bytes(cfg, all_kinds - set(towers), sw.base_bytes)
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


def cuda_graph_capture_sizes(max_num_seqs, max_cudagraph_capture_size=None):
    """The batch sizes vLLM captures CUDA graphs for by default (CompilationConfig):
    ``[1, 2, 4] + range(8, 256, 8) + range(256, largest + 1, 16)`` up to the largest,
    ``max_cudagraph_capture_size`` (default ``min(2 x max_num_seqs, 512)``). At
    max_num_seqs 256 that is 51 sizes up to 512, as vLLM logs "Profiling CUDA graph
    memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)"."""
    s = _whole("max_num_seqs", max_num_seqs)
    top = min(2 * s, 512) if max_cudagraph_capture_size is None else _whole(
        "max_cudagraph_capture_size", max_cudagraph_capture_size)
    sizes = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, top + 1, 16))
    return [x for x in sizes if x <= top]


class CudaGraphEstimate(NamedTuple):
    """The CUDA-graph pool vLLM estimates at startup (an ESTIMATE here: vLLM measures two
    graphs per mode and extrapolates; see :func:`cuda_graph_estimate`)."""
    piecewise: int            # piecewise graphs (every capture size)
    full: int                 # full graphs (uniform decode batches up to max_num_seqs)
    largest: int
    layers: int
    bytes: int

    def __repr__(self):
        return (f"CudaGraphEstimate(PIECEWISE={self.piecewise} (largest={self.largest}), "
                f"FULL={self.full}: ~{self.bytes / GiB:.2f} GiB)")


# Per captured graph and layer of this GPU: stated from the one published estimate of a dense
# model with known graphs on one GPU (Qwen3-8B, 36 layers, 51 + 35 graphs, "Estimated CUDA
# graph memory: 0.52 GiB total", LMCache issue 3430, vLLM 0.21.0), less the forward's own
# activations at the largest size (0.05 GiB): 0.47 GiB / (86 x 36) = 0.155 MiB.
CUDA_GRAPH_BYTES_PER_LAYER_GRAPH = round(0.155 * 2 ** 20)


def cuda_graph_estimate(cfg, max_num_seqs, tensor_parallel_size=1, pipeline_parallel_size=1,
                        optimization_level=2, max_cudagraph_capture_size=None,
                        enforce_eager=False):
    """ESTIMATE of vLLM's "Estimated CUDA graph memory" on one GPU from the model and its
    capture sizes: the forward's activations at the largest capture size (the pool keeps
    them: :func:`profile_peak`'s forward term) plus a stated 0.155 MiB per graph and layer
    (:data:`CUDA_GRAPH_BYTES_PER_LAYER_GRAPH`). The knobs: ``enforce_eager`` (``--enforce-eager``)
    or ``optimization_level`` 0 (``-O0``) capture nothing; ``-O1`` captures the piecewise
    graphs only; ``max_cudagraph_capture_size`` (``--compilation-config``) sets the largest.
    Published estimates run from 0.13 to 4.2 GiB and vLLM's own can be far off (0 under Model
    Runner V2: issue 49224; 118 GiB: issue 53013): the log line "equivalent to
    --gpu-memory-utilization=..." and ``--kv-cache-memory-bytes`` are the levers."""
    cfg = as_config(cfg)
    if enforce_eager or optimization_level == 0:
        return CudaGraphEstimate(0, 0, 0, 0, 0)
    sizes = cuda_graph_capture_sizes(max_num_seqs, max_cudagraph_capture_size)
    # full graphs for uniform decode batches: the capture sizes up to max_num_seqs, as the
    # logs count them: "PIECEWISE=51 (largest=512), FULL=35 (largest=256)" at 256 sequences,
    # "FULL=51 (largest=512)" at 1,024 (a B300), "FULL=5 (largest=16)" at 20, "FULL=1" at 1
    full = [x for x in sizes if x <= max_num_seqs] if optimization_level >= 2 else []
    layers = -(-cfg.num_hidden_layers // pipeline_parallel_size)
    act = profile_peak(cfg, sizes[-1], 1, tensor_parallel_size).forward
    n = len(sizes) + len(full)
    return CudaGraphEstimate(len(sizes), len(full), sizes[-1], layers,
                             act + n * layers * CUDA_GRAPH_BYTES_PER_LAYER_GRAPH)


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
    cuda_graph_bytes: int       # estimate unless given; in the budget from 0.20 (V1 runner)
    kv_bytes_per_token: int     # on this GPU, all its attention layers
    reason: str                 # "" when it starts; else vLLM's message
    sampler: str = "pytorch"    # which top-k/top-p sampler the profiling run used
    usage: str = "serve"        # "serve" (vllm serve) or "llm" (the offline LLM class)
    kv_bytes_needed: int = 0    # one request of max_model_len on this GPU (vLLM's check)
    vllm_version: str = "0.11"  # the release whose accounting this is
    cuda_graph_in_budget: bool = False
    memory_caveat: str = ""     # "datasheet capacity, runtime unknown" when it is
    non_torch_range: tuple = () # (low, high) bytes the logs show for this TP size
    layout: object = None       # the KvCacheLayout (groups, pages)
    kv_cache_memory_bytes: int = 0   # --kv-cache-memory-bytes: the budget, profiling skipped
    model_runner: str = "v1"    # "v2": Model Runner V2 (no graph estimate in the budget)
    caveats: tuple = ()         # what the plan does not model for this launch
    free_memory_bytes: int = 0  # free at startup, where the check applies (0: not checked)
    graphs: object = None       # the CudaGraphEstimate (capture sizes)
    towers: tuple = ()          # a multimodal wrapper's towers in the weights ("vision", ...)

    @property
    def kv_budget_bytes(self):
        """Available KV cache memory (vLLM's log line), may be negative."""
        if self.kv_cache_memory_bytes:
            return self.kv_cache_memory_bytes
        graphs = self.cuda_graph_bytes if self.cuda_graph_in_budget else 0
        return self.requested_bytes - self.weight_bytes - self.activation_bytes \
            - self.non_torch_bytes - graphs

    @property
    def num_blocks(self):
        if self.layout is None:
            return max(0, self.kv_budget_bytes // (self.kv_bytes_per_token * self.block_size))
        return self.layout.num_blocks(self.kv_budget_bytes)

    @property
    def kv_token_slots(self):
        """Tokens one full-attention layer of this GPU can hold: num_blocks x block."""
        return self.num_blocks * (self.layout.attention_block_size if self.layout
                                  else self.block_size)

    @property
    def kv_tokens(self):
        """"GPU KV cache size: N tokens" as this release logs it."""
        if self.layout is None:
            return self.num_blocks * self.block_size
        return self.layout.logged_tokens(self.num_blocks, self.max_model_len,
                                         self.max_num_batched_tokens,
                                         self.release.kv_size_by_concurrency)

    @property
    def max_concurrency(self):
        """"Maximum concurrency for N tokens per request": the blocks of the pool over the
        blocks one request of max_model_len takes from every KV cache group."""
        if self.layout is None:
            return self.kv_tokens / self.max_model_len
        return self.layout.max_concurrency(self.num_blocks, self.max_model_len,
                                           self.max_num_batched_tokens)

    @property
    def concurrent_requests(self):
        """Requests of max_model_len tokens served at once: the concurrency, whole, capped
        by max_num_seqs (the scheduler runs at most that many)."""
        return min(int(self.max_concurrency), self.max_num_seqs)

    def _tokens_at(self, non_torch):
        budget = self.kv_budget_bytes + self.non_torch_bytes - non_torch
        if self.layout is None:
            return max(0, budget // (self.kv_bytes_per_token * self.block_size)) \
                * self.block_size
        return self.layout.logged_tokens(self.layout.num_blocks(budget), self.max_model_len,
                                         self.max_num_batched_tokens,
                                         self.release.kv_size_by_concurrency)

    @property
    def kv_tokens_range(self):
        """(fewest, most) KV tokens when non-torch memory takes the (high, low) end of what
        the logs show for this TP size: how much the answer moves with that stated term."""
        if not self.non_torch_range:
            return self.kv_tokens, self.kv_tokens
        low, high = self.non_torch_range
        return self._tokens_at(high), self._tokens_at(low)

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
        if self.kv_cache_memory_bytes:
            return [("--kv-cache-memory-bytes", self.kv_cache_memory_bytes, "given"),
                     ("KV cache", self.kv_budget_bytes, f"{self.kv_tokens:,} tokens")]
        out = [("total the runtime reports", self.total_bytes,
                self.memory_caveat or "reported by the runtime (sourced)"),
               (f"requested = {self.gpu_memory_utilization} x total", self.requested_bytes,
                "exact"),
               ("weights as loaded", -self.weight_bytes, "exact"),
               (f"profiling peak ({self.sampler} sampler)", -self.activation_bytes, "estimate"),
               ("non-torch memory", -self.non_torch_bytes, "stated")]
        if self.cuda_graph_in_budget:
            out.append(("CUDA-graph estimate", -self.cuda_graph_bytes, "estimate"))
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
    max_memory_usage_bytes`` of every layer): ``cdiv(max_model_len, block_size)`` pages in a
    full-attention layer; ``cdiv(min(sliding_window - 1 + max_num_batched_tokens,
    max_model_len), block_size) + 1`` in a sliding-window layer;
    ``cdiv(min(attention_chunk_size + max_num_batched_tokens, max_model_len), block_size)``
    in a chunked-local one; one (padded) state page in a Mamba or DeltaNet layer."""
    from .vllm_kv import kv_cache_layout
    cfg = as_config(cfg)
    mml = _whole("max_model_len", max_model_len)
    t = _whole("max_num_batched_tokens", max_num_batched_tokens)
    blk = _whole("block_size", block_size)
    check_parallelism(cfg, tensor_parallel_size, pipeline_parallel_size)
    layout = kv_cache_layout(cfg, tensor_parallel_size, pipeline_parallel_size,
                             _kv_dtype_for(kv_cache_dtype), blk)
    return layout.bytes_needed(mml, t)


def _kv_dtype_for(name):
    """The KvCacheDtype of a course or vLLM dtype name (no release check)."""
    from .vllm_kv import KV_CACHE_DTYPES, kv_cache_dtype
    key = {"bf16": "bfloat16", "fp16": "float16"}.get(str(name), str(name))
    if key in KV_CACHE_DTYPES:
        return KV_CACHE_DTYPES[key]
    return kv_cache_dtype(name, CURRENT_VLLM)


PLATFORMS = ("cuda", "rocm")


#: the fields vLLM reads a model's length from when max_model_len is not given (the smallest
#: wins; none: 2,048): ``_get_and_verify_max_len`` in vllm/config/model.py
VLLM_LENGTH_FIELDS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                      "model_max_length", "max_sequence_length", "max_seq_length", "seq_len")
VLLM_DEFAULT_MAX_LEN = 2048


def _derived_max_len(cfg):
    """vLLM's max_model_len for a config without max_position_embeddings."""
    found = [v for v in (cfg.get(f) for f in VLLM_LENGTH_FIELDS)
             if isinstance(v, int) and not isinstance(v, bool) and v > 0]
    return min(found) if found else VLLM_DEFAULT_MAX_LEN


def vllm_plan(cfg, gpu, tensor_parallel_size=1, pipeline_parallel_size=1,
              gpu_memory_utilization=None, max_model_len=None, max_num_seqs=None,
              max_num_batched_tokens=None, kv_cache_dtype="auto", block_size=BLOCK_SIZE,
              weights=AS_SHIPPED, activation_bytes=None, non_torch_bytes=None,
              weight_bytes=None, usage="serve", sampler=None, vllm_version=None,
              cuda_graph_bytes=None, enforce_eager=False, optimization_level=2,
              max_cudagraph_capture_size=None, estimate_cuda_graphs=True,
              kv_cache_memory_bytes=None, free_memory_bytes=None, model_runner=None,
              mm_encoder_bytes=None, enable_prefix_caching=None, limit_mm_per_prompt=None,
              language_model_only=False, hybrid_kv_cache_manager=True):
    """The plan vLLM makes at startup on the fullest GPU of the group, as the release
    ``vllm_version`` budgets it (``"0.10"`` to ``"0.31"``, default :data:`CURRENT_VLLM`; see
    :data:`RELEASE_CHANGES` for what changed when). The plan's ``vllm_version`` says which.

    ``gpu_memory_utilization`` defaults to the release's (0.92 since vLLM PR 38284, 0.9
    before). ``max_model_len`` defaults to the model's ``max_position_embeddings`` (as
    vLLM's does; without it, the smallest of :data:`VLLM_LENGTH_FIELDS`, or 2,048, a
    caveat); ``max_num_seqs`` and ``max_num_batched_tokens`` to :func:`vllm_defaults`
    for ``usage`` (``"serve"``: ``vllm serve``; ``"llm"``: the offline ``LLM`` class).
    ``kv_cache_dtype``: ``"auto"`` (the model's dtype), ``"fp8"`` (``fp8_e4m3``, ``fp8_e5m2``),
    ``"int8_per_token_head"``, ``"fp8_per_token_head"``, ``"int4_per_token_head"``,
    ``"nvfp4"``: each from its first release (:data:`llmcourse.vllm_kv.KV_CACHE_DTYPES`); an
    older release refuses it in one line. The KV cache is laid out in vLLM's groups
    (:func:`llmcourse.vllm_kv.kv_cache_layout`): a sliding-window group needs only its window
    per request, a Mamba/DeltaNet group one padded state page. ``hybrid_kv_cache_manager=
    False`` (``--disable-hybrid-kv-cache-manager``, or vLLM's own choice with
    ``--kv-transfer-config``: the log then says "Hybrid KV cache manager is disabled") charges
    every sliding-window layer the whole ``max_model_len``, as vLLM then does.

    CUDA graphs (from 0.20 on the V1 model runner, subtracted from the budget):
    :func:`cuda_graph_estimate` from the capture sizes, or ``cuda_graph_bytes`` from a log;
    ``enforce_eager``, ``optimization_level`` and ``max_cudagraph_capture_size`` change it,
    ``estimate_cuda_graphs=False`` is ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0``, and
    ``kv_cache_memory_bytes`` (``--kv-cache-memory-bytes``) sets the budget outright.
    Model Runner V2 (the default for dense models from 0.22-0.26: ``model_runner``) subtracts
    no graph estimate (issue 49224).

    ``sampler``: the profiling run's top-k/top-p sampler (:data:`SAMPLER_BYTES_PER_LOGIT`;
    default: the release's). ``activation_bytes``, ``non_torch_bytes``, ``weight_bytes``,
    ``cuda_graph_bytes``, ``mm_encoder_bytes``: a log's figures in place of the estimates.
    ``free_memory_bytes``: the memory free at startup; vLLM refuses when it is below the
    request (on unified-memory devices the GPU's typical boot figure is used; 0: no check).
    ``enable_prefix_caching``: a hybrid model's state layers then keep two pages a request
    (vLLM's mamba_cache_mode "align"), not one.

    A multimodal wrapper's towers are in the weights unless ``limit_mm_per_prompt`` (vLLM's
    ``--limit-mm-per-prompt``, e.g. ``{"image": 0, "video": 0}``) sets every modality of a
    tower to 0, or ``language_model_only`` (``--language-model-only``) is set: vLLM then does
    not build the tower (:func:`towers_loaded`), and does not profile its encoder either.

    A GPU whose runtime total is not in the table is planned on its datasheet capacity and
    the plan says so (``memory_caveat``); Apple silicon and TPUs are refused (vLLM's budget
    here is its CUDA/ROCm worker's).
    """
    from .vllm_kv import kv_cache_dtype as _kvd, kv_cache_layout
    cfg = as_config(cfg)
    gpu = as_gpu(gpu)
    release = vllm_release(vllm_version)
    platform = getattr(gpu, "platform", "cuda") or "cuda"
    if platform not in PLATFORMS:
        raise ConfigError(f"gpu: vLLM's GPU worker budget planned here is CUDA's and ROCm's; "
                          f"{gpu.name} runs another backend ({platform}), whose memory the "
                          f"plan does not model")
    check_parallelism(cfg, tensor_parallel_size, pipeline_parallel_size)
    u = release.default_utilization if gpu_memory_utilization is None else \
        gpu_memory_utilization
    if isinstance(u, bool) or not isinstance(u, (int, float)) or not 0 < u <= 1:
        raise ConfigError(f"gpu_memory_utilization: must be a fraction in (0, 1] (got {u!r})")
    model16 = "fp16" if str(cfg.get("torch_dtype") or cfg.get("dtype") or "") in \
        ("float16", "torch.float16") else "bf16"
    d = _kvd(kv_cache_dtype, release.version, cfg.uses_mla, gpu)
    if d.name == "auto":
        kv_dtype = model16
    elif d.name in ("bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2"):
        kv_dtype = {"bfloat16": "bf16", "float16": "fp16"}.get(d.name, "fp8")
    else:
        kv_dtype = d.name
    runner = model_runner or release.model_runner(cfg)
    if runner not in ("v1", "v2"):
        raise ConfigError(f"model_runner: 'v1' or 'v2' (got {model_runner!r})")
    if sampler is None:
        sampler = release.sampler
    if sampler not in SAMPLER_BYTES_PER_LOGIT:
        raise ConfigError(f"sampler: one of {', '.join(SAMPLERS)} (got {sampler!r})")
    _whole("block_size", block_size)
    mpe = cfg.get("max_position_embeddings")
    length_caveat = ""
    if max_model_len is None:
        max_model_len = mpe or _derived_max_len(cfg)
        if not mpe:   # vLLM's _get_and_verify_max_len: BLOOM and CPM-Ant (ALiBi, no positions)
            length_caveat = (f"max_model_len {max_model_len:,}: the config gives no "
                             "max_position_embeddings; vLLM takes its other length fields, or "
                             "assumes 2,048 when it has none")
    _whole("max_model_len", max_model_len)
    if mpe and max_model_len > mpe:
        raise ConfigError(f"max_model_len: User-specified max_model_len ({max_model_len}) is "
                          f"greater than the derived max_model_len (max_position_embeddings="
                          f"{mpe} in model's config.json).")
    seqs, batched = vllm_defaults(gpu, usage, release.version)
    max_num_seqs = seqs if max_num_seqs is None else _whole("max_num_seqs", max_num_seqs)
    max_num_batched_tokens = (batched if max_num_batched_tokens is None else
                              _whole("max_num_batched_tokens", max_num_batched_tokens))
    if optimization_level not in (0, 1, 2, 3):
        raise ConfigError(f"optimization_level: vLLM's -O0 to -O3 (got {optimization_level!r})")
    tp, pp = tensor_parallel_size, pipeline_parallel_size
    # a hybrid model's state layers keep 2 pages a request when prefix caching is on
    # (mamba_cache_mode "align"), 1 otherwise; vLLM leaves it off for them unless asked
    state_pages = 2 if enable_prefix_caching else 1
    if not isinstance(hybrid_kv_cache_manager, bool):
        raise ConfigError(f"hybrid_kv_cache_manager: True or False (got "
                          f"{hybrid_kv_cache_manager!r})")
    layout = kv_cache_layout(cfg, tp, pp, d, block_size, state_pages=state_pages,
                             hybrid_manager=hybrid_kv_cache_manager)
    total = gpu.reported_memory_bytes
    # 0.10/0.11 multiply the float total by the utilization and truncate; the later releases
    # round the request up (request_memory: math.ceil(total * utilization))
    requested = math.ceil(u * total) if release.cuda_graph_in_budget else math.floor(u * total)
    towers = towers_loaded(cfg, limit_mm_per_prompt, language_model_only) \
        if cfg.is_multimodal else ()
    w = weights_per_gpu(cfg, tp, pp, weights, towers=towers) if weight_bytes is None else \
        _whole("weight_bytes", weight_bytes)
    act = activation_peak_bytes(cfg, max_num_batched_tokens, max_num_seqs, tp, sampler) \
        if activation_bytes is None else _whole("activation_bytes", activation_bytes, 0)
    caveats = [length_caveat] if length_caveat else []
    if layout.note.startswith("hybrid KV cache manager off"):
        caveats.append("the hybrid KV cache manager is off: every sliding-window layer "
                       "keeps the whole max_model_len, as a full-attention one")
    if mm_encoder_bytes is not None:
        act = max(act, _whole("mm_encoder_bytes", mm_encoder_bytes, 0))
    elif towers:
        caveats.append(f"the {' and '.join(towers)} encoder's share of the profiling run is "
                       f"not estimated (none with every modality's --limit-mm-per-prompt at 0)")
    nt = (NON_TORCH_BYTES if tp * pp == 1 else NON_TORCH_BYTES_TP) \
        if non_torch_bytes is None else _whole("non_torch_bytes", non_torch_bytes, 0)
    if platform == "rocm" and non_torch_bytes is None:
        nt = NON_TORCH_BYTES_ROCM if tp * pp == 1 else max(NON_TORCH_BYTES_ROCM,
                                                           NON_TORCH_BYTES_TP)
        caveats.append("non-torch memory on ROCm (RCCL, hipBLASLt workspaces): the figure "
                       "of one published ROCm launch, not a derivation")
    in_budget = release.cuda_graph_in_budget and runner == "v1" and estimate_cuda_graphs
    est = cuda_graph_estimate(cfg, max_num_seqs, tp, pp, optimization_level,
                              max_cudagraph_capture_size, enforce_eager)
    if cuda_graph_bytes is not None:
        graphs = _whole("cuda_graph_bytes", cuda_graph_bytes, 0)
    elif release.cuda_graph_in_budget:
        graphs = est.bytes
    else:
        graphs = 0 if (enforce_eager or optimization_level == 0) else release.cuda_graph_bytes
    spread = non_torch_range(tp * pp, gpu)
    per_token = sum(g.spec.bytes_per_token * (g.layers - g.padding)
                    for g in layout.groups if g.spec.kind != "state")
    kvmem = 0
    if kv_cache_memory_bytes is not None:
        kvmem = _whole("kv_cache_memory_bytes", kv_cache_memory_bytes)
    free = 0
    if free_memory_bytes is not None:
        free = _whole("free_memory_bytes", free_memory_bytes, 0)
    elif getattr(gpu, "boot_free_memory_bytes", None):
        free = gpu.boot_free_memory_bytes
    need = layout.bytes_needed(max_model_len, max_num_batched_tokens)
    plan = VllmPlan(cfg.name, gpu.name, tp, pp, u, max_model_len, max_num_seqs,
                    max_num_batched_tokens, kv_dtype, layout.attention_block_size, total,
                    requested, w, act, nt, graphs, per_token, "", sampler, usage, need,
                    release.version, in_budget, gpu.memory_caveat,
                    (min(spread.low, nt), max(spread.high, nt)), layout, kvmem, runner,
                    tuple(caveats), free, est, towers)
    if free and not kvmem and free < requested:
        return plan._replace(reason=(
            f"Free memory on device ({free / GiB:.2f}/{total / GiB:.2f} GiB) on startup is "
            f"less than desired GPU memory utilization ({u}, {requested / GiB:.2f} GiB). "
            f"Decrease GPU memory utilization or reduce GPU memory used by other processes."))
    if plan.kv_budget_bytes <= 0 or plan.num_blocks == 0:
        return plan._replace(reason="No available memory for the cache blocks. Try "
                                    "increasing `gpu_memory_utilization` when initializing "
                                    "the engine.")
    if need > plan.kv_budget_bytes:
        lo, hi = 0, max_model_len      # vLLM's estimate: the longest length that fits
        while lo < hi:
            mid = (lo + hi + 1) // 2
            ok = layout.bytes_needed(mid, max_num_batched_tokens) <= plan.kv_budget_bytes
            lo, hi = (mid, hi) if ok else (lo, mid - 1)
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
    """What changed between vLLM 0.10/0.11 and the current release, release by release, for
    one launch (``settings``: :func:`vllm_plan`'s, except ``vllm_version``): a list of
    :class:`BudgetChange`, the first the 0.11 plan, then one per release whose changes
    (:data:`RELEASE_CHANGES`, each with its PR) move this launch's KV budget, token count or
    defaults, the last the current release's."""
    if "vllm_version" in settings:
        raise ConfigError("vllm_version: vllm_changes walks every release; plan one release "
                          "with vllm_plan(..., vllm_version=...) instead")
    prev = vllm_plan(cfg, gpu, vllm_version="0.11", **settings)
    out = [BudgetChange("vLLM 0.10/0.11: utilization 0.9, the PyTorch sampler, CUDA graphs "
                        "from the headroom", "the 0.11 accounting", prev)]
    for m in range(12, int(CURRENT_VLLM.split(".")[1]) + 1):
        key = f"0.{m}"
        plan = vllm_plan(cfg, gpu, vllm_version=key, **settings)
        moved = (plan.kv_budget_bytes, plan.kv_tokens, plan.max_num_batched_tokens,
                 plan.starts) != (prev.kv_budget_bytes, prev.kv_tokens,
                                  prev.max_num_batched_tokens, prev.starts)
        if moved:
            mine = [(w, s) for since, f, v, w, s in RELEASE_CHANGES
                    if since == key and f != "kv_dtype"]
            what = "; ".join(w for w, _ in mine) or "no budget term changed"
            where = "; ".join(s for _, s in mine)
            out.append(BudgetChange(f"vLLM {key}: {what}", where, plan))
        prev = plan
    return out


VLLM_LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "vllm_logs.json")
_LOG_SETTINGS = ("tensor_parallel_size", "pipeline_parallel_size", "gpu_memory_utilization",
                 "max_model_len", "max_num_seqs", "max_num_batched_tokens", "kv_cache_dtype",
                 "block_size", "weights", "usage", "sampler", "enable_prefix_caching",
                 "enforce_eager", "limit_mm_per_prompt", "language_model_only", "model_runner")
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
    if row.get("free_memory_gib") is not None:
        kw["free_memory_bytes"] = round(row["free_memory_gib"] * GiB)
    elif as_gpu(row["gpu"]).boot_free_memory_bytes:
        kw["free_memory_bytes"] = 0      # not in the excerpt: the startup check is not applied
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
