"""Shared figure style: large enough for a projector, identical on every run.

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot
state), so a widget can redraw one figure in place and a notebook can show it
by leaving it as a cell's last expression.
"""

from __future__ import annotations

import io

__all__ = ["new_figure", "clear_figure", "png_bytes", "encode_png", "styled", "plain_log_axis", "STYLE", "COLORS",
           "COMPONENT_COLORS"]

# projector-legible defaults; applied per figure via rc_context
STYLE = {
    "font.size": 13, "axes.titlesize": 15, "axes.labelsize": 13, "legend.fontsize": 11,
    "xtick.labelsize": 11, "ytick.labelsize": 11, "axes.grid": True, "grid.alpha": 0.3,
    "axes.spines.top": False, "axes.spines.right": False, "figure.dpi": 100,
    "savefig.dpi": 100, "svg.hashsalt": "llmcourse", "font.family": "DejaVu Sans",
}
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf"]
COMPONENT_COLORS = {
    "embedding": "#8c564b", "attention": "#1f77b4", "mlp": "#ff7f0e",
    "shared_experts": "#bcbd22", "experts": "#2ca02c", "router": "#9467bd",
    "norms": "#7f7f7f", "lm_head": "#e377c2",
}


def styled(func):
    """Decorator: run a plotting function under the course style (titles, ticks and
    labels take their sizes when they are drawn, so the whole function needs it)."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        import matplotlib as mpl
        with mpl.rc_context(STYLE):
            return func(*args, **kwargs)
    return wrapper


def new_figure(nrows=1, ncols=1, size=(10, 4.8), fast=False, **subplot_kw):
    """A styled Figure and its axes (``fig, ax`` or ``fig, axes``).

    ``fast=True`` (for widgets that redraw live) uses fixed margins instead of
    constrained layout, which would otherwise cost about half of each redraw.
    """
    import matplotlib as mpl
    from matplotlib.figure import Figure
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=size, layout=None if fast else "constrained")
        if fast:
            _canvas_class()(fig)  # one lasting canvas: its caches survive redraws
            fig.subplots_adjust(left=0.09, right=0.98, top=0.9, bottom=0.14, wspace=0.3)
        axes = fig.subplots(nrows, ncols, **subplot_kw) if nrows and ncols else None
    return fig, axes


def clear_figure(fig):
    """``fig.clear()``, keeping the fixed margins of a fast (explorer) figure, which
    a plain clear resets to matplotlib's defaults."""
    sp = fig.subplotpars
    keep = dict(left=sp.left, right=sp.right, top=sp.top, bottom=sp.bottom, wspace=sp.wspace)
    fig.clear()
    if fig.get_layout_engine() is None:
        fig.subplots_adjust(**keep)


def png_bytes(fig):
    """Render a figure to PNG bytes (no metadata, so the bytes are stable).

    A live explorer calls this on every change, so this is the fast path: the
    figure keeps one Agg canvas whose renderer remembers laid-out strings and
    rendered glyphs between redraws, and :func:`encode_png` writes the pixels
    (half the time of PIL's encoder). The pixels are the ones ``savefig`` makes.
    """
    import matplotlib as mpl
    with mpl.rc_context(STYLE):
        canvas = _agg_canvas(fig)
        if canvas is None:  # another kind of canvas, or another dpi: plain savefig
            buf = io.BytesIO()
            fig.savefig(buf, format="png", metadata={"Software": None},
                        pil_kwargs={"compress_level": 1})
            return buf.getvalue()
        canvas.draw()
        return encode_png(canvas.buffer_rgba())


def encode_png(rgba):
    """PNG bytes of an ``(height, width, 4)`` uint8 RGBA buffer (stored as RGB
    when every pixel is opaque).

    Rows use PNG's "none" filter and zlib level 1: a figure is mostly flat colour,
    which deflate compresses well without per-row filtering. Deterministic: the
    same pixels give the same bytes.
    """
    import struct
    import zlib

    import numpy as np
    a = np.asarray(rgba)
    h, w, _ = a.shape
    opaque = bool(a[..., 3].min() == 255)
    px = a[..., :3] if opaque else a
    raw = np.zeros((h, 1 + w * px.shape[2]), np.uint8)  # filter byte 0 starts each row
    raw[:, 1:] = px.reshape(h, -1)
    body = zlib.compress(raw.data, 1)

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(data, zlib.crc32(tag))))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2 if opaque else 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


# --- a faster Agg canvas for figures that are drawn again and again ----------------------
#
# Profiling a live redraw (docs/benchmarks.md) showed a third of matplotlib's draw
# in text: every string is laid out and every glyph rasterised by FreeType again on
# each draw, though an explorer redraws the same tick labels, legend and title
# nearly every time. The renderer below keeps both: a string's layout, and each
# glyph's bitmap keyed by its sub-pixel offset (a whole-pixel shift moves a bitmap
# without changing it), so the pixels are exactly those of the stock renderer.
# It overrides one private method, so it is used only with the matplotlib minor
# version it was checked against; any other gets the stock FigureCanvasAgg.

