"""kalpha: Krippendorff's α with IoU matching, as the kalphacv package computes it.

Cross-checked against the kalphacv package itself (``test`` extra) on COCO files written
by our COCO writer and read back, and against hand-computed values on tiny cases.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.errors import InvalidAnnotationError, ParameterError
from iaa_frames.io.writers import write_coco_raters
from iaa_frames.measures.kalpha import MISS, kalpha, kalpha_items, kalpha_units

krippendorff = pytest.importorskip("krippendorff")
kalphacv = pytest.importorskip("kalphacv")


def box(item, annotator, label, x0, x1, y0=0.0, y1=10.0):
    return {
        "item": item,
        "annotator": annotator,
        "label": label,
        "x0": x0,
        "y0": y0,
        "x1": x1,
        "y1": y1,
    }


def frame(rows):
    return iaf.from_records(rows)


# ------------------------------------------------------------------ against kalphacv


def _kalphacv_per_image(path, mode, tau, tmp_path):
    """kalphacv's per-image α (its CSV output) and its overall figure."""
    out = tmp_path / f"res_{mode}_{tau}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        overall = kalphacv.calculate_iaa_from_annotations(
            mode,
            str(path),
            images_rater_key="rater_list",
            annotations_rater_key="rater_id",
            iou_thresholds=[tau],
            silent=True,
            result_destination=str(out),
        )[tau]
    per_image = pd.read_csv(out / f"{tau}iou_all_results.csv")
    per_image["item"] = per_image["file name"]
    return float(overall), per_image.set_index("item")["iaa"]


CROWD = {
    "ana": "good",
    "ben": "sloppy",
    "chloe": "misser",
    "dev": {"jitter": 0.05, "confusion": 0.3, "false_positives": 0.5},
    "eve": {"jitter": 0.1, "miss": 0.1, "coverage": 0.6},
}


def _close_to_rounding_tie(alpha, decimals=4):
    """True where alpha lies (numerically) halfway between two rounded values, where
    kalphacv's floating-point α may round either way."""
    scaled = np.asarray(alpha) * 10**decimals
    return np.abs(scaled - np.floor(scaled) - 0.5) < 1e-7


@pytest.mark.parametrize("kind,mode", [("box", "bbox"), ("polygon", "segm")])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_kalphacv_on_written_coco(tmp_path, kind, mode, seed):
    df = iaf.simulate(n_items=20, annotators=CROWD, kind=kind, seed=seed, objects_per_item=5)
    path = write_coco_raters(df, tmp_path / "raters.json")
    back = iaf.read_coco(path)
    for tau in (0.3, 0.5, 0.75):
        ref_overall, ref = _kalphacv_per_image(path, mode, tau, tmp_path)
        exact = kalpha_items(back, match_threshold=tau, kind=mode, decimals=None)
        ours = kalpha_items(back, match_threshold=tau, kind=mode).set_index("item")["alpha"]
        exact = exact.set_index("item")["alpha"]
        assert set(ours.index) == set(ref.index)
        diff = (ours - ref.reindex(ours.index)).abs()
        tie = _close_to_rounding_tie(exact)
        # identical per image, except where the exact α is a rounding tie (e.g. 9/32)
        assert (diff[~tie] < 1e-12).all(), diff[~tie].max()
        assert (diff[tie] <= 1e-4 + 1e-12).all()
        overall = kalpha(back, match_threshold=tau, kind=mode)
        assert abs(overall - ref_overall) <= 1e-4 * tie.sum() / len(ours) + 1e-12


def test_matches_kalphacv_with_many_annotators_and_empty_images(tmp_path):
    annotators = {
        f"w{k:02d}": {
            "jitter": 0.02 + 0.03 * (k % 4),
            "miss": 0.05 * (k % 3),
            "confusion": 0.1 * (k % 2),
        }
        for k in range(7)
    }
    df = iaf.simulate(n_items=30, annotators=annotators, objects_per_item=2, seed=5)
    path = write_coco_raters(df, tmp_path / "raters.json")
    back = iaf.read_coco(path)
    assert (kalpha_items(back)["n_units"] == 0).any()  # some images hold no object
    ref_overall, ref = _kalphacv_per_image(path, "bbox", 0.5, tmp_path)
    ours = kalpha_items(back).set_index("item")["alpha"]
    exact = kalpha_items(back, decimals=None).set_index("item")["alpha"]
    tie = _close_to_rounding_tie(exact)
    assert ((ours - ref.reindex(ours.index)).abs()[~tie] < 1e-12).all()
    assert abs(kalpha(back) - ref_overall) <= 1e-4 * tie.sum() / len(ours) + 1e-12


