"""Lessons 9 and 10's explorers, tables and figures: thin views that show the engine's
numbers (will it fit: the idealised plan beside vLLM's budget; how fast: the decode bound
per GPU against batch)."""

import pytest

import llmcourse as lc
from llmcourse.widgets import EXPLORERS


def test_explorer_is_registered_and_shows_the_engines_numbers():
    ex = EXPLORERS["fit"]()
    assert ex.error == ""
    plan = lc.memory_plan("Qwen3-30B-A3B", "H100", seq_len=32768, batch=8)
    assert ex.value("weight_bytes") == plan.weight_bytes
    assert ex.value("kv_cache_bytes") == plan.kv_cache_bytes == 8 * 32768 * 48 * 2 * 4 * 128 * 2
    assert ex.value("fits") is False
    assert ex.value("max_batch") == lc.max_batch("Qwen3-30B-A3B", "H100", seq_len=32768)
    assert ex.value("max_context") == lc.max_context("Qwen3-30B-A3B", "H100", batch=8).tokens
    ex.set(weights="int4-g128", kv_dtype="fp8", gpu="A100 SXM 40GB")
    assert ex.value("fits") is True
    assert ex.value("weight_bytes") == lc.stored_weights("Qwen3-30B-A3B", "int4-g128").total
    assert ex.image.value[:4] == b"\x89PNG"


def test_bad_setting_shows_one_line_and_the_explorer_recovers():
    ex = EXPLORERS["fit"]()
    before = ex.value("weight_bytes")
    ex.set(n_gpus=0)
    assert ex.error.startswith("n_gpus:") and "\n" not in ex.error
    assert ex.value("weight_bytes") == before          # the last valid table stays
    ex.set(n_gpus=2)
    assert ex.error == "" and ex.value("capacity_bytes") == 160 * 10**9


def test_weights_that_do_not_fit_are_an_answer_not_an_error():
    ex = EXPLORERS["fit"]()
    ex.set(model="DeepSeek-V3", gpu="RTX 4090 24GB")
    assert ex.error == ""
    assert ex.value("fits") is False and ex.value("max_batch") == 0


def test_tables_and_figures():
    t = lc.tables.gpu_table(formatted=False)
    assert list(t.index) == lc.list_gpus()
    assert t.loc["H100 SXM 80GB", "FLOPs/byte (bf16)"] == pytest.approx(989.4e12 / 3.35e12)
    w = lc.tables.weights_table("gpt-oss-20b", formatted=False)
    assert w.loc["as shipped (mxfp4)", "stored (GB)"] == pytest.approx(13.761264768)
    lim = lc.tables.limits_table(["Qwen3-8B", "DeepSeek-V2"], "H200", formatted=False)
    assert lim.loc["DeepSeek-V2", "longest context in memory, batch 1"].startswith("none (weights)")
    from matplotlib.figure import Figure
    assert isinstance(lc.plots.fit_and_speed("Qwen3-8B", "L4", weights="int4-g128"), Figure)
    fig = lc.plots.decode_speed_vs_context([("GQA", "Llama-3.1-8B")], "H100", batch=4)
    assert isinstance(fig, Figure)


def test_fit_figure_title_states_where_memory_runs_out():
    # Llama-3.1-8B, bf16, 8,192 tokens on one H100: 72e9 usable B minus 2 x 8,030,261,248 B of
    # weights, over 8,192 x 2 x 32 x 8 x 128 x 2 B of cache per sequence = 52.09 -> batch 52;
    # the ridge point 989.4e12 / 3.35e12 = 295.3
    fig = lc.plots.fit_and_speed("Llama-3.1-8B", "H100", weights="bf16", seq_len=8192, batch=16)
    assert fig.get_suptitle() == ("Llama-3.1-8B, 1 x H100: fits up to batch 52, below the "
                                  "critical batch 295")
    big = lc.plots.fit_and_speed("Llama-3.1-8B", "H100", weights="bf16", seq_len=8192, batch=64)
    assert big.get_suptitle().endswith("batch 64 at 8,192 tokens does not fit")


