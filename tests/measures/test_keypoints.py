"""Per-keypoint agreement: which joints disagree and whose, visibility α, intervals.

keypoint_cells: a bootstrap replicate's weights are the corpus with items repeated.
"""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.explore.matches import tables_of
from iaa_frames.geometry.kinds import KEYPOINTS, KeypointsKind
from iaa_frames.geometry.kinds.keypoints import COCO_PERSON_SIGMAS
from iaa_frames.measures.keypoints import KeypointCells, mirror_of
from iaa_frames.simulate import KeypointProfile, simulate_keypoints


def test_mirror_of_a_skeleton_of_its_own():
    kind = KeypointsKind("hand_test", ["left_thumb", "wrist", "right_thumb"], sigmas=[0.1] * 3)
    assert mirror_of(kind).tolist() == [2, 1, 0]
    flipped = KeypointsKind("odd_test", ["a", "b", "c"], sigmas=[0.1] * 3, flip=[(0, 1)])
    assert mirror_of(flipped).tolist() == [1, 0, 2]


def test_a_replicate_is_the_corpus_with_its_items_repeated():
    profiles = {
        "ana": KeypointProfile(jitter=0.2, occlusion=0.2),
        "ben": KeypointProfile(jitter=0.3, swap=0.4, swap_joints=("left_knee",)),
        "cyd": KeypointProfile(jitter=0.2, drop=0.2),
    }
    t = tables_of(simulate_keypoints(n_items=25, annotators=profiles, seed=4), seed=0)
    cells = KeypointCells.build(t, KEYPOINTS)
    k = np.random.default_rng(1).integers(0, 3, size=(2, len(t.corpus.items)))
    stats = cells.statistics(k)
    observed = cells.grid(cells.localization.statistics(k)[0])
    w = t.localization_within
    p = t.corpus.shapes.params["keypoints"]
    pa, pb = p[w["object_a"].to_numpy()], p[w["object_b"].to_numpy()]
    item = w["item"].to_numpy()
    ks, both = KEYPOINTS.point_similarity(pa, pb)
    va, vb = pa[:, 2 : 3 * K : 3], pb[:, 2 : 3 * K : 3]
    ann = w[["annotator_a", "annotator_b"]].to_numpy()
    for b in range(len(k)):
        for group in (0, 2):  # "(all)" and the annotator of code 1
            mine = np.ones(len(w), bool) if group == 0 else (ann == group - 1).any(axis=1)
            rows = np.repeat(np.flatnonzero(mine), k[b, item[mine]])  # items repeated k_i times
            for j in (0, 9, 13):
                on = rows[both[rows, j]]
                np.testing.assert_allclose(
                    observed[b, j, group], np.mean(1 - ks[on, j]), rtol=1e-12
                )
                data = np.vstack([va[rows, j], vb[rows, j]])
                ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
                np.testing.assert_allclose(stats["visibility_alpha"][b, j, group], ref, rtol=1e-9)
                agree = np.mean(va[rows, j] == vb[rows, j])
                np.testing.assert_allclose(stats["visibility_agreement"][b, j, group], agree)
            # the left knee (13) and its mirror, the right knee (14)
            x = lambda q, c: q[:, c : 3 * K : 3]  # noqa: E731
            ok = rows[
                (va[rows][:, [13, 14]] > 0).all(axis=1) & (vb[rows][:, [13, 14]] > 0).all(axis=1)
            ]
            own = (x(pa, 0)[ok, 13] - x(pb, 0)[ok, 13]) ** 2 + (
                x(pa, 1)[ok, 13] - x(pb, 1)[ok, 13]
            ) ** 2
            cross = (x(pa, 0)[ok, 13] - x(pb, 0)[ok, 14]) ** 2 + (
                x(pa, 1)[ok, 13] - x(pb, 1)[ok, 14]
            ) ** 2
            np.testing.assert_allclose(1 - stats["not_swapped"][b, 13, group], np.mean(cross < own))
            assert 0 < np.mean(cross < own) < 1


K = KEYPOINTS.n_keypoints
KNEES = ["left_knee", "right_knee"]


def _frame(n_items=80, seed=5, **b):
    return simulate_keypoints(
        n_items=n_items,
        annotators={"a": KeypointProfile(), "b": KeypointProfile(**b)},
        seed=seed,
    )


def test_swapped_left_right_joints_show_in_the_table():
    ds = iaf.keypoint_agreement(_frame(swap=0.6, swap_joints=("left_knee",)), n_boot=0)
    ds = ds.sel(annotator="(all)")
    knees = ds.sel(keypoint=KNEES)
    others = ds.drop_sel(keypoint=[*KNEES, "nose"])
    assert (knees.swapped > 0.3).all() and (others.swapped == 0).all()
    assert float(knees.localization.max()) < float(others.localization.min())


