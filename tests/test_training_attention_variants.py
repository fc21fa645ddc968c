"""What a layer saves when its attention differs from Llama's, against PyTorch on CPU:
Gemma 2's softcapping, Gemma's (1 + w) norms, Gemma 3's local rotary table and SDPA's
sliding-window mask, multi-query attention's view at micro-batch 1; in fp32, bf16 and under
autocast (with fp32 weights, and with bf16 weights: the Trainer's pure bf16).

``llmcourse/data/saved_activations_attention.json``
(``measurements/saved_activations_attention.py``): every stored row equals the engine to the
byte, and one small case per mechanism is re-measured now."""

import pytest

import llmcourse as lc
from llmcourse.training import activation_accuracy, layer_activation_bytes, training_memory

from stored_rows import engine_for, ids  # noqa: E402  (also puts the repository root on sys.path)
from measurements import saved_activations_attention as A  # noqa: E402
from measurements.common import ATTENTION, read_json  # noqa: E402
from measurements.saved_activations import measure  # noqa: E402

DATA = read_json(A.OUT)
ROWS = DATA["rows"]
engine = engine_for(DATA)


def test_the_stored_rows_are_the_script_s():
    assert DATA["models"] == A.MODELS and not DATA["skipped"]
    assert {r["model"] for r in ROWS} == set(A.MODELS)
    assert {r["dtype"] for r in ROWS} == {"fp32", "bf16", "amp", "bf16+autocast"}
    assert DATA["engine_precision"] == A.ENGINE_PRECISION
    # Gemma 2 trains with eager attention only (transformers refuses SDPA for it)
    assert {r["attn_implementation"] for r in ROWS if r["model"].startswith("gemma2")} == {"eager"}


@pytest.mark.parametrize("row", ROWS, ids=ids(ROWS))
def test_saved_bytes_equal_the_measurement(row):
    cfg, m = engine(row)
    assert m.saved_for_backward == row["saved_bytes"]
    # and layer by layer: the first layer of each kind also saves the rotary table it is the
    # first to use (the engine counts the tables once, outside the layers); under autocast
    # with fp32 weights each layer also saves its weights' bf16 copies, which the engine
    # counts apart (amp_weight_copies)
    if row["dtype"] == "amp":
        return
    per_kind = layer_activation_bytes(cfg, row["seq_len"], row["batch"],
                                      DATA["engine_precision"][row["dtype"]],
                                      DATA["engine_attention"][row["attn_implementation"]])
    order = list(cfg.layer_schedule.counts())
    kinds = [cfg.layer_schedule.kind_at(i) for i in range(len(row["layers"]))]
    engine_layers = [per_kind[order.index(k)][2] for k in kinds]
    firsts = {kinds.index(k) for k in set(kinds)}
    assert [e for i, e in enumerate(engine_layers) if i not in firsts] == \
        [x for i, x in enumerate(row["layers"]) if i not in firsts]
    assert sum(row["layers"]) - sum(engine_layers) == m.activation_terms["rotary_tables"]


def _gemma2(s, b, precision="fp32"):
    cfg = lc.from_hf_config(A.MODELS["gemma2 (softcapping, GQA 4:2, window 20)"])
    return cfg, training_memory(cfg, s, b, precision=precision, attention="eager")


def test_gemma2_softcapping_keeps_its_tanh_outputs():
    cfg, m = _gemma2(40, 2)
    t = m.activation_terms
    # per layer and token: heads x s for the scores' tanh; per logit: one value
    assert t["attention_softcap"] == cfg.num_hidden_layers * 4 * 40 * 4 * 40 * 2
    assert t["final_softcap"] == 4 * cfg.vocab_size * 40 * 2
    # a FlashAttention kernel softcaps inside: no s x s tanh output
    flash = training_memory(cfg, 40, 2, precision="fp32").activation_terms
    assert "attention_softcap" not in flash and "final_softcap" in flash


def test_gemma_norms_keep_one_fp32_one_plus_w_per_call():
    cfg = lc.from_hf_config(A.MODELS["gemma2 (softcapping, GQA 4:2, window 20)"])
    h = cfg.hidden_size
    one, two = (training_memory(cfg, 40, b, precision="bf16-mixed", attention="eager")
                .activation_terms["norms"] for b in (1, 2))
    # four norms a layer, each: fp32 input 4h + rstd 4 + fp32 normalized 4h per token, and
    # the fp32 (1 + w) once a call (it does not grow with the tokens)
    per_token = cfg.num_hidden_layers * 4 * (4 * h + 4 + 4 * h)
    assert one == per_token * 40 + cfg.num_hidden_layers * 4 * 4 * h
    assert two - one == per_token * 40


