"""Explorers for lessons 11 and 12: training memory per GPU (states, ZeRO, activations,
the peak, LoRA), and training compute (FLOPs, time, pipeline schedules, TP/SP/CP)."""

from __future__ import annotations

from ..hardware import list_gpus, load_gpu
from ..parallelism import communication_volume, link_for, virtual_stage_layers
from ..training import (ATTENTION, OPTIMIZERS, PRECISIONS, RECOMPUTE, RESERVE_FRACTION,
                        TRAINING_SETUPS, activation_accuracy, bytes_per_param,
                        chinchilla_tokens, data_parallel_size, fewest_gpus, fit_verdict,
                        pipeline_bubble, run_mfu, training_flops, training_memory,
                        training_time, usable_bytes)
from ..activations import term_label
from ..training_settings import setup_settings, sharding_stages, stage_label
from ..zoo import as_config, load_model
from .base import Explorer, Row, dropdown, int_text, model_dropdown, register, selection

__all__ = ["training_explorer", "training_rows", "compute_explorer", "compute_rows",
           "TOKEN_BUDGETS", "TOOLS", "LOOPS", "PP_SCHEDULES"]

SEQ_LENS = [2**k for k in range(9, 18)]
MICRO_BATCHES = [1, 2, 4, 8, 16, 32]
# token budgets, by label: "Chinchilla" is 20 tokens per parameter of the chosen model
TOKEN_BUDGETS = {"Chinchilla (20 per parameter)": None, "1B tokens (a fine-tune)": 10**9,
                 "100B tokens": 10**11, "1T tokens": 10**12, "15T tokens (Llama 3)": 15 * 10**12}
UTILIZATIONS = [0.3, 0.4, 0.5, 0.6, 0.7]
GB = 10**9


def _time_text(seconds):
    if seconds < 3600:
        return f"{seconds / 60:,.1f} minutes"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:,.1f} hours"
    return f"{seconds / 86400:,.1f} days"


# the tools a reader trains with, by label: each a named setup of the engine
# (lc.training.TRAINING_SETUPS: precision, optimizer, ZeRO stage, loop), or the menus' own
TOOLS = {"HF Trainer, bf16 model (1 GPU or DDP)": "hf-trainer",
         "HF Trainer, fp32-loaded model": "hf-trainer-fp32-weights",
         "HF Trainer + FSDP full_shard": "hf-trainer-fsdp",
         "HF Trainer + FSDP shard_grad_op": "hf-trainer-fsdp-shard-grad-op",
         "HF Trainer + DeepSpeed ZeRO-2": "hf-trainer-deepspeed-zero2",
         "HF Trainer + DeepSpeed ZeRO-3": "hf-trainer-deepspeed-zero3",
         "PyTorch AMP loop": "pytorch-amp",
         "Megatron-LM": "megatron",
         "your own (the menus below)": None}
# tools that free every gradient after a step (zero_grad(set_to_none=True)): either loop is
# theirs, by gradient accumulation; DeepSpeed's and Megatron-LM's buffers persist
_ANY_LOOP = ("hf-trainer", "hf-trainer-fp32-weights", "hf-trainer-fsdp",
             "hf-trainer-fsdp-shard-grad-op", "pytorch-amp")
# the two loops of a step: its first micro-batch (no gradient exists yet) or a later one
LOOPS = {"no accumulation: first micro-batch": True,
         "accumulating: gradients exist": False}
SP_OPTIONS = {"off": False, "on (Megatron --sequence-parallel)": True}
CONVENTIONS = {"causal (attention halved)": "causal", "full (PaLM, Megatron)": "full"}
PP_SCHEDULES = {"1F1B (Megatron-LM)": ("1f1b", 1), "GPipe (all forwards first)": ("gpipe", 1),
                "interleaved 1F1B, 2 chunks per GPU": ("interleaved-1f1b", 2),
                "ZB-H1 (zero bubble)": ("zero-bubble-h1", 1)}
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
        except ValueError:   # the engine counts Gemma 4's adapters with full recomputation only
            return [Row("LoRA / QLoRA, r=16 on all linear layers", "lora", -1,
                        f"not counted for {cfg.model_type} with recompute={recompute!r} yet")]
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


def _gb(x):
    return f"{x / GB:,.2f} GB"


