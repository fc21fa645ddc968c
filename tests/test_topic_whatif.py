"""The what-if lab (lesson 8): its rows are the engine's numbers for the edited config,
bad settings and bad files show one-line messages, saved configs read back (and build
in transformers), the figure is labelled, the exercises check answers."""

import time
import json
import os

import pytest

import llmcourse as lc
from llmcourse.compare import SUMMARY_KEYS, compare_configs, config_diff, size_summary
from llmcourse.widgets.base import EXPLORERS, Row
from llmcourse.widgets.whatif import CompareRow, diff_text, edited_config, whatif_lab

SEQ, BATCH = 8192, 1


def engine_summary(cfg, seq_len=SEQ, batch=BATCH):
    """The expected rows, straight from the public engine calls."""
    pc = lc.param_count(cfg)
    return {
        "total_params": pc.total, "active_params": pc.active, "embedding_params": pc.embedding,
        "weights_bf16": lc.weight_bytes(cfg, "bf16"), "weights_fp8": lc.weight_bytes(cfg, "fp8"),
        "weights_int4": lc.weight_bytes(cfg, "int4"),
        "weights_int4_g128": lc.stored_weights(cfg, "int4-g128").total,
        "kv_cache_bytes": lc.kv_cache_bytes(cfg, seq_len, batch, "bf16"),
        "flops_prefill": lc.flops_per_token(cfg, seq_len, "prefill").total,
        "flops_decode": lc.flops_per_token(cfg, seq_len, "decode").total,
    }


def rows_of(lab):
    return {r.key: r.value for r in lab.rows}


def originals_of(lab):
    return {r.key: r.original for r in lab.rows}


@pytest.fixture
def lab():
    return whatif_lab()


# --- the pure parts -------------------------------------------------------------------

def test_size_summary_is_the_engine(zoo_name):
    cfg = lc.load_model(zoo_name)
    assert size_summary(cfg, SEQ, BATCH) == engine_summary(cfg)


def test_compare_configs_table():
    a = lc.load_model("Qwen3-8B")
    b = a.replace(num_key_value_heads=2)
    df = compare_configs(a, b, seq_len=131072, batch=8, formatted=False)
    assert list(df["original"]) == [engine_summary(a, 131072, 8)[k] for k in SUMMARY_KEYS]
    assert list(df["edited"]) == [engine_summary(b, 131072, 8)[k] for k in SUMMARY_KEYS]
    assert df.loc["KV cache in bf16", "change %"] == -75.0
    text = compare_configs(a, b, seq_len=131072, batch=8)
    assert text.loc["total parameters", "original"] == f"{lc.param_count(a).total:,} (8.19B)"
    assert text.loc["weights in bf16", "edited"] == f"{lc.weight_bytes(b):,} B (14.83 GiB)"


def test_config_diff_lists_changed_fields():
    a = lc.load_model("Meta-Llama-3-8B")
    b = lc.as_moe(a.replace(num_key_value_heads=4), 64, 2)
    assert config_diff(a, b) == [("model_type", "llama", "mixtral"),
                                 ("num_experts_per_tok", None, 2),
                                 ("num_key_value_heads", 8, 4),
                                 ("num_local_experts", None, 64)]
    assert config_diff(a, a) == []


@pytest.mark.parametrize("name", [m for m in lc.list_models() if lc.load_model(m).is_multimodal])
def test_a_wrapper_says_what_its_figures_hold(name):
    """The lab's note for a multimodal model: the towers are in its total, and how big."""
    from llmcourse.widgets.whatif import towers_note
    cfg = lc.load_model(name)
    comp = lc.param_count(cfg).components
    note = towers_note(cfg)
    assert "text_config" in note and f"vision {comp['vision'] / 1e9:,.2f}B" in note, note
    assert lc.param_count(cfg).total - lc.param_count(cfg.text_model).total == \
        comp["vision"] + comp["audio"]
    lab = whatif_lab(name)
    assert note in lab.changes.value.replace("&#x27;", "'")
    assert towers_note(lc.load_model("Qwen3-8B")) == ""


