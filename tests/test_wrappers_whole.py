"""A multimodal wrapper is counted whole: its language model and its vision and audio towers.

transformers 5.23 builds a wrapper config (Gemma 3 and 4, Llama 4, Mistral 3, Qwen3.5,
Qwen3.6, Qwen4-Exp, Kimi K2.5) as its ``*ForConditionalGeneration``: the language model, the
towers and their projectors. The engine's total, active and routed-expert counts and every
tensor's name and shape equal that build (tests/transformers_ref.py's ``whole_model``), at
each type's class defaults, for varied tower configs and for every zoo wrapper; one tower
is derived by hand; ``cfg.text_model`` is the language model inside, as transformers
builds it alone; and the names are the checkpoint's (a real Qwen3.5 index).
"""

import json
from pathlib import Path

import pytest

import llmcourse as lc
from config_files import zoo_json
from llmcourse.hub import compare_checkpoint

slow = pytest.mark.slow
WRAPPERS = sorted(lc.families.WRAPPERS)
ZOO_WRAPPERS = [n for n in lc.list_models() if lc.load_model(n).is_multimodal]
HUB = Path(__file__).parent / "fixtures" / "hub"

# a small DeepSeek-V3 text model (Kimi K2.5's), and Qwen4-Exp's tiny one: these types'
# class defaults cannot be built whole (the engine refuses DeepSeek-V3 without its sizes;
# transformers cannot build Qwen4-Exp's defaults), so their towers are checked around these
DEEPSEEK_SMALL = dict(model_type="kimi_k2", hidden_size=64, intermediate_size=128,
                      moe_intermediate_size=32, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=4, vocab_size=500, kv_lora_rank=16, q_lora_rank=24,
                      qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=8, n_routed_experts=4,
                      num_experts_per_tok=2, first_k_dense_replace=1, n_group=1, topk_group=1)
SMALL_TEXT = dict(hidden_size=64, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=300)


def _qwen4_tiny():
    from family_rows import QWEN4_TINY
    return QWEN4_TINY


# varied towers: every switch a tower kind reads, away from its class's defaults
VARIED = {
    "gemma3 without its head": {
        "model_type": "gemma3", "tie_word_embeddings": False,
        "vision_config": {"vision_use_head": False, "image_size": 100, "patch_size": 10,
                          "num_hidden_layers": 1, "hidden_size": 40, "num_attention_heads": 5,
                          "intermediate_size": 24, "num_channels": 1}},
    "gemma3 with no vision_config": {"model_type": "gemma3", "vision_config": None},
    "gemma4 vision standardized, not clipped": {
        "model_type": "gemma4",
        "vision_config": {"standardize": True, "use_clipped_linears": False,
                          "num_hidden_layers": 2, "head_dim": 16, "num_key_value_heads": 2,
                          "num_attention_heads": 4, "hidden_size": 40, "intermediate_size": 24,
                          "patch_size": 4, "position_embedding_size": 7}},
    "gemma4 audio alone": {
        "model_type": "gemma4",
        "audio_config": {"num_hidden_layers": 1, "hidden_size": 48, "num_attention_heads": 3,
                         "subsampling_conv_channels": [16, 8], "conv_kernel_size": 3,
                         "output_proj_dims": 24, "use_clipped_linears": False}},
    "gemma4 both at their defaults": {"model_type": "gemma4", "vision_config": {},
                                      "audio_config": {}},
    "llama4 small vision": {
        "model_type": "llama4",
        "vision_config": {"hidden_size": 30, "num_attention_heads": 4, "num_hidden_layers": 2,
                          "intermediate_size": 12, "image_size": 50, "patch_size": 7,
                          "vision_output_dim": 10, "projector_input_dim": 9,
                          "projector_output_dim": 11, "num_channels": 2}},
    "mistral3 biased, three feature layers": {
        "model_type": "mistral3", "multimodal_projector_bias": True,
        "vision_feature_layer": [-1, -2, -3], "spatial_merge_size": 3,
        "tie_word_embeddings": False,
        "vision_config": {"hidden_size": 32, "num_hidden_layers": 1, "intermediate_size": 20,
                          "patch_size": 5, "num_channels": 2, "num_attention_heads": 4},
        "text_config": dict(SMALL_TEXT, model_type="ministral3")},
    "mistral3 vision_config given empty": {"model_type": "mistral3", "vision_config": {}},
    "mistral3 text_config without a model_type": {"model_type": "mistral3",
                                                   "text_config": SMALL_TEXT},
    "qwen3_5 standard names win": {
        "model_type": "qwen3_5",
        "vision_config": {"num_hidden_layers": 2, "num_attention_heads": 4, "depth": 5}},
    "kimi_k25 small text, default tower": {"model_type": "kimi_k25",
                                           "text_config": DEEPSEEK_SMALL},
    "kimi_k25 varied tower": {
        "model_type": "kimi_k25", "projection_hidden_size": 48, "tie_word_embeddings": False,
        "text_config": DEEPSEEK_SMALL,
        "vision_config": {"hidden_size": 48, "intermediate_size": 40, "num_hidden_layers": 1,
                          "num_attention_heads": 4, "patch_size": 7, "pos_emb_height": 5,
                          "pos_emb_width": 6, "merge_kernel_size": [3, 2], "model_type": ""}},
}


