"""The GPT-style families (llmcourse/families/gpt_style.py) where a rule needs a word more than
the generic exactness checks give it: the caches transformers keeps otherwise than the engine
counts (and why the engine's is the one a serving engine keeps), the MPT fields transformers
does not read (refused), and the class-default totals written down from transformers 5.23's
meta-device builds (``AutoConfig.for_model(type)``)."""

import pytest

import llmcourse as lc

slow = pytest.mark.slow

# written down from AutoModelForCausalLM.from_config(AutoConfig.for_model(type)) on the meta
# device, transformers 5.23 (unique parameters: a tied head counted once)
CLASS_DEFAULT_TOTALS = {
    "openai-gpt": 116_534_784, "gpt_bigcode": 111_446_784, "gpt_neo": 1_315_575_808,
    "gptj": 6_050_882_784, "codegen": 6_050_882_784, "bloom": 16_156_544,
    "falcon": 6_921_720_704, "mpt": 1_311_213_568, "opt": 125_239_296, "xglm": 564_463_616,
    "biogpt": 346_763_264, "ctrl": 1_637_964_550, "gpt_neox_japanese": 2_598_837_760,
    "cpmant": 9_517_453_312}


@pytest.mark.parametrize("mt", sorted(CLASS_DEFAULT_TOTALS))
def test_class_defaults_total(mt):
    assert lc.param_count({"model_type": mt}).total == CLASS_DEFAULT_TOTALS[mt]


def test_falcon_variants_by_hand():
    """Falcon's fused q/k/v by variant, 4 heads of 8 (hidden 32): the old architecture with
    multi_query holds q and one K and V head (32 + 2 x 8 = 48 rows), without it all heads
    (96), the new architecture q and num_kv_heads=2 K and V heads (32 + 2 x 2 x 8 = 64)."""
    base = dict(model_type="falcon", hidden_size=32, num_hidden_layers=1,
                num_attention_heads=4, vocab_size=8)
    for extra, rows, kv in ((dict(multi_query=True), 48, 1), (dict(multi_query=False), 96, 4),
                            (dict(new_decoder_architecture=True, num_kv_heads=2), 64, 2)):
        cfg = lc.from_hf_config(dict(base, **extra))
        ws = lc.weight_shapes(cfg)
        qkv = ws.loc[ws["name"].str.endswith("query_key_value.weight"), "shape"].iloc[0]
        assert qkv == (rows, 32) and cfg.num_key_value_heads == kv
    # the new architecture's parallel block has a LayerNorm per branch; one with
    # num_ln_in_parallel_attn=1; the sequential block input and post-attention norms
    def names(**kw):
        return set(lc.weight_shapes(lc.from_hf_config(dict(base, **kw)))["name"])
    assert "transformer.h.0.ln_attn.weight" in names(new_decoder_architecture=True)
    assert "transformer.h.0.ln_attn.weight" not in names(new_decoder_architecture=True,
                                                          num_ln_in_parallel_attn=1)
    assert "transformer.h.0.post_attention_layernorm.bias" in names(parallel_attn=False)


@pytest.mark.parametrize("field,value", [("expansion_ratio", 6), ("no_bias", False)])
def test_mpt_fields_transformers_does_not_read_are_refused(field, value):
    """transformers' MPT is always 4 x d_model wide and biasless: a checkpoint that is not
    would not load into it, so the engine refuses it rather than count the build."""
    with pytest.raises(ValueError) as e:
        lc.from_hf_config({"model_type": "mpt", field: value})
    assert str(e.value).startswith(field) and "\n" not in str(e.value)
    for key, v in (("attn_type", "multiquery_attention"), ("qk_ln", True), ("kv_n_heads", 2)):
        with pytest.raises(ValueError) as e:
            lc.from_hf_config({"model_type": "mpt", "attn_config": {key: v}})
        assert str(e.value).startswith(f"attn_config.{key}")


def test_gpt_neox_japanese_bias_is_in_the_last_layer_only():
    cfg = lc.from_hf_config({"model_type": "gpt_neox_japanese", "num_hidden_layers": 3,
                             "hidden_size": 32, "num_attention_heads": 4, "vocab_size": 8})
    ws = lc.weight_shapes(cfg)
    bias = ws[ws["name"].str.endswith("dense_bias")]
    assert list(bias["name"]) == ["gpt_neox_japanese.layers.2.attention.dense_bias"]


