"""The one pattern every explorer follows: controls -> pure engine call -> table + figure.

An :class:`Explorer` owns its controls, an error line, one matplotlib figure shown as
a PNG image, and a summary table (HTML) below the figure, so that on a projector the
controls and the figure show on one screen. When a control changes it calls its
``compute`` function (pure: values in, rows out, via the engine), then its
``draw`` function (updates the same Figure in place), then re-renders. A
``ValueError`` from the engine shows as a one-line message in the error line; the
controls keep working and the next valid change clears it.

For the browser tests and the benchmark, every part carries a CSS class:
``lc-explorer`` (+ ``lc-explorer-<name>``), ``lc-control-<key>`` on each control,
``lc-summary`` on the table (each value cell is ``<td data-key=... data-value=...>``
with the exact number), ``lc-error`` on the message line, ``lc-figure`` on the image.

A model picker made by :func:`model_dropdown` comes with a box beside it (``lc-hub-box``)
where a reader types a Hugging Face Hub id (``owner/name``, optionally ``@revision``) and
presses Enter: the explorer fetches the config (:func:`llmcourse.load_model`), adds the
id to the picker and selects it; a model that cannot be read, or that this explorer
cannot show, is a one-line message in the error line, and the explorer keeps its model.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import html
import time
from typing import Any, Callable, NamedTuple

__all__ = ["Explorer", "Row", "register", "EXPLORERS", "selection", "dropdown",
           "model_dropdown", "int_text", "divisors"]

EXPLORERS: dict[str, Callable[[], "Explorer"]] = {}


def register(name):
    """Record an explorer factory (callable with no arguments) under ``name``."""
    def deco(factory):
        EXPLORERS[name] = factory
        return factory
    return deco


class Row(NamedTuple):
    """One line of an explorer's summary table."""
    label: str           # what a reader sees: "KV cache (bf16)"
    key: str             # stable id for tests: "kv_cache_bytes"
    value: Any           # the exact engine value (an int, usually)
    text: str            # how it is shown: "1.00 GiB (1,073,741,824 B)"