def _case(name):
    if name.startswith("qwen4_exp"):
        d = {"model_type": "qwen4_exp", "text_config": _qwen4_tiny()}
        if name.endswith("varied tower"):
            d["vision_config"] = {"num_hidden_layers": 2, "hidden_size": 32,
                                  "num_attention_heads": 4, "intermediate_size": 20,
                                  "out_hidden_size": 7, "spatial_merge_size": 3,
                                  "temporal_patch_size": 1, "in_channels": 2,
                                  "num_position_embeddings": 10}
        return d
    return VARIED[name]


VARIED_NAMES = sorted(VARIED) + ["qwen4_exp tiny text, default tower", "qwen4_exp varied tower"]
BUILT_AT_DEFAULTS = [t for t in WRAPPERS if t != "qwen4_exp"]


# --- by hand --------------------------------------------------------------------------------

def test_siglip_tower_by_hand():
    """Gemma 3's SigLIP tower at its class's defaults (SiglipVisionConfig: H = 768, I = 3072,
    12 layers, 3 channels, 224-pixel images in 16-pixel patches, with the pooling head) and
    its projector into the text model's hidden size (Gemma3TextConfig: 2304)."""
    H, I, L, C, image, patch, text = 768, 3072, 12, 3, 224, 16, 2304
    layer = (4 * (H * H + H)           # q, k, v and out projections, each with a bias
             + (H * I + I) + (I * H + H)  # fc1 and fc2, with biases
             + 2 * 2 * H)              # two LayerNorms, weight and bias
    embeddings = C * patch * patch * H + H + (image // patch) ** 2 * H
    head = H + (3 * H * H + 3 * H) + (H * H + H) + 2 * H + (H * I + I) + (I * H + H)
    tower = embeddings + L * layer + 2 * H + head
    projector = H * text + H            # the projection matrix and an RMSNorm
    pc = lc.param_count({"model_type": "gemma3"})
    assert pc.components["vision"] == tower + projector
    assert pc.components["audio"] == 0
    # without the head, 224 / 14 patches, 2 layers
    small = lc.param_count({"model_type": "gemma3", "vision_config": {
        "vision_use_head": False, "patch_size": 14, "num_hidden_layers": 2}})
    assert small.components["vision"] == (C * 14 * 14 * H + H + 16 * 16 * H + 2 * layer
                                           + 2 * H + projector)


def test_qwen3_5_vision_tower_by_hand():
    """Qwen3.5-0.8B-Base's vision tower from its vision_config: 12 blocks of 768, MLP 3072,
    16-pixel patches over 2 frames, 2304 learned positions, a 2 x 2 merger to 1024."""
    H, I, L, p, t, pos, s, out = 768, 3072, 12, 16, 2, 2304, 2, 1024
    block = 2 * 2 * H + (3 * H * H + 3 * H) + (H * H + H) + (H * I + I) + (I * H + H)
    M = H * s * s
    merger = 2 * H + (M * M + M) + (out * M + out)
    tower = 3 * t * p * p * H + H + pos * H + L * block + merger
    cfg = lc.load_model("Qwen3.5-0.8B-Base")
    assert lc.param_count(cfg).components["vision"] == tower


# --- what the wrapper's count is --------------------------------------------------------------

@pytest.mark.parametrize("name", ZOO_WRAPPERS)
def test_the_wrapper_is_its_language_model_and_its_towers(name):
    cfg = lc.load_model(name)
    pc, text = lc.param_count(cfg), lc.param_count(cfg.text_model)
    towers = pc.components["vision"] + pc.components["audio"]
    assert towers > 0
    assert pc.total == text.total + towers
    assert pc.active == text.active and pc.routed_experts == text.routed_experts
    for mode in ("prefill", "decode"):
        assert lc.flops_per_token(cfg, 4096, mode=mode).total == \
            lc.flops_per_token(cfg.text_model, 4096, mode=mode).total
    assert lc.kv_cache_bytes(cfg, 4096) == lc.kv_cache_bytes(cfg.text_model, 4096)
    assert lc.weight_bytes(cfg) == 2 * pc.total
    assert cfg.text_model.name == f"{name} (text model)" and not cfg.text_model.is_multimodal
    assert cfg.text_model.tie_word_embeddings == cfg.tie_word_embeddings


def test_a_text_model_is_its_own_text_model():
    cfg = lc.load_model("Qwen3-8B")
    assert cfg.text_model is cfg
    assert lc.param_count(cfg).components["vision"] == 0


def test_gemma4_without_vision_or_audio_config_builds_no_tower():
    """Gemma4Config's vision_config and audio_config are optional: absent or null, no tower
    (and none of its embedder); Llama 4's is not: absent, its class's defaults are built."""
    for d in ({"model_type": "gemma4"}, {"model_type": "gemma4", "vision_config": None,
                                         "audio_config": None}):
        pc = lc.param_count(d)
        assert pc.components["vision"] == pc.components["audio"] == 0
    assert lc.param_count({"model_type": "llama4"}).components["vision"] > 0


def test_weight_shapes_lists_the_towers_after_the_language_model():
    cfg = lc.load_model("gemma-4-E2B")
    ws = lc.weight_shapes(cfg)
    towers = ws[ws["component"].isin(["vision", "audio"])]
    assert (towers["layer"] == -1).all() and (towers["expert"] == -1).all()
    counted = towers[towers["note"] == ""]
    pc = lc.param_count(cfg)
    assert int(counted["numel"].sum()) == pc.components["vision"] + pc.components["audio"]
    # Gemma 4's clippable linears store four scalar bounds each: buffers, not parameters
    bounds = towers[towers["note"] == "buffer"]
    assert len(bounds) and set(bounds["shape"]) == {()}
    assert ws["name"].str.startswith("model.language_model.layers.0.").any()
    assert not ws["name"].str.startswith("model.layers.").any()
    assert towers.index.min() > ws[ws["name"].str.startswith("model.language_model.")].index.max()


def test_names_are_the_real_qwen3_5_checkpoints():
    """The names (and shapes) a real Qwen3.5-0.8B-Base checkpoint stores (its index and
    safetensors headers, tests/fixtures/hub), the tied head left out as the checkpoint
    leaves it out."""
    root = HUB / "Qwen" / "Qwen3.5-0.8B-Base"
    index = json.loads((root / "model.safetensors.index.json").read_text())
    headers = {}
    for f in sorted(set(index["weight_map"].values())):
        headers.update(json.loads((root / f"{f}.header.json").read_text()))
    stored = {k: tuple(v["shape"]) for k, v in headers.items() if k != "__metadata__"}
    assert set(stored) == set(index["weight_map"])
    ws = lc.weight_shapes(lc.load_model("Qwen3.5-0.8B-Base"))
    ws = ws[~ws["note"].str.startswith("tied to")]
    assert dict(zip(ws["name"], map(tuple, ws["shape"]))) == stored


def test_the_wrapper_ties_the_head_by_its_own_setting():
    """transformers ties a wrapper's head by the wrapper's own tie_word_embeddings (its
    class's default when absent: Mistral3Config's true), Llama 4's by its text config's."""
    d = zoo_json("Ministral-3-8B-Base-2512")
    assert "tie_word_embeddings" not in d and "tie_word_embeddings" not in d["text_config"]
    cfg = lc.from_hf_config(d)
    assert cfg.tie_word_embeddings and cfg.text_model.tie_word_embeddings
    untied = lc.from_hf_config(dict(d, tie_word_embeddings=False))
    assert lc.param_count(untied).total - lc.param_count(cfg).total == 131072 * 4096
    assert lc.param_count(cfg.replace(tie_word_embeddings=False)).total == \
        lc.param_count(untied).total
    inner = {"model_type": "llama4", "tie_word_embeddings": True,
             "text_config": {"tie_word_embeddings": False}}
    assert not lc.from_hf_config(inner).tie_word_embeddings


# --- refused, in one line --------------------------------------------------------------------

@pytest.mark.parametrize("d,message", [
    ({"model_type": "gemma3", "vision_config": {"model_type": "siglip2_vision_model"}},
     "gemma3: its 'siglip2_vision_model' vision tower is not sized by the course"),
    ({"model_type": "mistral3", "vision_config": {"model_type": "clip_vision_model"}},
     "mistral3: its 'clip_vision_model' vision tower is not sized by the course"),
    ({"model_type": "gemma3", "vision_config": {"hidden_size": 0}},
     "vision_config.hidden_size: must be positive (got 0)"),
    ({"model_type": "qwen3_5", "vision_config": {"depth": None}},
     "vision_config.depth: must be a whole number (got None)"),
    ({"model_type": "gemma3", "vision_config": {"hidden_size": 100, "num_attention_heads": 3}},
     "vision_config.hidden_size: must be divisible by vision_config.num_attention_heads"),
    ({"model_type": "gemma4", "audio_config": {"subsampling_conv_channels": [128]}},
     "audio_config.subsampling_conv_channels: must be a list of two positive whole numbers"),
    ({"model_type": "gemma4", "vision_config": {"standardize": "yes"}},
     "vision_config.standardize: must be true or false"),
    ({"model_type": "llama4", "vision_config": [1]},
     "vision_config: must be a JSON object or null"),
    ({"model_type": "mistral3", "vision_feature_layer": []},
     "vision_feature_layer: must be a whole number or a non-empty list of them"),
    ({"model_type": "kimi_k25", "text_config": DEEPSEEK_SMALL,
      "vision_config": {"merge_kernel_size": 2}},
     "vision_config.merge_kernel_size: must be a list of two positive whole numbers"),
    ({"model_type": "qwen3_5", "tie_word_embeddings": "no"},
     "tie_word_embeddings: must be true or false"),
])
def test_a_tower_the_course_cannot_size_is_refused_in_one_line(d, message):
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(d)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)


