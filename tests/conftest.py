import os

import pytest

import llmcourse as lc

# No test reaches the real Hugging Face Hub: huggingface_hub (in this process, in nbval's
# kernels and in the browser tests' Jupyter servers, which inherit this environment) is
# offline. The Hub tests give their own processes a local Hub (tests/hub_server.py).
os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(params=lc.list_models())
def zoo_name(request):
    return request.param


def in_ci():
    return os.environ.get("CI", "").lower() not in ("", "0", "false")
