"""The fit-and-speed figure (lesson 9's appendix): one meaning per colour. The left
panel's bars (weights, KV cache, reserve) and the right panel's speed lines must not
share a colour."""

import matplotlib

matplotlib.use("Agg")

from matplotlib.colors import to_hex  # noqa: E402

import llmcourse as lc  # noqa: E402


def test_speed_lines_do_not_reuse_the_memory_bars_colours():
    fig = lc.plots.fit_and_speed("Llama-3.1-8B", "H100", weights="bf16", seq_len=8192, batch=16)
    left, right = fig.axes[:2]
    bar_colours = {to_hex(p.get_facecolor()) for p in left.patches}
    line_colours = {to_hex(line.get_color()) for line in right.lines if line.get_linestyle() in ("-", "--")}
    assert len(bar_colours) >= 3 and len(line_colours) >= 2
    assert not bar_colours & line_colours