def test_identical_skeletons_and_a_jittered_joint():
    same = iaf.keypoint_agreement(_frame(), n_boot=0)
    assert (same.localization == 1).all() and (same.visibility_alpha == 1).all()
    ds = iaf.keypoint_agreement(_frame(joint_jitter={"left_wrist": 1.0}), n_boot=0)
    worst = ds.localization.sel(annotator="(all)").idxmin("keypoint").item()
    assert worst == "left_wrist"
    assert ds.sizes == {"keypoint": K, "annotator": 3}


def test_visibility_alpha_equals_krippendorff_on_the_matched_pairs():
    df = _frame(jitter=0.1, occlusion=0.3, drop=0.1)
    ds = iaf.keypoint_agreement(df, seed=0, n_boot=0).sel(annotator="(all)")
    t = tables_of(df, seed=0)
    w = t.localization_within
    p = t.corpus.shapes.params["keypoints"]
    va = p[w["object_a"].to_numpy()][:, 2::3][:, :K]
    vb = p[w["object_b"].to_numpy()][:, 2::3][:, :K]
    for j in (0, 5, 16):
        ref = krippendorff.alpha(
            reliability_data=np.vstack([va[:, j], vb[:, j]]), level_of_measurement="nominal"
        )
        assert float(ds.visibility_alpha[j]) == pytest.approx(ref, abs=1e-12)
    assert float(ds.visibility_alpha.mean()) < 0.9  # occlusion flips lower it


def test_needs_skeletons():
    with pytest.raises(ParameterError, match="no skeleton rows"):
        iaf.keypoint_agreement(iaf.simulate(n_items=3, seed=0))


# -- per annotator: brute force on a small case ---------------------------------------------


def _brute_force(t, annotator: int | None):
    """Per joint, by loops over the matched pairs of the tables: within and chance mean of
    1 - OKS term, swapped share, visibility α (krippendorff) and labelled share, for the
    pairs involving ``annotator`` (None: every pair)."""
    p = t.corpus.shapes.params["keypoints"]

    def parts(row):
        flat = p[row]
        return flat[0 : 3 * K : 3], flat[1 : 3 * K : 3], flat[2 : 3 * K : 3], flat[-1]

    def term(a, b, j):
        xa, ya, _, sa = parts(a)
        xb, yb, _, sb = parts(b)
        d2 = (xa[j] - xb[j]) ** 2 + (ya[j] - yb[j]) ** 2
        s2 = (sa + sb) / 2
        return np.exp(-d2 / (2 * (s2 + np.spacing(1)) * (2 * COCO_PERSON_SIGMAS[j]) ** 2))

    w, b = t.localization_within, t.localization_between
    mine = [
        (r.object_a, r.object_b)
        for r in w.itertuples()
        if annotator is None or annotator in (r.annotator_a, r.annotator_b)
    ]
    chance = [
        (r.object_a, r.object_b)
        for r in b.itertuples()
        if (annotator is None and r.in_uniform)
        or (r.annotator_a == annotator and (r.in_uniform or r.in_annotator_a))
        or (r.annotator_b == annotator and (r.in_uniform or r.in_annotator_b))
    ]
    mirror = {i: i for i in range(K)}
    for left, right in KEYPOINTS.flip:
        mirror[left], mirror[right] = right, left
    out = {k: np.full(K, np.nan) for k in ("within", "chance", "swapped", "alpha", "labelled")}
    for j in range(K):
        on = [(a, c) for a, c in mine if parts(a)[2][j] > 0 and parts(c)[2][j] > 0]
        con = [(a, c) for a, c in chance if parts(a)[2][j] > 0 and parts(c)[2][j] > 0]
        out["within"][j] = np.mean([1 - term(a, c, j) for a, c in on]) if on else np.nan
        out["chance"][j] = np.mean([1 - term(a, c, j) for a, c in con]) if con else np.nan
        out["labelled"][j] = len(on) / len(mine)
        m = mirror[j]
        if m != j:
            both = [
                (a, c)
                for a, c in mine
                if min(parts(a)[2][j], parts(c)[2][j], parts(a)[2][m], parts(c)[2][m]) > 0
            ]
            crossed = []
            for a, c in both:
                xa, ya, _, _ = parts(a)
                xc, yc, _, _ = parts(c)
                own = (xa[j] - xc[j]) ** 2 + (ya[j] - yc[j]) ** 2
                cross = (xa[j] - xc[m]) ** 2 + (ya[j] - yc[m]) ** 2
                crossed.append(cross < own)
            out["swapped"][j] = np.mean(crossed) if crossed else np.nan
        data = np.array([[parts(a)[2][j] for a, _ in mine], [parts(c)[2][j] for _, c in mine]])
        if len(np.unique(data)) > 1:
            out["alpha"][j] = krippendorff.alpha(
                reliability_data=data, level_of_measurement="nominal"
            )
    return out


