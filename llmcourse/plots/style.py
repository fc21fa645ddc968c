"""Shared figure style: large enough for a projector, identical on every run.

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot
state), so a widget can redraw one figure in place and a notebook can show it
by leaving it as a cell's last expression.
"""

from __future__ import annotations

import contextlib
import io

__all__ = ["new_figure", "clear_figure", "png_bytes", "figure_png", "agg_canvas", "encode_canvas",
           "uses_fast_text", "RENDERER", "course_style",
           "encode_png", "styled", "enforce_min_text", "plain_log_axis", "STYLE",
           "MIN_TEXT_PT", "TEXT_SIZES", "PETROFF10", "COLORS", "COMPONENT_COLORS", "CONCEPT_COLORS",
           "RESERVED_COLORS", "COLOR_GROUPS", "COMPONENT_HATCHES", "CONCEPT_MARKERS",
           "CONCEPT_DASHES", "color_of",
           "ink_for", "label_bars"]

# --- text: legible from the back row ------------------------------------------------------
#
# No text in any figure is smaller than MIN_TEXT_PT points (tests/test_figures.py walks
# every Text artist of every figure function and explorer). At the course's 10-inch
# figure width a 1280-px projector shows 12 pt as about 20 px. Topic modules give sizes
# by role (TEXT_SIZES["label"]), never as numbers.
MIN_TEXT_PT = 12
TEXT_SIZES = {"suptitle": 17, "title": 16, "axis": 14, "body": 14, "tick": MIN_TEXT_PT,
              "legend": MIN_TEXT_PT, "label": MIN_TEXT_PT}

# projector-legible defaults; applied per figure via rc_context
STYLE = {
    "font.size": TEXT_SIZES["body"], "axes.titlesize": TEXT_SIZES["title"],
    "figure.titlesize": TEXT_SIZES["suptitle"], "axes.labelsize": TEXT_SIZES["axis"],
    "legend.fontsize": TEXT_SIZES["legend"], "legend.title_fontsize": TEXT_SIZES["legend"],
    "xtick.labelsize": TEXT_SIZES["tick"], "ytick.labelsize": TEXT_SIZES["tick"],
    "axes.grid": True, "grid.alpha": 0.3,
    "axes.spines.top": False, "axes.spines.right": False, "figure.dpi": 100,
    "savefig.dpi": 100, "svg.hashsalt": "llmcourse", "font.family": "DejaVu Sans",
    "hatch.linewidth": 1.0,
}

# --- colour: one colour per thing, safe for colour-blind readers --------------------------
#
# The ten colours of matplotlib's ``petroff10`` style (M. A. Petroff, "Accessible Color
# Sequences for Data Visualization", 2021, arXiv:2107.02270): chosen so that every pair
# stays apart for protan, deutan and tritan readers as well as for everyone else
# (tests/test_palette.py checks it, with the threshold it states). Nothing else in the
# package picks a colour: topic modules use the names below.
PETROFF10 = ("#3f90da", "#ffa90e", "#bd1f01", "#94a4a2", "#832db6", "#a96b59", "#e76300",
             "#b9ac70", "#717581", "#92dadd")
_BLUE, _ORANGE, _RED, _GREY, _PURPLE, _BROWN, _VERMILION, _KHAKI, _SLATE, _CYAN = PETROFF10

# a cycle for "series 0, 1, 2 ...": the same ten, the darker first (index 3 stays the red)
COLORS = [_BLUE, _ORANGE, _PURPLE, _RED, _BROWN, _VERMILION, _SLATE, _GREY, _KHAKI, _CYAN]
STYLE["axes.prop_cycle"] = f"cycler('color', {COLORS!r})"  # a colour left unset: the same
STYLE["patch.facecolor"] = COLORS[0]

# One meaning per colour, in every lesson. The three parts every lesson draws keep their
# colour wherever they appear, and nothing else takes it: attention is blue, the MLP
# orange, the embedding brown; routed experts (and an MoE model, which is what experts
# make) vermilion. The other six colours carry one idea each across the course, so a
# reader who learnt "grey is context" in one figure reads the next one right:
#   red    what to look at: the reader's setting, an edit (components: shared experts;
#          memory: activations, the part that grows with the batch)
#   slate  the real thing: an exact count, a model as shipped, a dense model, what runs
#   grey   context: norms, reference lines and bands
#   purple the router; an estimate; GQA and k_proj; the optimizer state
#   khaki  the lm_head; MLA and o_proj; memory held in reserve
#   cyan   what a figure leaves aside ("the rest", what does not fit); MQA and v_proj;
#          the stored total; gradients
# (tests/test_palette.py holds the reserved four to this.)

