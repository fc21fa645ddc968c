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


# the course's teaching layers (tables, exercises, plots, widgets, notebooks, the browser):
# `make test-fast` leaves them out and tests the engine alone (pyproject's "course" marker)
COURSE_TESTS = ("test_topic_", "test_figures", "test_palette", "test_widgets_base",
                "test_hub_widgets", "test_inference_explorer", "test_inference_colours",
                "test_training_widget", "test_serving_logs_plots", "test_course_command",
                "test_exercises", "test_lessons", "test_explorers_every_option",
                "test_notebook_text", "test_seed_listing")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name.startswith(COURSE_TESTS) or "browser" in item.path.parts:
            item.add_marker(pytest.mark.course)
