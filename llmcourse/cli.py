"""``python -m llmcourse MODEL`` (or ``llmcourse MODEL``): the course's answer for one model.

MODEL is a zoo name, a ``config.json`` path or folder, or a Hugging Face Hub id
(``owner/name``, optionally ``@revision``). It prints the parameter counts, the KV
cache per token, the weights as shipped, whether the serving setting fits and vLLM's
startup plan, the decode bound and the speed to expect, and the training memory for a
stated setting; ``--checkpoint`` adds the checkpoint's own sizes beside the engine's;
``--json`` prints the same as one JSON object.

``python -m llmcourse log FILE`` (``-`` for stdin) reads a vLLM startup log instead and
explains it term by term (:func:`llmcourse.explain_vllm_log`): ``--model`` and ``--gpu`` when
the log does not name them, ``--vllm-version`` when it names no release.

Units: what a datasheet states (the idealised fit, training) in GB = 10^9 bytes; what vLLM
logs (its startup plan) in GiB = 2^30 bytes, as vLLM prints it; each line says which.

Exit status: 0 when vLLM would start with the serving setting; 1 when it would not
(the reason is printed: weights too large, no room for one request of the context);
2 for bad input (a one-line message on stderr, no traceback). The training verdict is
printed but does not set the status.
"""

from __future__ import annotations

import argparse
import json
import sys

from .config import ConfigError

__all__ = ["main", "report", "build_parser"]

EXIT_OK, EXIT_DOES_NOT_START, EXIT_BAD_INPUT = 0, 1, 2
KV_CHOICES = ["auto", "bf16", "fp16", "fp8", "fp8_e4m3", "fp8_e5m2", "int8_per_token_head",
              "fp8_per_token_head", "int4_per_token_head", "nvfp4"]
