"""Each family's config.json read as transformers reads it, and refused where it refuses.

Its own names for standard fields (GPT-2's n_embd), the defaults of its transformers
``*Config`` class, the multimodal wrappers that hold it in ``text_config``, the per-layer
fields its schedule reads (and the forms save_pretrained writes them back in), the what-ifs
a reader makes, and every impossible value refused in one line naming the field (the rules
in llmcourse/families.py and family_rules.py). Tests marked slow hold the reading against
transformers (tests/transformers_ref.py).
"""

import json

import pytest

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)
from config_files import fixture_json, zoo_json
from family_rows import (GEMMA4_TINY, GEMMA4_VARIANTS, GRANITE_TINY, KIMI_LINEAR_TINY,
                         LFM2_TINY, QWEN4_TINY, zero_slot_params)

slow = pytest.mark.slow
QWEN4 = "Qwen3.8-Flash-Next"


def _longcat_real(d):
    """transformers' build of a LongCat-Flash config, less the zero experts' slots it
    allocates (tests/family_rows.py)."""
    m = transformers_ref.meta_model(d)
    return sum(p.numel() for p in m.parameters()) - zero_slot_params(m)


def one_line_error(d, field):
    """``d`` is refused with a one-line ValueError that starts with ``field``."""
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(d)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(field), msg


# --- names, defaults and wrappers --------------------------------------------------------

# where an entry's default differs from its transformers class's on purpose: (type, field) -> why
_DEFAULTS_READ_OTHERWISE = {
    ("deepseek_v32", "head_dim"): "transformers' head_dim is qk_rope_head_dim (attribute_map); "
                                  "the entry leaves it to be derived from the MLA widths",
    ("glm_moe_dsa", "head_dim"): "as deepseek_v32",
    ("qwen2_moe", "mlp_only_layers"): "[] and transformers' None both mean: no dense-only layers",
    ("qwen3_moe", "mlp_only_layers"): "as qwen2_moe",
    ("qwen3_next", "mlp_only_layers"): "as qwen2_moe",
}


