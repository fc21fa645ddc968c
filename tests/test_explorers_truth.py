"""Every explorer tells the truth for every model it offers.

For each registered explorer (``lc.widgets.EXPLORERS``, every lesson's) and each zoo model
its picker lists, the summary table at that model's own settings shows what the engine
says of the model as shipped: totals, active parameters, head_dim, KV cache, fixed state,
weights (each row a reader compares is read by its key), of the whole model unless the
row's label says it counts the language model alone. The figure's baselines are what
their labels say (a KV-head count, a head width, every layer full, the same layers), and
no row that states a saving lies outside ±100%.

The engine is the reference here (its own exactness is proven against transformers in
``test_exact_vs_transformers.py``); what this file proves is that no explorer shows a
different number for the model it names: a multimodal config read from its outer dict, a
baseline that turns MoE blocks into attention, a stand-in's weights beside the model's.
"""

from __future__ import annotations

import re

import pytest

import llmcourse as lc
from llmcourse.counts import (flops_per_token, kv_cache_bytes, linear_state_bytes,
                              param_count, weight_bytes)
from llmcourse.quantization import stored_weights
from llmcourse.widgets.kvcache import SEQ_LENS, heads_text, kv_cache_rows, kv_variants

pytestmark = pytest.mark.lessons

W = lc.widgets
EXPLORERS = sorted(W.EXPLORERS)
ZOO = lc.list_models()


def _kv_dtype(v):
    return v.get("kv_dtype") or v.get("dtype") or "bf16"


def _weights(cfg, v):
    """Weights as the explorer's setting states them: as shipped, or at its dtype."""
    if v.get("weights") == "as shipped":
        return stored_weights(cfg).total
    return weight_bytes(cfg, v.get("dtype") or "bf16")


def _ffn(cfg):
    c = param_count(cfg).components
    return sum(c[k] for k in ("mlp", "shared_experts", "experts", "router"))


# a summary row's key -> what the engine says of the model as shipped, at the explorer's
# settings ``v``; a key that means another thing in one explorer is listed under it below
TRUTH = {
    "total": lambda cfg, v: param_count(cfg).total,
    "total_params": lambda cfg, v: param_count(cfg).total,
    "active": lambda cfg, v: param_count(cfg).active,
    "active_params": lambda cfg, v: param_count(cfg).active,
    "head_dim": lambda cfg, v: cfg.head_dim,
    "attention_total": lambda cfg, v: param_count(cfg).components["attention"],
    "attention_params": lambda cfg, v: param_count(cfg).components["attention"],
    "ffn_params": lambda cfg, v: _ffn(cfg),
    "kv_bytes_per_token": lambda cfg, v: kv_cache_bytes(cfg, 1, 1, "bf16"),
    "bytes_per_token": lambda cfg, v: kv_cache_bytes(cfg, 1, 1, _kv_dtype(v)),
    "kv_cache_bytes": lambda cfg, v: kv_cache_bytes(cfg, v["seq_len"], v.get("batch", 1),
                                                    _kv_dtype(v)),
    "linear_state_bytes": lambda cfg, v: linear_state_bytes(cfg, v.get("batch", 1),
                                                            _kv_dtype(v)),
    "state_bytes": lambda cfg, v: linear_state_bytes(cfg, v.get("batch", 1), "bf16"),
    "weight_bytes": _weights,
    "bf16_bytes": lambda cfg, v: weight_bytes(cfg, "bf16"),
    "fp8_bytes": lambda cfg, v: weight_bytes(cfg, "fp8"),
    "weights_bf16": lambda cfg, v: weight_bytes(cfg, "bf16"),
    "weights_fp8": lambda cfg, v: weight_bytes(cfg, "fp8"),
    "max_context": lambda cfg, v: cfg.get("max_position_embeddings"),
    "flops_prefill": lambda cfg, v: flops_per_token(cfg, v["seq_len"], "prefill").total,
    "flops_decode": lambda cfg, v: flops_per_token(cfg, v["seq_len"], "decode").total,
}
# keys that mean something else in one explorer (fit's "max_context" is the longest
# context that fits, training's "total" the bytes a GPU holds)
OTHER_MEANING = {"fit": {"max_context"}, "speed": {"max_context"}, "training": {"total"}}
# explorers whose table states none of these (a training or decoding plan: time, peaks,
# traffic), held to PyTorch and to logs in their own tests
STATES_NONE = {"compute", "speed", "training"}