# the bits a value takes, for the idealised fit and the decode bound (no scales: idealised)
_IDEAL_KV = {"fp8": "fp8", "fp8_e4m3": "fp8", "fp8_e5m2": "fp8", "int8_per_token_head": "int8",
             "fp8_per_token_head": "fp8", "int4_per_token_head": "int4", "nvfp4": "int4",
             "bf16": "bf16", "fp16": "fp16"}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, as the engine's messages are
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser():
    p = _Parser(prog="llmcourse", description=(
        "Sizes, memory, speed and training cost of one model, from its config.json: a zoo "
        "name (Qwen3-8B), a config.json path or folder, or a Hugging Face Hub id "
        "(Qwen/Qwen3-32B, owner/name@revision; HF_TOKEN, HF_HUB_OFFLINE and HF_ENDPOINT "
        "are honoured)."),
        epilog="Exit status: 0 vLLM would start with the serving setting; 1 it would not; "
               "2 bad input.")
    p.add_argument("model", help="a zoo name, a config.json path or folder, or a Hub id")
    p.add_argument("--revision", help="a Hub revision: a branch, a tag or a commit hash")
    s = p.add_argument_group("serving")
    s.add_argument("--gpu", default="H100", help="accelerator (default H100; lc.list_gpus())")
    s.add_argument("--tp", type=int, default=1, help="tensor-parallel GPUs (default 1)")
    s.add_argument("--pp", type=int, default=1, help="pipeline-parallel stages (default 1)")
    s.add_argument("--context", type=int, default=None,
                   help="tokens per sequence: vLLM's max_model_len (default: the model's "
                        "max_position_embeddings, as vLLM's)")
    s.add_argument("--batch", type=int, default=1, help="sequences for the fit (default 1)")
    s.add_argument("--weights", default="as shipped",
                   help="weight scheme (default 'as shipped'; lc.list_schemes())")
    s.add_argument("--kv-dtype", default="auto", choices=KV_CHOICES,
                   help="vLLM's --kv-cache-dtype (default auto: the model's 16-bit dtype); "
                        "each from the first release that has it")
    s.add_argument("--utilization", type=float, default=None,
                   help="gpu_memory_utilization for both plans (default: vLLM's plan the "
                        "release's own, 0.92 in today's vLLM; the idealised fit 0.9, its 10%% "
                        "reserve)")
    s.add_argument("--vllm-version", default=None,
                   help="the vLLM release whose startup budget to follow (default: the newest "
                        "the course models; 0.11 for the older budget)")
    s.add_argument("--disable-hybrid-kv-cache-manager", action="store_true",
                   help="vLLM's flag (also its choice with --kv-transfer-config): every "
                        "sliding-window layer keeps the whole context")
    s.add_argument("--decode-context", type=int, default=4096,
                   help="tokens in the cache for the decode speed (default 4096)")
    t = p.add_argument_group("training")
    t.add_argument("--train-seq", type=int, default=4096, help="sequence length (default 4096)")
    t.add_argument("--micro-batch", type=int, default=1, help="micro-batch (default 1)")
    t.add_argument("--setup", default="hf-trainer-fsdp",
                   help="a named tool setup, as the tool runs by default (default "
                        "hf-trainer-fsdp: the Hugging Face Trainer with FSDP full_shard; "
                        "hf-trainer-deepspeed-zero3, megatron, ...: "
                        "lc.training_settings.TRAINING_SETUPS), the flags below overriding it")
    t.add_argument("--precision", default=None, help="override the setup's precision")
    t.add_argument("--optimizer", default=None, help="override the setup's optimizer")
    t.add_argument("--recompute", default=None, help="none, selective or full")
    t.add_argument("--zero", type=int, default=None,
                   help="override the setup's sharding stage (ZeRO 0-3; FSDP 0, 2, 3)")
    t.add_argument("--train-gpus", type=int, default=8,
                   help="data-parallel GPUs for training (default 8)")
    p.add_argument("--checkpoint", action="store_true",
                   help="also read the checkpoint's safetensors headers (a Hub id or a "
                        "folder) and set its sizes beside the engine's")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def report(args):
    """The answer as plain data (what ``--json`` prints)."""
    from .counts import kv_cache_bytes, linear_state_bytes, param_count
    from .hardware import load_gpu
    from .inference import DEFAULT_UTILIZATION, memory_plan
    from .quantization import stored_weights
    from .serving import expected_decode_speed, vllm_plan, vllm_release
    from .training import fit_verdict, training_memory
    from .training_settings import setup_settings, stage_label
    from .zoo import as_config, load_model

    cfg = load_model(args.model, args.revision) if args.revision else as_config(args.model)
    gpu = load_gpu(args.gpu)
    n = args.tp * args.pp
    pc = param_count(cfg)
    context = args.context or cfg.get("max_position_embeddings") or 4096
    weights = args.weights
    release = vllm_release(args.vllm_version)
    # the idealised fit keeps its own 10% reserve (u = 0.9, as lesson 9 teaches it); vLLM's
    # plan below uses the release's default (0.92 since 0.21) unless --utilization says
    utilization = args.utilization if args.utilization is not None else DEFAULT_UTILIZATION
    vllm_utilization = (args.utilization if args.utilization is not None
                        else release.default_utilization)
    ideal_kv = _IDEAL_KV.get(args.kv_dtype, "fp16" if str(cfg.get("torch_dtype")) ==
                             "float16" else "bf16")
    plan_error = ""
    try:
        plan = vllm_plan(cfg, gpu, tensor_parallel_size=args.tp,
                         pipeline_parallel_size=args.pp, gpu_memory_utilization=args.utilization,
                         max_model_len=context, kv_cache_dtype=args.kv_dtype, weights=weights,
                         vllm_version=release.version,
                         hybrid_kv_cache_manager=not args.disable_hybrid_kv_cache_manager)
    except ValueError as e:      # a setup vLLM's budget here does not cover (a Mac, a TPU)
        if not str(e).startswith(("gpu:", "model:")):
            raise
        plan, plan_error = None, str(e)
    fit = memory_plan(cfg, gpu, n, weights, ideal_kv, context, args.batch, utilization)
    speed = expected_decode_speed(cfg, gpu, tensor_parallel_size=args.tp, weights=weights,
                                  kv_cache_dtype=ideal_kv, seq_len=args.decode_context)
    chosen = {key: arg for key, arg in (("precision", args.precision),
                                        ("optimizer", args.optimizer),
                                        ("recompute", args.recompute), ("zero_stage", args.zero))
              if arg is not None}
    setting = setup_settings(args.setup, dp=args.train_gpus, **chosen)
    mem = training_memory(cfg, args.train_seq, args.micro_batch, setup=setting)
    fits, words = fit_verdict(mem, gpu)
    stored = stored_weights(cfg, weights)
    out = {
        "model": cfg.name, "model_type": cfg.model_type,
        "multimodal_wrapper": cfg.text_model_of if cfg.is_multimodal else None,
        "layers": cfg.num_hidden_layers, "hidden_size": cfg.hidden_size,
        "params": {"total": pc.total, "active": pc.active, "embedding": pc.embedding},
        "kv_cache": {"dtype": ideal_kv,
                     "bytes_per_token": kv_cache_bytes(cfg, 1, 1, ideal_kv),
                     "bytes_at_context": kv_cache_bytes(cfg, context, args.batch, ideal_kv),
                     "fixed_state_bytes": linear_state_bytes(cfg, args.batch),
                     "context": context, "batch": args.batch},
        "weights": {"scheme": stored.scheme, "bytes": stored.total},
        "fit": {"gpu": gpu.name, "gpus": n, "fits": fit.fits, "context": context,
                "batch": args.batch, "utilization": utilization,
                "weights_bytes": fit.weight_bytes,
                "cache_bytes": fit.cache_bytes, "usable_bytes": fit.usable_bytes},
        "vllm": ({"release": release.label, "utilization": vllm_utilization, "planned": False,
                  "starts": False, "reason": plan_error, "tp": args.tp, "pp": args.pp}
                 if plan is None else
                 {"release": release.label, "utilization": vllm_utilization, "planned": True,
                  "memory_caveat": plan.memory_caveat, "kv_cache_dtype": args.kv_dtype,
                  "starts": plan.starts, "reason": plan.reason, "tp": args.tp, "pp": args.pp,
                  "max_model_len": plan.max_model_len, "weight_bytes": plan.weight_bytes,
                  "activation_bytes_estimate": plan.activation_bytes,
                  "cuda_graph_bytes": plan.cuda_graph_bytes if plan.cuda_graph_in_budget
                  else 0, "kv_budget_bytes": plan.kv_budget_bytes,
                  "kv_tokens": plan.kv_tokens, "max_concurrency": plan.max_concurrency,
                  "concurrent_requests": plan.concurrent_requests,
                  "max_num_seqs": plan.max_num_seqs, "caveats": list(plan.caveats)}),
        "decode": {"context": args.decode_context, "engine": speed.engine,
                   "bound_tokens_per_s": speed.bound_tokens_per_s,
                   "bound": "per GPU: its weights and KV over its bandwidth, plus TP's "
                            "all-reduces",
                   "expected_tokens_per_s": speed.expected_tokens_per_s,
                   "expected_band_tokens_per_s": (None if speed.withheld else
                                                  [speed.low_tokens_per_s,
                                                   speed.high_tokens_per_s]),
                   "label": speed.label, "outside_the_data": list(speed.outside),
                   "withheld": speed.withheld},
        "training": {"seq_len": args.train_seq, "micro_batch": args.micro_batch,
                     "setup": args.setup, "precision": setting.precision,
                     "optimizer": setting.optimizer, "recompute": setting.recompute,
                     "zero_stage": setting.zero_stage,
                     "sharding": stage_label(setting.precision, setting.zero_stage),
                     "gpus": args.train_gpus, "gpu": gpu.name, "total_bytes": mem.total,
                     "peak_bytes": mem.peak, "fits": fits, "verdict": words},
    }
    if args.checkpoint:
        from .hub import checkpoint_report
        target = args.model if not args.revision else f"{args.model}@{args.revision}"
        out["checkpoint"] = checkpoint_report(target).to_dict()
    return out


