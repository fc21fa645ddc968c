"""Pipeline parallelism in training_memory: which layers a stage holds, how many
micro-batches it keeps in flight, and what that costs, held against an independent
derivation of each piece (the schedule's own loop, param_count, layer_activation_bytes)."""

from fractions import Fraction

import pytest

import llmcourse as lc
from llmcourse.config import ConfigError
from llmcourse.counts import param_count
from llmcourse.training import (fewest_gpus, in_flight_micro_batches, layer_activation_bytes,
                                pipeline_bubble, pipeline_stages, training_memory)

LLAMA = lc.load_model("Llama-3.1-8B")      # 32 layers, untied
GEMMA = lc.load_model("gemma-2-2b")        # 26 layers, tied embedding


def megatron_1f1b_max_in_flight(pp, m, rank):
    """The most forwards a stage has run whose backward has not: Megatron-LM's
    forward_backward_pipelining_without_interleaving, step by step: rank r runs
    min(pp - r - 1, m) warm-up forwards, then one forward and one backward in turn for
    the remaining micro-batches, then the cool-down backwards."""
    warmup = min(pp - rank - 1, m)
    held = most = 0
    for _ in range(warmup):
        held += 1
        most = max(most, held)
    for _ in range(m - warmup):
        held += 1                  # forward
        most = max(most, held)
        held -= 1                  # its partner backward
    for _ in range(warmup):
        held -= 1
    assert held == 0
    return most


@pytest.mark.parametrize("pp,m", [(2, 1), (2, 8), (4, 2), (4, 4), (4, 16), (8, 3), (16, 64)])
def test_1f1b_in_flight_follows_megatrons_schedule(pp, m):
    for rank in range(pp):
        assert in_flight_micro_batches(rank, pp, m, "1f1b") == megatron_1f1b_max_in_flight(pp, m, rank)
        assert in_flight_micro_batches(rank, pp, m, "gpipe") == m   # every forward first


def test_stages_split_the_layers_evenly_first_stages_taking_the_rest():
    ds = lc.load_model("DeepSeek-V3")   # 61 layers
    assert pipeline_stages(ds, 4) == [(0, 16), (16, 31), (31, 46), (46, 61)]
    assert pipeline_stages(LLAMA, 4) == [(0, 8), (8, 16), (16, 24), (24, 32)]
    assert pipeline_stages(LLAMA, 32)[-1] == (31, 32)


