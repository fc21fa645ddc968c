"""What data parallelism adds to a step, against two CPU processes over gloo
(``measurements/comm_buffers.py``, ``measurements/comm_buffers.json``): DDP's gradient buckets,
the bf16 weights FSDP2 gathers as Accelerate wraps a model for the Trainer, the peak of both
loops with them, and the bytes their collectives move; and the traffic of ZeRO, tensor,
context and expert parallelism by hand."""

from fractions import Fraction

import pytest

import llmcourse as lc
from llmcourse.counts import param_count
from llmcourse.parallelism import DEEPSPEED_DEFAULTS, communication_volume
from llmcourse.training import training_memory

from stored_rows import rel  # noqa: E402  (also puts the repository root on sys.path)
from measurements import comm_buffers as C  # noqa: E402
from measurements.common import read_json  # noqa: E402

DATA = read_json(C.OUT)
ROWS = DATA["rows"]
HELD = [r for r in ROWS if r["setup"] != "tp"]   # the rows whose memory was tracked


def _engine(r):
    cfg = lc.from_hf_config(DATA["models"][r["model"]])
    settings = DATA["engine"][r["setup"]][r["mode"]]
    dp = 1 if r["setup"] == "tp" else DATA["world_size"]
    return cfg, training_memory(cfg, r["seq_len"], r["batch"], dp=dp,
                                first_micro_batch=r["loop"] == "first", **settings)


def _ids(rows):
    return [f"{r['setup']}-{r['mode']}-{r['model'].split()[0]}-{r['batch']}x{r['seq_len']}"
            f"-{r['loop']}" for r in rows]


def test_the_rows_cover_ddp_and_fsdp_both_loops_and_two_models():
    assert DATA["world_size"] == 2 and DATA["device"].startswith("CPU")
    assert {r["setup"] for r in ROWS} == {"ddp", "fsdp-zero3", "fsdp-zero2", "tp"}
    assert {r["loop"] for r in ROWS} == {"first", "accumulating"}
    assert {r["model"] for r in ROWS} == set(C.MODELS) == set(DATA["models"])


@pytest.mark.parametrize("r", HELD, ids=_ids(HELD))
def test_the_peak_with_the_tools_buffers_is_within_3_percent(r):
    _, m = _engine(r)
    base = m.params + m.optimizer + (m.grads if r["loop"] == "accumulating" else 0)
    # DDP's buckets exist before the measured micro-batch (allocated when DDP wraps the
    # model): they are in the engine's peak, not in the measured bytes above the states
    before = m.buffers.get("ddp_buckets", (0, 0, 0))[0]
    assert rel(m.peak_backward - base - before, r["peak_fwd_bwd"]) < 0.03
    held = m.total - m.states + m.transients["buffers_backward"] - before
    assert rel(held, r["end_of_forward"]) < 0.01


@pytest.mark.parametrize("r", [r for r in ROWS if r["setup"] == "ddp"],
                         ids=_ids([r for r in ROWS if r["setup"] == "ddp"]))
def test_ddps_buckets_are_one_more_gradient_sized_buffer(r):
    cfg, m = _engine(r)
    grad_bytes = 4 if r["mode"] == "fp32" else 2
    buckets = m.buffers["ddp_buckets"]
    assert buckets == (grad_bytes * param_count(cfg).total,) * 3   # held through the step too
    # what DDP keeps allocated once it has wrapped the model: the buckets, to the byte
    assert r["wrapped"] == buckets[0]
    # and what it all-reduces in a micro-batch: every bucket, once
    assert r["all_reduce"] == buckets[0]


