"""Lessons 11 and 12's explorers: engine values in their tables, a one-line message for
an impossible setting, and recovery; the pipeline figure's schedule against the engine's
bubble."""

import pytest

import llmcourse as lc


def _fsdp(**kw):
    """The explorer's default tool: the Hugging Face Trainer with FSDP full_shard."""
    return lc.setup_settings("hf-trainer-fsdp", **kw)


def test_memory_explorer_shows_the_engine_values_and_recovers():
    ex = lc.widgets.EXPLORERS["training"]()
    assert ex.error == "" and ex.values["tool"] == "HF Trainer + FSDP full_shard"
    cfg = lc.load_model("Llama-3.1-8B")
    m8 = lc.training_memory(cfg, 8192, 1, **_fsdp(dp=8))
    assert ex.value("total") == m8.total and ex.value("peak") == m8.peak_first_micro_batch
    assert ex.value("fsdp_unsharded") == m8.buffers["fsdp_unsharded"][0]
    ex.set(recompute="full", n_gpus=1)
    m = lc.training_memory(cfg, 8192, 1, recompute="full", **_fsdp(dp=1))
    assert ex.value("total") == m.total
    # the verdict is the peak against 90% of 80 GB
    assert ex.value("peak") == m.peak > 0.9 * lc.load_gpu("H100").memory_bytes
    assert "does not fit" in next(r.text for r in ex.rows if r.key == "peak")
    m2 = lc.training_memory(cfg, 8192, 1, recompute="full", **_fsdp(dp=2))
    assert ex.value("fewest_gpus") == 2 and m2.peak <= 0.9 * lc.load_gpu("H100").memory_bytes
    ex.set(n_gpus=0)
    assert ex.error.startswith("n_gpus:") and "\n" not in ex.error
    ex.set(n_gpus=8)
    assert ex.error == ""
    assert "of 131,072 tokens" in next(r.text for r in ex.rows if r.key == "seq_len")
    ex.set(model="Qwen3-30B-A3B", seq_len=65536)
    assert "beyond the model's 40,960-token context" in next(
        r.text for r in ex.rows if r.key == "seq_len")


def test_memory_explorer_shows_lora_and_qlora_peaks():
    ex = lc.widgets.EXPLORERS["training"]()
    ex.set(seq_len=4096, recompute="full")
    cfg = lc.load_model("Llama-3.1-8B")
    for base, key in (("bf16", "lora"), ("nf4", "qlora")):
        m = lc.lora_memory(cfg, 4096, 1, r=16, target_modules="all-linear", base=base,
                           recompute="full")
        assert ex.value(key) == m.peak
    ex.set(model="gemma-4-31B")            # Gemma 4's adapters: with full recomputation
    assert ex.error == "" and ex.value("lora") == lc.lora_memory(
        "gemma-4-31B", 4096, 1, r=16, target_modules="all-linear", recompute="full").peak
    ex.set(recompute="none")               # not counted yet without it: said, no error
    assert ex.error == "" and "not counted for gemma4_text with recompute='none'" in next(
        r.text for r in ex.rows if r.key == "lora")
    ex.set(model="Qwen3-30B-A3B")          # routed experts: the adapter rows are left out
    assert ex.error == "" and all(r.key not in ("lora", "qlora") for r in ex.rows)


@pytest.mark.parametrize("label,setup", [(k, v) for k, v in
                                         lc.widgets.training.TOOLS.items() if v])
def test_a_tool_sets_the_engines_setup_and_shows_both_loops(label, setup):
    """Each tool of the menu is one of the engine's named setups: the table and the bars are
    its numbers, its loop's peak the one judged, both loops named."""
    ex = lc.widgets.EXPLORERS["training"]()
    ex.set(tool=label, seq_len=4096)
    assert ex.error == "" and ex.values["tool"] == label
    m = lc.training_memory("Llama-3.1-8B", 4096, 1, **lc.setup_settings(setup, dp=8))
    assert ex.value("peak") == m.peak
    assert (ex.value("peak_first_micro_batch"), ex.value("peak_accumulating")) == (
        m.peak_first_micro_batch, m.peak_accumulating)
    assert ex.value("bytes_per_param") == lc.bytes_per_param(m.settings["precision"],
                                                             m.settings["optimizer"])
    for key, (start, _, _) in m.buffers.items():
        assert ex.value(key) == start
    if m.reserve_buffers:
        assert ex.value("reserve_buffers") == sum(m.reserve_buffers.values())


