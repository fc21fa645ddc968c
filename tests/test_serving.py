"""vLLM's startup plan (llmcourse.serving): the parallelism rules, per-GPU KV and
weights, block arithmetic and refusals, checked against hand counts from config.json
fields and against figures printed in published vLLM logs (sources inline). The logs quoted
here ran 0.10/0.11, so their checks plan with ``vllm_version="0.11"``; what changed since is
in tests/test_vllm_releases.py."""

import math

import pytest

import llmcourse as lc
from llmcourse.config import ConfigError
from llmcourse.serving import (allreduce_seconds, check_parallelism, kv_bytes_per_token_per_gpu,
                               kv_heads_per_rank, vllm_defaults, vllm_plan, weights_per_gpu)

GiB = 2 ** 30


def test_h100_budget_uses_the_memory_the_runtime_reports():
    # vLLM logs on one H100 80GB: "total_gpu_memory (79.18GiB) x gpu_memory_utilization
    # (0.90) = 71.26GiB", not 0.9 x 80 GB = 67.06 GiB.
    plan = vllm_plan("Llama-3.1-8B", "H100", max_model_len=8192, vllm_version="0.11")
    assert round(plan.total_bytes / GiB, 2) == 79.18
    assert round(plan.requested_bytes / GiB, 2) == 71.26


def test_defaults_follow_vllm_by_gpu():
    # arg_utils._set_default_args (0.10): >= 70 GiB and not A100 -> 1024 seqs, 8192 tokens.
    for release in ("0.11", "0.31"):
        assert vllm_defaults("H100", vllm_version=release) == (1024, 8192)
        assert vllm_defaults("H200", vllm_version=release) == (1024, 8192)
        assert vllm_defaults("A100 SXM 80GB", vllm_version=release) == (256, 2048)
        assert vllm_defaults("L40S", vllm_version=release) == (256, 2048)
    # since v0.28.0 (vLLM PR 51726) GPUs of >= 160 GiB get 16,384 batched tokens for serve too
    assert vllm_defaults("B200", vllm_version="0.11") == (1024, 8192)
    assert vllm_defaults("B200", vllm_version="0.27") == (1024, 8192)
    assert vllm_defaults("B200", vllm_version="0.28") == (1024, 16384)
    assert vllm_defaults("B200") == (1024, 16384)


def test_tensor_parallel_must_divide_heads():
    with pytest.raises(ConfigError) as e:
        check_parallelism("Llama-3.1-8B", 3)
    msg = str(e.value)
    assert msg.startswith("tensor_parallel_size:") and "\n" not in msg
    assert "(32)" in msg and "(3)" in msg
    for tp in (1, 2, 4, 8):
        check_parallelism("Llama-3.1-8B", tp)
    with pytest.raises(ConfigError, match="^tensor_parallel_size:"):
        vllm_plan("Llama-3.1-8B", "H100", tensor_parallel_size=3)


def test_pipeline_stages_at_most_layers():
    with pytest.raises(ConfigError, match="^pipeline_parallel_size:"):
        check_parallelism("Llama-3.2-1B", 1, 17)   # 16 layers


def test_kv_heads_replicate_beyond_their_number():
    # Qwen3-30B-A3B: 48 layers, 4 KV heads of 128 (config.json). Hand count per token:
    # 2 (K, V) x heads x 128 x 48 x 2 bytes.
    whole = 2 * 4 * 128 * 48 * 2
    assert kv_heads_per_rank("Qwen3-30B-A3B", 2) == 2
    assert kv_heads_per_rank("Qwen3-30B-A3B", 4) == 1
    assert kv_heads_per_rank("Qwen3-30B-A3B", 8) == 1          # a replica
    assert kv_bytes_per_token_per_gpu("Qwen3-30B-A3B", 4) * 4 == whole
    assert kv_bytes_per_token_per_gpu("Qwen3-30B-A3B", 8) * 8 == 2 * whole  # cache doubles


def test_mla_latent_is_whole_on_every_rank():
    # DeepSeek-V3: 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64, bf16.
    per_token = 61 * (512 + 64) * 2
    assert kv_heads_per_rank("DeepSeek-V3", 8) is None
    for tp in (1, 8):
        assert kv_bytes_per_token_per_gpu("DeepSeek-V3", tp) == per_token


