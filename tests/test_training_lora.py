"""LoRA / QLoRA: trainable parameters equal peft's count (models built on the meta
device), the NF4 base's bytes, the memory's parts, the saved tensors and the peak of a
peft LoRA step against PyTorch on CPU (measurements/lora_step.py), and one-line errors."""

import json

import pytest
import torch

import llmcourse as lc
from llmcourse.finetune import NF4_BITS, lora_memory, lora_params, qlora_base_bytes

import peft  # noqa: E402  (pinned in requirements-test.txt: never skipped)
from transformers import AutoConfig, AutoModelForCausalLM  # noqa: E402

import stored_rows  # noqa: F401  (puts the repository root on sys.path)
from measurements import lora_step as L  # noqa: E402
from measurements import qlora_base as Q  # noqa: E402
from measurements import saved_activations as M  # noqa: E402

with open(L.OUT, encoding="utf-8") as _fh:
    LORA = json.load(_fh)


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


@pytest.mark.slow
@pytest.mark.parametrize("name, target_modules", CASES)
def test_trainable_parameters_equal_peft(name, target_modules):
    config = M.MODELS[name]
    tm = list(lc.finetune.LORA_TARGETS["attention"]) if target_modules == "attention" \
        else target_modules
    assert lora_params(lc.from_hf_config(config), 8, target_modules) == \
        _peft_trainable(config, 8, tm)


@pytest.mark.slow
def test_llama_3_1_8b_all_linear_r16_equals_peft():
    cfg = lc.load_model("Llama-3.1-8B")
    n = lora_params(cfg, 16, "all-linear")
    assert n == _peft_trainable(cfg.to_hf_config(), 16, "all-linear")
    assert n / lc.param_count(cfg).total < 0.006     # about 0.5% of the model


with open(Q.OUT, encoding="utf-8") as _fh:
    QLORA = json.load(_fh)