def test_per_image_alpha_equals_krippendorff_on_the_reliability_matrix():
    df = iaf.simulate(n_items=15, annotators=CROWD, seed=3)
    units = kalpha_units(df)
    exact = kalpha_items(df, decimals=None).set_index("item")
    checked = 0
    for item, sub in units.groupby("item", sort=False):
        matrix = sub.pivot(index="annotator", columns="unit", values="value")
        codes = pd.factorize(matrix.to_numpy().ravel())[0].reshape(matrix.shape)
        if len(np.unique(codes)) < 2 or matrix.shape[0] < 2:
            continue
        ref = krippendorff.alpha(codes.astype(float), level_of_measurement="nominal")
        assert exact.loc[item, "alpha"] == pytest.approx(ref, abs=1e-12)
        checked += 1
    assert checked >= 10


def test_pooled_equals_krippendorff_over_all_units():
    df = iaf.simulate(n_items=15, annotators=CROWD, seed=4)
    units = kalpha_units(df)
    units["key"] = units["item"].astype(str) + "#" + units["unit"].astype(str)
    matrix = units.pivot(index="annotator", columns="key", values="value")
    codes, _ = pd.factorize(matrix.to_numpy().ravel(), use_na_sentinel=True)
    data = np.where(codes < 0, np.nan, codes).reshape(matrix.shape)
    ref = krippendorff.alpha(data, level_of_measurement="nominal")
    assert kalpha(df, average="pooled") == pytest.approx(ref, abs=1e-12)


# ------------------------------------------------------------------ hand-computed


def test_two_annotators_hand_computed():
    # a: cat at [0, 10], dog at [50, 60]; b: cat at [1, 11] (IoU 9/11), nothing else.
    # Units (cat, cat) and (dog, miss): n = 4, n_cat = 2, n_dog = n_miss = 1;
    # D_o sum = 2, alpha = 1 - (n - 1) * 2 / (16 - 4 - 1 - 1) = 1 - 6/10 = 0.4.
    df = frame(
        [box("i", "a", "cat", 0, 10), box("i", "a", "dog", 50, 60), box("i", "b", "cat", 1, 11)]
    )
    assert kalpha(df) == pytest.approx(0.4)
    units = kalpha_units(df)
    assert units["value"].tolist() == ["cat", "cat", "dog", MISS]
    assert units["annotator"].tolist() == ["a", "b", "a", "b"]
    # above the pair's IoU the boxes no longer match: units (cat, miss), (dog, miss),
    # (miss, cat); n = 6 with n_miss = 3: alpha = 1 - 5 * 6 / (36 - 4 - 1 - 9) = -4/11
    assert kalpha(df, match_threshold=0.85, decimals=None) == pytest.approx(1 - 30 / 22)


def test_assignment_maximizes_total_iou_before_the_threshold():
    # kalphacv assigns by the largest total IoU over the objects that have a partner
    # above tau, pairs under tau included, and only then drops pairs under tau.
    # IoU: A1-B1 0.4211, A1-B2 0.6471, A2-B1 0.5294, A2-B2 0.8 (B3: no partner > 0.5).
    # Total IoU prefers A1-B1 + A2-B2 (1.2211 > 1.1765), and A1-B1 is under tau: one
    # match (A2-B2), whereas assigning among pairs above tau would give two.
    rows = [
        box("i", "a", "cat", 2, 15),
        box("i", "a", "cat", 4, 16),
        box("i", "b", "cat", 7, 21),
        box("i", "b", "cat", 4, 19),
        box("i", "b", "cat", 10, 14),
    ]
    df = frame(rows)
    # units (cat, cat), (cat, miss), (miss, cat), (miss, cat): n = 8, n_cat = 5,
    # n_miss = 3; alpha = 1 - 7 * 6 / (64 - 25 - 9) = -0.4
    assert kalpha(df, decimals=None) == pytest.approx(-0.4)
    assert len(kalpha_units(df)) == 8