@pytest.mark.parametrize("name", [m for m in lc.list_models() if lc.load_model(m).is_multimodal])
def test_a_wrapper_edit_is_diffed_field_by_field(name):
    """One edit of a multimodal wrapper changes one field of its text_config: the diff
    and the lab's line name that field, not the whole text_config before and after."""
    cfg = lc.load_model(name)
    n = cfg.num_hidden_layers
    edited = cfg.replace(num_hidden_layers=n - 1)
    changed = dict((k, (a, b)) for k, a, b in config_diff(cfg, edited))
    assert changed.pop("text_config.num_hidden_layers") == (n, n - 1), changed
    assert all(k.startswith("text_config.") for k in changed), changed   # its per-layer lists
    text = diff_text(cfg, edited)
    assert f"text_config.num_hidden_layers: {n} → {n - 1}" in text and len(text) < 300, text


def test_unchanged_fields_are_not_written():
    """An unset head_dim keeps following hidden_size / num_attention_heads."""
    base = lc.load_model("Meta-Llama-3-8B")
    values = {"hidden_size": 2048, "head_dim": base.head_dim}
    cfg = edited_config(base, values)
    assert cfg == base.replace(hidden_size=2048)
    assert cfg.head_dim == 64 and "head_dim" not in cfg.to_hf_config()


# --- the lab ------------------------------------------------------------------------------

def test_registered_and_starts_unchanged(lab):
    assert isinstance(EXPLORERS["whatif"](), type(lab))
    assert lab.error == "" and lab.base == lc.load_model("Meta-Llama-3-8B")
    assert [r.key for r in lab.rows] == list(SUMMARY_KEYS)
    assert all(isinstance(r, Row) and isinstance(r, CompareRow) for r in lab.rows)
    expected = engine_summary(lab.base)
    assert rows_of(lab) == expected == originals_of(lab)
    assert "lc-explorer-whatif" in lab.widget._dom_classes
    assert len(lab.image.value) > 1000


def test_llama_with_4_kv_heads_and_64_experts(lab):
    lab.set(num_key_value_heads=4, num_experts=64, num_experts_per_tok=2)
    assert lab.error == ""
    want = lc.as_moe(lc.load_model("Meta-Llama-3-8B").replace(num_key_value_heads=4), 64, 2)
    assert lab.edited == want
    assert rows_of(lab) == engine_summary(want)
    assert originals_of(lab) == engine_summary(lc.load_model("Meta-Llama-3-8B"))
    html = lab.summary.value
    for key, value in rows_of(lab).items():
        assert f"data-key='{key}' data-value='{value}'" in html
    assert "block_sparse_moe.experts.{e}.w1" in lab.shapes.value
    assert "512 × 4,096" in lab.shapes.value  # k_proj with 4 KV heads of 128
    assert "num_local_experts" in lab.changes.value


def test_context_and_batch_move_kv_and_flops(lab):
    lab.set(model="Qwen3-8B")
    lab.set(seq_len=131072, batch=8, num_key_value_heads=2)
    want = lc.load_model("Qwen3-8B").replace(num_key_value_heads=2)
    assert rows_of(lab) == engine_summary(want, 131072, 8)
    assert originals_of(lab) == engine_summary(lc.load_model("Qwen3-8B"), 131072, 8)


def test_every_field_edit_matches_replace():
    lab = whatif_lab("Qwen3-30B-A3B")
    base = lab.base
    edits = dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                 num_key_value_heads=2, head_dim=64, vocab_size=32000, num_experts=64,
                 num_experts_per_tok=4, moe_intermediate_size=512, tie_word_embeddings=True)
    lab.set(**edits)
    assert lab.error == ""
    want = base.replace(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                        num_key_value_heads=2, head_dim=64, vocab_size=32000, num_experts=64,
                        num_experts_per_tok=4, moe_intermediate_size=512,
                        tie_word_embeddings=True)
    assert lab.edited == want
    assert rows_of(lab) == engine_summary(want)


