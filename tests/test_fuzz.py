"""Whatever a reader types: an answer quickly, or a one-line ValueError naming a field.

Every zoo config is mutated (fields replaced, deleted or added, with arbitrary JSON
values of any type, magnitude and nesting) and fed to every public function that
takes a config. Each call must return, or raise a ``ValueError`` whose one-line
message names a field, within a time bound enforced here (a hang detector: a
SIGALRM, not a benchmark). Then the cases a curious reader found, one by one.
"""

import json
import math
import os
import signal
import time
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmcourse as lc
from test_config import one_line_error
from llmcourse import families, validation
from llmcourse.limits import MAX_LIST, MAX_SIZE, MAX_WEIGHT_ROWS, field_name

ZOO = {n: lc.load_model(n).to_hf_config() for n in lc.list_models()}
# every field name the engine knows, plus every field a zoo config has
KNOWN = (set().union(*ZOO.values())
         | set(validation.POSITIVE) | set(validation.NON_NEGATIVE)
         | set(validation.BOOLEAN) | set(validation.NUMBER) | set(validation.STRING)
         | set(validation.OBJECT) | set(validation.REQUIRED)
         | {f for entry in families.ENTRIES.values()
            for f in (*entry.defaults, *entry.required, *entry.positive, *entry.non_negative)})
FIELDS = sorted(KNOWN)
# the functions' own arguments (a refusal may name one: "weights: ... more than the GPU holds")
ARGUMENTS = {"seq_len", "batch", "dtype", "mode", "name", "source", "config", "weights", "gpu",
             "n_gpus", "kv_dtype", "utilization", "scheme", "base_dtype", "micro_batch",
             "precision", "optimizer", "recompute", "zero_stage", "dp", "tp", "attention",
             "tokens", "compute_dtype", "pp", "pp_schedule", "num_micro_batches"}

HANG_SECONDS = 2        # any call: far above what any answer takes (microseconds to ms)
LISTING_SECONDS = 6     # weight_shapes builds a DataFrame of up to MAX_WEIGHT_ROWS rows


@contextmanager
def hang_detector(seconds, what):
    def alarm(signum, frame):
        raise TimeoutError(f"{what} took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _nested(depth):
    v = 1
    for i in range(depth):
        v = [v] if i % 2 else {"x": v}
    return v


# JSON values of any type and magnitude, nested
SIZES = st.sampled_from([0, 1, 2, 3, 7, 8, 64, 128, 4096, 10**9, MAX_SIZE, MAX_SIZE + 1,
                         2**31, 2**40, 2**63, 10**30, -1, -(10**18), 10**400])
SCALARS = (st.none() | st.booleans() | st.integers() | SIZES
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
           | st.sampled_from(["llama", "full_attention", "sliding_attention", "moe", ""]))
JSON = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=6)
                    | st.dictionaries(st.text(max_size=8) | st.sampled_from(FIELDS), kids,
                                      max_size=6), max_leaves=12)
VALUES = (JSON | st.integers(0, 200).map(_nested)
          | st.tuples(st.sampled_from(["full_attention", "sliding_attention", 3]),
                      st.sampled_from([1, 2, 40, 3000])).map(lambda p: [p[0]] * p[1]))


@st.composite
def mutated(draw):
    """(zoo name, mutated config dict, the changes) for 1 to 4 random mutations."""
    name = draw(st.sampled_from(sorted(ZOO)))
    d = json.loads(json.dumps(ZOO[name]))
    changes = {}
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if op == "delete" and d:
            d.pop(draw(st.sampled_from(sorted(d))), None)
            continue
        field = draw(st.sampled_from(FIELDS)) if op == "replace" else draw(
            st.text(min_size=1, max_size=10) | st.sampled_from(FIELDS))
        d[field] = changes[field] = draw(VALUES)
    return name, d, changes