def _stage_params(mem):
    # fp32 weights and plain SGD, no sharding: weights are 4 B per parameter
    return [st.params // 4 for st in mem.pipeline["stages"]]


@pytest.mark.parametrize("name", ["Llama-3.1-8B", "gemma-2-2b", "DeepSeek-V3", "Qwen3-Next-80B-A3B",
                                  "gemma-4-E2B", "Nemotron-3-Nano-30B-A3B"])
@pytest.mark.parametrize("pp", [2, 3, 4])
def test_the_stages_hold_the_whole_model_once_and_a_tied_head_twice(name, pp):
    cfg = lc.load_model(name)
    mem = training_memory(cfg, 256, precision="fp32", optimizer="sgd", pp=pp)
    pc = param_count(cfg.text_model)  # the stages hold the language model (not a tower)
    extra = cfg.vocab_size * cfg.hidden_size if cfg.tie_word_embeddings else 0
    assert sum(_stage_params(mem)) == pc.total + extra
    # the first stage has the embedding, the last the head
    emb = pc.components["embedding"]
    assert _stage_params(mem)[0] > emb and _stage_params(mem)[-1] > cfg.vocab_size * cfg.hidden_size


def test_the_first_stage_keeps_the_whole_models_layer_activations_under_1f1b():
    # Korthikanti et al. 2022, 4.2.3: pp micro-batches of L / pp layers = L layers' worth
    per_layer = sum(n * b for n, _, b in layer_activation_bytes(LLAMA, 4096))
    whole = training_memory(LLAMA, 4096)
    for pp in (2, 4, 8):
        first = training_memory(LLAMA, 4096, pp=pp, num_micro_batches=16).pipeline["stages"][0]
        layer_terms = {k: v for k, v in first.activation_terms.items()
                       if k not in ("token_ids", "rotary_tables")}
        assert sum(layer_terms.values()) == per_layer
        assert first.activation_terms["token_ids"] == pp * whole.activation_terms["token_ids"]
        assert first.logits == 0 and first.transients["loss_grads"] == 0


def test_the_last_stage_under_gpipe_keeps_every_micro_batchs_logits():
    whole = training_memory(LLAMA, 2048)
    last = training_memory(LLAMA, 2048, pp=4, pp_schedule="gpipe",
                           num_micro_batches=8).pipeline["stages"][-1]
    assert last.logits == 8 * whole.logits
    # the loss's gradient is one micro-batch's, at the start of its backward
    assert last.transients == {**last.transients, "loss_grads":
                               whole.transients["loss_grads"]}
    one_f1b = training_memory(LLAMA, 2048, pp=4, num_micro_batches=8).pipeline["stages"][-1]
    assert one_f1b.logits == whole.logits     # 1F1B: the last stage holds one micro-batch


def test_the_answer_is_the_stage_with_the_highest_peak():
    mem = training_memory(GEMMA, 4096, pp=4)
    peaks = [st.peak for st in mem.pipeline["stages"]]
    assert mem.peak == max(peaks) and mem.pipeline["stage"] == peaks.index(max(peaks))
    assert mem.pipeline["layers"] == pipeline_stages(GEMMA, 4)[mem.pipeline["stage"]]
    # a pipeline divides the weights: every stage holds less than the whole model
    assert all(st.states < training_memory(GEMMA, 4096).states for st in mem.pipeline["stages"])


def test_fewest_gpus_with_a_pipeline_is_a_multiple_of_pp_and_the_least():
    for pp in (2, 4):
        n = fewest_gpus(LLAMA, "H100-80GB", 8192, recompute="full", pp=pp)
        assert n % pp == 0
        dp = n // pp
        cap = 0.9 * 80e9
        assert training_memory(LLAMA, 8192, recompute="full", zero_stage=3, dp=dp, pp=pp).peak <= cap
        if dp > 1:
            assert training_memory(LLAMA, 8192, recompute="full", zero_stage=3, dp=dp - 1,
                                   pp=pp).peak > cap


def test_the_bubble_is_pp_minus_one_over_m_plus_pp_minus_one():
    assert pipeline_bubble(4, 16) == pytest.approx(3 / 19)
    assert pipeline_bubble(1, 8) == 0


@pytest.mark.parametrize("kw,field", [(dict(pp=0), "pp"), (dict(pp=33), "pp"), (dict(pp=2.0), "pp"),
                                      (dict(pp=2, pp_schedule="zero-bubble"), "pp_schedule"),
                                      (dict(pp=2, num_micro_batches=0), "num_micro_batches")])
def test_bad_pipeline_settings_are_one_line_errors(kw, field):
    with pytest.raises(ConfigError) as e:
        training_memory(LLAMA, 1024, **kw)
    msg = str(e.value)
    assert msg.startswith(field + ":") and "\n" not in msg


# --- against PyTorch: a real schedule run stage by stage on CPU --------------------------

@pytest.mark.slow
@pytest.mark.parametrize("model,layers,pp,m,kind", [
    ("llama (GQA 8:2, SwiGLU)", 4, 2, 4, "1f1b"),
    ("llama (GQA 8:2, SwiGLU)", 4, 2, 4, "gpipe"),
    ("llama (GQA 8:2, SwiGLU)", 5, 3, 2, "1f1b"),     # uneven stages (2, 2, 1), m < pp
    ("qwen3 (QK-norm, head_dim 64)", 4, 4, 6, "1f1b"),  # tied head, one layer per stage
])
def test_each_stage_saves_what_pytorch_saves_under_the_schedule(model, layers, pp, m, kind):
    import stored_rows  # noqa: F401  (puts the repository root on sys.path)
    from measurements.pipeline_stages import measure
    from measurements.saved_activations import MODELS
    config = dict(MODELS[model], num_hidden_layers=layers)
    measured = measure(config, pp, m, 2, 64, kind)
    mem = training_memory(lc.from_hf_config(config), 64, 2, precision="fp32", pp=pp,
                          pp_schedule=kind, num_micro_batches=m)
    assert [st.saved_for_backward for st in mem.pipeline["stages"]] == measured


# --- interleaved 1F1B and ZB-H1 --------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("model,layers,pp,m,v", [
    ("llama (GQA 8:2, SwiGLU)", 8, 2, 6, 2),
    ("llama (GQA 8:2, SwiGLU)", 8, 4, 8, 2),         # four GPUs, two chunks each
    ("qwen3 (QK-norm, head_dim 64)", 6, 3, 3, 2),     # m == pp: every forward first
    ("qwen3 (QK-norm, head_dim 64)", 6, 2, 4, 3),     # tied head, three chunks
])
def test_each_gpu_saves_what_pytorch_saves_under_interleaved_1f1b(model, layers, pp, m, v):
    """Megatron-LM's interleaved order run chunk by chunk on CPU: every GPU's most bytes
    saved at once equal the engine's, to the byte."""
    import stored_rows  # noqa: F401  (puts the repository root on sys.path)
    from measurements.pipeline_stages import measure
    from measurements.saved_activations import MODELS
    config = dict(MODELS[model], num_hidden_layers=layers)
    measured = measure(config, pp, m, 2, 64, "interleaved-1f1b", v)
    mem = training_memory(lc.from_hf_config(config), 64, 2, precision="fp32", pp=pp,
                          pp_schedule="interleaved-1f1b", num_micro_batches=m,
                          virtual_stages=v)
    assert [st.saved_for_backward for st in mem.pipeline["stages"]] == measured


