"""The systems a serving course names, each as one derivable number with its source.

* :func:`paged_capacity` -- continuous batching over a paged KV cache (PagedAttention: Kwon
  et al., "Efficient Memory Management for Large Language Model Serving with
  PagedAttention", SOSP 2023, https://arxiv.org/abs/2309.06180);
* :func:`tp_allreduce_cost` -- tensor parallelism's two all-reduces per layer (Shoeybi et
  al., "Megatron-LM", 2019, https://arxiv.org/abs/1909.08053) and their latency at batch 1;
* :func:`dp_attention_capacity` -- expert parallelism with data-parallel attention for an
  MLA model (DeepSeek-V3 technical report, https://arxiv.org/abs/2412.19437; SGLang v0.4's
  DP attention, https://lmsys.org/blog/2024-12-04-sglang-v0-4/);
* :func:`moe_critical_batch` -- the MoE critical batch: each expert sees B x k / E tokens;
* :func:`kv_transfer` -- prefill/decode disaggregation (DistServe: Zhong et al., OSDI 2024,
  https://arxiv.org/abs/2401.09670; Splitwise: Patel et al., ISCA 2024,
  https://arxiv.org/abs/2311.18677);
* :func:`chunked_prefill_steps` -- chunked prefill (Sarathi: Agrawal et al., 2023,
  https://arxiv.org/abs/2308.16369; Sarathi-Serve, OSDI 2024,
  https://arxiv.org/abs/2403.02310);
* :func:`speculative_decoding` -- speculative decoding (Leviathan et al., ICML 2023,
  https://arxiv.org/abs/2211.17192; Chen et al., 2023, https://arxiv.org/abs/2302.01318).

Exact where the arithmetic is (block rounding, bytes, the speculative-decoding expectation);
the all-reduce latency is a STATED figure (:data:`ALLREDUCE_LATENCY_S`). Standard library only.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .config import ConfigError
from .counts import kv_cache_bytes
from .hardware import as_gpu
from .inference import critical_batch
from .quantization import AS_SHIPPED, stored_weights
from .serving import (BLOCK_SIZE, _whole, check_parallelism, decode_step_per_gpu,
                      kv_bytes_per_token_per_gpu, vllm_plan)
from .zoo import as_config

__all__ = ["ALLREDUCE_LATENCY_S", "PagedCapacity", "paged_capacity", "TpAllreduce",
           "tp_allreduce_cost", "DpAttention", "dp_attention_capacity", "MoeCriticalBatch",
           "moe_critical_batch", "KvTransfer", "kv_transfer", "chunked_prefill_steps",
           "Speculation", "speculative_decoding"]

# Stated: one small all-reduce within an NVLink node takes a few microseconds whatever its
# size: "When I run with 2 GPUs the latency is approximately 6us" (8 x H100, NCCL 2.20.5,
# NVLSTree, CUDA graphs, 128 B - 64 KiB; https://github.com/NVIDIA/nccl/issues/1259).
ALLREDUCE_LATENCY_S = 6e-6


def _fraction(name, v, lo=0.0, hi=1.0, closed_hi=False):
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and lo <= v and (
        v <= hi if closed_hi else v < hi)
    if not ok:
        raise ConfigError(f"{name}: must be in [{lo}, {hi}{']' if closed_hi else ')'} "
                          f"(got {v!r})")
    return float(v)


class PagedCapacity(NamedTuple):
    """Requests one GPU's KV cache holds at once: reserving ``max_model_len`` for each (a
    static, contiguous cache) or paging it in blocks of ``block_size`` as it grows."""
    kv_tokens: int
    request_tokens: int
    max_model_len: int
    reserved: int          # kv_tokens // max_model_len
    paged: int             # kv_tokens // request tokens rounded up to whole blocks
    paged_waste: float     # share of the paged cache left empty in half-filled last blocks

    @property
    def gain(self):
        return self.paged / self.reserved if self.reserved else math.inf


def paged_capacity(cfg, gpu, request_tokens, max_model_len=None, block_size=BLOCK_SIZE,
                   **plan_settings):
    """Continuous batching over a paged KV cache: a request takes blocks as its tokens arrive
    and frees them when it ends, so the cache holds ``kv_tokens // request`` requests, not
    ``kv_tokens // max_model_len`` (Kwon et al., SOSP 2023: existing systems wasted 60-80% of
    KV memory, vLLM under 4%). Llama-3.1-8B on one H100 (current vLLM), max_model_len 8,192,
    requests of 1,000 tokens: 453,312 KV tokens hold 55 requests reserved, 449 paged (8.2x),
    with 0.8% of the paged cache in part-filled last blocks. ``plan_settings`` go to
    :func:`llmcourse.vllm_plan`."""
    t = _whole("request_tokens", request_tokens)
    blk = _whole("block_size", block_size)
    plan = vllm_plan(cfg, gpu, max_model_len=max_model_len, block_size=blk, **plan_settings)
    if not plan.starts:
        raise ConfigError(f"gpu: the plan does not start: {plan.reason.split('. ')[0]}")
    if t > plan.max_model_len:
        raise ConfigError(f"request_tokens: at most max_model_len ({plan.max_model_len:,}) "
                          f"(got {t:,})")
    per = -(-t // blk) * blk
    return PagedCapacity(plan.kv_tokens, t, plan.max_model_len,
                         plan.kv_tokens // plan.max_model_len, plan.kv_tokens // per,
                         (per - t) / per)


class TpAllreduce(NamedTuple):
    """The all-reduces of one decode step with tensor parallelism, per GPU."""
    tensor_parallel_size: int
    count: int                 # 2 x num_hidden_layers (after attention, after the MLP)
    bytes_each: int            # batch x hidden_size x 2 (bf16 activations)
    bandwidth_s: float         # ring all-reduces over the link, no latency
    latency_s: float           # count x the stated per-all-reduce latency
    read_s: float              # this GPU's weights and KV over its bandwidth

    @property
    def seconds(self):
        return self.bandwidth_s + self.latency_s

    @property
    def share_of_step(self):
        """The all-reduces' share of a step that also reads the weights."""
        return self.seconds / (self.seconds + self.read_s)


