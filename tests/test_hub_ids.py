"""How a string names a model: a path that exists, then a zoo name, then a Hub id
(owner/name[@revision]). Nothing here reaches a Hub: the cases that are Hub ids are
only recognised, never fetched (tests/test_hub.py fetches them from a local server)."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

import llmcourse as lc
from llmcourse.hub import is_hub_id, split_revision


@pytest.mark.parametrize("text", ["Qwen/Qwen3-32B", "meta-llama/Llama-3.1-8B",
                                  "deepseek-ai/DeepSeek-V3.2", "a/b", "Qwen/Qwen3-32B@main",
                                  "Qwen/Qwen3-32B@v1.0", "org/model_name.v2@0123abcd"])
def test_hub_ids(text):
    assert is_hub_id(text)


@pytest.mark.parametrize("text", ["Qwen3-32B", "a/b/c", "/abs/path", "./rel/x", "a//b",
                                  "org/-bad", "org/bad-", "org/a--b", "org/a..b", "org/",
                                  "Qwen/Qwen3-32B@", "Qwen/Qwen3-32B@bad rev", "", "x" * 97 + "/y",
                                  "org name/model"])
def test_not_hub_ids(text):
    assert not is_hub_id(text)


def test_a_revision_is_given_once():
    assert split_revision("Qwen/Qwen3-32B@v2") == ("Qwen/Qwen3-32B", "v2")
    assert split_revision("Qwen/Qwen3-32B", "v2") == ("Qwen/Qwen3-32B", "v2")
    with pytest.raises(ValueError, match=r"^revision: 'Qwen/Qwen3-32B@v2' already names "
                                         r"revision 'v2'; pass one of them$"):
        split_revision("Qwen/Qwen3-32B@v2", "v3")


def test_a_folder_that_exists_wins_over_a_hub_id(tmp_path, monkeypatch):
    """As transformers' from_pretrained does: a local owner/name folder is read from disk."""
    folder = tmp_path / "Qwen" / "Qwen3-0.6B"
    folder.mkdir(parents=True)
    config = json.loads((pathlib.Path(lc.zoo.CONFIG_DIR) / "Qwen3-0.6B.json").read_text())
    (folder / "config.json").write_text(json.dumps(dict(config, num_hidden_layers=3)))
    monkeypatch.chdir(tmp_path)
    assert is_hub_id("Qwen/Qwen3-0.6B") and os.path.isdir("Qwen/Qwen3-0.6B")
    assert lc.param_count("Qwen/Qwen3-0.6B").total == \
        lc.param_count(lc.load_model("Qwen3-0.6B").replace(num_hidden_layers=3)).total


def test_a_zoo_name_wins_and_is_matched_case_insensitively():
    assert lc.load_model("qwen3-0.6b") is lc.load_model("Qwen3-0.6B")
    assert lc.zoo.as_config("QWEN3-0.6B").name == "Qwen3-0.6B"


def test_what_is_neither_says_what_a_hub_id_is():
    with pytest.raises(ValueError) as e:
        lc.load_model("no-such-model")
    msg = str(e.value)
    assert msg.startswith("name: no zoo model 'no-such-model' and not a Hub id (owner/name, "
                          "e.g. Qwen/Qwen3-32B); ")
    assert "\n" not in msg and len(msg) < 200   # one short line, not the zoo's every name
    near = str(pytest.raises(ValueError, lc.load_model, "Llama-3.2-3").value)
    assert near.endswith("closest in the zoo: Llama-3.2-3B, Llama-3.2-1B, Llama-3.1-8B")
    with pytest.raises(ValueError, match=r"^revision: Qwen3-0.6B is a zoo model"):
        lc.load_model("Qwen3-0.6B", revision="main")
