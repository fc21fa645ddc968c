"""A stretch family of "The models of 2026": Qwen4-Exp (qwen4_exp_text, Qwen3.8-Flash-Next):
Qwen3.5's gated-DeltaNet and gated-attention layers, a query-selection indexer on the attention
layers, hyper-connections over hc_count residual streams in place of layer norms, and hashed
n-gram embedding tables (per-layer embeddings, PLE) in the layers ple_layer_ids names.

Every count is held against transformers 5.23: its meta-device build (the zoo config, random
configs of the type, the form save_pretrained writes back), the checkpoint a tiny model saves
(tensor names and shapes, the n-gram table in its shards), the cache a tiny model holds after
a CPU prefill, and the FLOPs PyTorch counts in one decode step.
"""

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)

pytestmark = pytest.mark.slow

NAME = "Qwen3.8-Flash-Next"


def _built(d):
    """(total, routed-expert parameters, {name: shape}) of transformers' meta build."""
    m = transformers_ref.meta_model(d)
    total = sum(p.numel() for p in m.parameters())
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    return total, transformers_ref.routed_expert_params(m), shapes


def _active(total, routed, E, k):
    return total - routed // E * (E - k)


# --- the zoo config ------------------------------------------------------------------------

def test_zoo_config_counts_what_transformers_builds():
    """transformers 5.23's meta build of the published config: 176,943,899,520 parameters,
    51,200,245,760 of them the one n-gram embedding table (layer index 1: ple_layer_ids [2] is
    one-indexed). The model reads it in every forward pass (the PLE layer adds its gated
    n-gram features to every stream), so it is a real weight a reader holds; without it the
    count is 125.74B, the "125B" of the INT4 repo's name."""
    d = lc.load_model(NAME).to_hf_config()
    total, routed, shapes = _built(d)
    table = shapes["model.layers.1.ple.ple_embedding.ngram_embedding.weight"]
    assert total == 176_943_899_520                  # transformers' own numbers
    assert table == (320_001_536, 160) and table[0] * table[1] == 51_200_245_760
    assert not any(".ple." in n for n in shapes if not n.startswith("model.layers.1."))
    cfg = lc.load_model(NAME)
    pc = lc.param_count(cfg)
    assert pc.total == total
    assert pc.active == _active(total, routed, 512, 10)
    assert pc.routed_experts == routed
    assert round((pc.total - table[0] * table[1]) / 1e9, 2) == 125.74


def test_zoo_config_reads_its_layers_as_transformers_does():
    """layer_types says full_attention; transformers builds (and writes back)
    indexed_attention: an attention layer with the query-selection indexer."""
    cfg = lc.load_model(NAME)
    hf = transformers_ref.hf_config(cfg.to_hf_config())
    assert list(cfg.layer_types) == hf.layer_types
    assert cfg.layer_schedule.count(attention="indexed_attention") == 12
    assert cfg.layer_schedule.count(indexer=True) == 12
    assert cfg.layer_schedule.count(attention="linear_attention") == 36
    assert [i for i, k in enumerate(cfg.layer_schedule.expand()) if k.ple] == [1]
    assert hf.ple_layer_ids == [2] and hf.number_of_conv_states == 3


def test_n_gram_table_sizes_are_transformers_primes():
    """Each n-gram head hashes into its own prime-sized vocabulary from
    ngram_vocab_size_base on, the k-th table continuing the primes where the previous one
    ended; the sum is padded to a multiple of make_ngram_vocab_size_divisible_by. Held
    against the module transformers builds for three tables in one model."""
    from llmcourse.architectures import ngram_table_rows
    d = dict(TINY, num_hidden_layers=8, ple_layer_ids=[1, 2, 5], ngram_vocab_size_base=1000,
             make_ngram_vocab_size_divisible_by=16)
    m = transformers_ref.meta_model(d)
    cfg = lc.from_hf_config(d)
    for k, layer in enumerate((0, 1, 4), start=1):
        emb = m.model.layers[layer].ple.ple_embedding
        assert ngram_table_rows(cfg, k) == emb.ngram_embedding.weight.shape[0]
        assert sum(emb.head_vocab_sizes) <= ngram_table_rows(cfg, k) < sum(
            emb.head_vocab_sizes) + 16
    # the real one: 16 heads of primes from 20,000,000 on, padded to a multiple of 128
    real = lc.load_model(NAME)
    assert ngram_table_rows(real, 1) == 320_001_536