def check_message(err, d, source=None):
    msg = str(err)
    assert "\n" not in msg and len(msg) < 600, msg
    if source and msg.startswith(source + ": "):  # the text itself is refused (size, JSON)
        msg = msg[len(source) + 2:]
        if not any(msg.startswith(k + ":") for k in KNOWN | set(d)):
            return
    head = msg
    fields = {k for k in KNOWN | set(d) | ARGUMENTS if k}
    fields |= {field_name(k) for k in d}  # a key that is not a plain name is shown quoted
    assert any(head.startswith(k) and head[len(k):][:1] in (":", ".", "[", " ")
               for k in fields), f"no field named in {msg!r}"


def call(what, fn, d, seconds=HANG_SECONDS, source=None):
    try:
        with hang_detector(seconds, what):
            fn()
    except ValueError as e:
        check_message(e, d, source)


def _lora(d, recompute):
    """A LoRA step on the attention projections; a family whose projections have other
    names (or a routed-expert model) is told so by target_modules, which is not a config
    field: that refusal is the argument's, not the config's."""
    try:
        return lc.lora_memory(d, 2048, target_modules="attention", recompute=recompute)
    except ValueError as e:
        if not str(e).startswith(("target_modules:", "recompute:")):
            raise


# every public function that takes a config
CALLS = [
    ("from_hf_config", lambda d: lc.from_hf_config(d)),
    ("config_from_json", lambda d: lc.config_from_json(json.dumps(d))),
    ("param_count", lambda d: lc.param_count(d).active),
    ("weight_bytes", lambda d: lc.weight_bytes(d, "bf16", experts_dtype="mxfp4")),
    ("kv_cache_bytes", lambda d: lc.kv_cache_bytes(d, 131_072, batch=8)),
    ("kv_cache_bytes_per_token_per_layer", lambda d: lc.kv_cache_bytes_per_token_per_layer(d)),
    ("flops_per_token", lambda d: (lc.flops_per_token(d, 4096),
                                   lc.flops_per_token(d, 4096, mode="decode"))),
    ("as_moe", lambda d: lc.as_moe(d, 8, 2)),
    ("layer_types", lambda d: (lc.from_hf_config(d).layer_types.count("full_attention"),
                               repr(lc.from_hf_config(d).layer_schedule))),
    # will it fit, how fast (lessons 9 and 10)
    ("stored_weights", lambda d: (lc.stored_weights(d), lc.stored_weights(d, "int4-g128"))),
    ("memory_plan", lambda d: lc.memory_plan(d, "H100 SXM 80GB", seq_len=32_768, batch=4)),
    ("max_context", lambda d: lc.max_context(d, "H100 SXM 80GB", n_gpus=8)),
    ("max_batch", lambda d: lc.max_batch(d, "H100 SXM 80GB", seq_len=8192)),
    ("decode_step_time", lambda d: lc.decode_step_time(d, "H100 SXM 80GB", batch=8)),
    ("prefill_time", lambda d: lc.prefill_time(d, "H100 SXM 80GB")),
    # what training costs (lessons 11 and 12)
    ("training_memory", lambda d: lc.training_memory(d, 4096, micro_batch=2, zero_stage=3,
                                                     dp=8)),
    ("training_memory pipeline", lambda d: lc.training_memory(d, 4096, pp=2, zero_stage=1, dp=2,
                                                              num_micro_batches=4)),
    ("training_flops", lambda d: lc.training_flops(d, 10**12, 4096)),
    ("chinchilla_tokens", lambda d: lc.chinchilla_tokens(d)),
    ("lora_memory", lambda d: [_lora(d, rc) for rc in ("none", "selective", "full")]),
]


def _json_safe(d):
    try:
        json.dumps(d)
        return True
    except ValueError:  # an int of more than 4,300 digits cannot be written as JSON
        return False


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 2000)), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(mutated())
def test_every_function_answers_or_names_a_field(case):
    name, d, changes = case
    for what, fn in CALLS:
        if what == "config_from_json" and not _json_safe(d):
            continue
        call(what, lambda: fn(d), d, source="config" if what == "config_from_json" else None)
    base = lc.load_model(name)
    call("replace", lambda: base.replace(**changes), {**ZOO[name], **changes})


