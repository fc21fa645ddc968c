"""Exact, and proven so: every count the engine gives equals transformers' own model.

The independent count is transformers 5.23 (tests/transformers_ref.py): the model it builds
on the meta device from the same config.json (total, active and routed-expert parameters,
every tensor's name and shape), the config.json it writes back with save_pretrained, the
cache a tiny model holds after a CPU prefill, and the FLOPs PyTorch counts in one decode
step. Checked here: every zoo model and fixture config, and for every supported model type
its row in tests/family_rows.py (random configs of the type, its tiny models, its decode
steps). A supported type without a row fails ``test_every_supported_type_has_a_row``.
"""

import pytest
from hypothesis import HealthCheck, given, settings

import llmcourse as lc
import transformers_ref  # torch + transformers: requirements-test.txt (never skipped)
from config_files import fixture_json, shrunk, zoo_json
from families import ROWS
from family_rows import QWEN4_TINY, V4_TINY, small_configs

slow = pytest.mark.slow
# real configs kept as test fixtures, not in the zoo (tests/fixtures/README.md)
FIXTURES = ("mistral4_class_defaults.json", "seed_oss_36b_reconstruction.json",
            "lfm2_moe_8b_a1b_trimmed.json", "longcat_flash_class_defaults.json")
FLOPS = [(mt, i) for mt, row in ROWS.items() for i in range(len(row.flops))]
TINY = [(mt, i) for mt, row in ROWS.items() for i in range(len(row.tiny))]


def test_every_supported_type_has_a_row():
    """Each supported model_type is checked below: adding a family adds its row."""
    missing = sorted(set(lc.SUPPORTED_MODEL_TYPES) - set(ROWS))
    assert not missing, f"supported but with no row in tests/family_rows.py: {missing}"
    assert not set(ROWS) - set(lc.SUPPORTED_MODEL_TYPES), "a row for an unsupported type"


# --- every zoo model: its build, tensor by tensor ---------------------------------------------

@slow
def test_total_equals_meta_model(zoo_name):
    total, _, _ = transformers_ref.zoo_meta(zoo_name)
    assert lc.param_count(lc.load_model(zoo_name)).total == total


@slow
def test_active_is_total_minus_unused_routed_experts(zoo_name):
    """Less a multimodal wrapper's towers too: no text token uses them."""
    cfg = lc.load_model(zoo_name)
    total, _, routed = transformers_ref.zoo_meta(zoo_name)
    towers = transformers_ref.zoo_towers(zoo_name)
    assert (towers > 0) == cfg.is_multimodal
    pc = lc.param_count(cfg)
    if not cfg.is_moe:
        assert routed == 0 and pc.active == pc.total - towers == total - towers
        return
    E, k = cfg.num_experts, cfg.num_experts_per_tok
    assert routed % E == 0
    assert pc.active == total - towers - routed // E * (E - k)
    assert pc.routed_experts == routed


def test_breakdown_sums_to_total(zoo_name):
    pc = lc.param_count(lc.load_model(zoo_name))
    assert sum(pc.components.values()) == pc.total
    assert int(pc.breakdown.sum()) == pc.total
    assert pc.non_embedding == pc.total - pc.embedding


@slow
def test_checkpoint_loads_into_the_build_tensor_by_tensor(zoo_name):
    """The tensors weight_shapes lists, under the checkpoint's names (experts one by one
    where the checkpoint stores them so), loaded as transformers' from_pretrained loads a
    checkpoint (its renamings and weight converters): every tensor of the meta build, name
    by name and shape by shape, and nothing else."""
    cfg = lc.load_model(zoo_name)
    transformers_ref.tensors_as_built(cfg, transformers_ref.zoo_model(zoo_name))


def test_deepseek_v3_active_parameters():
    """Total less the routed experts a token skips, as the meta build gives it (DeepSeek
    publishes "37B activated")."""
    assert lc.param_count(lc.load_model("DeepSeek-V3")).active == 37552282624


@slow
@pytest.mark.parametrize("name", ["Meta-Llama-3-8B", "Qwen3-30B-A3B", "DeepSeek-V2", "gpt-oss-20b"])
def test_to_hf_config_builds_in_transformers(name):
    """What-if configs leave the course as config.json that transformers can build."""
    cfg = lc.load_model(name).replace(num_hidden_layers=3)
    m = transformers_ref.meta_model(cfg.to_hf_config())
    assert sum(p.numel() for p in m.parameters()) == lc.param_count(cfg).total