# --- against transformers' build -------------------------------------------------------------

def _check_whole(d):
    """Total, active and routed parameters, and every tensor's name and shape, equal the
    wrapper transformers builds. Routed experts stored one by one in checkpoints and fused
    by transformers are checked by their count (``counts_as_built``); Qwen4-Exp's n-gram
    tables, saved in shards, by their rows."""
    import transformers_ref as ref
    cfg = ref.counts_as_built(d)
    m = ref.whole_model(d)
    built = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    ws = lc.weight_shapes(cfg)
    ws = ws[~ws["note"].str.contains("mtp, not built by transformers", regex=False)]
    one_by_one = ws["expert"] >= 0
    if one_by_one.any():
        built = {k: v for k, v in built.items() if ".mlp.experts." not in k}
    ours, shards = {}, {}
    for name, shape in zip(ws.loc[~one_by_one, "name"], ws.loc[~one_by_one, "shape"]):
        for n, s in ref.as_loaded(d["model_type"], name, tuple(shape)):
            if ".ngram_embedding.shard_" in n:  # concatenated along the rows on load
                table = n.split(".shard_")[0] + ".weight"
                shards[table] = (shards.get(table, (0,))[0] + s[0], s[1])
                continue
            assert n not in ours, n
            ours[n] = s
    assert dict(ours, **shards) == built
    return cfg, m


