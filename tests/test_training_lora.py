"""LoRA / QLoRA: trainable parameters equal peft's count (models built on the meta
device), the NF4 base's bytes, the memory's parts, and one-line errors."""

import os
import sys

import pytest
import torch

import llmcourse as lc
from llmcourse.finetune import NF4_BITS, lora_memory, lora_params

import peft  # noqa: E402  (pinned in requirements-test.txt: never skipped)
from transformers import AutoConfig, AutoModelForCausalLM  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "benchmarks"))
import measure_activations as M  # noqa: E402


def _meta_model(config):
    fields = {k: v for k, v in config.items() if k != "model_type"}
    hf = AutoConfig.for_model(config["model_type"], **fields)
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(hf)


def _peft_trainable(config, r, target_modules):
    pm = peft.get_peft_model(_meta_model(config),
                             peft.LoraConfig(r=r, target_modules=target_modules))
    return sum(p.numel() for p in pm.parameters() if p.requires_grad)


CASES = [(name, tm) for name in M.MODELS for tm in ("attention", ["q_proj", "v_proj"])]
CASES += [(name, "all-linear") for name in M.MODELS if "experts" not in name]


@pytest.mark.parametrize("name, target_modules", CASES)
def test_trainable_parameters_equal_peft(name, target_modules):
    config = M.MODELS[name]
    tm = list(lc.finetune.LORA_TARGETS["attention"]) if target_modules == "attention" \
        else target_modules
    assert lora_params(lc.from_hf_config(config), 8, target_modules) == \
        _peft_trainable(config, 8, tm)


def test_llama_3_1_8b_all_linear_r16_equals_peft():
    cfg = lc.load_model("Llama-3.1-8B")
    n = lora_params(cfg, 16, "all-linear")
    assert n == _peft_trainable(cfg.to_hf_config(), 16, "all-linear")
    assert n / lc.param_count(cfg).total < 0.006     # about 0.5% of the model


def test_nf4_base_is_4_127_bits_per_linear_value_and_bf16_elsewhere():
    config = M.MODELS["llama (GQA 8:2, SwiGLU)"]
    model = _meta_model(config)
    linear = sum(m.weight.numel() for n, m in model.named_modules()
                 if isinstance(m, torch.nn.Linear) and n != "lm_head")
    total = sum(p.numel() for p in model.parameters())
    mem = lora_memory(lc.from_hf_config(config), 128, base="nf4")
    # 4-bit codes, an 8-bit absmax per 64 values, an fp32 scale per 256 absmax values
    assert float(NF4_BITS) == 4 + 8 / 64 + 32 / (64 * 256)
    assert abs(mem.base - (linear * 4.126953125 / 8 + 2 * (total - linear))) <= 1


def test_lora_memory_parts():
    cfg = lc.load_model("Llama-3.1-8B")
    m = lora_memory(cfg, 4096, 1, r=16, target_modules="all-linear", base="bf16")
    assert m.trainable == 41_943_040              # what peft prints for this setting
    assert m.adapters == m.adapter_grads == 4 * m.trainable and m.optimizer == 8 * m.trainable
    assert m.base == 2 * lc.param_count(cfg).total
    q = lora_memory(cfg, 4096, 1, r=16, target_modules="all-linear", base="nf4")
    assert q.peak < 0.9 * 24e9 < m.peak            # QLoRA fits a 24 GB GPU's usable 21.6 GB


@pytest.mark.parametrize("kw, msg", [
    (dict(target_modules="mlp"), "target_modules: must be one of"),
    (dict(target_modules=["qkv"]), "target_modules: qkv is not a weight matrix"),
    (dict(r=0), "r: must be at least 1"),
])
def test_bad_input_is_one_line(kw, msg):
    with pytest.raises(lc.ConfigError, match=msg):
        lora_params(lc.load_model("Llama-3.1-8B"), **kw)