@slow
@pytest.mark.parametrize("mt", sorted(lc.families.ENTRIES))
def test_every_default_is_its_transformers_class_default(mt):
    """A config.json that leaves a key out is read with the value transformers' *Config class
    gives it (Qwen3's num_key_value_heads is 32, not the head count; Gemma-2's head_dim 256,
    not hidden / heads; DeepSeek-V2 has 2 shared experts)."""
    import dataclasses

    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    cls = CONFIG_MAPPING[mt]   # (not an instance: some classes refuse their own defaults)
    theirs = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            theirs[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            theirs[f.name] = f.default_factory()
    differ = {k: (v, theirs[k]) for k, v in lc.families.ENTRIES[mt].defaults.items()
              if k in theirs and theirs[k] != v and (mt, k) not in _DEFAULTS_READ_OTHERWISE}
    assert not differ, f"{mt}: defaults (ours, transformers') differ: {differ}"



def test_gpt2_attribute_map_and_defaults():
    cfg = lc.load_model("gpt2")
    assert (cfg.hidden_size, cfg.num_hidden_layers, cfg.num_attention_heads,
            cfg.max_position_embeddings) == (768, 12, 12, 1024)
    assert cfg.intermediate_size == 4 * 768  # n_inner is absent: 4 x n_embd
    assert cfg.tie_word_embeddings  # no tie_word_embeddings key: GPT-2 ties
    assert cfg.attention_kind == "MHA" and cfg.head_dim == 64
    # the standard names change GPT-2's own fields
    small = cfg.replace(num_hidden_layers=2, hidden_size=192)
    d = small.to_hf_config()
    assert (d["n_layer"], d["n_embd"]) == (2, 192) and "num_hidden_layers" not in d


@slow
def test_gpt2_what_if_in_standard_names_builds():
    """The standard names change GPT-2's own fields, and transformers builds the what-if."""
    small = lc.load_model("gpt2").replace(num_hidden_layers=2, hidden_size=192)
    d = small.to_hf_config()
    m = transformers_ref.meta_model(d)
    assert sum(p.numel() for p in m.parameters()) == lc.param_count(small).total


@slow
def test_gemma_ties_by_default_and_gemma3_text_config_of_six_keys():
    assert lc.load_model("gemma-7b").tie_word_embeddings
    six = {"model_type": "gemma3", "text_config": {
        "hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text",
        "num_hidden_layers": 34, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024}}
    cfg = lc.from_hf_config(six, name="gemma-3-4b (text)")
    assert cfg.is_multimodal and cfg.text_model_of == "gemma3"
    assert "text model of a gemma3 config" in repr(cfg)
    assert cfg.vocab_size == 262208 and cfg.head_dim == 256 and cfg.num_key_value_heads == 4
    assert cfg.layer_types.count("full_attention") == 34 // 6  # every 6th layer is global
    m = transformers_ref.model_of(six)  # the wrapper whole: its class's SigLIP tower too
    assert lc.param_count(cfg).total == sum(p.numel() for p in m.parameters())
    # what-ifs go to the text_config, and the multimodal config comes back whole
    d = cfg.replace(num_hidden_layers=6).to_hf_config()
    assert d["model_type"] == "gemma3" and d["text_config"]["num_hidden_layers"] == 6


def test_llama4_reads_its_text_config_and_says_so():
    cfg = lc.load_model("Llama-4-Scout-17B-16E-Instruct")
    assert cfg.is_multimodal and cfg.text_model_of == "llama4"
    assert cfg.model_type == "llama4_text"
    # 3 chunked (RoPE) layers, then one full (NoPE) layer: 36 chunked, 12 full of 48
    assert cfg.layer_types[:4] == ("chunked_attention",) * 3 + ("full_attention",)
    assert cfg.layer_types.count("full_attention") == 12


def test_kimi_k25_reads_its_text_config_even_named_kimi_k2():
    d = zoo_json("Kimi-K2.5")
    cfg = lc.from_hf_config(d)
    assert cfg.is_multimodal and cfg.num_experts == 384 and lc.model_family(cfg) == "Kimi"
    alias = dict(d, text_config=dict(d["text_config"], model_type="kimi_k2"))
    assert lc.param_count(lc.from_hf_config(alias)).total == lc.param_count(cfg).total
    small = cfg.replace(num_hidden_layers=3)
    assert small.to_hf_config()["text_config"]["num_hidden_layers"] == 3


@slow
def test_mistral3_wrapper_reads_ministral3_or_mistral_inside():
    d = zoo_json("Ministral-3-8B-Base-2512")
    cfg = lc.from_hf_config(d)
    assert cfg.is_multimodal and cfg.model_type == "ministral3"
    # Mistral Small 3.1 wraps a plain mistral text model in the same mistral3 config
    older = dict(d, text_config=dict(d["text_config"], model_type="mistral"))
    assert lc.from_hf_config(older).model_type == "mistral"
    assert lc.param_count(lc.from_hf_config(older)).total == transformers_ref.meta_counts(older)[0]


@slow
def test_text_config_wrapper_reads_the_language_model():
    """The multimodal qwen4_exp config holds the language model in text_config, as
    Qwen4ExpConfig reads it, and, with no vision_config, its class's vision tower (as
    transformers 5.23 builds Qwen3.5's: 453,650,672 parameters)."""
    from transformers.models.qwen4_exp import Qwen4ExpConfig
    text = lc.load_model(QWEN4).to_hf_config()
    outer = {"model_type": "qwen4_exp", "text_config": text}
    cfg = lc.from_hf_config(outer)
    assert cfg.is_multimodal and cfg.model_type == "qwen4_exp_text"
    assert lc.param_count(cfg.text_model).total == 176_943_899_520
    assert lc.param_count(cfg).components["vision"] == 453_650_672
    assert lc.param_count(cfg).total == 176_943_899_520 + 453_650_672
    hf = Qwen4ExpConfig(text_config={k: v for k, v in text.items() if k != "model_type"})
    assert list(cfg.layer_types) == hf.text_config.layer_types


def test_unsupported_model_type_hints_how_to_add_a_family():
    with pytest.raises(ValueError) as e:
        lc.from_hf_config({"model_type": "mamba2", "hidden_size": 8})
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("model_type: unsupported")
    assert "lc.SUPPORTED_MODEL_TYPES" in msg and "Adding a family" in msg
    # a newer version of a family, or a typo: the nearest supported names
    with pytest.raises(ValueError) as e:
        lc.from_hf_config({"model_type": "deepseek_v5", "hidden_size": 8})
    assert "closest supported: deepseek_v4, " in str(e.value)
    with pytest.raises(ValueError, match="^model_type: must be a string"):
        lc.from_hf_config({"model_type": ["llama"]})
    with pytest.raises(ValueError, match="^text_config.num_attention_heads"):
        lc.from_hf_config({"model_type": "gemma3", "text_config": {"num_attention_heads": 0}})


# --- per-layer fields: what the schedule reads, and the forms transformers writes back -------


@slow
def test_qwen4_exp_reads_its_layers_as_transformers_does():
    """layer_types says full_attention; transformers builds (and writes back)
    indexed_attention: an attention layer with the query-selection indexer."""
    cfg = lc.load_model(QWEN4)
    hf = transformers_ref.hf_config(cfg.to_hf_config())
    assert list(cfg.layer_types) == hf.layer_types
    assert cfg.layer_schedule.count(attention="indexed_attention") == 12
    assert cfg.layer_schedule.count(indexer=True) == 12
    assert cfg.layer_schedule.count(attention="linear_attention") == 36
    assert [i for i, k in enumerate(cfg.layer_schedule.expand()) if k.ple] == [1]
    assert hf.ple_layer_ids == [2] and hf.number_of_conv_states == 3


@slow
def test_glm5_shared_indexer_layers_hold_no_indexer():
    """GLM-5's indexer_types: a "shared" layer reuses the previous layer's top-k and has no
    indexer weights or indexer cache of its own."""
    d = dict(zoo_json("GLM-5.1"),
             num_hidden_layers=6, n_routed_experts=8, num_experts_per_tok=2,
             indexer_types=["full", "shared", "shared", "full", "shared", "shared"])
    cfg = lc.from_hf_config(d)
    assert cfg.layer_schedule.count(indexer=True) == 2
    total, _ = transformers_ref.meta_counts(d)
    assert lc.param_count(cfg).total == total
    # index_topk_pattern, the other way transformers reads it ("F" full, "S" shared)
    d2 = dict(d, index_topk_pattern="FSSFSS")
    del d2["indexer_types"]
    assert lc.param_count(lc.from_hf_config(d2)).total == total
    assert lc.indexer_cache_bytes_per_token(cfg) == 2 * 128 * 2


@slow
def test_glm4_7_flash_reads_mlp_layer_types_not_first_k_dense_replace():
    """transformers 5.23's Glm4MoeLiteConfig makes layer 0 dense and the rest MoE unless
    mlp_layer_types says otherwise; first_k_dense_replace is not read."""
    d = dict(zoo_json("GLM-4.7-Flash"),
             num_hidden_layers=4, n_routed_experts=8, first_k_dense_replace=3)
    total, _ = transformers_ref.meta_counts(d)
    cfg = lc.from_hf_config(d)
    assert cfg.layer_schedule.count(mlp="dense") == 1
    assert lc.param_count(cfg).total == total
    d["mlp_layer_types"] = ["dense", "sparse", "dense", "sparse"]
    total, _ = transformers_ref.meta_counts(d)
    cfg = lc.from_hf_config(d)
    assert cfg.layer_schedule.count(mlp="dense") == 2 and lc.param_count(cfg).total == total


@slow
@pytest.mark.parametrize("name", ["Qwen3.5-0.8B-Base", "Qwen3.6-35B-A3B"])
def test_qwen3_5_shrunk_and_saved_forms_count_the_same(name, tmp_path):
    d = zoo_json(name)
    text = dict(d["text_config"], num_hidden_layers=4, layer_types=d["text_config"]["layer_types"][:4])
    if "num_experts" in text:
        text.update(num_experts=8, num_experts_per_tok=2)
    small = dict(d, text_config=text)
    total, _, _ = transformers_ref.built(small)
    cfg = lc.from_hf_config(small)
    assert lc.param_count(cfg).total == total
    saved = lc.from_hf_config(transformers_ref.saved(small, tmp_path))  # the wrapper whole
    assert lc.param_count(saved).total == total
    assert lc.kv_cache_bytes(saved, 4096) == lc.kv_cache_bytes(cfg, 4096)
    assert lc.flops_per_token(saved, 4096).total == lc.flops_per_token(cfg, 4096).total


@slow
@pytest.mark.parametrize("mt", ["glm4_moe_lite", "deepseek_v32", "glm_moe_dsa"])
def test_mla_saved_form_counts_the_same(mt, tmp_path):
    """save_pretrained writes mlp_layer_types (and, under sparse attention, layer_types of
    indexed_attention and GLM-5's indexer_types): read back, nothing moves."""
    d = {"model_type": mt, "vocab_size": 64, "hidden_size": 32, "intermediate_size": 24,
         "moe_intermediate_size": 8, "num_hidden_layers": 5, "num_attention_heads": 4,
         "num_key_value_heads": 4, "kv_lora_rank": 8, "q_lora_rank": 12,
         "qk_rope_head_dim": 4, "qk_nope_head_dim": 6, "v_head_dim": 6, "n_routed_experts": 4,
         "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "index_n_heads": 2,
         "index_head_dim": 8, "index_topk": 4, "first_k_dense_replace": 2}
    if mt == "glm_moe_dsa":
        d["index_topk_freq"], d["index_skip_topk_offset"] = 2, 2
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert "mlp_layer_types" in saved
    a, b = lc.from_hf_config(d), lc.from_hf_config(saved)
    assert lc.param_count(a).total == lc.param_count(b).total == transformers_ref.meta_counts(d)[0]
    assert lc.kv_cache_bytes(a, 100) == lc.kv_cache_bytes(b, 100)
    assert a.layer_schedule.counts() == b.layer_schedule.counts()
    if mt == "glm_moe_dsa":  # layers 0 and 1 own an indexer, then every other one: 0, 1, 3
        assert saved["indexer_types"] == ["full", "full", "shared", "full", "shared"]
        assert b.layer_schedule.count(indexer=True) == 3


@slow
@pytest.mark.parametrize("variant", sorted(GEMMA4_VARIANTS))
def test_gemma4_saved_form_counts_the_same(variant, tmp_path):
    """save_pretrained writes per_layer_config in place of global_head_dim: read back, the
    tiny Gemma 4 models (tests/family_rows.py) count the same."""
    d = dict(GEMMA4_TINY, **GEMMA4_VARIANTS[variant])
    cfg = lc.from_hf_config(d)
    saved = transformers_ref.saved(d, tmp_path)
    assert "per_layer_config" in saved and "global_head_dim" not in saved
    again = lc.from_hf_config(saved)
    assert lc.param_count(again).total == lc.param_count(cfg).total
    assert lc.kv_cache_bytes(again, 1000) == lc.kv_cache_bytes(cfg, 1000)


@slow
def test_kimi_linear_saved_form_counts_the_same(tmp_path):
    """The saved form lists layer_types and mlp_layer_types, and counts the same."""
    cfg = lc.from_hf_config(KIMI_LINEAR_TINY)
    saved = lc.from_hf_config(transformers_ref.saved(KIMI_LINEAR_TINY, tmp_path))
    assert lc.param_count(saved).total == lc.param_count(cfg).total
    assert lc.linear_state_bytes(saved) == lc.linear_state_bytes(cfg)


@slow
def test_granite_saved_form_counts_the_same(tmp_path):
    """save_pretrained writes layer_types as linear_attention / full_attention and
    mamba_d_head as a number; the zoo model and a MoE Granite count the same read back."""
    for i, d in enumerate((zoo_json("granite-4.0-h-350m"), GRANITE_TINY,
                           dict(GRANITE_TINY, layer_types=None, num_hidden_layers=3))):
        saved = transformers_ref.saved(d, tmp_path / str(i))
        if d.get("layer_types"):
            assert set(saved["layer_types"]) == {"linear_attention", "full_attention"}
        else:
            assert saved["layer_types"] == ["linear_attention"] * 3
        assert isinstance(saved["mamba_d_head"], int)
        assert transformers_ref.figures(lc.from_hf_config(saved)) == transformers_ref.figures(lc.from_hf_config(d))
        assert lc.param_count(lc.from_hf_config(saved)).total == transformers_ref.built(saved)[0]


@slow
def test_lfm2_saved_form_counts_the_same(tmp_path):
    """save_pretrained writes tie_word_embeddings (not tie_embedding) and every default."""
    for i, d in enumerate((fixture_json("lfm2_moe_8b_a1b_trimmed.json"), dict(LFM2_TINY, tie_embedding=False))):
        saved = transformers_ref.saved(d, tmp_path / str(i))
        assert "tie_embedding" not in saved
        assert transformers_ref.figures(lc.from_hf_config(saved)) == transformers_ref.figures(lc.from_hf_config(d))


@slow
def test_qwen4_exp_saved_form_counts_the_same(tmp_path):
    """save_pretrained writes layer_types with indexed_attention (not full_attention), the
    sorted ple_layer_ids and ple_embed_dim filled in: read back, nothing moves."""
    d = dict(QWEN4_TINY, num_hidden_layers=8, ple_layer_ids=[6, 1, 6], full_attention_interval=4)
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
    total, _, _ = transformers_ref.built(saved)
    assert lc.param_count(b).total == total
    zoo = lc.load_model(QWEN4)  # the zoo config saved by transformers, read back
    transformers_ref.hf_config(zoo.to_hf_config()).save_pretrained(tmp_path / "zoo")
    saved = json.loads((tmp_path / "zoo" / "config.json").read_text())
    assert lc.param_count(lc.from_hf_config(saved)).total == 176_943_899_520


@slow
def test_longcat_saved_form_counts_the_same(tmp_path):
    """save_pretrained writes num_layers (not num_hidden_layers) and qk_head_dim; a config
    that gives num_hidden_layers (56) means num_layers = 28, as transformers reads it."""
    d = dict(fixture_json("longcat_flash_class_defaults.json"), num_layers=3, n_routed_experts=8,
             zero_expert_num=4, moe_topk=6)
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["num_layers"] == 3 and "num_hidden_layers" not in saved
    a, b = lc.from_hf_config(d), lc.from_hf_config(saved)
    for f in (lambda c: lc.param_count(c).total, lambda c: lc.param_count(c).active,
              lambda c: lc.param_count(c).active_min, lambda c: lc.kv_cache_bytes(c, 4096),
              lambda c: lc.flops_per_token(c, 4096).total):
        assert f(a) == f(b)
    assert lc.param_count(a).total == _longcat_real(d)
    both = dict(d, num_hidden_layers=4)   # transformers: num_layers = 4 // 2, whatever it says
    assert lc.from_hf_config(both).num_hidden_layers == 4
    assert lc.param_count(lc.from_hf_config(both)).total == _longcat_real(both)
    # a what-if depth lands where transformers reads it
    small = lc.from_hf_config(d).replace(num_hidden_layers=4)
    assert lc.param_count(small).total == _longcat_real(small.to_hf_config())


# --- what-ifs ------------------------------------------------------------------------------


@slow
def test_nemotron_depth_what_if_repeats_the_pattern():
    cfg = lc.load_model("Nemotron-3-Nano-30B-A3B").replace(num_hidden_layers=8)
    assert cfg.to_hf_config()["hybrid_override_pattern"] == "MEMEM*EM"
    assert lc.param_count(cfg).total == transformers_ref.meta_counts(cfg.to_hf_config())[0]


@slow
def test_granite_full_attention_what_if_and_table():
    """The MHA/full-attention baseline turns the Mamba-2 layers into attention (a config
    transformers builds), and the layer table names Granite's Mamba-2 sizes."""
    cfg = lc.load_model("granite-4.0-h-350m")
    base = lc.sizing.mha_baseline(cfg, full_attention=True)
    assert lc.linear_state_bytes(base) == 0
    assert lc.param_count(base).total == transformers_ref.built(base.to_hf_config())[0]
    assert lc.tables.anatomy.layer_kind(cfg, 0).startswith("Mamba-2, 48 heads of 32, state 128")


# --- refused in one line naming the field ---------------------------------------------------


@pytest.mark.parametrize("d,field", [
    ({"model_type": "gpt2", "n_embd": 100, "n_head": 12}, "n_embd"),
    ({"model_type": "gpt2", "n_layer": 0}, "n_layer"),
    ({"model_type": "gemma3_text", "hidden_size": 1152, "num_attention_heads": 5,
      "num_key_value_heads": 1}, "hidden_size"),
    ({"model_type": "qwen3_next", "linear_num_key_heads": 3}, "linear_num_value_heads"),
    ({"model_type": "llama4_text", "moe_layers": [99]}, "moe_layers"),
    ({"model_type": "glm4_moe", "head_dim": 128, "first_k_dense_replace": 47},
     "first_k_dense_replace"),
    ({"model_type": "qwen2_moe", "num_experts": 0}, "num_experts"),
])
def test_impossible_new_family_configs_name_the_field(d, field):
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(d)
    assert str(e.value).startswith(field)


def test_a_default_padding_row_outside_a_small_vocab_is_refused_as_transformers_does():
    with pytest.raises(ValueError, match="^pad_token_id: must be below vocab_size=100"):
        lc.from_hf_config({"model_type": "phi3", "vocab_size": 100})  # default pad 32000


@pytest.mark.parametrize("d,field", [
    ({"model_type": "glm4_moe", "head_dim": 128, "num_nextn_predict_layers": 10**9},
     "num_nextn_predict_layers"),
    ({"model_type": "qwen3_next", "mtp_num_hidden_layers": "one"}, "mtp_num_hidden_layers"),
])
def test_mtp_layer_counts_are_checked_and_bounded(d, field):
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(d)
    assert str(e.value).startswith(field)


@pytest.mark.parametrize("d,field", [
    ({"model_type": "glm4_moe", "head_dim": 128, "first_k_dense_replace": None},
     "first_k_dense_replace"),
    ({"model_type": "qwen2_moe", "moe_intermediate_size": None}, "moe_intermediate_size"),
    ({"model_type": "gpt2", "n_embd": None}, "n_embd"),
])
def test_a_null_where_a_value_is_needed_is_named(d, field):
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(d)
    assert str(e.value).startswith(field) and "\n" not in str(e.value)


def test_qwen3_6_bad_values_are_one_line_errors():
    d = zoo_json("Qwen3.6-35B-A3B")
    for field, value in (("linear_num_value_heads", 20), ("full_attention_interval", 0),
                         ("num_experts_per_tok", 300), ("linear_key_head_dim", None)):
        one_line_error(dict(d, text_config=dict(d["text_config"], **{field: value})),
                       f"text_config.{field}")


def test_glm5_bad_values_are_one_line_errors():
    base = zoo_json("GLM-5.1")
    for field, value in (("indexer_types", ["full"] * 3), ("mlp_layer_types", ["moe"] * 78),
                         ("index_topk", 0), ("index_n_heads", None),
                         ("index_topk_freq", 0), ("layer_types", ["full_attention"] * 78)):
        one_line_error(dict(base, **{field: value}), field)


def test_nemotron_bad_patterns_are_one_line_errors():
    base = zoo_json("Nemotron-3-Nano-30B-A3B")
    for field, value in (("hybrid_override_pattern", "MEX"), ("hybrid_override_pattern", ""),
                         ("layers_block_type", ["mamba"]), ("ssm_state_size", 0)):
        one_line_error(dict(base, **{field: value}), field)


def test_gemma4_bad_values_are_one_line_errors():
    base = zoo_json("gemma-4-E2B")
    for field, value in (("num_kv_shared_layers", 35), ("global_head_dim", 0),
                         ("per_layer_config", {"99": {"head_dim": 512}}),
                         ("per_layer_config", {"4": {"intermediate_size": 10}}),
                         ("use_bidirectional_attention", "text")):
        one_line_error(dict(base, text_config=dict(base["text_config"], **{field: value})),
                       f"text_config.{field}")


def test_deepseek_v4_bad_values_are_one_line_errors():
    base = zoo_json("DeepSeek-V4-Flash")
    for field, value in (("compress_ratios", [0, 3] * 22), ("mlp_layer_types", ["dense"] * 43),
                         ("q_lora_rank", None), ("hc_mult", 0)):
        one_line_error(dict(base, **{field: value}), field)


def test_granite_bad_values_are_one_line_errors():
    base = zoo_json("granite-4.0-h-350m")
    for field, value in (("mamba_n_heads", 7), ("mamba_d_head", 16), ("mamba_d_head", "big"),
                         ("layer_types", ["mamba"] * 31), ("layer_types", ["conv"] * 32),
                         ("layers_block_type", ["mamba"]), ("mamba_d_state", 0),
                         ("mamba_conv_bias", "yes"), ("position_embedding_type", 1),
                         ("shared_intermediate_size", None), ("mamba_d_head", None)):
        one_line_error(dict(base, **{field: value}), field)
    for field, value in (("num_experts_per_tok", 5), ("num_local_experts", -1),
                         ("num_local_experts", None)):
        with pytest.raises(ValueError, match=f"^{field}"):
            lc.from_hf_config(dict(GRANITE_TINY, **{field: value}))
    # no experts: the shared MLP alone, whatever top-k says (Granite 4.0-H-350M writes 0)
    assert not lc.from_hf_config(dict(GRANITE_TINY, num_local_experts=0)).is_moe


def test_lfm2_bad_values_are_one_line_errors():
    base = fixture_json("lfm2_moe_8b_a1b_trimmed.json")
    for field, value in (("layer_types", None), ("layer_types", ["mamba"] * 24),
                         ("layer_types", ["conv"] * 23), ("conv_L_cache", 0),
                         ("num_dense_layers", -1), ("conv_bias", "no"),
                         ("num_experts_per_tok", 33), ("num_experts", 0)):
        one_line_error(dict(base, **{field: value}), field)


def test_longcat_bad_values_are_one_line_errors():
    base = fixture_json("longcat_flash_class_defaults.json")
    for field, value in (("moe_topk", 769), ("num_hidden_layers", 1), ("num_layers", 0),
                         ("q_lora_rank", None), ("zero_expert_num", -1),
                         ("expert_ffn_hidden_size", 0), ("router_bias", "yes")):
        one_line_error(dict(base, **{field: value}), field)
    # the router picks among 512 experts and 256 zero experts: top-768 is allowed
    assert lc.from_hf_config(dict(base, moe_topk=768)).num_experts_per_tok == 768


def _refused_by_transformers(d):
    try:
        transformers_ref.meta_model(d)
    except Exception:  # noqa: BLE001 - any refusal: a config error or a failed build
        return True
    return False


# Qwen4-Exp: each value transformers 5.23 refuses (its validate_architecture, or a build that
# cannot run). (indexer_head_dim 4 < the 8 rotary dimensions of head_dim 8; layer 4 is the
# attention layer; ple_embed_dim 6 is not a multiple of the 4 n-gram heads.)
QWEN4_BAD = [("hc_count", 1), ("indexer_kv_heads", 2), ("indexer_budget", 5),
             ("indexer_head_dim", 4), ("ple_layer_ids", [4]), ("ple_layer_ids", [0]),
             ("ple_layer_ids", [5]), ("ple_embed_dim", 6), ("eos_token_id", None),
             ("output_gate_type", "relu"), ("indexer_n_heads", None),
             ("layer_types", ["linear_attention"] * 3 + ["sliding_attention"])]


def _qwen4_with(field, value):
    d = dict(QWEN4_TINY, **{field: value})
    if value is None:
        d.pop(field)
    return d


@pytest.mark.parametrize("field,value", QWEN4_BAD)
def test_qwen4_exp_bad_values_are_one_line_errors(field, value):
    one_line_error(_qwen4_with(field, value), field)


@slow
@pytest.mark.parametrize("field,value", QWEN4_BAD)
def test_qwen4_exp_bad_values_are_refused_by_transformers(field, value):
    assert _refused_by_transformers(_qwen4_with(field, value))


@slow
@pytest.mark.parametrize("name,dropped", [
    ("Qwen3-8B", ("num_key_value_heads", "head_dim")),
    ("gemma-2-2b", ("num_key_value_heads", "head_dim")),
    ("gpt-oss-20b", ("num_key_value_heads", "head_dim")),
    ("Mixtral-8x7B-v0.1", ("num_key_value_heads",)),
    ("DeepSeek-V2", ("n_shared_experts",)),
])
def test_a_config_that_leaves_a_field_out_counts_as_transformers_builds_it(name, dropped):
    d = {k: v for k, v in zoo_json(name).items() if k not in dropped}
    assert lc.param_count(lc.from_hf_config(d)).total == transformers_ref.meta_total(d)


@pytest.mark.parametrize("name,change,field", [
    ("gpt2", dict(num_key_value_heads=4), "num_key_value_heads"),
    ("gpt2", dict(head_dim=32), "head_dim"),
    ("pythia-1b", dict(num_key_value_heads=2), "num_key_value_heads"),
    ("DeepSeek-V4-Flash", dict(num_key_value_heads=2), "num_key_value_heads"),
])
def test_a_what_if_transformers_would_not_build_is_refused(name, change, field):
    """GPT-2 and GPT-NeoX have no KV heads and no head_dim of their own in transformers,
    DeepSeek-V4 one K = V head: a what-if that sets them is refused in one line, not counted
    as a model transformers never builds."""
    with pytest.raises(ValueError) as e:
        lc.load_model(name).replace(**change)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(field) and "transformers" in msg, msg
    same = lc.load_model(name).replace(num_key_value_heads=lc.load_model(name).num_key_value_heads)
    assert lc.param_count(same).total == lc.param_count(name).total


@slow
@pytest.mark.parametrize("name,change", [("gpt2", dict(num_key_value_heads=4)),
                                         ("pythia-1b", dict(num_key_value_heads=2)),
                                         ("gpt2", dict(head_dim=32))])
def test_transformers_ignores_what_those_refusals_name(name, change):
    """The refusal's reason, checked: transformers builds the same model with or without it."""
    d = zoo_json(name)
    assert transformers_ref.meta_total(dict(d, **change)) == transformers_ref.meta_total(d)


# --- the dense families (llmcourse/families/dense.py) ----------------------------------------

# configs transformers 5.23 cannot build, each refused in one line naming the field
_DENSE_REFUSED = [
    ({"model_type": "exaone4", "sliding_window": None}, "layer_types"),
    ({"model_type": "exaone4", "sliding_window_pattern": "LLLG"}, "sliding_window_pattern"),
    ({"model_type": "cohere2", "sliding_window_pattern": 0}, "sliding_window_pattern"),
    ({"model_type": "diffllama", "num_key_value_heads": 1, "num_attention_heads": 2,
      "hidden_size": 64}, "num_key_value_heads"),
    ({"model_type": "diffllama", "attention_dropout": 0.1}, "attention_dropout"),
    ({"model_type": "internlm3", "qkv_bias": True, "bias": False}, "qkv_bias"),
    ({"model_type": "iquestcoder", "clip_qkv": 8.0}, "clip_qkv"),
    ({"model_type": "iquestcoder", "use_sliding_window": True}, "use_sliding_window"),
    ({"model_type": "ministral", "rope_theta": 1e8}, "head_dim"),
    ({"model_type": "nemotron"}, "num_key_value_heads"),
    ({"model_type": "mellum", "num_mtp_layers": 2}, "num_mtp_layers"),
    ({"model_type": "mellum", "mlp_layer_types": ["dense"]}, "mlp_layer_types"),
    ({"model_type": "modernbert-decoder", "pad_token_id": None}, "pad_token_id"),
    ({"model_type": "cwm", "sliding_window": None}, "sliding_window"),
]


@pytest.mark.parametrize("d,field", _DENSE_REFUSED)
def test_dense_family_configs_transformers_cannot_build_name_the_field(d, field):
    one_line_error(d, field)


@slow
@pytest.mark.parametrize("d,field", _DENSE_REFUSED)
def test_transformers_cannot_build_those_dense_family_configs(d, field):
    with pytest.raises(Exception):
        transformers_ref.meta_model(dict(d, num_hidden_layers=d.get("num_hidden_layers", 2)))


# fields transformers reads nothing from for these families: a config setting them otherwise
# describes a model it does not build (as GPT-2's num_key_value_heads above)
_DENSE_IGNORED = [({"model_type": "modernbert-decoder"}, dict(num_key_value_heads=4)),
                  ({"model_type": "persimmon"}, dict(head_dim=32))]


@pytest.mark.parametrize("d,change", _DENSE_IGNORED)
def test_dense_family_fields_transformers_ignores_are_refused(d, change):
    field = next(iter(change))
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(dict(d, **change))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(field) and "transformers" in msg, msg


@slow
@pytest.mark.parametrize("d,change", _DENSE_IGNORED)
def test_transformers_ignores_those_dense_family_fields(d, change):
    d = dict(d, num_hidden_layers=2)
    assert transformers_ref.meta_total(dict(d, **change)) == transformers_ref.meta_total(d)


def test_doge_cross_domain_experts_are_refused_not_counted():
    """Doge with is_moe builds product-key retrieved single-vector experts the course does not
    size: refused in one line; its dense models are counted."""
    one_line_error({"model_type": "doge", "is_moe": True}, "is_moe")


# each dense family's saved form (transformers writes layer_types, head_dim, a window, the
# expert count under its own key back) counts as the config it was saved from
_DENSE_SAVED = [
    {"model_type": "cohere2", "num_hidden_layers": 5, "sliding_window_pattern": 2},
    {"model_type": "exaone4", "num_hidden_layers": 5},
    {"model_type": "cwm", "num_hidden_layers": 5},
    {"model_type": "granite_swa", "num_hidden_layers": 5},
    {"model_type": "vaultgemma", "num_hidden_layers": 5},
    {"model_type": "modernbert-decoder", "num_hidden_layers": 5, "global_attn_every_n_layers": 2,
     "local_attention": 64, "norm_bias": True},
    {"model_type": "mellum", "num_hidden_layers": 3, "num_experts": 8,
     "mlp_layer_types": ["dense", "sparse", "sparse"]},
    {"model_type": "internlm3", "num_hidden_layers": 2, "qkv_bias": True, "bias": True},
    {"model_type": "stablelm", "num_hidden_layers": 2, "use_parallel_residual": True,
     "qk_layernorm": True},
    {"model_type": "youtu", "num_hidden_layers": 2, "q_lora_rank": None},
    {"model_type": "ministral", "num_hidden_layers": 2, "head_dim": 128},
    {"model_type": "doge", "num_hidden_layers": 2, "sliding_window": 128},
]


@slow
@pytest.mark.parametrize("d", _DENSE_SAVED, ids=lambda d: d["model_type"])
def test_dense_family_saved_forms_count_the_same(d, tmp_path):
    saved = transformers_ref.saved(d, tmp_path)
    assert transformers_ref.figures(lc.from_hf_config(saved)) == transformers_ref.figures(
        lc.from_hf_config(d))
    transformers_ref.counts_as_built(saved)


# --- mixture-of-experts families of their own lineages (llmcourse/families/moe.py): what
# transformers 5.23 cannot build is refused in one line naming the field (each failure is
# checked against transformers itself by the slow test below)
MOE_BAD = [
    # DBRX: its attention reads attn_config.rope_theta; tied embeddings are refused
    ({"model_type": "dbrx"}, "attn_config.rope_theta"),
    ({"model_type": "dbrx", "attn_config": {"rope_theta": 1e4}, "tie_word_embeddings": True},
     "tie_word_embeddings"),
    # dots.llm1's class gives no expert counts; Hunyuan's no head_dim
    ({"model_type": "dots1"}, "n_routed_experts"),
    ({"model_type": "dots1", "n_routed_experts": 8, "num_experts_per_tok": 2},
     "n_shared_experts"),
    ({"model_type": "hunyuan_v1_dense"}, "head_dim"),
    ({"model_type": "hunyuan_v1_moe"}, "head_dim"),
    # a null head_dim where transformers reads getattr(config, "head_dim", ...)
    ({"model_type": "olmoe", "head_dim": None}, "head_dim"),
    ({"model_type": "glm4_moe", "head_dim": None}, "head_dim"),
    # EXAONE MoE derives layer_types from sliding_window_pattern only with a window
    ({"model_type": "exaone_moe", "sliding_window": None}, "sliding_window"),
    ({"model_type": "afmoe", "global_attn_every_n_layers": 0}, "global_attn_every_n_layers"),
    ({"model_type": "ernie4_5_moe", "moe_layer_interval": 0}, "moe_layer_interval"),
    ({"model_type": "cohere2_moe", "mlp_layer_types": ["dense"] * 3}, "mlp_layer_types"),
    ({"model_type": "solar_open", "n_shared_experts": None}, "n_shared_experts"),
]


@pytest.mark.parametrize("d,field", MOE_BAD, ids=[f"{d['model_type']}-{f}" for d, f in MOE_BAD])
def test_moe_family_configs_transformers_cannot_build_are_one_line_errors(d, field):
    one_line_error(d, field)


@slow
@pytest.mark.parametrize("d,field", MOE_BAD, ids=[f"{d['model_type']}-{f}" for d, f in MOE_BAD])
def test_transformers_cannot_build_those_moe_family_configs(d, field):
    assert _refused_by_transformers(d)


# what transformers builds on the meta device and the course does not size: a top-k that
# differs by layer (one active count per token cannot say it); an OLMoE head_dim other than
# hidden / heads (its q_norm stays hidden_size wide: the model cannot run a token)
MOE_NOT_SIZED = [
    ({"model_type": "hunyuan_v1_moe", "head_dim": 128, "num_experts": 8,
      "moe_topk": [2, 4] * 16}, "moe_topk"),
    ({"model_type": "olmoe", "head_dim": 64}, "head_dim"),
]


@pytest.mark.parametrize("d,field", MOE_NOT_SIZED,
                         ids=[f"{d['model_type']}-{f}" for d, f in MOE_NOT_SIZED])
def test_moe_family_configs_the_course_does_not_size_are_one_line_errors(d, field):
    one_line_error(d, field)


@slow
def test_an_olmoe_head_dim_other_than_hidden_over_heads_cannot_run():
    """transformers builds it, q_proj (heads x head_dim) and q_norm (hidden_size) disagree."""
    m = transformers_ref.meta_model({"model_type": "olmoe", "head_dim": 64})
    attn = m.model.layers[0].self_attn
    assert attn.q_proj.out_features == 16 * 64 != attn.q_norm.weight.shape[0] == 2048


def test_a_hunyuan_top_k_listed_per_layer_reads_as_one():
    """Hunyuan's configs list moe_topk (and moe_intermediate_size, unread by transformers) per
    layer: the same top-k in every layer is that top-k."""
    d = {"model_type": "hunyuan_v1_moe", "head_dim": 128, "num_experts": 8,
         "moe_topk": [2] * 32, "moe_intermediate_size": [3072] * 32}
    assert lc.from_hf_config(d).num_experts_per_tok == 2


def test_jetmoe_query_heads_are_kv_heads_times_top_k():
    """JetMoE's num_attention_heads is not a field: each of a token's top-k attention experts
    gives it num_key_value_heads query heads, whatever a config says."""
    cfg = lc.from_hf_config({"model_type": "jetmoe", "num_attention_heads": 3})
    assert cfg.num_attention_heads == 16 * 2 and cfg.num_key_value_heads == 16


@slow
def test_deepseek_v2_class_defaults_give_no_top_k():
    """DeepseekV2Config's num_experts_per_tok defaults to null: transformers builds the model
    (routing happens only in a forward pass) but no token could be routed, so the engine
    refuses it in one line; given a top-k, the defaults count as built."""
    m = transformers_ref.meta_model({"model_type": "deepseek_v2"})
    assert m.config.num_experts_per_tok is None
    one_line_error({"model_type": "deepseek_v2"}, "num_experts_per_tok")
    transformers_ref.counts_as_built({"model_type": "deepseek_v2", "num_experts_per_tok": 6})


@slow
def test_an_mlx_community_dbrx_config_is_refused_as_transformers_refuses_it():
    """mlx-community/dbrx-instruct-4bit's config (fixture dbrx_instruct_mlx_community.json) writes
    ffn_config.moe_normalize_expert_weights as the integer 1, as older transformers saved it:
    transformers 5.23 refuses it, and the engine refuses it in one line naming the field.
    Written 1.0, it counts as built: DBRX's published 132B total, 36B active."""
    d = fixture_json("dbrx_instruct_mlx_community.json")
    assert _refused_by_transformers(d)
    one_line_error(d, "ffn_config.moe_normalize_expert_weights")
    d["ffn_config"]["moe_normalize_expert_weights"] = 1.0
    pc = lc.param_count(transformers_ref.counts_as_built(d))
    assert (round(pc.total / 1e9), round(pc.active / 1e9)) == (132, 36)


# each MoE family of its own lineage as its class defaults give it (or with the fields its
# class leaves null), and Command A MoE with the dense prefix transformers reads once
# (first_k_dense_replace, not kept: the saved form lists mlp_layer_types and layer_types)
MOE_SAVED = [{"model_type": mt} for mt in (
    "afmoe", "aria_text", "ernie4_5_moe", "exaone_moe", "flex_olmo", "granitemoe",
    "granitemoe_swa", "granitemoeshared", "jetmoe", "olmoe", "phimoe", "solar_open", "minicpm3")
] + [{"model_type": "cohere2_moe", "first_k_dense_replace": 3, "num_shared_experts": 1,
      "prefix_dense_intermediate_size": 1000},
     {"model_type": "dbrx", "attn_config": {"rope_theta": 1e4, "kv_n_heads": 4},
      "ffn_config": {"moe_num_experts": 8, "moe_top_k": 2}},
     {"model_type": "dots1", "n_routed_experts": 8, "n_shared_experts": 1,
      "num_experts_per_tok": 2, "first_k_dense_replace": 2, "sliding_window": 512,
      "max_window_layers": 30},
     {"model_type": "hunyuan_v1_moe", "head_dim": 128, "num_experts": 8, "moe_topk": 2}]


@slow
@pytest.mark.parametrize("d", MOE_SAVED, ids=[d["model_type"] for d in MOE_SAVED])
def test_moe_family_saved_forms_count_the_same(d, tmp_path):
    """What save_pretrained writes back (derived per-layer lists, nested sub-configs, JetMoE's
    derived query heads, ERNIE's last expert layer in place of -1) counts as the original."""
    saved = transformers_ref.saved(d, tmp_path)
    assert transformers_ref.figures(lc.from_hf_config(saved)) == transformers_ref.figures(
        lc.from_hf_config(d))
