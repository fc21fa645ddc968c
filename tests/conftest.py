import os

import pytest

import llmcourse as lc


@pytest.fixture(params=lc.list_models())
def zoo_name(request):
    return request.param


def in_ci():
    return os.environ.get("CI", "").lower() not in ("", "0", "false")
