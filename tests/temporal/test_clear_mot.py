"""temporal.clear_mot: ID switches, fragmentations, MOTA, MOTP and IDF1 equal to the real
``motmetrics`` package on track sets made without ``iaf.simulate`` (crossing tracks with
consistent, random, swapped and fragmented ids, missing objects and frames, another frame
rate), and hand-computed small cases."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from mot_tracks import crossing_tracks, mot_reference

import iaa_frames as iaf
from iaa_frames.temporal.clear_mot import clear_mot, track_order

mm = pytest.importorskip("motmetrics")

CASES = {
    "same ids": {"ids": "same"},
    "random ids": {"ids": "random"},
    "swaps": {"ids": "swap"},
    "fragments": {"ids": "fragment", "miss": 0.1},
    "missing frames": {"ids": "swap", "skip_frames": 0.25, "miss": 0.15},
    "half frame rate": {"ids": "same", "step_b": 2, "speed": 0.03},
}
#: ours -> motmetrics, per sequence
COUNTS = {
    "id_switches": "num_switches",
    "fragmentations": "num_fragmentations",
    "matched": "num_detections",
    "n_annotator": "num_objects",
}
RATIOS = {"idf1": "idf1", "idp": "idp", "idr": "idr", "mota": "mota", "motp": "motp"}


def _rows(t, label, annotator):
    return t[(t["label"] == label) & (t["annotator"] == annotator)].set_index("sequence")


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("case", list(CASES))
def test_every_sequence_equals_motmetrics_both_ways(case, seed):
    df = crossing_tracks(seed, **CASES[case])
    t = iaf.track_figures(df, match_threshold=0.5, n_chance=10)
    for gt, hyp in (("A", "B"), ("B", "A")):
        ours, theirs = _rows(t, "(all)", gt), mot_reference(df, gt, hyp)
        assert len(ours) == 3
        theirs = theirs.loc[ours.index]
        for a, b in COUNTS.items():
            np.testing.assert_array_equal(ours[a], theirs[b].astype(int), err_msg=f"{gt} {a}")
        for a, b in RATIOS.items():
            np.testing.assert_allclose(
                ours[a], theirs[b].astype(float), rtol=0, atol=1e-12, err_msg=f"{gt} {a}"
            )
    if case == "random ids":
        assert _rows(t, "(all)", "A")["id_switches"].sum() > 50


@pytest.mark.parametrize("seed", range(4))
def test_crossing_tracks_with_consistent_ids_switch_nothing(seed):
    """The repro of #43: jitter 0.012 of the box size, y offsets 0.002 x track id, so that
    boxes cross; an annotator with consistent ids has no switch and IDF1 1 (a per-frame
    matching, blind to the previous frame, switched ids where the boxes cross)."""
    df = crossing_tracks(seed, n_sequences=4, n_frames=60, n_tracks=8)
    t = _rows(iaf.track_figures(df, n_chance=10), "(all)", "A")
    assert (t["id_switches"] == 0).all() and (t["idf1"] == 1).all() and (t["mota"] == 1).all()


def test_pooled_cells_equal_motmetrics_overall():
    df = crossing_tracks(5, n_sequences=4, ids="swap", miss=0.1)
    res = iaf.track_agreement(df, n_chance=20, n_boot=20)
    cell = res.sel(label="(all)", annotator="A", partner="B")
    overall = mot_reference(df, "A", "B").loc["(all)"]
    assert float(cell["id_switches"]) == overall["num_switches"]
    assert float(cell["fragmentations"]) == overall["num_fragmentations"]
    for name in ("idf1", "idp", "idr", "mota", "motp"):
        assert float(cell[name]) == pytest.approx(float(overall[name]), abs=1e-12), name
    assert float(cell["mota_ci_low"]) <= float(cell["mota"]) <= float(cell["mota_ci_high"])
    for name in ("mota", "motp", "idf1", "id_switches"):
        assert res[name].attrs["long_name"] and res[name].attrs["description"], name


def test_each_class_equals_motmetrics_on_its_objects():
    df = crossing_tracks(2, ids="swap", labels=("car", "person"), n_tracks=8)
    t = iaf.track_figures(df, n_chance=10)
    for label in ("car", "person"):
        ours = _rows(t, label, "A")
        theirs = mot_reference(df, "A", "B", label=label).loc[ours.index]
        np.testing.assert_array_equal(ours["id_switches"], theirs["num_switches"].astype(int))
        np.testing.assert_allclose(ours["idf1"], theirs["idf1"].astype(float), atol=1e-12)
        np.testing.assert_allclose(ours["mota"], theirs["mota"].astype(float), atol=1e-12)


# -- hand-computed cases: clear_mot on pairs within τ given with their IoU


def _frame_matches(near, present, tracks):
    """A FrameMatches of one unit from ``near`` rows (object_a, object_b, iou) and the
    ``present`` objects ``(side, object, track, frame)``; ``tracks``: the id of each
    track code."""
    present = pd.DataFrame(present, columns=["side", "object", "track", "frame"])
    present["unit"] = 0
    track_of = present.set_index("object")["track"]
    frame_of = present.set_index("object")["frame"]
    near = pd.DataFrame(near, columns=["object_a", "object_b", "iou"])
    near["unit"] = 0
    near["track_a"] = track_of[near["object_a"]].to_numpy()
    near["track_b"] = track_of[near["object_b"]].to_numpy()
    near["frame"] = frame_of[near["object_a"]].to_numpy()
    n_obj = int(present["object"].max()) + 1
    return SimpleNamespace(
        near=near,
        present=present,
        units=pd.DataFrame({"unit": [0]}),
        tracks=np.array([["A" if i < 10 else "B", str(i)] for i in tracks], dtype=object),
        corpus=SimpleNamespace(objects=range(n_obj)),
    )


def _motmetrics(fm):
    """motmetrics on the same pairs: distance 1 - IoU, NaN for pairs not within τ."""
    acc = mm.MOTAccumulator(auto_id=False)
    p, n = fm.present, fm.near
    ids = fm.tracks[:, 1].astype(int)
    for fr in sorted(p["frame"].unique()):
        g = p[(p["frame"] == fr) & (p["side"] == 0)].sort_values("track", key=lambda s: ids[s])
        h = p[(p["frame"] == fr) & (p["side"] == 1)]
        d = np.full((len(g), len(h)), np.nan)
        for i, oa in enumerate(g["object"]):
            for j, ob in enumerate(h["object"]):
                hit = n[(n["object_a"] == oa) & (n["object_b"] == ob)]
                if len(hit):
                    d[i, j] = 1 - hit["iou"].iloc[0]
        acc.update(ids[g["track"]].tolist(), ids[h["track"]].tolist(), d, frameid=int(fr))
    return mm.metrics.create().compute(acc, metrics=["num_switches", "mota", "motp"]).iloc[0]


def test_the_previous_partner_is_kept_while_within_tau():
    """Two tracks cross on frame 1: A's track 1 is nearer B's 12 there than its own 11,
    but 11 is still within τ, so the correspondence of frame 0 stands (0 switches, where
    matching frame 1 on its own swaps the ids and back: 4 switches)."""
    # tracks: codes 0, 1 (A's 1 and 2), 2, 3 (B's 11 and 12); objects by frame
    present = [(0, 0, 0, 0), (0, 1, 1, 0), (1, 2, 2, 0), (1, 3, 3, 0)]
    present += [(0, 4, 0, 1), (0, 5, 1, 1), (1, 6, 2, 1), (1, 7, 3, 1)]
    present += [(0, 8, 0, 2), (0, 9, 1, 2), (1, 10, 2, 2), (1, 11, 3, 2)]
    near = [(0, 2, 0.9), (1, 3, 0.9)]
    near += [(4, 6, 0.6), (4, 7, 0.8), (5, 6, 0.8), (5, 7, 0.6)]  # crossing
    near += [(8, 10, 0.9), (9, 11, 0.9)]
    fm = _frame_matches(near, present, [1, 2, 11, 12])
    c = clear_mot(fm, 0)
    assert c.switches.tolist() == [0.0] and c.matched.tolist() == [6.0]
    assert c.distance[0] == pytest.approx(4 * 0.1 + 2 * 0.4)
    ref = _motmetrics(fm)
    assert ref["num_switches"] == 0 and ref["motp"] == pytest.approx(c.distance[0] / 6, abs=1e-12)


def test_a_disputed_partner_goes_to_the_smaller_id():
    """A's tracks 1 and 2 were both last matched to B's 9 (frame 0: 1-9, frame 1: 2-9);
    on frame 2 both are within τ of 9: track 1 keeps it (motmetrics takes the first id),
    2 is missed. No switch; MOTA = 1 - 1 miss / 4 objects."""
    present = [(0, 0, 0, 0), (1, 1, 2, 0), (0, 2, 1, 1), (1, 3, 2, 1)]
    present += [(0, 4, 0, 2), (0, 5, 1, 2), (1, 6, 2, 2)]
    near = [(0, 1, 0.9), (2, 3, 0.9), (4, 6, 0.6), (5, 6, 0.95)]
    fm = _frame_matches(near, present, [1, 2, 9])
    c = clear_mot(fm, 0)
    assert c.switches.tolist() == [0.0] and c.matched.tolist() == [3.0]
    ref = _motmetrics(fm)
    assert ref["num_switches"] == 0 and ref["mota"] == pytest.approx(0.75)


def test_most_pairs_before_the_least_distance():
    """On one frame the two best pairs (IoU 0.99) leave a third object of each side
    unmatched; the three pairs at IoU 0.5-0.6 match every object: CLEAR MOT takes them (the
    Hungarian step of motmetrics: most pairs first). MOTP = mean(1 - IoU)."""
    present = [(0, i, i, 0) for i in range(3)] + [(1, 3 + i, 3 + i, 0) for i in range(3)]
    near = [(0, 3, 0.99), (1, 4, 0.99), (0, 4, 0.5), (1, 5, 0.6), (2, 3, 0.55)]
    fm = _frame_matches(near, present, [1, 2, 3, 11, 12, 13])
    c = clear_mot(fm, 0)
    assert c.matched.tolist() == [3.0]
    assert c.distance[0] == pytest.approx(0.5 + 0.4 + 0.45)
    ref = _motmetrics(fm)
    assert ref["mota"] == 1.0 and ref["motp"] == pytest.approx(c.distance[0] / 3, abs=1e-12)


def test_a_switch_after_a_gap_counts():
    """A's track 1 is matched to B's 11 on frames 0-1, unmatched on frame 2 (11 gone, 12
    not yet within τ), matched to 12 on frame 3: one switch (motmetrics keeps the last
    partner across gaps), one fragmentation."""
    present = [(0, 0, 0, 0), (1, 1, 1, 0), (0, 2, 0, 1), (1, 3, 1, 1)]
    present += [(0, 4, 0, 2), (1, 5, 2, 2), (0, 6, 0, 3), (1, 7, 2, 3)]
    near = [(0, 1, 0.9), (2, 3, 0.9), (6, 7, 0.8)]
    fm = _frame_matches(near, present, [1, 11, 12])
    c = clear_mot(fm, 0)
    assert (c.switches[0], c.fragmentations[0], c.matched[0]) == (1, 1, 3)
    ref = _motmetrics(fm)
    assert ref["num_switches"] == 1
    # MOTA: 1 miss (frame 2), 1 false positive (12 on frame 2), 1 switch over 4 objects
    assert ref["mota"] == pytest.approx(1 - 3 / 4)


def test_track_order_is_numeric_when_every_id_is_a_number():
    assert track_order(np.array([["A", "10"], ["A", "9"]], dtype=object)).tolist() == [1, 0]
    assert track_order(np.array([["A", "b"], ["A", "a"]], dtype=object)).tolist() == [1, 0]
