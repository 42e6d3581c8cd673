"""plot.keypoints: per joint, everybody's estimate and interval and each annotator's."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames import plot
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.geometry.kinds import KEYPOINTS
from iaa_frames.simulate import KeypointProfile, simulate_keypoints

matplotlib.use("Agg")  # no display; no figure is open yet
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(scope="module")
def result():
    profiles = {
        "ana": KeypointProfile(jitter=0.1),
        "ben": KeypointProfile(jitter=0.1, swap=0.5, swap_joints=("left_knee",)),
        "cyd": KeypointProfile(jitter=0.1, joint_jitter={"left_wrist": 0.8}, occlusion=0.3),
    }
    df = simulate_keypoints(n_items=90, annotators=profiles, seed=0)
    return iaf.keypoint_agreement(df, n_boot=60, seed=0)


@pytest.fixture(scope="module")
def crowd():
    profiles = {f"w{i}": KeypointProfile(jitter=0.1 + 0.05 * i) for i in range(9)}
    df = simulate_keypoints(n_items=40, annotators=profiles, seed=1)
    return iaf.keypoint_agreement(df, n_boot=20, seed=0)


@pytest.fixture(autouse=True)
def _each_test_closes_its_figures():
    yield
    plt.close("all")


def by_gid(ax, gid):
    return [a for a in ax.get_children() if a.get_gid() == gid]


def test_dots_and_whiskers_are_the_result(result):
    ax = plot.keypoints(result)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(KEYPOINTS.keypoints)
    frame = plot.keypoint_frame(result)
    names = list(dict.fromkeys(frame["annotator"]))
    assert names[0] == ALL and sorted(names[1:]) == ["ana", "ben", "cyd"]
    for name in names[1:]:
        (dots,) = by_gid(ax, f"estimate:{name}")
        value = result.localization.sel(annotator=name).values
        np.testing.assert_allclose(dots.get_xdata(), value[np.isfinite(value)])
        (ci,) = by_gid(ax, f"ci:{name}")
        lo = result.localization_ci_low.sel(annotator=name).values
        hi = result.localization_ci_high.sel(annotator=name).values
        segs = np.array(ci.get_segments())
        np.testing.assert_allclose(segs[:, 0, 0], lo[np.isfinite(lo)])
        np.testing.assert_allclose(segs[:, 1, 0], hi[np.isfinite(hi)])
        # each annotator's dot on its joint's row
        assert (np.abs(segs[:, 0, 1] - np.flatnonzero(np.isfinite(lo))) < 0.5).all()
    (everybody,) = by_gid(ax, f"estimate:{ALL}")
    assert (
        len(everybody.get_segments()) == np.isfinite(result.localization.sel(annotator=ALL)).sum()
    )
    assert len(by_gid(ax, f"ci:{ALL}")) > 0
    assert ax.get_xlabel() == result.localization.attrs["long_name"]


def test_the_worst_annotator_comes_first_and_swaps_skip_unmirrored_joints(result):
    swaps = plot.keypoint_frame(result, variable="swapped")
    assert list(dict.fromkeys(swaps["annotator"]))[1] == "ben"  # the most swaps
    assert "nose" not in set(swaps["keypoint"]) and swaps.attrs["unpaired"] == ["nose"]
    ax = plot.keypoints(result, variable="swapped")
    notes = [t.get_text() for t in ax.texts if t.get_gid() == "note"]
    assert any("nose" in n for n in notes)
    loc = plot.keypoint_frame(result, variable="localization")
    mean = result.localization.drop_sel(annotator=ALL).mean("keypoint")
    assert list(dict.fromkeys(loc["annotator"]))[1:] == [
        str(a) for a in mean.sortby(mean).annotator.values
    ]


def test_many_annotators_keep_the_lowest_and_highest(crowd):
    frame = plot.keypoint_frame(crowd, top=4)
    shown = list(dict.fromkeys(frame["annotator"]))
    mean = crowd.localization.drop_sel(annotator=ALL).mean("keypoint")
    ranked = [str(a) for a in mean.sortby(mean).annotator.values]
    assert shown == [ALL, *ranked[:2], *ranked[-2:]]
    assert frame.attrs["n_hidden"] == 5
    ax = plot.keypoints(crowd, top=4)
    notes = [t.get_text() for t in ax.texts if t.get_gid() == "note"]
    assert any("+ 5 more annotators not shown" in " ".join(n.split()) for n in notes)
    assert len(plot.keypoint_frame(crowd, top=None)["annotator"].unique()) == 10


def test_undefined_values_are_marked_and_explained():
    df = simulate_keypoints(
        n_items=45,
        annotators={
            "a": KeypointProfile(jitter=0.2, drop=0.3),
            "b": KeypointProfile(jitter=0.3, drop=0.3),
            "c": KeypointProfile(jitter=0.2),
        },
        seed=0,
    )
    res = iaf.keypoint_agreement(df, n_boot=0)
    missing = res.localization.isnull().any("annotator")
    assert 0 < int(missing.sum()) < KEYPOINTS.n_keypoints
    ax = plot.keypoints(res)
    marks = [t for t in ax.texts if t.get_gid() == "undefined"]
    assert len(marks) == int(missing.sum())
    assert sorted(round(t.get_position()[1]) for t in marks) == np.flatnonzero(missing).tolist()
    notes = " ".join(t.get_text() for t in ax.texts if t.get_gid() == "note")
    assert "too few chance units" in notes


def test_takes_an_axes_and_checks_its_arguments(result):
    fig, (left, right) = plt.subplots(1, 2)
    assert plot.keypoints(result, ax=right, variable="visibility_alpha") is right
    assert right.get_title() == "visibility α per joint" and not left.has_data()
    with pytest.raises(ParameterError, match="variable"):
        plot.keypoint_frame(result, variable="oks_term")
    with pytest.raises(ParameterError, match="top"):
        plot.keypoints(result, top=0)


@pytest.mark.parametrize("width", [3.5, 7.0])
@pytest.mark.parametrize("variable", ["localization", "visibility_alpha", "swapped"])
def test_fits_its_width_without_overlapping_texts(result, crowd, width, variable):
    for res in (result, crowd):
        fig = plot.keypoints(res, variable=variable, width=width).figure
        assert fig.get_figwidth() == pytest.approx(width)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        x_ticks = {id(t) for t in ax.xaxis.get_ticklabels(which="both")}  # matplotlib spaces them
        shown = [
            t
            for t in fig.findobj(matplotlib.text.Text)
            if t.get_text().strip() and t.get_visible() and id(t) not in x_ticks
        ]
        boxes = [t.get_window_extent(renderer) for t in shown]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                overlap = min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0)
                assert min(overlap) <= 1.0, f"{shown[i].get_text()!r} overlaps another text"
        # every text inside the figure
        page = fig.bbox
        for t, box in zip(shown, boxes, strict=True):
            assert box.x0 >= page.x0 - 1 and box.x1 <= page.x1 + 1, t.get_text()