def test_deepseek_fields(lab):
    lab.set(model="DeepSeek-V3")
    c = lab.controls
    assert c["num_experts"].description == "n_routed_experts"
    assert c["num_key_value_heads"].layout.display == "none"  # MLA: no KV heads to edit
    for f in ("kv_lora_rank", "n_shared_experts", "first_k_dense_replace",
              "moe_intermediate_size"):
        assert c[f].layout.display != "none" and c[f].value == lab.base.get(f)
    lab.set(kv_lora_rank=256, n_shared_experts=2, first_k_dense_replace=0)
    want = lc.load_model("DeepSeek-V3").replace(kv_lora_rank=256, n_shared_experts=2,
                                                first_k_dense_replace=0)
    assert rows_of(lab) == engine_summary(want)
    lab.set(first_k_dense_replace=62)
    with pytest.raises(ValueError) as e:
        lc.load_model("DeepSeek-V3").replace(first_k_dense_replace=62)
    assert lab.error == str(e.value)


def test_model_change_resets_fields_with_one_redraw(lab):
    lab.set(num_key_value_heads=4, hidden_size=2048)
    calls = []
    compute = lab.compute
    lab.compute = lambda v: calls.append(1) or compute(v)
    lab.set(model="Qwen3-30B-A3B")
    assert len(calls) == 1
    cfg = lc.load_model("Qwen3-30B-A3B")
    c = lab.controls
    assert (c["hidden_size"].value, c["num_key_value_heads"].value, c["num_experts"].value,
            c["num_experts_per_tok"].value, c["moe_intermediate_size"].value) == \
        (cfg.hidden_size, cfg.num_key_value_heads, 128, 8, 768)
    assert c["num_experts"].description == "num_experts"
    assert c["intermediate_size"].layout.display == "none"  # every layer is MoE: unused
    assert lab.error == "" and rows_of(lab) == engine_summary(cfg)


def test_dense_model_without_moe_variant_hides_experts(lab):
    lab.set(model="phi-2")
    assert lab.controls["num_experts"].layout.display == "none"
    lab.set(model="Meta-Llama-3-8B")
    assert lab.controls["num_experts"].layout.display == ""
    assert lab.controls["num_experts"].description == "num_local_experts (0 = dense)"


def test_invalid_value_shows_message_then_clears(lab):
    before = rows_of(lab)
    lab.set(num_key_value_heads=5)
    with pytest.raises(ValueError) as e:
        lc.load_model("Meta-Llama-3-8B").replace(num_key_value_heads=5)
    assert lab.error == str(e.value)
    assert "\n" not in lab.error and "Traceback" not in lab.error_line.value
    assert "must divide" in lab.error_line.value
    assert rows_of(lab) == before  # the last valid setting stays
    assert "lc-stale" in lab.summary._dom_classes
    lab.set(num_key_value_heads=1)
    assert lab.error == "" and lab.error_line.value == ""
    assert lab.value("kv_cache_bytes") == lc.kv_cache_bytes(
        lc.load_model("Meta-Llama-3-8B").replace(num_key_value_heads=1), SEQ, BATCH)


@pytest.mark.parametrize("field,value,fragment", [
    ("num_experts", -3, "num_local_experts: must be positive"),
    ("hidden_size", 0, "hidden_size: must be positive"),
    ("hidden_size", 4001, "hidden_size: must be divisible"),
])
def test_more_impossible_values(lab, field, value, fragment):
    if field == "num_experts":
        lab.set(num_experts_per_tok=2)
    lab.set(**{field: value})
    assert fragment in lab.error and "\n" not in lab.error
    lab.set(model="Qwen3-8B")  # still alive: a new model, a clean slate
    assert lab.error == "" and rows_of(lab) == engine_summary(lc.load_model("Qwen3-8B"))