def training_rows(cfg, seq_len, micro_batch, precision, optimizer, recompute, zero_stage, gpu,
                  n_gpus, attention="flash", first_micro_batch=False, hold_outputs=True,
                  deepspeed_buckets="deepspeed"):
    """Lesson 11's rows for one setting (pure: the explorer and the tests call this):
    data parallelism over ``n_gpus``, per-GPU states, activations, both loops' peaks, the
    buffers a tool keeps, and the peak of the loop chosen against the GPU."""
    cfg = as_config(cfg)
    dp = data_parallel_size(n_gpus)
    g = load_gpu(gpu)
    settings = dict(precision=precision, optimizer=optimizer, recompute=recompute,
                    attention=attention, first_micro_batch=first_micro_batch,
                    hold_outputs=hold_outputs, deepspeed_buckets=deepspeed_buckets)
    m = training_memory(cfg, seq_len, micro_batch, zero_stage=zero_stage, dp=dp, **settings)
    fewest = fewest_gpus(cfg, g, seq_len, micro_batch, zero_stage=zero_stage, **settings)
    _, fit = fit_verdict(m, g)
    bpp = bytes_per_param(precision, optimizer)
    rows = [_context(cfg, seq_len),
            Row(f"bytes per parameter ({precision}, {optimizer}), before sharding",
                "bytes_per_param", bpp, f"{bpp} B/param")]
    held = ("held: the loop keeps the model's output through the backward" if hold_outputs
            else "freed before the backward: the loop keeps only the loss (the Trainer, "
                 "Megatron-LM)")
    rows += [Row(label, key, getattr(m, key), _gb(getattr(m, key)))
             for key, label in (("params", "weights"), ("grads", "gradients"),
                                ("optimizer", "optimizer state (master weights included)"),
                                ("activations", "activations"),
                                ("logits", "logits: the loss's fp32 log-probabilities, labels"
                                           " and the returned logits"))]
    rows.append(Row("the returned logits", "hold_outputs", int(hold_outputs), held))
    acc = activation_accuracy(cfg)
    rows += [
        Row("activations: how close to PyTorch (small models of the family)",
            "activation_accuracy", acc.split(":")[0], acc),
        Row("saved + states per GPU (what the bookkeeping sums)", "total", m.total, _gb(m.total)),
        Row("peak, first micro-batch (no gradient yet when backward starts)",
            "peak_first_micro_batch", m.peak_first_micro_batch, _gb(m.peak_first_micro_batch)),
        Row("peak, accumulating (the gradients exist)", "peak_accumulating",
            m.peak_accumulating, _gb(m.peak_accumulating)),
    ]
    for key, (start, _, _) in m.buffers.items():
        rows.append(Row(f"in the peak: {term_label(key)}", key, start,
                        f"{_gb(start)} at the start of backward"))
    if m.reserve_buffers:
        words = ", ".join(f"{term_label(k)} {_gb(v)}" for k, v in m.reserve_buffers.items())
        which = ("the Trainer's 'auto' sizes" if deepspeed_buckets == "trainer-auto"
                 else "DeepSpeed's default sizes")
        rows.append(Row(f"in the 10% reserve: DeepSpeed's buckets at {which}",
                        "reserve_buffers", sum(m.reserve_buffers.values()), words))
    loop = "first micro-batch" if first_micro_batch else "accumulating"
    rows += [
        Row(f"peak per GPU ({loop}), against {1 - RESERVE_FRACTION:.0%} of "
            f"{g.memory_bytes / GB:,.0f} GB ({g.name})", "peak", m.peak, f"{_gb(m.peak)}: {fit}"),
        Row(f"fewest GPUs whose peak fits ({stage_label(precision, zero_stage)})", "fewest_gpus",
            fewest if fewest is not None else -1,
            f"{fewest:,}" if fewest is not None else "none: what is not sharded is too big"),
    ]
    return rows + _lora_rows(cfg, seq_len, micro_batch, recompute, attention, g)


def _tool_values(setup):
    """The menus' values a named tool setup stands for."""
    st = TRAINING_SETUPS[setup]["settings"]
    first = st.get("first_micro_batch", False)
    return dict(precision=st["precision"], optimizer=st["optimizer"],
                zero_stage=st.get("zero_stage", 0),
                loop=next(k for k, v in LOOPS.items() if v == first))