def test_weight_shapes_use_checkpoint_names_and_shards():
    """The zoo config's listing: experts one by one (as the checkpoint stores them), the n-gram
    table in its split_ngram_parts = 128 shards of 2,500,012 rows, no layer norms (the
    hyper-connections' hc_norm instead), hyper_connection_mixer in place of model.norm."""
    ws = lc.weight_shapes(lc.load_model(NAME))
    shapes = dict(zip(ws["name"], ws["shape"]))
    shard = "model.layers.1.ple.ple_embedding.ngram_embedding.shard_{}.weight"
    assert [shapes[shard.format(s)] for s in (0, 127)] == [(2_500_012, 160)] * 2
    assert shard.format(128) not in shapes
    assert shapes["model.layers.3.self_attn.indexer.index_qk_proj.weight"] == (5 * 128, 2560)
    assert shapes["model.layers.47.mlp.experts.511.down_proj.weight"] == (2560, 640)
    assert shapes["model.hyper_connection_mixer.input_mix_weight_down.weight"] == (320, 10240)
    assert "model.norm.weight" not in shapes
    assert not any("input_layernorm" in n for n in shapes)
    shards = ws[ws["name"].str.contains("ngram_embedding.shard_")]
    assert set(shards["expert"]) == {-1} and set(shards["layer"]) == {1}
    assert int(ws.loc[ws["note"] == "", "numel"].sum()) == 176_943_899_520


# --- a tiny model: its checkpoint, its cache, its FLOPs ------------------------------------

TINY = {"model_type": "qwen4_exp_text", "vocab_size": 64, "hidden_size": 32,
        "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 8, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
        "linear_key_head_dim": 8, "linear_value_head_dim": 6, "moe_intermediate_size": 8,
        "shared_expert_intermediate_size": 12, "num_experts": 4, "num_experts_per_tok": 2,
        "hc_count": 3, "hc_lowrank": 5, "ple_layer_ids": [1, 3], "ple_embed_dim": 16,
        "heads_per_ngram": 2, "ngram_vocab_size_base": 50,
        "make_ngram_vocab_size_divisible_by": 8, "split_ngram_parts": 3,
        "ple_conv_kernel_size": 3, "indexer_n_heads": 2, "indexer_kv_heads": 1,
        "indexer_head_dim": 8, "indexer_budget": 4, "indexer_compress_ratio": 2,
        "eos_token_id": 1}


def _saved_checkpoint(d, tmp_path):
    """{name: shape} of the safetensors file a tiny model of ``d`` saves."""
    from safetensors import safe_open
    model, _ = transformers_ref.tiny_prefill(d, 3, 1)
    model.save_pretrained(tmp_path)
    with safe_open(os.path.join(tmp_path, "model.safetensors"), "pt") as f:
        return {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}


@pytest.mark.parametrize("parts", [3, 7, 40])
def test_weight_shapes_equal_the_saved_checkpoint(tmp_path, parts):
    """Every tensor a tiny model's save_pretrained writes, by name and shape: experts one by
    one, the n-gram tables chunked into split_ngram_parts shards (torch.chunk: equal shards
    and a smaller last one, or fewer shards when they do not divide; 40 parts of 160 rows: 40
    shards of 4), and the tables' hash constants (buffers, listed and not counted)."""
    d = dict(TINY, split_ngram_parts=parts)
    saved = _saved_checkpoint(d, tmp_path)
    ws = lc.weight_shapes(lc.from_hf_config(d))
    ours = dict(zip(ws["name"], ws["shape"]))
    assert len(ours) == len(ws)
    assert ours == saved
    buffers = set(ws.loc[ws["note"] == "buffer", "name"])
    assert buffers == {n for n in saved if n.endswith(("layer_multipliers", "vocab_sizes",
                                                       "heads_offsets"))}