def _run_schedule(pp, m, kind, v=1, t_f=1, t_b=1, t_w=1):
    """Each GPU's ops in the schedule's order, run step by step with fixed times (a chunk of
    ``1 / v`` of a stage takes ``1 / v`` of the time; without a split backward, B is B + W):
    ``(the share of the step each GPU idles, the most micro-batches each holds: forwards
    run whose weight gradient has not)``."""
    from llmcourse.parallelism import pipeline_orders, run_pipeline_orders
    G = pp * v if kind == "interleaved-1f1b" else pp
    split = kind == "zero-bubble-h1"
    dur = {"F": Fraction(t_f, v), "B": Fraction(t_b if split else t_b + t_w, v),
           "W": Fraction(t_w, v)}
    ends, free, held, most = {}, [Fraction(0)] * pp, [0] * pp, [0] * pp

    def run(r, op, s, j, deps):
        ends[op, s, j] = free[r] = max([free[r]] + [ends[d] for d in deps]) + dur[op]
        held[r] += (op == "F") - (op == ("W" if split else "B"))
        most[r] = max(most[r], held[r])
    run_pipeline_orders(pipeline_orders(pp, m, kind, v), G - 1, run)
    return 1 - m * (t_f + t_b + t_w) / max(free), most


@pytest.mark.parametrize("pp,m", [(4, 8), (4, 4), (8, 16), (3, 7), (2, 2)])
def test_the_1f1b_and_gpipe_bubbles_are_what_the_schedules_idle(pp, m):
    for kind in ("1f1b", "gpipe"):
        for t_b in (1, 2):   # any backward time: the bubble is a share of the work
            assert _run_schedule(pp, m, kind, t_b=t_b)[0] == pipeline_bubble(pp, m, kind)