def test_per_annotator_numbers_equal_brute_force():
    profiles = {
        "ana": KeypointProfile(jitter=0.1),
        "ben": KeypointProfile(jitter=0.3, swap=0.5, swap_joints=("left_knee",)),
        "cyd": KeypointProfile(jitter=0.1, occlusion=0.3, drop=0.2),
    }
    df = simulate_keypoints(n_items=30, annotators=profiles, seed=2)
    ds = iaf.keypoint_agreement(df, seed=0, n_boot=0)
    t = tables_of(df, seed=0)
    names = [str(a) for a in t.corpus.annotators]
    for name in ["(all)", *names]:
        ref = _brute_force(t, None if name == "(all)" else names.index(name))
        cell = ds.sel(annotator=name)
        np.testing.assert_allclose(cell.within, ref["within"], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(cell.chance, ref["chance"], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(cell.swapped, ref["swapped"], rtol=1e-12)
        np.testing.assert_allclose(cell.labelled_by_both, ref["labelled"], rtol=1e-12)
        np.testing.assert_allclose(cell.visibility_alpha, ref["alpha"], rtol=1e-9, atol=1e-12)
        sigma = 1 - ref["within"] / ref["chance"]
        enough = cell.n_chance.values >= ds.attrs["min_chance_units"]
        np.testing.assert_allclose(cell.localization.values[enough], sigma[enough], rtol=1e-12)
        assert np.isnan(cell.localization.values[~enough]).all()
        assert all(n.startswith("too few chance units") for n in cell.note.values[~enough])
    # some cells are defined and some are not: both branches are checked
    assert np.isfinite(ds.localization).any() and ds.n_chance.min() >= 0


def test_one_annotators_swap_shows_in_its_row_for_those_joints_only():
    good = KeypointProfile(jitter=0.1)
    profiles = {"a": good, "b": good, "c": good}
    profiles["d"] = KeypointProfile(jitter=0.1, swap=0.6, swap_joints=("left_knee",))
    ds = iaf.keypoint_agreement(
        simulate_keypoints(n_items=120, annotators=profiles, seed=3), n_boot=100
    )
    others = ds.sel(annotator=["a", "b", "c"])
    d = ds.sel(annotator="d")
    rest = [k for k in KEYPOINTS.keypoints if k not in KNEES]
    # the swapper's knees: about its swap rate; the others' about a third of it (one
    # partner in three is d), and no other joint is swapped by anybody
    assert (d.swapped.sel(keypoint=KNEES) > 0.45).all()
    assert (d.swapped.sel(keypoint=KNEES) > 2 * others.swapped.sel(keypoint=KNEES).max()).all()
    assert (ds.swapped.sel(keypoint=rest).fillna(0) < 0.03).all()
    # d's knees are placed worst, its interval below everybody else's estimate
    loc = ds.localization.sel(keypoint=KNEES)
    assert (loc.idxmin("annotator") == "d").all()
    assert (
        d.localization_ci_high.sel(keypoint=KNEES)
        < others.localization.sel(keypoint=KNEES).min("annotator")
    ).all()
    # elsewhere d is like the others
    spread = ds.localization.sel(keypoint=rest).drop_sel(annotator="(all)")
    assert float((spread.max("annotator") - spread.min("annotator")).max()) < 0.05


# -- intervals --------------------------------------------------------------------------------

PROFILES = {
    "a": KeypointProfile(jitter=0.2),
    "b": KeypointProfile(jitter=0.3, occlusion=0.2, swap=0.2, swap_joints=("left_elbow",)),
    "c": KeypointProfile(jitter=0.2, occlusion=0.1),
}
CHECKED = ["localization", "visibility_alpha", "swapped"]
ELBOWS = ["left_elbow", "right_elbow"]


def test_intervals_cover_the_true_value_and_shrink_with_more_items():
    truth = iaf.keypoint_agreement(
        simulate_keypoints(n_items=1500, annotators=PROFILES, seed=100), n_boot=0
    )
    hits, total, widths = 0, 0, {n: {name: [] for name in CHECKED} for n in (40, 160)}
    for n_items in (40, 160):
        for seed in range(8 if n_items == 40 else 3):
            ds = iaf.keypoint_agreement(
                simulate_keypoints(n_items=n_items, annotators=PROFILES, seed=seed),
                n_boot=200,
                seed=seed,
            )
            for name in CHECKED:
                cells = ds if name != "swapped" else ds.sel(keypoint=ELBOWS)  # the swapped ones
                low, high = cells[f"{name}_ci_low"].values, cells[f"{name}_ci_high"].values
                true = truth[name].sel(keypoint=cells.keypoint).values
                ok = np.isfinite(low) & np.isfinite(true) & (high > low)
                if n_items == 40:
                    hits += int(((low[ok] <= true[ok]) & (true[ok] <= high[ok])).sum())
                    total += int(ok.sum())
                widths[n_items][name].append((high - low)[ok])
    assert total > 500
    assert 0.88 <= hits / total <= 0.995, hits / total
    # four times the items: half the width for the shares of within pairs (1 / sqrt(n));
    # localization shrinks faster, its chance pairs between items growing with n^2 until
    # the chance sample's target
    ratios = {}
    for name in CHECKED:
        wide, narrow = (np.median(np.concatenate(widths[n][name])) for n in (40, 160))
        ratios[name] = narrow / wide
    assert all(0.35 < ratios[name] < 0.65 for name in ("visibility_alpha", "swapped")), ratios
    assert 0.1 < ratios["localization"] < 0.5, ratios


def test_bounds_bracket_the_estimate_and_follow_the_seed():
    df = simulate_keypoints(n_items=60, annotators=PROFILES, seed=1)
    one = iaf.keypoint_agreement(df, n_boot=60, seed=4)
    again = iaf.keypoint_agreement(df, n_boot=60, seed=4)
    other = iaf.keypoint_agreement(df, n_boot=60, seed=5)
    assert one.identical(again)
    assert not one.localization_ci_low.equals(other.localization_ci_low)
    for name in CHECKED:
        est, low, high = one[name], one[f"{name}_ci_low"], one[f"{name}_ci_high"]
        ok = np.isfinite(low)
        assert ok.sum() > 10
        assert (low.values[ok] <= est.values[ok] + 1e-12).all()
        assert (est.values[ok] <= high.values[ok] + 1e-12).all()
        assert (high.values[ok] <= 1).all()
    assert (one.swapped_ci_low.fillna(0) >= 0).all()
    none = iaf.keypoint_agreement(df, n_boot=0, seed=4)
    assert none.localization_ci_low.isnull().all()
    np.testing.assert_array_equal(none.localization, one.localization)


def test_invariant_to_row_order():
    df = simulate_keypoints(n_items=60, annotators=PROFILES, seed=1)
    shuffled = df.sample(frac=1.0, random_state=7).reset_index(drop=True)
    ds = iaf.keypoint_agreement(df, n_boot=50, seed=2)
    again = iaf.keypoint_agreement(shuffled, n_boot=50, seed=2)
    for name, var in ds.data_vars.items():
        if var.dtype == object:
            assert (var.values == again[name].values).all()
        else:
            np.testing.assert_allclose(var, again[name], rtol=1e-10, atol=1e-12)


def test_every_variable_is_described():
    ds = iaf.keypoint_agreement(_frame(n_items=60, jitter=0.2), n_boot=20)
    for var in ds.data_vars.values():
        assert var.attrs["long_name"] and len(var.attrs["description"]) > 40
    assert ds.annotator.values.tolist() == ["(all)", "a", "b"]
    assert ds.attrs["n_boot"] == 20 and ds.attrs["ci_method"] == "bca"
    pct = iaf.keypoint_agreement(_frame(n_items=60, jitter=0.2), n_boot=20, ci_method="percentile")
    assert pct.attrs["ci_method"] == "percentile"
    with pytest.raises(ParameterError, match="ci_method"):
        iaf.keypoint_agreement(_frame(n_items=10), ci_method="normal")


# -- whole-skeleton mirrors (#43 item 6), on people drawn here, not by iaf.simulate -------

#: A person facing the camera, in units of its height, COCO's order: the person's left
#: joints on the image's right (x > 0).
_POSE = {
    "nose": (0.0, -0.90), "left_eye": (0.04, -0.93), "right_eye": (-0.04, -0.93),
    "left_ear": (0.08, -0.91), "right_ear": (-0.08, -0.91),
    "left_shoulder": (0.17, -0.72), "right_shoulder": (-0.17, -0.72),
    "left_elbow": (0.22, -0.45), "right_elbow": (-0.22, -0.45),
    "left_wrist": (0.24, -0.20), "right_wrist": (-0.24, -0.20),
    "left_hip": (0.10, -0.20), "right_hip": (-0.10, -0.20),
    "left_knee": (0.11, 0.20), "right_knee": (-0.11, 0.20),
    "left_ankle": (0.11, 0.50), "right_ankle": (-0.11, 0.50),
}  # fmt: skip
#: The published COCO left/right pairs (Detectron2's COCO_PERSON_KEYPOINT_FLIP_MAP).
_FLIP_MAP = [(f"left_{j}", f"right_{j}") for j in
             ("eye", "ear", "shoulder", "elbow", "wrist", "hip", "knee", "ankle")]  # fmt: skip


def _crowd(mirrored=(), n_items=40, seed=0, annotators=("ana", "ben", "cyd")):
    """Two people per image; every annotator draws each with a small jitter, those in
    ``mirrored`` with every left/right pair exchanged (by name)."""
    rng = np.random.default_rng(seed)
    rows = []
    pose = np.array([_POSE[k] for k in KEYPOINTS.keypoints])
    for i in range(n_items):
        for person in range(2):
            height = rng.uniform(150, 250)
            centre = np.array([160 + 320 * person + rng.uniform(-30, 30), rng.uniform(200, 280)])
            true = centre + pose * height
            for name in annotators:
                xy = true + rng.normal(0, 0.004 * height, size=true.shape)
                if name in mirrored:
                    index = {k: n for n, k in enumerate(KEYPOINTS.keypoints)}
                    order = list(range(K))
                    for left, right in _FLIP_MAP:
                        order[index[left]], order[index[right]] = index[right], index[left]
                    xy = xy[order]
                row = {"item": f"img{i:02d}", "annotator": name, "label": "person",
                       "width": 640.0, "height": 480.0, "kp_area": 0.3 * height**2}  # fmt: skip
                for k, (x, y) in zip(KEYPOINTS.keypoints, xy, strict=True):
                    row |= {f"kp_{k}_x": x, f"kp_{k}_y": y, f"kp_{k}_v": 2.0}
                rows.append(row)
    return pd.DataFrame(rows)


def _detection(df):
    res = iaf.agreement(df, n_boot=0, progress=False)
    return float(res.agreement.sel(component="detection", label="(all)", annotator="(all)"))


def test_identical_skeletons_agree_and_none_is_mirrored():
    ds = iaf.keypoint_agreement(_crowd(), n_boot=0)
    assert (ds.mirrored == 0).all() and (ds.n_mirrored == 0).all()
    lr = [k for k in KEYPOINTS.keypoints if k != "nose"]
    assert (ds.swapped.sel(keypoint=lr) == 0).all()
    assert float(ds.oks_term.min()) > 0.9
    assert _detection(_crowd()) > 0.99


def test_a_mirrored_annotator_is_matched_and_reported_per_joint(monkeypatch):
    df = _crowd(mirrored=("ben",))
    # mirror-aware matching: ben's skeletons match the others' (no misses)
    assert _detection(df) > 0.99
    ds = iaf.keypoint_agreement(df, n_boot=0)
    mirrored = ds.mirrored.to_series()
    # every pair with ben is a mirror image, no other: ben 1, ana and cyd 1/2, all 2/3 (ab, bc of ab, ac, bc)
    np.testing.assert_allclose(mirrored[["ben", "ana", "cyd", "(all)"]], [1, 0.5, 0.5, 2 / 3])
    assert int(ds.n_mirrored.sel(annotator="(all)")) == 2 * 40 * 2  # 2 pairs per person
    lr = [k for pair in _FLIP_MAP for k in pair]
    # per joint: every left/right joint of ben's pairs is swapped; ana-cyd never is
    assert (ds.swapped.sel(annotator="ben", keypoint=lr) == 1).all()
    np.testing.assert_allclose(ds.swapped.sel(annotator="(all)", keypoint=lr), 2 / 3)
    assert np.isnan(float(ds.swapped.sel(annotator="ben", keypoint="nose")))
    # joints compared by name: ben's nose agrees, his shoulders do not
    assert float(ds.oks_term.sel(annotator="ben", keypoint="nose")) > 0.9
    assert float(ds.oks_term.sel(annotator="ben", keypoint="left_shoulder")) < 0.1
    # without mirror-aware matching the same data loses ben's skeletons as misses
    monkeypatch.setattr(KEYPOINTS, "mirror_aware", False)
    assert _detection(df) < 0.7
    # and the cached pair tables of the mirror-aware run are not reused
    plain = iaf.keypoint_agreement(df, n_boot=0)
    assert float(plain.mirrored.sel(annotator="(all)")) == 0
    assert np.isnan(float(plain.mirrored.sel(annotator="ben")))  # none of his matched