def test_top_k_above_experts(lab):
    lab.set(num_experts=4, num_experts_per_tok=8)
    assert lab.error.startswith("num_experts_per_tok: cannot exceed the 4 experts")


# --- loading ------------------------------------------------------------------------------

def _engine_message(path):
    with pytest.raises(ValueError) as e:
        lc.from_hf_config(str(path))
    return str(e.value)


@pytest.mark.parametrize("text", [
    '{"model_type": "llama", "hidden_size": 4096,',                       # malformed JSON
    '[1, 2, 3]',                                                          # not an object
    '{"model_type": "bert", "hidden_size": 768}',                          # unknown type
    json.dumps(dict(lc.load_model("Meta-Llama-3-8B").to_hf_config(),
                    num_key_value_heads=5)),                              # impossible
])
def test_bad_config_file_shows_message_and_lab_keeps_working(lab, tmp_path, text):
    path = tmp_path / "config.json"
    path.write_text(text)
    assert lab.load_path(str(path)) is None
    assert lab.error == _engine_message(path)
    assert "\n" not in lab.error
    assert lab.base == lc.load_model("Meta-Llama-3-8B")
    lab.set(num_key_value_heads=4)
    assert lab.error == "" and lab.value("kv_cache_bytes") == lc.kv_cache_bytes(
        lc.load_model("Meta-Llama-3-8B").replace(num_key_value_heads=4), SEQ, BATCH)


def test_missing_file_and_empty_path(lab, tmp_path):
    lab.load_path(str(tmp_path / "nope.json"))
    assert lab.error == _engine_message(tmp_path / "nope.json")
    lab.load_path("   ")
    assert lab.error.startswith("load: type the path")


def test_load_valid_file_adds_it_to_the_models(lab, tmp_path):
    cfg = lc.load_model("Qwen3-4B").replace(num_hidden_layers=20)
    folder = tmp_path / "tiny-qwen"
    folder.mkdir()
    cfg.save(folder)
    label = lab.load_path(str(folder))
    assert label == "tiny-qwen (loaded)"
    assert lab.controls["model"].value == label and label in lab.controls["model"].options
    assert lab.base == cfg and lab.controls["num_hidden_layers"].value == 20
    assert rows_of(lab) == engine_summary(cfg)
    lab.set(model="Meta-Llama-3-8B")
    lab.set(model=label)  # it stays selectable
    assert lab.base == cfg


def test_upload_bytes(lab):
    assert lab.load_upload("config.json", b'{"model_type": "llama"') is None
    assert lab.error.startswith("config.json: not valid JSON")
    assert "lc-upload-" not in lab.error  # no temporary path in the message
    good = json.dumps(lc.load_model("gemma-2-2b").to_hf_config()).encode()
    assert lab.load_upload("gemma.json", good) == "gemma (loaded)"
    assert lab.error == "" and lab.base == lc.load_model("gemma-2-2b")


def test_upload_widget(lab):
    """What the browser's FileUpload sends reaches the loader; the widget is cleared."""
    import datetime
    content = json.dumps(lc.load_model("Qwen3-0.6B").to_hf_config()).encode()
    lab.upload.value = ({"name": "config.json", "type": "application/json",
                         "size": len(content), "content": memoryview(content),
                         "last_modified": datetime.datetime(2025, 1, 1)},)
    assert lab.controls["model"].value == "uploaded config (loaded)"
    assert lab.base == lc.load_model("Qwen3-0.6B") and lab.upload.value == ()


# --- saving -------------------------------------------------------------------------------

def test_save_round_trip(lab, tmp_path):
    lab.set(num_key_value_heads=4, num_experts=8, num_experts_per_tok=2, vocab_size=64000)
    path = lab.save(str(tmp_path / "edited"))
    assert path == str(tmp_path / "edited" / "config.json") and os.path.exists(path)
    back = lc.from_hf_config(path)
    assert back == lab.edited_config() == lab.edited
    assert lc.param_count(back).total == lab.value("total_params")
    status = lab.save_status.value
    assert "saved" in status and "edited" in status and "num_local_experts" in status
    # a file name works too
    assert lab.save(str(tmp_path / "x.json")).endswith("x.json")


