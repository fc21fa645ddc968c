"""Every colour the course draws with stays distinguishable for colour-blind readers.

Each palette in ``llmcourse.plots.style`` is simulated as a protan, deutan and tritan
reader sees it (Machado, Oliveira & Fernandes 2009, the model ``colorspacious``
implements, at severity 100: the full dichromacy, the hardest case) and as a reader
with normal colour vision. Every pair of colours that can appear in one figure (one
group of ``COLOR_GROUPS``) must stay at least ``MIN_DELTA_E`` apart in CAM02-UCS
under each of the four.

The threshold, ΔE = 12 in CAM02-UCS: a ΔE of about 1 is the smallest difference seen
between two large patches side by side; figure colours are small marks seen apart (a
legend swatch, a 2-px line, a marker), for which the difference needed to tell two
colours apart grows several-fold as the mark shrinks (Stone, Szafir & Setlur, "An
Engineering Model for Color Difference as a Function of Size", 2014). Twelve is well
above that and below what a ten-colour palette can reach: matplotlib's tab10, the
course's old palette, has pairs at 1.6 (protan), 2.4 and 4.5; Okabe-Ito's worst pair
is 11.0 (tritan); petroff10, the palette chosen, keeps every pair at 14.5 or more.
"""

import itertools

import pytest
from colorspacious import cspace_convert, deltaE
from matplotlib.colors import to_rgb

from llmcourse.architectures import COMPONENTS
from llmcourse.plots import style

MIN_DELTA_E = 12.0
VISION = ("normal", "protanomaly", "deuteranomaly", "tritanomaly")


def seen(color, vision):
    """The sRGB colour (0..1) a reader with ``vision`` sees for ``color``."""
    rgb = to_rgb(color)
    if vision == "normal":
        return rgb
    cvd = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}
    return tuple(min(1.0, max(0.0, c)) for c in cspace_convert(rgb, cvd, "sRGB1"))


def worst_pair(colors):
    """(ΔE, vision, name a, name b) of the closest pair of ``colors`` (name -> colour)."""
    return min((float(deltaE(seen(ca, v), seen(cb, v), input_space="sRGB1")), v, a, b)
               for (a, ca), (b, cb) in itertools.combinations(colors.items(), 2)
               for v in VISION)


@pytest.mark.parametrize("group", sorted(style.COLOR_GROUPS))
def test_colours_that_meet_in_a_figure_stay_apart(group):
    colors = {k: style.color_of(k) for k in style.COLOR_GROUPS[group]}
    d, vision, a, b = worst_pair(colors)
    assert d >= MIN_DELTA_E, (f"{group}: {a} {colors[a]} and {b} {colors[b]} are ΔE {d:.1f} "
                              f"apart for {vision} vision (need {MIN_DELTA_E})")


def test_the_whole_palette_stays_apart():
    """Any two of the palette's colours may one day meet; they all stay apart."""
    d, vision, a, b = worst_pair({f"#{i}": c for i, c in enumerate(style.PETROFF10)})
    assert d >= MIN_DELTA_E, (d, vision, a, b)


def test_the_simulation_finds_the_pairs_known_to_fail():
    """The check can fail: tab10's MLP orange and experts green, 1.6 apart for a protan
    reader (the number measured for the old component colours), attention and router."""
    d, vision, *_ = worst_pair({"mlp": "#ff7f0e", "experts": "#2ca02c"})
    assert d < 3 and vision == "protanomaly"
    assert worst_pair({"attention": "#1f77b4", "router": "#9467bd"})[0] < 3
    # blue and yellow stay apart for protan and deutan readers, and only tritan is close
    # for a blue/green pair: the simulation tells the three kinds apart
    assert worst_pair({"b": "#0000ff", "y": "#ffff00"})[0] > 30
    assert worst_pair({"g": "#009e73", "b": "#0072b2"})[1] == "tritanomaly"


def test_every_colour_comes_from_the_palette():
    """One palette: components, concepts and the cycle all use petroff10's colours, so the
    whole-palette check covers every figure, whatever it combines."""
    used = set(style.COLORS) | set(style.COMPONENT_COLORS.values()) | set(
        style.CONCEPT_COLORS.values())
    assert used <= set(style.PETROFF10)
    assert sorted(style.COLORS) == sorted(style.PETROFF10)


def test_attention_mlp_embedding_and_experts_keep_their_colour_in_every_figure():
    """One meaning per colour: attention is blue, the MLP orange, the embedding brown and
    routed experts vermilion wherever they appear, and no other idea takes those colours
    (the reviews found orange meaning MLP in one figure and "underestimate", "active",
    "MoE" or "edited" in others). Only a concept that is the same thing may share one."""
    named = {f"component:{k}": v for k, v in style.COMPONENT_COLORS.items()}
    named.update(style.CONCEPT_COLORS)
    for color, allowed in style.RESERVED_COLORS.items():
        users = {k for k, v in named.items() if v == color}
        assert users <= allowed, f"{color} is reserved for {sorted(allowed)}: {sorted(users - allowed)}"
    for component in ("attention", "mlp", "embedding", "experts"):
        c = style.color_of(f"component:{component}")
        assert c in style.RESERVED_COLORS and f"component:{component}" in style.RESERVED_COLORS[c]


def test_one_colour_and_one_hatch_per_component():
    assert tuple(style.COMPONENT_COLORS) == COMPONENTS
    assert set(style.COMPONENT_HATCHES) == set(COMPONENTS)
    assert len(set(style.COMPONENT_COLORS.values())) == len(COMPONENTS)
    assert len(set(style.COMPONENT_HATCHES.values())) == len(COMPONENTS)


def test_groups_name_only_known_colours():
    for group, keys in style.COLOR_GROUPS.items():
        for k in keys:
            style.color_of(k)  # a KeyError names the typo
        assert len(set(keys)) == len(keys), group
    with pytest.raises(KeyError):
        style.color_of("atention")


def test_ink_for_picks_the_readable_label_colour():
    # WCAG contrast: white text on pure blue (8.6:1) beats black (2.4:1); black on yellow
    assert style.ink_for("#0000ff") == "white"
    assert style.ink_for("#ffff00") == "black"
    for c in style.PETROFF10:
        assert style.ink_for(c) in ("black", "white")


def test_label_bars_writes_on_bars_that_fit():
    from llmcourse.plots.style import new_figure
    fig, ax = new_figure()
    bars = ax.barh([0, 1, 2], [10, 0.2, 5], color=[style.COMPONENT_COLORS["attention"],
                                                  style.COMPONENT_COLORS["mlp"],
                                                  style.COMPONENT_COLORS["shared_experts"]])
    ax.set_xlim(0, 10)
    texts = style.label_bars(ax, bars, ["attention", "mlp", "shared"])
    assert [t.get_text() for t in texts] == ["attention", "", "shared"]
    assert texts[0].get_fontsize() >= style.MIN_TEXT_PT
    assert texts[2].get_color() == style.ink_for(style.COMPONENT_COLORS["shared_experts"])
