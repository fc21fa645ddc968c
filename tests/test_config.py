"""Reading configs, what-if changes, and every impossible config refused in one line."""

import json
import os

import pytest

import llmcourse as lc

LLAMA = lc.load_model("Meta-Llama-3-8B").to_hf_config()


def one_line_error(func, *args, **kwargs):
    with pytest.raises(ValueError) as e:
        func(*args, **kwargs)
    msg = str(e.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


# --- reading -------------------------------------------------------------------

def test_from_dict_path_and_folder_agree(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(LLAMA))
    (tmp_path / "x.json").write_text(json.dumps(LLAMA))
    a = lc.from_hf_config(LLAMA)
    b = lc.from_hf_config(tmp_path / "m")
    c = lc.from_hf_config(str(tmp_path / "x.json"))
    assert a == b == c
    assert b.name == "m" and c.name == "x"


def test_zoo_names_case_insensitive():
    assert lc.load_model("qwen3-8b") is lc.load_model("Qwen3-8B")
    assert len(lc.list_models()) == len(os.listdir(lc.zoo.CONFIG_DIR)) - 1  # (its README)
    msg = one_line_error(lc.load_model, "Llama-4")   # the closest names, not all of them
    assert "closest in the zoo: Llama-4-Scout-17B-16E-Instruct, " in msg and "Qwen3-8B" not in msg


def test_round_trip_and_immutability(zoo_name):
    cfg = lc.load_model(zoo_name)
    d = cfg.to_hf_config()
    assert lc.from_hf_config(d) == cfg
    d["hidden_size"] = 1  # a copy: changing it does not touch the config
    assert cfg.hidden_size != 1
    with pytest.raises(AttributeError):
        cfg.hidden_size = 5


def test_save_reads_back(tmp_path):
    cfg = lc.load_model("Qwen3-30B-A3B").replace(num_experts=64)
    path = cfg.save(tmp_path)
    assert lc.from_hf_config(path) == cfg


def test_head_dim_from_config_where_given():
    assert lc.load_model("Qwen3-0.6B").head_dim == 128          # 16 x 128 != 1024
    assert lc.load_model("gemma-2-2b").head_dim == 256          # 8 x 256 != 2304
    assert lc.load_model("Meta-Llama-3-8B").head_dim == 4096 // 32
    assert lc.load_model("DeepSeek-V3").head_dim == 128 + 64    # MLA: nope + rope


def test_defaults_follow_transformers():
    assert lc.load_model("gemma-2-2b").tie_word_embeddings  # Gemma2Config's default
    assert not lc.load_model("phi-2").tie_word_embeddings
    assert lc.from_hf_config({**LLAMA, "num_key_value_heads": None}).num_key_value_heads == 32


def test_replace_validates_and_renames():
    cfg = lc.load_model("Meta-Llama-3-8B")
    new = cfg.replace(num_key_value_heads=4)
    assert new.num_key_value_heads == 4 and cfg.num_key_value_heads == 8
    assert "edited" in new.name
    msg = one_line_error(cfg.replace, num_key_value_heads=5)
    assert msg.startswith("num_key_value_heads") and "divide" in msg
    msg = one_line_error(cfg.replace, num_local_experts=8)
    assert "num_local_experts" in msg


def test_replace_layers_repeats_layer_types():
    cfg = lc.load_model("gpt-oss-20b").replace(num_hidden_layers=5)
    assert cfg.layer_types == ("sliding_attention", "full_attention") * 2 + ("sliding_attention",)


def test_auto_map_is_data_not_code():
    d = dict(lc.load_model("DeepSeek-V3").to_hf_config(), auto_map={"AutoConfig": "os.system"})
    assert lc.param_count(d).total == lc.param_count(lc.load_model("DeepSeek-V3")).total


def test_as_moe():
    moe = lc.as_moe(lc.load_model("Meta-Llama-3-8B"), 64, 2)
    assert moe.model_type == "mixtral" and moe.num_experts == 64
    dense = lc.param_count(lc.load_model("Meta-Llama-3-8B"))
    pc = lc.param_count(moe)
    mlp = dense.components["mlp"]
    assert pc.total == dense.total - mlp + 64 * mlp + 32 * 64 * 4096
    assert pc.active == dense.total - mlp + 2 * mlp + 32 * 64 * 4096
    one_line_error(lc.as_moe, lc.load_model("phi-2"), 8, 2)


# --- bad input: field named, rule stated ---------------------------------------------

BAD = [
    ({"num_key_value_heads": 5}, "num_key_value_heads", "divide"),
    ({"num_key_value_heads": 64}, "num_key_value_heads", "exceed"),
    ({"hidden_size": 4100}, "hidden_size", "divisible"),
    ({"hidden_size": 0}, "hidden_size", "positive"),
    ({"num_hidden_layers": -2}, "num_hidden_layers", "positive"),
    ({"intermediate_size": 14336.5}, "intermediate_size", "whole number"),
    ({"vocab_size": "128256"}, "vocab_size", "whole number"),
    ({"num_attention_heads": True}, "num_attention_heads", "whole number"),
    ({"tie_word_embeddings": "yes"}, "tie_word_embeddings", "true or false"),
    ({"model_type": "mamba2"}, "model_type", "supported"),
    ({"model_type": None}, "model_type", "missing"),
    ({"sliding_window": -1}, "sliding_window", "positive"),
    ({"layer_types": ["full_attention"] * 3}, "layer_types", "one entry per layer"),
    ({"vocab_size": 1000, "pad_token_id": 128001}, "pad_token_id", "below vocab_size"),
]


@pytest.mark.parametrize("change,field,rule", BAD)
def test_bad_dense_config(change, field, rule):
    d = {**LLAMA, **change}
    msg = one_line_error(lc.from_hf_config, d)
    assert msg.startswith(field) and rule in msg
    if change.get("model_type") is not None:
        assert "lc.SUPPORTED_MODEL_TYPES" in msg  # says where the supported types are


@pytest.mark.parametrize("field", ["hidden_size", "num_hidden_layers", "num_attention_heads",
                                   "vocab_size", "intermediate_size"])
def test_missing_required_field(field):
    d = {k: v for k, v in LLAMA.items() if k != field}
    msg = one_line_error(lc.from_hf_config, d)
    assert msg.startswith(field) and "missing" in msg


@pytest.mark.parametrize("name,change,field,rule", [
    ("Mixtral-8x7B-v0.1", {"num_experts_per_tok": 9}, "num_experts_per_tok", "exceed"),
    ("Qwen3-30B-A3B", {"num_experts": 0}, "num_experts", "at least one expert"),
    ("DeepSeek-V3", {"n_routed_experts": 4}, "num_experts_per_tok", "exceed"),
    ("DeepSeek-V3", {"first_k_dense_replace": 62}, "first_k_dense_replace", "exceed"),
    ("DeepSeek-V3", {"kv_lora_rank": 0}, "kv_lora_rank", "positive"),
    ("DeepSeek-V3", {"n_shared_experts": -1}, "n_shared_experts", "zero or positive"),
    ("Qwen3-30B-A3B", {"mlp_only_layers": [48]}, "mlp_only_layers", "layer indices"),
    ("gpt-oss-20b", {"sliding_window": None}, "sliding_window", "required"),
])
def test_bad_moe_config(name, change, field, rule):
    msg = one_line_error(lc.load_model(name).replace, **change)
    assert msg.startswith(field) and rule in msg


def test_bad_files(tmp_path):
    msg = one_line_error(lc.from_hf_config, tmp_path / "nope.json")
    assert "nope.json" in msg and "not found" in msg
    msg = one_line_error(lc.from_hf_config, tmp_path)  # a folder without config.json
    assert "config.json" in msg
    bad = tmp_path / "broken.json"
    bad.write_text('{"model_type": "llama", "hidden_size": 4096,')
    msg = one_line_error(lc.from_hf_config, bad)
    assert "broken.json" in msg and "not valid JSON" in msg and "line 1" in msg
    arr = tmp_path / "list.json"
    arr.write_text("[1, 2]")
    assert "JSON object" in one_line_error(lc.from_hf_config, arr)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**LLAMA, "num_key_value_heads": 3}))
    msg = one_line_error(lc.from_hf_config, wrong)
    assert msg.startswith("wrong.json: num_key_value_heads")
    one_line_error(lc.from_hf_config, 42)


