"""The config.json files tests read: the zoo's (shipped in the package) and the fixtures'
(tests/fixtures). Standard library only, so the fast tests can use it."""

import json
from pathlib import Path

import llmcourse as lc

ZOO = Path(lc.zoo.CONFIG_DIR)
FIXTURES = Path(__file__).parent / "fixtures"


def zoo_json(name):
    """A zoo model's config.json as published (a plain dict, a fresh copy)."""
    return json.loads((ZOO / f"{name}.json").read_text(encoding="utf-8"))


def fixture_json(name):
    """A test fixture's config.json (tests/fixtures/<name>)."""
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def zoo_of_type(model_type):
    """The zoo models of a model type: a multimodal wrapper's own type, or its text model's."""
    out = []
    for n in lc.list_models():
        cfg = lc.load_model(n)
        if model_type in (cfg.model_type, cfg.text_model_of):
            out.append(n)
    return out