def test_gemma3_keeps_a_local_rotary_table_beside_the_global_one():
    cfg = lc.from_hf_config(A.MODELS["gemma3_text (local + global rotary, GQA 4:2, window 20)"])
    m = training_memory(cfg, 40, 1, precision="bf16-mixed")
    assert m.activation_terms["rotary_tables"] == 2 * (2 * 2 * 40 * cfg.head_dim)
    # gemma-3-1b-it: both tables of 256 wide
    real = training_memory("gemma-3-1b-it", 8192, 1)
    assert real.activation_terms["rotary_tables"] == 2 * 2 * 2 * 8192 * 256


def test_gemma3_sdpa_keeps_the_sliding_mask_once_the_sequence_reaches_the_window():
    cfg = lc.from_hf_config(A.MODELS["gemma3_text (local + global rotary, GQA 4:2, window 20)"])
    short = training_memory(cfg, 19, 1, precision="bf16-mixed").activation_terms
    at = training_memory(cfg, 20, 1, precision="bf16-mixed").activation_terms
    assert "sliding_window_mask" not in short
    # two sliding layers, s x s per sequence in bf16
    assert at["sliding_window_mask"] == 2 * 2 * 20 * 20


def test_mqa_at_micro_batch_1_keeps_k_and_v_at_their_one_head_in_eager():
    """The reviewer's finding: with one KV head and one sequence, eager attention's matmuls
    keep views of the KV head; 768 B per token and layer at 4 heads of 64 in bf16."""
    base = lc.load_model("Llama-3.1-8B")
    mqa = base.replace(num_attention_heads=4, num_key_value_heads=1, hidden_size=256)
    d = mqa.head_dim
    b1, b2 = (training_memory(mqa, 64, b, attention="eager").activation_terms["qkv"] // b
              for b in (1, 2))
    layers = mqa.num_hidden_layers
    assert b2 - b1 == layers * 64 * 2 * 2 * (4 - 1) * d      # k and v at 4 heads, not 1
    assert (b2 - b1) // (layers * 64) == 768
    # two KV heads: copies at every head, one sequence or two
    gqa = mqa.replace(num_key_value_heads=2)
    c1, c2 = (training_memory(gqa, 64, b, attention="eager").activation_terms["qkv"] // b
              for b in (1, 2))
    assert c1 == c2


def test_the_train_3_case_with_one_kv_head_is_15872_bytes_lower_now():
    """Exercise train-3's sixth case (Llama-3.1-8B with one KV head, intermediate 11008,
    eager, bf16, 4,096 tokens, micro-batch 1): the engine's reference now keeps k and v at
    the one head, 2 x 2 x 31 x 128 B per token less than the repeated count."""
    cfg = lc.load_model("Llama-3.1-8B").replace(num_key_value_heads=1, intermediate_size=11008)
    one = layer_activation_bytes(cfg, 4096, attention="eager")[0][2] // 4096
    two = layer_activation_bytes(cfg, 4096, 2, attention="eager")[0][2] // (2 * 4096)
    assert two - one == 2 * 2 * 31 * 128 == 15872


def test_activation_accuracy_now_vouches_for_gemma_2_and_3():
    for name in ("gemma-2-2b", "gemma-3-1b-it"):
        assert activation_accuracy(name).startswith("measured: equal to PyTorch's saved bytes")


# Re-measured now, one case per mechanism: transformers or PyTorch changing what they save
# fails here before the stored table goes stale.
NOW = [("gemma2 (MQA 3:1", "eager", "bf16", 1, 24),      # softcapping, MQA view, sliding
       ("gemma3_text (local", "sdpa", "bf16", 2, 21),    # local rotary, mask, k/v copies
       ("gemma3_text (MQA", "eager", "amp", 1, 30),      # autocast: the cast k is a copy
       ("llama (MQA", "eager", "bf16+autocast", 1, 33)]  # the Trainer's pure bf16, MQA view


@pytest.mark.slow
@pytest.mark.parametrize("key, impl, dtype, batch, seq_len", NOW)
def test_remeasure_now(key, impl, dtype, batch, seq_len):
    name = next(n for n in A.MODELS if n.startswith(key))
    config = A.MODELS[name]
    r = measure(config, batch, seq_len, impl, dtype)
    m = training_memory(lc.from_hf_config(config), seq_len, batch,
                        precision=A.ENGINE_PRECISION[dtype], attention=ATTENTION[impl])
    assert m.saved_for_backward == r["saved_bytes"]