@pytest.mark.parametrize("pp,m,v", [(4, 8, 2), (4, 16, 4), (2, 6, 3), (8, 16, 2), (4, 4, 2)])
def test_the_interleaved_bubble_is_what_megatrons_order_idles(pp, m, v):
    bubble, _ = _run_schedule(pp, m, "interleaved-1f1b", v)
    assert bubble == pipeline_bubble(pp, m, "interleaved-1f1b", v) == Fraction(pp - 1,
                                                                               v * m + pp - 1)
    assert bubble < pipeline_bubble(pp, m)


@pytest.mark.parametrize("pp,m", [(4, 8), (4, 4), (8, 16), (3, 7)])
def test_zero_bubble_h1_idles_a_third_of_1f1b_and_holds_pp_micro_batches(pp, m):
    """The authors' ZB-H1 order with equal F, B and W times: (pp - 1) / (3m + pp - 1), and
    every stage holds min(pp, m) micro-batches until their weight gradient."""
    bubble, most = _run_schedule(pp, m, "zero-bubble-h1")
    assert bubble == pipeline_bubble(pp, m, "zero-bubble-h1")
    assert most == [in_flight_micro_batches(i, pp, m, "zero-bubble-h1") for i in range(pp)]
    assert most == [min(pp, m)] * pp
    one_f_one_b, held = _run_schedule(pp, m, "1f1b")
    assert held == [in_flight_micro_batches(i, pp, m) for i in range(pp)]
    assert bubble < one_f_one_b


def test_interleaving_holds_more_than_1f1b_and_names_the_chunks():
    cfg = lc.load_model("Llama-3.1-8B")
    one = training_memory(cfg, 4096, pp=4, num_micro_batches=8)
    inter = training_memory(cfg, 4096, pp=4, num_micro_batches=8,
                            pp_schedule="interleaved-1f1b", virtual_stages=2)
    first = inter.pipeline["stages"][0]
    # 2 (pp - 1) + (v - 1) pp + 1 = 11 chunk-micro-batches of 4 layers: 5.5 stage-micro-batches
    assert sum(first.pipeline["chunks"]) == 11 and first.pipeline["in_flight"] == Fraction(11, 2)
    assert inter.peak > one.peak
    with pytest.raises(lc.ConfigError, match="num_micro_batches: must be a multiple of pp=4"):
        training_memory(cfg, 4096, pp=4, num_micro_batches=6, pp_schedule="interleaved-1f1b",
                        virtual_stages=2)
    with pytest.raises(lc.ConfigError, match="virtual_stages: pp x virtual_stages = 12"):
        training_memory(cfg, 4096, pp=4, num_micro_batches=8, pp_schedule="interleaved-1f1b",
                        virtual_stages=3)
    with pytest.raises(lc.ConfigError, match="virtual_stages: more than 1 only with"):
        training_memory(cfg, 4096, pp=4, virtual_stages=2)


def test_zb_h1s_verdict_says_upper_bound():
    """ZB-H1's memory is an upper bound (every saved tensor kept until W): its verdict says
    so, and names Qi et al.'s design, 1F1B's peak; 1F1B's verdict carries no such words."""
    cfg = lc.load_model("Llama-3.1-8B")
    zb = training_memory(cfg, 8192, 1, pp=4, num_micro_batches=8, pp_schedule="zero-bubble-h1")
    fits, words = lc.training.fit_verdict(zb, "H100 SXM 80GB")
    assert not fits and words.startswith("over at the upper bound by ")
    assert "peak at most" in words and "1F1B's peak" in words
    one = training_memory(cfg, 8192, 1, pp=4, num_micro_batches=8)
    assert "upper bound" not in lc.training.fit_verdict(one, "H100 SXM 80GB")[1]
    small = training_memory(cfg, 2048, 1, pp=4, num_micro_batches=8, pp_schedule="zero-bubble-h1",
                            zero_stage=1, dp=8)
    ok, words = lc.training.fit_verdict(small, "H200")
    assert ok and words.startswith("fits even at the upper bound")