def _quiet(ex):
    """The explorer with its figure left undrawn: the summary rows are what is compared
    (every figure is drawn by test_explorers_every_option.py)."""
    ex._draw = None
    return ex


def _models(ex):
    return [o[1] if isinstance(o, tuple) else o for o in ex.controls["model"].options]


def _checked_rows(name, ex, cfg):
    """{key: (shown, the engine's)}: a row whose label says it counts the language model
    is held to ``cfg.text_model`` (a multimodal wrapper's towers left out), any other to
    the model as named, towers included."""
    rows = {}
    for r in ex.rows:
        if r.key in TRUTH and r.key not in OTHER_MEANING.get(name, ()):
            of = cfg.text_model if "language model" in r.label else cfg
            rows[r.key] = (r.value, TRUTH[r.key](of, ex.values))
    return rows


WITH_MODELS = [n for n in EXPLORERS if "model" in W.EXPLORERS[n]().controls]
@pytest.mark.parametrize("name", WITH_MODELS)
def test_every_model_it_offers_shows_the_engines_figures(name):
    ex = _quiet(W.EXPLORERS[name]())
    wrong, compared = [], 0
    for model in _models(ex):
        ex.set(model=model)
        assert ex.error == "", f"{name}, {model}: {ex.error}"
        cfg = lc.load_model(model)
        for key, (shown, truth) in _checked_rows(name, ex, cfg).items():
            compared += 1
            if shown != truth:
                wrong.append(f"{model} {key}: shows {shown!r}, the engine {truth!r}")
    assert not wrong, f"{name}: " + "; ".join(wrong)
    assert bool(compared) != (name in STATES_NONE), \
        f"{name}: {compared} rows compared; STATES_NONE says {name in STATES_NONE}"


@pytest.mark.parametrize("name", EXPLORERS)
def test_no_saving_it_states_lies_outside_100_percent(name):
    ex = _quiet(W.EXPLORERS[name]())
    models = _models(ex) if "model" in ex.controls else [None]
    for model in models:
        if model is not None:
            ex.set(model=model)
        for r in ex.rows:
            if "saving" in r.key and isinstance(r.value, (int, float)):
                assert -100 <= r.value <= 100, f"{name}, {model}: {r.label} = {r.value}"


@pytest.mark.parametrize("model", ZOO)
def test_kv_savings_stay_within_100_percent_at_every_context(model):
    cfg = lc.load_model(model)
    for n in SEQ_LENS:
        for r in kv_cache_rows(cfg, n, 1):
            if "saving" in r.key:
                assert -100 <= r.value <= 100, f"{model} at {n:,} tokens: {r.label} = {r.value}"


# --- the baselines are what their labels say -----------------------------------------------

def _layer_heads(cfg):
    """{(attention, KV heads, head width)} of the layers that store their own cache."""
    return {(k.attention, k.kv_heads or cfg.num_key_value_heads, k.head_dim or cfg.head_dim)
            for k in cfg.layer_schedule.counts() if k.attention != "none" and not k.kv_shared}


def _mixing_layers(cfg):
    return sum(n for k, n in cfg.layer_schedule.counts().items() if k.attention != "none")


def _every_layer_full(v, kv, width, layers):
    """An all-full cache by hand: 2 (K and V) x kv x width values a token in each layer."""
    assert set(v.layer_types) == {"full_attention"}, v.name
    assert v.layer_schedule.count(kv_shared=True) == 0, v.name
    assert _layer_heads(v) == {("full_attention", kv, width)}, v.name
    assert v.num_hidden_layers == layers, v.name
    assert kv_cache_bytes(v, 4096) == 4096 * layers * 2 * kv * width * 2, v.name