@pytest.mark.parametrize("r", ROWS, ids=_ids(ROWS))
def test_the_collectives_move_what_the_engine_counts(r):
    cfg = lc.from_hf_config(DATA["models"][r["model"]])
    s = DATA["engine"][r["setup"]][r["mode"]]
    n = 2   # ring collectives: an all-reduce sends 2 (n - 1) / n of its bytes, the others (n - 1) / n
    if r["setup"] == "tp":
        # two all-reduces a layer forward, two backward; the embedding and lm_head stayed whole
        v = communication_volume(cfg, r["seq_len"], r["batch"], precision=s["precision"], tp=2)
        assert v.parts["tp_layers"] == 2 * (n - 1) * r["all_reduce"] // n
        return
    v = communication_volume(cfg, r["seq_len"], r["batch"], precision=s["precision"],
                             zero_stage=s["zero_stage"], dp=2)
    if r["setup"] == "ddp":
        assert v.parts["dp_gradients"] == 2 * (n - 1) * r["all_reduce"] // n
        assert "dp_weights" not in v.parts
    else:
        assert v.parts["dp_gradients"] == (n - 1) * r["reduce_scatter"] // n
        assert v.parts["dp_weights"] == (n - 1) * r["all_gather"] // n


def test_fsdp_zero3_gathers_everything_forward_and_all_but_the_tail_backward():
    for r in ROWS:
        if r["setup"] == "fsdp-zero3":
            cfg = lc.from_hf_config(DATA["models"][r["model"]])
            N = param_count(cfg).total
            tail = cfg.vocab_size * cfg.hidden_size + cfg.hidden_size   # lm_head + final norm
            assert r["all_gather"] == 2 * N + 2 * (N - tail)
            assert r["reduce_scatter"] == 2 * N