# one colour per parameter component (llmcourse.architectures.COMPONENTS), in every figure
COMPONENT_COLORS = {
    "embedding": _BROWN, "attention": _BLUE, "mlp": _ORANGE,
    "shared_experts": _RED, "experts": _VERMILION, "router": _PURPLE,
    "norms": _GREY, "lm_head": _KHAKI,
    # a multimodal wrapper's towers, beside the language model
    "vision": _SLATE, "audio": _CYAN,
}

# one colour per concept a figure contrasts (several figures, one meaning)
CONCEPT_COLORS = {
    # attention kinds (lessons 1-4): MHA is attention itself
    "mha": _BLUE, "gqa": _PURPLE, "mqa": _CYAN, "mla": _KHAKI,
    # the four attention projections (q is attention's own blue)
    "q_proj": _BLUE, "k_proj": _PURPLE, "v_proj": _CYAN, "o_proj": _KHAKI,
    # dense vs mixture of experts (lesson 7); total vs active parameters per token
    "dense": _SLATE, "moe": _VERMILION, "total": _CYAN, "active": _SLATE,
    # the what-if lab: a config as shipped and the reader's edit of it
    "original": _SLATE, "edited": _RED,
    # an exact count and a rule-of-thumb estimate of it
    "exact": _SLATE, "approx": _PURPLE,
    # what fills accelerator memory (lessons 9-12): the KV cache is attention's
    "weights": _SLATE, "kv_cache": _BLUE, "activations": _RED, "optimizer": _PURPLE,
    "gradients": _CYAN, "reserve": _KHAKI,
    # the reader's current setting (a star, a marked point) and a reference line or band;
    # "other" is what a figure leaves aside (a share's rest, settings that do not fit)
    "highlight": _RED, "reference": _GREY, "other": _CYAN,
}

# colours no concept may take but the ones that mean the same thing (the reserved four)
RESERVED_COLORS = {
    _BLUE: {"component:attention", "mha", "q_proj", "kv_cache"},
    _ORANGE: {"component:mlp"},
    _BROWN: {"component:embedding"},
    _VERMILION: {"component:experts", "moe"},
}

# which colours can meet in one figure: the palette test requires every pair in a group
# to stay distinguishable. A new concept goes into CONCEPT_COLORS and into its group.
COLOR_GROUPS = {
    "components": tuple(f"component:{k}" for k in COMPONENT_COLORS),
    "attention kinds": ("mha", "gqa", "mqa", "mla", "reference", "highlight"),
    "projections": ("q_proj", "k_proj", "v_proj", "o_proj", "highlight"),
    "dense vs MoE": ("dense", "moe", "highlight", "reference"),
    "total vs active": ("total", "active", "highlight", "reference"),
    "what-if": ("original", "edited", "reference"),
    "exact vs approx": ("exact", "approx", "highlight", "reference"),
    "memory": ("weights", "kv_cache", "activations", "optimizer", "gradients", "reserve",
               "reference"),
    "shares": ("component:attention", "component:mlp", "component:embedding",
               "component:lm_head", "other", "highlight"),
    "series": tuple(f"series:{i}" for i in range(len(COLORS))),
}

# a second channel besides colour, for bars and areas that need a legend (colour is never
# the only one): one hatch per component, one marker and dash per line concept
COMPONENT_HATCHES = {
    "embedding": "..", "attention": "", "mlp": "//", "shared_experts": "xx",
    "experts": "\\\\", "router": "oo", "norms": "--", "lm_head": "++",
    "vision": "||", "audio": "**",
}
CONCEPT_MARKERS = {"mha": "o", "gqa": "s", "mqa": "^", "mla": "D", "dense": "o", "moe": "^",
                   "exact": "o", "approx": "s", "original": "o", "edited": "s"}
CONCEPT_DASHES = {"mha": "-", "gqa": "--", "mqa": ":", "mla": "-.", "dense": "-", "moe": "--",
                  "exact": "-", "approx": "--", "original": "-", "edited": "--"}


