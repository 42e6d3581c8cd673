"""Tests for iaa_frames.measures.attributes.attribute_agreement: alpha equals the
``krippendorff`` package on the matched objects (nominal, ordinal, interval; the matched
pairs with two annotators, the clusters with more), injected flips lower only the
flipped attribute's alpha, identical annotations give 1, percent agreement equals a
brute force over pairs, per-class cells, the bootstrap, and the errors."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.measures.attributes import attribute_agreement, attribute_columns, infer_level

ALL = "(all)"
ATTRS = {
    "occluded": [False, True],
    "color": ["red", "green", "blue"],
    "size": [1, 2, 3, 4, 5],
    "depth": [0.1, 0.5, 2.0, 3.5],
}
LEVELS = {"size": "ordinal"}  # occluded, color nominal; depth interval (inferred)


def _frame(flips, *, n_items=40, seed=0, annotators=("a", "b", "c")):
    profiles = {
        name: {"preset": "good", "attribute_flip": flips.get(name, 0.0)} for name in annotators
    }
    return iaf.simulate(n_items=n_items, annotators=profiles, attributes=ATTRS, seed=seed)


def _reliability(tables, attr, codes=True):
    """annotators x clusters matrix of an attribute's values on the matched objects."""
    u = tables.units
    values = tables.corpus.objects[attr].reset_index(drop=True)
    if codes and not pd.api.types.is_numeric_dtype(values.dtype):
        values = pd.Series(pd.factorize(values)[0], dtype=float).where(values.notna())
    values = values.astype(float).to_numpy()
    m = np.full((len(tables.corpus.annotators), u["cluster"].max() + 1), np.nan)
    m[u["annotator"].to_numpy(), u["cluster"].to_numpy()] = values
    return m[:, (~np.isnan(m)).sum(axis=0) >= 2]


@pytest.fixture(scope="module")
def flipped():
    df = _frame({"c": {"color": 0.3, "size": 0.3, "depth": 0.3}, "b": {"occluded": 0.1}})
    tables = iaf.pair_tables(df, n_chance=200)
    return (
        df,
        tables,
        attribute_agreement(tables, levels=LEVELS, n_boot=100, attributes=list(ATTRS)),
    )


@pytest.mark.parametrize("attr", list(ATTRS))
def test_alpha_equals_the_krippendorff_package_on_the_matched_clusters(flipped, attr):
    _, tables, ds = flipped
    level = ds["level"].sel(attribute=attr).item()
    assert (
        level
        == {"occluded": "nominal", "color": "nominal", "size": "ordinal", "depth": "interval"}[attr]
    )
    expected = krippendorff.alpha(
        reliability_data=_reliability(tables, attr), level_of_measurement=level
    )
    got = float(ds["alpha"].sel(attribute=attr, label=ALL, annotator=ALL))
    assert got == pytest.approx(expected, rel=1e-9)
    assert got < 1.0


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_two_annotators_alpha_on_the_matched_pairs_and_per_class(level):
    df = _frame({"b": {"size": 0.4}}, annotators=("a", "b"), n_items=60, seed=2)
    df = df.assign(label=df["label"])  # a fresh frame: attrs stay
    tables = iaf.pair_tables(df, n_chance=100)
    ds = attribute_agreement(tables, attributes="size", levels=level, n_boot=0)
    w = tables.localization_within
    size = tables.corpus.objects["size"].astype(float).to_numpy()
    data = np.stack([size[w["object_a"]], size[w["object_b"]]])
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert float(ds["alpha"].sel(attribute="size", label=ALL, annotator=ALL)) == pytest.approx(
        expected
    )
    assert int(ds["n_pairs"].sel(attribute="size", label=ALL, annotator=ALL)) == len(w)
    # a class's cell: the pairs whose two objects both carry it
    for code, name in enumerate(tables.corpus.labels):
        keep = (w["label_a"] == code) & (w["label_b"] == code)
        exp = krippendorff.alpha(
            reliability_data=data[:, keep.to_numpy()], level_of_measurement=level
        )
        got = float(ds["alpha"].sel(attribute="size", label=str(name), annotator=ALL))
        assert got == pytest.approx(exp)
    # with two annotators each annotator's cell is the (all) cell
    for a in ("a", "b"):
        assert float(ds["alpha"].sel(attribute="size", label=ALL, annotator=a)) == pytest.approx(
            expected
        )


