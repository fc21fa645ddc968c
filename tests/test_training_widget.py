"""The training explorer: engine values in its table, a one-line message for an
impossible setting, and recovery."""

import llmcourse as lc


def test_explorer_shows_the_engine_values_and_recovers():
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
    # 8 GPUs at 40% MFU for 20 tokens per parameter: C / (8 x peak x 0.4), in seconds
    c = lc.training_flops(cfg, 20 * lc.param_count(cfg).total, 8192).model
    ex.set(n_gpus=8)
    assert ex.value("seconds") == round(c / (8 * lc.load_gpu("H100").peak("bf16") * 0.4))
    ex.set(n_gpus=12, tp=8)
    assert ex.error.startswith("n_gpus: must be a multiple of tp=8")
    ex.set(n_gpus=16)
    assert ex.error == ""
    assert ex.value("total") == lc.training_memory(cfg, 8192, 1, zero_stage=3, dp=2, tp=8,
                                                   recompute="full").total
    assert "of 131,072 tokens" in next(r.text for r in ex.rows if r.key == "seq_len")
    ex.set(model="Qwen3-30B-A3B", seq_len=65536)
    assert "beyond the model's 40,960-token context" in next(
        r.text for r in ex.rows if r.key == "seq_len")
    ex.set(seq_len=8192)
    assert ex.error == "" and ex.value("params") == lc.training_memory(
        "Qwen3-30B-A3B", 8192, 1, zero_stage=3, dp=2, tp=8, recompute="full").params


def test_recomputation_time_is_shown_beside_the_mfu_time():
    """MFU counts the model's FLOPs; recomputation is extra hardware work, shown in its own
    row: full recomputation redoes the forward (6·N·D becomes 8·N·D: 4/3 of the time at
    the same utilization); selective recomputation with FlashAttention redoes nothing."""
    from llmcourse.widgets.training import training_rows
    args = ("Llama-3.1-8B", 8192, 1, "bf16-mixed", "adamw")

    def rows(recompute, attention="flash"):
        return {r.key: r.value for r in training_rows(*args, recompute, 3, "H100 SXM 80GB", 8,
                                                      attention=attention)}
    none, full = rows("none"), rows("full")
    assert "seconds_recompute" not in none and "seconds_recompute" not in rows("selective")
    assert full["seconds"] == none["seconds"]
    assert abs(full["seconds_recompute"] - none["seconds"] * 4 / 3) <= 1
    eager = rows("selective", attention="eager")
    assert none["seconds"] < eager["seconds_recompute"] < full["seconds_recompute"]


def test_explorer_parallel_sizes_and_mfu_convention():
    ex = lc.widgets.EXPLORERS["training"]()
    cfg = lc.load_model("Llama-3.1-8B")
    ex.set(tp=2, cp=2, n_gpus=8, sp="on (Megatron --sequence-parallel)")
    assert ex.error == ""
    m = lc.training_memory(cfg, 8192, 1, zero_stage=3, dp=2, tp=2, sp=True, cp=2)
    assert ex.value("peak") == m.peak
    assert ex.value("fewest_gpus") % 4 == 0        # whole tp x cp groups
    c = lc.training_flops(cfg, 20 * lc.param_count(cfg).total, 8192, convention="full").model
    ex.set(convention="full (PaLM, Megatron)")
    assert ex.value("seconds") == round(c / (8 * lc.load_gpu("H100").peak("bf16") * 0.4))
    ex.set(n_gpus=6)
    assert ex.error.startswith("n_gpus: must be a multiple of")
    ex.set(n_gpus=8)
    assert ex.error == ""


def test_explorer_shows_lora_and_qlora_peaks():
    ex = lc.widgets.EXPLORERS["training"]()
    ex.set(seq_len=4096, recompute="full")
    cfg = lc.load_model("Llama-3.1-8B")
    for base, key in (("bf16", "lora"), ("nf4", "qlora")):
        m = lc.lora_memory(cfg, 4096, 1, r=16, target_modules="all-linear", base=base,
                           recompute="full")
        assert ex.value(key) == m.peak
    ex.set(model="Qwen3-30B-A3B")          # routed experts: the adapter rows are left out
    assert ex.error == "" and all(r.key not in ("lora", "qlora") for r in ex.rows)


def test_explorer_chunked_loss_lowers_the_peak():
    ex = lc.widgets.EXPLORERS["training"]()
    plain = ex.value("peak")
    ex.set(loss="chunked (1,024 tokens)")
    cfg = lc.load_model("Llama-3.1-8B")
    m = lc.training_memory(cfg, 8192, 1, zero_stage=3, dp=8, loss="chunked", loss_chunk=1024)
    assert ex.value("peak") == m.peak < plain


def test_explorer_pipeline_stages_schedule_and_bubble():
    ex = lc.widgets.EXPLORERS["training"]()
    cfg = lc.load_model("Llama-3.1-8B")
    assert "pp_stage" not in {r.key for r in ex.rows}     # no pipeline, no pipeline rows
    ex.set(pp=4, n_gpus=8, zero_stage=1)
    assert ex.error == ""
    m = lc.training_memory(cfg, 8192, 1, zero_stage=1, dp=2, pp=4, num_micro_batches=8)
    assert ex.value("peak") == m.peak and ex.value("pp_stage") == m.pipeline["stage"] == 0
    assert ex.value("bubble") == 3 / 11                  # (4 - 1) / (8 + 4 - 1)
    assert ex.value("fewest_gpus") % 4 == 0
    ex.set(pp_schedule="GPipe (all forwards first)")
    g = lc.training_memory(cfg, 8192, 1, zero_stage=1, dp=2, pp=4, pp_schedule="gpipe",
                           num_micro_batches=8)
    assert ex.value("peak") == g.peak > m.peak           # GPipe keeps all 8 in flight
    ex.set(n_gpus=6)
    assert ex.error.startswith("n_gpus: must be a multiple of")
    ex.set(n_gpus=8)
    assert ex.error == "" and ex.value("peak") == g.peak
