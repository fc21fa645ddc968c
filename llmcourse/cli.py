"""``python -m llmcourse MODEL`` (or ``llmcourse MODEL``): the course's answer for one model.

MODEL is a zoo name, a ``config.json`` path or folder, or a Hugging Face Hub id
(``owner/name``, optionally ``@revision``). It prints the parameter counts, the KV
cache per token, the weights as shipped, whether the serving setting fits and vLLM's
startup plan, the decode bound and the speed to expect, and the training memory for a
stated setting; ``--checkpoint`` adds the checkpoint's own sizes beside the engine's;
``--json`` prints the same as one JSON object.

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
    s.add_argument("--kv-dtype", default="bf16", choices=["bf16", "fp8"],
                   help="KV cache dtype (default bf16)")
    s.add_argument("--utilization", type=float, default=None,
                   help="vLLM's gpu_memory_utilization (default: the release's own, 0.92 in "
                        "today's vLLM)")
    s.add_argument("--vllm-version", default=None,
                   help="the vLLM release whose startup budget to follow (default: the newest "
                        "the course models; 0.11 for the older budget)")
    s.add_argument("--decode-context", type=int, default=4096,
                   help="tokens in the cache for the decode speed (default 4096)")
    t = p.add_argument_group("training")
    t.add_argument("--train-seq", type=int, default=4096, help="sequence length (default 4096)")
    t.add_argument("--micro-batch", type=int, default=1, help="micro-batch (default 1)")
    t.add_argument("--setup", default="hf-trainer-fsdp",
                   help="the tool a run uses, as it runs by default (default hf-trainer-fsdp: "
                        "the Hugging Face Trainer with FSDP full_shard; "
                        "lc.training.TRAINING_SETUPS); the options below override it")
    t.add_argument("--precision", default=None, help="override the setup's precision")
    t.add_argument("--optimizer", default=None, help="override the setup's optimizer")
    t.add_argument("--recompute", default="none", help="none, selective or full")
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
    from .inference import decode_step_time, memory_plan
    from .quantization import stored_weights
    from .serving import expected_decode_speed, vllm_plan, vllm_release
    from .training import fit_verdict, training_memory
    from .training_settings import stage_label
    from .zoo import as_config, load_model

    cfg = load_model(args.model, args.revision) if args.revision else as_config(args.model)
    gpu = load_gpu(args.gpu)
    n = args.tp * args.pp
    pc = param_count(cfg)
    context = args.context or cfg.get("max_position_embeddings") or 4096
    weights = args.weights
    release = vllm_release(args.vllm_version)
    utilization = args.utilization if args.utilization is not None \
        else release.default_utilization
    plan = vllm_plan(cfg, gpu, tensor_parallel_size=args.tp, pipeline_parallel_size=args.pp,
                     gpu_memory_utilization=args.utilization, max_model_len=context,
                     kv_cache_dtype="auto" if args.kv_dtype == "bf16" else "fp8",
                     weights=weights, vllm_version=release.version)
    fit = memory_plan(cfg, gpu, n, weights, args.kv_dtype, context, args.batch, utilization)
    step = decode_step_time(cfg, gpu, n, weights, args.kv_dtype, args.decode_context, 1)
    speed = expected_decode_speed(cfg, gpu, tensor_parallel_size=args.tp, weights=weights,
                                  kv_cache_dtype=args.kv_dtype, seq_len=args.decode_context)
    chosen = {k: v for k, v in (("precision", args.precision), ("optimizer", args.optimizer),
                                ("zero_stage", args.zero)) if v is not None}
    mem = training_memory(cfg, args.train_seq, args.micro_batch, setup=args.setup,
                          recompute=args.recompute, dp=args.train_gpus, **chosen)
    fits, words = fit_verdict(mem, gpu)
    stored = stored_weights(cfg, weights)
    out = {
        "model": cfg.name, "model_type": cfg.model_type,
        "multimodal_wrapper": cfg.text_model_of if cfg.is_multimodal else None,
        "layers": cfg.num_hidden_layers, "hidden_size": cfg.hidden_size,
        "params": {"total": pc.total, "active": pc.active, "embedding": pc.embedding},
        "kv_cache": {"dtype": args.kv_dtype,
                     "bytes_per_token": kv_cache_bytes(cfg, 1, 1, args.kv_dtype),
                     "bytes_at_context": kv_cache_bytes(cfg, context, args.batch, args.kv_dtype),
                     "fixed_state_bytes": linear_state_bytes(cfg, args.batch),
                     "context": context, "batch": args.batch},
        "weights": {"scheme": stored.scheme, "bytes": stored.total},
        "fit": {"gpu": gpu.name, "gpus": n, "fits": fit.fits, "context": context,
                "batch": args.batch, "weights_bytes": fit.weight_bytes,
                "cache_bytes": fit.cache_bytes, "usable_bytes": fit.usable_bytes},
        "vllm": {"release": release.label, "utilization": utilization,
                 "memory_caveat": plan.memory_caveat,
                 "starts": plan.starts, "reason": plan.reason, "tp": args.tp, "pp": args.pp,
                 "max_model_len": plan.max_model_len, "weight_bytes": plan.weight_bytes,
                 "activation_bytes_estimate": plan.activation_bytes,
                 "kv_budget_bytes": plan.kv_budget_bytes, "kv_tokens": plan.kv_tokens,
                 "max_concurrency": plan.max_concurrency},
        "decode": {"context": args.decode_context, "bound": step.bound,
                   "bound_tokens_per_s": step.tokens_per_s_per_user,
                   "expected_tokens_per_s": speed.expected_tokens_per_s,
                   "expected_band_tokens_per_s": [speed.low_tokens_per_s,
                                                  speed.high_tokens_per_s],
                   "engine": speed.engine, "label": speed.label},
        "training": {"setup": args.setup, "seq_len": args.train_seq,
                     "micro_batch": args.micro_batch,
                     "precision": mem.settings["precision"],
                     "optimizer": mem.settings["optimizer"],
                     "recompute": args.recompute, "zero_stage": mem.settings["zero_stage"],
                     "sharding": stage_label(mem.settings["precision"],
                                             mem.settings["zero_stage"]),
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


def render(r):
    """The report as the lines the command prints."""
    from .units import human_count
    p, kv, w, f, v, d, t = (r[k] for k in ("params", "kv_cache", "weights", "fit", "vllm",
                                            "decode", "training"))
    wrap = f", the text model of a {r['multimodal_wrapper']} config" \
        if r["multimodal_wrapper"] else ""
    lines = [
        f"{r['model']} ({r['model_type']}{wrap}; {r['layers']:,} layers, hidden "
        f"{r['hidden_size']:,})",
        f"  parameters       {human_count(p['total'])} total ({p['total']:,}), "
        f"{human_count(p['active'])} active per token ({p['active']:,})",
        f"  KV cache         {kv['bytes_per_token']:,} B per token ({kv['dtype']}); "
        f"{_gib(kv['bytes_at_context'])} at {kv['context']:,} tokens x {kv['batch']}"
        + (f", plus {_gib(kv['fixed_state_bytes'])} of fixed state"
           if kv["fixed_state_bytes"] else ""),
        f"  weights          {_gib(w['bytes'])} as stored ({w['scheme']})",
        f"  fit              {'fits' if f['fits'] else 'does not fit'} on {f['gpus']} x "
        f"{f['gpu']}: weights {_gib(f['weights_bytes'])} + cache {_gib(f['cache_bytes'])} of "
        f"{_gib(f['usable_bytes'])} usable (idealised: {f['batch']} x {f['context']:,} "
        "tokens, a runtime reserve kept)",
        f"  vLLM plan        {v['release']}, TP={v['tp']} PP={v['pp']}, utilization "
        f"{v['utilization']:g}, max_model_len {v['max_model_len']:,}"
        + (f" ({v['memory_caveat']})" if v["memory_caveat"] else "") + ": "
        + (f"starts; per GPU weights {_gib(v['weight_bytes'])}, activations "
           f"~{_gib(v['activation_bytes_estimate'])} (estimate), KV {_gib(v['kv_budget_bytes'])}"
           f" = {v['kv_tokens']:,} tokens, {v['max_concurrency']:.2f}x concurrency"
           if v["starts"] else f"would not start: {v['reason']}"),
        f"  decode           at {d['context']:,} tokens, batch 1: bound "
        f"{d['bound_tokens_per_s']:,.0f} tokens/s ({d['bound']}-bound); expect "
        f"~{d['expected_tokens_per_s']:,.0f} tokens/s with {d['engine']} "
        f"({d['expected_band_tokens_per_s'][0]:,.0f}-{d['expected_band_tokens_per_s'][1]:,.0f}; "
        f"{d['label']})",
        f"  training         {t['setup']}: {t['precision']}, {t['optimizer']}, {t['sharding']} over "
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


def main(argv=None):
    """Run the command; returns the exit status (see the module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        r = report(args)
    except ValueError as e:  # the engine's one-line message
        print(f"{parser.prog}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        print(json.dumps(r, indent=1) if args.json else "\n".join(render(r)))
        sys.stdout.flush()
    except BrokenPipeError:  # `llmcourse ... | head`: the reader has what they wanted
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK if r["vllm"]["starts"] else EXIT_DOES_NOT_START


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