def test_flips_lower_only_the_flipped_attributes_alpha():
    base = attribute_agreement(_frame({}), levels=LEVELS, n_boot=0, n_chance=200)
    sel = dict(label=ALL, annotator=ALL)
    previous = base["alpha"].sel(attribute="color", **sel).item()
    for rate in (0.1, 0.3, 0.6):
        ds = attribute_agreement(
            _frame({"c": {"color": rate}}), levels=LEVELS, n_boot=0, n_chance=200
        )
        alpha = ds["alpha"].sel(**sel)
        assert alpha.sel(attribute="color").item() < previous - 0.03
        previous = alpha.sel(attribute="color").item()
        for other in ("occluded", "size", "depth"):  # the same geometry and values: unchanged
            assert (
                alpha.sel(attribute=other).item()
                == base["alpha"].sel(attribute=other, **sel).item()
            )
    # and the flipping annotator's cell is the lowest
    by_ann = ds["alpha"].sel(attribute="color", label=ALL).to_series().drop(ALL)
    assert by_ann.idxmin() == "c"


def test_identical_annotations_give_one():
    df = iaf.simulate(
        n_items=20,
        annotators={"a": "perfect", "b": "perfect", "c": "perfect"},
        attributes=ATTRS,
        seed=1,
    )
    ds = attribute_agreement(df, levels=LEVELS, n_boot=30, n_chance=100)
    sel = ds.sel(label=ALL)
    assert np.allclose(sel["alpha"], 1.0) and np.allclose(sel["percent_agreement"], 1.0)
    assert (sel["note"] == "").all()


def test_percent_agreement_and_counts_by_brute_force():
    records = []
    # item i0: three annotators draw the same two boxes; attribute values differ a bit
    values = {"a": ["x", "y"], "b": ["x", "z"], "c": ["y", None]}
    for ann, vals in values.items():
        for k, v in enumerate(vals):
            records.append(
                {"item": "i0", "annotator": ann, "label": "car", "x0": 10 + 50 * k, "y0": 10,
                 "x1": 40 + 50 * k, "y1": 40, "kind": v}
            )  # fmt: skip
    df = iaf.from_records(records)
    ds = attribute_agreement(df, attributes=["kind"], n_boot=0, n_chance=20)
    # brute force: per box position (unit), every pair of present values
    pairs = []
    for k in range(2):
        present = [vals[k] for vals in values.values() if vals[k] is not None]
        pairs += list(itertools.combinations(present, 2))
    cell = ds.sel(attribute="kind", label=ALL, annotator=ALL)
    assert int(cell["n_pairs"]) == len(pairs) == 4
    assert float(cell["percent_agreement"]) == pytest.approx(np.mean([p == q for p, q in pairs]))
    data = np.array([[0, 1], [0, 2], [1, np.nan]], dtype=float)  # x=0, y=1, z=2
    assert float(cell["alpha"]) == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    )
    # annotator a's cell: the pairs (a, b) and (a, c) of unit 0 and (a, b) of unit 1
    a = ds.sel(attribute="kind", label=ALL, annotator="a")
    assert int(a["n_pairs"]) == 3
    assert float(a["percent_agreement"]) == pytest.approx(1 / 3)


