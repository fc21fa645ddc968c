"""Lessons 11 and 12's explorers: engine values in their tables, a one-line message for
an impossible setting, and recovery; the pipeline figure's schedule against the engine's
bubble."""

import pytest

import llmcourse as lc


def test_memory_explorer_shows_the_engine_values_and_recovers():
    ex = lc.widgets.EXPLORERS["training"]()
    assert ex.error == ""
    cfg = lc.load_model("Llama-3.1-8B")
    assert ex.value("total") == lc.training_memory(cfg, 8192, 1, zero_stage=3, dp=8).total
    ex.set(recompute="full", n_gpus=2)
    m = lc.training_memory(cfg, 8192, 1, zero_stage=3, dp=2, recompute="full")
    assert ex.value("total") == m.total
    # the verdict is the peak (loss gradients at the start of backward) against 90% of 80 GB
    assert ex.value("peak") == m.peak > 0.9 * lc.load_gpu("H100").memory_bytes
    assert "does not fit" in next(r.text for r in ex.rows if r.key == "peak")
    m3 = lc.training_memory(cfg, 8192, 1, zero_stage=3, dp=3, recompute="full")
    assert ex.value("fewest_gpus") == 3 and m3.peak <= 0.9 * lc.load_gpu("H100").memory_bytes
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
    ex.set(model="Qwen3-30B-A3B")          # routed experts: the adapter rows are left out
    assert ex.error == "" and all(r.key not in ("lora", "qlora") for r in ex.rows)


def test_memory_explorer_chunked_loss_lowers_the_peak():
    ex = lc.widgets.EXPLORERS["training"]()
    plain = ex.value("peak")
    ex.set(loss="chunked (1,024 tokens)")
    cfg = lc.load_model("Llama-3.1-8B")
    m = lc.training_memory(cfg, 8192, 1, zero_stage=3, dp=8, loss="chunked", loss_chunk=1024)
    assert ex.value("peak") == m.peak < plain


def test_compute_explorer_time_layout_and_pipeline():
    ex = lc.widgets.EXPLORERS["compute"]()
    assert ex.error == ""
    cfg = lc.load_model("Llama-3.1-8B")
    c = lc.training_flops(cfg, 20 * lc.param_count(cfg).total, 8192).model
    # 64 GPUs at 40% MFU for 20 tokens per parameter: C / (64 x peak x 0.4), in seconds
    assert ex.value("seconds") == round(c / (64 * lc.load_gpu("H100").peak("bf16") * 0.4))
    m = lc.training_memory(cfg, 8192, 1, zero_stage=1, dp=16, pp=4, num_micro_batches=8)
    assert ex.value("peak") == m.peak and ex.value("pp_stage") == m.pipeline["stage"] == 0
    assert ex.value("bubble") == 3 / 11                  # (4 - 1) / (8 + 4 - 1)
    ex.set(pp_schedule="GPipe (all forwards first)")
    g = lc.training_memory(cfg, 8192, 1, zero_stage=1, dp=16, pp=4, pp_schedule="gpipe",
                           num_micro_batches=8)
    assert ex.value("peak") == g.peak > m.peak           # GPipe keeps all 8 in flight
    ex.set(convention="full (PaLM, Megatron)")
    full = lc.training_flops(cfg, 20 * lc.param_count(cfg).total, 8192, convention="full").model
    assert ex.value("seconds") == round(full / (64 * lc.load_gpu("H100").peak("bf16") * 0.4))
    ex.set(tp=8, sp="on (Megatron --sequence-parallel)", pp=1)
    assert ex.error == "" and ex.value("dp") == 8
    assert ex.value("activations") == lc.training_memory(cfg, 8192, 1, zero_stage=1, dp=8, tp=8,
                                                         sp=True).activations
    ex.set(n_gpus=12)
    assert ex.error.startswith("n_gpus: must be a multiple of")
    ex.set(n_gpus=64)
    assert ex.error == ""


def test_recomputation_time_is_shown_beside_the_mfu_time():
    """MFU counts the model's FLOPs; recomputation is extra hardware work, shown in its own
    row: full recomputation redoes the forward (6·N·D becomes 8·N·D: 4/3 of the time at
    the same utilization)."""
    from llmcourse.widgets.training import compute_rows

    def rows(recompute):
        return {r.key: r.value for r in compute_rows("Llama-3.1-8B", 8192, "H100 SXM 80GB", 8,
                                                     recompute=recompute)}
    none, full = rows("none"), rows("full")
    assert "seconds_recompute" not in none and "seconds_recompute" not in rows("selective")
    assert full["seconds"] == none["seconds"]
    assert abs(full["seconds_recompute"] - none["seconds"] * 4 / 3) <= 1


@pytest.mark.parametrize("schedule", ["1f1b", "gpipe"])
def test_the_pipeline_figure_idles_as_the_engine_says(schedule):
    """The schedule drawn (a forward 1 unit, a backward 2, each as early as its inputs
    allow, in the schedule's order) idles each GPU (p - 1) / (m + p - 1) of the step, and
    under 1F1B stage i never holds more than p - i micro-batches; under GPipe all m."""
    from llmcourse.plots.training import pipeline_timeline
    for p in (1, 2, 4, 8):
        for m in (1, 3, 8, 32):
            blocks = pipeline_timeline(p, m, schedule)
            end = max(b[4] for b in blocks)
            assert 1 - 3 * m / end == pytest.approx(float(lc.training.pipeline_bubble(p, m)))
            for stage in range(p):
                live, most = 0, 0
                for _, kind, _, _, _ in sorted((b for b in blocks if b[0] == stage),
                                               key=lambda b: b[3]):
                    live += 1 if kind == "F" else -1
                    most = max(most, live)
                assert most == lc.training.in_flight_micro_batches(stage, p, m, schedule)


def test_pipeline_timeline_refuses_what_it_cannot_draw():
    from llmcourse.plots.training import pipeline_timeline
    with pytest.raises(ValueError, match="pp_schedule"):
        pipeline_timeline(4, 8, "zero-bubble")
    with pytest.raises(ValueError, match="num_micro_batches"):
        pipeline_timeline(4, 0)