def test_changing_what_a_tool_sets_makes_it_your_own_and_back():
    ex = lc.widgets.EXPLORERS["training"]()
    tools = {v: k for k, v in lc.widgets.training.TOOLS.items()}
    # gradient accumulation is the Trainer's own setting: still the Trainer with FSDP
    ex.set(loop="accumulating: gradients exist")
    assert ex.values["tool"] == tools["hf-trainer-fsdp"]
    assert ex.value("peak") == lc.training_memory(
        "Llama-3.1-8B", 8192, 1, **_fsdp(dp=8, first_micro_batch=False)).peak
    ex.set(precision="amp-bf16")           # FSDP without a MixedPrecision policy: your own
    assert ex.values["tool"] == tools[None]
    ex.set(precision="fsdp-bf16")          # back to what the tool sets
    assert ex.values["tool"] == tools["hf-trainer-fsdp"]
    ex.set(tool=tools["hf-trainer-deepspeed-zero3"])
    ex.set(loop="no accumulation: first micro-batch")   # DeepSpeed keeps its gradient buffers
    assert ex.values["tool"] == tools[None]


def test_the_bars_are_what_a_gpu_holds_at_its_peak():
    """Each bar's parts sum to the peak and none is negative, whichever moment decides it:
    the start of backward (a first micro-batch holds no gradient yet), a layer recomputed,
    or the optimizer step (the activations freed)."""
    import itertools
    from llmcourse.plots.training import peak_parts
    moments = set()
    for model, precision, zero, first, recompute, attention in itertools.product(
            ("Llama-3.1-8B", "Qwen3-30B-A3B", "gemma-3-1b-it", "Qwen3-14B", "phi-2"),
            ("bf16", "bf16-mixed", "amp-bf16", "fsdp-bf16"), (0, 1, 3), (False, True),
            ("none", "full"), ("flash", "eager")):
        if precision == "fsdp-bf16" and zero == 1:
            continue   # FSDP has no optimizer-only stage
        m = lc.training_memory(model, 4096, 1, precision=precision, zero_stage=zero, dp=4,
                               first_micro_batch=first, recompute=recompute,
                               attention=attention)
        parts = peak_parts(m)
        assert sum(parts.values()) == m.peak and min(parts.values()) >= 0
        if first and m.peak_decided_by.startswith("the start"):
            assert parts["grads"] == m.grads - m.transients["grads_not_yet"]
        moments.add(m.peak_decided_by.split(" (")[0])
    assert len(moments) == 3   # every moment was met


def test_compute_explorer_time_layout_and_pipeline():
    ex = lc.widgets.EXPLORERS["compute"]()
    assert ex.error == ""
    cfg = lc.load_model("Llama-3.1-8B")
    c = lc.training_flops(cfg, 20 * lc.param_count(cfg).total, 8192).model
    # 64 GPUs at 50% of peak while computing, 4 stages with 8 micro-batches idling
    # (4 - 1) / (8 + 4 - 1) of each step, 20 tokens per parameter: C / (64 x peak x 0.5 x
    # (1 - 3/11)) seconds, and the run reports an MFU of 0.5 x 8/11
    peak = lc.load_gpu("H100").peak("bf16")
    assert ex.value("seconds") == round(c / (64 * peak * 0.5 * (1 - 3 / 11)))
    assert abs(ex.value("mfu") - 0.5 * 8 / 11) < 1e-12
    mega = lambda **kw: lc.setup_settings("megatron", **kw)   # noqa: E731
    m = lc.training_memory(cfg, 8192, 1, **mega(dp=16, pp=4, num_micro_batches=8))
    assert ex.value("peak") == m.peak and ex.value("pp_stage") == m.pipeline["stage"] == 0
    assert ex.value("bubble") == 3 / 11                  # (4 - 1) / (8 + 4 - 1)
    ex.set(pp_schedule="GPipe (all forwards first)")
    g = lc.training_memory(cfg, 8192, 1, **mega(dp=16, pp=4, pp_schedule="gpipe",
                                                num_micro_batches=8))
    assert ex.value("peak") == g.peak > m.peak           # GPipe keeps all 8 in flight
    ex.set(convention="full (PaLM, Megatron)")
    full = lc.training_flops(cfg, 20 * lc.param_count(cfg).total, 8192, convention="full").model
    assert ex.value("seconds") == round(full / (64 * peak * 0.5 * (1 - 3 / 11)))
    ex.set(tp=8, sp="on (Megatron --sequence-parallel)", pp=1)
    assert ex.error == "" and ex.value("dp") == 8
    assert ex.value("activations") == lc.training_memory(cfg, 8192, 1, **mega(dp=8, tp=8,
                                                                               sp=True)).activations
    ex.set(n_gpus=12)
    assert ex.error.startswith("n_gpus: must be a multiple of")
    ex.set(n_gpus=64)
    assert ex.error == ""