def test_bootstrap_intervals_bracket_alpha_and_are_seeded(flipped):
    _, tables, ds = flipped
    cell = ds.sel(label=ALL, annotator=ALL)
    assert (cell["ci_low"] <= cell["alpha"]).all() and (cell["alpha"] <= cell["ci_high"]).all()
    assert (cell["percent_ci_low"] <= cell["percent_agreement"]).all()
    again = attribute_agreement(tables, levels=LEVELS, n_boot=100, attributes=list(ATTRS))
    assert again.equals(ds)
    none = attribute_agreement(tables, levels=LEVELS, n_boot=0, attributes=list(ATTRS))
    assert none["ci_low"].isnull().all()
    pct = attribute_agreement(tables, n_boot=100, attributes=["color"], ci_method="percentile")
    assert float(pct["ci_low"].sel(attribute="color", label=ALL, annotator=ALL)) < float(
        pct["alpha"].sel(attribute="color", label=ALL, annotator=ALL)
    )


def test_dataset_describes_every_variable_and_the_levels(flipped):
    df, _, ds = flipped
    for name, var in ds.data_vars.items():
        assert var.attrs.get("long_name") and var.attrs.get("description"), name
    assert ds["level_source"].sel(attribute="depth").item() == "inferred from dtype float64"
    assert ds["level_source"].sel(attribute="size").item() == "given"
    assert "size: ordinal (given)" in ds.attrs["levels"]
    assert ds.attrs["attributes_source"] == "attributes="
    assert attribute_agreement(df, n_boot=0, n_chance=200).attrs["attributes_source"] == (
        "df.attrs['iaa_attributes']"
    )


def test_levels_inferred_from_dtypes():
    assert infer_level(pd.Series([True, None], dtype="boolean")) == "nominal"
    assert infer_level(pd.Series(["a"], dtype="str")) == "nominal"
    assert infer_level(pd.Series([1, 2], dtype="Int64")) == "interval"
    assert infer_level(pd.Series(pd.Categorical(["a"], ["a", "b"]))) == "nominal"


def test_ordinal_words_follow_an_ordered_categorical():
    df = _frame({"c": {"color": 0.3}})
    order = pd.CategoricalDtype(["red", "green", "blue"], ordered=True)
    as_cat = df.assign(color=df["color"].astype(order))
    ds = attribute_agreement(as_cat, attributes="color", n_boot=0, n_chance=100)
    assert ds["level"].item() == "ordinal"
    tables = iaf.pair_tables(as_cat, n_chance=100)
    codes = tables.corpus.objects["color"].cat.codes.astype(float).where(lambda s: s >= 0)
    u = tables.units
    m = np.full((3, u["cluster"].max() + 1), np.nan)
    m[u["annotator"], u["cluster"]] = codes.to_numpy()
    expected = krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal")
    assert float(ds["alpha"].sel(label=ALL, annotator=ALL).item()) == pytest.approx(expected)
    with pytest.raises(ParameterError, match="ordered Categorical"):
        attribute_agreement(df, attributes="color", levels="ordinal", n_boot=0, n_chance=100)


def test_errors_name_the_columns():
    df = _frame({})
    plain = df.copy()
    plain.attrs = {}
    with pytest.raises(ParameterError, match=r"pass attributes=.*'occluded'"):
        attribute_agreement(plain, n_boot=0)
    with pytest.raises(ParameterError, match="not columns"):
        attribute_columns(df, ["nope"])
    with pytest.raises(ParameterError, match="levels"):
        attribute_agreement(df, levels={"nope": "nominal"}, n_boot=0, n_chance=50)
    with pytest.raises(ParameterError, match="one of"):
        attribute_agreement(df, levels={"size": "ratio"}, n_boot=0, n_chance=50)
    with pytest.raises(ParameterError, match="not a finite number"):
        attribute_agreement(df, attributes="color", levels="interval", n_boot=0, n_chance=50)


def test_multiple_choices_are_compared_as_sets():
    records = [
        {
            "item": "i",
            "annotator": a,
            "label": "car",
            "x0": 0,
            "y0": 0,
            "x1": 10,
            "y1": 10,
            "tags": t,
        }
        for a, t in (("a", ["wet", "dark"]), ("b", ["dark", "wet"]), ("c", ["wet"]))
    ] + [
        {
            "item": "j",
            "annotator": a,
            "label": "car",
            "x0": 30,
            "y0": 5,
            "x1": 60,
            "y1": 25,
            "tags": t,
        }
        for a, t in (("a", ["dry"]), ("b", ["dry"]), ("c", ["dry"]))
    ]
    ds = attribute_agreement(iaf.from_records(records), attributes="tags", n_boot=0, n_chance=20)
    cell = ds.sel(attribute="tags", label=ALL, annotator=ALL)
    assert int(cell["n_pairs"]) == 6 and float(cell["percent_agreement"]) == pytest.approx(4 / 6)