def test_cache_and_states_equal_what_transformers_holds():
    """A tiny model after a CPU prefill of 2 x 7 tokens. The attention layer caches K and V
    and one indexer key of indexer_head_dim per token (kv_cache_bytes); every DeltaNet
    layer its recurrent and convolution states, and each PLE layer two more, the dilated
    convolution's window over all streams and the last ngram_size - 1 token ids, int64
    (linear_state_bytes). Besides, transformers keeps the token positions the indexer
    re-reads (3 int64 per token, once for the model): bookkeeping, not counted."""
    import torch
    cfg = lc.from_hf_config(TINY)
    seq, batch = 7, 2
    model, cache = transformers_ref.tiny_prefill(TINY, seq, batch)
    kv = states = positions = 0
    for layer in cache.layers:
        for kind in ("conv_states", "recurrent_states"):
            states += sum(t.numel() * t.element_size()
                          for t in (getattr(layer, kind, None) or {}).values() if t is not None)
        for kind in ("keys", "values", "indexer_keys"):
            t = getattr(layer, kind, None)
            kv += t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0
        t = getattr(layer, "indexer_position_ids", None)
        positions += t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0
    # by hand: 1 attention layer, 2 x 2 KV heads x 8 + one key of 8, fp32
    assert kv == (2 * 2 * 8 + 8) * seq * batch * 4
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32")
    assert lc.indexer_cache_bytes_per_token(cfg, dtype="fp32") == 8 * 4
    gdn = 4 * 8 * 6 + (2 * 2 * 8 + 4 * 6) * 4          # recurrent + conv (kernel 4)
    ple = 3 * 32 * (3 - 1) * 3 * 4 + (3 - 1) * 8        # conv window (fp32) + token ids
    assert states == (3 * gdn * 4 + 2 * ple) * batch
    assert states == lc.linear_state_bytes(cfg, batch=batch, dtype="fp32")
    assert positions == 3 * seq * batch * 8
    assert lc.param_count(cfg).total == sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("budget,n", [(64, 20), (4, 20), (4, 9)])
