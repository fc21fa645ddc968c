"""``python -m measurements <what> [args...]``: run one measurement and rewrite its stored file."""

import importlib
import sys

# what -> (module, what it measures, where it writes)
WHAT = {
    "saved-activations": ("saved_activations", "bytes saved for backward: Llama, Qwen3, "
                          "Qwen3-MoE, Mixtral", "llmcourse/data/saved_activations.json"),
    "saved-activations-hybrid": ("saved_activations_hybrid", "bytes saved for backward, per "
                                 "layer: hybrid and new layer kinds (Gated DeltaNet, Mamba-2, "
                                 "MLA, Gemma 4, DeepSeek-V4, ...)",
                                 "llmcourse/data/saved_activations_hybrid.json"),
    "saved-activations-attention": ("saved_activations_attention", "bytes saved for backward, "
                                    "per layer: Gemma 2 and 3, multi-query attention, under "
                                    "autocast too",
                                    "llmcourse/data/saved_activations_attention.json"),
    "step-peak": ("step_peak", "the peak of a training step (end of forward, backward, "
                  "optimizer step; --checkpointed: only the rows with gradient checkpointing; "
                  "--loops: only the first-micro-batch, accumulation, pure-bf16 and Gemma rows)",
                  "llmcourse/data/step_peaks.json"),
    "lora-step": ("lora_step", "a peft LoRA step: saved tensors and peaks (--checkpointed: "
                  "with gradient checkpointing only)", "measurements/lora_step.json"),
    "comm-buffers": ("comm_buffers", "DDP's buckets, FSDP2's gathered weights and the bytes "
                     "their collectives move (2 CPU processes, gloo)",
                     "measurements/comm_buffers.json"),
    "qlora-base": ("qlora_base", "a QLoRA base's bytes with bitsandbytes (NF4 with and "
                   "without double quantization, then peft's prepare_model_for_kbit_training; "
                   "needs bitsandbytes)", "measurements/qlora_base.json"),
    "pipeline-stages": ("pipeline_stages", "what each pipeline stage saves under 1F1B and "
                        "GPipe (prints one case; the tests run it)", "(nothing stored)"),
}


def main(argv):
    if not argv or argv[0] not in WHAT:
        print(__doc__.strip())
        for k, (_, what, out) in WHAT.items():
            print(f"  {k:26s} {what}\n  {'':26s} -> {out}")
        return 0 if not argv else 2
    module = importlib.import_module(f"measurements.{WHAT[argv[0]][0]}")
    return module.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