class Explorer:
    """A live view over a pure function. See the module docstring."""

    def __init__(self, name: str, controls: dict, compute: Callable[[dict], list],
                 draw: Callable | None = None, title: str = "", figsize=(10, 4.6),
                 note: str = ""):
        import ipywidgets as W
        self.name = name
        self.controls = controls
        self.compute = compute
        self._draw = draw
        self.rows: list[Row] = []
        self.error: str = ""
        self.last_seconds = 0.0
        self.last_timings: dict = {}
        self.timing_log = collections.deque(maxlen=2000)  # every update's last_timings
        self.title = W.HTML(f"<h3 style='margin:4px 0'>{html.escape(title)}</h3>" if title else "")
        self.note = W.HTML(f"<div style='color:#555'>{note}</div>" if note else "")
        self.error_line = W.HTML("")
        self.error_line.add_class("lc-error")
        self.summary = W.HTML("")
        self.summary.add_class("lc-summary")
        # shown at the figure's 100-dpi size whatever its pixel density
        self.image = W.Image(format="png", width=str(round(100 * figsize[0])),
                             layout=W.Layout(max_width="100%", height="auto"))
        self.image.add_class("lc-figure")
        self.fig = None
        self._held = 0            # depth of nested hold() blocks
        self._handlers = {}       # control key -> handler run before the redraw
        if draw is not None:
            from ..plots.style import new_figure
            self.fig, _ = new_figure(0, 0, size=figsize, fast=True, explorer=name)
        row = []
        for key, c in controls.items():
            c.add_class(f"lc-control-{key}")
            c.observe(self._on_change, names="value")
            row.append(c)
            hub = getattr(c, "hub_box", None)  # a model picker's box for a Hub id
            if hub is not None:
                hub.observe(lambda ch, key=key: self._on_hub_box(key, ch), names="value")
                row.append(hub)
        box = W.HBox(row, layout=W.Layout(flex_flow="row wrap"))
        # on a projector (1280 x 720) the controls and the figure show together: the
        # figure comes right after the controls, the table of exact values after it
        parts = [self.title, box, self.note, self.error_line]
        if draw is not None:
            parts.append(self.image)
        parts.append(self.summary)
        self.widget = W.VBox(parts)
        self.widget.add_class("lc-explorer")
        self.widget.add_class(f"lc-explorer-{name}")
        self.update()

    # values of the controls, by key
    @property
    def values(self) -> dict:
        return {k: _read(c) for k, c in self.controls.items()}

    def set(self, **values):
        """Change controls as a reader would (each change redraws)."""
        for k, v in values.items():
            self.controls[k].value = v
        return self

    def on_change(self, key, handler):
        """Let ``handler(change)`` react first when control ``key`` changes (e.g. a new
        model resets the sliders to its own values). It runs inside :meth:`hold`, so
        whatever it changes, the explorer redraws once, after it."""
        self._handlers[key] = handler

    def _on_hub_box(self, key, change):
        """Enter in a picker's Hub box: fetch what it holds, then empty it (the id is in
        the picker now, or named in the message), so the same id can be typed again."""
        if change["new"]:
            try:
                self.add_model(key, change["new"])
            finally:
                change["owner"].value = ""

    def add_model(self, key, text):
        """Fetch the model ``text`` names (a Hub id, or a zoo name) for the picker
        ``key``, add it to the picker's list and select it, as typing it in the box beside
        the picker and pressing Enter does. Returns its name, or None with the one-line
        reason in the error line (the explorer keeps its model and keeps working)."""
        from ..zoo import load_model
        text = (text or "").strip()
        if not text:
            return None
        picker = self.controls[key]
        try:
            cfg = load_model(text)
            why = getattr(picker, "hub_accepts", None) and picker.hub_accepts(cfg)
            if why:
                raise ValueError(f"model: {cfg.name} {why}")
        except ValueError as e:
            self.show_error(str(e))
            return None
        previous, name = picker.value, cfg.name
        if name not in picker.options:
            self._held += 1  # new options reset the value: put it back without a redraw
            try:
                picker.options = list(picker.options) + [name]
                picker.value = previous
            finally:
                self._held -= 1
        if name == previous:
            self.update()
            return name
        try:
            picker.value = name  # the explorer's own model handler runs, then one redraw
        except ValueError as e:  # a handler that cannot take this model: back to the last
            picker.value = previous
            self.show_error(f"model: {name}: {e}")
            return None
        return name

    def _on_change(self, change=None):
        if self._held:
            return
        owner = change["owner"] if change else None
        key = next((k for k, c in self.controls.items() if c is owner), None)
        if key in self._handlers:
            with self.hold():
                self._handlers[key](change)
        else:
            self.update()

    @contextlib.contextmanager
    def hold(self):
        """Change several controls at once with one redraw at the end (e.g. when a
        new model resets the sliders). Nested holds redraw once, at the outermost."""
        self._held += 1
        try:
            yield self
        finally:
            self._held -= 1
        if not self._held:
            self.update()

    def update(self):
        """Recompute and redraw; on a bad setting show the message instead.

        ``last_seconds`` is the time this took; ``last_timings`` splits it into
        ``compute``, ``draw`` (the topic's draw function), ``render`` (matplotlib's
        draw of the figure), ``encode`` (the PNG) and ``publish`` (widget values), for
        the benchmark; ``timing_log`` keeps them for the last updates.
        """
        # The garbage collector waits until the new figure is sent: a full collection in a
        # kernel holding a dozen figures takes tens of ms, which the reader would wait for.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._update()
        finally:
            if collecting:
                gc.enable()

    def _update(self):
        t0 = time.perf_counter()
        timings, png = {}, None
        try:
            rows = self.compute(self.values)
            t1 = time.perf_counter()
            timings["compute"] = t1 - t0
            if self._draw is not None:
                from ..plots import style
                with style.course_style():
                    self._draw(self.fig, self.values, rows)
                    style.enforce_min_text(self.fig)
                    t2 = time.perf_counter()
                    canvas = style.agg_canvas(self.fig, live=style.uses_fast_text(self.name))
                    if canvas is not None:   # every word on the projector's screen
                        style.keep_inside(self.fig, canvas.get_renderer())
                    canvas.draw()
                    t3 = time.perf_counter()
                    png = (style.encode_png(canvas.buffer_rgba()) if getattr(canvas, "fast_text", False)
                           else style.encode_canvas(canvas))
                t4 = time.perf_counter()
                timings.update(draw=t2 - t1, render=t3 - t2, encode=t4 - t3)
        except ValueError as e:  # the engine's one-line message
            self.show_error(str(e))
        except Exception as e:  # a bug: still no traceback in the reader's face
            self.show_error(f"unexpected {type(e).__name__}: {e}")
        else:
            t4 = time.perf_counter()
            if png is not None:
                self.image.value = png
            self.rows, self.error = rows, ""
            self.error_line.value = ""
            self.summary.value = self.table_html(rows)
            self.summary.remove_class("lc-stale")
            timings["publish"] = time.perf_counter() - t4
        self.last_seconds = time.perf_counter() - t0
        self.last_timings = timings
        self.timing_log.append(dict(timings, total=self.last_seconds))

    def show_error(self, msg):
        """Show a one-line message in the error line; the table dims to the last valid
        setting and every control keeps working."""
        self.error = msg
        self.error_line.value = (
            "<div style='color:#b00020;font-weight:bold;padding:4px 0'>&#9888; "
            f"{html.escape(msg)}</div>")
        self.summary.add_class("lc-stale")  # the table still shows the last valid setting
        self.summary.value = self.table_html(self.rows, stale=True)

    def table_html(self, rows, stale=False):
        """The summary table (override for another layout; keep ``data-key``/``data-value``)."""
        style = "opacity:0.4;" if stale else ""
        body = "".join(
            f"<tr><th style='text-align:left;padding-right:1.5em'>{html.escape(r.label)}</th>"
            f"<td data-key='{r.key}' data-value='{r.value}' style='text-align:right'>"
            f"{html.escape(r.text)}</td></tr>" for r in rows)
        cap = ("<caption style='text-align:left;color:#b00020'>last valid setting</caption>"
               if stale else "")
        return f"<table style='{style}font-size:15px'>{cap}{body}</table>"

    def value(self, key):
        """The exact value of a summary row (for tests and exercises)."""
        for r in self.rows:
            if r.key == key:
                return r.value
        raise KeyError(key)

    def _ipython_display_(self):
        """Shown as its widget when it is a cell's last expression (IPython's display
        protocol; ``display(explorer)`` works too)."""
        from IPython.display import display
        display(self.widget)

    def __repr__(self):
        return f"<Explorer {self.name}: {', '.join(self.controls)}>"


