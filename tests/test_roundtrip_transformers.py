"""A config saved by transformers counts exactly as the published one.

Every fine-tune or what-if a reader saves with ``save_pretrained`` is the form transformers
writes back, not the hub file: renamed keys (Qwen3-MoE's ``num_experts`` is written as
``num_local_experts``), derived lists (``layer_types``), nested RoPE parameters. Each zoo
config, and a shrunk variant of it (3 layers; for a mixture of experts 8 experts, top-2), is
loaded into transformers' own config class, written with ``save_pretrained`` and read back
by the engine: totals, active parameters, KV-cache bytes and FLOPs must not move.
"""

import json

import pytest

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)

pytestmark = pytest.mark.slow

_ZOO_DIR = lc.zoo.CONFIG_DIR


def _published(name):
    with open(f"{_ZOO_DIR}/{name}.json", encoding="utf-8") as fh:
        return json.load(fh)


def _text_part(d):
    """The language model's dict, as the course reads a multimodal config."""
    if d.get("model_type") in transformers_ref._TEXT_MODEL:
        inner = dict(d.get("text_config") or {})
        inner.setdefault("model_type", transformers_ref._TEXT_MODEL[d["model_type"]])
        return inner
    return d


def _shrunk(d):
    """3 layers; for a mixture of experts, 8 routed experts and top-2. Written with the
    published file's own keys, as a reader edits a config.json by hand."""
    d = dict(_text_part(d))
    layers_key = "n_layer" if d["model_type"] == "gpt2" else "num_hidden_layers"
    d[layers_key] = 3
    for key in ("layer_types", "no_rope_layers", "hybrid_override_pattern"):
        if isinstance(d.get(key), (list, str)):  # (Nemotron-H: its pattern sets the depth)
            d[key] = d[key][:3]
    lac = d.get("linear_attn_config")
    if isinstance(lac, dict):  # Kimi-Linear lists its layers by number (1-indexed)
        d["linear_attn_config"] = {k: [i for i in v if i <= 3] if k.endswith("_layers") else v
                                   for k, v in lac.items()}
    if d.get("num_kv_shared_layers"):  # Gemma 4's last 20 of 35 layers cannot be 3 layers'
        d["num_kv_shared_layers"] = 0   # (tests/test_families_2026_more.py saves KV sharing)
    if isinstance(d.get("moe_layers"), list):
        d["moe_layers"] = [i for i in d["moe_layers"] if i < 3]
    for key in ("num_experts", "num_local_experts", "n_routed_experts"):
        if key in d:
            d[key] = 8
            # top-2, under the key the file uses (Kimi-Linear: num_experts_per_token)
            d["num_experts_per_token" if "num_experts_per_token" in d else "num_experts_per_tok"] = 2
            if d.get("n_group"):  # DeepSeek-V3's grouped routing: 8 experts in 8 groups
                d["n_group"], d["topk_group"] = min(d["n_group"], 8), min(d["topk_group"], 2)
    return d


def _saved(d, tmp_path):
    """What transformers writes after loading ``d``: its config class, save_pretrained."""
    transformers_ref.hf_config(d).save_pretrained(tmp_path)
    with open(tmp_path / "config.json", encoding="utf-8") as fh:
        return json.load(fh)


def _figures(cfg):
    pc = lc.param_count(cfg)
    return dict(total=pc.total, active=pc.active,
                kv_bytes=lc.kv_cache_bytes(cfg, seq_len=4096),
                linear_state=lc.linear_state_bytes(cfg),
                prefill_flops=lc.flops_per_token(cfg, 4096).total,
                decode_flops=lc.flops_per_token(cfg, 4096, mode="decode").total,
                experts=cfg.num_experts if cfg.is_moe else 0,
                top_k=cfg.num_experts_per_tok if cfg.is_moe else 0)


def test_saved_config_counts_as_published(zoo_name, tmp_path):
    published = _published(zoo_name)
    saved = _saved(published, tmp_path)
    assert _figures(lc.from_hf_config(saved)) == _figures(lc.from_hf_config(published))


def test_saved_shrunk_config_counts_as_written(zoo_name, tmp_path):
    shrunk = _shrunk(_published(zoo_name))
    saved = _saved(shrunk, tmp_path)
    mine = lc.from_hf_config(shrunk)
    assert mine.num_hidden_layers == 3
    if mine.is_moe:
        assert (mine.num_experts, mine.num_experts_per_tok) == (8, 2)
    assert _figures(lc.from_hf_config(saved)) == _figures(mine)


def test_shrunk_config_counts_as_transformers_builds(zoo_name):
    """The shrunk variant itself is exact: the round trip compares against a right answer."""
    shrunk = _shrunk(_published(zoo_name))
    m = transformers_ref.meta_model(shrunk)
    cfg = lc.from_hf_config(shrunk)
    assert lc.param_count(cfg).total == sum(p.numel() for p in m.parameters())


def test_qwen3_moe_written_by_transformers_5():
    """The reader's report: Qwen3MoeConfig(num_experts=8).to_dict() has num_local_experts."""
    from transformers import Qwen3MoeConfig
    d = Qwen3MoeConfig(num_experts=8, num_hidden_layers=2).to_dict()
    assert "num_experts" not in d and d["num_local_experts"] == 8
    assert lc.from_hf_config(d).num_experts == 8


def test_a_what_if_keeps_the_key_its_file_uses():
    """replace() writes the expert count under the name the file already has, so a
    published Qwen3-MoE stays readable by older tools and a saved one by transformers 5."""
    published = lc.load_model("Qwen3-30B-A3B")
    edited = published.replace(num_experts=16).to_hf_config()
    assert edited["num_experts"] == 16 and "num_local_experts" not in edited
    saved = dict(published.to_hf_config(), num_local_experts=128)
    del saved["num_experts"]
    edited = lc.from_hf_config(saved).replace(num_experts=16)
    assert edited.to_hf_config()["num_local_experts"] == 16 and edited.num_experts == 16
    assert "num_experts" not in edited.to_hf_config()


@pytest.mark.parametrize("name", ["Qwen3-0.6B", "Llama-3.2-1B"])
def test_a_dense_model_made_moe_counts_as_transformers_builds_it(name):
    """as_moe writes the new type's expert field (Qwen3-MoE reads num_experts through its
    attribute map): the what-if is the model transformers builds from the same dict."""
    moe = lc.as_moe(lc.load_model(name).replace(num_hidden_layers=2), 8, 2)
    m = transformers_ref.meta_model(moe.to_hf_config())
    assert lc.param_count(moe).total == sum(p.numel() for p in m.parameters())
    assert (moe.num_experts, moe.num_experts_per_tok) == (8, 2)