def _gib(n):
    return f"{n / 2**30:,.2f} GiB"


def _gb(n):
    return f"{n / 1e9:,.2f} GB"


def _vllm_line(v):
    head = f"{v['release']}, TP={v['tp']} PP={v['pp']}, utilization {v['utilization']:g}"
    if not v.get("planned"):
        return f"{head}: not planned: {v['reason']}"
    head += f", max_model_len {v['max_model_len']:,}, KV {v['kv_cache_dtype']}"
    if v["memory_caveat"]:
        head += f" ({v['memory_caveat']})"
    if not v["starts"]:
        return f"{head}: would not start: {v['reason']}"
    graphs = (f", CUDA graphs ~{_gib(v['cuda_graph_bytes'])}" if v["cuda_graph_bytes"]
              else "")
    return (f"{head}: starts; per GPU (GiB, as vLLM logs) weights {_gib(v['weight_bytes'])}, "
            f"activations ~{_gib(v['activation_bytes_estimate'])} (estimate){graphs}, KV "
            f"{_gib(v['kv_budget_bytes'])} = {v['kv_tokens']:,} tokens, "
            f"{v['max_concurrency']:.2f}x concurrency ({v['concurrent_requests']:,} requests "
            f"of max_model_len at once, max_num_seqs {v['max_num_seqs']:,})"
            + "".join(f"; {c}" for c in v["caveats"]))


def _decode_line(d):
    head = (f"at {d['context']:,} tokens, batch 1: bound {d['bound_tokens_per_s']:,.0f} "
            f"tokens/s (per GPU, TP all-reduces included)")
    if d["withheld"]:
        return f"{head}; no estimate with {d['engine']}: {d['withheld']}"
    lo, hi = d["expected_band_tokens_per_s"]
    out = (f"{head}; expect ~{d['expected_tokens_per_s']:,.0f} tokens/s with {d['engine']} "
           f"({lo:,.0f}-{hi:,.0f}; {d['label']})")
    if d["outside_the_data"]:
        out += f" [{'; '.join(d['outside_the_data'])}: band widened]"
    return out