_FAST_TEXT_MPL = ("3.11.",)
_canvas_cls = None


def _canvas_class():
    """The Agg canvas class to attach to figures (built on first use)."""
    global _canvas_cls
    if _canvas_cls is None:
        _canvas_cls = _make_canvas_class()
    return _canvas_cls


def _agg_canvas(fig):
    """The figure's Agg canvas (a bare ``Figure`` gets a lasting one), or None
    when ``savefig`` would render differently from a plain draw."""
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    if fig.dpi != STYLE["savefig.dpi"]:
        return None
    canvas = fig.canvas
    if type(canvas) is FigureCanvasBase:
        canvas = _canvas_class()(fig)
    return canvas if isinstance(canvas, FigureCanvasAgg) else None


def _make_canvas_class():
    import math

    import matplotlib as mpl
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
    from matplotlib.ft2font import RenderMode

    if not (mpl.__version__.startswith(_FAST_TEXT_MPL)
            and hasattr(RendererAgg, "_draw_text_glyphs_and_boxes")
            and hasattr(RendererAgg, "_prepare_font")):
        return FigureCanvasAgg

    class TextCachingRendererAgg(RendererAgg):
        """RendererAgg that remembers string layouts and glyph bitmaps."""

        _MAX = 50_000  # entries per cache before it starts over (a few MB at most)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._layouts = {}
            self._glyphs = {}

        def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
            if ismath:
                return self.draw_mathtext(gc, x, y, s, prop, angle)
            font = self._prepare_font(prop)
            flags = get_hinting_flag()
            features = mtext.get_fontfeatures() if mtext is not None else None
            language = mtext.get_language() if mtext is not None else None
            size = prop.get_size_in_points()
            key = (id(font), s, size, self.dpi, flags,
                   tuple(features) if features else None, language)
            hit = self._layouts.get(key)
            if hit is None:
                if len(self._layouts) > self._MAX:
                    self._layouts.clear()
                items = font._layout(s, flags=flags, features=features, language=language)
                # the font objects are held, so their ids stay unique while cached
                hit = self._layouts[key] = (font, [(it.ft_object, it.glyph_index, it.x, it.y)
                                                   for it in items])
            self._draw_text_glyphs_and_boxes(
                gc, x, y, angle, ((ft, size, g, 0, 1, gx, gy) for ft, g, gx, gy in hit[1]), [])

        def _draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes):
            if boxes:  # mathtext rules and TeX boxes: the stock path
                return super()._draw_text_glyphs_and_boxes(gc, x, y, angle, glyphs, boxes)
            cos = math.cos(math.radians(angle))
            sin = math.sin(math.radians(angle))
            flags = get_hinting_flag()
            aa = gc.get_antialiased()
            height = self.height
            cache = self._glyphs
            if len(cache) > self._MAX:
                cache.clear()
            draw = self._renderer.draw_text_image
            for font, size, index, slant, extend, dx, dy in glyphs:
                # the pen position in 1/64 px, as the stock renderer computes it
                ix, fx = divmod(round(0x40 * (x + dx * cos - dy * sin)), 64)
                iy, fy = divmod(round(0x40 * (height - y + dx * sin + dy * cos)), 64)
                key = (id(font), size, self.dpi, index, angle, slant, extend, flags, aa, fx, fy)
                g = cache.get(key)
                if g is None:
                    font.set_size(size, self.dpi)
                    font._set_transform(
                        (0x10000 * np.array([[cos, -sin], [sin, cos]])
                         @ [[extend, extend * slant], [0, 1]]).round().astype(int),
                        [fx, fy])
                    bitmap = font._render_glyph(
                        index, flags, RenderMode.NORMAL if aa else RenderMode.MONO)
                    buf = np.array(bitmap.buffer)
                    if not aa:
                        buf *= 0xff
                    g = cache[key] = (buf, bitmap.left, bitmap.top, font)
                buf, left, top, _font = g
                draw(buf, left + ix, int(height) - (top + iy) + buf.shape[0], 0, gc)

    class FastFigureCanvasAgg(FigureCanvasAgg):
        """An Agg canvas whose renderer caches text (see above)."""

        def get_renderer(self):
            w, h = self.get_width_height(physical=True)
            key = w, h, self.figure.dpi
            if self._lastKey != key:
                self.renderer = TextCachingRendererAgg(w, h, self.figure.dpi)
                self._lastKey = key
            return self.renderer

    return FastFigureCanvasAgg


def plain_log_axis(axis, fmt="{:g}"):
    """Log-scale tick labels as plain numbers ('0.5', '8', '64'), no mathtext
    (mathtext labels are slow to lay out on every redraw, and harder to read)."""
    from matplotlib.ticker import FuncFormatter, NullLocator
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt.format(v)))
    axis.set_minor_locator(NullLocator())
