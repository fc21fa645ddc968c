"""Every zoo count equals transformers' own model, built on the meta device."""

import pytest

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)

pytestmark = pytest.mark.slow


def test_total_equals_meta_model(zoo_name):
    total, _, _ = transformers_ref.zoo_meta(zoo_name)
    assert lc.param_count(lc.load_model(zoo_name)).total == total


def test_active_is_total_minus_unused_routed_experts(zoo_name):
    cfg = lc.load_model(zoo_name)
    total, _, routed = transformers_ref.zoo_meta(zoo_name)
    pc = lc.param_count(cfg)
    if not cfg.is_moe:
        assert routed == 0 and pc.active == pc.total == total
        return
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    assert routed % E == 0
    assert pc.active == total - routed // E * (E - k)
    assert pc.routed_experts == routed


def test_breakdown_sums_to_total(zoo_name):
    pc = lc.param_count(lc.load_model(zoo_name))
    assert sum(pc.components.values()) == pc.total
    assert int(pc.breakdown.sum()) == pc.total
    assert pc.non_embedding == pc.total - pc.embedding


def _is_dense(name):
    return not lc.load_model(name).is_moe


def _transformers_name(cfg, name):
    """Our names are the checkpoint's; transformers names a few tensors differently."""
    if cfg.model_type == "gpt2" and not name.startswith("lm_head."):
        return "transformer." + name  # GPT-2's checkpoint was saved without the prefix
    if cfg.model_type == "gpt_neox" and name == "embed_out.weight":
        return "lm_head.weight"  # transformers 5 renames Pythia's embed_out on load
    if cfg.model_type == "kimi_linear":  # the forget gate moves into a submodule on load
        for x in ("f_a_proj", "f_b_proj", "dt_bias", "A_log"):
            name = name.replace(f"self_attn.{x}", f"self_attn.forget_gate.{x}")
        for x in "qkv":  # three convolutions, stacked into one on load
            name = name.replace(f"self_attn.{x}_conv1d.", "self_attn.conv1d.")
    if name.startswith("backbone."):  # Nemotron-H's checkpoint prefix, renamed on load
        return "model." + name[len("backbone."):]
    if ".block_sparse_moe.gate." in name or ".block_sparse_moe.e_score" in name:
        # Mixtral's and MiniMax-M2's checkpoint names for the router (and MiniMax's bias)
        return name.replace("block_sparse_moe", "mlp")
    return name


@pytest.mark.parametrize("name", [n for n in lc.list_models() if _is_dense(n)])
def test_weight_shapes_tensor_by_tensor(name):
    """Dense models: the same tensor names and shapes as transformers' state dict
    (which, like the checkpoint listing, includes a tied lm_head.weight)."""
    _, meta_shapes, _ = transformers_ref.zoo_meta(name)
    cfg = lc.load_model(name)
    ws = lc.weight_shapes(cfg)
    # a multi-token-prediction layer shipped beside the model (Qwen3.5) is listed, never built
    ws = ws[~ws["note"].str.contains("mtp, not built by transformers", regex=False)]
    ours = {_transformers_name(cfg, n): s for n, s in zip(ws["name"], ws["shape"])}
    assert len(ours) == len(ws), "duplicate tensor names"
    assert ours == meta_shapes


@pytest.mark.parametrize("name", [n for n in lc.list_models() if not _is_dense(n)])
def test_moe_weight_shapes_hold_every_parameter(name):
    """MoE models are listed with checkpoint names (experts one by one), which differ from
    transformers' fused expert tensors; the non-expert tensors must match by name and
    shape, and the element counts must add up to the meta model's parameters."""
    total, meta_shapes, routed = transformers_ref.zoo_meta(name)
    cfg = lc.load_model(name)
    ws = lc.weight_shapes(cfg)
    ws = ws[ws["note"] != "mtp, not built by transformers"]  # (tests/test_families.py)
    counted = ws[ws["note"] == ""]
    assert int(counted["numel"].sum()) == total
    experts = ws["component"] == "experts"
    assert int(ws.loc[experts, "numel"].sum()) == routed
    shards = {}  # Qwen4-Exp's n-gram tables: saved in shards, concatenated (rows) on load
    for n, shape in zip(ws.loc[~experts, "name"], ws.loc[~experts, "shape"]):
        if ".ngram_embedding.shard_" in n:
            table = n.split(".shard_")[0] + ".weight"
            shards[table] = (shards.get(table, (0,))[0] + shape[0], shape[1])
            continue
        stacked = "_conv1d." in n  # Kimi-Linear's q, k and v convolutions: one tensor on load
        n = _transformers_name(cfg, n)
        if stacked:
            shape = (3 * shape[0],) + tuple(shape[1:])
        assert meta_shapes[n] == shape, n
    for n, shape in shards.items():
        assert meta_shapes[n] == shape, n


def test_deepseek_v3_active_matches_issue():
    assert lc.param_count(lc.load_model("DeepSeek-V3")).active == 37552282624


@pytest.mark.parametrize("name", ["Meta-Llama-3-8B", "Qwen3-30B-A3B", "DeepSeek-V2", "gpt-oss-20b"])
def test_to_hf_config_builds_in_transformers(name):
    """What-if configs leave the course as config.json that transformers can build."""
    cfg = lc.load_model(name).replace(num_hidden_layers=3)
    m = transformers_ref.meta_model(cfg.to_hf_config())
    assert sum(p.numel() for p in m.parameters()) == lc.param_count(cfg).total


@pytest.mark.parametrize("name", ["Meta-Llama-3-8B", "Qwen3-8B"])
def test_as_moe_builds_in_transformers(name):
    """The dense-to-MoE what-if is a real architecture: transformers counts the same."""
    cfg = lc.as_moe(lc.load_model(name).replace(num_hidden_layers=2, num_key_value_heads=4), 16, 2)
    m = transformers_ref.meta_model(cfg.to_hf_config())
    assert sum(p.numel() for p in m.parameters()) == lc.param_count(cfg).total


def test_every_zoo_config_has_its_provenance_recorded():
    """configs/README.md names where each shipped config.json was read."""
    import os
    readme = open(os.path.join(lc.zoo.CONFIG_DIR, "README.md"), encoding="utf-8").read()
    rows = {line.split("|")[1].strip() for line in readme.splitlines() if line.startswith("| ")}
    assert {n + ".json" for n in lc.list_models()} <= rows
