"""Explorers for lessons 11 and 12: training memory per GPU (states, ZeRO, activations,
the peak, LoRA), and training compute (FLOPs, time, pipeline schedules, TP/SP/CP)."""

from __future__ import annotations

from ..hardware import list_gpus, load_gpu
from ..training import (ATTENTION, OPTIMIZERS, PRECISIONS, RECOMPUTE, RESERVE_FRACTION,
                        activation_accuracy, chinchilla_tokens, data_parallel_size, fewest_gpus, fit_verdict,
                        pipeline_bubble, training_flops, training_memory, training_time,
                        usable_bytes)
from ..zoo import as_config, load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection

__all__ = ["training_explorer", "training_rows", "compute_explorer", "compute_rows",
           "TOKEN_BUDGETS"]

SEQ_LENS = [2**k for k in range(9, 18)]
MICRO_BATCHES = [1, 2, 4, 8, 16, 32]
# token budgets, by label: "Chinchilla" is 20 tokens per parameter of the chosen model
TOKEN_BUDGETS = {"Chinchilla (20 per parameter)": None, "1B tokens (a fine-tune)": 10**9,
                 "100B tokens": 10**11, "1T tokens": 10**12, "15T tokens (Llama 3)": 15 * 10**12}
MFUS = [0.2, 0.3, 0.4, 0.5, 0.6]
GB = 10**9


def _time_text(seconds):
    if seconds < 3600:
        return f"{seconds / 60:,.1f} minutes"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:,.1f} hours"
    return f"{seconds / 86400:,.1f} days"


LOSS_OPTIONS = {"plain (transformers)": "plain", "chunked (1,024 tokens)": "chunked"}
SP_OPTIONS = {"off": False, "on (Megatron --sequence-parallel)": True}
CONVENTIONS = {"causal (attention halved)": "causal", "full (PaLM, Megatron)": "full"}
PP_SCHEDULES = {"1F1B (Megatron-LM)": "1f1b", "GPipe (all forwards first)": "gpipe"}
MICRO_BATCHES_PER_STEP = [1, 2, 4, 8, 16, 32, 64]


def _follow_model(ex, state):
    """Keep ``state["cfg"]`` the model the menu shows (loaded once per change)."""
    def on_model(change):
        state["cfg"] = load_model(change["new"])
    ex.on_change("model", on_model)


def _lora_rows(cfg, seq_len, micro_batch, recompute, attention, g):
    """LoRA and QLoRA (r = 16 on every linear layer) on one GPU, where the engine counts
    the family's adapters (not for routed experts)."""
    from ..finetune import lora_memory
    if cfg.is_moe:
        return []
    rows = []
    for base, key, label in (("bf16", "lora", "LoRA"), ("nf4", "qlora", "QLoRA (NF4 base)")):
        try:
            lm = lora_memory(cfg, seq_len, micro_batch, r=16, target_modules="all-linear",
                             base=base, recompute=recompute, attention=attention)
        except (KeyError, ValueError):   # a family whose adapters the engine does not count
            return [Row("LoRA / QLoRA, r=16 on all linear layers", "lora", -1,
                        f"not counted for {cfg.model_type} yet")]
        ok = lm.peak <= usable_bytes(g)
        rows.append(Row(f"{label}, r=16 on all linear layers, one GPU: peak (estimate)", key,
                        lm.peak, f"{lm.peak / GB:,.2f} GB: {'fits' if ok else 'does not fit'} "
                                 f"in {usable_bytes(g) / GB:,.1f} GB"))
    return rows


def _context(cfg, seq_len):
    mpe = cfg.get("max_position_embeddings")
    ctx = (f"{seq_len:,} tokens: beyond the model's {mpe:,}-token context" if mpe and seq_len > mpe
           else f"{seq_len:,} of {mpe:,} tokens" if mpe else f"{seq_len:,} tokens")
    return Row("sequence length", "seq_len", seq_len, ctx)