@pytest.mark.parametrize("r", QLORA["rows"], ids=lambda r: f"{r['model'][:5]}-dq{r['double_quant']}")
def test_the_qlora_base_equals_bitsandbytes_to_the_byte(r):
    """Stored: a small model loaded with BitsAndBytesConfig(load_in_4bit, nf4, with and without
    double quantization) on CPU (bitsandbytes 0.50.2), every storage of its parameters and
    quant states counted; then after peft's prepare_model_for_kbit_training. The engine's
    base, as loaded (kbit_upcast=False) and prepared (True), equals both to the byte."""
    cfg = lc.from_hf_config(QLORA["models"][r["model"]])
    for upcast, key in ((False, "loaded"), (True, "prepared")):
        assert qlora_base_bytes(cfg, r["double_quant"], upcast)[1] == r[key]
    # the same by hand: two codes a byte, a 16-value fp32 code table per tensor, and one
    # fp32 absmax per 64 values, or (double quantization) one byte per 64 values, one fp32
    # scale per 256 blocks, an fp32 offset and a 256-value fp32 code table per tensor
    linear = [t.numel for g in lc.architectures.layer_groups(cfg) for t in g.tensors
              for _ in range(g.count) if t.matmul and len(t.shape) == 2]
    rest = lc.param_count(cfg).total - sum(linear)
    blocks = [-(-n // 64) for n in linear]
    codes = sum((n + 1) // 2 + 64 for n in linear)
    stats = (sum(b + 4 * -(-b // 256) + 4 + 1024 for b in blocks) if r["double_quant"]
             else sum(4 * b for b in blocks))
    assert codes + stats + 2 * rest == r["loaded"]
    assert codes + stats + 4 * rest == r["prepared"]


@pytest.mark.slow
def test_the_qlora_recipe_defaults_are_the_tools_own():
    """BitsAndBytesConfig leaves double quantization off (transformers 5.23
    utils/quantization_config.py), so the engine's default NF4 base is 4.5 bits a value, not
    the QLoRA paper's 4.127; peft's prepare_model_for_kbit_training casts every parameter
    that is not 4-bit to fp32 (peft utils/other.py), which kbit_upcast=True counts."""
    from transformers import BitsAndBytesConfig
    bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")
    assert bnb.bnb_4bit_use_double_quant is False
    assert bnb.bnb_4bit_compute_dtype == torch.float32   # the recipe sets bfloat16 itself
    model = _meta_model(M.MODELS["llama (GQA 8:2, SwiGLU)"]).to_empty(device="cpu")
    model = peft.prepare_model_for_kbit_training(model.to(torch.bfloat16),
                                                 use_gradient_checkpointing=False)
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    cfg = lc.load_model("Llama-3.1-8B")
    default = lora_memory(cfg, 1024, base="nf4").base
    assert default == qlora_base_bytes(cfg)[1]
    assert round(default / 1e9, 2) == 6.03               # the reviewer's figure
    assert round(lora_memory(cfg, 1024, base="nf4", double_quant=True).base / 1e9, 2) == 5.70
    assert round(lora_memory(cfg, 1024, base="nf4", double_quant=True,
                             kbit_upcast=True).base / 1e9, 2) == 7.80
    assert float(NF4_BITS) == 4 + 8 / 64 + 32 / (64 * 256)


@pytest.mark.slow
def test_remeasure_a_qlora_base_now():
    pytest.importorskip("bitsandbytes", reason="bitsandbytes is not in the course's "
                                               "requirements: the stored rows stand")
    name = next(iter(Q.MODELS))
    r = Q.measure(Q.MODELS[name], double_quant=True)
    cfg = lc.from_hf_config(Q.MODELS[name])
    assert (qlora_base_bytes(cfg, True)[1], qlora_base_bytes(cfg, True, True)[1]) == (
        r["loaded"], r["prepared"])


def test_the_returned_logits_are_freed_where_the_loop_keeps_only_the_loss():
    cfg = lc.load_model("Llama-3.1-8B")
    held = lora_memory(cfg, 4096, base="nf4")
    freed = lora_memory(cfg, 4096, base="nf4", hold_outputs=False)
    assert held.logits - freed.logits == 2 * cfg.vocab_size * 4096   # the bf16 logits
    assert held.peak - freed.peak == 2 * cfg.vocab_size * 4096


def test_lora_memory_parts():
    cfg = lc.load_model("Llama-3.1-8B")
    m = lora_memory(cfg, 4096, 1, r=16, target_modules="all-linear", base="bf16")
    assert m.trainable == 41_943_040              # what peft prints for this setting
    assert m.adapters == m.adapter_grads == 4 * m.trainable and m.optimizer == 8 * m.trainable
    assert m.base == 2 * lc.param_count(cfg).total
    q = lora_memory(cfg, 4096, 1, r=16, target_modules="all-linear", base="nf4")
    assert q.peak < 0.9 * 24e9 < m.peak            # QLoRA fits a 24 GB GPU's usable 21.6 GB
    for kw, msg in ((dict(double_quant=True), "double_quant: NF4 settings need base='nf4'"),
                    (dict(kbit_upcast=True), "kbit_upcast: prepare_model_for_kbit_training"),
                    (dict(base="nf4", double_quant=1), "double_quant: must be True or False")):
        with pytest.raises(lc.ConfigError, match=msg):
            lora_memory(cfg, 1024, **kw)
    with pytest.raises(lc.ConfigError, match="^base: an NF4 base of a routed-expert model"):
        lora_memory("Qwen3-30B-A3B", 1024, target_modules="attention", base="nf4")


def _engine(r, **kw):
    # the stored rows ran on CPU without gradient checkpointing
    return lora_memory(lc.from_hf_config(M.MODELS[r["model"]]), r["seq_len"], r["batch"],
                       r=r["r"], target_modules=r["target_modules"],
                       lora_dropout=r["lora_dropout"], **{"device": "cpu", "recompute": "none", **kw})


def test_the_lora_measurements_name_their_machine_and_peft_keeps_adapters_in_fp32():
    assert LORA["device"].startswith("CPU") and LORA["torch"] and LORA["transformers"]
    assert LORA["peft"]
    rows = LORA["rows"]
    assert len(rows) == 24 and len(LORA["checkpointed_rows"]) == 10 and {r["adapter_dtype"] for r in rows} == {"float32"}
    assert {(r["target_modules"], r["lora_dropout"]) for r in rows} == {
        ("attention", 0.0), ("attention", 0.05), ("all-linear", 0.0), ("all-linear", 0.05)}


@pytest.mark.parametrize("r", LORA["rows"], ids=lambda r: "{model}-{target_modules}-p{lora_dropout}"
                         "-{batch}x{seq_len}".format(**r))
def test_lora_saved_tensors_and_peak_equal_pytorch(r):
    m = _engine(r)
    # the bytes autograd saves (frozen bf16 base, fp32 adapters), to the byte
    assert m.saved_for_backward == r["saved_bytes"]
    # the end of the forward holds the saved tensors and the returned logits
    assert abs((m.activations + m.logits) / r["end_of_forward"] - 1) < 0.001
    # the peak above the states (base, adapters, their grads, AdamW state)
    assert abs((m.peak - m.states) / r["peak_fwd_bwd"] - 1) < 0.03
    # the foreach AdamW step's temporaries (4 B per trainable parameter) stay below it
    assert r["peak_step"] == 4 * m.trainable < r["peak_fwd_bwd"]


def test_the_frozen_base_saves_less_than_full_training_and_each_adapter_adds_its_input():
    # measured: all-linear adapters save more than attention-only ones, and attention-only
    # LoRA saves less than full bf16 training of the same model would
    from llmcourse.training import training_memory
    by = {(r["model"], r["target_modules"], r["lora_dropout"], r["batch"], r["seq_len"]): r
          for r in LORA["rows"]}
    for (name, tm, p, b, s), r in by.items():
        if tm == "all-linear":
            assert r["saved_bytes"] > by[(name, "attention", p, b, s)]["saved_bytes"]
    r = by[("llama (GQA 8:2, SwiGLU)", "attention", 0.0, 2, 256)]
    full = training_memory(lc.from_hf_config(M.MODELS[r["model"]]), 256, 2, precision="bf16-mixed")
    assert _engine(r).saved_for_backward < full.saved_for_backward


def test_the_dropout_mask_is_fp32_on_cpu_and_a_bool_on_a_gpu():
    # measured on CPU: dropout adds 4 B per masked value (the fp32 noise it multiplies by);
    # CUDA's fused dropout keeps a bool mask instead: 1 B per value, 3 B less
    by = {(r["model"], r["target_modules"], r["batch"], r["seq_len"], r["lora_dropout"]): r
          for r in LORA["rows"]}
    for (name, tm, b, s, p), r in by.items():
        if p == 0:
            continue
        masked = (r["saved_bytes"] - by[(name, tm, b, s, 0.0)]["saved_bytes"]) / 4
        assert masked == int(masked) > 0
        cpu, gpu = _engine(r), _engine(r, device="gpu")
        assert cpu.activations - gpu.activations == 3 * masked


def _last_layer(r):
    return f"layer {M.MODELS[r['model']]['num_hidden_layers'] - 1} recompute"


def _check_checkpointed(r, m):
    """The engine's LoRA step with gradient checkpointing against one measured row."""
    phases = {ph["phase"]: ph for ph in r["timeline"]}
    # at the end of the forward: the layer inputs, the final norm and the loss's tensors
    # (and the rotary tables the recompute closures hold, which no saved-tensor hook sees)
    assert m.saved_for_backward == r["saved_bytes"]
    assert abs((m.total - m.states) / r["end_of_forward"] - 1) < 0.002
    # the two moments: the start of backward (the loss's fp32 gradients beside it all)
    # and the last layer recomputed, while every checkpoint is still held
    start = phases["loss, lm_head and final norm backward"]["peak"]
    assert abs((m.peak_start_of_backward - m.states) / start - 1) < 0.03
    assert abs((m.peak_recompute - m.states) / phases[_last_layer(r)]["peak"] - 1) < 0.03
    # the peak, and the moment that decides it
    assert abs((m.peak - m.states) / r["peak_fwd_bwd"] - 1) < 0.03
    assert ("recomputed" in m.peak_decided_by) == (r["peak_phase"] == _last_layer(r))
    assert r["peak_step"] == 4 * m.trainable


def test_the_checkpointed_rows_cover_dense_moe_both_targets_and_large_logits():
    rows = LORA["checkpointed_rows"]
    assert {r["target_modules"] for r in rows} == {"attention", "all-linear"}
    assert any("experts" in r["model"] for r in rows)
    vocab = {r["model"]: M.MODELS[r["model"]]["vocab_size"] for r in rows}
    logits = [vocab[r["model"]] * r["batch"] * r["seq_len"] for r in rows]
    assert sum(n >= 2**18 for n in logits) >= 8 and min(logits) < 2**18
    assert all(r["timeline"] and r["adapter_dtype"] == "float32" for r in rows)


@pytest.mark.parametrize("r", LORA["checkpointed_rows"],
                         ids=lambda r: "{model}-{target_modules}-{batch}x{seq_len}".format(**r))
def test_gradient_checkpointing_peak_is_within_3_percent_of_pytorch(r):
    # measured on CPU: the engine's peak is the larger of the start of backward and the
    # last layer's recomputation (its saved tensors and the MLP's or the adapters'
    # temporaries), within 3% of what PyTorch held
    _check_checkpointed(r, _engine(r, recompute="full"))


@pytest.mark.slow
def test_remeasure_one_checkpointed_lora_step_now():
    config = M.MODELS["llama (GQA 8:2, SwiGLU)"]
    r = L.measure(config, 1, 256, "all-linear", 0.0, checkpointing=True)
    r.update(model="llama (GQA 8:2, SwiGLU)", batch=1, seq_len=256, r=L.R,
             target_modules="all-linear", lora_dropout=0.0)
    _check_checkpointed(r, _engine(r, recompute="full"))


@pytest.mark.slow
def test_remeasure_one_lora_step_now():
    config = M.MODELS["llama (GQA 8:2, SwiGLU)"]
    r = L.measure(config, 1, 256, "all-linear", 0.05)
    m = lora_memory(lc.from_hf_config(config), 256, 1, r=L.R, target_modules="all-linear",
                    recompute="none", lora_dropout=0.05, device="cpu")
    assert m.saved_for_backward == r["saved_bytes"]
    assert abs((m.peak - m.states) / r["peak_fwd_bwd"] - 1) < 0.03


@pytest.mark.parametrize("kw, msg", [
    (dict(lora_dropout=1.5), "lora_dropout: must be a probability in"),
    (dict(device="tpu"), "device: must be one of gpu, cpu"),
    (dict(recompute="some"), "recompute: must be one of"),
])
def test_bad_lora_memory_input_is_one_line(kw, msg):
    with pytest.raises(lc.ConfigError, match=msg):
        lora_memory(lc.load_model("Llama-3.1-8B"), 1024, **kw)


@pytest.mark.parametrize("kw, msg", [
    (dict(target_modules="mlp"), "target_modules: must be one of"),
    (dict(target_modules=["qkv"]), "target_modules: qkv is not a weight matrix"),
    (dict(r=0), "r: must be at least 1"),
])
def test_bad_input_is_one_line(kw, msg):
    with pytest.raises(lc.ConfigError, match=msg):
        lora_params(lc.load_model("Llama-3.1-8B"), **kw)


def test_gemma_4_lora_without_full_recomputation_is_refused_in_one_line():
    """What Gemma 4's layers save with frozen weights is not modelled (no LoRA step of it was
    measured): the engine says so in one line instead of counting it."""
    for rc in ("none", "selective"):
        with pytest.raises(ValueError) as e:
            lc.lora_memory("gemma-4-31B", 2048, 1, r=16, target_modules="all-linear", recompute=rc)
        assert str(e.value).startswith("recompute:") and "\n" not in str(e.value)
    assert lc.lora_memory("gemma-4-31B", 2048, 1, r=16, target_modules="all-linear").peak > 0