def test_bad_arguments_to_counts():
    cfg = lc.load_model("Qwen3-8B")
    assert one_line_error(lc.kv_cache_bytes, cfg, -1).startswith("seq_len")
    assert one_line_error(lc.kv_cache_bytes, cfg, 10, batch=0).startswith("batch")
    assert one_line_error(lc.weight_bytes, cfg, "fp7").startswith("dtype")
    assert one_line_error(lc.flops_per_token, cfg, 10, mode="train").startswith("mode")


def test_as_config_takes_every_form(tmp_path):
    from llmcourse.zoo import as_config
    cfg = lc.load_model("Qwen3-8B")
    path = cfg.save(tmp_path)
    assert as_config(cfg) is cfg
    assert as_config("qwen3-8b") is cfg
    assert as_config(cfg.to_hf_config()) == cfg == as_config(path) == as_config(str(tmp_path))
    assert "no zoo model" in one_line_error(as_config, "Qwen9-8B")


# --- the zoo, family by family ----------------------------------------------------------

def test_zoo_grouped_by_family():
    names = lc.list_models()
    grouped = lc.list_models(grouped=True)
    assert sorted(grouped) == sorted(names)
    fams = lc.model_families()
    assert [n for group in fams.values() for n in group] == grouped
    assert fams["GPT-2"] == ["gpt2"] and "Llama-4-Scout-17B-16E-Instruct" in fams["Llama"]
    assert "Qwen3-Next-80B-A3B" in fams["Qwen"] and "Qwen1.5-MoE-A2.7B-Chat" in fams["Qwen"]
    assert "Qwen3.8-Flash-Next" in fams["Qwen"]
    assert lc.model_family("pythia-1b") == "Pythia"
    # a wrapper is its own family (Kimi K2.5 holds DeepSeek-V3's layout)
    assert fams["Kimi"] == ["Kimi-K2.5", "Kimi-Linear-48B-A3B-Instruct"] and "DeepSeek-V3.2" in fams["DeepSeek"]
    assert fams["Nemotron"] == ["Nemotron-3-Nano-30B-A3B"] and "GLM-5.1" in fams["GLM"]
    assert fams["Granite"] == ["granite-3.3-8b-instruct", "granite-4.0-h-350m"]
    assert lc.model_families(["Qwen3-8B", "gpt2"]) == {"GPT-2": ["gpt2"], "Qwen": ["Qwen3-8B"]}


def test_model_dropdown_lists_the_zoo_family_by_family():
    from llmcourse.widgets.base import model_dropdown
    dd = model_dropdown("Qwen3-8B")
    assert list(dd.options) == lc.list_models(grouped=True) and dd.value == "Qwen3-8B"