def test_attention_kinds_keep_the_course_colours():
    from llmcourse.plots.style import CONCEPT_COLORS, CONCEPT_DASHES
    llama = lc.load_model("Llama-3.1-8B")
    fig = lc.plots.decode_speed_vs_context(
        [("MHA", llama.replace(num_key_value_heads=32), "mha"), ("GQA", llama, "gqa")], "H100")
    lines = [ln for ln in fig.axes[0].get_lines() if ln.get_alpha() is None]
    assert [ln.get_color() for ln in lines] == [CONCEPT_COLORS["mha"], CONCEPT_COLORS["gqa"]]
    assert [ln.get_linestyle() for ln in lines] == [CONCEPT_DASHES["mha"], CONCEPT_DASHES["gqa"]]


def test_gpu_table_names_the_rate_a_chip_without_bf16_uses():
    t = lc.tables.gpu_table()
    assert t.loc["Mac Studio M2 Ultra 192GB", "bf16 TFLOP/s"] == "27.2 (fp32)"
    assert t.loc["Mac Studio M2 Ultra 192GB", "FLOPs/byte (bf16)"] == "34"     # 27.2e12 / 0.8e12


def test_explorer_shows_vllms_startup_plan_per_gpu():
    ex = EXPLORERS["fit"]()
    ex.set(model="Llama-3.1-8B", gpu="H100 SXM 80GB", weights="bf16", seq_len=8192)
    # today's release and its default utilization (0.92 since vLLM PR 38284), said in the rows
    plan = lc.vllm_plan("Llama-3.1-8B", "H100", max_model_len=8192, weights="bf16")
    assert plan.vllm_version == lc.serving.CURRENT_VLLM and plan.gpu_memory_utilization == 0.92
    assert ex.value("vllm_starts") is True
    assert ex.value("vllm_kv_bytes") == plan.kv_budget_bytes
    # Model Runner V2 (today's for a dense model) subtracts no CUDA-graph estimate
    assert plan.model_runner == "v2" and ex.value("vllm_cuda_graph_bytes") == 0
    assert "Model Runner V2" in next(r.text for r in ex.rows
                                     if r.key == "vllm_cuda_graph_bytes")
    assert all(r.label.startswith(f"vLLM {plan.vllm_version}") for r in ex.rows
               if r.key.startswith("vllm_"))
    # the concurrency as vLLM logs it, and how many requests that serves at once
    text = next(r.text for r in ex.rows if r.key == "vllm_concurrency")
    assert text.startswith(f"{plan.max_concurrency:,.2f}x: {plan.concurrent_requests:,} requests")
    # the release menu: 0.11 budgets with its sort sampler and its graphs in the headroom
    ex.set(vllm_version="0.11", utilization=0.9)
    old = lc.vllm_plan("Llama-3.1-8B", "H100", max_model_len=8192, weights="bf16",
                       vllm_version="0.11")
    assert ex.value("vllm_kv_bytes") == old.kv_budget_bytes < plan.kv_budget_bytes
    assert ex.value("vllm_cuda_graph_bytes") == 0
    assert all(r.label.startswith("vLLM 0.11") for r in ex.rows if r.key.startswith("vllm_"))
    # a GPU whose runtime total no log gives: the plan says so beside the figure
    ex.set(vllm_version=lc.serving.CURRENT_VLLM, utilization=0.92, gpu="H20 96GB")
    text = next(r.text for r in ex.rows if r.key == "vllm_total_bytes")
    assert text.endswith("(datasheet capacity, runtime unknown)")
    ex.set(gpu="H100 SXM 80GB")
    # three GPUs: the ideal pool fits, vLLM cannot split 32 heads three ways
    ex.set(n_gpus=3)
    assert ex.error == "" and ex.value("fits") is True
    assert ex.value("vllm_starts") is False
    text = next(r.text for r in ex.rows if r.key == "vllm_starts")
    assert text.startswith("tensor_parallel_size:") and "(32)" in text
    # a lower utilization leaves less cache
    ex.set(n_gpus=1, utilization=0.5)
    assert ex.value("vllm_kv_bytes") < plan.kv_budget_bytes
    # int4: vLLM's int4_per_token_head cache (0.24 on), scales included
    ex.set(kv_dtype="int4")
    assert ex.error == "" and ex.value("vllm_starts") is True
    int4 = lc.vllm_plan("Llama-3.1-8B", "H100", max_model_len=8192, weights="bf16",
                        gpu_memory_utilization=0.5, kv_cache_dtype="int4_per_token_head")
    assert ex.value("vllm_kv_bytes") == int4.kv_budget_bytes
    # ... which 0.11 refuses, in place
    ex.set(vllm_version="0.11")
    assert ex.error == "" and ex.value("vllm_starts") is False
    # a GPU count no setup has is a one-line message; a Mac is not planned under CUDA's budget
    ex.set(vllm_version=lc.serving.CURRENT_VLLM, kv_dtype="bf16", n_gpus=10**9)
    assert ex.error.startswith("n_gpus: at most")
    ex.set(n_gpus=1, gpu="MacBook Pro M3 Max 128GB")
    assert ex.error == "" and ex.value("vllm_starts") is False
    assert "metal" in next(r.text for r in ex.rows if r.key == "vllm_starts")


