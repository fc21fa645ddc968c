"""A Hub id typed into an explorer in JupyterLab, as a reader does it: the kernel's
huggingface_hub fetches from tests/hub_server.py (HF_ENDPOINT, set in the notebook's
first cell before anything imports huggingface_hub), the picker shows the id, the
table holds the engine's value for that model and the figure is redrawn; an id that
cannot be read is the one-line message in place, and the explorer keeps working."""

from __future__ import annotations

import pytest

import browser_helpers as bh
import llmcourse as lc
from hub_server import HubServer, client_env, run_client

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hub():
    with HubServer() as server:
        yield server


def test_a_hub_id_typed_into_an_explorer(hub, lab, lab_root, lab_page, tmp_path):
    env = client_env(hub.url, tmp_path / "hf")
    keep = ("HF_ENDPOINT", "HF_HOME", "HF_HUB_DISABLE_TELEMETRY", "HTTP_PROXY", "HTTPS_PROXY",
            "ALL_PROXY", "NO_PROXY")
    setup = "import os\n" + "".join(f"os.environ[{k!r}] = {env[k]!r}\n" for k in keep) \
        + "os.environ.pop('HF_TOKEN', None)\nos.environ.pop('HF_HUB_OFFLINE', None)"
    nb = bh.write_notebook(lab_root / "hub_explorer.ipynb", [
        ("markdown", "# A model by its Hub id"),
        ("code", setup),
        ("code", "import llmcourse as lc\nlc.widgets.kv_cache_explorer('Meta-Llama-3-8B')"),
    ])
    page = lab_page
    book = bh.LabNotebook(page, lab, nb.name, "hub-explorer")
    book.run_all(bh.code_cell_count(nb))
    kv = bh.ExplorerView(page, "kv_cache").wait_rendered()
    assert bh.problems(page, ".jp-Notebook") == []
    box = kv.root.locator(".lc-hub-box input")
    assert box.get_attribute("placeholder") == "or a Hub id: owner/name, Enter"

    # an id typed, Enter: the picker shows it, the table and the figure are that model's
    src = kv.figure_src()
    box.click()
    box.fill("Qwen/Qwen3-0.6B")
    box.press("Enter")
    qwen = lc.load_model("Qwen3-0.6B")  # the zoo's copy of the config.json the server serves
    kv.expect_value("kv_cache_bytes", lc.kv_cache_bytes(qwen, 8192))
    assert kv.current("model") == "Qwen/Qwen3-0.6B"
    assert kv.figure_src() != src and kv.figure_loaded()
    assert box.input_value() == ""  # emptied for the next id
    kv.expect_no_error()
    bh.screenshot(page, "lab-hub-explorer", kv.root)
    assert "/Qwen/Qwen3-0.6B/resolve/main/config.json" in hub.paths("GET")

    # an id that cannot be read: the message in place, the model and table kept
    missing = run_client('out = error(lc.load_model, "nobody/no-such-model")', hub.url,
                         tmp_path / "msg")
    box.click()
    box.fill("nobody/no-such-model")
    box.press("Enter")
    kv.expect_error(missing)
    assert kv.current("model") == "Qwen/Qwen3-0.6B"
    assert kv.value("kv_cache_bytes") == str(lc.kv_cache_bytes(qwen, 8192))
    bh.screenshot(page, "lab-hub-explorer-message", kv.root)

    # and the explorer keeps working: a slider moves, the message goes
    kv.set("num_key_value_heads", 4)
    kv.expect_value("kv_cache_bytes", lc.kv_cache_bytes(qwen.replace(num_key_value_heads=4), 8192))
    kv.expect_no_error()
    assert bh.problems(page, ".jp-Notebook") == []
    assert bh.popups(page) == []
    assert page.errors == []
    assert hub.refused == []