def tp_allreduce_cost(cfg, gpu, tensor_parallel_size, batch=1, weights=AS_SHIPPED,
                      seq_len=4096, latency_s=ALLREDUCE_LATENCY_S):
    """Tensor parallelism splits each layer's matrices so that each layer ends its attention
    and its MLP with an all-reduce of the hidden states (Megatron-LM: two per layer in the
    forward pass). At batch 1 they carry a few KB each, so latency, not bandwidth, is their
    cost: Meta-Llama-3-70B on 4 x H100, batch 1: 160 all-reduces of 16 KiB a token, 9 us over
    NVLink's bandwidth but 0.96 ms at the stated 6 us each: 8.5% of an 11.4 ms step whose
    weights take 10.5 ms to read. A ring's
    bandwidth term is :func:`llmcourse.serving.allreduce_seconds`."""
    cfg = as_config(cfg)
    gpu = as_gpu(gpu)
    tp = _whole("tensor_parallel_size", tensor_parallel_size)
    lat = _fraction("latency_s", latency_s, 0.0, 1.0)
    b = decode_step_per_gpu(cfg, gpu, tp, weights, "bf16", seq_len, _whole("batch", batch))
    n = 2 * cfg.num_hidden_layers if tp > 1 else 0
    return TpAllreduce(tp, n, batch * cfg.hidden_size * 2, b.t_allreduce, n * lat, b.t_memory)


