"""The config.json files tests read: the zoo's (shipped in the package) and the fixtures'
(tests/fixtures). Standard library only, so the fast tests can use it."""

import json
from pathlib import Path

import llmcourse as lc

ZOO = Path(lc.zoo.CONFIG_DIR)
FIXTURES = Path(__file__).parent / "fixtures"
# a multimodal config's language model: the model type its text_config holds when it names none
TEXT_MODEL = {outer: w.text for outer, w in lc.families.WRAPPERS.items()}


def zoo_json(name):
    """A zoo model's config.json as published (a plain dict, a fresh copy)."""
    return json.loads((ZOO / f"{name}.json").read_text(encoding="utf-8"))


def fixture_json(name):
    """A test fixture's config.json (tests/fixtures/<name>)."""
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def zoo_of_type(model_type):
    """The zoo models of a model type: a multimodal wrapper's own type, or its text model's."""
    out = []
    for n in lc.list_models():
        cfg = lc.load_model(n)
        if model_type in (cfg.model_type, cfg.text_model_of):
            out.append(n)
    return out


def text_part(d):
    """The language model's dict, as the course reads a multimodal config."""
    if d.get("model_type") in TEXT_MODEL:
        inner = dict(d.get("text_config") or {})
        inner.setdefault("model_type", TEXT_MODEL[d["model_type"]])
        return inner
    return d


def shrunk(d):
    """3 layers; for a mixture of experts, 8 routed experts and top-2. Written with the
    published file's own keys, as a reader edits a config.json by hand."""
    d = dict(text_part(d))
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
        d["num_kv_shared_layers"] = 0   # (test_family_configs.py saves KV sharing)
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
