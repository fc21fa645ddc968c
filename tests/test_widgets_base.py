"""The Explorer pattern shared by every lesson, and the two PNG paths it can use."""

import io

import pytest

import llmcourse as lc
from llmcourse.plots.style import png_bytes

W = lc.widgets


def _pixels(png):
    import matplotlib.image as mpimg
    return mpimg.imread(io.BytesIO(png), format="png")


def _stock_pixels(fig):
    """The figure as matplotlib's own savefig draws it on a fresh stock FigureCanvasAgg
    (savefig on the figure's own canvas would draw with the renderer under test), then
    the figure gets its canvas back."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    own = fig.canvas
    try:
        FigureCanvasAgg(fig)  # becomes fig.canvas
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return _pixels(buf.getvalue())
    finally:
        fig.set_canvas(own)


@pytest.mark.parametrize("name", sorted(W.EXPLORERS))
def test_every_explorer_builds_and_its_png_is_what_savefig_draws(name):
    """The redraw path (a lasting canvas with cached glyphs, own PNG encoder) must show
    exactly the pixels matplotlib's own savefig makes of the same figure."""
    import numpy as np
    ex = W.EXPLORERS[name]()
    assert ex.error == "" and ex.rows
    assert "lc-explorer" in ex.widget._dom_classes
    if ex.fig is None:
        return
    fast = _pixels(ex.image.value)
    canvas = ex.fig.canvas
    slow = _stock_pixels(ex.fig)
    assert ex.fig.canvas is canvas
    assert fast.shape[:2] == slow.shape[:2]
    assert np.array_equal(fast[..., :3], slow[..., :3])


@pytest.mark.parametrize("renderer,name", [("public", "kv_cache"), ("public", "moe")]
                         + [("fast", name) for name in sorted(W.EXPLORERS)])
def test_both_renderers_draw_savefigs_pixels(renderer, name, monkeypatch):
    """The explorer's two render paths (docs/benchmarks.md) draw the same pixels: the
    public one (FigureCanvasAgg + PIL) and the text-caching one, which as shipped draws
    every explorer."""
    import numpy as np
    import ipywidgets as ipw

    from llmcourse.plots import style
    monkeypatch.setattr(style, "RENDERER", renderer)
    ex = W.EXPLORERS[name]()
    fast = renderer == "fast"
    assert getattr(ex.fig.canvas, "fast_text", False) == fast
    slider = next(c for c in ex.controls.values() if isinstance(c, ipw.SelectionSlider))
    slider.index = 1 if slider.index == 0 else slider.index - 1
    assert ex.error == ""
    assert np.array_equal(_pixels(ex.image.value)[..., :3], _stock_pixels(ex.fig)[..., :3])


def test_the_fast_path_is_gated_to_the_matplotlib_it_was_checked_against(monkeypatch):
    """On another matplotlib minor version the explorers get the stock Agg canvas (and
    PIL's encoder): slower, but nothing private is touched."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from llmcourse.plots import style
    monkeypatch.setattr(style, "_FAST_TEXT_MPL", ("0.0.",))
    monkeypatch.setattr(style, "_canvas_cls", None)
    monkeypatch.setattr(style, "RENDERER", "fast")
    assert style._canvas_class() is FigureCanvasAgg
    ex = W.EXPLORERS["kv_cache"]()
    assert type(ex.fig.canvas) is FigureCanvasAgg and ex.image.value[:4] == b"\x89PNG"


def test_png_bytes_are_stable():
    fig = lc.plots.kv_cache_vs_context([("8B", lc.load_model("Meta-Llama-3-8B"))])
    assert png_bytes(fig) == png_bytes(fig)


def _toy(calls):
    """An explorer over the engine: KV cache of Llama-3-8B with a free KV-head box."""
    cfg = lc.load_model("Meta-Llama-3-8B")

    def compute(v):
        calls.append(dict(v))
        c = cfg.replace(num_key_value_heads=v["kv"])
        return [W.Row("KV cache", "kv", lc.kv_cache_bytes(c, v["n"]), "")]
    return W.Explorer("toy", {"kv": W.int_text("kv", 8), "n": W.selection("n", [1, 2, 4], 1)},
                      compute)


def test_bad_setting_shows_one_line_and_the_explorer_recovers():
    calls = []
    ex = _toy(calls)
    good = ex.value("kv")
    ex.set(kv=5)
    assert ex.error.startswith("num_key_value_heads") and "\n" not in ex.error
    assert "&#9888;" in ex.error_line.value and "lc-stale" in ex.summary._dom_classes
    assert ex.value("kv") == good                 # the table keeps the last valid setting
    ex.set(kv=4)
    assert ex.error == "" and ex.error_line.value == ""
    assert ex.value("kv") == lc.kv_cache_bytes(lc.load_model("Meta-Llama-3-8B")
                                               .replace(num_key_value_heads=4), 1)
    assert 'data-key=\'kv\'' in ex.summary.value


def test_hold_gives_one_redraw():
    calls = []
    ex = _toy(calls)
    calls.clear()
    with ex.hold():
        ex.set(kv=2, n=4)
    assert calls == [{"kv": 2, "n": 4}]


@pytest.mark.parametrize("name", sorted(W.EXPLORERS))
def test_a_new_model_redraws_once_and_fits(name):
    """Picking another model resets the dependent controls and redraws once, validly."""
    ex = W.EXPLORERS[name]()
    assert "model" in ex.controls  # every explorer starts from a real model
    other = next(m for m in ex.controls["model"].options if m != ex.controls["model"].value)
    count = []
    real = ex.update
    ex.update = lambda: (count.append(1), real())
    ex.set(model=other)
    assert len(count) == 1
    assert ex.error == ""