def test_fsdps_own_row_and_the_zero2_mapping_for_llama_3_1_8b():
    """The reviewer's figures: FSDP keeps fp32 sharded weights and grads (16N/n); FULL_SHARD
    holds the tail gathered at the start of backward, SHARD_GRAD_OP every bf16 weight:
    2N + 16N/n = 32.1 GB over 8 GPUs, not the 2N + 14N/n = 30.1 GB of bf16-mixed ZeRO-2."""
    cfg = lc.load_model("Llama-3.1-8B")
    N = param_count(cfg).total
    z3 = training_memory(cfg, 4096, 1, precision="fsdp-bf16", zero_stage=3, dp=8)
    assert z3.params == -(-4 * N // 8) and z3.grads == -(-4 * N // 8)
    assert z3.buffers["fsdp_unsharded"][0] == 2 * (cfg.vocab_size * cfg.hidden_size
                                                   + cfg.hidden_size)
    z2 = training_memory(cfg, 4096, 1, precision="fsdp-bf16", zero_stage=2, dp=8)
    held = z2.states + z2.buffers["fsdp_unsharded"][0]
    assert abs(held - (2 * N + 16 * N / 8)) < 100 and 32.0e9 < held < 32.2e9
    ds = training_memory(cfg, 4096, 1, precision="bf16-mixed", zero_stage=2, dp=8)
    assert 30.0e9 < ds.states < 30.2e9
    # the DeepSpeed run names its buckets for the reserve instead (default sizes)
    assert ds.reserve_buffers["deepspeed_reduce_bucket"] == 2 * DEEPSPEED_DEFAULTS[
        "reduce_bucket_size"]
    z3ds = training_memory(cfg, 4096, 1, precision="bf16-mixed", zero_stage=3, dp=8)
    assert z3ds.reserve_buffers["deepspeed_live_parameters"] == 2 * 10**9
    assert not z3ds.buffers


def test_ddp_buckets_count_in_the_step_and_not_without_data_parallelism():
    cfg = lc.load_model("Llama-3.1-8B")
    one = training_memory(cfg, 2048, 1, precision="bf16")
    ddp = training_memory(cfg, 2048, 1, precision="bf16", dp=8)
    assert not one.buffers and ddp.peak_step - one.peak_step == 2 * param_count(cfg).total


def test_zero_and_ddp_traffic_by_hand():
    """Per GPU and step, bf16 gradients and weights of Llama-3.1-8B over 8 GPUs: DDP's
    all-reduce 2 (n-1)/n x 2N; ZeRO-1/2 a reduce-scatter and an all-gather, the same
    volume; ZeRO-3 all-gathers twice more per micro-batch: 1.5 x (Rajbhandari et al. 2020)."""
    cfg = lc.load_model("Llama-3.1-8B")
    N = param_count(cfg).total
    ddp, z1, z3 = (communication_volume(cfg, 4096, 1, zero_stage=z, dp=8) for z in (0, 1, 3))
    assert ddp.total == -(-Fraction(2 * 7, 8) * 2 * N // 1)
    assert z1.total == ddp.total
    assert z3.total == -(-Fraction(7, 8) * 2 * N // 1) + -(-Fraction(7, 8) * 4 * N // 1)
    assert z3.total / ddp.total == pytest.approx(1.5, rel=1e-9)


def test_tensor_context_and_expert_traffic_by_hand():
    cfg = lc.load_model("Llama-3.1-8B")
    h, L, s = cfg.hidden_size, cfg.num_hidden_layers, 4096
    # Megatron TP: 2 all-reduces per layer forward, 2 backward, + embedding and lm_head input
    tp = communication_volume(cfg, s, 1, tp=8)
    assert tp.parts["tp_layers"] == 4 * L * 2 * s * h * 2 * 7 // 8
    assert tp.parts["tp_embedding_head"] == 2 * 2 * s * h * 2 * 7 // 8
    assert communication_volume(cfg, s, 1, tp=8, sp=True).parts == tp.parts
    # ring attention: K and V of s / cp tokens, cp - 1 hops forward, and K, V, dK, dV back
    cp = communication_volume(cfg, s, 1, cp=4)
    kv = 2 * cfg.num_key_value_heads * cfg.head_dim * 2 * (s // 4)
    assert cp.parts["cp_ring_kv"] == L * 3 * 3 * kv
    # expert parallelism: each token's hidden state to its k experts and back, forward and
    # backward, (ep - 1) / ep of it leaving the GPU
    mix = lc.load_model("Mixtral-8x7B-v0.1")
    ep = communication_volume(mix, s, 1, ep=8)
    k, Lm = mix.num_experts_per_tok, mix.num_hidden_layers
    assert ep.parts["ep_all_to_all"] == Lm * 4 * k * s * mix.hidden_size * 2 * 7 // 8
    with pytest.raises(lc.ConfigError, match="tp: must be a whole number"):
        communication_volume(cfg, s, tp=0.5)


# Re-measured now: FSDP2 as Accelerate wraps it, ZeRO-3, a tiny model on 2 CPU processes.
@pytest.mark.slow
def test_remeasure_fsdp_zero3_now():
    tiny = dict(model_type="llama", hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                num_key_value_heads=1, intermediate_size=64, vocab_size=2048, head_dim=16,
                max_position_embeddings=512, tie_word_embeddings=False)
    r = C.measure("fsdp-zero3", "fsdp", tiny, 1, 128, "first")
    m = training_memory(lc.from_hf_config(tiny), 128, 1, precision="fsdp-bf16",
                        optimizer="adamw-fused", zero_stage=3, dp=2, first_micro_batch=True)
    assert rel(m.peak_backward - m.params - m.optimizer, r["peak_fwd_bwd"]) < 0.03
    N = param_count(lc.from_hf_config(tiny)).total
    assert r["reduce_scatter"] == 2 * N


def _trainer_auto_buckets(hidden_size, stage):
    """What transformers 5.23's own Trainer code writes into a DeepSpeed config whose bucket
    sizes are "auto" (HfTrainerDeepSpeedConfig.trainer_config_finalize, run as written; its
    class is built on Accelerate's config reader, as it is when DeepSpeed is installed)."""
    import types
    from accelerate.utils.deepspeed import HfDeepSpeedConfig
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig as T

    class TrainerConfig(HfDeepSpeedConfig):
        is_auto, fill_match, fill_only = T.is_auto, T.fill_match, T.fill_only
        trainer_config_finalize = T.trainer_config_finalize

    auto = {"reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
            "stage3_param_persistence_threshold": "auto"}
    c = TrainerConfig({"zero_optimization": dict(auto, stage=stage)})
    c.mismatches = []
    model = types.SimpleNamespace(config=types.SimpleNamespace(hidden_size=hidden_size))
    c.trainer_config_finalize(types.SimpleNamespace(get_warmup_steps=lambda n: 0), model, 10)
    return c.config["zero_optimization"]


@pytest.mark.parametrize("stage", [2, 3])
def test_deepspeeds_buckets_at_the_trainers_auto_and_at_its_own_defaults(stage):
    """The Trainer's DeepSpeed setups name the buckets the Trainer's "auto" sizes (d^2, and
    0.9 d^2 to prefetch with ZeRO-3: about 34 MB in bf16 at d = 4096), read from
    transformers' own code; DeepSpeed on its own keeps its defaults (5e8 and 5e7 values,
    deepspeed/runtime/zero/config.py at commit edaa722: 1.0 and 0.1 GB)."""
    cfg = lc.load_model("Llama-3.1-8B")
    d = cfg.hidden_size
    filled = _trainer_auto_buckets(d, stage)
    assert filled["reduce_bucket_size"] == d * d
    mine = lc.parallelism.deepspeed_buckets("trainer-auto", d)
    assert mine["reduce_bucket_size"] == filled["reduce_bucket_size"]
    if stage == 3:
        assert mine["stage3_prefetch_bucket_size"] == filled["stage3_prefetch_bucket_size"] \
            == int(0.9 * d * d)
        assert mine["stage3_param_persistence_threshold"] == \
            filled["stage3_param_persistence_threshold"] == 10 * d
    setup = f"hf-trainer-deepspeed-zero{stage}"
    trainer = training_memory(cfg, 4096, 1, **lc.setup_settings(setup, dp=8))
    own = training_memory(cfg, 4096, 1, **lc.setup_settings(setup, dp=8,
                                                            deepspeed_buckets="deepspeed"))
    assert trainer.reserve_buffers["deepspeed_reduce_bucket"] == 2 * d * d == 33_554_432
    assert own.reserve_buffers["deepspeed_reduce_bucket"] == 2 * 5 * 10**8
    if stage == 3:
        assert trainer.reserve_buffers["deepspeed_prefetch_bucket"] == 2 * int(0.9 * d * d)
        assert own.reserve_buffers["deepspeed_prefetch_bucket"] == 2 * 5 * 10**7
        # the live-parameter limit is not "auto": DeepSpeed's 1e9 values either way
        assert trainer.reserve_buffers["deepspeed_live_parameters"] == 2 * 10**9
    assert trainer.peak == own.peak   # named for the reserve, not in the peak
    assert DEEPSPEED_DEFAULTS["stage3_prefetch_bucket_size"] == 5 * 10**7


def test_data_parallel_traffic_over_8_nodes_is_timed_at_the_network():
    """Qwen3-8B over 64 H100s (8 nodes of 8): DDP's 32.3 GB a step takes 0.65 s at 400 Gb/s
    per GPU, ZeRO-3's 48.4 GB 0.97 s, not the 72 and 108 ms of NVLink; tensor parallelism
    inside one node stays on NVLink (450 GB/s each way)."""
    cfg = lc.load_model("Qwen3-8B")
    ddp = communication_volume(cfg, 8192, 1, zero_stage=0, dp=64)
    z3 = communication_volume(cfg, 8192, 1, zero_stage=3, dp=64)
    assert round(ddp.total / 1e9, 1) == 32.3 and round(z3.total / 1e9, 1) == 48.4
    assert round(sum(ddp.seconds_by_link("H100", dp=64).values()), 2) == 0.65
    assert round(sum(z3.seconds_by_link("H100", dp=64).values()), 2) == 0.97
    rate, words = lc.parallelism.link_for("H100", 64)
    assert rate == 400e9 / 8 and words.startswith("across 8 nodes")
    rate, words = lc.parallelism.link_for("H100", 8)
    assert rate == 900e9 / 2 and words.startswith("within a node")
    one_node = communication_volume(cfg, 8192, 1, zero_stage=0, dp=8)
    assert one_node.seconds_by_link("H100", dp=8)["dp_gradients"] == \
        one_node.parts["dp_gradients"] / 450e9
    tp = communication_volume(cfg, 8192, 1, dp=8, tp=8)   # 64 GPUs: TP inside, DP across
    t = tp.seconds_by_link("H100", dp=8, tp=8)
    assert t["tp_layers"] == tp.parts["tp_layers"] / 450e9
    assert t["dp_gradients"] == tp.parts["dp_gradients"] / 50e9