@slow
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


# --- every zoo model: the form save_pretrained writes back ------------------------------------
# Every fine-tune or what-if a reader saves with save_pretrained is the form transformers writes
# back, not the hub file: renamed keys (Qwen3-MoE's num_experts is written as
# num_local_experts), derived lists (layer_types), nested RoPE parameters. Each zoo config, and
# a shrunk variant of it (3 layers; for a mixture of experts 8 experts, top-2), is loaded into
# transformers' own config class, written with save_pretrained and read back by the engine:
# totals, active parameters, KV-cache bytes and FLOPs must not move.


@slow
def test_saved_config_counts_as_published(zoo_name, tmp_path):
    published = zoo_json(zoo_name)
    saved = transformers_ref.saved(published, tmp_path)
    assert transformers_ref.figures(lc.from_hf_config(saved)) == transformers_ref.figures(lc.from_hf_config(published))


@slow
def test_saved_shrunk_config_counts_as_written(zoo_name, tmp_path):
    small = shrunk(zoo_json(zoo_name))
    saved = transformers_ref.saved(small, tmp_path)
    mine = lc.from_hf_config(small)
    assert mine.num_hidden_layers == 3
    if mine.is_moe:
        assert (mine.num_experts, mine.num_experts_per_tok) == (8, 2)
    assert transformers_ref.figures(lc.from_hf_config(saved)) == transformers_ref.figures(mine)


@slow
def test_shrunk_config_counts_as_transformers_builds(zoo_name):
    """The shrunk variant itself is exact: the round trip compares against a right answer."""
    small = shrunk(zoo_json(zoo_name))
    m = transformers_ref.meta_model(small)
    cfg = lc.from_hf_config(small)
    assert lc.param_count(cfg).total == sum(p.numel() for p in m.parameters())


@slow
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


@slow
@pytest.mark.parametrize("name", ["Qwen3-0.6B", "Llama-3.2-1B"])
def test_a_dense_model_made_moe_counts_as_transformers_builds_it(name):
    """as_moe writes the new type's expert field (Qwen3-MoE reads num_experts through its
    attribute map): the what-if is the model transformers builds from the same dict."""
    moe = lc.as_moe(lc.load_model(name).replace(num_hidden_layers=2), 8, 2)
    m = transformers_ref.meta_model(moe.to_hf_config())
    assert lc.param_count(moe).total == sum(p.numel() for p in m.parameters())
    assert (moe.num_experts, moe.num_experts_per_tok) == (8, 2)


# --- the fixtures: real configs of types the zoo does not ship -------------------------------

def _row_of(d):
    return ROWS.get(d["model_type"])


@slow
@pytest.mark.parametrize("fixture", FIXTURES)
def test_fixture_counts_as_transformers_builds_it(fixture):
    d = fixture_json(fixture)
    cfg = transformers_ref.counts_as_built(d, row=_row_of(d))
    row = ROWS.get(d["model_type"])
    if row and row.extra:
        row.extra(d, cfg, transformers_ref.meta_model(d))


@slow
@pytest.mark.parametrize("fixture", FIXTURES)
def test_fixture_saved_and_shrunk_counts_the_same(fixture, tmp_path):
    """The fixture as published, and shrunk (3 layers; 8 experts, top-2), written back by
    transformers' save_pretrained: the engine counts the saved form as the original."""
    published = fixture_json(fixture)
    saved = transformers_ref.saved(published, tmp_path / "published")
    assert transformers_ref.figures(lc.from_hf_config(saved)) == transformers_ref.figures(
        lc.from_hf_config(published))
    small = shrunk(published)
    saved = transformers_ref.saved(small, tmp_path / "shrunk")
    assert transformers_ref.figures(lc.from_hf_config(saved)) == transformers_ref.figures(
        lc.from_hf_config(small))
    transformers_ref.counts_as_built(small, row=_row_of(small))


# --- every supported type: random configs, tiny models, decode steps -------------------------

