"""Hostile and unusual frames through :func:`iaa_frames.validate` (issue #23): every case
gives the right number, or one clear error or warning naming the rows and the fix, with
nothing lost (rows in = kept + dropped)."""

import time
import warnings

import numpy as np
import pandas as pd
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.errors import IAAWarning, InvalidAnnotationError
from iaa_frames.frame.schema import MAX_NAME_CHARS, check, validate


def _boxes(n_items=3, annotators=("ana", "ben"), scale=1.0, **cols):
    rows = []
    for k in range(n_items):
        for a in annotators:
            x = 10.0 * k
            rows.append(
                {
                    "item": f"im{k}",
                    "annotator": a,
                    "label": "cat",
                    "x0": x * scale,
                    "y0": 5.0 * scale,
                    "x1": (x + 40.0) * scale,
                    "y1": 30.0 * scale,
                    **{c: v for c, v in cols.items()},
                }
            )
    return pd.DataFrame(rows)


def _nothing_lost(df, on_invalid="drop"):
    res = check(df)
    assert len(res.frame) + len(res.dropped) == len(df)
    return res


# ---------------------------------------------------------------- 2. mixed sized / unsized


def _overall(res):
    return {
        c: float(res["agreement"].sel(component=c, label="(all)", annotator="(all)"))
        for c in ("detection", "classification", "localization", "overall")
    }


def test_sizes_missing_for_one_annotator_are_filled_from_the_item():
    sized = iaf.simulate(n_items=40, seed=3)
    assert sized["width"].notna().all()
    df = sized.copy()
    ben = df["annotator"] == df["annotator"].iloc[0]
    df.loc[ben, ["width", "height"]] = np.nan
    n = int((ben & df["x0"].notna()).sum())  # object rows: a coverage row's size is unused
    with pytest.warns(IAAWarning, match=rf"{n} row\(s\).*width/height.*same item"):
        out = validate(df)
    objects = out["x0"].notna()
    assert out["width"][objects].tolist() == validate(sized)["width"][objects].tolist()
    # the same numbers as when every row has its size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IAAWarning)
        mixed = _overall(iaf.agreement(df, n_boot=0, n_chance=50))
    whole = _overall(iaf.agreement(sized, n_boot=0, n_chance=50))
    assert all(np.isfinite(v) for v in whole.values())
    assert mixed == pytest.approx(whole)


def test_items_without_any_size_beside_sized_items_warn_with_the_fix():
    df = _boxes(width=640.0, height=480.0)
    df.loc[df["item"] == "im2", ["width", "height"]] = np.nan
    with pytest.warns(IAAWarning, match=r"1 item\(s\).*no width/height.*im2.*pixel"):
        out = validate(df)
    assert len(out) == len(df)


def test_conflicting_sizes_in_an_item_are_left_alone():
    # one annotator worked on a rescaled copy: normalized coordinates compare right
    df = _boxes(width=640.0, height=480.0)
    df.loc[df["annotator"] == "ben", ["width", "height"]] = (1280.0, 960.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IAAWarning)
        out = validate(df)
    assert sorted(out["width"].unique()) == [640.0, 1280.0]


# ---------------------------------------------------------------- 4. extreme coordinates


@pytest.mark.parametrize("scale", [1e300, 1e-300, 1e200, 1e-200])
def test_coordinates_whose_areas_overflow_or_underflow_are_invalid(scale):
    df = _boxes(scale=scale)
    with pytest.raises(InvalidAnnotationError, match=r"(?s)extreme_coordinates.*rescale"):
        validate(df)
    res = _nothing_lost(df)
    assert res.counts == {"extreme_coordinates": 6}


def test_extreme_polygons_are_invalid_too():
    df = pd.DataFrame(
        {
            "item": ["a", "a"],
            "annotator": ["x", "y"],
            "label": ["c", "c"],
            "geometry": [shapely.box(0, 0, 1e300, 1e300), shapely.box(0, 0, 1e-300, 1e-300)],
        }
    )
    res = _nothing_lost(df)
    assert res.counts == {"extreme_coordinates": 2}


