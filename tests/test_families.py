"""The families of issue 12 (GPT-2 to Qwen3-Next): random configs of every type counted
by transformers, configs read as transformers reads them, and cache/FLOP figures derived
by hand from the config fields or from the cache transformers allocates."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmcourse as lc
import transformers_ref

NEW_TYPES = ("gpt2", "gpt_neox", "gemma", "gemma3_text", "gemma3", "phi3", "qwen2_moe", "olmo2",
             "granite", "smollm3", "glm4_moe", "llama4", "llama4_text", "qwen3_next")
MOE_FIELD = {"qwen2_moe": "num_experts", "qwen3_next": "num_experts",
             "glm4_moe": "n_routed_experts", "llama4_text": "num_local_experts"}


@st.composite
def new_family_configs(draw, model_type):
    """A small random config.json of ``model_type``, written from scratch; optional keys
    are sometimes left out so transformers' defaults (and ours) fill them in."""
    d8 = st.integers(1, 8)
    L = draw(st.integers(1, 6))
    kv = draw(st.integers(1, 4))
    heads = kv * draw(st.integers(1, 3))
    hd = 2 * draw(d8)
    hidden = heads * 2 * draw(d8)
    maybe = lambda: draw(st.booleans())  # noqa: E731
    outer = None
    if model_type in ("gemma3", "llama4"):
        outer, model_type = model_type, model_type + "_text"
    d = {"model_type": model_type, "vocab_size": draw(st.integers(2, 300))}
    if model_type == "gpt2":
        std = maybe()  # GPT-2 by its own names, or by the standard ones (the attribute map)
        d.update({("hidden_size" if std else "n_embd"): hidden,
                  ("num_attention_heads" if std else "n_head"): heads,
                  ("num_hidden_layers" if std else "n_layer"): L,
                  ("max_position_embeddings" if std else "n_positions"): draw(st.integers(1, 64))})
        if maybe():
            d["n_inner"] = draw(st.one_of(st.none(), d8.map(lambda x: 4 * x)))
        if maybe():
            d["tie_word_embeddings"] = draw(st.booleans())
        return d
    d.update(hidden_size=hidden, num_attention_heads=heads, num_hidden_layers=L,
             intermediate_size=4 * draw(d8), max_position_embeddings=64,
             # the embedding's padding row must exist (defaults such as Phi-3's 32000 do not)
             pad_token_id=draw(st.one_of(st.none(), st.integers(0, d["vocab_size"] - 1))))
    if model_type != "gpt_neox":
        d["num_key_value_heads"] = kv
        if model_type in ("gemma", "gemma3_text", "llama4_text", "qwen3_next") or maybe():
            d["head_dim"] = hd  # those four default to 256 or 128 when it is left out
    if maybe():
        d["tie_word_embeddings"] = draw(st.booleans())
    if model_type in ("gpt_neox", "gemma", "gemma3_text", "olmo2", "granite", "smollm3",
                      "glm4_moe", "llama4_text", "qwen3_next") and maybe():
        d["attention_bias"] = draw(st.booleans())
    if model_type in ("granite", "smollm3") and maybe():
        d["mlp_bias"] = draw(st.booleans())
    if model_type == "granite":
        d.update(embedding_multiplier=12.0, residual_multiplier=0.22, logits_scaling=8.0,
                 attention_multiplier=0.0078125)
    if model_type == "gemma3_text":
        d.update(sliding_window=draw(st.integers(1, 64)),
                 sliding_window_pattern=draw(st.integers(1, 4)))
    if model_type == "phi3" and maybe():
        d["sliding_window"] = draw(st.integers(1, 64))
    if model_type == "smollm3":
        d.update(no_rope_layer_interval=draw(st.integers(1, 4)),
                 use_sliding_window=draw(st.booleans()), sliding_window=draw(st.integers(1, 64)))
    if model_type in MOE_FIELD:
        E = draw(st.integers(1, 8))
        d[MOE_FIELD[model_type]] = E
        d["num_experts_per_tok"] = draw(st.integers(1, E))
        if model_type != "llama4_text":
            d["moe_intermediate_size"] = 2 * draw(d8)
    if model_type in ("qwen2_moe", "qwen3_next"):
        d["shared_expert_intermediate_size"] = 2 * draw(d8)
        d["decoder_sparse_step"] = draw(st.integers(1, 3))
        d["mlp_only_layers"] = draw(st.lists(st.integers(0, L - 1), unique=True, max_size=L))
    if model_type == "qwen2_moe" and maybe():
        d["qkv_bias"] = draw(st.booleans())
    if model_type == "glm4_moe":
        d.update(n_shared_experts=draw(st.integers(0, 2)), use_qk_norm=draw(st.booleans()),
                 first_k_dense_replace=draw(st.integers(0, L)), n_group=1, topk_group=1)
    if model_type == "llama4_text":
        d.update(intermediate_size_mlp=4 * draw(d8),
                 interleave_moe_layer_step=draw(st.integers(1, 3)),
                 attention_chunk_size=draw(st.integers(1, 64)),
                 no_rope_layer_interval=draw(st.integers(1, 4)),
                 use_qk_norm=draw(st.booleans()))
    if model_type == "qwen3_next":
        kh = draw(st.integers(1, 3))
        d.update(linear_num_key_heads=kh, linear_num_value_heads=kh * draw(st.integers(1, 3)),
                 linear_key_head_dim=2 * draw(d8), linear_value_head_dim=2 * draw(d8),
                 linear_conv_kernel_dim=draw(st.integers(1, 4)),
                 full_attention_interval=draw(st.integers(1, 4)))
    if outer:
        return {"model_type": outer, "text_config": d}
    return d