def _built_or_refused_alike(d):
    """True where transformers builds ``d``; where it refuses (its config class or its
    model), the engine refuses it too, in a one-line ValueError."""
    try:
        transformers_ref.meta_model(d)
    except Exception as e:   # its config class (a validation error) or its modules refuse
        try:
            lc.from_hf_config(d)
        except ValueError as ours:
            assert "\n" not in str(ours)
            return False
        raise AssertionError(f"transformers refuses ({type(e).__name__}: {e}), the engine "
                             f"counts it: {d}") from None
    return True


GENERIC = [mt for mt, row in ROWS.items() if row.small is not None and mt in lc.families.ENTRIES]


@slow
@pytest.mark.parametrize("model_type", GENERIC)
def test_configs_from_the_class_defaults_match_transformers(model_type):
    """Small random configs drawn from the family's own class defaults (tests/family_rows.py,
    small_configs): built by transformers, they count as the engine counts them, tensor by
    tensor; refused by it, the engine refuses them too."""
    row = ROWS[model_type]

    @settings(max_examples=15, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(small_configs(model_type, **row.small))
    def check(d):
        if _built_or_refused_alike(d):
            cfg = transformers_ref.counts_as_built(d, row=row)
            if row.extra:
                row.extra(d, cfg, transformers_ref.meta_model(d))
    check()


@slow
@pytest.mark.parametrize("model_type", sorted(mt for mt, row in ROWS.items()
                                              if row.defaults is not None))
def test_class_defaults_count_as_transformers_builds_them(model_type):
    """The type's config class's defaults alone ({"model_type": ...}): built by transformers,
    they count as built, tensor by tensor; where transformers cannot build them (no expert
    count, no head_dim), the engine refuses them in one line."""
    row = ROWS[model_type]
    d = {"model_type": model_type}
    assert _built_or_refused_alike(d) == row.defaults
    if row.defaults:
        transformers_ref.counts_as_built(d, row=row)


@slow
@pytest.mark.parametrize("model_type,fixture", [(mt, f) for mt, row in ROWS.items()
                                                for f in row.real])
def test_real_configs_count_as_transformers_builds_them(model_type, fixture):
    """Each type's real published config.json (a test fixture): as built, tensor by tensor."""
    d = fixture_json(fixture)
    assert d["model_type"] == model_type
    transformers_ref.counts_as_built(d, row=ROWS[model_type])


@slow
@pytest.mark.parametrize("model_type", sorted(mt for mt, row in ROWS.items() if row.random))
def test_random_configs_match_transformers(model_type):
    """Small random configs of the type, written from scratch (optional keys sometimes left
    out, so transformers' defaults and ours fill them in): total, active and routed-expert
    parameters equal the model transformers builds from the same config.json, tensor by
    tensor; a config transformers refuses, the engine refuses too."""
    row = ROWS[model_type]

    @settings(max_examples=row.examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(row.random())
    def check(d):
        if not _built_or_refused_alike(d):
            return
        cfg = transformers_ref.counts_as_built(d, row=row)
        if row.extra:
            row.extra(d, cfg, transformers_ref.meta_model(d))
        if row.round_trip:
            assert lc.from_hf_config(cfg.to_hf_config()) == cfg
        if row.deeper:  # a deeper copy, as a reader edits it, is still the build
            deeper = cfg.replace(num_hidden_layers=cfg.num_hidden_layers + 1)
            transformers_ref.counts_as_built(deeper.to_hf_config(), row=row)
    check()


@slow
@pytest.mark.parametrize("model_type,i", TINY)
def test_tiny_model_cache_equals_the_engine(model_type, i):
    """A tiny model after a CPU prefill of 2 sequences of 7 tokens (fp32): the fixed-size
    states it keeps (convolution and recurrent states of linear-attention, Mamba-2 and
    short-convolution layers) are linear_state_bytes, its K and V kv_cache_bytes less the
    lightning indexers' keys, which are indexer_cache_bytes_per_token per token; its
    parameters param_count (less what no checkpoint holds)."""
    row = ROWS[model_type]
    d = row.tiny[i]
    cfg = lc.from_hf_config(d)
    seq, batch = 7, 2
    model, cache = transformers_ref.tiny_prefill(d, seq, batch)
    states, kv, indexer = transformers_ref.cache_bytes(cache)
    assert states == lc.linear_state_bytes(cfg, batch=batch, dtype="fp32")
    assert indexer == lc.indexer_cache_bytes_per_token(cfg, dtype="fp32") * seq * batch
    assert kv + indexer == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32")
    total = sum(p.numel() for p in model.parameters())
    if row.uncounted:
        from math import prod
        total -= sum(model.get_parameter(k).numel() - prod(shape)
                     for k, shape in row.uncounted(model, cfg).items())
    assert lc.param_count(cfg).total == total


@slow
@pytest.mark.parametrize("model_type,i", FLOPS)
def test_decode_step_flops_against_pytorch(model_type, i):
    """One decode step of a tiny model (the new token after n - 1 cached ones): what
    PyTorch's FlopCounterMode counts is the engine's flops_per_token(decode) plus the work
    transformers' reference code does beyond it, derived by hand (tests/family_rows.py)."""
    case = ROWS[model_type].flops[i]
    counted, ours = transformers_ref.decode_step_flops(case.config, case.n)
    assert ours.attention > 0
    if case.check:
        case.check(case.config, counted, ours)
    else:
        assert counted == ours.total + (case.gap(case.config, case.n) if case.gap else 0)


# --- caches the generic check does not read -------------------------------------------------

@slow
def test_deepseek_v4_compressed_entries_equal_what_transformers_caches():
    """A tiny DeepSeek-V4 after a CPU prefill: its compressed entries (CSA and its indexer,
    HCA) are compressed_cache_values exactly; each layer's window holds sliding_window - 1
    tokens between steps where the engine counts the sliding_window a step holds (lesson 2b;
    transformers' plain sliding layers keep V as a second copy of K). Not counted: the
    inputs of a window still filling (fewer than its rate) and CSA's overlap state."""
    import torch
    cfg = lc.from_hf_config(V4_TINY)
    torch.manual_seed(0)
    model = transformers_ref.causal_lm(transformers_ref.hf_config(V4_TINY)).eval()
    assert lc.param_count(cfg).total == sum(p.numel() for p in model.parameters())
    for seq in (20, 23):
        with torch.no_grad():
            cache = model(torch.randint(0, 64, (1, seq)), use_cache=True).past_key_values
        compressed = sum(t.numel() for layer in cache.layers
                         for t in (getattr(layer, "compressed_kv", None) or {}).values())
        window = sum(layer.keys.numel() for layer in cache.layers)
        assert compressed == lc.counts.compressed_cache_values(cfg, seq)
        assert window == 4 * (V4_TINY["sliding_window"] - 1) * V4_TINY["head_dim"]
        assert lc.kv_cache_bytes(cfg, seq, dtype="fp32") // 4 == \
            compressed + 4 * V4_TINY["sliding_window"] * V4_TINY["head_dim"]


@slow
def test_qwen4_exp_cache_and_its_bookkeeping():
    """A tiny model after a CPU prefill of 2 x 7 tokens. The attention layer caches K and V
    and one indexer key of indexer_head_dim per token (kv_cache_bytes); every DeltaNet
    layer its recurrent and convolution states, and each PLE layer two more, the dilated
    convolution's window over all streams and the last ngram_size - 1 token ids, int64
    (linear_state_bytes). Besides, transformers keeps the token positions the indexer
    re-reads (3 int64 per token, once for the model): bookkeeping, not counted."""
    import torch
    cfg = lc.from_hf_config(QWEN4_TINY)
    seq, batch = 7, 2
    model, cache = transformers_ref.tiny_prefill(QWEN4_TINY, seq, batch)
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


# --- every causal-LM type transformers registers: counted exactly or refused ---------------

@slow
def test_every_causal_lm_type_is_exact_or_refused_and_the_page_says_so():
    """At its config class's defaults, every type transformers registers for causal language
    modelling is counted exactly (total and every tensor) or refused in one line, never a
    different number; docs/model-types.md (tools/model_types.py) says which, as of now."""
    import pathlib
    import sys
    root = pathlib.Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tools"))
    import model_types
    text = model_types.page()
    assert "| DIFFERENT:" not in text
    assert (root / "docs" / "model-types.md").read_text(encoding="utf-8") == text, \
        "docs/model-types.md is out of date: python tools/model_types.py"
