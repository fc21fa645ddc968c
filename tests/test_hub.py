"""Hub ids as a reader meets them, without the internet: the real huggingface_hub client,
in a fresh Python process (it reads HF_ENDPOINT, HF_HOME and HF_HUB_OFFLINE when it is
imported), against tests/hub_server.py on 127.0.0.1 serving Hub-shaped copies of real
configs and safetensors headers (see hub_server.run_client)."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

import llmcourse as lc
from hub_server import ROOT, TOKEN, HubServer, run_client

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
SEED = FIXTURES / "seed_003_qwen3_0.6b_weights.txt"


@pytest.fixture(scope="module")
def hub():
    with HubServer() as server:
        yield server


def zoo_json(name):
    return json.loads((pathlib.Path(lc.zoo.CONFIG_DIR) / f"{name}.json").read_text())


# --- a config by its id --------------------------------------------------------------

def test_a_public_model_by_its_id_in_every_function(hub, tmp_path):
    out = run_client("""
        cfg = lc.load_model("Qwen/Qwen3-0.6B")
        again = lc.load_model("Qwen/Qwen3-0.6B")
        out = {"name": cfg.name, "same": again is cfg, "raw": cfg.to_hf_config(),
               "total": lc.param_count("Qwen/Qwen3-0.6B").total,
               "kv": lc.kv_cache_bytes("Qwen/Qwen3-0.6B", 8192),
               "stored": lc.stored_weights("Qwen/Qwen3-0.6B").total,
               "plan_fits": lc.memory_plan("Qwen/Qwen3-0.6B", "H100").fits,
               "vllm_kv_tokens": lc.vllm_plan("Qwen/Qwen3-0.6B", "H100").kv_tokens,
               "family": lc.model_family("Qwen/Qwen3-0.6B")}
    """, hub.url, tmp_path)
    zoo = lc.load_model("Qwen3-0.6B")
    assert out["name"] == "Qwen/Qwen3-0.6B" and out["same"]
    assert out["raw"] == zoo_json("Qwen3-0.6B")  # the served file, read as the zoo's is
    assert out["total"] == lc.param_count(zoo).total
    assert out["kv"] == lc.kv_cache_bytes(zoo, 8192)
    assert out["stored"] == lc.stored_weights(zoo).total
    assert out["plan_fits"] is True
    assert out["vllm_kv_tokens"] == lc.vllm_plan(zoo, "H100").kv_tokens
    assert out["family"] == "Qwen"
    # fetched once per process: one probe, one HEAD and one GET of config.json
    assert hub.paths().count("/Qwen/Qwen3-0.6B/resolve/main/config.json") == 3
    assert list((tmp_path / "hub").glob("models--Qwen--Qwen3-0.6B/snapshots/*/config.json"))


def test_a_revision_by_argument_or_after_an_at(hub, tmp_path):
    sha = hub.repos["Qwen/Qwen3-0.6B"].sha
    out = run_client(f"""
        out = {{"at": lc.load_model("Qwen/Qwen3-0.6B@{sha}").name,
               "kw": lc.load_model("Qwen/Qwen3-0.6B", revision="main").name,
               "commit": lc.hub.hub_commit("Qwen/Qwen3-0.6B", revision="main"),
               "bad": error(lc.load_model, "Qwen/Qwen3-0.6B@no-such-branch"),
               "zoo": error(lc.load_model, "Qwen3-0.6B", revision="main")}}
    """, hub.url, tmp_path)
    assert out["at"] == f"Qwen/Qwen3-0.6B@{sha}"
    assert out["kw"] == "Qwen/Qwen3-0.6B@main"
    assert out["commit"] == sha
    assert out["bad"] == ("model: Qwen/Qwen3-0.6B has no revision 'no-such-branch' "
                          "(a branch, a tag or a commit hash)")
    assert out["zoo"].startswith("revision: Qwen3-0.6B is a zoo model, which has no revisions")


def test_a_gated_model_needs_a_token_and_says_where_to_accept_the_licence(hub, tmp_path):
    code = """
        out = {"error": error(lc.load_model, "meta-llama/Llama-3.2-1B")}
        if out["error"] is None:
            out["total"] = lc.param_count("meta-llama/Llama-3.2-1B").total
    """
    no_token = run_client(code, hub.url, tmp_path / "a")
    assert no_token["error"] == (
        f"model: meta-llama/Llama-3.2-1B is gated: accept its licence at "
        f"{hub.url}/meta-llama/Llama-3.2-1B and set HF_TOKEN (or run `hf auth login`)")
    wrong = run_client(code, hub.url, tmp_path / "b", token="hf_notGrantedAccess")
    assert wrong["error"].startswith("model: meta-llama/Llama-3.2-1B is gated and your token "
                                     "has no access yet: accept its licence at "
                                     f"{hub.url}/meta-llama/Llama-3.2-1B")
    granted = run_client(code, hub.url, tmp_path / "c", token=TOKEN)  # HF_TOKEN honoured
    assert granted["error"] is None
    assert granted["total"] == lc.param_count("Llama-3.2-1B").total


def test_a_missing_repo_and_a_string_that_is_no_id(hub, tmp_path):
    out = run_client("""
        out = {"missing": error(lc.load_model, "nobody/no-such-model"),
               "not_an_id": error(lc.param_count, "no-such-model"),
               "deep": error(lc.load_model, "a/b/c")}
    """, hub.url, tmp_path)
    assert out["missing"] == (f"model: no model repository 'nobody/no-such-model' on the Hub "
                              f"at {hub.url} (a private one needs HF_TOKEN)")
    assert out["not_an_id"].startswith("name: no zoo model 'no-such-model' and not a Hub id")
    assert out["deep"].startswith("name: no zoo model 'a/b/c' and not a Hub id")
    assert not any("no-such-model" in p and "nobody" not in p for p in hub.paths())


def test_a_multimodal_wrapper_is_read_through_its_text_config(hub, tmp_path):
    out = run_client("""
        cfg = lc.load_model("Qwen/Qwen3.5-0.8B-Base")
        out = {"multimodal": cfg.is_multimodal, "type": cfg.model_type,
               "total": lc.param_count(cfg).total}
    """, hub.url, tmp_path)
    zoo = lc.load_model("Qwen3.5-0.8B-Base")
    assert out == {"multimodal": True, "type": zoo.model_type,
                   "total": lc.param_count(zoo).total}


def test_a_gguf_only_repo_and_an_unsupported_model_type(hub, tmp_path):
    out = run_client("""
        out = {"gguf": error(lc.load_model, "unsloth/Qwen3-0.6B-GGUF"),
               "type": error(lc.load_model, "test-org/llama9-unreleased")}
    """, hub.url, tmp_path)
    assert out["gguf"] == ("model: unsloth/Qwen3-0.6B-GGUF ships GGUF files only; the course "
                           "reads a transformers config.json (try the original repo, "
                           "Qwen/Qwen3-0.6B)")
    assert out["type"].startswith("model: test-org/llama9-unreleased's config.json: "
                                  "model_type: unsupported; closest supported: llama")
    assert "\n" not in out["type"]


def test_offline_after_one_fetch_and_not_before(hub, tmp_path):
    run_client('out = lc.load_model("Qwen/Qwen3-0.6B").name', hub.url, tmp_path)
    before = len(hub.requests)
    out = run_client("""
        out = {"name": lc.load_model("Qwen/Qwen3-0.6B").name,
               "total": lc.param_count("Qwen/Qwen3-0.6B").total,
               "zoo": lc.param_count("Llama-3.2-1B").total,
               "unfetched": error(lc.load_model, "Qwen/Qwen3.5-0.8B-Base")}
    """, hub.url, tmp_path, offline=True)
    assert len(hub.requests) == before  # HF_HUB_OFFLINE=1: not one request
    assert out["name"] == "Qwen/Qwen3-0.6B"
    assert out["total"] == lc.param_count("Qwen3-0.6B").total
    assert out["zoo"] == lc.param_count("Llama-3.2-1B").total  # the zoo needs no network
    assert out["unfetched"] == ("model: Qwen/Qwen3.5-0.8B-Base is not in the Hugging Face cache "
                                "and offline mode is on (HF_HUB_OFFLINE=1): fetch it once "
                                "online, or use a zoo model")


def test_no_answer_from_the_hub_uses_the_cache_at_once(hub, tmp_path):
    run_client('out = lc.load_model("Qwen/Qwen3-0.6B").name', hub.url, tmp_path)
    closed = "http://127.0.0.1:9"  # nothing listens there
    out = run_client("""
        import time
        t = time.monotonic()
        out = {"cached": lc.load_model("Qwen/Qwen3-0.6B").name,
               "uncached": error(lc.load_model, "Qwen/Qwen3-8B"),
               "seconds": time.monotonic() - t}
    """, closed, tmp_path)
    assert out["cached"] == "Qwen/Qwen3-0.6B"
    assert out["uncached"] == ("model: cannot reach the Hub (http://127.0.0.1:9) and "
                               "Qwen/Qwen3-8B is not in the Hugging Face cache; check the "
                               "connection (or HF_ENDPOINT), or use a zoo model")
    assert out["seconds"] < 10  # huggingface_hub alone retries for about 20 s


# --- the checkpoint as a second witness -------------------------------------------

def _seed_total():
    text = SEED.read_text(encoding="utf-8")
    return int(re.search(r"总参数数量\*\*: ([\d,]+)", text).group(1).replace(",", ""))


def test_checkpoint_of_a_public_model_explains_a_tied_head_stored_twice(hub, tmp_path):
    out = run_client("""
        r = lc.checkpoint_report("Qwen/Qwen3-0.6B")
        out = r.to_dict()
    """, hub.url, tmp_path)
    seed_values = _seed_total()  # the published listing's 311 tensors, in bf16
    zoo = lc.load_model("Qwen3-0.6B")
    assert out["tensors"] == 311 and out["index_total_size"] is None
    assert out["checkpoint_bytes"] == 2 * seed_values
    assert out["dtypes"] == {"BF16": {"values": seed_values, "bytes": 2 * seed_values}}
    assert out["engine"]["params"] == lc.param_count(zoo).total
    assert out["engine"]["bytes_as_shipped"] == lc.stored_weights(zoo).total
    assert out["commit"] == hub.repos["Qwen/Qwen3-0.6B"].sha
    rows = {r["what"]: r for r in out["rows"]}
    head = zoo.vocab_size * zoo.hidden_size
    values = rows["values, language model"]
    assert values["difference"] == head  # the tied lm_head, stored a second time
    assert "only in the checkpoint: lm_head.weight (1 tensor" in values["why"]
    assert "tied head stored a second time" in values["why"]
    assert out["explained"] is False  # a real difference, not one the engine leaves out
    # headers only: one range request of the file's first bytes, never its weights
    assert hub.refused == []
    gets = [(p, r) for m, p, r in hub.requests if m == "GET" and p.endswith(".safetensors")]
    assert gets and all(r == "bytes=0-100000" for _, r in gets)


def test_checkpoint_of_a_multimodal_model_equals_the_engine_less_its_mtp(hub, tmp_path):
    out = run_client("""
        r = lc.checkpoint_report("Qwen/Qwen3.5-0.8B-Base")
        out = dict(r.to_dict(), text=str(r), table=r.table().reset_index().to_dict("records"))
    """, hub.url, tmp_path)
    index = json.loads((ROOT / "Qwen" / "Qwen3.5-0.8B-Base" /
                        "model.safetensors.index.json").read_text())
    names = index["weight_map"]
    zoo = lc.load_model("Qwen3.5-0.8B-Base")
    assert out["tensors"] == len(names)
    assert out["index_total_size"] == index["metadata"]["total_size"] == out["checkpoint_bytes"]
    parts = out["parts"]
    assert parts["mtp"]["tensors"] == sum(n.startswith("mtp.") for n in names) == 15
    assert parts["towers"]["tensors"] == sum(n.startswith("model.visual.") for n in names)
    assert parts["scales"]["tensors"] == 0
    # the language model and the vision tower transformers builds equal the engine's counts,
    # value for value; the wrapper's total is both
    pc = lc.param_count(zoo)
    assert parts["language_model"]["values"] == lc.param_count(zoo.text_model).total
    assert parts["towers"]["values"] == pc.components["vision"] == out["engine"]["tower_params"]
    assert parts["language_model"]["values"] + parts["towers"]["values"] == pc.total
    assert parts["language_model"]["bytes"] + parts["towers"]["bytes"] == \
        lc.stored_weights(zoo).total
    assert out["explained"] is True
    rows = {r["what"]: r for r in out["rows"]}
    assert rows["bytes, all tensors"]["difference"] == parts["mtp"]["bytes"]
    assert "multi-token-prediction module transformers does not build" in \
        rows["bytes, multi-token prediction"]["why"]
    towers = rows["bytes, vision and audio towers"]
    assert towers["checkpoint"] == towers["course"] and towers["difference"] == 0
    assert "model.visual" in towers["why"]
    assert rows["values, vision and audio towers"]["difference"] == 0
    assert [r["what"] for r in out["table"]] == list(rows)
    assert hub.refused == []


def test_checkpoint_errors_are_one_line(hub, tmp_path):
    out = run_client("""
        out = {"gguf": error(lc.checkpoint_report, "unsloth/Qwen3-0.6B-GGUF"),
               "no_weights": error(lc.checkpoint_report, "test-org/mllama-class-defaults"),
               "zoo": error(lc.checkpoint_report, "Qwen3-0.6B")}
    """, hub.url, tmp_path)
    assert out["gguf"].startswith("model: unsloth/Qwen3-0.6B-GGUF ships GGUF files only")
    assert out["no_weights"].startswith("model: test-org/mllama-class-defaults has no "
                                        "safetensors weights")
    assert out["zoo"] == ("model: 'Qwen3-0.6B' is neither a Hub id (owner/name) nor a "
                          "checkpoint folder")