def color_of(key):
    """The colour of a component, a concept or a series: ``"attention"``, ``"gqa"``,
    ``"component:mlp"``, ``"series:2"`` (a ``KeyError`` for an unknown name, so a typo
    is caught, not drawn in a default colour)."""
    kind, _, name = key.rpartition(":")
    if kind == "series":
        return COLORS[int(name) % len(COLORS)]
    if kind == "component" or (not kind and name in COMPONENT_COLORS):
        return COMPONENT_COLORS[name]
    return CONCEPT_COLORS[name]


def ink_for(color):
    """``"black"`` or ``"white"``: whichever reads better on ``color`` (the larger WCAG
    contrast ratio), for a label written on a bar of that colour."""
    from matplotlib.colors import to_rgb

    def lin(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in to_rgb(color))
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "black" if (y + 0.05) / 0.05 >= 1.05 / (y + 0.05) else "white"


def label_bars(ax, bars, labels, min_fraction=0.06, **kwargs):
    """Write each bar's label on the bar itself (a direct label: the reader need not
    match colours against a legend), in black or white for contrast with its fill.

    ``bars`` is what ``ax.bar``/``ax.barh`` returned; ``labels`` one string per bar. A
    bar shorter than ``min_fraction`` of the axis span gets no label (it would not fit);
    give such a category a legend entry or a hatch. Returns the label Text artists.
    """
    horizontal = getattr(bars, "orientation", "vertical") == "horizontal"
    lo, hi = ax.get_xlim() if horizontal else ax.get_ylim()
    span = abs(hi - lo) or 1.0
    shown = []
    for bar, text in zip(bars, labels):
        size = bar.get_width() if horizontal else bar.get_height()
        shown.append(text if abs(size) >= min_fraction * span else "")
    kwargs.setdefault("fontsize", TEXT_SIZES["label"])
    texts = ax.bar_label(bars, labels=shown, label_type="center", **kwargs)
    for bar, t in zip(bars, texts):
        t.set_color(ink_for(bar.get_facecolor()))
    return texts


_validated_style = (None, None)  # (STYLE's items, the same values as rcParams holds them)


@contextlib.contextmanager
def course_style():
    """``matplotlib.rc_context(STYLE)``, for what runs on every redraw: STYLE is validated
    once (rc_context parses it again each time, the colour cycle's string with it), and
    on exit every rcParam is put back as rc_context puts it back."""
    import matplotlib as mpl
    global _validated_style
    items = tuple(STYLE.items())
    if _validated_style[0] != items:
        _validated_style = (items, dict(dict.items(mpl.RcParams(STYLE))))
    rc = mpl.rcParams
    orig = dict.copy(rc)
    del orig["backend"]  # as rc_context: a backend resolved meanwhile stays resolved
    try:
        dict.update(rc, _validated_style[1])
        yield
    finally:
        dict.update(rc, orig)


