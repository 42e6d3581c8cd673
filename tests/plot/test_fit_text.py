"""Tests for iaa_frames.plot.fit_text: lines measured by the renderer stay within the room,
no word is lost or reordered, a fitted title follows its Axes' width."""

from __future__ import annotations

import matplotlib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.errors import ParameterError
from iaa_frames.plot.fit_text import (
    fit_lines,
    fitted_title_parts,
    line_width,
    refit_title,
    set_fitted_title,
)

matplotlib.use("Agg")
plt = matplotlib.pyplot

_FIG = plt.figure(figsize=(3, 1))
_RENDERER = _FIG.canvas.get_renderer()
_PROP = _FIG.text(0, 0, "", fontsize=8).get_fontproperties()

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_()0123456789×", min_size=1, max_size=30)
parts = st.lists(st.lists(words, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(parts=parts, width=st.floats(20, 400), head=st.integers(0, 3))
def test_lines_fit_and_keep_every_word(parts, width, head):
    lines = fit_lines(parts, width, _PROP, _RENDERER, head=head)
    # no line wider than the room (a single character wider than it stands alone)
    for line in lines:
        assert line_width(line, _PROP, _RENDERER) <= width or len(line) == 1
    # the words, in order: joining the lines gives back the parts' characters
    flat = "".join("".join(lines).replace(" · ", "").split())
    assert flat == "".join("".join(parts).split())
    # a head part that fits is a line of its own
    for part in parts[:head]:
        if line_width(part, _PROP, _RENDERER) <= width:
            assert part in lines


def test_a_wide_room_keeps_one_line_after_the_head():
    lines = fit_lines(["img_1", "3 label", "2 low overlap"], 1e4, _PROP, _RENDERER)
    assert lines == ["img_1", "3 label · 2 low overlap"]


def test_fitted_title_follows_the_axes():
    fig, ax = plt.subplots(figsize=(6, 2), layout="constrained")
    parts = ["item", *(f"{k} conflicts of kind number {k}" for k in range(6))]
    set_fitted_title(ax, parts)
    assert fitted_title_parts(ax) == parts
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    refit_title(ax, renderer)
    wide = ax.get_title(loc="left").count("\n")
    fig.set_figwidth(2.5)  # narrower: more lines, each within the Axes
    fig.canvas.draw()
    assert refit_title(ax, renderer, extra="4 of 9 label tags left out (no room)")
    fig.canvas.draw()
    title = ax._left_title.get_window_extent(renderer)
    box = ax.get_window_extent(renderer)
    assert ax.get_title(loc="left").count("\n") > wide
    assert box.x0 - 1 <= title.x0 and title.x1 <= box.x1 + 1
    assert ax.get_title(loc="left").replace("\n", " ").endswith("left out (no room)")
    assert refit_title(plt.subplots()[1], renderer) is None  # no fitted title: nothing done
    with pytest.raises(ParameterError, match="within"):
        set_fitted_title(ax, parts, within="page")
    plt.close("all")