def test_assignment_rule_agrees_with_kalphacv(tmp_path):
    rows = [
        box("i", "a", "cat", 2, 15),
        box("i", "a", "cat", 4, 16),
        box("i", "b", "cat", 7, 21),
        box("i", "b", "cat", 4, 19),
        box("i", "b", "cat", 10, 14),
    ]
    df = frame(rows).assign(width=100.0, height=100.0)
    path = write_coco_raters(df, tmp_path / "r.json")
    ref_overall, _ = _kalphacv_per_image(path, "bbox", 0.5, tmp_path)
    assert ref_overall == pytest.approx(-0.4)
    assert kalpha(iaf.read_coco(path)) == pytest.approx(ref_overall)


def test_sequential_matching_against_earlier_rows_in_order():
    # a: X = [0, 10]; b: Y = [2, 12] (IoU(X, Y) = 8/12); c: Z = [4, 14]
    # (IoU(X, Z) = 6/14 < 0.5, IoU(Y, Z) = 8/12). c is matched against a first (no
    # partner), then against b's available object Y: one unit (X, Y, Z).
    df = frame(
        [box("i", "a", "cat", 0, 10), box("i", "b", "cat", 2, 12), box("i", "c", "dog", 4, 14)]
    )
    units = kalpha_units(df)
    assert units["unit"].nunique() == 1
    assert units["value"].tolist() == ["cat", "cat", "dog"]
    # one unit of three values (2 cat, 1 dog): n = 3, sum_u (R^2 - sum_c n_uc^2) / (R - 1)
    # = (9 - 5) / 2 = 2, n^2 - sum_c n_c^2 = 4: alpha = 1 - (3 - 1) * 2 / 4 = 0
    assert kalpha(df) == 0.0
    # with c's box moved away, c opens its own unit: (cat, cat, miss), (miss, miss, dog)
    # n = 6, n_cat = 2, n_miss = 3, n_dog = 1; D_o sum = (9 - 5)/2 + (9 - 5)/2 = 4;
    # alpha = 1 - 5 * 4 / (36 - 4 - 9 - 1) = 1 - 20/22
    moved = frame(
        [box("i", "a", "cat", 0, 10), box("i", "b", "cat", 2, 12), box("i", "c", "dog", 40, 50)]
    )
    assert kalpha(moved, decimals=None) == pytest.approx(1 - 20 / 22)


def test_a_column_taken_by_an_earlier_row_is_not_available():
    # a: X = [0, 10]; b: Y = [1, 11]; c: Z = [0.5, 10.5] matches X (row 0) first; c's
    # second box W = [1.5, 11.5] would match Y, but Y's column already holds Z: W opens
    # a new unit.
    df = frame(
        [
            box("i", "a", "cat", 0, 10),
            box("i", "b", "cat", 1, 11),
            box("i", "c", "cat", 0.5, 10.5),
            box("i", "c", "cat", 1.5, 11.5),
        ]
    )
    units = kalpha_units(df)
    assert units["unit"].nunique() == 2
    second = units[units["unit"] == 1].set_index("annotator")["value"]
    assert second.to_dict() == {"a": MISS, "b": MISS, "c": "cat"}


def test_rules_for_single_values_and_single_annotators():
    df = frame(
        [
            box("same", "a", "cat", 0, 10),
            box("same", "b", "cat", 0, 10),  # one value
            {"item": "empty", "annotator": "a"},
            {"item": "empty", "annotator": "b"},
            box("alone1", "a", "cat", 0, 10),  # one annotator
            box("alone2", "a", "cat", 0, 10),
            box("alone2", "a", "dog", 50, 60),
        ]
    )
    items = kalpha_items(df).set_index("item")
    assert items.loc["same", "alpha"] == 1.0
    assert items.loc["empty", "alpha"] == 1.0 and items.loc["empty", "n_units"] == 0
    assert items.loc["alone1", "alpha"] == 1.0
    assert items.loc["alone2", "alpha"] == 0.0
    assert items.loc["alone2", "rule"] == "one annotator: scored 0"
    assert items.loc["same", "rule"] == "one value: scored 1"
    assert kalpha(df) == pytest.approx(3 / 4)
    # pooled: the only pairable unit holds (cat, cat) -> no variation -> NaN
    assert np.isnan(kalpha(df, average="pooled"))