def test_the_accessor_equals_the_function_and_reads_the_frames_own_attrs():
    df = _frame({"c": {"color": 0.3}}, n_items=20)
    via = df.iaa.attribute_agreement(levels=LEVELS, n_chance=100, n_boot=20)
    assert via.equals(attribute_agreement(df, levels=LEVELS, n_chance=100, n_boot=20))
    # the same content (cached tables) with other declared attributes: this frame's list
    fewer = df.copy()
    fewer.attrs = {"iaa_attributes": ["color"]}
    assert fewer.iaa.attribute_agreement(n_chance=100, n_boot=0)["attribute"].values.tolist() == [
        "color"
    ]
    assert iaf.attribute_agreement is attribute_agreement


def test_sets_of_choices_take_masi_and_equal_the_krippendorff_package():
    """A column of lists (tags) is read as sets with the MASI distance: alpha equals the
    ``krippendorff`` package given MASI as its distance on the same matched clusters;
    identical tags give 1; nominal (sets equal or not) gives less where tags differ in
    part."""
    from iaa_frames.stats.masi import masi_distance

    df = _frame({"c": {"color": 0.3, "size": 0.3}}, n_items=40, seed=3)
    tags = [
        None
        if pd.isna(c) or pd.isna(s) or pd.isna(o)
        else sorted({c} | ({"big"} if s > 3 else set()) | ({"hidden"} if o else set()))
        for c, s, o in zip(df["color"], df["size"], df["occluded"], strict=True)
    ]
    df = df.assign(tags=pd.Series(tags, index=df.index, dtype=object))
    assert infer_level(df["tags"]) == "masi"
    tables = iaf.pair_tables(df, n_chance=200)
    ds = attribute_agreement(tables, attributes="tags", n_boot=50)
    assert ds["level"].sel(attribute="tags").item() == "masi"
    got = float(ds["alpha"].sel(attribute="tags", label=ALL, annotator=ALL))

    u = tables.units
    values = tables.corpus.objects["tags"].reset_index(drop=True).map(frozenset, na_action="ignore")
    sets = sorted(set(values.dropna()), key=sorted)
    code = {s: k for k, s in enumerate(sets)}
    m = np.full((len(tables.corpus.annotators), u["cluster"].max() + 1), np.nan)
    m[u["annotator"].to_numpy(), u["cluster"].to_numpy()] = values.map(code).to_numpy(float)
    table = np.array([[masi_distance(a, b) for b in sets] for a in sets])
    expected = krippendorff.alpha(
        reliability_data=m[:, (~np.isnan(m)).sum(axis=0) >= 2],
        value_domain=np.arange(len(sets), dtype=float),
        level_of_measurement=lambda v1, v2, i1, i2, n_v, dtype=np.float64: table[
            v1.astype(int), v2.astype(int)
        ].astype(dtype),
    )
    assert got == pytest.approx(expected, rel=1e-9)
    nominal = attribute_agreement(tables, attributes="tags", levels="nominal", n_boot=0)
    assert float(nominal["alpha"].sel(attribute="tags", label=ALL, annotator=ALL)) < got < 1
    lo, hi = (
        float(ds[k].sel(attribute="tags", label=ALL, annotator=ALL)) for k in ("ci_low", "ci_high")
    )
    assert lo <= got <= hi

    same = _frame({}, n_items=20, seed=4)
    same = same.assign(tags=[[c, "x"] for c in same["color"]])
    one = attribute_agreement(same, attributes="tags", n_boot=0, n_chance=100)
    assert float(one["alpha"].sel(attribute="tags", label=ALL, annotator=ALL)) == 1.0