def render(r):
    """The report as the lines the command prints."""
    from .units import human_count
    p, kv, w, f, v, d, t = (r[k] for k in ("params", "kv_cache", "weights", "fit", "vllm",
                                            "decode", "training"))
    wrap = f", the text model of a {r['multimodal_wrapper']} config" \
        if r["multimodal_wrapper"] else ""
    setup = f"{t['setup']}: " if t["setup"] else ""
    zero = f", {t['sharding']}"
    lines = [
        f"{r['model']} ({r['model_type']}{wrap}; {r['layers']:,} layers, hidden "
        f"{r['hidden_size']:,})",
        f"  parameters       {human_count(p['total'])} total ({p['total']:,}), "
        f"{human_count(p['active'])} active per token ({p['active']:,})",
        f"  KV cache         {kv['bytes_per_token']:,} B per token ({kv['dtype']}); "
        f"{_gb(kv['bytes_at_context'])} at {kv['context']:,} tokens x {kv['batch']}"
        + (f", plus {_gb(kv['fixed_state_bytes'])} of fixed state"
           if kv["fixed_state_bytes"] else ""),
        f"  weights          {_gb(w['bytes'])} as stored ({w['scheme']})",
        f"  fit              {'fits' if f['fits'] else 'does not fit'} on {f['gpus']} x "
        f"{f['gpu']}: weights {_gb(f['weights_bytes'])} + cache {_gb(f['cache_bytes'])} of "
        f"{_gb(f['usable_bytes'])} usable ({f['utilization']:g} of the datasheet GB; "
        f"idealised: {f['batch']} x {f['context']:,} tokens, one pool)",
        f"  vLLM plan        {_vllm_line(v)}",
        f"  decode           {_decode_line(d)}",
        f"  training         {setup}{t['precision']}, {t['optimizer']}{zero} over "
        f"{t['gpus']} x {t['gpu']}, {t['seq_len']:,} x {t['micro_batch']} tokens, recompute "
        f"{t['recompute']}: {t['verdict']}",
    ]
    if "checkpoint" in r:
        c = r["checkpoint"]
        lines.append(f"  checkpoint       {c['tensors']:,} tensors, {c['checkpoint_bytes']:,} B "
                     f"({c['source']})")
        for row in c["rows"]:
            lines.append(f"    {row['what']}: checkpoint {row['checkpoint']:,}, course "
                         f"{row['course']:,}, difference {row['difference']:+,}"
                         + (f" ({row['why']})" if row["why"] else ""))
    return lines


def build_log_parser():
    p = _Parser(prog="llmcourse log", description=(
        "Read a vLLM startup log (0.10-0.31, or any excerpt of it) and explain it: the plan "
        "of the same launch, term by term, beside what the log printed."))
    p.add_argument("file", help="the log file, or - for stdin")
    p.add_argument("--model", help="the model, when the log does not name one the course holds")
    p.add_argument("--gpu", help="the GPU, when the log's total memory does not identify it")
    p.add_argument("--vllm-version", help="the release, when the log names none")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def log_main(argv):
    """``llmcourse log FILE``: read and explain a vLLM startup log."""
    from .vllm_log import explain_vllm_log
    parser = build_log_parser()
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
    except OSError as e:
        print(f"{parser.prog}: file: cannot read {args.file!r} ({e.strerror})", file=sys.stderr)
        return EXIT_BAD_INPUT
    kw = {"vllm_version": args.vllm_version} if args.vllm_version else {}
    try:
        e = explain_vllm_log(text, model=args.model, gpu=args.gpu, **kw)
    except ValueError as err:
        print(f"{parser.prog}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        out = {"settings": e.settings, "plan_starts": e.plan.starts, "notes": list(e.notes),
               "terms": [{"term": t.term, "unit": t.unit, "logged": t.logged,
                          "planned": t.planned, "difference": t.difference,
                          "cause": t.cause if t.differs else ""} for t in e.terms]}
        _print(json.dumps(out, indent=1))
    else:
        _print(str(e))
    return EXIT_OK


def _print(text):
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `llmcourse ... | head`: the reader has what they wanted
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv=None):
    """Run the command; returns the exit status (see the module docstring)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["log"]:
        return log_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        r = report(args)
    except ValueError as e:  # the engine's one-line message
        print(f"{parser.prog}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    _print(json.dumps(r, indent=1) if args.json else "\n".join(render(r)))
    return EXIT_OK if r["vllm"]["starts"] else EXIT_DOES_NOT_START


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