class DpAttention(NamedTuple):
    """An MLA model's KV capacity on ``n_gpus`` GPUs, tensor-parallel attention against
    data-parallel attention with expert-parallel MoE layers."""
    n_gpus: int
    tp_tokens: int            # distinct tokens: every rank caches the same whole latent
    dp_tokens: int            # distinct tokens: each rank caches its own requests' latent
    tp_weight_bytes: int      # per GPU
    dp_weight_bytes: int      # per GPU: attention and dense layers whole, 1/n of the experts

    @property
    def gain(self):
        return self.dp_tokens / self.tp_tokens if self.tp_tokens else math.inf


def dp_attention_capacity(cfg, gpu, n_gpus, max_model_len=None, **plan_settings):
    """An MLA latent has no heads to split, so with tensor-parallel attention every GPU caches
    the whole latent of every request: n GPUs hold no more distinct tokens than one. With
    data-parallel attention each GPU runs attention for its own requests (its own latent) and
    the MoE layers are expert-parallel (each GPU holds 1/n of the experts, whole), so the n
    caches hold different tokens. DeepSeek-V3 on 8 x H200 (current vLLM's budget per GPU):
    at max_model_len 32,768, 720,336 distinct tokens with TP=8 against 3,864,448 with DP
    attention + EP (5.4x, not 8x: the attention and dense weights are then whole on every
    GPU, 93.9 GiB a GPU, not 78.4)."""
    cfg = as_config(cfg)
    n = _whole("n_gpus", n_gpus)
    if not cfg.uses_mla:
        raise ConfigError(f"cfg: {cfg.name} has no MLA latent; DP attention pays off when the "
                          f"KV cache cannot be split over the tensor-parallel ranks")
    if not cfg.is_moe:
        raise ConfigError(f"cfg: {cfg.name} has no experts to place expert-parallel")
    tp = vllm_plan(cfg, gpu, tensor_parallel_size=n, max_model_len=max_model_len,
                   **plan_settings)
    sw = stored_weights(cfg, plan_settings.get("weights", AS_SHIPPED))
    dp_w = sw.total - sw.routed_experts + sw.routed_experts // n
    budget = tp.requested_bytes - dp_w - tp.activation_bytes - tp.non_torch_bytes - (
        tp.cuda_graph_bytes if tp.cuda_graph_in_budget else 0)
    per_token = kv_bytes_per_token_per_gpu(cfg, 1, 1, tp.kv_cache_dtype)
    dp_tokens = max(0, budget // (per_token * tp.block_size)) * tp.block_size
    return DpAttention(n, tp.kv_tokens, n * dp_tokens, tp.weight_bytes, dp_w)


class MoeCriticalBatch(NamedTuple):
    """Where a MoE layer's expert matmuls turn compute-bound in decode."""
    experts: int
    experts_per_token: int
    dense_critical_batch: float   # the GPU's ridge for a dense matmul (tokens per step)
    moe_critical_batch: float     # tokens per step so that each expert sees the ridge

    def tokens_per_expert(self, batch):
        """Tokens each expert multiplies at ``batch`` tokens a step (uniform routing)."""
        return batch * self.experts_per_token / self.experts


def moe_critical_batch(cfg, gpu, weights="bf16", compute_dtype="bf16"):
    """Each of B tokens goes to k of E experts, so an expert multiplies B x k / E tokens per
    step: its matmul reaches the GPU's ridge (:func:`llmcourse.critical_batch`) only at E / k
    times the dense critical batch. Qwen3-30B-A3B (128 experts, 8 per token) in bf16 on an
    H100: the dense ridge is 295 tokens a step, the experts' 4,725 (x16); DeepSeek-V3 (256
    experts, 8 per token) in fp8: 148 x 32 = 4,725 too. ``weights`` and ``compute_dtype``: as
    for :func:`llmcourse.critical_batch`."""
    cfg = as_config(cfg)
    if not cfg.is_moe:
        raise ConfigError(f"cfg: {cfg.name} is dense: every token uses every weight")
    e, k = cfg.num_experts, cfg.num_experts_per_tok
    dense = critical_batch(gpu, weights, compute_dtype)
    return MoeCriticalBatch(e, k, dense, dense * e / k)


class KvTransfer(NamedTuple):
    """The KV cache a prefill instance hands to a decode instance, and its time on a link."""
    prompt_tokens: int
    kv_bytes: int
    seconds: float


def kv_transfer(cfg, prompt_tokens, link_bytes_per_s, kv_cache_dtype="bf16"):
    """Prefill/decode disaggregation runs prompts and generation on separate GPUs, so neither
    phase stalls the other; the price is shipping each prompt's KV cache across. Meta-Llama-3-70B,
    an 8,192-token prompt: 8,192 x 327,680 B = 2.68 GB of bf16 cache, 54 ms over a 400 Gb/s
    (50 GB/s) NIC, 6.7 ms over NVLink's 400 GB/s one way."""
    cfg = as_config(cfg)
    p = _whole("prompt_tokens", prompt_tokens)
    if isinstance(link_bytes_per_s, bool) or not isinstance(link_bytes_per_s, (int, float)) \
            or not link_bytes_per_s > 0:
        raise ConfigError(f"link_bytes_per_s: a positive bandwidth in bytes/s "
                          f"(got {link_bytes_per_s!r})")
    b = kv_cache_bytes(cfg, p, 1, kv_cache_dtype)
    return KvTransfer(p, b, b / link_bytes_per_s)


def chunked_prefill_steps(prompt_tokens, max_num_batched_tokens, running_decodes=0):
    """Chunked prefill (Sarathi) fills each step's token budget with the running decodes
    first (one token each) and a chunk of a waiting prompt in what is left, so a long prompt
    is spread over several steps and never stalls decoding for its whole length. A 32,768-
    token prompt with vLLM serve's 8,192-token budget on an H100 and 256 running decodes:
    ceil(32,768 / 7,936) = 5 steps, each also advancing the 256 decodes."""
    p = _whole("prompt_tokens", prompt_tokens)
    budget = _whole("max_num_batched_tokens", max_num_batched_tokens)
    d = _whole("running_decodes", running_decodes, 0)
    room = budget - d
    if room <= 0:
        raise ConfigError(f"running_decodes: the {d} decodes fill the {budget}-token budget; "
                          f"no room for a prompt chunk")
    return -(-p // room)


class Speculation(NamedTuple):
    """Speculative decoding with ``draft_tokens`` proposals per step and an i.i.d. acceptance
    rate (Leviathan et al. 2023, eq. 1 and Theorem 3.8)."""
    acceptance: float
    draft_tokens: int
    draft_cost: float          # one draft step's time / one target step's

    @property
    def tokens_per_step(self):
        """Expected tokens per target verification: (1 - a^(g+1)) / (1 - a)."""
        a, g = self.acceptance, self.draft_tokens
        return (1 - a ** (g + 1)) / (1 - a)

    @property
    def speedup(self):
        """Wall-time speed-up over plain decoding: tokens per step / (g x c + 1)."""
        return self.tokens_per_step / (self.draft_tokens * self.draft_cost + 1)


def speculative_decoding(acceptance, draft_tokens, draft_cost=0.0):
    """A small draft model proposes ``draft_tokens`` tokens; the target model checks them in
    one forward pass and keeps the accepted prefix plus one token of its own, with the same
    output distribution as decoding alone (Leviathan et al., ICML 2023; Chen et al., 2023).
    Acceptance 0.8, 4 draft tokens: (1 - 0.8^5) / 0.2 = 3.36 tokens per target pass; with a
    draft step costing 5% of a target step, 3.36 / 1.2 = 2.8x faster."""
    a = _fraction("acceptance", acceptance)
    g = _whole("draft_tokens", draft_tokens)
    c = _fraction("draft_cost", draft_cost, 0.0, 1.0, closed_hi=True)
    return Speculation(a, g, c)