@pytest.mark.slow
@pytest.mark.parametrize("model_type", NEW_TYPES)
def test_random_configs_match_transformers(model_type):
    """Total and active parameters of random configs of each new type equal the model
    transformers builds from the same config.json (active: routed experts top-k of E)."""
    @settings(max_examples=100, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(new_family_configs(model_type))
    def check(d):
        cfg = lc.from_hf_config(d)
        m = transformers_ref.meta_model(d)
        total = sum(p.numel() for p in m.parameters())
        pc = lc.param_count(cfg)
        assert pc.total == total
        routed = transformers_ref.routed_expert_params(m)
        if cfg.is_moe:
            E, k = cfg.num_experts, cfg.num_experts_per_tok
            assert pc.active == total - routed // E * (E - k)
        else:
            assert routed == 0 and pc.active == total
        # the config round-trips, and a deeper copy is still exact
        assert lc.from_hf_config(cfg.to_hf_config()) == cfg
        deeper = cfg.replace(num_hidden_layers=cfg.num_hidden_layers + 1)
        m2 = transformers_ref.meta_model(deeper.to_hf_config())
        assert lc.param_count(deeper).total == sum(p.numel() for p in m2.parameters())
    check()


# --- reading configs as transformers does -------------------------------------------

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
    m = transformers_ref.meta_model(d)
    assert sum(p.numel() for p in m.parameters()) == lc.param_count(small).total


def test_gpt2_learned_positions_are_weights_not_cache():
    cfg = lc.load_model("gpt2")
    ws = lc.weight_shapes(cfg)
    wpe = ws[ws["name"] == "wpe.weight"].iloc[0]
    assert wpe["shape"] == (1024, 768) and wpe["component"] == "embedding"
    # the GPT-2 small count everyone quotes, and 12·L·d² for its non-embedding part
    pc = lc.param_count(cfg)
    assert pc.total == 124_439_808
    assert pc.embedding == 50257 * 768 + 1024 * 768
    # cache: K and V, 12 heads x 64, 12 layers, 2 bytes: no position table in it
    assert lc.kv_cache_bytes(cfg, 1000) == 1000 * 12 * 2 * 12 * 64 * 2
    lm = ws[ws["name"] == "lm_head.weight"].iloc[0]
    assert lm["note"] == "tied to wte.weight"


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
    m = transformers_ref.meta_model(six)
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


# --- KV cache, linear state and FLOPs, derived by hand from the config fields ----------

def test_gemma3_sliding_layers_cap_the_cache():
    cfg = lc.load_model("gemma-3-1b-it")  # 26 layers, pattern 6: 4 global, 22 local of 512
    per_tok_layer = 2 * 1 * 256 * 2  # K and V, 1 KV head of 256, bf16
    for seq in (100, 512, 32768):
        assert lc.kv_cache_bytes(cfg, seq) == per_tok_layer * (4 * seq + 22 * min(seq, 512))


def test_llama4_chunked_layers_cap_the_cache_and_the_attention():
    cfg = lc.load_model("Llama-4-Scout-17B-16E-Instruct")  # 12 full, 36 chunked of 8192
    per = 2 * 8 * 128 * 2
    assert lc.kv_cache_bytes(cfg, 100_000) == per * (12 * 100_000 + 36 * 8192)
    assert lc.kv_cache_bytes(cfg, 5000) == per * 48 * 5000
    # decode at position 8193 starts a new chunk: a chunked layer sees just itself
    f = lc.flops_per_token(cfg, 8193, mode="decode")
    assert f.attention == 2 * 40 * (128 + 128) * (12 * 8193 + 36 * 1)
    # prefill of 3 chunks' worth: every chunked position i sees ((i-1) mod C) + 1 keys
    n, C = 3 * 8192, 8192
    chunked = sum((i - 1) % C + 1 for i in range(1, n + 1))
    full = n * (n + 1) // 2
    expected = 2 * 40 * 256 * (12 * full + 36 * chunked) // n
    assert lc.flops_per_token(cfg, n).attention == expected


QWEN3_NEXT = dict(vh=32, vd=128, kd=128, kh=16, kernel=4, linear=36, full=12)


def test_qwen3_next_cache_only_in_full_layers_and_a_fixed_linear_state():
    cfg = lc.load_model("Qwen3-Next-80B-A3B")
    q = QWEN3_NEXT
    assert cfg.layer_types.count("linear_attention") == q["linear"]
    per = 2 * 2 * 256 * 2  # K and V, 2 KV heads of 256, bf16
    assert lc.kv_cache_bytes(cfg, 262_144) == q["full"] * per * 262_144
    state = q["vh"] * q["kd"] * q["vd"]  # one k x v matrix per value head
    conv = (2 * q["kh"] * q["kd"] + q["vh"] * q["vd"]) * q["kernel"]
    assert lc.linear_state_bytes(cfg) == q["linear"] * (state + conv) * 2
    assert lc.linear_state_bytes(cfg, batch=3, dtype="fp32") == 3 * q["linear"] * (state + conv) * 4
    # context length changes the KV cache, never the linear state
    assert lc.kv_cache_bytes(cfg, 2000) < lc.kv_cache_bytes(cfg, 4000)
    # a linear layer's per-token cost is fixed: 6 x heads x k x v
    a, b = (lc.flops_per_token(cfg, n, "decode").attention for n in (1000, 2000))
    assert b - a == q["full"] * 2 * 16 * 512 * 1000
    assert a == q["full"] * 2 * 16 * 512 * 1000 + q["linear"] * 6 * state
    assert lc.linear_state_bytes(lc.load_model("Meta-Llama-3-8B")) == 0


def test_qwen3_next_states_equal_what_transformers_caches():
    """Run a tiny Qwen3-Next on the CPU: the conv and recurrent states transformers keeps
    hold linear_state_bytes(fp32)/4 numbers, the K/V tensors kv_cache_bytes(fp32)/4."""
    d = {"model_type": "qwen3_next", "vocab_size": 64, "hidden_size": 32, "intermediate_size": 16,
         "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
         "head_dim": 8, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
         "linear_key_head_dim": 6, "linear_value_head_dim": 10, "linear_conv_kernel_dim": 3,
         "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
         "shared_expert_intermediate_size": 8, "full_attention_interval": 2}
    cfg = lc.from_hf_config(d)
    seq, batch = 7, 2
    _, cache = transformers_ref.tiny_prefill(d, seq, batch)
    states, kv = transformers_ref.cache_numbers(cache)
    assert states > 0 and kv > 0
    assert states == lc.linear_state_bytes(cfg, batch=batch, dtype="fp32") // 4
    assert kv == lc.kv_cache_bytes(cfg, seq, batch=batch, dtype="fp32") // 4


def test_glm_router_bias_is_a_buffer_not_a_parameter():
    ws = lc.weight_shapes(lc.load_model("GLM-4.5-Air"))
    bias = ws[ws["name"].str.endswith("mlp.gate.e_score_correction_bias")]
    # one per MoE layer (46 layers, the first dense); the MTP layer 46 has one too
    layers = bias[bias["layer"] >= 0]
    assert len(layers) == 46 - 1 and set(layers["note"]) == {"buffer"}
    assert list(bias[bias["layer"] < 0]["note"]) == ["mtp, not built by transformers"]


# --- the zoo, family by family -----------------------------------------------------------

def test_zoo_grouped_by_family():
    names = lc.list_models()
    grouped = lc.list_models(grouped=True)
    assert sorted(grouped) == sorted(names) and len(names) == 50
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


def test_a_default_padding_row_outside_a_small_vocab_is_refused_as_transformers_does():
    with pytest.raises(ValueError, match="^pad_token_id: must be below vocab_size=100"):
        lc.from_hf_config({"model_type": "phi3", "vocab_size": 100})  # default pad 32000


# --- multi-token prediction: shipped in the checkpoint, not built by transformers ----------

def _meta_total(cfg):
    return sum(p.numel() for p in transformers_ref.meta_model(cfg.to_hf_config()).parameters())


@pytest.mark.parametrize("name,moe_layer_at,extra", [
    # GLM: layer 46 is a whole MoE layer with its own embedding and head, enorm, hnorm,
    # shared_head.norm (3 x H) and eh_proj (H x 2H)
    ("GLM-4.5-Air", 2, lambda c: 2 * c.vocab_size * c.hidden_size + 2 * c.hidden_size ** 2
     + 3 * c.hidden_size),
    # Qwen3-Next: mtp.layers.0 is a full-attention MoE layer; mtp.fc (H x 2H) and three norms
    ("Qwen3-Next-80B-A3B", 4, lambda c: 2 * c.hidden_size ** 2 + 3 * c.hidden_size),
])
def test_mtp_weights_are_listed_not_counted(name, moe_layer_at, extra):
    cfg = lc.load_model(name)
    ws = lc.weight_shapes(cfg)
    mtp = ws[ws["note"] == "mtp, not built by transformers"]
    assert len(mtp) and (mtp["layer"] == -1).all()
    assert int(ws[ws["note"] == ""]["numel"].sum()) == lc.param_count(cfg).total
    # one more decoder layer of the right kind, as transformers builds it, plus the extras
    layer = (_meta_total(cfg.replace(num_hidden_layers=moe_layer_at))
             - _meta_total(cfg.replace(num_hidden_layers=moe_layer_at - 1)))
    params = mtp[~mtp["name"].str.endswith("e_score_correction_bias")]  # GLM's buffer
    assert int(params["numel"].sum()) == layer + extra(cfg)


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