def styled(func):
    """Decorator: run a plotting function under the course style (titles, ticks and
    labels take their sizes when they are drawn, so the whole function needs it); the
    Figure it returns has no text below ``MIN_TEXT_PT``."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from matplotlib.figure import Figure
        with course_style():
            out = func(*args, **kwargs)
        if isinstance(out, Figure):
            enforce_min_text(out)
        return out
    return wrapper


def enforce_min_text(fig, minimum=None):
    """Raise every text of ``fig`` smaller than ``minimum`` (default ``MIN_TEXT_PT``) to
    it: a size asked for by number (``fontsize=9``) cannot undercut the course minimum.
    Returns the texts it changed. ``styled`` figures and explorers call it."""
    from matplotlib.text import Text
    m = MIN_TEXT_PT if minimum is None else minimum
    small = []

    def walk(artist):  # the order of fig.findobj: each artist after its children
        for child in artist.get_children():
            walk(child)
        if isinstance(artist, Text) and artist.get_fontsize() < m:
            small.append(artist)
    walk(fig)
    for t in small:
        t.set_fontsize(m)
    return small


def keep_inside(fig, renderer, pad=4):
    """Move what a redraw pushed past the edges of an explorer's figure back inside it, so
    a projector shows every word: an axes whose tick labels or axis label reach past the
    left or right edge is narrowed (fixed-margin figures only); a text placed at a data
    point (a label beside a line or bar), a title or a legend is slid back inside; a title
    wider than the figure is set smaller first, down to ``MIN_TEXT_PT``. ``pad``: pixels
    kept free at each edge. Returns how many things it changed."""
    from matplotlib.transforms import IdentityTransform
    width = fig.bbox.width
    lo, hi = pad, width - pad
    changed = 0
    if fig.get_layout_engine() is None:
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            boxes = [b for b in (ax.yaxis.get_tightbbox(renderer),
                                 ax.xaxis.get_tightbbox(renderer)) if b is not None]
            if not boxes:
                continue
            left = min(b.x0 for b in boxes)
            right = max(b.x1 for b in boxes)
            if left >= lo and right <= hi:
                continue
            pos = ax.get_position()
            x0 = pos.x0 + max(0.0, lo - left) / width
            x1 = pos.x1 - max(0.0, right - hi) / width
            if x1 - x0 > 0.2:   # never squeeze the plot itself away
                ax.set_position([x0, pos.y0, x1 - x0, pos.height])
                changed += 1
    titles = [t for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title)]
    if fig._suptitle is not None:
        titles.append(fig._suptitle)
    for t in titles:
        if not t.get_visible() or not t.get_text():
            continue
        b = t.get_window_extent(renderer)
        size = t.get_fontsize()
        if b.width > hi - lo and size > MIN_TEXT_PT:
            t.set_fontsize(max(MIN_TEXT_PT, size * (hi - lo) / b.width))
            changed += 1

    def shift_of(box):   # pixels that bring box inside, 0 when it is (or cannot be)
        if box.width > hi - lo:
            return 0.0
        return (lo - box.x0) if box.x0 < lo else (hi - box.x1) if box.x1 > hi else 0.0

    for t in titles + [t for ax in fig.axes for t in ax.texts]:
        if not t.get_visible() or not t.get_text():
            continue
        shift = shift_of(t.get_window_extent(renderer))
        if shift:
            trans = t.get_transform()
            x, y = trans.transform(t.get_position())
            t.set_x(trans.inverted().transform((x + shift, y))[0])   # its height stays as set
            changed += 1
    for leg in [ax.get_legend() for ax in fig.axes] + list(fig.legends):
        if leg is None or not leg.get_visible():
            continue
        shift = shift_of(leg.get_window_extent(renderer))
        if shift:
            leg.set_bbox_to_anchor(leg.get_bbox_to_anchor().translated(shift, 0),
                                   transform=IdentityTransform())   # (in pixels)
            changed += 1
    return changed


# --- rendering --------------------------------------------------------------------------
#
# A figure in a notebook is drawn once, by ``savefig`` (public APIs only). An explorer's
# figure is drawn on every change by its own lasting Agg canvas, so matplotlib's
# text-metric cache (per renderer) lasts between redraws, and sent as a PNG.
#
# Which canvas draws an explorer was decided by measuring what the reader sees, a key
# press until the new figure is painted in the browser (benchmarks/browser.py,
# docs/benchmarks.md). With public APIs only (FigureCanvasAgg.draw and PIL's PNG encoder
# at zlib level 1) five of eleven explorers miss the 100 ms p90 target on the
# 2-core machine (p90 80-112 ms: matplotlib lays out and rasterises every label again on
# each redraw); with the text-caching canvas below (which overrides private matplotlib
# methods and writes the PNG itself) p90 is 62-79 ms. So that canvas draws every
# explorer, but only with the matplotlib minor version it was checked against (any other
# gets the stock canvas: slower, never wrong); tests check that both draw the pixels
# savefig draws on a stock canvas, for every explorer.
# RENDERER: "fast" (as shipped: the text-caching canvas) or "public" (public APIs only):
# the benchmark compares them.
RENDERER = "fast"

# Pixel density of the PNGs shown in notebooks (static figures): 2 draws each figure at
# 200 dpi and shows it at its 100-dpi size, so it stays sharp when the browser zooms (a
# lecturer's Ctrl +). Explorers redraw on every change and stay at EXPLORER_DENSITY 1:
# measured, 2x made every explorer's redraw 16-71% slower in the browser (PNG encoding
# alone 2.6-4.5x) for a figure that only gains when zoomed.
STATIC_DENSITY = 2
EXPLORER_DENSITY = 1
# The tallest a notebook figure is shown, in CSS pixels: JupyterLab at 1280x720 (a
# projector) leaves about this much below its toolbars, so a figure's title and its x axis
# are on screen together. A taller figure is shown scaled to it (still drawn at 2x: sharp).
MAX_DISPLAY_HEIGHT = 500


def new_figure(nrows=1, ncols=1, size=(10, 4.8), fast=False, explorer=None, **subplot_kw):
    """A styled Figure and its axes (``fig, ax`` or ``fig, axes``).

    ``fast=True`` (for widgets that redraw live) uses fixed margins instead of
    constrained layout, which would otherwise cost about half of each redraw, and
    gives the figure its lasting Agg canvas at ``EXPLORER_DENSITY`` (the text-caching
    one when ``explorer``, the explorer's name, calls for it: see ``RENDERER``).
    """
    import matplotlib as mpl
    from matplotlib.figure import Figure
    with mpl.rc_context(STYLE):
        if fast:
            fig = Figure(figsize=size, layout=None, dpi=STYLE["figure.dpi"] * EXPLORER_DENSITY)
            agg_canvas(fig, live=uses_fast_text(explorer))  # one lasting canvas
            fig.subplots_adjust(left=0.09, right=0.98, top=0.9, bottom=0.14, wspace=0.3)
        else:
            fig = Figure(figsize=size, layout="constrained")
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


def uses_fast_text(explorer):
    """Whether the explorer named ``explorer`` is drawn by the text-caching canvas."""
    return RENDERER == "fast" and explorer is not None


def agg_canvas(fig, live=False):
    """The figure's Agg canvas: a bare ``Figure`` (no canvas yet) gets a lasting one, the
    text-caching canvas when ``live`` is true, the stock one otherwise; a figure on
    another canvas (an interactive backend) is left alone (None)."""
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = fig.canvas
    if type(canvas) is FigureCanvasBase:
        canvas = (_canvas_class() if live else FigureCanvasAgg)(fig)
    return canvas if isinstance(canvas, FigureCanvasAgg) else None


def encode_canvas(canvas):
    """PNG bytes of what ``canvas`` last drew (RGB, zlib level 1, no metadata: the same
    pixels give the same bytes)."""
    from PIL import Image
    img = Image.frombuffer("RGBA", canvas.get_width_height(physical=True), canvas.buffer_rgba(),
                           "raw", "RGBA", 0, 1)
    if img.getextrema()[3][0] == 255:  # every pixel opaque (a figure has a facecolor)
        img = img.convert("RGB")
    buf = io.BytesIO()
    img.save(buf, format="png", compress_level=1)
    return buf.getvalue()


def png_bytes(fig):
    """Draw a figure and return its PNG bytes (at the figure's own dpi; see
    :func:`figure_png` for the denser PNG a notebook shows)."""
    import matplotlib as mpl
    with mpl.rc_context(STYLE):
        canvas = agg_canvas(fig)
        if canvas is None:  # another kind of canvas: let savefig pick the renderer
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=fig.dpi, metadata={"Software": None},
                        pil_kwargs={"compress_level": 1})
            return buf.getvalue()
        canvas.draw()
        return encode_canvas(canvas)


def figure_png(fig):
    """``(png, metadata)`` for Jupyter: the figure drawn at ``STATIC_DENSITY`` times its
    dpi, shown at its 1x width and height (sharp when the browser zooms)."""
    import matplotlib as mpl
    import numpy as np
    w, h = fig.get_size_inches() * fig.dpi
    with course_style():
        buf = io.BytesIO()
        fig.savefig(buf, format="raw", dpi=fig.dpi * STATIC_DENSITY)  # savefig's RGBA pixels
    width, height = (round(x) for x in fig.get_size_inches() * fig.dpi * STATIC_DENSITY)
    rgba = np.frombuffer(buf.getbuffer(), np.uint8).reshape(height, width, 4)
    # drawn once and stored in the notebook: zlib's default level (without PIL's adaptive
    # row filters: smaller, and a third faster, for these flat-coloured figures)
    png = encode_png(rgba, level=6)
    scale = min(1.0, MAX_DISPLAY_HEIGHT / h)
    return png, {"width": round(w * scale), "height": round(h * scale)}


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


def encode_png(rgba, level=1):
    """PNG bytes of an ``(height, width, 4)`` uint8 RGBA buffer (stored as RGB
    when every pixel is opaque).

    Rows use PNG's "none" filter and zlib ``level`` (1, the fastest, for a figure drawn
    on every change): a figure is mostly flat colour, which deflate compresses well
    without per-row filtering. Deterministic: the same pixels give the same bytes.
    """
    import struct
    import zlib

    import numpy as np
    a = np.asarray(rgba)
    h, w, _ = a.shape
    opaque = bool(a[..., 3].min() == 255)
    ch = 3 if opaque else 4
    raw = np.empty((h, 1 + w * ch), np.uint8)
    raw[:, 0] = 0  # filter byte 0 ("none") starts each row
    raw[:, 1:].reshape(h, w, ch)[...] = a[..., :ch]  # one strided copy, no temporary
    body = zlib.compress(raw.data, level)

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(data, zlib.crc32(tag))))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2 if opaque else 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def _canvas_class():
    """The Agg canvas class to attach to figures (built on first use)."""
    global _canvas_cls
    if _canvas_cls is None:
        _canvas_cls = _make_canvas_class()
    return _canvas_cls


def _make_canvas_class():
    import math
    import threading

    import matplotlib as mpl
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
    from matplotlib.ft2font import RenderMode

    if not (mpl.__version__.startswith(_FAST_TEXT_MPL)
            and hasattr(RendererAgg, "_draw_text_glyphs_and_boxes")
            and hasattr(RendererAgg, "_prepare_font")):
        return FigureCanvasAgg

    from matplotlib import font_manager
    from matplotlib.font_manager import get_font

    # what picks a font besides its FontProperties: the rcParams that findfont and get_font
    # read, the font manager, and the thread (get_font keeps one FT2Font per thread)
    rc_keys = ("font.family", "font.style", "font.variant", "font.weight", "font.stretch",
               "font.size", "font.serif", "font.sans-serif", "font.cursive", "font.fantasy",
               "font.monospace", "text.kerning_factor", "text.hinting_factor",
               "font.enable_last_resort")
    rc_get = dict.__getitem__
    get_ident = threading.get_ident

    def font_env():
        rc = mpl.rcParams
        return (tuple(tuple(v) if isinstance(v, list) else v
                      for v in [rc_get(rc, k) for k in rc_keys]),
                id(font_manager.fontManager), get_ident())

    class TextCachingRendererAgg(RendererAgg):
        """RendererAgg that remembers string layouts, glyph bitmaps and font heights."""

        _MAX = 50_000  # entries per cache before it starts over (a few MB at most)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._layouts = {}
            self._glyphs = {}
            self._heights = {}
            self._placed = {}   # (layout key, x, y, angle, antialiased) -> glyph draws
            self._env = None  # font_env() for the length of one canvas draw

        def _get_font_height_metrics(self, prop):
            # Text._get_layout asks a renderer for a font's ascent, descent and line gap
            # when it has this method, and otherwise reads two of the font's sfnt tables
            # on every layout (a third of its time). The same numbers, computed as
            # matplotlib 3.11's Text._get_layout computes them, once per font and size.
            key = (tuple(prop.__dict__.values()), self.dpi, self._env or font_env())
            hit = self._heights.get(key)
            if hit is None:
                if len(self._heights) > self._MAX:
                    self._heights.clear()
                font = get_font(font_manager.fontManager._find_fonts_by_props(prop))
                hit = (None, None, None)  # no table: Text measures "lp" instead
                for table_name, linegap_key, ascent_key, descent_key in (
                        ("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
                        ("hhea", "lineGap", "ascent", "descent")):
                    table = font.get_sfnt_table(table_name)
                    if table is None:
                        continue
                    fontsize = prop.get_size_in_points()
                    units_per_em = font.get_sfnt_table("head")["unitsPerEm"]
                    scale = 1 / units_per_em * fontsize * self.dpi / 72
                    hit = (table[ascent_key] * scale, -table[descent_key] * scale,
                           table[linegap_key] * scale)
                    break
                self._heights[key] = hit
            return hit

        def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
            if ismath:
                return self.draw_mathtext(gc, x, y, s, prop, angle)
            flags = get_hinting_flag()
            features = mtext.get_fontfeatures() if mtext is not None else None
            language = mtext.get_language() if mtext is not None else None
            key = (tuple(prop.__dict__.values()), s, self.dpi, flags,
                   tuple(features) if features else None, language,
                   self._env or font_env())
            hit = self._layouts.get(key)
            if hit is None:
                if len(self._layouts) > self._MAX:
                    self._layouts.clear()
                font = self._prepare_font(prop)
                items = font._layout(s, flags=flags, features=features, language=language)
                # the font objects are held, so their ids stay unique while cached
                hit = self._layouts[key] = (font, [(it.ft_object, it.glyph_index, it.x, it.y)
                                                   for it in items])
            # where its glyphs land: the same string at the same (x, y) lands alike, which
            # is most strings of a redraw (titles, legends, unmoved tick labels)
            aa = gc.get_antialiased()
            placed_key = (key, x, y, angle, aa)
            ops = self._placed.get(placed_key)
            if ops is None:
                if len(self._placed) > self._MAX:
                    self._placed.clear()
                size = prop.get_size_in_points()
                ops = self._placed[placed_key] = self._glyph_ops(
                    x, y, angle, aa, ((ft, size, g, 0, 1, gx, gy) for ft, g, gx, gy in hit[1]))
            draw = self._renderer.draw_text_image
            for buf, px, py in ops:
                draw(buf, px, py, 0, gc)

        def _draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes):
            if boxes:  # mathtext rules and TeX boxes: the stock path
                return super()._draw_text_glyphs_and_boxes(gc, x, y, angle, glyphs, boxes)
            draw = self._renderer.draw_text_image
            for buf, px, py in self._glyph_ops(x, y, angle, gc.get_antialiased(), glyphs):
                draw(buf, px, py, 0, gc)

        def _glyph_ops(self, x, y, angle, aa, glyphs):
            """``[(bitmap, x, y), ...]``: the arguments of draw_text_image for each glyph,
            exactly as the stock _draw_text_glyphs_and_boxes renders and places them."""
            cos = math.cos(math.radians(angle))
            sin = math.sin(math.radians(angle))
            flags = get_hinting_flag()
            height = self.height
            int_height = int(height)
            dpi = self.dpi
            cache = self._glyphs
            if len(cache) > self._MAX:
                cache.clear()
            ops = []
            for font, size, index, slant, extend, dx, dy in glyphs:
                # the pen position in 1/64 px, as the stock renderer computes it (at angle
                # 0, dx * cos - dy * sin is dx and dx * sin + dy * cos is dy, exactly)
                if angle == 0:
                    ix, fx = divmod(round(0x40 * (x + dx)), 64)
                    iy, fy = divmod(round(0x40 * (height - y + dy)), 64)
                else:
                    ix, fx = divmod(round(0x40 * (x + dx * cos - dy * sin)), 64)
                    iy, fy = divmod(round(0x40 * (height - y + dx * sin + dy * cos)), 64)
                key = (id(font), size, dpi, index, angle, slant, extend, flags, aa, fx, fy)
                g = cache.get(key)
                if g is None:
                    font.set_size(size, dpi)
                    font._set_transform(
                        (0x10000 * np.array([[cos, -sin], [sin, cos]])
                         @ [[extend, extend * slant], [0, 1]]).round().astype(int),
                        [fx, fy])
                    bitmap = font._render_glyph(
                        index, flags, RenderMode.NORMAL if aa else RenderMode.MONO)
                    buf = np.array(bitmap.buffer)
                    if not aa:
                        buf *= 0xff
                    # draw_text_image's y is downwards, at the bitmap's bottom: the
                    # bitmap's top above its bottom row is kept
                    g = cache[key] = (buf, bitmap.left, bitmap.top - buf.shape[0], font)
                buf, left, rise, _font = g
                ops.append((buf, left + ix, int_height - iy - rise))
            return ops

    class FastFigureCanvasAgg(FigureCanvasAgg):
        """An Agg canvas whose renderer caches text (see above)."""

        fast_text = True  # its PNG is written by encode_png

        def get_renderer(self):
            w, h = self.get_width_height(physical=True)
            key = w, h, self.figure.dpi
            if self._lastKey != key:
                self.renderer = TextCachingRendererAgg(w, h, self.figure.dpi)
                self._lastKey = key
            return self.renderer

        def draw(self):
            renderer = self.get_renderer()
            renderer._env = font_env()  # the fonts cannot change during one draw
            try:
                super().draw()
            finally:
                renderer._env = None

    return FastFigureCanvasAgg


def plain_log_axis(axis, fmt="{:g}"):
    """Log-scale tick labels as plain numbers ('0.5', '8', '64'), no mathtext
    (mathtext labels are slow to lay out on every redraw, and harder to read)."""
    from matplotlib.ticker import FuncFormatter, NullLocator
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt.format(v)))
    axis.set_minor_locator(NullLocator())