def test_save_refuses_an_invalid_setting(lab, tmp_path):
    lab.set(num_key_value_heads=5)
    assert lab.save(str(tmp_path / "bad")) is None
    assert "not saved: num_key_value_heads" in lab.save_status.value
    assert not (tmp_path / "bad").exists()
    assert lab.save("") is None and "not saved: save:" in lab.save_status.value


@pytest.mark.slow
@pytest.mark.parametrize("model,edits,experts", [
    ("Meta-Llama-3-8B", dict(num_hidden_layers=2, num_key_value_heads=4), (4, 2)),
    ("Qwen3-0.6B", dict(num_hidden_layers=2, vocab_size=1000, tie_word_embeddings=False),
     (8, 2)),
])
def test_saved_config_builds_in_transformers(tmp_path, model, edits, experts):
    import transformers_ref
    lab = whatif_lab(model)
    lab.set(**edits, num_experts=experts[0], num_experts_per_tok=experts[1])
    assert lab.error == ""
    path = lab.save(str(tmp_path / "m"))
    with open(path) as fh:
        d = json.load(fh)
    m = transformers_ref.meta_model(d)
    assert sum(p.numel() for p in m.parameters()) == lc.param_count(lc.from_hf_config(d)).total \
        == lab.value("total_params")


# --- figure and exercises ----------------------------------------------------------------

def test_plot_is_labelled():
    from matplotlib.figure import Figure
    a = lc.load_model("Meta-Llama-3-8B")
    b = a.replace(num_key_value_heads=2)
    fig = lc.plots.whatif_bars(a, b, seq_len=32768, batch=4)
    assert isinstance(fig, Figure)
    assert "Meta-Llama-3-8B" in fig._suptitle.get_text()
    assert "KV cache ×0.25" in fig._suptitle.get_text()
    # the KV cache has its own axis: beside the weights its bars would be invisible
    assert [ax.get_title() for ax in fig.axes][:3] == ["parameters", "weights", "KV cache"]
    assert fig.axes[2].get_xticklabels()[0].get_text() == "32K × 4"
    for ax in fig.axes:
        assert ax.get_ylabel() and ax.get_title()
        assert all(t.get_text() for t in ax.get_xticklabels())
    assert [t.get_text() for t in fig.legends[0].get_texts()] == \
        ["original: Meta-Llama-3-8B", "edited"]
    assert "GiB" in fig.axes[1].get_ylabel()
    assert lc.plots.png_bytes(fig)[:4] == b"\x89PNG"


def test_lab_figure_updates_in_place(lab):
    axes = list(lab.fig.axes)
    lab.set(num_key_value_heads=2)
    assert list(lab.fig.axes) == axes
    kv = [p for p in lab.fig.axes[2].patches]
    heights = sorted(round(r.get_height(), 6) for r in kv)
    assert round(lab.value("kv_cache_bytes") / 2**30, 6) in heights


def test_exercises_are_of_all_four_kinds():
    exs = lc.exercises.list_exercises(notebook="08_whatif_lab")
    assert {e.kind for e in exs} == {"predict", "derive", "design", "concept"} and len(exs) >= 4


