"""Every figure the course draws is legible from the back row: no text below MIN_TEXT_PT.

The test finds the figure functions itself: every public function of every module in
``llmcourse.plots`` (a topic added later is covered without editing this file) is
called with example arguments chosen by parameter name, and every Figure it returns
is drawn and its Text artists walked (titles, tick labels, legends, bar and point
labels, annotations). Every registered explorer's figure is walked too, after a
control change. A function whose required arguments this file cannot build fails
with a message naming it: add its parameter to ``EXAMPLES``.
"""

import importlib
import inspect
import pkgutil

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

import llmcourse as lc
import llmcourse.plots as plots
import llmcourse.widgets as W
from llmcourse.plots import style

MIN = style.MIN_TEXT_PT
DENSE, MOE, SLIDING = "Qwen3-8B", "DeepSeek-V3", "gemma-2-2b"


def _configs():
    return [lc.load_model(n) for n in (DENSE, MOE, SLIDING)]


# example values by parameter name; each is a list of alternatives tried in order (a
# function may reject one, e.g. MLA where q/k/v/o head arithmetic does not apply)
EXAMPLES = {
    "cfg": lambda: _configs(),
    "model": lambda: _configs(),
    "original": lambda: _configs(),
    "edited": lambda: [c.replace(num_hidden_layers=c.num_hidden_layers * 2) for c in _configs()],
    "cfgs": lambda: [_configs(), [lc.load_model(DENSE)]],
    "models": lambda: [_configs(), [DENSE, SLIDING], [lc.load_model(DENSE)]],
    "variants": lambda: [[(c.name, c) for c in _configs()], [(DENSE, lc.load_model(DENSE))]],
    "max_layers": lambda: [48],
    "layer": lambda: [0],
    "seq_len": lambda: [8192],
    "batch": lambda: [1],
    "gpu": lambda: [lc.list_gpus()[0]] if hasattr(lc, "list_gpus") else [],
}


def figure_functions():
    """(qualified name, function) for every public function of every plots module."""
    out = []
    for info in pkgutil.iter_modules(plots.__path__):
        if info.name == "style":
            continue
        mod = importlib.import_module(f"llmcourse.plots.{info.name}")
        for name in getattr(mod, "__all__", []):
            f = getattr(mod, name)
            if inspect.isfunction(f) and not name.startswith("draw_"):  # draw_* take a fig
                out.append((f"{info.name}.{name}", f))
    return out


def call_with_examples(f):
    """The function's result for the first example arguments it accepts; None when a
    required parameter has no example (a helper that is no figure function)."""
    required = [p for p, v in inspect.signature(f).parameters.items()
                if v.default is inspect.Parameter.empty
                and v.kind in (v.POSITIONAL_OR_KEYWORD, v.KEYWORD_ONLY)]
    if any(p not in EXAMPLES for p in required):
        return None, [p for p in required if p not in EXAMPLES]
    options = {p: EXAMPLES[p]() for p in required}
    errors = []
    for i in range(max((len(v) for v in options.values()), default=1)):
        kwargs = {p: v[min(i, len(v) - 1)] for p, v in options.items()}
        try:
            return f(**kwargs), None
        except ValueError as e:  # this example does not apply (e.g. MLA): the next one
            errors.append(str(e))
    raise AssertionError(f"no example worked: {errors}")


def small_texts(fig):
    """Visible, non-empty texts of ``fig`` below MIN points, after a full draw (tick
    labels only exist once the figure has been drawn)."""
    style.png_bytes(fig)
    return sorted({(t.get_fontsize(), t.get_text()[:40]) for t in fig.findobj(Text)
                   if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN})


FUNCS = figure_functions()


def test_the_figure_functions_are_found():
    names = {n for n, _ in FUNCS}
    assert {"kvcache.kv_cache_vs_context", "whatif.whatif_bars",
            "anatomy.parameter_shares"} <= names


@pytest.mark.parametrize("name,func", FUNCS, ids=[n for n, _ in FUNCS])
def test_no_text_below_the_minimum(name, func):
    fig, missing = call_with_examples(func)
    if not isinstance(fig, Figure):
        # a helper that returns rows or a string; a styled function must be a figure
        assert not hasattr(func, "__wrapped__"), (
            f"{name} is @styled but could not be called: add example values for "
            f"{missing} to EXAMPLES in tests/test_figures.py")
        return
    assert small_texts(fig) == [], f"{name}: text below {MIN} pt"


@pytest.mark.parametrize("name", sorted(W.EXPLORERS))
def test_no_explorer_text_below_the_minimum(name):
    ex = W.EXPLORERS[name]()
    if ex.fig is None:
        return
    assert small_texts(ex.fig) == []
    # after a change too: draw functions that rebuild their axes make new texts
    import ipywidgets as ipw
    slider = next(c for c in ex.controls.values()
                  if isinstance(c, ipw.SelectionSlider) and len(c.options) > 1)
    start = slider.index
    for i in (start + 1, start - 1):  # a neighbouring value; one of the two is valid
        if 0 <= i < len(slider.options):
            slider.index = i
            if ex.error == "":
                break
    assert ex.error == "" and slider.index != start
    assert small_texts(ex.fig) == [], name


def test_the_check_sees_small_text_and_styled_raises_it():
    """The walk can fail: a 8-pt label on a plain Figure is reported; the same figure
    made by a @styled function has it raised to the minimum."""
    def make():
        fig = Figure(figsize=(4, 3))
        ax = fig.subplots()
        ax.set_title("title")
        ax.text(0.5, 0.5, "tiny label", fontsize=8)
        ax.legend(handles=[ax.bar([0], [1], label="bars")], fontsize=7)
        return fig
    found = small_texts(make())
    assert (8.0, "tiny label") in found and (7.0, "bars") in found
    assert small_texts(style.styled(make)()) == []


def test_style_sets_every_rc_text_size_at_or_above_the_minimum():
    sizes = {k: v for k, v in style.STYLE.items() if k.endswith(("size", "fontsize"))}
    assert {"font.size", "axes.titlesize", "axes.labelsize", "legend.fontsize",
            "xtick.labelsize", "ytick.labelsize", "figure.titlesize"} <= set(sizes)
    assert min(sizes.values()) >= MIN