def test_time_pays_for_the_bubble_and_the_recomputation():
    """The lesson 12 reviewer's case: 64 H100s, Llama-3.1-8B, Chinchilla's tokens: without a
    pipeline, with 8 stages and 8 micro-batches (a bubble of 7/15, 47%) and with full
    recomputation, the explorer once showed 3.8 days for each. At one utilization while
    computing, the bubble divides the time by 1 - 7/15 and full recomputation multiplies it
    by the FLOPs run over the model's (its forward again: 8 of every 6 matmul FLOPs, and one
    more attention forward); the MFU the run reports falls by the same factors."""
    from llmcourse.widgets.training import compute_rows

    def rows(**kw):
        return {r.key: r.value for r in compute_rows("Llama-3.1-8B", 8192, "H100 SXM 80GB", 64,
                                                     utilization=0.5, zero_stage=1, **kw)}
    plain = rows()
    piped = rows(pp=8, num_micro_batches=8)
    recomputed = rows(recompute="full")
    cfg = lc.load_model("Llama-3.1-8B")
    f = lc.training_flops(cfg, 20 * lc.param_count(cfg).total, 8192, recompute="full")
    peak = lc.load_gpu("H100").peak("bf16")
    assert plain["seconds"] == round(f.model / (64 * peak * 0.5))
    assert abs(plain["seconds"] / 86400 - 3.0) < 0.05 and plain["mfu"] == 0.5
    assert piped["seconds"] == round(f.model / (64 * peak * 0.5 * (1 - 7 / 15)))
    assert abs(piped["mfu"] - 0.5 * 8 / 15) < 1e-12
    # the FLOPs run: 6 N D + 3 A for the model, 2 N D + A more for the recomputed forward
    fpt = lc.flops_per_token(cfg, 8192, "prefill")
    assert f.hardware == f.model + (fpt.matmul + fpt.attention) * f.tokens
    assert recomputed["hardware_flops"] == f.hardware and "hardware_flops" not in plain
    assert recomputed["seconds"] == round(f.hardware / (64 * peak * 0.5))
    assert abs(recomputed["mfu"] - 0.5 * f.model / f.hardware) < 1e-12
    assert 1.33 < recomputed["seconds"] / plain["seconds"] < 4 / 3   # attention's share: 3/4


def test_an_mfu_already_holds_the_bubble():
    """Given the run's own MFU, the time is C / (n x peak x MFU) whatever the layout; a
    bubble is refused there (it is inside the MFU), and added only to a utilization."""
    cfg = lc.load_model("Llama-3.1-8B")
    f = lc.training_flops(cfg, 10**12, 8192, recompute="full")
    peak = lc.load_gpu("H100").peak("bf16")
    assert lc.training_time(f, "H100", 256, 0.4) == f.model / (256 * peak * 0.4)
    assert lc.training_time(f, "H100", 256, utilization=0.4, bubble=0.25) == \
        f.hardware / (256 * peak * 0.4 * 0.75)
    with pytest.raises(lc.ConfigError, match="^bubble: an MFU already includes"):
        lc.training_time(f, "H100", 256, 0.4, bubble=0.25)
    with pytest.raises(lc.ConfigError, match="^mfu: give mfu"):
        lc.training_time(f, "H100", 256, 0.4, utilization=0.5)
    with pytest.raises(lc.ConfigError, match="^bubble: must be a fraction in"):
        lc.training_time(f, "H100", 256, utilization=0.5, bubble=1)
    secs = lc.training_time(f, "H100", 256, utilization=0.5, bubble=0.2)
    assert abs(lc.training.run_mfu(f, secs, "H100", 256) - 0.5 * 0.8 * f.model / f.hardware) < 1e-12


@pytest.mark.parametrize("schedule,v", [("1f1b", 1), ("gpipe", 1), ("interleaved-1f1b", 2),
                                        ("interleaved-1f1b", 4), ("zero-bubble-h1", 1)])