def test_decode_step_flops_against_pytorch(budget, n):
    """One decode step (tests/test_flops_torch.py's harness). transformers runs the DeltaNet
    recurrence elementwise (FlopCounterMode counts none of the engine's 6 x heads x d_k x
    d_v) and its decode convolution twice over, as for Qwen3.5; its eager attention scores
    every key and masks those the indexer did not select, which the engine does not count
    (as a sparse kernel skips them). The indexer's block scores and the hyper-connections'
    and PLE's weights are counted alike."""
    from test_flops_torch import decode_step_flops
    d = dict(TINY, indexer_budget=budget)
    counted, ours = decode_step_flops(d, n)
    linear_layers = 3
    recurrence = linear_layers * 6 * 4 * 8 * 6
    conv_once = linear_layers * 2 * (2 * 2 * 8 + 4 * 6) * 4
    r = 2
    selected = r * min(budget // r, n // r) + n % r
    masked = (n - selected) * 2 * 4 * 2 * 8            # per key: 2 x heads x (q.k + V sum)
    assert counted == ours.total - recurrence + conv_once + masked
    if budget == 4:
        assert masked > 0


def test_prefill_flops_average_the_decode_steps():
    """The prefill average is the decode steps' FLOPs summed over positions 1..n, divided by
    n (closed form over the selected keys and scored blocks)."""
    cfg = lc.load_model(NAME)
    for n in (1, 7, 2048, 2049, 5000):
        steps = sum(lc.flops_per_token(cfg, i, mode="decode").attention for i in range(1, n + 1))
        assert lc.flops_per_token(cfg, n).attention == steps // n


def test_decode_attention_by_hand_at_long_context():
    """At 100,000 tokens: each of the 12 attention layers attends to the 2,048 tokens of its
    512 best blocks of 4 (24 heads, head_dim 256, q.k and V sum) and scores all 25,000
    blocks with 4 indexer heads of 128; each of the 36 DeltaNet layers 6 x 48 x 128 x 128."""
    cfg = lc.load_model(NAME)
    f = lc.flops_per_token(cfg, 100_000, mode="decode")
    assert f.attention == (12 * (2 * 24 * 2 * 256 * 2048 + 2 * 4 * 128 * 25_000)
                           + 36 * 6 * 48 * 128 * 128)


# --- random configs, the saved form, the wrapper ----------------------------------------------

@st.composite
def qwen4_configs(draw):
    d8 = st.integers(1, 4)
    E = draw(st.integers(1, 5))
    kh = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    n = draw(st.integers(1, 4))     # full_attention_interval
    heads = 2 * draw(d8)
    kv = draw(st.sampled_from([h for h in (1, 2, heads) if heads % h == 0]))
    ratio = draw(st.integers(1, 3))
    hd = 2 * draw(d8)
    d = {"model_type": "qwen4_exp_text", "vocab_size": draw(st.integers(2, 100)),
         "hidden_size": 4 * draw(d8), "num_hidden_layers": L, "num_attention_heads": heads,
         "num_key_value_heads": kv, "head_dim": hd,
         "linear_num_key_heads": kh, "linear_num_value_heads": kh * draw(st.integers(1, 2)),
         "linear_key_head_dim": 2 * draw(d8), "linear_value_head_dim": 2 * draw(d8),
         "linear_conv_kernel_dim": draw(st.integers(2, 4)),
         "moe_intermediate_size": 2 * draw(d8),
         "shared_expert_intermediate_size": 2 * draw(d8), "num_experts": E,
         "num_experts_per_tok": draw(st.integers(1, E)), "hc_count": draw(st.integers(2, 4)),
         "hc_lowrank": draw(st.integers(1, 6)), "indexer_n_heads": draw(d8),
         "indexer_kv_heads": 1, "indexer_head_dim": hd + 2 * draw(st.integers(0, 2)),
         "indexer_budget": ratio * draw(st.integers(1, 3)), "indexer_compress_ratio": ratio,
         "tie_word_embeddings": draw(st.booleans()), "attention_bias": draw(st.booleans()),
         "eos_token_id": 0}
    if draw(st.booleans()):
        kinds = draw(st.lists(st.sampled_from(["linear_attention", "full_attention",
                                               "indexed_attention"]), min_size=L, max_size=L))
        d["layer_types"] = kinds
        linear = [i + 1 for i, k in enumerate(kinds) if k == "linear_attention"]
    else:
        d["full_attention_interval"] = n
        linear = [i + 1 for i in range(L) if (i + 1) % n]
    if linear and draw(st.booleans()):
        size = draw(st.integers(2, 3))
        per = draw(st.integers(1, 2))
        d.update(ple_layer_ids=draw(st.lists(st.sampled_from(linear), min_size=1, max_size=3)),
                 ngram_size=size, heads_per_ngram=per,
                 ple_embed_dim=(size - 1) * per * draw(d8),
                 ngram_vocab_size_base=draw(st.integers(0, 300)),
                 make_ngram_vocab_size_divisible_by=draw(st.integers(1, 16)),
                 split_ngram_parts=draw(st.integers(1, 9)),
                 ple_conv_kernel_size=draw(st.integers(1, 4)))
    return d


def test_random_configs_match_the_build():
    @settings(max_examples=40, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(qwen4_configs())
    def check(d):
        cfg = lc.from_hf_config(d)
        total, routed, shapes = _built(d)
        pc = lc.param_count(cfg)
        assert pc.total == total
        assert pc.active == _active(total, routed, d["num_experts"], d["num_experts_per_tok"])
        assert list(cfg.layer_types) == transformers_ref.hf_config(d).layer_types
        ws = lc.weight_shapes(cfg)
        assert int(ws.loc[ws["note"] == "", "numel"].sum()) == total
        tables = {}
        for n, s in zip(ws["name"], ws["shape"]):
            if ".shard_" in n:
                key = n.split(".shard_")[0] + ".weight"
                tables[key] = (tables.get(key, (0,))[0] + s[0], s[1])
        assert tables == {n: s for n, s in shapes.items() if "ngram_embedding" in n}
    check()


def test_saved_form_counts_the_same(tmp_path):
    """save_pretrained writes layer_types with indexed_attention (not full_attention), the
    sorted ple_layer_ids and ple_embed_dim filled in: read back, nothing moves."""
    d = dict(TINY, num_hidden_layers=8, ple_layer_ids=[6, 1, 6], full_attention_interval=4)
    d.pop("ple_embed_dim")
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert "indexed_attention" in saved["layer_types"] and "full_attention" not in saved[
        "layer_types"]
    assert saved["ple_layer_ids"] == [1, 6] and saved["ple_embed_dim"] == 32
    a, b = lc.from_hf_config(d), lc.from_hf_config(saved)
    for f in (lambda c: lc.param_count(c).total, lambda c: lc.param_count(c).active,
              lambda c: lc.kv_cache_bytes(c, 4096), lambda c: lc.linear_state_bytes(c),
              lambda c: lc.flops_per_token(c, 4096).total,
              lambda c: list(c.layer_schedule.expand())):
        assert f(a) == f(b)
    total, _, _ = _built(saved)
    assert lc.param_count(b).total == total
    zoo = lc.load_model(NAME)  # the zoo config saved by transformers, read back
    transformers_ref.hf_config(zoo.to_hf_config()).save_pretrained(tmp_path / "zoo")
    saved = json.loads((tmp_path / "zoo" / "config.json").read_text())
    assert lc.param_count(lc.from_hf_config(saved)).total == 176_943_899_520


def test_text_config_wrapper_reads_the_language_model():
    """The multimodal qwen4_exp config holds the language model in text_config, as
    Qwen4ExpConfig reads it."""
    from transformers.models.qwen4_exp import Qwen4ExpConfig
    text = lc.load_model(NAME).to_hf_config()
    outer = {"model_type": "qwen4_exp", "text_config": text}
    cfg = lc.from_hf_config(outer)
    assert cfg.is_multimodal and cfg.model_type == "qwen4_exp_text"
    assert lc.param_count(cfg).total == 176_943_899_520
    hf = Qwen4ExpConfig(text_config={k: v for k, v in text.items() if k != "model_type"})
    assert list(cfg.layer_types) == hf.text_config.layer_types


# --- bad values ---------------------------------------------------------------------------------

def _refused_by_transformers(d):
    try:
        transformers_ref.meta_model(d)
    except Exception:  # noqa: BLE001 - any refusal: a config error or a failed build
        return True
    return False


@pytest.mark.parametrize("field,value", [
    ("hc_count", 1), ("indexer_kv_heads", 2), ("indexer_budget", 5), ("indexer_head_dim", 4),
    ("ple_layer_ids", [4]), ("ple_layer_ids", [0]), ("ple_layer_ids", [5]),
    ("ple_embed_dim", 6), ("eos_token_id", None), ("output_gate_type", "relu"),
    ("indexer_n_heads", None), ("layer_types", ["linear_attention"] * 3 + ["sliding_attention"]),
])
def test_bad_values_are_one_line_errors_where_transformers_refuses(field, value):
    """Each value transformers 5.23 refuses (its validate_architecture, or a build that
    cannot run) is a one-line ValueError naming the field. (indexer_head_dim 4 < the 8
    rotary dimensions of head_dim 8; layer 4 is the attention layer; ple_embed_dim 6 is
    not a multiple of the 4 n-gram heads.)"""
    d = dict(TINY, **{field: value})
    if value is None:
        d.pop(field)
    assert _refused_by_transformers(d)
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(d)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(field), msg


def test_counts_are_fast():
    """Closed form over layer groups: the zoo model counts in well under a millisecond once
    read (the n-gram tables' primes are found once per config)."""
    import time
    cfg = lc.load_model(NAME)
    lc.param_count(cfg)
    t = time.perf_counter()
    for _ in range(100):
        lc.param_count(cfg)
        lc.kv_cache_bytes(cfg, 100_000)
        lc.linear_state_bytes(cfg)
    assert (time.perf_counter() - t) / 100 < 1e-3