@slow
@pytest.mark.parametrize("model_type", BUILT_AT_DEFAULTS)
def test_wrapper_at_its_class_defaults_is_the_build(model_type):
    _check_whole({"model_type": model_type})


@slow
@pytest.mark.parametrize("name", VARIED_NAMES)
def test_varied_towers_are_the_build(name):
    _check_whole(_case(name))


@slow
@pytest.mark.parametrize("name", ZOO_WRAPPERS)
def test_zoo_wrapper_is_the_build(name):
    _check_whole(lc.load_model(name).to_hf_config())


@slow
@pytest.mark.parametrize("name", ZOO_WRAPPERS)
def test_text_model_is_the_language_model_transformers_builds(name):
    """``cfg.text_model``: its count equals transformers' text model built alone from the
    text_config (its head tied as inside the wrapper), and the wrapper build's language
    model and head."""
    import transformers_ref as ref
    cfg = lc.load_model(name)
    text = cfg.text_model
    ref.counts_as_built(text.to_hf_config())
    m = ref.whole_model(cfg.to_hf_config())
    inside = sum(p.numel() for n, p in m.named_parameters()
                 if "language_model" in n or n.startswith("lm_head"))
    assert lc.param_count(text).total == inside


# --- the checkpoint report ------------------------------------------------------------------