def test_exercise_answers_are_what_the_lab_shows():
    lab = whatif_lab("Qwen3-8B")
    lab.set(num_hidden_layers=18)
    assert lc.exercises.check("whatif-1", originals_of(lab)["total_params"]
                              - lab.value("total_params"))
    # whatif-2: gpt-oss-20b's cache at its full context, read off the lab
    lab.set(model="gpt-oss-20b")
    lab.set(seq_len=131072, batch=1)
    assert lc.exercises.check("whatif-2", lab.value("kv_cache_bytes") / 2**30)
    # whatif-5 as a reader designs it in the lab: half the KV heads, a wider MLP
    lab.set(model="Qwen3-8B")
    lab.set(seq_len=32768, batch=1)
    full = lab.value("kv_cache_bytes"), lab.value("total_params")
    lab.set(num_key_value_heads=4)
    assert lab.value("kv_cache_bytes") * 2 == full[0]
    assert not lc.exercises.check("whatif-5", {"num_key_value_heads": 4})  # 1.8% fewer
    lab.set(intermediate_size=12_672)
    assert abs(lab.value("total_params") / full[1] - 1) < 0.005
    assert lc.exercises.check("whatif-5", {"num_key_value_heads": 4, "intermediate_size": 12_672})
    assert lab.value("flops_decode") > lab.value("flops_prefill")  # whatif-4's premise


# --- what a curious reader types ----------------------------------------

def test_derived_head_dim_follows_and_a_typed_value_is_a_choice():
    lab = whatif_lab("Meta-Llama-3-8B")       # no head_dim in its config: 4096 / 32 = 128
    lab.set(num_attention_heads=16)
    assert lab.controls["head_dim"].value == 256 == lab.edited.head_dim  # refreshed
    lab.set(head_dim=128)                     # typed: 16 heads of 128
    assert lab.edited.head_dim == 128 and lab.edited.num_attention_heads == 16
    assert lab.value("total_params") == lc.param_count(
        lc.load_model("Meta-Llama-3-8B").replace(num_attention_heads=16, head_dim=128)).total
    lab.set(model="Qwen3-8B")                 # a new model forgets the typed fields
    assert lab.typed == set() and lab.controls["head_dim"].value == 128


def test_typing_the_base_value_writes_it():
    lab = whatif_lab("Meta-Llama-3-8B")
    lab.set(num_attention_heads=16)
    lab.set(head_dim=300)
    lab.set(head_dim=128)                     # equal to the base's derived value: still explicit
    assert lab.edited.to_hf_config()["head_dim"] == 128


def test_a_billion_layers_then_32():
    lab = whatif_lab("Meta-Llama-3-8B")
    t0 = time.perf_counter()
    lab.set(num_hidden_layers=1_000_000_000)
    assert time.perf_counter() - t0 < 1.0
    assert lab.error == ""
    big = lc.load_model("Meta-Llama-3-8B").replace(num_hidden_layers=1_000_000_000)
    assert lab.value("total_params") == lc.param_count(big).total
    assert "1,000,000,000 layers" in lab.shapes.value
    lab.set(num_hidden_layers=32)
    assert lab.error == "" and lab.value("total_params") == lc.param_count(
        lc.load_model("Meta-Llama-3-8B")).total
    assert lab.image.value[:4] == b"\x89PNG"


def test_huge_value_is_a_one_line_message():
    lab = whatif_lab("Meta-Llama-3-8B")
    lab.set(num_hidden_layers=2**40)
    assert lab.error.startswith("num_hidden_layers") and "1,000,000,000,000" in lab.error
    lab.set(num_hidden_layers=32)
    assert lab.error == ""


def test_no_sliding_window():
    lab = whatif_lab("gemma-2-2b")
    assert "sliding_window" in lab.fields and lab.controls["sliding_window"].value == 4096
    lab.set(sliding_window=0)
    g = lc.load_model("gemma-2-2b")
    full = g.replace(sliding_window=None, layer_types=None)
    assert full.layer_types.count("full_attention") == 26
    assert lab.value("kv_cache_bytes") == lc.kv_cache_bytes(full, 8192)
    lab.set(model="gpt-oss-20b")              # lists layer_types: they become all full
    lab.set(sliding_window=0)
    assert lab.error == "" and lab.edited.layer_types.count("full_attention") == 24
    lab.set(sliding_window=512)
    assert lab.edited.sliding_window == 512