def _tool_extras(tool_label):
    """What a named tool sets beyond the menus: whether its loop holds the model's output,
    and DeepSpeed's bucket sizes (your own setting: the engine's defaults)."""
    setup = TOOLS.get(tool_label)
    st = TRAINING_SETUPS[setup]["settings"] if setup else {}
    return dict(hold_outputs=st.get("hold_outputs", True),
                deepspeed_buckets=st.get("deepspeed_buckets", "deepspeed"))


def _tool_of(values):
    """The tool whose setup the menus show (any loop for the tools that free gradients)."""
    for label, setup in TOOLS.items():
        if setup is None:
            continue
        want = _tool_values(setup)
        keys = ("precision", "optimizer", "zero_stage") + (() if setup in _ANY_LOOP else ("loop",))
        if all(values[k] == want[k] for k in keys):
            return label
    return None


@register("training")
def training_explorer(model="Llama-3.1-8B", seq_len=8192, micro_batch=1,
                      tool="HF Trainer + FSDP full_shard", gpu="H100 SXM 80GB", n_gpus=8):
    """Pick a model, a batch, the tool you train with (or a precision, an optimizer, a ZeRO
    stage and a loop of your own), recomputation and GPUs; watch the per-GPU peak against
    the GPU's capacity at every ZeRO stage."""
    state = {"cfg": load_model(model)}
    preset = _tool_values(TOOLS[tool]) if TOOLS[tool] else _tool_values("hf-trainer-deepspeed-zero3")
    controls = {
        "model": model_dropdown(model),
        "tool": dropdown("tool", list(TOOLS), tool, width="370px"),
        "seq_len": selection("sequence length", SEQ_LENS, seq_len),
        "micro_batch": selection("micro-batch", MICRO_BATCHES, micro_batch, width="260px"),
        "precision": dropdown("precision", list(PRECISIONS), preset["precision"], width="320px"),
        "optimizer": dropdown("optimizer", list(OPTIMIZERS), preset["optimizer"], width="230px"),
        "loop": dropdown("loop", list(LOOPS), preset["loop"], width="370px"),
        "zero_stage": selection("sharding", sharding_stages(preset["precision"]),
                                preset["zero_stage"], width="220px"),
        "recompute": dropdown("recompute", list(RECOMPUTE), "none", width="220px"),
        "attention": dropdown("attention", list(ATTENTION), "flash", width="200px"),
        "gpu": dropdown("GPU", list_gpus(), load_gpu(gpu).name, width="300px"),
        "n_gpus": int_text("GPUs", n_gpus, width="160px"),
    }

    def compute(v):
        return training_rows(state["cfg"], v["seq_len"], v["micro_batch"], v["precision"],
                             v["optimizer"], v["recompute"], v["zero_stage"], v["gpu"],
                             v["n_gpus"], attention=v["attention"],
                             first_micro_batch=LOOPS[v["loop"]], **_tool_extras(v["tool"]))

    def draw(fig, v, rows):
        from ..plots.training import draw_training_memory
        g = load_gpu(v["gpu"])
        kw = dict(precision=v["precision"], optimizer=v["optimizer"], recompute=v["recompute"],
                  dp=data_parallel_size(v["n_gpus"]), attention=v["attention"],
                  first_micro_batch=LOOPS[v["loop"]], **_tool_extras(v["tool"]))
        stages = sharding_stages(v["precision"])
        bars = [(stage_label(v["precision"], k),
                 training_memory(state["cfg"], v["seq_len"], v["micro_batch"], zero_stage=k,
                                 **kw))
                for k in stages]
        mine = stages.index(v["zero_stage"])
        verdict = "fits" if fit_verdict(bars[mine][1], g)[0] else "does not fit"
        who = v["tool"] if TOOLS[v["tool"]] else f"{v['precision']}, {v['optimizer']}"
        draw_training_memory(fig, bars, g.memory_bytes, g.name, highlight=mine,
                             title=f"{who}, {v['seq_len']:,} x {v['micro_batch']} tokens, "
                                   f"{v['n_gpus']} GPUs: {bars[mine][0]} {verdict}")

    ex = Explorer("training", controls, compute, draw, title="Training memory per GPU",
                  figsize=(11, 4.2),
                  note="A tool sets the precision, optimizer, sharding and loop it runs with "
                       "by default; change any and it is your own. Bars: what each GPU holds "
                       "at the peak, at each sharding stage, ZeRO's or FSDP's (outlined: "
                       "yours); the dashed line "
                       "keeps a 10% reserve free. A first micro-batch has no gradient when "
                       "its backward starts; eager attention keeps s x s scores.")

    _follow_model(ex, state)

    def fit_stages(precision, want=None):
        """Offer the precision's tool's sharding stages (FSDP has no ZeRO-1)."""
        zs = controls["zero_stage"]
        options = sharding_stages(precision)
        keep = zs.value if want is None else want
        if list(zs.options) != options:
            zs.options = options
        zs.value = keep if keep in options else min(options, key=lambda k: abs(k - keep))

    def on_tool(change):
        setup = TOOLS[change["new"]]
        if setup is not None:
            values = _tool_values(setup)
            fit_stages(values["precision"], values["zero_stage"])
            for k, val in values.items():
                controls[k].value = val
    ex.on_change("tool", on_tool)

    def on_setting(change):   # a menu the tool sets, changed: still that tool, or your own
        label = _tool_of(ex.values)
        if TOOLS[ex.values["tool"]] is None or label != ex.values["tool"]:
            controls["tool"].value = label or list(TOOLS)[-1]
    for key in ("optimizer", "zero_stage", "loop"):
        ex.on_change(key, on_setting)

    def on_precision(change):
        fit_stages(change["new"])
        on_setting(change)
    ex.on_change("precision", on_precision)
    return ex