def test_deepseek_v3_on_8_h200_holds_about_18_sequences_of_32k():
    # The ideal pool says 148; per rank, with the latent on every GPU, about 18 under 0.11
    # (0.9 of 139.72 GiB), about 22 under the current release (0.92, the smaller sampler peak).
    plan = vllm_plan("DeepSeek-V3", "H200", tensor_parallel_size=8, max_model_len=32768,
                     vllm_version="0.11")
    assert plan.starts
    assert 15 <= plan.max_concurrency <= 20
    now = vllm_plan("DeepSeek-V3", "H200", tensor_parallel_size=8, max_model_len=32768)
    assert plan.max_concurrency < now.max_concurrency <= 25
    ideal = lc.max_batch("DeepSeek-V3", "H200", n_gpus=8, seq_len=32768)
    assert ideal == 148 and ideal > 5 * plan.max_concurrency


def test_pipeline_stage_holds_its_share_of_layers():
    # Llama-3.1-8B, 32 layers: two stages hold 16 each.
    assert kv_bytes_per_token_per_gpu("Llama-3.1-8B", 1, 2) * 2 == \
        kv_bytes_per_token_per_gpu("Llama-3.1-8B", 1, 1)


def test_weights_split_over_ranks_but_norms_replicate():
    w1 = weights_per_gpu("Llama-3.1-8B", 1)
    w2 = weights_per_gpu("Llama-3.1-8B", 2)
    norms = (2 * 32 + 1) * 4096 * 2          # 65 RMSNorm vectors of hidden_size, bf16
    rope = 131072 * 128 * 2                  # max_position_embeddings x head_dim, bf16
    stored = lc.stored_weights("Llama-3.1-8B", "as shipped").total
    assert stored == 8_030_261_248 * 2
    assert w1 == stored + rope
    assert w2 == (stored - norms) // 2 + norms + rope
    # vLLM's log for Llama-3.1-8B on one GPU: "Model loading took 14.9888 GiB"
    # (e.g. the V0 and V1 startup logs quoted in vllm-project/vllm issues).
    assert f"{w1 / GiB:.4f}" == "14.9888"


def test_block_arithmetic_reproduces_a_published_token_count():
    # Qwen3-32B on one H100 (the log): "Available KV cache memory: 4.45 GiB".
    # 64 layers x 8 KV heads x 128 x 2 x 2 bytes = 262,144 bytes per token; the log's
    # 4.45 GiB (two decimals: +-0.005 GiB) holds about 18,200 tokens in blocks of 16.
    per_token = 64 * 8 * 128 * 2 * 2
    assert kv_bytes_per_token_per_gpu("Qwen3-32B") == per_token
    req = math.floor(0.9 * round(79.18 * GiB))
    plan = vllm_plan("Qwen3-32B", "H100", max_model_len=16384,
                     weight_bytes=req - round(4.45 * GiB), activation_bytes=0,
                     non_torch_bytes=0, vllm_version="0.11")
    assert plan.kv_tokens % 16 == 0
    assert abs(plan.kv_tokens - 4.45 * GiB / per_token) <= 0.005 * GiB / per_token + 16
    assert 18_100 <= plan.kv_tokens <= 18_300