def training_rows(cfg, seq_len, micro_batch, precision, optimizer, recompute, zero_stage, gpu,
                  n_gpus, attention="flash", loss="plain"):
    """Lesson 11's rows for one setting (pure: the explorer and the tests call this):
    data parallelism over ``n_gpus``, per-GPU states, activations and the peak."""
    cfg = as_config(cfg)
    dp = data_parallel_size(n_gpus)
    g = load_gpu(gpu)
    m = training_memory(cfg, seq_len, micro_batch, precision=precision, optimizer=optimizer,
                        recompute=recompute, zero_stage=zero_stage, dp=dp,
                        attention=attention, loss=loss)
    fewest = fewest_gpus(cfg, g, seq_len, micro_batch, zero_stage=zero_stage,
                         precision=precision, optimizer=optimizer, recompute=recompute,
                         attention=attention, loss=loss)
    _, fit = fit_verdict(m, g)
    rows = [_context(cfg, seq_len)]
    rows += [Row(label, key, getattr(m, key), f"{getattr(m, key) / GB:,.2f} GB")
             for key, label in (("params", "weights"), ("grads", "gradients"),
                                ("optimizer", "optimizer state (master weights included)"),
                                ("activations", "activations"), ("logits", "logits"))]
    acc = activation_accuracy(cfg)
    rows += [
        Row("activations: how close to PyTorch (small models of the family)",
            "activation_accuracy", acc.split(":")[0], acc),
        Row("saved + states per GPU (what the bookkeeping sums)", "total", m.total,
            f"{m.total / GB:,.2f} GB"),
        Row(f"peak per GPU, against {1 - RESERVE_FRACTION:.0%} of {g.memory_bytes / GB:,.0f} GB "
            f"({g.name})", "peak", m.peak, f"{m.peak / GB:,.2f} GB: {fit}"),
        Row(f"fewest GPUs whose peak fits (ZeRO-{zero_stage})", "fewest_gpus",
            fewest if fewest is not None else -1,
            f"{fewest:,}" if fewest is not None else "none: what is not sharded is too big"),
    ]
    return rows + _lora_rows(cfg, seq_len, micro_batch, recompute, attention, g)


@register("training")
def training_explorer(model="Llama-3.1-8B", seq_len=8192, micro_batch=1,
                      precision="bf16-mixed", optimizer="adamw", recompute="none",
                      zero_stage=3, gpu="H100 SXM 80GB", n_gpus=8):
    """Pick a model, a batch, a precision, an optimizer, recomputation, a ZeRO stage and
    GPUs; watch the per-GPU peak memory against the GPU's capacity at every ZeRO stage."""
    state = {"cfg": load_model(model)}
    controls = {
        "model": model_dropdown(model),
        "seq_len": selection("sequence length", SEQ_LENS, seq_len),
        "micro_batch": selection("micro-batch", MICRO_BATCHES, micro_batch, width="260px"),
        "precision": dropdown("precision", list(PRECISIONS), precision, width="320px"),
        "optimizer": dropdown("optimizer", list(OPTIMIZERS), optimizer, width="230px"),
        "recompute": dropdown("recompute", list(RECOMPUTE), recompute, width="220px"),
        "attention": dropdown("attention", list(ATTENTION), "flash", width="200px"),
        "zero_stage": selection("ZeRO stage", [0, 1, 2, 3], zero_stage, width="220px"),
        "gpu": dropdown("GPU", list_gpus(), load_gpu(gpu).name, width="300px"),
        "n_gpus": int_text("GPUs", n_gpus, width="160px"),
        "loss": dropdown("loss", list(LOSS_OPTIONS), list(LOSS_OPTIONS)[0], width="330px"),
    }

    def compute(v):
        return training_rows(state["cfg"], v["seq_len"], v["micro_batch"], v["precision"],
                             v["optimizer"], v["recompute"], v["zero_stage"], v["gpu"],
                             v["n_gpus"], attention=v["attention"], loss=LOSS_OPTIONS[v["loss"]])

    def draw(fig, v, rows):
        from ..plots.training import draw_training_memory
        g = load_gpu(v["gpu"])
        kw = dict(precision=v["precision"], optimizer=v["optimizer"], recompute=v["recompute"],
                  dp=data_parallel_size(v["n_gpus"]), attention=v["attention"],
                  loss=LOSS_OPTIONS[v["loss"]])
        bars = [(f"ZeRO-{k}" if k else "no ZeRO", training_memory(state["cfg"], v["seq_len"],
                                                                  v["micro_batch"],
                                                                  zero_stage=k, **kw))
                for k in range(4)]
        verdict = "fits" if fit_verdict(bars[v["zero_stage"]][1], g)[0] else "does not fit"
        draw_training_memory(fig, bars, g.memory_bytes, g.name, highlight=v["zero_stage"],
                             title=f"{state['cfg'].name}, {v['seq_len']:,} x {v['micro_batch']} "
                                   f"tokens on {v['n_gpus']} GPUs: ZeRO-{v['zero_stage']} "
                                   f"{verdict}")

    ex = Explorer("training", controls, compute, draw, title="Training memory per GPU",
                  figsize=(11, 4.2),
                  note="Bars: per-GPU peak at each ZeRO stage over data parallelism (outlined: "
                       "the stage you chose); the dashed line keeps a 10% reserve free. "
                       "bf16-mixed: FSDP/DeepSpeed with a bf16 policy; amp-bf16: fp32 weights "
                       "under torch.autocast. attention: flash keeps no s x s scores, eager "
                       "does (selective recomputation removes them).")

    _follow_model(ex, state)
    return ex