# --- lesson 12: compute, time, and the parallel layouts --------------------------------------

_BUBBLE_WORDS = {"1f1b": "(pp - 1) / (m + pp - 1)", "gpipe": "(pp - 1) / (m + pp - 1)",
                 "interleaved-1f1b": "(pp - 1) / (v m + pp - 1)",
                 "zero-bubble-h1": "(pp - 1) / (3 m + pp - 1)"}


def compute_rows(cfg, seq_len, gpu, n_gpus, tokens=None, utilization=0.5, convention="causal",
                 recompute="none", tp=1, sp=False, cp=1, pp=1, pp_schedule="1f1b",
                 num_micro_batches=8, zero_stage=1, virtual_stages=1):
    """Lesson 12's rows for one setting (pure): the FLOPs of a token budget, the time at an
    assumed utilization while the GPUs compute (the FLOPs recomputation redoes and the
    pipeline's bubble added), the MFU such a run reports, the pipeline's fullest stage, the
    activations per GPU with tensor, sequence and context parallelism, and the bytes each
    GPU sends per step. ``n_gpus`` = dp x tp x cp x pp."""
    cfg = as_config(cfg)
    dp = data_parallel_size(n_gpus, tp, cp, pp)
    g = load_gpu(gpu)
    budget = tokens if tokens is not None else chinchilla_tokens(cfg)
    flops = training_flops(cfg, budget, seq_len, recompute=recompute, convention=convention)
    # without a pipeline, micro-batches are plain gradient accumulation, one at a time
    schedule, v = (pp_schedule, virtual_stages) if pp > 1 else ("1f1b", 1)
    bubble = pipeline_bubble(pp, num_micro_batches, schedule, v)
    secs = training_time(flops, g, n_gpus, utilization=utilization, bubble=bubble)
    mfu = run_mfu(flops, secs, g, n_gpus)
    # Megatron-LM's memory: bf16 weights, fp32 main_grad, its distributed optimizer (ZeRO-1)
    setup = setup_settings("megatron", recompute=recompute, zero_stage=zero_stage, dp=dp,
                           tp=tp, sp=sp, cp=cp, pp=pp, pp_schedule=schedule,
                           num_micro_batches=num_micro_batches, virtual_stages=v)
    m = training_memory(cfg, seq_len, 1, setup=setup)
    _, fit = fit_verdict(m, g)
    what = [f"{float(bubble):.0%} bubble" if bubble else "",
            f"{flops.recompute_extra / flops.model:.0%} more FLOPs recomputed"
            if flops.recompute_extra else ""]
    added = " and ".join(w for w in what if w)
    rows = [
        _context(cfg, seq_len),
        Row(f"{budget / 1e9:,.1f}B tokens: model FLOPs (6·N·D + attention, {convention})",
            "flops", flops.model, f"{flops.model:.3e}"),
        Row(f"time on {n_gpus:,} x {g.name} at {utilization:.0%} of peak while computing "
            f"(assumed)" + (f", with the {added}" if added else ""), "seconds", round(secs),
            _time_text(secs)),
        Row("MFU this run reports (model FLOPs / (GPUs x peak x time))", "mfu", mfu,
            f"{mfu:.1%}" + (f": {utilization:.0%} of peak, less the {added}" if added else "")),
        Row("GPU-hours", "gpu_hours", round(secs * n_gpus / 3600), f"{secs * n_gpus / 3600:,.0f}"),
    ]
    if flops.recompute_extra:
        rows.append(Row(f"hardware FLOPs: the model's + the {recompute} recomputation's",
                        "hardware_flops", flops.hardware,
                        f"{flops.hardware:.3e} (HFU counts them; MFU does not)"))
    rows += [
        Row(f"layout: data x tensor x context x pipeline", "dp", dp,
            f"{dp} x {tp} x {cp} x {pp} = {n_gpus:,} GPUs"),
        Row(f"pipeline bubble: {_BUBBLE_WORDS[schedule]} of each step idle", "bubble",
            float(bubble), f"{float(bubble):.0%}"),
        Row("activations per GPU (micro-batch 1)", "activations", m.activations,
            f"{m.activations / GB:,.2f} GB"),
    ]
    rows += _traffic_rows(cfg, seq_len, g, dp, tp, sp, cp, pp, zero_stage, num_micro_batches,
                          setup.precision)
    rows.append(Row(f"peak per GPU (Megatron-LM, ZeRO-{zero_stage} over the data-parallel "
                    f"groups)", "peak", m.peak, f"{m.peak / GB:,.2f} GB: {fit}"))
    if pp > 1:
        pl = m.pipeline
        chunks = (virtual_stage_layers(cfg, pp, v)[pl["stage"]] if v > 1 else [pl["layers"]])
        layers = " and ".join(f"{a}-{b - 1}" for a, b in chunks)
        held = f"{float(pl['in_flight']):g}"
        bound = (" (at most: ZB-H1's memory is an upper bound)"
                 if schedule == "zero-bubble-h1" else "")
        rows.insert(-1, Row(f"pipeline: the stage that decides the peak", "pp_stage",
                            pl["stage"], f"stage {pl['stage']} of {pp} (layers {layers}), "
                                         f"{held} micro-batches in flight{bound}"))
    return rows