def test_fit_figure_shows_the_idealised_plan_beside_vllms_budget_on_one_gpu():
    """Left bar: weights + KV + reserve in GB against the datasheet; right bar: vLLM's parts
    on one GPU in GiB, stacked to what the runtime reports (the headroom on top)."""
    data = lc.plots.fit_data("Llama-3.1-8B", "H100", weights="bf16", seq_len=8192)
    fig = lc.plots.fit_figure("Llama-3.1-8B", "H100", weights="bf16", seq_len=8192)
    left, right = fig.axes
    plan, v = data["plan"], data["vllm"]
    assert v == lc.vllm_plan("Llama-3.1-8B", "H100", max_model_len=8192, weights="bf16")
    heights = [round(p.get_height(), 6) for p in left.patches]
    assert heights == [round(x / 1e9, 6) for x in (plan.weight_bytes, plan.cache_bytes,
                                                  plan.reserve_bytes)]
    tops = [p.get_y() + p.get_height() for p in right.patches]
    assert abs(max(tops) - v.total_bytes / 2**30) < 1e-9     # the parts fill what is reported
    assert f"{v.kv_tokens:,} tokens" in right.get_title()
    # vLLM refusing: a short title, and its whole message inside the panel (not clipped)
    three = lc.plots.fit_figure("Llama-3.1-8B", "H100", n_gpus=3, seq_len=8192)
    right = three.axes[1]
    assert right.get_title().endswith("refuses")
    shown = " ".join(t.get_text().replace("\n", " ") for t in right.texts)
    assert "must be divisible by tensor parallel size (3)." in shown


def test_speed_explorer_shows_the_per_gpu_bound_and_both_critical_batches():
    ex = EXPLORERS["speed"]()
    assert ex.error == ""
    b = lc.serving.decode_step_per_gpu("Qwen3-30B-A3B", "H100", 1, "as shipped", "bf16", 8192, 8)
    assert ex.value("tokens_per_s_per_user") == round(b.tokens_per_s_per_user, 2)
    assert ex.value("critical_batch") == round(lc.critical_batch("H100", "bf16"), 1)
    # each routed expert sees b x k / E tokens: its ridge is E / k = 16 times further out
    assert ex.value("expert_critical_batch") == round(lc.critical_batch("H100", "bf16") * 16, 1)
    ex.set(model="Meta-Llama-3-70B", n_gpus=4, weights="bf16", seq_len=4096, batch=1)
    assert ex.error == "" and "expert_critical_batch" not in {r.key for r in ex.rows}
    b4 = lc.serving.decode_step_per_gpu("Meta-Llama-3-70B", "H100", 4, "bf16", "bf16", 4096, 1)
    assert ex.value("step_ms") == round(b4.seconds * 1e3, 4) and b4.t_allreduce > 0
    # the all-reduces' latency, beside the bound: 160 x 6 us (lc.serving_systems)
    cost = lc.serving_systems.tp_allreduce_cost("Meta-Llama-3-70B", "H100", 4, 1, "bf16", 4096)
    assert ex.value("t_allreduce_latency_ms") == round(cost.latency_s * 1e3, 4) == 0.96
    e = lc.expected_decode_speed("Meta-Llama-3-70B", "H100", "vLLM", 4, "bf16", "bf16", 4096)
    assert ex.value("expected_vllm") == round(e.expected_tokens_per_s, 1)
    ex.set(n_gpus=3)                       # 64 heads cannot be split three ways
    assert ex.error.startswith("tensor_parallel_size:") and "\n" not in ex.error
    ex.set(n_gpus=2)
    assert ex.error == ""


def test_expert_critical_batch_is_the_dense_one_times_e_over_k():
    assert lc.plots.expert_critical_batch("Llama-3.1-8B", "H100") is None
    q = lc.load_model("Mixtral-8x7B-v0.1")            # 8 experts, 2 per token
    assert lc.plots.expert_critical_batch(q, "H200") == lc.critical_batch("H200") * 4