@pytest.mark.parametrize("model", ZOO)
def test_each_line_of_the_kv_figure_is_what_its_label_says(model):
    cfg = lc.load_model(model)
    h = cfg.num_attention_heads
    for label, v in kv_variants(cfg):
        if label.startswith("this setting") or label.startswith("MLA latent"):
            assert v is cfg, label
            if cfg.uses_mla:
                assert f"({cfg.kv_lora_rank}+{cfg.qk_rope_head_dim} per layer)" in label
            elif "window of" not in label:
                assert heads_text(cfg) in label, label
        elif m := re.fullmatch(r"(MHA|MQA) \((.+)\), same layers", label):
            want = h if m.group(1) == "MHA" else 1
            assert v.num_key_value_heads == want, label
            assert list(v.layer_types) == list(cfg.layer_types), label
            assert m.group(2) == heads_text(v), label
            if m.group(1) == "MHA":   # every layer: a KV head per query head
                assert {kv for _, kv, _ in _layer_heads(v)} == {h}, label
        elif m := re.fullmatch(r"every layer full: (\d+) KV heads? of (\d+)", label):
            assert int(m.group(1)) == cfg.num_key_value_heads, label
            assert int(m.group(2)) == cfg.head_dim, label
            _every_layer_full(v, cfg.num_key_value_heads, cfg.head_dim, _mixing_layers(cfg))
        elif m := re.fullmatch(r"MHA in every layer: (\d+) KV heads of (\d+)", label):
            width = cfg.v_head_dim if cfg.uses_mla else cfg.head_dim
            assert (int(m.group(1)), int(m.group(2))) == (h, width), label
            _every_layer_full(v, h, width, cfg.num_hidden_layers)
        else:
            pytest.fail(f"{model}: a line whose label says nothing checkable: {label!r}")


def _plain_mha_by_hand(cfg, n):
    """Plain MHA as the row's label states it: each layer that mixes tokens caches every
    token, one KV head per query head, at its own head width (MLA at v_head_dim)."""
    width = cfg.v_head_dim if cfg.uses_mla else cfg.head_dim
    return n * 2 * 2 * cfg.num_attention_heads * sum(
        count * (k.head_dim or width) for k, count in cfg.layer_schedule.counts().items()
        if k.attention != "none")


@pytest.mark.parametrize("model", ZOO)
def test_the_tables_baselines_are_what_their_labels_say(model):
    cfg = lc.load_model(model)
    n = 32768
    rows = {r.key: r for r in kv_cache_rows(cfg, n, 1)}
    assert rows["mha_cache_bytes"].value == _plain_mha_by_hand(cfg, n)
    w, c = weight_bytes(cfg), kv_cache_bytes(cfg, n)
    label = rows["total_saving"].label
    variants = dict(kv_variants(cfg))
    if "same weights" in label:   # a cache baseline: MHA in every layer, weights held equal
        base = next(v for k, v in variants.items() if k.startswith("MHA in every layer"))
        W_, C = w, kv_cache_bytes(base, n)
    else:                         # lesson 2's: its KV heads made MHA, the same layers
        assert "same layers" in label
        base = next((v for k, v in variants.items() if k.startswith("MHA (")), cfg)
        W_, C = weight_bytes(base), kv_cache_bytes(base, n)
    assert rows["total_saving"].value == round(100 * (1 - (w + c) / (W_ + C)), 1), label


def test_a_ratio_past_the_models_maximum_says_so():
    phi3 = lc.load_model("Phi-3-mini-4k-instruct")     # trained for 4,096 tokens
    rows = {r.key: r for r in kv_cache_rows(phi3, 32768, 1)}
    assert "beyond its maximum" in rows["cache_saving"].text
    assert "beyond" not in {r.key: r for r in kv_cache_rows(phi3, 4096, 1)}["cache_saving"].text


def test_nemotrons_all_full_attention_keeps_its_moe_blocks():
    """Only the 23 Mamba-2 blocks become attention: 29 caching layers, the 23 MoE blocks
    and their experts kept (the what-if's weights stay the model's size, not 3.6 GiB)."""
    nem = lc.load_model("Nemotron-3-Nano-30B-A3B")
    full = lc.widgets.with_layer_pattern(nem, "all full attention", 4096)
    assert full.layer_types.count("full_attention") == 23 + 6
    assert full.layer_types.count("none") == 23
    assert linear_state_bytes(full) == 0
    assert param_count(full).components["experts"] == param_count(nem).components["experts"]
    # 29 layers x 2 KV heads x 128 x (K and V) x 2 bytes a token
    assert kv_cache_bytes(full, 1) == 29 * 2 * 128 * 2 * 2