def _traffic_rows(cfg, seq_len, g, dp, tp, sp, cp, pp, zero_stage, num_micro_batches,
                  precision="bf16-mixed"):
    """The bytes each GPU sends in one step (ring collectives), by kind, and the time they
    take if nothing overlaps computation, each over the link its group crosses: tensor and
    context parallelism inside a node, data parallelism over the network once its GPUs span
    more than one node (:func:`~llmcourse.parallelism.link_for`)."""
    if pp > 1:
        return [Row("sent per GPU per step", "comm_total", -1,
                    "counted without a pipeline (set pipeline stages to 1): each stage sends "
                    "its own layers' share")]
    vol = communication_volume(cfg, seq_len, 1, precision, zero_stage=zero_stage, dp=dp,
                               tp=tp, sp=sp, cp=cp, num_micro_batches=num_micro_batches)
    times = vol.seconds_by_link(g, dp=dp, tp=tp, cp=cp)
    groups = {"dp": dp * tp * cp, "tp": tp, "cp": tp * cp}
    rows = []
    for k, v in vol.parts.items():
        _, where = link_for(g, groups[k.split("_")[0]])
        rows.append(Row(f"sent per GPU per step: {term_label(k)}", k, v,
                        f"{v / GB:,.2f} GB, {times[k] * 1e3:,.0f} ms {where}"))
    total = sum(times.values())
    when = f", {total * 1e3:,.0f} ms if none of it overlaps compute" if vol.total else ""
    return rows + [Row("sent per GPU per step, in all (ring collectives)", "comm_total",
                       vol.total, f"{vol.total / GB:,.2f} GB{when}")]


def _schedules_for(cfg, pp):
    """The schedules a pipeline of ``pp`` stages can run for ``cfg``: interleaving two chunks
    per GPU needs the layers to split into 2 x pp equal chunks."""
    return [k for k, (sched, v) in PP_SCHEDULES.items()
            if v == 1 or cfg.num_hidden_layers % (v * pp) == 0]