def test_large_but_sane_coordinates_give_the_right_number():
    # 1e9 pixels (a geo-referenced mosaic): the IoU, hence every number, does not change
    df = iaf.simulate(n_items=40, seed=3).drop(columns=["width", "height", "geometry"])
    big = df.assign(**{c: df[c] * 1e9 for c in ("x0", "y0", "x1", "y1")})
    a = _overall(iaf.agreement(df, n_boot=0, n_chance=50, distance="iou"))
    b = _overall(iaf.agreement(big, n_boot=0, n_chance=50, distance="iou"))
    assert all(np.isfinite(v) for v in a.values())
    assert b == pytest.approx(a)


# ---------------------------------------------------------------- 5. (all) as annotator


def test_annotator_all_is_reserved_like_the_label():
    df = _boxes(annotators=("ana", "(all)"))
    with pytest.raises(InvalidAnnotationError, match=r"(?s)reserved_annotator.*'\(all\)'"):
        validate(df)
    res = _nothing_lost(df)
    assert res.counts == {"reserved_annotator": 3}


# ---------------------------------------------------------------- 13. long names, many columns


def test_labels_and_annotators_longer_than_the_limit_are_invalid():
    df = _boxes()
    df.loc[0, "label"] = "x" * (MAX_NAME_CHARS + 1)
    df.loc[1, "annotator"] = "y" * 1_000_000
    start = time.perf_counter()
    with pytest.raises(InvalidAnnotationError, match=r"name_too_long") as info:
        validate(df)
    assert time.perf_counter() - start < 2
    assert len(str(info.value)) < 5_000  # the message does not repeat a megabyte name
    res = _nothing_lost(df)
    assert res.counts == {"name_too_long": 2}
    df.loc[0, "label"] = "x" * MAX_NAME_CHARS  # at the limit: fine
    assert check(df).counts == {"name_too_long": 1}


def test_validate_with_thousands_of_extra_columns_is_fast():
    df = _boxes(n_items=50)
    extra = pd.DataFrame(  # issue #23: 4,000 columns took 9.9 s, 20,000 over 120 s
        np.zeros((len(df), 20000)), columns=[f"c{k}" for k in range(20000)], index=df.index
    )
    wide = pd.concat([df, extra], axis=1)
    start = time.perf_counter()
    out = validate(wide)
    elapsed = time.perf_counter() - start
    assert elapsed < 2, elapsed
    assert list(out.columns[-20000:]) == list(extra.columns)
    assert out["c19999"].tolist() == [0.0] * len(df)


# ---------------------------------------------------------------- 15. NaN / inf polygons


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf"])
def test_nonfinite_polygons_are_invalid_rows_not_geos_errors(bad):
    v = float(bad)
    with np.errstate(invalid="ignore"):  # shapely warns while building them
        geoms = [
            shapely.Polygon([(0, 0), (4, 0), (4, 3)]),
            shapely.Polygon([(0, 0), (v, 0), (4, 3)]),
            shapely.Polygon([(0, 0), (4, 0), (4, 3), (0, 3), (1, 1), (v, 2)]),  # self-crossing
        ]
    df = pd.DataFrame(
        {"item": ["a"] * 3, "annotator": ["x", "y", "z"], "label": ["c"] * 3, "geometry": geoms}
    )
    with pytest.raises(InvalidAnnotationError, match="nonfinite_coordinates"):
        validate(df)
    with pytest.warns(iaf.DroppedRowsWarning):
        out = validate(df, on_invalid="drop")
    assert out["annotator"].tolist() == ["x"]
    assert _nothing_lost(df).counts == {"nonfinite_coordinates": 2}


# ---------------------------------------------------------------- 16. lone surrogates


def test_lone_surrogate_in_a_user_frame_names_the_row():
    df = _boxes()
    df["annotator"] = pd.Series(["ana", "b\ud800n"] * 3, dtype=object)
    with pytest.raises(InvalidAnnotationError, match=r"row 1 .*annotator 'b\\ud800n'.*surrogate"):
        validate(df)
