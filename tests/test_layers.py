"""Layer schedules: per-kind counts and indices equal a layer-by-layer expansion done by
hand here, and the kinds equal transformers' own per-layer choices."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmcourse as lc
from llmcourse.layers import Axis, LayerKind, LayerSchedule

VALUES = ["a", "b", "c"]


@st.composite
def axes(draw, L):
    """(an Axis, the list of its values for layers 0..L-1 computed here by hand)."""
    kind = draw(st.sampled_from(["constant", "cycle", "every", "list"]))
    if kind == "constant":
        v = draw(st.sampled_from(VALUES))
        axis, truth = Axis.constant(v), [v] * L
    elif kind == "cycle":
        prefix = draw(st.lists(st.tuples(st.sampled_from(VALUES), st.integers(0, 5)), max_size=3))
        period = draw(st.lists(st.tuples(st.sampled_from(VALUES), st.integers(0, 3)),
                               min_size=1, max_size=3).filter(lambda p: sum(n for _, n in p)))
        flat_pre = [v for v, n in prefix for _ in range(n)]
        flat_per = [v for v, n in period for _ in range(n)]
        truth = [flat_pre[i] if i < len(flat_pre) else flat_per[(i - len(flat_pre)) % len(flat_per)]
                 for i in range(L)]
        axis = Axis.cycle(*period, prefix=prefix)
    elif kind == "every":
        step = draw(st.integers(1, 7))
        start, phase = draw(st.integers(0, 9)), draw(st.integers(0, step - 1))
        axis = Axis.every(step, "x", "y", start=start, phase=phase)
        truth = ["x" if i >= start and i % step == phase else "y" for i in range(L)]
    else:
        truth = draw(st.lists(st.sampled_from(VALUES), min_size=L, max_size=L))
        axis = Axis.from_list(truth)
    over = draw(st.dictionaries(st.integers(0, L + 2), st.sampled_from(VALUES), max_size=4))
    if over:
        for v in set(over.values()):
            axis = axis.override([i for i, w in over.items() if w == v], v)
        truth = [over.get(i, t) for i, t in enumerate(truth)]
    return axis, truth


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 40).flatmap(lambda L: st.tuples(st.just(L), axes(L), axes(L), axes(L))))
def test_schedule_equals_layer_by_layer_expansion(case):
    L, (a, ta), (m, tm), (r, tr) = case
    s = LayerSchedule(L, attention=a, mlp=m, rope=r)
    truth = [LayerKind(x, y, z) for x, y, z in zip(ta, tm, tr)]
    assert list(s.expand()) == truth
    assert [s.kind_at(i) for i in range(-L, 0)] == truth
    counts = {}
    for k in truth:
        counts[k] = counts.get(k, 0) + 1
    assert s.counts() == counts
    assert list(s.counts()) == list(dict.fromkeys(truth))  # in order of first appearance
    for k in counts:
        idx = [i for i, t in enumerate(truth) if t == k]
        view = s.indices(k)
        assert len(view) == len(idx) and tuple(view) == tuple(idx)
        assert view[0] == idx[0] and view[-1] == idx[-1]
        assert [i in view for i in range(-1, L + 1)] == [i in idx for i in range(-1, L + 1)]
    assert s.count(attention=ta[0]) == ta.count(ta[0])


def test_a_list_that_repeats_is_stored_as_its_cycle():
    oss = lc.load_model("gpt-oss-20b")
    assert oss.layer_schedule.period and not oss.layer_schedule.prefix
    assert len(oss.layer_schedule.period) == 2


def test_layer_types_view_behaves_like_the_tuple_it_was():
    g = lc.load_model("gemma-2-2b")
    lt = g.layer_types
    as_tuple = ("sliding_attention", "full_attention") * 13
    assert lt == as_tuple and tuple(lt) == as_tuple and list(lt) == list(as_tuple)
    assert lt[3] == "full_attention" and lt[-1] == "full_attention" and lt[:2] == as_tuple[:2]
    assert lt.count("sliding_attention") == 13 and "sliding_attention" in lt
    assert "chunked_attention" not in lt and len(lt) == 26
    assert g.replace(layer_types=lt) == g.replace(layer_types=list(as_tuple))


# --- against transformers ------------------------------------------------------------

def _moe_layers_in_transformers(d):
    import transformers_ref
    m = transformers_ref.meta_model(d)
    return [i for i, layer in enumerate(m.model.layers)
            if any(".experts." in n or n.startswith("mlp.experts") for n, _ in layer.named_parameters())]


SMALL = dict(hidden_size=64, intermediate_size=96, moe_intermediate_size=32,
             num_attention_heads=4, num_key_value_heads=2)


@pytest.mark.slow
@pytest.mark.parametrize("name,changes", [
    ("DeepSeek-V3", dict(num_hidden_layers=9, first_k_dense_replace=2, moe_layer_freq=3)),
    ("DeepSeek-V3", dict(num_hidden_layers=7, first_k_dense_replace=0, moe_layer_freq=1)),
    ("DeepSeek-V2", dict(num_hidden_layers=8, first_k_dense_replace=5, moe_layer_freq=2)),
    ("Qwen3-30B-A3B", dict(num_hidden_layers=9, decoder_sparse_step=2, mlp_only_layers=[3, 4])),
    ("Qwen3-30B-A3B", dict(num_hidden_layers=6, decoder_sparse_step=1, mlp_only_layers=[0])),
    ("GLM-4.5-Air", dict(num_hidden_layers=5, first_k_dense_replace=2)),
    ("Qwen3-Next-80B-A3B", dict(num_hidden_layers=8, decoder_sparse_step=2, mlp_only_layers=[5])),
    ("Qwen1.5-MoE-A2.7B-Chat", dict(num_hidden_layers=7, decoder_sparse_step=3)),
    ("Llama-4-Scout-17B-16E-Instruct", dict(num_hidden_layers=7, interleave_moe_layer_step=2)),
    ("Llama-4-Scout-17B-16E-Instruct", dict(num_hidden_layers=6, moe_layers=[0, 4])),
])
def test_moe_layers_match_transformers(name, changes):
    small = dict(SMALL, n_routed_experts=4, num_experts=4, num_local_experts=4,
                 num_experts_per_tok=2)
    base = lc.load_model(name)
    d = base.to_hf_config()
    fields = set(d) | set(d.get("text_config") or {})
    small = {k: v for k, v in small.items() if k in fields}
    if base.uses_mla:
        small.update(kv_lora_rank=16, q_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=8,
                     v_head_dim=8, n_group=1, topk_group=1, num_key_value_heads=4)
    cfg = base.replace(**small, **changes)
    ours = [i for i, k in enumerate(cfg.layer_schedule.expand()) if k.mlp == "moe"]
    assert ours == _moe_layers_in_transformers(cfg.to_hf_config())


@pytest.mark.slow
@pytest.mark.parametrize("name,changes", [
    ("Qwen2-7B", dict(use_sliding_window=True, max_window_layers=10)),
    ("Qwen3-8B", dict(use_sliding_window=True, sliding_window=1024, max_window_layers=30,
                      num_hidden_layers=41)),
    ("Qwen3-8B", dict(use_sliding_window=False, sliding_window=1024)),
    ("gemma-2-2b", dict(num_hidden_layers=7)),
    ("gemma-2-2b", dict()),
    ("gpt-oss-20b", dict(num_hidden_layers=5, layer_types=None)),
    ("gpt-oss-20b", dict()),
    ("gemma-3-1b-it", dict(num_hidden_layers=15)),
    ("gemma-3-1b-it", dict(sliding_window_pattern=3)),
    ("Llama-4-Scout-17B-16E-Instruct", dict(num_hidden_layers=11)),
    ("Llama-4-Scout-17B-16E-Instruct", dict(num_hidden_layers=6, no_rope_layers=[1, 0, 0, 1, 1, 1])),
    ("Qwen3-Next-80B-A3B", dict(num_hidden_layers=10, full_attention_interval=3)),
    ("SmolLM3-3B", dict(num_hidden_layers=9, use_sliding_window=True, sliding_window=512,
                        no_rope_layers=None)),
    ("SmolLM3-3B", dict()),
    ("Qwen1.5-MoE-A2.7B-Chat", dict(use_sliding_window=True, max_window_layers=9)),
])
def test_layer_types_match_transformers(name, changes):
    import transformers_ref
    cfg = lc.load_model(name).replace(**changes)
    d = cfg.to_hf_config()
    hf = transformers_ref.hf_config(d).get_text_config()
    theirs = list(hf.layer_types)
    if getattr(hf, "sliding_window", None) is None:  # no window: a sliding layer sees all
        theirs = ["full_attention" if t == "sliding_attention" else t for t in theirs]
    assert list(cfg.layer_types) == theirs