def test_q_lora_rank_zero_is_full_rank():
    lab = whatif_lab("DeepSeek-V2")
    lab.set(q_lora_rank=0)
    assert lab.error == "" and lab.edited.get("q_lora_rank") is None
    names = [t.name for t in lc.architectures.layer_groups(lab.edited)[0].tensors]
    assert "self_attn.q_proj.weight" in names and "self_attn.q_a_proj.weight" not in names


def test_paste_a_config():
    lab = whatif_lab("Meta-Llama-3-8B")
    lab.load_text('{"model_type": "llama", ')
    assert lab.error.startswith("pasted config: not valid JSON")
    lab.load_text(json.dumps({**lc.load_model("Qwen3-8B").to_hf_config(), "model_type": ["x"]}))
    assert lab.error.startswith("pasted config: model_type")
    lab.load_text("\ufeff" + json.dumps(lc.load_model("Qwen3-8B").to_hf_config()))
    assert lab.error == "" and lab.base == lc.load_model("Qwen3-8B")


def test_upload_of_a_weights_file():
    lab = whatif_lab("Meta-Llama-3-8B")
    header = json.dumps({"w": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}}).encode()
    lab.load_upload("model.safetensors", len(header).to_bytes(8, "little") + header + b"\0\0")
    assert lab.error == "model.safetensors: a safetensors weights file, not a config.json"


def test_one_expert_is_singular_in_the_lab():
    lab = whatif_lab("Mixtral-8x7B-v0.1")
    lab.set(num_experts=1)
    assert "the 1 expert (" in lab.error


# --- what transformers builds, and what the exercises say ---------------------------------

def test_the_lab_offers_no_box_transformers_ignores():
    """GPT-2 and GPT-NeoX have no KV heads and no head_dim of their own in transformers,
    DeepSeek-V4 no KV-head count: the lab leaves those boxes out and says why, so Save never
    writes a config transformers would build with another count."""
    lab = whatif_lab("gpt2")
    assert "num_key_value_heads" not in lab.fields and "head_dim" not in lab.fields
    assert lab.controls["num_key_value_heads"].layout.display == "none"
    assert "no num_key_value_heads box" in lab.changes.value and "c_attn" in lab.changes.value
    lab.set(model="pythia-1b")
    assert "num_key_value_heads" not in lab.fields and "query_key_value" in lab.changes.value
    lab.set(model="DeepSeek-V4-Flash")
    assert "num_key_value_heads" not in lab.fields and "head_dim" in lab.fields
    # a window transformers cannot remove: 0 is no "none" there, and says what it is
    assert lab.controls["sliding_window"].description == "sliding_window"
    lab.set(sliding_window=0)
    assert "sliding_window" in lab.error and "positive" in lab.error
    lab.set(model="Meta-Llama-3-8B")
    assert "num_key_value_heads" in lab.fields and "no num_key_value_heads box" not in lab.changes.value


def test_windowed_cache_prediction_by_hand_and_its_mistakes():
    """whatif-2 by hand: gpt-oss-20b caches 2 x 8 KV heads x 64 x 2 B = 2,048 B per token
    and layer; its 12 full layers keep all 131,072 tokens, its 12 sliding layers the last
    128 (its config.json: sliding_window 128, layer_types alternating)."""
    by_hand = (12 * 2048 * 131_072 + 12 * 2048 * 128) / 2**30
    assert lc.exercises.check("whatif-2", by_hand)
    assert lc.exercises.check("whatif-2", 3.0)                       # within 1%
    v = lc.exercises.check("whatif-2", 24 * 2048 * 131_072 / 2**30)  # every layer grows
    assert not v and "sliding-window layers keep only the last 128" in v, v
    v = lc.exercises.check("whatif-2", round(by_hand * 2**30 / 1e9, 2))  # GB for GiB
    assert not v and "GB" in v and "GiB" in v


def test_whatif3_says_the_excess_is_one_original_mlp_per_layer():
    v = lc.exercises.check("whatif-3", lc.exercises.whatif._eight_new_mlps)
    assert not v and "one original MLP" in v and "per layer" in v, v