# --- caches transformers keeps otherwise ------------------------------------------------------

@slow
def test_falcon_new_architecture_cache_as_a_serving_engine_keeps_it():
    """transformers' Falcon (new decoder architecture) broadcasts its num_kv_heads K and V
    heads to every query head before caching them; vLLM's Falcon caches the num_kv_heads
    heads, and so does the engine: transformers' cache is heads / num_kv_heads times it."""
    import transformers_ref
    d = dict(model_type="falcon", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             vocab_size=64, new_decoder_architecture=True, num_kv_heads=2)
    _, cache = transformers_ref.tiny_prefill(d, 7, 2)
    _, kv, _ = transformers_ref.cache_bytes(cache)
    ours = lc.kv_cache_bytes(lc.from_hf_config(d), 7, batch=2, dtype="fp32")
    # layers x (K, V) x KV heads x 8 wide x 7 tokens x 2 sequences x 4 bytes (fp32)
    assert ours == 2 * 2 * 2 * 8 * 7 * 2 * 4
    assert kv == ours * 4 // 2


@slow
def test_gpt_neo_local_layers_cache_their_window():
    """A GPT-Neo local layer attends to window_size keys; transformers' DynamicCache keeps every
    token in it anyway, the engine the window (what a windowed cache keeps)."""
    import transformers_ref
    d = dict(model_type="gpt_neo", hidden_size=32, num_layers=2, num_heads=4, vocab_size=64,
             attention_types=[[["global", "local"], 1]], window_size=4)
    _, cache = transformers_ref.tiny_prefill(d, 7, 2)
    _, kv, _ = transformers_ref.cache_bytes(cache)
    per_token = 2 * 32 * 4 * 2   # K and V, 4 heads of 8, fp32, 2 sequences
    assert kv == 2 * 7 * per_token
    assert lc.kv_cache_bytes(lc.from_hf_config(d), 7, batch=2, dtype="fp32") == (7 + 4) * per_token


@slow
def test_openai_gpt_keeps_no_cache_in_transformers():
    """transformers' GPT-1 recomputes every step (it returns no cache); the engine counts the
    K and V a caching runtime keeps, 2 x hidden per token per layer."""
    import transformers_ref
    d = dict(model_type="openai-gpt", n_embd=32, n_layer=2, n_head=4, vocab_size=64)
    import torch
    model = transformers_ref.causal_lm(transformers_ref.hf_config(d)).eval()
    with torch.no_grad():
        out = model(torch.randint(0, 64, (1, 5)))
    assert getattr(out, "past_key_values", None) is None
    assert lc.kv_cache_bytes(lc.from_hf_config(d), 5, dtype="fp32") == 2 * 2 * 32 * 5 * 4


@slow
def test_cpmant_cache_holds_its_prompt_tokens():
    """CPM-Ant prepends prompt_length prompt tokens to every input: after a prefill of 7
    tokens its cache holds 7 + prompt_length, which is kv_cache_bytes at that length (the
    engine counts tokens of the model's sequence). transformers' own incremental decoding
    prepends them again at each step and fails, so no decode step is compared."""
    import transformers_ref
    d = dict(model_type="cpmant", hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             dim_head=8, dim_ff=16, vocab_size=64, prompt_types=3, prompt_length=2,
             segment_types=3, position_bias_num_buckets=8)
    model, cache = transformers_ref.tiny_prefill(d, 7, 2)
    _, kv, _ = transformers_ref.cache_bytes(cache)
    cfg = lc.from_hf_config(d)
    assert kv == lc.kv_cache_bytes(cfg, 7 + 2, batch=2, dtype="fp32")
    assert lc.param_count(cfg).total == sum(p.numel() for p in model.parameters())


@slow
@pytest.mark.parametrize("layers", [3, 4, 13])
def test_gpt_neo_what_if_depth_builds_in_transformers(layers):
    """A copy of GPT-Neo-125M with another depth writes attention_types for it (GPTNeoConfig
    refuses a pattern that does not expand to one kind per layer), and counts as built."""
    import transformers_ref
    from config_files import fixture_json
    cfg = lc.from_hf_config(fixture_json("configs/gpt-neo-125M.json")).replace(
        num_hidden_layers=layers)
    built = transformers_ref.counts_as_built(cfg.to_hf_config())
    assert built.layer_types.count("full_attention") == (layers + 1) // 2
