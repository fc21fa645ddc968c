"""Every lesson in a real browser: in JupyterLab as a reader meets it, and in Voila
as a lecturer shows it on a projector.

JupyterLab: open the notebook (a copy with outputs cleared), Run All Cells, no
error output, every explorer is a live widget; then for each explorer change a
control as a person would and see the engine's exact value for the new setting,
type an impossible setting and see the engine's one-line message, and put the
control back and see the widget work again. Voila (`make lecture`, a lecture copy):
the page loads without code and without the student's material (no exercise, answer
cell or worked solution, not even collapsed), the explorers render, a change updates
the table and the figure.

Screenshots (1280x800 in JupyterLab, 1280x720 in Voila) go to
artifacts/screenshots/. Adding a notebook = adding one entry to SPECS.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

import browser_helpers as bh
from browser_helpers import ExplorerCheck, Invalid, NotebookSpec
import llmcourse as lc
from student_text import student_text_in

pytestmark = pytest.mark.browser


@lru_cache(maxsize=None)
def model(name):
    return lc.load_model(name)


LLAMA3_8B = "Meta-Llama-3-8B"

# One entry per notebook: its explorers (as the notebook builds them) and what a
# person does with each. ``expect`` is the engine's own value for the new setting;
# ``Invalid.engine`` is the engine call that rejects the typed setting (the page
# must show exactly its message).
SPECS = [
    NotebookSpec("00_start_here_anatomy.ipynb", [
        # lc.widgets.layer_anatomy_explorer("gemma-2-2b"): layer 0, bf16
        ExplorerCheck("layer_anatomy", control="model", value="Qwen3-0.6B", key="total",
                      expect=lambda: lc.param_count(model("Qwen3-0.6B")).total,
                      invalid=Invalid("num_key_value_heads", 5, lambda: model("Qwen3-0.6B")
                                      .replace(num_key_value_heads=5))),
    ]),
    NotebookSpec("01_heads_and_head_dim.ipynb", [
        # lc.widgets.heads_explorer("Mistral-Nemo-Base-2407"): 32 heads of 128, 8 KV heads
        ExplorerCheck("heads", control="num_attention_heads", value=64, key="total",
                      expect=lambda: lc.param_count(
                          model("Mistral-Nemo-Base-2407").replace(num_attention_heads=64)).total,
                      no_invalid="no free box: the KV slider offers only divisors of the heads "
                                 "and follows the head count"),
    ]),
    NotebookSpec("02_gqa_and_kv_cache.ipynb", [
        # lc.widgets.kv_cache_explorer("Qwen2-7B", seq_len=8192, batch=1): 28 heads, 4 KV heads;
        # the window box works once a pattern has sliding layers
        ExplorerCheck("kv_cache", control="num_key_value_heads", value=7, key="kv_cache_bytes",
                      steps=[("layers", "alternate sliding/full")],
                      expect=lambda: lc.kv_cache_bytes(lc.widgets.with_layer_pattern(
                          model("Qwen2-7B").replace(num_key_value_heads=7),
                          "alternate sliding/full", 4096), 8192),
                      invalid=Invalid("sliding_window", 0, lambda: lc.widgets.with_layer_pattern(
                          model("Qwen2-7B").replace(num_key_value_heads=7),
                          "alternate sliding/full", 0))),
    ]),
    NotebookSpec("03_caches_that_shrink.ipynb", [
        # lc.widgets.kv_cache_explorer("gemma-4-31B", seq_len=32768, batch=1): 32 heads, 16 KV
        ExplorerCheck("kv_cache", control="num_key_value_heads", value=8, key="kv_cache_bytes",
                      expect=lambda: lc.kv_cache_bytes(
                          model("gemma-4-31B").replace(num_key_value_heads=8), 32768),
                      invalid=Invalid("sliding_window", 0, lambda: model("gemma-4-31B")
                                      .replace(num_key_value_heads=8, sliding_window=0))),
    ]),
    NotebookSpec("04_caches_that_stop_growing.ipynb", [
        # lc.widgets.kv_cache_explorer("Nemotron-3-Nano-30B-A3B", seq_len=131072): 32 heads, 2 KV
        ExplorerCheck("kv_cache", control="num_key_value_heads", value=4, key="kv_cache_bytes",
                      expect=lambda: lc.kv_cache_bytes(
                          model("Nemotron-3-Nano-30B-A3B").replace(num_key_value_heads=4), 131072),
                      no_invalid="no free box is live for Nemotron: no layer slides, so the "
                                 "window box is off"),
    ]),
    NotebookSpec("05_ffn_sizing.ipynb", [
        # lc.widgets.ffn_explorer("Llama-3.1-8B", seq_len=4096): intermediate_size 14,336
        ExplorerCheck("ffn", control="intermediate_size", value=28672, key="total_params",
                      expect=lambda: lc.param_count(
                          model("Llama-3.1-8B").replace(intermediate_size=28672)).total,
                      invalid=Invalid("intermediate_size", 0, lambda: model("Llama-3.1-8B")
                                      .replace(intermediate_size=0))),
    ]),
    NotebookSpec("06_depth_and_width.ipynb", [
        # lc.widgets.depth_width_explorer("Meta-Llama-3-8B"): 32 layers, d 4096, 32 heads
        ExplorerCheck("depth_width", control="num_hidden_layers", value=33, key="total",
                      expect=lambda: lc.param_count(
                          model(LLAMA3_8B).replace(num_hidden_layers=33)).total,
                      invalid=Invalid("num_attention_heads", 33, lambda: model(LLAMA3_8B)
                                      .replace(num_hidden_layers=33, num_attention_heads=33))),
    ]),
    NotebookSpec("07_moe_vs_dense.ipynb", [
        # lc.widgets.moe_explorer("Qwen3-30B-A3B"): 128 routed experts, top-8
        ExplorerCheck("moe", control="num_experts", value=160, key="total",
                      expect=lambda: lc.param_count(
                          model("Qwen3-30B-A3B").replace(num_experts=160)).total,
                      invalid=Invalid("num_experts_per_tok", 200, lambda: model("Qwen3-30B-A3B")
                                      .replace(num_experts=160, num_experts_per_tok=200))),
    ]),
    NotebookSpec("08_whatif_lab.ipynb", [
        # lab = lc.widgets.whatif_lab("Meta-Llama-3-8B"): context 8,192, batch 1
        ExplorerCheck("whatif", control="seq_len", value=16384, key="kv_cache_bytes",
                      expect=lambda: lc.kv_cache_bytes(model(LLAMA3_8B), 16384),
                      invalid=Invalid("num_key_value_heads", 5, lambda: model(LLAMA3_8B)
                                      .replace(num_key_value_heads=5))),
    ]),
    NotebookSpec("09_will_it_fit.ipynb", [
        # lc.widgets.fit_explorer(): Qwen3-30B-A3B on 1 x H100, as shipped, bf16 cache, 8 x 32K,
        # today's vLLM at 0.92; int4 weights, then the release menu set to 0.11
        ExplorerCheck("fit", control="vllm_version", value="0.11",
                      key="vllm_kv_bytes",
                      expect=lambda: lc.vllm_plan(
                          model("Qwen3-30B-A3B"), "H100 SXM 80GB", max_model_len=32768,
                          weights="int4-g128", gpu_memory_utilization=0.92,
                          vllm_version="0.11").kv_budget_bytes,
                      steps=[("weights", "int4-g128")],
                      invalid=Invalid("n_gpus", 0, lambda: lc.memory_plan(
                          model("Qwen3-30B-A3B"), "H100 SXM 80GB", n_gpus=0))),
    ]),
    NotebookSpec("10_how_fast.ipynb", [
        # lc.widgets.speed_explorer(): Qwen3-30B-A3B on 1 x H100, as shipped, bf16 cache, 8K, batch 8
        ExplorerCheck("speed", control="batch", value=16, key="tokens_per_s_per_user",
                      expect=lambda: round(lc.serving.decode_step_per_gpu(
                          model("Qwen3-30B-A3B"), "H100 SXM 80GB", 1, "as shipped", "bf16", 8192,
                          16).tokens_per_s_per_user, 2),
                      # 32 query heads cannot be split over 3 GPUs
                      invalid=Invalid("n_gpus", 3, lambda: lc.serving.check_parallelism(
                          model("Qwen3-30B-A3B"), 3))),
    ]),
    NotebookSpec("11_training_memory.ipynb", [
        # lc.widgets.training_explorer(): Llama-3.1-8B, 8,192 x 1, the Trainer with FSDP
        # full_shard (fsdp-bf16, fused AdamW, ZeRO-3, first micro-batch), 8 x H100; the tool
        # menu set to DeepSpeed ZeRO-3 first, then ZeRO-2 is DeepSpeed's ZeRO-2 setup
        ExplorerCheck("training", control="zero_stage", value=2, key="peak",
                      steps=[("tool", "HF Trainer + DeepSpeed ZeRO-3")],
                      expect=lambda: lc.training_memory(model("Llama-3.1-8B"), 8192, 1,
                                                        **lc.setup_settings(
                                                            "hf-trainer-deepspeed-zero2",
                                                            dp=8)).peak,
                      invalid=Invalid("n_gpus", 0, lambda: lc.training.data_parallel_size(0))),
    ]),
    NotebookSpec("12_training_compute.ipynb", [
        # lc.widgets.compute_explorer(): Llama-3.1-8B, 8,192 tokens, 64 x H100, 4 stages, 8
        # micro-batches, 1F1B
        ExplorerCheck("compute", control="num_micro_batches", value=16, key="bubble",
                      expect=lambda: float(lc.training.pipeline_bubble(4, 16)),
                      # 4 pipeline stages cannot be laid over 6 GPUs
                      invalid=Invalid("n_gpus", 6, lambda: lc.training.data_parallel_size(
                          6, 1, 1, 4))),
    ]),
]


def test_every_notebook_has_a_spec():
    """A new notebook needs an entry in SPECS (so its explorers get driven too)."""
    on_disk = sorted(p.name for p in bh.NOTEBOOKS.glob("[0-9]*.ipynb"))
    assert sorted(s.notebook for s in SPECS) == on_disk


def exercise(page, check: ExplorerCheck, view: bh.ExplorerView, shot: str, invalid=True):
    """Change a control as a person would and compare with the engine; then (if
    ``invalid``) an impossible setting, and back. Screenshots along the way."""
    from playwright.sync_api import expect
    assert view.error.inner_text().strip() == "", f"{check.explorer} starts with a message"
    has_figure = view.figure.count() > 0
    if has_figure:
        expect(view.figure.first).to_have_js_property("complete", True)
        assert view.figure_loaded(), f"{check.explorer}: the figure did not load"
    for control, value in check.steps:
        view.set(control, value)

    # 1. a change: the engine's exact value for the new setting, a new figure
    before, before_text, src = view.value(check.key), view.text(check.key), view.figure_src()
    expected = check.expect()
    assert str(expected) != before, f"spec: {check.control}={check.value!r} must change {check.key}"
    view.set(check.control, check.value)
    view.expect_value(check.key, expected)
    view.expect_no_error()
    assert view.current(check.control) == str(check.value)
    assert view.text(check.key) != before_text, "the number a reader sees did not change"
    if has_figure:
        expect(view.figure.first).not_to_have_attribute("src", src or "", timeout=bh.UPDATE_MS)
        page.wait_for_function("e => e.complete && e.naturalWidth > 0",
                               arg=view.figure.first.element_handle(), timeout=bh.UPDATE_MS)
    bh.screenshot(page, shot, view.root)
    if has_figure:
        bh.screenshot(page, f"{shot}-figure", view.figure.first, block="end")

    # 2. an impossible setting: the engine's one-line message, the last valid table
    if not (invalid and check.invalid):
        return
    bad = check.invalid
    message = bh.engine_message(bad.engine)
    assert "\n" not in message and "Traceback" not in message
    good, valid = view.current(bad.control), view.value(check.key)
    view.set(bad.control, bad.value)
    view.expect_error(message)
    if view.kind(bad.control) != "slider":  # (a slider passes valid settings on its way)
        assert view.value(check.key) == valid, "the table should keep the last valid setting"
    assert view.cell(check.key).count() == 1, "the table should stay on the page"
    assert bh.problems(page) == [], "a traceback reached the page"
    bh.screenshot(page, f"{shot}-message", view.error, block="center")

    # 3. still usable: put the control back; the message goes, the numbers return
    view.set(bad.control, good)
    view.expect_no_error()
    view.expect_value(check.key, valid)


def _explorers_on_page(page):
    return sorted(page.evaluate("""() => [...document.querySelectorAll('.lc-explorer')].map(
        e => [...e.classList].find(c => c.startsWith('lc-explorer-')).slice('lc-explorer-'.length))"""))


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_notebook_in_jupyterlab(spec, lab, lab_root, lab_page):
    path = lab_root / "notebooks" / spec.notebook
    assert path.exists(), f"{spec.notebook} is in SPECS but not in notebooks/"
    page = lab_page
    book = bh.LabNotebook(page, lab, f"notebooks/{spec.notebook}", f"nb-{spec.stem}")
    book.run_all(bh.code_cell_count(path))
    views = [bh.ExplorerView(page, c.explorer, c.nth).wait_rendered() for c in spec.explorers]
    assert _explorers_on_page(page) == sorted(c.explorer for c in spec.explorers), (
        "every explorer in the notebook needs an entry in SPECS")
    assert bh.problems(page, ".jp-Notebook") == []
    for check, view in zip(spec.explorers, views):
        exercise(page, check, view, f"lab-{spec.stem}-{check.explorer}")
    assert bh.problems(page, ".jp-Notebook") == []
    assert bh.popups(page) == [], "something covers the notebook"
    assert page.errors == [], "JavaScript errors on the page"


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_notebook_as_lecture(spec, request, voila_root, projector_page):
    """`make lecture` (LAB=...) shows the lesson in Voila: no code, nothing of the student's
    (no exercise, answer cell, worked solution or how-to-use text), live explorers."""
    assert (voila_root / spec.notebook).exists()
    if spec.notebook == bh.lecture_default():  # exactly `voila notebooks/<LAB>`
        url = request.getfixturevalue("voila_lab").url + "/"
    else:
        url = f"{request.getfixturevalue('voila_tree').url}/voila/render/{spec.notebook}"
    page = projector_page
    page.goto(url, wait_until="commit", timeout=bh.PAGE_LOAD_MS)
    views = [bh.ExplorerView(page, c.explorer, c.nth).wait_rendered(timeout=bh.RUN_ALL_MS)
             for c in spec.explorers]
    assert page.locator(".jp-CodeCell .jp-InputArea:visible, .cm-editor:visible").count() == 0, (
        "code is shown")
    assert bh.problems(page) == []
    found = student_text_in(bh.page_text(page))
    assert found == [], f"the student's material on the projector: {found}"
    bh.screenshot(page, f"lecture-{spec.stem}-top")
    for check, view in zip(spec.explorers, views):
        exercise(page, check, view, f"lecture-{spec.stem}-{check.explorer}", invalid=False)
    assert bh.problems(page) == []
    assert bh.popups(page) == []
    assert page.errors == [], "JavaScript errors on the page"


def test_whatif_lab_answers_a_billion_layers_within_a_second(lab, lab_root, lab_page):
    """As a reader would try it: type 1,000,000,000 into the lab's layers box
    and the exact answer is on the page within a second; type 32 and the table and the
    figure are back within a second."""
    from playwright.sync_api import expect
    notebook = "08_whatif_lab.ipynb"
    page = lab_page
    book = bh.LabNotebook(page, lab, f"notebooks/{notebook}", "nb-08-billion-layers")
    book.run_all(bh.code_cell_count(lab_root / "notebooks" / notebook))
    view = bh.ExplorerView(page, "whatif").wait_rendered()
    view.control("num_hidden_layers").evaluate("e => e.scrollIntoView({block: 'center'})")
    big = model(LLAMA3_8B).replace(num_hidden_layers=1_000_000_000)
    src = view.figure_src()
    view.set("num_hidden_layers", 1000000000)
    view.expect_value("total_params", lc.param_count(big).total, timeout=1000)
    view.expect_value("kv_cache_bytes", lc.kv_cache_bytes(big, 8192), timeout=1000)
    view.expect_no_error(timeout=1000)
    expect(view.figure.first).not_to_have_attribute("src", src or "", timeout=1000)
    bh.screenshot(page, "lab-08_whatif_lab-billion-layers", view.root)
    src = view.figure_src()
    view.set("num_hidden_layers", 32)
    view.expect_value("total_params", lc.param_count(model(LLAMA3_8B)).total, timeout=1000)
    view.expect_no_error(timeout=1000)
    expect(view.figure.first).not_to_have_attribute("src", src or "", timeout=1000)
    page.wait_for_function("e => e.complete && e.naturalWidth > 0",
                           arg=view.figure.first.element_handle(), timeout=1000)
    assert bh.problems(page, ".jp-Notebook") == []