@register("compute")
def compute_explorer(model="Llama-3.1-8B", seq_len=8192, gpu="H100 SXM 80GB", n_gpus=64,
                     pp=4):
    """Pick a model, a token budget, GPUs, an MFU and a parallel layout; see the FLOPs, the
    time, the pipeline's schedule and its bubble, the activations per GPU and the bytes
    each GPU sends per step."""
    state = {"cfg": load_model(model)}
    controls = {
        "model": model_dropdown(model),
        "seq_len": selection("sequence length", SEQ_LENS, seq_len),
        "tokens": dropdown("token budget", list(TOKEN_BUDGETS), list(TOKEN_BUDGETS)[0],
                           width="330px"),
        "gpu": dropdown("GPU", list_gpus(), load_gpu(gpu).name, width="300px"),
        "n_gpus": int_text("GPUs", n_gpus, width="160px"),
        "utilization": selection("utilization while computing", UTILIZATIONS, 0.5,
                                 width="330px"),
        "convention": dropdown("MFU counts attention", list(CONVENTIONS),
                               list(CONVENTIONS)[0], width="360px"),
        "recompute": dropdown("recompute", list(RECOMPUTE), "none", width="220px"),
        "tp": selection("tensor parallel", [1, 2, 4, 8], 1, width="240px"),
        "sp": dropdown("sequence parallel", list(SP_OPTIONS), "off", width="330px"),
        "cp": selection("context parallel", [1, 2, 4, 8], 1, width="240px"),
        "pp": selection("pipeline stages", [1, 2, 4, 8], pp, width="250px"),
        "pp_schedule": dropdown("schedule", _schedules_for(state["cfg"], pp),
                                list(PP_SCHEDULES)[0], width="330px"),
        "num_micro_batches": selection("micro-batches per step", MICRO_BATCHES_PER_STEP, 8,
                                       width="300px"),
    }

    def compute(v):
        sched, chunks = PP_SCHEDULES[v["pp_schedule"]]
        return compute_rows(state["cfg"], v["seq_len"], v["gpu"], v["n_gpus"],
                            tokens=TOKEN_BUDGETS[v["tokens"]], utilization=v["utilization"],
                            convention=CONVENTIONS[v["convention"]], recompute=v["recompute"],
                            tp=v["tp"], sp=SP_OPTIONS[v["sp"]], cp=v["cp"], pp=v["pp"],
                            pp_schedule=sched, num_micro_batches=v["num_micro_batches"],
                            virtual_stages=chunks)

    def draw(fig, v, rows):
        from ..plots.training import draw_pipeline
        sched, chunks = PP_SCHEDULES[v["pp_schedule"]] if v["pp"] > 1 else ("1f1b", 1)
        draw_pipeline(fig, v["pp"], v["num_micro_batches"], sched, numbers=False,
                      virtual_stages=chunks)

    ex = Explorer("compute", controls, compute, draw, title="Training compute and layout",
                  figsize=(11, 3.6),
                  note="GPUs = data x tensor x context x pipeline. The figure: the pipeline's "
                       "schedule (its axis says how long each block takes); white is the "
                       "bubble. Time = the FLOPs run (recomputation included) / (GPUs x peak x "
                       "the utilization you assume x (1 - bubble)); the MFU a run reports "
                       "follows (large runs report 35-55%). Bytes sent: ring collectives, one "
                       "step, timed over NVLink inside a node and the network across nodes.")

    def adapt():
        """Offer only what the layout can run: interleaving where the layers split into
        2 x pp chunks; with interleaving or ZB-H1, at least pp micro-batches (a multiple of
        pp: every count offered is a power of two)."""
        pp_now = controls["pp"].value
        names = _schedules_for(state["cfg"], pp_now)
        if list(controls["pp_schedule"].options) != names:
            keep = controls["pp_schedule"].value
            controls["pp_schedule"].options = names
            controls["pp_schedule"].value = keep if keep in names else names[0]
        controls["pp_schedule"].disabled = pp_now == 1
        sched = PP_SCHEDULES[controls["pp_schedule"].value][0]
        least = pp_now if pp_now > 1 and sched in ("interleaved-1f1b", "zero-bubble-h1") else 1
        counts = [k for k in MICRO_BATCHES_PER_STEP if k >= least]
        if list(controls["num_micro_batches"].options) != counts:
            keep = controls["num_micro_batches"].value
            controls["num_micro_batches"].options = counts
            controls["num_micro_batches"].value = keep if keep in counts else counts[0]

    def on_model(change):
        state["cfg"] = load_model(change["new"])
        adapt()
    ex.on_change("model", on_model)
    for key in ("pp", "pp_schedule"):
        ex.on_change(key, lambda change: adapt())
    adapt()
    return ex