def test_the_pipeline_figure_idles_as_the_engine_says(schedule, v):
    """The schedule drawn (a forward 1 unit, a backward 2; a chunk 1/v of both; ZB-H1's
    input and weight gradients 1 each; each as early as its inputs allow, in the schedule's
    order) idles each GPU exactly the engine's bubble, and each GPU holds at most the
    micro-batches the engine says (counted until their backward, or ZB-H1's W; in chunks
    over v when interleaved)."""
    from fractions import Fraction
    from llmcourse.plots.training import pipeline_idle, pipeline_timeline
    freed_by = "W" if schedule == "zero-bubble-h1" else "B"
    for p in (1, 2, 4, 8):
        for m in (1, 3, 8, 32):
            if (schedule == "interleaved-1f1b" and m % p) or (
                    schedule == "zero-bubble-h1" and m < p):
                continue
            blocks = pipeline_timeline(p, m, schedule, v)
            assert pipeline_idle(blocks, m) == lc.training.pipeline_bubble(p, m, schedule, v)
            for stage in range(p):
                live, most = 0, 0
                for b in sorted((b for b in blocks if b.stage == stage), key=lambda b: b.start):
                    live += (b.kind == "F") - (b.kind == freed_by)
                    most = max(most, live)
                assert Fraction(most, v) == lc.training.in_flight_micro_batches(
                    stage, p, m, schedule, v)


def test_pipeline_timeline_refuses_what_it_cannot_draw():
    from llmcourse.plots.training import pipeline_timeline
    with pytest.raises(ValueError, match="pp_schedule"):
        pipeline_timeline(4, 8, "zero-bubble")
    with pytest.raises(ValueError, match="num_micro_batches"):
        pipeline_timeline(4, 0)
    with pytest.raises(ValueError, match="num_micro_batches: must be a multiple of pp=4"):
        pipeline_timeline(4, 6, "interleaved-1f1b", 2)
    with pytest.raises(ValueError, match="num_micro_batches: must be at least pp=4"):
        pipeline_timeline(4, 2, "zero-bubble-h1")
    with pytest.raises(ValueError, match="virtual_stages"):
        pipeline_timeline(4, 8, "1f1b", 2)


def test_fsdp_bars_carry_fsdps_own_strategy_names():
    """FSDP has no optimizer-only stage: with the Trainer's FSDP the bars and the sharding
    menu are FSDP's NO_SHARD, SHARD_GRAD_OP and FULL_SHARD; with DeepSpeed, ZeRO 0-3."""
    ex = lc.widgets.EXPLORERS["training"]()
    labels = lambda: ex.fig._lc_training_state["labels"]   # noqa: E731
    assert labels() == ["FSDP NO_SHARD", "FSDP SHARD_GRAD_OP", "FSDP FULL_SHARD"]
    assert list(ex.controls["zero_stage"].options) == [0, 2, 3]
    assert "FSDP FULL_SHARD" in next(r.label for r in ex.rows if r.key == "fewest_gpus")
    ex.set(tool="HF Trainer + DeepSpeed ZeRO-3")
    assert ex.error == "" and labels() == ["no ZeRO (DDP)", "ZeRO-1", "ZeRO-2", "ZeRO-3"]
    assert list(ex.controls["zero_stage"].options) == [0, 1, 2, 3]
    ex.set(tool="Megatron-LM")                   # ZeRO-1, then FSDP again: no stage 1 there
    ex.set(tool="HF Trainer + FSDP shard_grad_op")
    assert ex.error == "" and ex.values["zero_stage"] == 2
    assert ex.values["tool"] == "HF Trainer + FSDP shard_grad_op"
    fig = lc.plots.training_memory_by_zero_stage("Qwen3-8B", 2048, precision="fsdp-bf16")
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert ticks == ["FSDP NO_SHARD", "FSDP SHARD_GRAD_OP", "FSDP FULL_SHARD"]


def test_a_trainer_tool_frees_the_logits_in_the_explorer():
    ex = lc.widgets.EXPLORERS["training"]()
    ex.set(seq_len=4096)
    m = lc.training_memory("Llama-3.1-8B", 4096, 1, **lc.setup_settings("hf-trainer-fsdp", dp=8))
    assert ex.value("logits") == m.logits and ex.value("hold_outputs") == 0
    ex.set(tool="PyTorch AMP loop")
    held = lc.training_memory("Llama-3.1-8B", 4096, 1, **lc.setup_settings("pytorch-amp", dp=8))
    assert ex.value("logits") == held.logits and ex.value("hold_outputs") == 1
    assert held.activation_terms["logits"] == 2 * 128256 * 4096