def _checkpoint(cfg, rename=lambda n: n, drop=()):
    """A bf16 checkpoint's tensors as weight_shapes lists them (the tied head left out, as
    save_pretrained leaves it out; buffers in fp32), renamed and less ``drop``."""
    ws = lc.weight_shapes(cfg)
    out = {}
    for name, shape, numel, note in zip(ws["name"], ws["shape"], ws["numel"], ws["note"]):
        if note.startswith("tied to") or name in drop:
            continue
        fp32 = note == "buffer"
        out[rename(name)] = ("F32" if fp32 else "BF16", tuple(shape), numel * (4 if fp32 else 2))
    return out


GEMMA3_SMALL = {"model_type": "gemma3", "text_config": dict(SMALL_TEXT, model_type="gemma3_text"),
                "vision_config": {"hidden_size": 32, "intermediate_size": 16,
                                  "num_hidden_layers": 2, "num_attention_heads": 4,
                                  "image_size": 32, "patch_size": 8}}


def _transformers_5_names(name):
    """Gemma 3 saved by transformers 5: its own names, not the LLaVA-era ones."""
    for old, new in (("language_model.model.", "model.language_model."),
                     ("vision_tower.vision_model.", "model.vision_tower."),
                     ("multi_modal_projector.", "model.multi_modal_projector.")):
        if name.startswith(old):
            return new + name[len(old):]
    return name


@pytest.mark.parametrize("rename", [lambda n: n, _transformers_5_names],
                         ids=["LLaVA-era names", "transformers 5 names"])
def test_the_checkpoint_report_compares_the_towers(rename):
    cfg = lc.from_hf_config(GEMMA3_SMALL)
    r = compare_checkpoint(cfg, _checkpoint(cfg, rename))
    pc = lc.param_count(cfg)
    assert r.explained and r.difference == 0
    assert r.parts["towers"].values == pc.components["vision"] == r.engine_tower_params
    assert r.parts["language_model"].values == lc.param_count(cfg.text_model).total
    rows = {row[0]: row for row in r.rows()}
    assert rows["bytes, vision and audio towers"][1:4] == (2 * pc.components["vision"],) * 2 + (0,)


def test_a_missing_tower_tensor_is_named():
    cfg = lc.from_hf_config(GEMMA3_SMALL)
    gone = "multi_modal_projector.mm_soft_emb_norm.weight"   # (32,) in bf16
    r = compare_checkpoint(cfg, _checkpoint(cfg, drop=(gone,)))
    assert not r.explained
    rows = {row[0]: row for row in r.rows()}
    what, ck, course, diff, why = rows["bytes, vision and audio towers"]
    assert diff == -2 * 32
    assert f"only in the course's count: {gone} (1 tensor, 32 values)" in why
    assert rows["values, vision and audio towers"][3] == -32
