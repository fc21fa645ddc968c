"""The explorers' Hub box, driven as a reader drives it (an id typed, Enter pressed), in a
fresh process whose huggingface_hub fetches from the local server (tests/hub_server.py).
The browser test (tests/browser/test_hub_explorer.py) does the same in JupyterLab."""

from __future__ import annotations

import pytest

import llmcourse as lc
import llmcourse.widgets as w
from hub_server import HubServer, run_client


@pytest.fixture(scope="module")
def hub():
    with HubServer() as server:
        yield server


def test_every_model_picker_has_a_hub_box_beside_it():
    for name, factory in w.EXPLORERS.items():
        ex = factory()
        picker = ex.controls.get("model")
        if name == "whatif":  # the lab has its own, in its loading row
            assert "lc-hub-box" in ex.hub_box._dom_classes
            continue
        box = picker.hub_box
        assert "lc-hub-box" in box._dom_classes and not box.continuous_update
        row = next(c for c in ex.widget.children if picker in getattr(c, "children", ()))
        assert row.children[list(row.children).index(picker) + 1] is box, name


def test_an_explorer_that_lists_some_models_takes_hub_models_of_that_kind():
    moe, dense, mla = (lc.load_model(m) for m in ("Qwen3-30B-A3B", "Qwen3-8B", "DeepSeek-V3"))
    rules = {n: w.EXPLORERS[n]().controls["model"].hub_accepts
             for n in ("ffn", "depth_width", "moe", "heads", "kv_cache", "fit")}
    assert rules["kv_cache"] is None and rules["fit"] is None  # the whole zoo: any model
    for n in ("ffn", "depth_width"):
        assert rules[n](dense) is None
        assert rules[n](moe) == "has routed experts; this explorer shows dense models"
    assert rules["moe"](moe) is None
    assert rules["moe"](dense) == "is dense; this explorer shows mixture-of-experts models"
    assert rules["heads"](dense) is None
    assert rules["heads"](mla).startswith("caches an MLA latent, not KV heads")


def test_a_hub_id_typed_in_an_explorer_joins_its_list_and_redraws(hub, tmp_path):
    out = run_client("""
        import llmcourse.widgets as w
        out = {}
        for name in ("kv_cache", "layer_anatomy", "heads", "ffn", "depth_width", "fit",
                     "training"):
            ex = w.EXPLORERS[name]()
            png = ex.image.value
            ex.controls["model"].hub_box.value = "Qwen/Qwen3-0.6B"   # typed, then Enter
            out[name] = {"value": ex.values["model"], "error": ex.error,
                         "listed": "Qwen/Qwen3-0.6B" in ex.controls["model"].options,
                         "redrawn": ex.image.value != png,
                         "rows": {r.key: r.value for r in ex.rows}}
        ex = w.EXPLORERS["kv_cache"]()
        ex.controls["model"].hub_box.value = "Qwen/Qwen3-0.6B"
        out["kv"] = ex.value("kv_cache_bytes")
        ex.set(model="Meta-Llama-3-8B")                               # back to a zoo model
        ex.controls["model"].hub_box.value = "Qwen/Qwen3-0.6B"       # typed again
        out["again"] = {"value": ex.values["model"], "error": ex.error,
                        "count": list(ex.controls["model"].options).count("Qwen/Qwen3-0.6B")}
    """, hub.url, tmp_path)
    for name in ("kv_cache", "layer_anatomy", "heads", "ffn", "depth_width", "fit", "training"):
        got = out[name]
        assert got["value"] == "Qwen/Qwen3-0.6B" and got["error"] == "", (name, got)
        assert got["listed"] and got["redrawn"] and got["rows"], name
    cfg = lc.load_model("Qwen3-0.6B")  # the same config.json as the served one
    assert out["kv"] == lc.kv_cache_bytes(cfg, 8192)
    assert out["again"] == {"value": "Qwen/Qwen3-0.6B", "error": "", "count": 1}


def test_what_an_explorer_cannot_show_is_a_message_in_place(hub, tmp_path):
    out = run_client("""
        import llmcourse.widgets as w
        out = {}
        ex = w.EXPLORERS["moe"]()
        before = {r.key: r.value for r in ex.rows}
        for typed in ("Qwen/Qwen3-0.6B", "nobody/no-such-model", "unsloth/Qwen3-0.6B-GGUF"):
            ex.controls["model"].hub_box.value = typed
            out[typed] = {"error": ex.error, "value": ex.values["model"],
                          "rows_kept": {r.key: r.value for r in ex.rows} == before}
        ex.controls["model"].hub_box.value = "Qwen/Qwen3-30B-A3B"   # an MoE model: taken
        out["moe"] = {"error": ex.error, "value": ex.values["model"],
                      "experts": ex.values["num_experts"]}
        ex.set(num_experts_per_tok=4)                                 # and it keeps working
        out["after"] = ex.error
    """, hub.url, tmp_path)
    dense = out["Qwen/Qwen3-0.6B"]
    assert dense["error"] == ("model: Qwen/Qwen3-0.6B is dense; this explorer shows "
                              "mixture-of-experts models")
    missing = out["nobody/no-such-model"]
    assert missing["error"].startswith("model: no model repository 'nobody/no-such-model'")
    assert out["unsloth/Qwen3-0.6B-GGUF"]["error"].startswith(
        "model: unsloth/Qwen3-0.6B-GGUF ships GGUF files only")
    for got in out.values():
        if isinstance(got, dict) and "rows_kept" in got:
            assert got["value"] == "Qwen3-30B-A3B" and got["rows_kept"]
    assert out["moe"] == {"error": "", "value": "Qwen/Qwen3-30B-A3B",
                          "experts": lc.load_model("Qwen3-30B-A3B").num_experts}
    assert out["after"] == ""


def test_the_whatif_lab_takes_a_hub_id_and_explorers_start_on_one(hub, tmp_path):
    out = run_client("""
        import llmcourse.widgets as w
        lab = w.whatif_lab()
        lab.hub_box.value = "Qwen/Qwen3.5-0.8B-Base"
        out = {"base": lab.base.name, "value": lab.values["model"], "error": lab.error,
               "total": lab.value("total_params")}
        lab.hub_box.value = "meta-llama/Llama-3.2-1B"                # gated, no token
        out["gated"] = lab.error
        out["kept"] = lab.base.name
        started = [w.whatif_lab("Qwen/Qwen3-0.6B"), w.kv_cache_explorer("Qwen/Qwen3-0.6B")]
        out["started"] = [(x.values["model"], x.error) for x in started]
    """, hub.url, tmp_path)
    assert out["base"] == out["value"] == "Qwen/Qwen3.5-0.8B-Base" and out["error"] == ""
    assert out["total"] == lc.param_count("Qwen3.5-0.8B-Base").total
    assert out["gated"].startswith("model: meta-llama/Llama-3.2-1B is gated: accept its licence")
    assert out["kept"] == "Qwen/Qwen3.5-0.8B-Base"
    assert out["started"] == [["Qwen/Qwen3-0.6B", ""]] * 2  # built on a Hub id