# --- lesson 12: compute, time, and the parallel layouts --------------------------------------

def compute_rows(cfg, seq_len, gpu, n_gpus, tokens=None, mfu=0.4, convention="causal",
                 recompute="none", tp=1, sp=False, cp=1, pp=1, pp_schedule="1f1b",
                 num_micro_batches=8, zero_stage=1):
    """Lesson 12's rows for one setting (pure): the FLOPs of a token budget, the time at
    an assumed MFU, the pipeline's bubble and its fullest stage, and the activations per
    GPU with tensor, sequence and context parallelism. ``n_gpus`` = dp x tp x cp x pp."""
    cfg = as_config(cfg)
    dp = data_parallel_size(n_gpus, tp, cp, pp)
    g = load_gpu(gpu)
    budget = tokens if tokens is not None else chinchilla_tokens(cfg)
    flops = training_flops(cfg, budget, seq_len, recompute=recompute, convention=convention)
    secs = training_time(flops, g, n_gpus, mfu)
    # without a pipeline, micro-batches are plain gradient accumulation, one at a time
    schedule = pp_schedule if pp > 1 else "1f1b"
    m = training_memory(cfg, seq_len, 1, recompute=recompute, zero_stage=zero_stage, dp=dp,
                        tp=tp, sp=sp, cp=cp, pp=pp, pp_schedule=schedule,
                        num_micro_batches=num_micro_batches)
    _, fit = fit_verdict(m, g)
    bubble = float(pipeline_bubble(pp, num_micro_batches))
    rows = [
        _context(cfg, seq_len),
        Row(f"{budget / 1e9:,.1f}B tokens: FLOPs (6·N·D + attention, {convention})", "flops",
            flops.model, f"{flops.model:.3e}"),
        Row(f"time on {n_gpus:,} x {g.name} at MFU {mfu:.0%} (assumed)", "seconds", round(secs),
            _time_text(secs)),
        Row("GPU-hours", "gpu_hours", round(secs * n_gpus / 3600), f"{secs * n_gpus / 3600:,.0f}"),
    ]
    if flops.recompute_extra:
        # MFU counts the model's FLOPs only: the recomputed forward is extra work on top
        hw = training_time(flops.hardware, g, n_gpus, mfu)
        rows.append(Row(f"with {recompute} recomputation the GPUs also redo "
                        f"{flops.recompute_extra:.3e} FLOPs: at the same utilization",
                        "seconds_recompute", round(hw), _time_text(hw)))
    rows += [
        Row(f"layout: data x tensor x context x pipeline", "dp", dp,
            f"{dp} x {tp} x {cp} x {pp} = {n_gpus:,} GPUs"),
        Row("pipeline bubble: (pp - 1) / (m + pp - 1) of each step idle", "bubble", bubble,
            f"{bubble:.0%}"),
        Row("activations per GPU (micro-batch 1)", "activations", m.activations,
            f"{m.activations / GB:,.2f} GB"),
        Row(f"peak per GPU (ZeRO-{zero_stage} over the data-parallel groups)", "peak", m.peak,
            f"{m.peak / GB:,.2f} GB: {fit}"),
    ]
    if pp > 1:
        pl = m.pipeline
        a, b = pl["layers"]
        rows.insert(-2, Row(f"pipeline: the stage that decides the peak", "pp_stage",
                            pl["stage"], f"stage {pl['stage']} of {pp} (layers {a}-{b - 1}), "
                                         f"{pl['in_flight']} micro-batches in flight"))
    return rows