# --- controls ---------------------------------------------------------------------

_STYLE = {"description_width": "initial"}


def selection(description, options, value, width="330px"):
    """A slider over a list of allowed values (e.g. divisors), keyboard friendly."""
    import ipywidgets as W
    options = list(options)
    if value not in options:
        options = sorted(set(options) | {value})
    return W.SelectionSlider(options=options, value=value, description=description,
                             continuous_update=False, style=_STYLE,
                             layout=W.Layout(width=width))


def dropdown(description, options, value, width="300px"):
    import ipywidgets as W
    return W.Dropdown(options=list(options), value=value, description=description,
                      style=_STYLE, layout=W.Layout(width=width))


def model_dropdown(value, models=None, description="model", accepts=None):
    """A dropdown of zoo models (values: plain model names), family by family, with a
    box beside it for a Hugging Face Hub id (``dropdown.hub_box``; an :class:`Explorer`
    lays it out and fetches what is typed there, :meth:`Explorer.add_model`).

    ``accepts(cfg)`` returns None for a model the explorer can show, else why not (a
    phrase: "has routed experts; ..."). By default it is read off ``models``: an
    explorer that lists only the zoo's dense models (or only its MoE models, or only
    those with KV heads) takes a Hub model of the same kind."""
    import ipywidgets as W

    from ..zoo import list_models, load_model
    models = list(models or list_models(grouped=True))
    name = load_model(value).name
    picker = dropdown(description, models if name in models else models + [name], name)
    picker.hub_box = W.Text(placeholder="or a Hub id: owner/name, Enter",
                            continuous_update=False, layout=W.Layout(width="250px"))
    picker.hub_box.add_class("lc-hub-box")
    picker.hub_accepts = accepts or _rule_for(models)
    return picker


# what an explorer listing only some zoo models says of a Hub model of another kind
_KINDS = (
    (lambda c: not c.is_moe, "has routed experts; this explorer shows dense models"),
    (lambda c: c.is_moe, "is dense; this explorer shows mixture-of-experts models"),
    (lambda c: not c.uses_mla, "caches an MLA latent, not KV heads; this explorer shows "
                               "models with KV heads"),
)


def _rule_for(models):
    """The kind of model a list of zoo models is (dense, MoE, with KV heads), as
    ``accepts``; None when the list is the whole zoo or no one kind."""
    from ..zoo import list_models, load_model
    zoo, listed = list_models(), set(models)
    if listed >= set(zoo):
        return None
    for test, why in _KINDS:
        if all(test(load_model(m)) == (m in listed) for m in zoo):
            return lambda cfg, test=test, why=why: None if test(cfg) else why
    return None


def int_text(description, value, width="220px"):
    """A free box for a whole number: the place where a reader can type an impossible value.
    It takes any number (an integer box would cut 3.5 to 3 without a word); the explorer
    passes a whole number on as an int and anything else to the engine, whose one-line
    message says what is wrong ("must be a whole number (got 3.5)")."""
    import ipywidgets as W
    box = W.FloatText(value=value, description=description, style=_STYLE,
                      layout=W.Layout(width=width), continuous_update=False)
    box.add_class(_WHOLE_NUMBER)
    return box


_WHOLE_NUMBER = "lc-whole-number"


def _read(control):
    """A control's value as the explorer passes it on: a whole-number box's integral
    value as an int (32.0 -> 32), any other value as it is."""
    v = control.value
    if _WHOLE_NUMBER in getattr(control, "_dom_classes", ()) and isinstance(v, float) \
            and v.is_integer():
        return int(v)
    return v


def divisors(n):
    """The divisors of ``n``, ascending: the valid KV-head counts for ``n`` query heads
    (trial division up to the square root: a trillion takes milliseconds)."""
    small, large, d = [], [], 1
    while d * d <= n:
        if n % d == 0:
            small.append(d)
            if d * d != n:
                large.append(n // d)
        d += 1
    return small + large[::-1]