def test_refuses_when_one_request_of_max_model_len_does_not_fit():
    # vllm-project/vllm issue 13061: DeepSeek-R1-Distill-Qwen-14B (Qwen2 shape: 48 layers,
    # 8 KV heads of 128) on two RTX 4090s, TP=2, utilization 0.98, max_model_len 131072;
    # logged weights 13.9476 GiB, non-torch 0.25 GiB, activations 0.19 GiB -> refused.
    cfg = {"model_type": "qwen2", "hidden_size": 5120, "num_attention_heads": 40,
           "num_key_value_heads": 8, "num_hidden_layers": 48, "intermediate_size": 13824,
           "vocab_size": 152064, "max_position_embeddings": 131072,
           "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
    cfg = lc.from_hf_config(cfg, name="DeepSeek-R1-Distill-Qwen-14B")
    plan = vllm_plan(cfg, "RTX 4090", tensor_parallel_size=2, gpu_memory_utilization=0.98,
                     weight_bytes=round(13.9476 * GiB), non_torch_bytes=round(0.25 * GiB),
                     activation_bytes=round(0.19 * GiB), vllm_version="0.11")
    assert abs(plan.kv_budget_bytes / GiB - 8.69) < 0.02      # the log's KV figure
    assert not plan.starts
    assert "max seq len (131072)" in plan.reason and "max_model_len" in plan.reason
    # and with the course's own estimates instead of the logged figures, still refused
    assert not vllm_plan(cfg, "RTX 4090", tensor_parallel_size=2,
                         gpu_memory_utilization=0.98).starts


def test_max_model_len_beyond_the_model_is_a_one_line_error():
    with pytest.raises(ConfigError) as e:
        vllm_plan("Llama-3.2-1B", "H100", max_model_len=10 ** 6)
    assert str(e.value).startswith("max_model_len:") and "\n" not in str(e.value)


def test_int4_kv_is_not_a_vllm_cache_dtype():
    with pytest.raises(ConfigError, match="^kv_cache_dtype:"):
        vllm_plan("Llama-3.1-8B", "H100", kv_cache_dtype="int4")
    fp8 = vllm_plan("Llama-3.1-8B", "H100", kv_cache_dtype="fp8", max_model_len=8192)
    bf16 = vllm_plan("Llama-3.1-8B", "H100", max_model_len=8192)
    assert fp8.kv_bytes_per_token * 2 == bf16.kv_bytes_per_token == 32 * 8 * 128 * 2 * 2


def test_no_memory_left_is_refused_in_vllms_words():
    plan = vllm_plan("Qwen3-32B", "L40S", max_model_len=4096)   # 61 GiB of weights on 45 GiB
    assert not plan.starts and plan.reason.startswith("No available memory for the cache blocks")


def test_allreduce_ring_time():
    # 2 (tp-1)/tp x bytes over half the 900 GB/s NVLink figure (one direction).
    assert allreduce_seconds("H100", 8192, 2) == pytest.approx(8192 / 450e9)
    assert allreduce_seconds("H100", 8192, 1) == 0.0


def test_decode_per_gpu_adds_two_allreduces_per_layer():
    from llmcourse.serving import decode_step_per_gpu
    one = lc.decode_step_time("Llama-3.1-8B", "H100", 1, "bf16", seq_len=8192)
    two = decode_step_per_gpu("Llama-3.1-8B", "H100", 2, "bf16", seq_len=8192)
    # each GPU reads half the weights and half the cache (4 of 8 KV heads) over 3.35 TB/s
    assert two.t_memory == pytest.approx(one.bytes_read / 2 / 3.35e12)
    # 32 layers x 2 all-reduces of 4,096 bf16 values, ring over 2 GPUs at 450 GB/s each way
    assert two.t_allreduce == pytest.approx(64 * (2 * 1 / 2) * 8192 / 450e9)
    assert two.seconds > one.seconds / 2


def test_decode_per_gpu_with_replicated_kv_reads_more_than_the_pool():
    from llmcourse.serving import decode_step_per_gpu
    pool = lc.decode_step_time("Qwen3-30B-A3B", "H100", 8, "bf16", seq_len=32768, batch=8)
    per = decode_step_per_gpu("Qwen3-30B-A3B", "H100", 8, "bf16", seq_len=32768, batch=8)
    # the pool spreads the 4 KV heads over 8 GPUs; vLLM gives each GPU a whole one
    assert per.kv_bytes == pytest.approx(2 * pool.kv_bytes / 8)


def test_a_tower_is_loaded_unless_every_modality_it_serves_is_limited_to_0():
    # vLLM builds a tower inside SupportsMultiModal._mark_tower_model(vllm_config,
    # modalities), skipped "when --limit-mm-per-prompt is set to zero for all of their
    # modalities" (a vision tower serves image and video); --language-model-only sets them all
    from llmcourse.towers import tower_tensors
    cfg = lc.load_model("gemma-4-E2B")
    def stored(kind):   # bf16 tensors; buffers (the audio tower's) in float32
        return sum(t.numel * t.per_expert * (4 if t.buffer else 2)
                   for t in tower_tensors(cfg) if t.component == kind)
    audio, vision = stored("audio"), stored("vision")
    whole = lc.vllm_plan(cfg, "H100", max_model_len=4096)
    assert whole.towers == ("vision", "audio")
    no_audio = lc.vllm_plan(cfg, "H100", max_model_len=4096, limit_mm_per_prompt={"audio": 0})
    assert no_audio.towers == ("vision",)
    assert whole.weight_bytes - no_audio.weight_bytes == audio
    # image at 0 alone keeps the vision tower (video still allowed), both at 0 drop it
    half = lc.vllm_plan(cfg, "H100", max_model_len=4096, limit_mm_per_prompt={"image": 0})
    assert half.towers == ("vision", "audio")
    text = lc.vllm_plan(cfg, "H100", max_model_len=4096,
                        limit_mm_per_prompt={"image": 0, "video": 0, "audio": 0})
    assert text.towers == () and whole.weight_bytes - text.weight_bytes == audio + vision
    assert lc.vllm_plan(cfg, "H100", max_model_len=4096,
                        language_model_only=True).weight_bytes == text.weight_bytes
    assert not text.caveats and whole.caveats       # no encoder to profile, so nothing to say
    with pytest.raises(ConfigError, match="^limit_mm_per_prompt:"):
        lc.vllm_plan(cfg, "H100", limit_mm_per_prompt={"images": 0})


def test_rocm_non_torch_memory_is_stated_from_a_rocm_launch():
    # gemma-4-E2B on an MI300X VF (vllm_logs.json): 11.88 GiB weights + non-torch, 9.00 of it
    # weights with the audio tower out
    p = lc.vllm_plan("gemma-4-E2B", "MI300X", max_model_len=32768,
                     limit_mm_per_prompt={"audio": 0}, vllm_version="0.29")
    assert round(p.weight_bytes / 2**30, 2) == 9.00
    assert p.non_torch_bytes == lc.serving.NON_TORCH_BYTES_ROCM == round(2.88 * 2**30)
    assert any("ROCm" in c for c in p.caveats)
    cuda = lc.vllm_plan("gemma-4-E2B", "H100", max_model_len=32768)
    assert cuda.non_torch_bytes == lc.serving.NON_TORCH_BYTES


def test_an_nvfp4_checkpoint_is_planned_from_its_stored_bytes_per_rank():
    # nvidia/Qwen3-8B-NVFP4 as shipped (its quantization_config, header-checked in
    # tests/test_quantization_formats.py: 6,396,932,352 B of tensors): vLLM loads that,
    # split over the ranks but for the replicated norms (2 x 36 + 1 vectors of 4,096 in
    # bf16), plus the rotary cache (40,960 positions x 128 x 2 B) on each rank
    import json
    from pathlib import Path
    fx = json.loads((Path(__file__).parent / "fixtures" / "quantized_checkpoints.json")
                    .read_text(encoding="utf-8"))
    w = next(c for c in fx["checkpoints"] if c["id"] == "nvidia-qwen3-8b-nvfp4")
    raw = json.loads((Path(lc.__file__).parent / "configs" / "Qwen3-8B.json")
                     .read_text(encoding="utf-8"))
    cfg = lc.from_hf_config(dict(raw, quantization_config=w["quantization_config"]))
    payload = w["tensor_payload_bytes"]
    assert payload == 6_396_932_352
    norms, rope = (2 * 36 + 1) * 4096 * 2, 40960 * 128 * 2
    for tp in (1, 2, 4):
        plan = lc.vllm_plan(cfg, "B200", tensor_parallel_size=tp, max_model_len=8192)
        assert plan.weight_bytes == (payload - norms) // tp + norms + rope


def test_a_config_without_positions_gets_vllms_assumed_length():
    """BLOOM's config (ALiBi) has no max_position_embeddings. vLLM's _get_and_verify_max_len
    then takes the smallest of its other length fields, or logs "Assuming the model's maximum
    length is 2048" when there are none; the plan does the same and says so."""
    bloom = lc.from_hf_config({"model_type": "bloom"})
    plan = lc.vllm_plan(bloom, "H100")
    assert plan.max_model_len == 2048 and plan.starts
    assert any("assumes 2,048" in c for c in plan.caveats)
    longer = lc.from_hf_config({"model_type": "bloom", "seq_length": 4096})
    assert lc.vllm_plan(longer, "H100").max_model_len == 4096
    assert lc.vllm_plan(bloom, "H100", max_model_len=1024).caveats == ()