@settings(max_examples=int(os.environ.get("FUZZ_LISTING_EXAMPLES", 200)), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(mutated())
def test_weight_shapes_answers_or_names_a_field(case):
    _, d, _ = case
    call("weight_shapes", lambda: lc.weight_shapes(d), d, LISTING_SECONDS)


def _null_paths(d):
    """Every field of a config (and of its text_config), and the engine's own fields a
    config may leave out, as paths to set to null one at a time."""
    for field in sorted(set(d) | KNOWN):
        yield (field,)
    for field in sorted((d.get("text_config") or {})):
        yield ("text_config", field)


# every field of every model in a full run; make test-fast sets FUZZ_NULL_EVERY=8 and takes
# every 8th field, starting at a different one for each model
NULL_EVERY = int(os.environ.get("FUZZ_NULL_EVERY", 1))


@pytest.mark.parametrize("name", sorted(ZOO))
def test_a_null_field_answers_or_names_it(name):
    """null is what a reader gets from a config written by a tool that leaves a value unset
    (a null num_experts_per_tok, or max_window_layers with use_sliding_window, once crashed);
    for every field of the model's config, set to null one at a time, every function
    answers or says, in one line, which field cannot be null."""
    start = sorted(ZOO).index(name) % NULL_EVERY
    for path in list(_null_paths(ZOO[name]))[start::NULL_EVERY]:
        d = json.loads(json.dumps(ZOO[name]))
        (d if len(path) == 1 else d.setdefault("text_config", {}))[path[-1]] = None
        for what, fn in CALLS:
            try:
                call(what, lambda: fn(d), d,
                     source="config" if what == "config_from_json" else None)
            except Exception as e:   # name the null that did it
                raise AssertionError(f"{name} with {'.'.join(path)} null: {what} raised "
                                     f"{type(e).__name__}: {e}") from e


def test_null_expert_fields_are_named():
    """Two nulls that once crashed the engine, refused by name."""
    mixtral = lc.load_model("Mixtral-8x7B-v0.1").to_hf_config()
    msg = one_line_error(lc.from_hf_config, {**mixtral, "num_experts_per_tok": None})
    assert msg.startswith("num_experts_per_tok:")
    msg = one_line_error(lc.from_hf_config, {**mixtral, "num_local_experts": None})
    assert msg.startswith("num_local_experts:")
    nxt = lc.load_model("Qwen3-Next-80B-A3B").to_hf_config()
    # transformers' Qwen3-Next has no sliding window: the flag and a null max_window_layers
    # change nothing
    odd = lc.from_hf_config({**nxt, "use_sliding_window": True, "max_window_layers": None})
    assert lc.param_count(odd).total == lc.param_count(nxt).total
    assert lc.kv_cache_bytes(odd, 65536) == lc.kv_cache_bytes(nxt, 65536)


# --- the cases a curious reader found ---------------------------------------------------

L8 = lc.load_model("Meta-Llama-3-8B")




def test_a_billion_layers_is_arithmetic():
    """Counts at 10^9 layers equal the per-layer count times 10^9, by hand."""
    n = 10**9
    with hang_detector(HANG_SECONDS, "a billion layers"):
        big = L8.replace(num_hidden_layers=n)
        pc = lc.param_count(big)
        kv = lc.kv_cache_bytes(big, 8192)
        flops = lc.flops_per_token(big, 8192, mode="decode")
    d, kvh, hd, inter, V = 4096, 8, 128, 14336, 128256
    layer = d * 32 * hd * 2 + d * kvh * hd * 2 + 3 * d * inter + 2 * d
    assert pc.total == n * layer + 2 * V * d + d
    assert kv == 2 * n * kvh * hd * 2 * 8192
    assert flops.matmul == 2 * (n * (layer - 2 * d) + V * d)
    assert flops.attention == n * 2 * 32 * (hd + hd) * 8192


def test_a_billion_layers_with_patterns():
    """Sliding/full alternation and dense-first MoE stay exact at any depth."""
    n = 10**9 + 1
    g = lc.load_model("gemma-2-2b").replace(num_hidden_layers=n)
    assert g.layer_types.count("sliding_attention") == n // 2 + 1
    assert g.layer_types.count("full_attention") == n // 2
    assert g.layer_types[0] == "sliding_attention" and g.layer_types[-1] == "sliding_attention"
    per = 2 * 4 * 256 * 2
    assert lc.kv_cache_bytes(g, 10_000) == per * ((n // 2 + 1) * 4096 + n // 2 * 10_000)
    ds = lc.load_model("DeepSeek-V3")
    deep = ds.replace(num_hidden_layers=n)
    one = lc.param_count(ds.replace(num_hidden_layers=4)).total  # 3 dense + 1 MoE layer
    two = lc.param_count(ds.replace(num_hidden_layers=5)).total  # one more MoE layer
    assert lc.param_count(deep).total == one + (n - 4) * (two - one)
    assert str(deep.layer_schedule).startswith("LayerSchedule(1,000,000,001 layers")


@pytest.mark.parametrize("value", [2**40, 10**30, 10**5000], ids=["2^40", "10^30", "10^5000"])
@pytest.mark.parametrize("field", ["num_hidden_layers", "hidden_size", "vocab_size",
                                   "num_attention_heads", "intermediate_size"])
def test_huge_numbers_are_refused_in_one_line(field, value):
    with hang_detector(HANG_SECONDS, f"{field}={value:.3g}" if value < 10**300 else field):
        msg = one_line_error(L8.replace, **{field: value})
    assert msg.startswith(field)
    assert f"{MAX_SIZE:,}" in msg or "digits" in msg


def test_the_size_bound_itself_is_allowed():
    assert lc.param_count(L8.replace(num_hidden_layers=MAX_SIZE)).total > 0
    assert lc.param_count(lc.as_moe(L8, 10**6, 8)).total > 0  # a million experts


@pytest.mark.parametrize("value,what", [(["llama"], "list"), ({"type": "llama"}, "dict"),
                                        (3, "int"), (True, "bool")])
def test_model_type_that_is_not_a_string(value, what):
    msg = one_line_error(lc.from_hf_config, {**L8.to_hf_config(), "model_type": value})
    assert msg.startswith("model_type") and "string" in msg


@pytest.mark.parametrize("value", [[], "gemma3_text", 3, ["a"]])
def test_text_config_must_be_an_object(value):
    msg = one_line_error(lc.from_hf_config, {**L8.to_hf_config(), "text_config": value})
    assert msg.startswith("text_config") and "object" in msg
    assert lc.from_hf_config({**L8.to_hf_config(), "text_config": {"a": 1}}).hidden_size == 4096


def test_deep_nesting_in_a_dict_and_a_file(tmp_path):
    deep = _nested(100_000)
    msg = one_line_error(lc.from_hf_config, {**L8.to_hf_config(), "rope_scaling": deep})
    assert msg.startswith("rope_scaling") and "nested deeper" in msg
    path = tmp_path / "deep.json"
    path.write_text('{"model_type": "llama", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    msg = one_line_error(lc.from_hf_config, path)
    assert "deep.json" in msg and "nested deeper" in msg


def test_a_million_layer_types():
    d = {**L8.to_hf_config(), "num_hidden_layers": 10**6,
         "layer_types": ["full_attention"] * 10**6}
    with hang_detector(HANG_SECONDS, "a million layer_types"):
        msg = one_line_error(lc.from_hf_config, d)
    assert msg.startswith("layer_types") and f"{MAX_LIST:,}" in msg
    oss = lc.load_model("gpt-oss-20b")  # lists layer_types: deeper than the bound is refused
    msg = one_line_error(oss.replace, num_hidden_layers=10**9)
    assert msg.startswith("num_hidden_layers") and "layer_types" in msg
    # without the explicit list, the family's own alternation has no bound
    free = oss.replace(num_hidden_layers=10**9, layer_types=None)
    assert free.layer_types.count("sliding_attention") == 5 * 10**8


def test_listing_a_billion_layers_is_refused_but_counting_is_not():
    big = L8.replace(num_hidden_layers=10**9)
    assert len(big.layer_types) == 10**9 and "full_attention" in big.layer_types
    for listing in (lambda: list(big.layer_types), lambda: lc.weight_shapes(big),
                    lambda: tuple(lc.architectures.layer_groups(big)[0].indices)):
        msg = one_line_error(listing)
        assert msg.startswith("num_hidden_layers")
    assert f"{MAX_WEIGHT_ROWS:,}" in one_line_error(lc.weight_shapes, big)


def test_utf8_bom_is_accepted(tmp_path):
    """A config saved by a Windows editor: transformers reads it, so do we."""
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(L8.to_hf_config()).encode())
    assert lc.from_hf_config(path) == L8
    assert lc.config_from_json("\ufeff" + json.dumps(L8.to_hf_config())) == L8


def test_files_picked_by_mistake(tmp_path):
    st_file = tmp_path / "model.safetensors"
    header = json.dumps({"x": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}).encode()
    st_file.write_bytes(len(header).to_bytes(8, "little") + header + b"\x00\x01\xff\xfe")
    assert "safetensors" in one_line_error(lc.from_hf_config, st_file)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (5 * 2**20) + b"{}")
    assert "too large" in one_line_error(lc.from_hf_config, big)
    latin = tmp_path / "latin1.json"
    latin.write_bytes('{"model_type": "llama", "name": "caf\xe9"}'.encode("latin-1"))
    assert "not UTF-8" in one_line_error(lc.from_hf_config, latin)
    folder = tmp_path / "weights_only"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"\x00" * 16)
    assert "without a config.json" in one_line_error(lc.from_hf_config, folder)
    assert "empty" in one_line_error(lc.config_from_json, "  ")
    assert "GGUF" in one_line_error(lc.config_from_json, b"GGUF\x03\x00\x00\x00")


def test_non_json_values_in_a_dict():
    msg = one_line_error(lc.from_hf_config, {**L8.to_hf_config(), "rope_scaling": {"f": {1, 2}}})
    assert msg.startswith("rope_scaling.f") and "set" in msg
    msg = one_line_error(lc.from_hf_config, {**L8.to_hf_config(), "hidden_size": math.nan})
    assert msg.startswith("hidden_size")


def test_one_expert_is_singular():
    msg = one_line_error(lc.load_model("Mixtral-8x7B-v0.1").replace, num_local_experts=1)
    assert "the 1 expert (" in msg


def test_error_values_are_shown_short():
    msg = one_line_error(L8.replace, num_hidden_layers=list(range(10**5)))
    assert len(msg) < 200 and "100,000 entries" in msg


def test_answers_are_fast_at_any_depth():
    """Not a benchmark: a billion layers must cost what 32 cost, give or take noise."""
    def timed(cfg):
        t = time.perf_counter()
        for _ in range(20):
            lc.param_count(cfg.replace(vocab_size=cfg.vocab_size))
            lc.flops_per_token(cfg, 4096)
        return time.perf_counter() - t
    for name in ("Meta-Llama-3-8B", "DeepSeek-V3", "Qwen3-30B-A3B"):
        cfg = lc.load_model(name)
        deep = cfg.replace(num_hidden_layers=10**9) if name != "Qwen3-30B-A3B" else \
            cfg.replace(num_hidden_layers=10**9, decoder_sparse_step=3, mlp_only_layers=[0, 7])
        assert timed(deep) < 10 * timed(cfg) + 0.05


def test_a_multimodal_wrappers_own_fields_are_checked():
    """The wrapper's quantization_config and dtype are read outside its text_config
    (stored_weights reads them): a wrong type is named, not an AttributeError."""
    d = lc.load_model("Qwen3.5-0.8B-Base").to_hf_config()
    for field, value in (("quantization_config", 3), ("torch_dtype", 16)):
        assert one_line_error(lc.stored_weights, {**d, field: value}).startswith(field + ":")