def test_a_sliding_window_design_passes_with_a_remark():
    n = lc.load_model("Qwen3-8B").num_hidden_layers
    v = lc.exercises.check("whatif-5", {"sliding_window": 16384,
                                        "layer_types": ["sliding_attention"] * n})
    assert v and "no longer" in v and "16,384" in v
    assert "no longer" not in lc.exercises.check(
        "whatif-5", {"num_key_value_heads": 4, "intermediate_size": 12_544})


def test_a_billion_layers_draws_a_readable_figure():
    """The review typed the lab's own 'try a billion layers': bar labels overlapped, a
    x1e8 offset text sat on the panel titles and the title was clipped."""
    lab = whatif_lab("Meta-Llama-3-8B")
    lab.set(num_hidden_layers=10**9)
    assert lab.error == ""
    fig = lab.fig
    renderer = fig.canvas.get_renderer()
    fig.canvas.draw()
    width = fig.bbox.width
    title = fig._suptitle.get_window_extent(renderer)
    assert title.x0 >= 0 and title.x1 <= width, "the title is clipped"
    for ax in fig.axes:
        assert ax.yaxis.get_offset_text().get_text() == "", "an offset text over the panel"
        labels = [t for t in ax.texts if t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in labels]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not a.overlaps(b), [t.get_text() for t in labels]
    assert any(ax.get_yscale() == "log" for ax in fig.axes)
    lab.set(num_hidden_layers=32)
    assert all(ax.get_yscale() == "linear" for ax in fig.axes)


def _a_new_value(base, field, old):
    """A value a reader might type into ``field``'s box, different from ``old``."""
    if field == "tie_word_embeddings":
        return not old
    if field == "num_key_value_heads":
        n = base.num_attention_heads
        return next((d for d in range(1, n + 1) if n % d == 0 and d != old), None)
    return {"num_attention_heads": 2 * old, "head_dim": 64 if old != 64 else 32,
            "sliding_window": 0, "num_hidden_layers": old + 1, "hidden_size": 2 * old,
            "num_experts": (old or 0) + 8,
            "num_experts_per_tok": old - 1 if old and old > 1 else 2,
            "first_k_dense_replace": min(old + 1, base.num_hidden_layers)}.get(field, (old or 0) + 64)


@pytest.mark.slow
@pytest.mark.parametrize("name", lc.list_models())
def test_every_box_the_lab_offers_builds_in_transformers_with_the_labs_count(name):
    """What the lab's Save writes, transformers builds with the count the lab shows: for
    every zoo model (at 3 layers, 8 experts) and every box the lab shows for it, one edit
    is built on the meta device and counted. A box transformers ignores (GQA for GPT-2)
    would fail here; an edit the engine refuses shows its one-line message instead."""
    import transformers_ref
    from llmcourse.widgets.whatif import _field_value, _fields_for
    from config_files import shrunk, zoo_json
    base = lc.from_hf_config(shrunk(zoo_json(name)), name=name)
    fields = _fields_for(base)
    values = {f: _field_value(base, f) for f in fields}
    for field in fields:
        new = _a_new_value(base, field, values[field])
        if new is None:
            continue
        try:
            edited = edited_config(base, {**values, field: new}, fields, typed={field})
        except ValueError:
            continue   # the lab shows the engine's message; nothing is saved
        model = transformers_ref.meta_model(edited.to_hf_config())
        built = sum(p.numel() for p in model.parameters())
        assert built == lc.param_count(edited).total, f"{name}: {field} {values[field]} -> {new}"


def test_a_fraction_in_a_whole_number_box_is_named_not_cut():
    """3.5 heads is not read as 3: the engine's one line says so, and the box keeps working."""
    lab = lc.widgets.EXPLORERS["whatif"]()
    lab.set(num_attention_heads=3.5)
    assert lab.error == "num_attention_heads: must be a whole number (got 3.5)"
    lab.set(num_attention_heads=32)
    assert lab.error == "" and isinstance(lab.values["num_attention_heads"], int)