@register("compute")
def compute_explorer(model="Llama-3.1-8B", seq_len=8192, gpu="H100 SXM 80GB", n_gpus=64,
                     pp=4):
    """Pick a model, a token budget, GPUs, an MFU and a parallel layout; see the FLOPs, the
    time, the pipeline's schedule and its bubble, and the activations per GPU."""
    state = {"cfg": load_model(model)}
    controls = {
        "model": model_dropdown(model),
        "seq_len": selection("sequence length", SEQ_LENS, seq_len),
        "tokens": dropdown("token budget", list(TOKEN_BUDGETS), list(TOKEN_BUDGETS)[0],
                           width="330px"),
        "gpu": dropdown("GPU", list_gpus(), load_gpu(gpu).name, width="300px"),
        "n_gpus": int_text("GPUs", n_gpus, width="160px"),
        "mfu": selection("MFU (assumed)", MFUS, 0.4, width="260px"),
        "convention": dropdown("MFU counts attention", list(CONVENTIONS),
                               list(CONVENTIONS)[0], width="360px"),
        "recompute": dropdown("recompute", list(RECOMPUTE), "none", width="220px"),
        "tp": selection("tensor parallel", [1, 2, 4, 8], 1, width="240px"),
        "sp": dropdown("sequence parallel", list(SP_OPTIONS), "off", width="330px"),
        "cp": selection("context parallel", [1, 2, 4, 8], 1, width="240px"),
        "pp": selection("pipeline stages", [1, 2, 4, 8], pp, width="250px"),
        "pp_schedule": dropdown("schedule", list(PP_SCHEDULES), list(PP_SCHEDULES)[0],
                                width="300px"),
        "num_micro_batches": selection("micro-batches per step", MICRO_BATCHES_PER_STEP, 8,
                                       width="300px"),
    }

    def compute(v):
        return compute_rows(state["cfg"], v["seq_len"], v["gpu"], v["n_gpus"],
                            tokens=TOKEN_BUDGETS[v["tokens"]], mfu=v["mfu"],
                            convention=CONVENTIONS[v["convention"]], recompute=v["recompute"],
                            tp=v["tp"], sp=SP_OPTIONS[v["sp"]], cp=v["cp"], pp=v["pp"],
                            pp_schedule=PP_SCHEDULES[v["pp_schedule"]],
                            num_micro_batches=v["num_micro_batches"])

    def draw(fig, v, rows):
        from ..plots.training import draw_pipeline
        schedule = PP_SCHEDULES[v["pp_schedule"]] if v["pp"] > 1 else "1f1b"
        draw_pipeline(fig, v["pp"], v["num_micro_batches"], schedule, numbers=False)

    ex = Explorer("compute", controls, compute, draw, title="Training compute and layout",
                  figsize=(11, 3.6),
                  note="GPUs = data x tensor x context x pipeline. The figure: the pipeline's "
                       "schedule, one forward taking 1 unit and one backward 2; white is the "
                       "bubble. Time = FLOPs / (GPUs x peak x the MFU you assume); large runs "
                       "report 35-55%.")

    _follow_model(ex, state)

    def on_pp(change):   # one stage has no schedule to choose: the box does nothing
        controls["pp_schedule"].disabled = change["new"] == 1
    ex.on_change("pp", on_pp)
    controls["pp_schedule"].disabled = pp == 1
    return ex
