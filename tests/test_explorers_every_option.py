"""Every explorer offers only what works: each zoo model it lists, each option of each of
its menus and sliders at the default model, and each layer of each model, shows a figure
and no error message. A reader who picks from what the explorer offers never meets a
message (the message line is for what a reader types into a free box)."""

from __future__ import annotations

import ipywidgets as ipw
import pytest

import llmcourse as lc

pytestmark = pytest.mark.lessons

W = lc.widgets
EXPLORERS = sorted(W.EXPLORERS)
_BUILT = {name: W.EXPLORERS[name]() for name in EXPLORERS}   # what each one offers
WITH_MODELS = [n for n in EXPLORERS if "model" in _BUILT[n].controls]


def _shows(ex, what):
    assert ex.error == "", f"{ex.name}, {what}: {ex.error}"
    if ex.fig is not None:
        assert ex.image.value, f"{ex.name}, {what}: no figure"
        _all_inside(ex, what)


def _all_inside(ex, what, slack=1.0):
    """Every word drawn (tick and axis labels, titles, labels by the bars, legends) lies
    inside the figure: a projector shows the figure's edges and nothing past them (a
    tick label "FSDP SHARD_GRAD_OP" and a title once ran off it)."""
    fig = ex.fig
    box = fig.get_tightbbox(fig.canvas.get_renderer())   # inches, what a draw covers
    w, h = fig.get_size_inches()
    px = slack / fig.dpi
    assert box.x0 >= -px and box.y0 >= -px and box.x1 <= w + px and box.y1 <= h + px, \
        (f"{ex.name}, {what}: drawn from ({box.x0:.2f}, {box.y0:.2f}) to ({box.x1:.2f}, "
         f"{box.y1:.2f}) in, the figure is {w:.2f} x {h:.2f} in")


def _menus(ex):
    """Controls that offer a list of values (dropdowns, selection sliders, toggles)."""
    return {k: c for k, c in ex.controls.items()
            if isinstance(c, (ipw.Dropdown, ipw.SelectionSlider, ipw.ToggleButtons,
                              ipw.RadioButtons)) and not c.disabled}


def _sliders(ex):
    return {k: c for k, c in ex.controls.items()
            if isinstance(c, (ipw.IntSlider,)) and not c.disabled}


@pytest.mark.parametrize("name", EXPLORERS)
def test_it_shows_a_figure_at_its_defaults(name):
    _shows(W.EXPLORERS[name](), "at its defaults")


@pytest.mark.parametrize("name", WITH_MODELS)
def test_every_model_it_lists(name):
    ex = W.EXPLORERS[name]()
    for option in ex.controls["model"].options:
        value = option[1] if isinstance(option, tuple) else option
        ex.set(model=value)
        _shows(ex, f"model {value}")


@pytest.mark.parametrize("name", EXPLORERS)
def test_every_option_of_every_menu_at_the_default_model(name):
    ex = W.EXPLORERS[name]()
    defaults = dict(ex.values)
    for key, control in _menus(ex).items():
        if key == "model":
            continue
        for option in _spread(list(control.options)):
            value = option[1] if isinstance(option, tuple) else option
            if control.disabled:   # an option that disables its own menu ends the sweep
                break
            ex.controls[key].value = value
            _shows(ex, f"{key}={value!r}")
        with ex.hold():
            for k, v in defaults.items():
                ex.controls[k].value = v


def _spread(options, most=16):
    """All options, or for a long slider its ends and evenly spaced ones between."""
    if len(options) <= most:
        return options
    step = (len(options) - 1) / (most - 1)
    return [options[round(i * step)] for i in range(most)]


def _layer_control(ex):
    c = ex.controls.get("layer")
    return c if c is not None and not c.disabled else None


@pytest.mark.parametrize("name", [n for n in WITH_MODELS if _layer_control(_BUILT[n])])
def test_every_layer_of_every_model(name):
    """compute() for every layer of every model; the full redraw (figure included) for the
    first layer of each distinct layer kind."""
    ex = W.EXPLORERS[name]()
    for model in [o[1] if isinstance(o, tuple) else o for o in ex.controls["model"].options]:
        ex.set(model=model)
        layer = _layer_control(ex)
        values = list(layer.options) if hasattr(layer, "options") else \
            list(range(layer.min, layer.max + 1))
        cfg = lc.load_model(model)
        kinds_drawn = set()
        for v in values:
            idx = v[1] if isinstance(v, tuple) else v
            try:
                ex.compute(dict(ex.values, layer=idx))
            except Exception as e:   # noqa: BLE001 - any failure is the finding
                pytest.fail(f"{name}: {model} layer {idx}: {type(e).__name__}: {e}")
            kind = cfg.layer_schedule.kind_at(idx)
            if kind not in kinds_drawn:
                kinds_drawn.add(kind)
                ex.controls["layer"].value = v
                _shows(ex, f"{model} layer {idx}")
