"""The bytes of a QLoRA base as transformers, bitsandbytes and peft hold it, measured on CPU.

Each small model is saved in bf16, then loaded as QLoRA's recipe loads it:
``from_pretrained(..., dtype=torch.bfloat16, quantization_config=BitsAndBytesConfig(
load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16,
bnb_4bit_use_double_quant=dq))``, with ``dq`` False (``BitsAndBytesConfig``'s default) and
True (the QLoRA paper's). The bytes counted are every storage a parameter or its
``quant_state`` holds (the packed 4-bit codes, the absmax values, the code tables, double
quantization's second state and offset), each storage once. Then peft's
``prepare_model_for_kbit_training`` runs on the same model (it casts every parameter that is
not 4-bit to fp32) and the bytes are counted again.

    python -m measurements qlora-base        # writes measurements/qlora_base.json

Needs ``bitsandbytes`` (0.50.2 on CPU here: ``pip install bitsandbytes``; not in the course's
requirements). ``tests/test_training_lora.py`` compares ``lc.finetune.qlora_base_bytes``
with every stored row and re-measures one when bitsandbytes is installed.
"""

from __future__ import annotations

import platform
import tempfile
import time

from .common import local_file, write_json

OUT = local_file("qlora_base.json")

MODELS = {
    "llama (GQA 4:2, untied, odd widths)": dict(
        model_type="llama", hidden_size=256, intermediate_size=712, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, vocab_size=1000,
        tie_word_embeddings=False),
    "qwen3 (tied, QK-norm, 70 blocks of 64 and more)": dict(
        model_type="qwen3", hidden_size=320, intermediate_size=1000, num_hidden_layers=3,
        num_attention_heads=5, num_key_value_heads=1, head_dim=64, vocab_size=1536,
        tie_word_embeddings=True),
}


def storage_bytes(model):
    """Bytes of every storage the model's parameters and their quantization states hold,
    each storage once."""
    seen, total = set(), 0

    def add(t):
        nonlocal total
        if t is None:
            return
        s = t.untyped_storage()
        if s.data_ptr() in seen:
            return
        seen.add(s.data_ptr())
        total += s.nbytes()

    for p in model.parameters():
        add(p)
        qs = getattr(p, "quant_state", None)
        if qs is not None:
            add(qs.absmax)
            add(qs.code)
            add(getattr(qs, "offset", None))
            if qs.state2 is not None:
                add(qs.state2.absmax)
                add(qs.state2.code)
    return total


def measure(config, double_quant):
    """``{"loaded": bytes, "prepared": bytes}``: the base as loaded, then after peft's
    ``prepare_model_for_kbit_training`` (without gradient checkpointing: memory only)."""
    import torch
    from peft import prepare_model_for_kbit_training
    from transformers import AutoConfig, AutoModelForCausalLM, BitsAndBytesConfig
    fields = {k: v for k, v in config.items() if k != "model_type"}
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model(config["model_type"],
                                                                  **fields))
    with tempfile.TemporaryDirectory() as d:
        model.to(torch.bfloat16).save_pretrained(d)
        q = AutoModelForCausalLM.from_pretrained(
            d, dtype=torch.bfloat16, device_map="cpu",
            quantization_config=BitsAndBytesConfig(
                load_in_4bit=True, bnb_4bit_quant_type="nf4",
                bnb_4bit_compute_dtype=torch.bfloat16,
                bnb_4bit_use_double_quant=double_quant))
    loaded = storage_bytes(q)
    prepared = storage_bytes(prepare_model_for_kbit_training(q, use_gradient_checkpointing=False))
    return {"loaded": loaded, "prepared": prepared}


def main(argv=()):
    import bitsandbytes
    import peft
    import torch
    import transformers
    t0 = time.perf_counter()
    rows = []
    for name, config in MODELS.items():
        for dq in (False, True):
            r = measure(config, dq)
            rows.append(dict(model=name, double_quant=dq, **r))
            print(f"{name:48s} double_quant={dq!s:5s} loaded {r['loaded']:>10,d} "
                  f"prepared {r['prepared']:>10,d}")
    data = {
        "_about": ("Bytes of a QLoRA base on CPU: every storage of the parameters and their "
                   "bitsandbytes quant_state (codes, absmax, code tables, double "
                   "quantization's state2 and offset), each once; 'loaded': as "
                   "from_pretrained(dtype=bfloat16, quantization_config=BitsAndBytesConfig("
                   "load_in_4bit=True, bnb_4bit_quant_type='nf4', bnb_4bit_compute_dtype="
                   "bfloat16, bnb_4bit_use_double_quant=double_quant)) loads it; 'prepared': "
                   "after peft.prepare_model_for_kbit_training. Written by "
                   "measurements/qlora_base.py."),
        "device": f"CPU ({platform.machine()}, {platform.system()})",
        "torch": torch.__version__, "transformers": transformers.__version__,
        "bitsandbytes": bitsandbytes.__version__, "peft": peft.__version__,
        "python": platform.python_version(),
        "models": MODELS,
        "rows": rows,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_json(OUT, data)
    print(f"wrote {OUT} ({len(rows)} rows, {data['seconds']} s)")