def test_coverage_rows_count_as_misses_and_absent_annotators_do_not():
    rows = [
        box("i", "a", "cat", 0, 10),
        box("i", "b", "cat", 0, 10),
        box("j", "a", "cat", 0, 10),
        box("j", "b", "cat", 0, 10),
    ]
    base = kalpha(frame(rows), average="pooled", decimals=None)
    assert np.isnan(base)  # every value the same
    # c reviewed j and drew nothing: a miss in j's only unit
    with_c = frame(rows + [{"item": "j", "annotator": "c"}])
    items = kalpha_items(with_c).set_index("item")
    assert items.loc["i", "n_annotators"] == 2 and items.loc["j", "n_annotators"] == 3
    assert items.loc["j", "alpha"] == 0.0  # one unit (cat, cat, miss): 1 - 2*4/2/4 = 0
    assert items.loc["i", "alpha"] == 1.0


def test_segm_uses_polygon_iou():
    # two L-shaped polygons with the same bounding box: box IoU 1, polygon IoU 1/3
    ell = shapely.Polygon([(0, 0), (10, 0), (10, 2), (2, 2), (2, 10), (0, 10)])
    mirrored = shapely.Polygon([(10, 10), (0, 10), (0, 8), (8, 8), (8, 0), (10, 0)])
    df = iaf.from_records(
        [
            {"item": "i", "annotator": "a", "label": "cat", "geometry": ell},
            {"item": "i", "annotator": "b", "label": "cat", "geometry": mirrored},
        ]
    )
    inter = ell.intersection(mirrored).area / ell.union(mirrored).area
    assert inter < 0.5
    assert kalpha(df, kind="bbox") == 1.0  # one unit, one value
    assert len(kalpha_units(df, kind="segm")) == 4  # two units: no match
    assert kalpha(df, kind="segm", match_threshold=inter / 2) == 1.0


def test_segm_needs_polygons():
    df = frame([box("i", "a", "cat", 0, 10), box("i", "b", "cat", 0, 10)])
    with pytest.raises(InvalidAnnotationError, match="kind='segm' needs a polygon"):
        kalpha(df, kind="segm")


def test_row_order_and_names_do_not_matter():
    df = iaf.simulate(n_items=12, annotators=CROWD, seed=7)
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    assert kalpha(shuffled, decimals=None) == pytest.approx(kalpha(df, decimals=None), abs=1e-12)
    assert kalpha(shuffled, average="pooled") == pytest.approx(
        kalpha(df, average="pooled"), abs=1e-12
    )


def test_identical_annotators_score_one_and_random_ones_about_zero():
    same = iaf.simulate(n_items=20, annotators={"a": "perfect", "b": "perfect"}, seed=0)
    assert kalpha(same) == 1.0
    assert kalpha(same, average="pooled") == 1.0
    rand = iaf.simulate(
        n_items=60, annotators={"a": "random", "b": "random", "c": "random"}, seed=0
    )
    # random drawers almost never match: nearly every unit is (object, miss, miss)
    assert kalpha(rand, average="pooled") < 0.05


def test_accessor_and_package_export():
    df = frame([box("i", "a", "cat", 0, 10), box("i", "b", "cat", 1, 11)])
    assert iaf.kalpha(df) == kalpha(df)
    assert df.iaa.kalpha(match_threshold=0.9) == kalpha(df, match_threshold=0.9)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"match_threshold": 0}, "match_threshold"),
        ({"match_threshold": 1.5}, "match_threshold"),
        ({"match_threshold": True}, "match_threshold"),
        ({"kind": "box"}, "kind"),
        ({"average": "mean"}, "average"),
        ({"decimals": -1}, "decimals"),
        ({"progress": "yes"}, "progress"),
    ],
)
def test_bad_parameters(kwargs, match):
    df = frame([box("i", "a", "cat", 0, 10), box("i", "b", "cat", 1, 11)])
    with pytest.raises(ParameterError, match=match):
        kalpha(df, **kwargs)
