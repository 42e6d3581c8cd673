"""Hostile review, round 6: frame numbers that do not name one frame each.

The frames of a sequence are keyed by their number: two items of one sequence with the
same ``frame`` (a copy-paste, a reader's off-by-one) were silently one frame, a track then
holding two objects on it; an item whose annotators' rows gave two numbers was on two
frames at once. ``track_agreement`` and ``track_figures`` returned figures for both
without a word; each is now a ``SchemaError`` naming the items.
"""

import pytest

import iaa_frames as iaf
from iaa_frames.errors import SchemaError

FAST = dict(n_chance=50)
CALLS = {
    "track_agreement": lambda d: iaf.track_agreement(d, n_boot=0, **FAST),
    "track_figures": lambda d: iaf.track_figures(d, **FAST),
}


@pytest.fixture(scope="module")
def videos():
    return iaf.simulate_tracks(
        n_sequences=3,
        n_frames=6,
        seed=1,
        annotators={"A": {"jitter": 0.1, "swaps": 1}, "B": {"jitter": 0.1}},
    )


@pytest.mark.parametrize("call", CALLS)
def test_two_items_of_a_sequence_with_one_frame_number(videos, call):
    copied = videos.assign(frame=videos["frame"].where(videos["frame"] != 3, 2))
    with pytest.raises(
        SchemaError,
        match=r"items 'seq00(\d)/frame_0002', 'seq00\1/frame_0003' of one sequence share 'frame' 2",
    ):
        CALLS[call](copied)


@pytest.mark.parametrize("call", CALLS)
def test_an_item_with_two_frame_numbers(videos, call):
    shifted = videos.copy()
    shifted.loc[shifted["annotator"] == "B", "frame"] += 10
    with pytest.raises(
        SchemaError, match=r"item 'seq00\d/frame_00\d\d' has two or more values of 'frame'"
    ):
        CALLS[call](shifted)


def test_the_same_number_in_two_sequences_is_fine(videos):
    assert videos.groupby("group")["frame"].min().nunique() == 1  # every sequence from 0
    res = iaf.track_agreement(videos, n_boot=0, **FAST)
    assert float(res["idf1"].sel(label="(all)", annotator="A", partner="B")) > 0.5
