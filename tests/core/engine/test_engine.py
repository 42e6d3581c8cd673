"""Tests for iaa_frames.core.engine: every cell against the primitives of stats/alpha on the
stored tables, a hand-computed per-annotator alpha, and the acceptance properties of the
components on simulated corpora."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr
from helpers import TABLES
from oracles import binary_alpha, poststratified_weights, presence_alpha, weighted_nominal_alpha

from iaa_frames.core.chance.pooled import MIN_OWN_CHANCE_UNITS
from iaa_frames.core.engine import (
    MIN_CHANCE_UNITS,
    MIN_WITHIN_UNITS,
    agreement,
    agreement_from_tables,
    pairwise,
    pairwise_from_tables,
)
from iaa_frames.core.engine.result import FEW_ITEMS_NOTE, NO_MATCH_NOTE
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.errors import ParameterError
from iaa_frames.simulate import simulate
from iaa_frames.stats.intervals import MIN_CI_ITEMS
from iaa_frames.stats.krippendorff import binary_alpha_per_category, nominal_alpha
from iaa_frames.stats.kstest import ks_agreement_test, ks_agreement_tests
from iaa_frames.stats.samples import frac_below_chance, sigma

ALL = "(all)"
SIGMA_COMPONENTS = ("detection", "localization", "overall")


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def mixed():
    """A small corpus with every kind of failure, its tables and its result."""
    df = simulate(
        n_items=60,
        annotators={"ann": "good", "bob": "sloppy", "cyd": "mislabeler", "dee": "misser"},
        seed=11,
    )
    tables = pair_tables(df, n_chance=300)
    return df, tables, agreement_from_tables(tables)


def codes(tables):
    c = tables.corpus
    return (
        {str(n): i for i, n in enumerate(c.annotators)},
        {str(n): i for i, n in enumerate(c.labels)},
    )


def cell(ds, var, component, label=ALL, annotator=ALL):
    return float(ds[var].sel(component=component, label=label, annotator=annotator))


def sigma_rows(tables, component, label, annotator):
    """Within rows, chance rows and chance weights of a cell, filtered by hand from the
    rules of docs/CONTRACTS.md (a chance unit counts where the stratum that drew it is
    uniform over the cell's population; a class without its own chance units borrows
    weighted uniform units)."""
    weight = None
    if component == "localization":
        w, b = tables.localization_within, tables.localization_between
        pooled = tables.localization_pooled
        if label is None:
            wm = np.ones(len(w), bool)
            bm = b["in_uniform"].to_numpy()
        else:
            wm = ((w["label_a"] == label) & (w["label_b"] == label)).to_numpy()
            if label in set(pooled["label"]):
                p = pooled[pooled["label"] == label]
                weight = np.zeros(len(b))
                weight[p["row"].to_numpy()] = p["weight"].to_numpy()
                bm = weight > 0
            else:
                bm = (
                    (b["label_a"] == label)
                    & (b["label_b"] == label)
                    & (b["in_uniform"] | b["in_label"])
                ).to_numpy()
        column = "distance"
    else:
        w, b = tables.sets_within, tables.sets_between
        lab = -1 if label is None else label
        wm = (w["label"] == lab).to_numpy()
        bm = (b["label"] == lab).to_numpy() & (b["in_uniform"].to_numpy() | (lab >= 0))
        column = component
    if annotator is not None:
        wm = wm & ((w["annotator_a"] == annotator) | (w["annotator_b"] == annotator)).to_numpy()
        side_a = (b["annotator_a"] == annotator).to_numpy()
        side_b = (b["annotator_b"] == annotator).to_numpy()
        bm = bm & (side_a | side_b)
        if label is None:  # and the annotator's own stratum
            own = (b["in_annotator_a"].to_numpy() & side_a) | (
                b["in_annotator_b"].to_numpy() & side_b
            )
            whole = (
                np.ones(len(b), bool)
                if component == "localization"
                else (b["label"] == -1).to_numpy()
            )
            bm = bm | (whole & own)
    if component == "localization" and annotator is not None:
        # a thin cell borrows its label cell's "(all)" units (iaa_frames.core.engine.borrow)
        _, parent, _, parent_weight = sigma_rows(tables, component, label, None)
        own, n_within = int(bm.sum()), int(wm.sum())
        if n_within >= 2 and own < MIN_CHANCE_UNITS and len(parent) > own:
            if label is None or label not in set(tables.localization_pooled["label"]):
                parent_weight = np.ones(len(parent))  # before post-stratification
            bm = np.zeros(len(b), bool)
            bm[b.index.get_indexer(parent.index)] = True
            weight = np.zeros(len(b))
            weight[b.index.get_indexer(parent.index)] = parent_weight
    weight = np.ones(int(bm.sum())) if weight is None else weight[bm]
    w, b = w.loc[wm], b.loc[bm]
    borrowing = label is not None and label in set(tables.localization_pooled["label"])
    if component == "localization" and len(w) and len(b) and not borrowing:
        weight = poststratified_weights(tables, w, b, weight, pools_classes=label is None)
        b, weight = b.loc[weight > 0], weight[weight > 0]
    return w, b, column, weight


def all_cells(ds):
    for label in ds["label"].values:
        for annotator in ds["annotator"].values:
            yield str(label), str(annotator)


# ----------------------------------------------------------------- cells vs primitives


@pytest.mark.parametrize("component", SIGMA_COMPONENTS)
def test_sigma_cells_equal_primitives_on_filtered_rows(mixed, component):
    _, tables, ds = mixed
    ann, lab = codes(tables)
    checked = 0
    for label, annotator in all_cells(ds):
        w, b, col, wy = sigma_rows(tables, component, lab.get(label), ann.get(annotator))
        x, y = w[col].to_numpy(), b[col].to_numpy()
        assert cell(ds, "n_units", component, label, annotator) == len(x)
        assert cell(ds, "n_items", component, label, annotator) == w["item"].nunique()
        assert cell(ds, "n_chance", component, label, annotator) == len(y)
        note = ds["note"].sel(component=component, label=label, annotator=annotator).item()
        value = cell(ds, "agreement", component, label, annotator)
        source = str(
            ds["chance_source"].sel(component=component, label=label, annotator=annotator).item()
        )
        own = component == "localization" and label != ALL and source in ("enumerated", "sampled")
        if len(x) < MIN_WITHIN_UNITS or len(y) < (
            MIN_OWN_CHANCE_UNITS if own else MIN_CHANCE_UNITS
        ):
            assert np.isnan(value) and note.startswith("too few")
            assert np.isnan(cell(ds, "ks", component, label, annotator))
            continue
        assert (
            note == ""
            or (source == "pooled" and note.startswith("pooled"))
            or (source == "borrowed" and note.startswith("borrowed"))
        )
        assert value == pytest.approx(sigma(x, y, between_weights=wy), rel=1e-12, abs=1e-12)
        assert cell(ds, "observed", component, label, annotator) == pytest.approx(x.mean())
        assert cell(ds, "expected", component, label, annotator) == pytest.approx(
            np.average(y, weights=wy)
        )
        if not np.all(wy == 1):  # weighted chance units: weighted KS (checked in test_stats)
            _, p, _ = ks_agreement_tests(
                x,
                y,
                within_item=w["item"].to_numpy(),
                between_item_a=b["item_a"].to_numpy(),
                between_item_b=b["item_b"].to_numpy(),
                within_cells=[np.arange(len(x))],
                between_cells=[np.arange(len(y))],
                between_weights=[wy],
                n_items=len(tables.corpus.items),
                seed=0,
            )
            assert cell(ds, "ks_pvalue", component, label, annotator) == pytest.approx(
                p[0], nan_ok=True
            )
            checked += 1
            continue
        ref = scipy.stats.ks_2samp(x, y)
        assert cell(ds, "ks", component, label, annotator) == pytest.approx(ref.statistic)
        # the p-value: the one-sided cluster-bootstrap test on the same rows (seed 0)
        test = ks_agreement_test(
            x,
            y,
            within_item=w["item"].to_numpy(),
            between_item_a=b["item_a"].to_numpy(),
            between_item_b=b["item_b"].to_numpy(),
            n_items=len(tables.corpus.items),
            seed=0,
        )
        assert cell(ds, "ks_pvalue", component, label, annotator) == pytest.approx(
            test.pvalue, nan_ok=True
        )
        assert cell(ds, "ks_sign", component, label, annotator) == ref.statistic_sign
        assert cell(ds, "frac_below_chance", component, label, annotator) == pytest.approx(
            frac_below_chance(x, y)
        )
        if component == "localization":
            assert cell(ds, "raw_iou", component, label, annotator) == pytest.approx(
                w["iou"].mean()
            )
        else:
            assert np.isnan(cell(ds, "raw_iou", component, label, annotator))
        checked += 1
    assert checked >= 10


def pairable_units(tables):
    u = tables.units
    size = u.groupby("cluster")["cluster"].transform("size")
    return u.loc[size >= 2]


def annotator_pair_units(units, annotator):
    """Pseudo-units (A's label, another member's label) of every cluster containing A,
    weighted 1 / (m - 1): the coincidences of the pairs that involve A (a plain loop)."""
    unit_codes, values, weights = [], [], []
    for _, members in units.groupby("cluster"):
        if annotator not in set(members["annotator"]):
            continue
        m = len(members)
        own = members.loc[members["annotator"] == annotator, "label"].iloc[0]
        for other in members.loc[members["annotator"] != annotator, "label"]:
            unit_codes += [len(weights)] * 2
            values += [own, other]
            weights.append(1.0 / (m - 1))
    return np.array(unit_codes), np.array(values), np.array(weights)


def test_label_alpha_equals_alpha_primitives(mixed):
    # label_alpha: Krippendorff's alpha of the clusters' labels, for comparison
    _, tables, ds = mixed
    ann, lab = codes(tables)
    units = pairable_units(tables)
    n_lab = len(lab)

    def alpha(label=ALL, annotator=ALL):
        return cell(ds, "label_alpha", "classification", label, annotator)

    # "(all)" annotators: alpha over the clusters
    assert alpha() == pytest.approx(
        nominal_alpha(units, unit="cluster", annotator="annotator", value="label")
    )
    per_class = binary_alpha_per_category(units["cluster"], units["label"], n_categories=n_lab)
    for name, code in lab.items():
        assert alpha(name) == pytest.approx(per_class[code])
    assert np.isnan(cell(ds, "ks", "classification"))
    assert np.isnan(cell(ds, "label_alpha", "localization"))
    # an annotator: the pairs of values that involve it
    for name, code in ann.items():
        u, v, w = annotator_pair_units(units, code)
        assert alpha(ALL, name) == pytest.approx(weighted_nominal_alpha(u, v, w))
        for lname, lcode in lab.items():
            assert alpha(lname, name) == pytest.approx(binary_alpha(u, v, lcode, w), nan_ok=True)


def classification_primitives(tables, label, annotator):
    """(D_o, D_e, n_units, n_chance, n_items) of a classification cell, filtered by hand
    from the rules of iaa_frames.core.engine.labels: label disagreement of the matched pairs
    within items and of the matched chance pairs, {label, other} for a class, a thin
    annotator cell borrowing every annotator's chance pairs."""
    w, b = tables.localization_within, tables.localization_between
    wa, wb = w["label_a"].to_numpy(), w["label_b"].to_numpy()
    ba, bb = b["label_a"].to_numpy(), b["label_b"].to_numpy()
    uni = b["in_uniform"].to_numpy()
    if annotator is None:
        wm = np.ones(len(w), bool)
        bm = uni
    else:
        wm = ((w["annotator_a"] == annotator) | (w["annotator_b"] == annotator)).to_numpy()
        side_a = (b["annotator_a"] == annotator).to_numpy()
        side_b = (b["annotator_b"] == annotator).to_numpy()
        bm = (uni & (side_a | side_b)) | (b["in_annotator_a"].to_numpy() & side_a)
        bm |= b["in_annotator_b"].to_numpy() & side_b
        if wm.sum() >= 2 and bm.sum() < MIN_CHANCE_UNITS and uni.sum() > bm.sum():
            bm = uni  # borrowed
    carries_w = np.ones(len(w), bool) if label is None else (wa == label) | (wb == label)
    carries_b = np.ones(len(b), bool) if label is None else (ba == label) | (bb == label)
    d_o = ((wa != wb) & carries_w & wm).sum() / wm.sum() if wm.any() else np.nan
    d_e = ((ba != bb) & carries_b & bm).sum() / bm.sum() if bm.any() else np.nan
    if label is not None and (carries_b & bm).sum() < MIN_OWN_CHANCE_UNITS:
        # a rare class: 2 p delta, p its share of the within labels, delta the cell's
        # chance disagreement over every class
        p = ((wa == label) & wm).sum() + ((wb == label) & wm).sum()
        p = p / (2 * wm.sum()) if wm.any() else np.nan
        d_e = 2 * p * (((ba != bb) & bm).sum() / bm.sum()) if bm.any() else np.nan
    items = w.loc[wm & carries_w, "item"].nunique()
    return d_o, d_e, int((wm & carries_w).sum()), int(bm.sum()), items


def test_classification_cells_equal_label_disagreement_primitives(mixed):
    _, tables, ds = mixed
    ann, lab = codes(tables)
    checked = 0
    for label, annotator in all_cells(ds):
        d_o, d_e, n, n_chance, items = classification_primitives(
            tables, lab.get(label), ann.get(annotator)
        )
        assert cell(ds, "n_units", "classification", label, annotator) == n
        assert cell(ds, "n_chance", "classification", label, annotator) == n_chance
        assert cell(ds, "n_items", "classification", label, annotator) == items
        assert cell(ds, "observed", "classification", label, annotator) == pytest.approx(
            d_o, nan_ok=True
        )
        assert cell(ds, "expected", "classification", label, annotator) == pytest.approx(
            d_e, nan_ok=True
        )
        note = ds["note"].sel(component="classification", label=label, annotator=annotator)
        value = cell(ds, "agreement", "classification", label, annotator)
        if note.item() == "" or note.item().startswith(FEW_ITEMS_NOTE):
            assert value == pytest.approx(1 - d_o / d_e)
            checked += 1
        else:
            assert np.isnan(value)
    assert checked >= 10


def test_n_items_is_the_items_of_the_within_rows(mixed):
    # localization: a pandas groupby count of the matched pairs' items, per class
    _, tables, ds = mixed
    _, lab = codes(tables)
    w = tables.localization_within
    same = w[w["label_a"] == w["label_b"]]
    by_class = same.groupby("label_a")["item"].nunique()
    for name, code in lab.items():
        assert cell(ds, "n_items", "localization", name) == by_class.get(code, 0)
    assert cell(ds, "n_items", "localization") == w["item"].nunique()


def test_one_item_class_has_no_interval_and_says_so():
    # a class drawn in one item of 30: its cells are defined, but the bootstrap of one
    # item has nothing to resample (the interval was [1.000, 1.000] before the guard)
    df = simulate(n_items=30, annotators={"a": "good", "b": "good", "c": "sloppy"}, seed=5)
    first = df["item"].iloc[0]
    df.loc[(df["item"] == first) & df["label"].notna(), "label"] = "ferry"
    ds = agreement(df, n_chance=300, n_boot=50)
    ferry = ds.sel(label="ferry", annotator=ALL)
    assert (ferry["n_items"] == 1).all()
    defined = ferry["agreement"].notnull()
    assert int(defined.sum()) >= 3  # detection, localization, overall (and alpha if varied)
    assert ferry["ci_low"].isnull().all() and ferry["ci_high"].isnull().all()
    for comp in ferry["component"].values[defined.values]:
        note = str(ferry["note"].sel(component=comp).item())
        # after what the cell assumes, if anything (a borrowed chance baseline)
        assert note.endswith(f"{FEW_ITEMS_NOTE} 1 item (fewer than {MIN_CI_ITEMS})"), comp
    # the other classes keep their intervals
    others = ds.sel(label=["car", "person", "bicycle"], annotator=ALL, component="localization")
    assert np.isfinite(others["ci_low"]).all()


def presence_units(tables, label=None):
    """Per unit: raters (annotators who covered its item) and who drew a member."""
    u = tables.units if label is None else tables.units[tables.units["label"] == label]
    raters = tables.coverage.groupby("item")["annotator"].apply(set)
    rows = []
    for _, members in u.groupby("cluster"):
        item = members["item"].iloc[0]
        rows.append((raters[item], set(members["annotator"])))
    return rows


def test_presence_alpha_equals_primitives(mixed):
    _, tables, ds = mixed
    ann, lab = codes(tables)
    for label in [None, *lab.values()]:
        rows = presence_units(tables, label)
        name = ALL if label is None else str(tables.corpus.labels[label])
        got = cell(ds, "presence_alpha", "detection", name)
        assert got == pytest.approx(
            presence_alpha([len(d) for _, d in rows], [len(r) for r, _ in rows])
        )
        for aname, a in ann.items():
            # pairs (A, another rater) of every unit on an item A covered, weight 1/(r-1)
            unit_codes, values, weights = [], [], []
            for r, drew in rows:
                if a not in r or len(r) < 2:
                    continue
                for o in r - {a}:
                    unit_codes += [len(weights)] * 2
                    values += [int(a in drew), int(o in drew)]
                    weights.append(1.0 / (len(r) - 1))
            ref = weighted_nominal_alpha(unit_codes, values, weights)
            assert cell(ds, "presence_alpha", "detection", name, aname) == pytest.approx(
                ref, nan_ok=True
            )
    for component in ("classification", "localization", "overall"):
        assert ds["presence_alpha"].sel(component=component).isnull().all()


def hand_frame():
    """Four items, one box each drawn identically by a, b, c, with these labels."""
    labels = {"i1": "cat cat cat", "i2": "cat dog cat", "i3": "dog dog dog", "i4": "dog dog cat"}
    rows = []
    for k, (item, labs) in enumerate(labels.items()):
        for annotator, label in zip("abc", labs.split()):
            rows.append(
                dict(
                    item=item,
                    annotator=annotator,
                    label=label,
                    x0=10.0 * k,
                    y0=5.0,
                    x1=10.0 * k + 30,
                    y1=40.0,
                    width=100.0,
                    height=100.0,
                )
            )
    return pd.DataFrame(rows)


def test_label_alpha_per_annotator_by_hand():
    # coincidences by hand (see the module docstring of iaa_frames.core.engine):
    # all: cc=4 dd=4 cd=dc=2, n=12 -> 1 - (4/12) / (72/132) = 0.3889
    # a: cc=3 dd=3 cd=dc=1, n=8 -> 1 - 0.25 / (32/56) = 0.5625
    # b: cc=2 dd=3 cd=dc=1.5, n=8 -> 1 - 0.375 / (31.5/56) = 1/3; c likewise 1/3
    tables = pair_tables(hand_frame(), n_chance=50)
    ds = agreement_from_tables(tables)
    got = ds["label_alpha"].sel(component="classification", label=ALL)
    assert got.sel(annotator=ALL) == pytest.approx(1 - (4 / 12) / (72 / 132))
    assert got.sel(annotator="a") == pytest.approx(0.5625)
    assert got.sel(annotator="b") == pytest.approx(1 / 3)
    assert got.sel(annotator="c") == pytest.approx(1 / 3)
    # two categories: the binary alpha of either class is the nominal alpha
    assert float(
        ds["label_alpha"].sel(component="classification", label="cat", annotator=ALL)
    ) == pytest.approx(0.3889, abs=1e-4)


def test_classification_by_hand():
    # eight items, one box each at the same place (every chance pairing matches), the
    # labels cat on four items and dog on four, all three annotators agreeing: D_o = 0;
    # a chance pair joins two different items, of different labels in 16 of the 28
    # pairs of items (every pair of items with the same 6 pairs of annotators):
    # D_e = 16 / 28
    rows = [
        dict(item=f"i{k}", annotator=a, label="cat" if k < 4 else "dog", x0=10.0, y0=10.0,
             x1=40.0, y1=40.0, width=100.0, height=100.0)
        for k in range(8)
        for a in "abc"
    ]  # fmt: skip
    ds = agreement_from_tables(pair_tables(pd.DataFrame(rows)), n_boot=0)
    c = ds.sel(component="classification", label=ALL, annotator=ALL)
    assert float(c["expected"]) == pytest.approx(16 / 28)
    assert float(c["observed"]) == 0.0
    assert float(c["agreement"]) == 1.0
    assert float(c["n_chance"]) == 28 * 6


def test_pairwise_equals_rows_of_the_pair(mixed):
    df, tables, _ = mixed
    ann, _ = codes(tables)
    for component in ("localization", "detection"):
        pw = pairwise_from_tables(tables, component=component)
        assert pw.dims == ("annotator_a", "annotator_b")
        assert list(pw["annotator_a"].values) == sorted(ann)
        values = pw.values
        np.testing.assert_array_equal(np.isnan(np.diag(values)), True)
        assert set(np.diag(pw["note"].values)) == {"not applicable"}
        np.testing.assert_allclose(values, values.T, equal_nan=True)
        for a in ann:
            for b in ann:
                if a >= b:
                    continue
                w, _, col, _ = sigma_rows(tables, component, None, None)
                bt = (
                    tables.localization_between
                    if component == "localization"
                    else tables.sets_between.query("label == -1")
                )
                pair = {ann[a], ann[b]}
                keep_w = [set(p) == pair for p in zip(w["annotator_a"], w["annotator_b"])]
                # a pair's cell: its chance units from the uniform stratum, from either
                # annotator's stratum and from the pair's own stratum
                flagged = (
                    bt[["in_uniform", "in_annotator_a", "in_annotator_b", "in_pair"]]
                    .any(axis=1)
                    .to_numpy()
                )
                keep_b = [
                    set(p) == pair and f
                    for p, f in zip(zip(bt["annotator_a"], bt["annotator_b"]), flagged)
                ]
                wy = np.ones(sum(keep_b))
                if component == "localization" and sum(keep_w) and sum(keep_b):
                    wy = poststratified_weights(
                        tables, w.loc[keep_w], bt.loc[keep_b], wy, pools_classes=True
                    )
                ref = sigma(w.loc[keep_w, col], bt.loc[keep_b, col], between_weights=wy)
                keep_b = np.flatnonzero(keep_b)[wy > 0]
                got = float(pw.sel(annotator_a=a, annotator_b=b))
                if len(keep_b) >= MIN_CHANCE_UNITS and sum(keep_w) >= MIN_WITHIN_UNITS:
                    assert got == pytest.approx(ref)
                else:
                    assert np.isnan(got)
    # the function on the frame equals the function on the tables
    direct = pairwise(df, component="detection", n_chance=300)
    np.testing.assert_array_equal(
        direct.values, pairwise_from_tables(tables, component="detection").values
    )


def test_pairwise_label_and_parameters(mixed):
    _, tables, _ = mixed
    _, lab = codes(tables)
    name = sorted(lab)[0]
    pw = pairwise_from_tables(tables, component="localization", label=name)
    assert pw.attrs["label"] == name
    with pytest.raises(ParameterError, match="label must be"):
        pairwise_from_tables(tables, label="unicorn")
    with pytest.raises(ParameterError, match="component must be one of"):
        pairwise_from_tables(tables, component="presence")


# --------------------------------------------------------------------------- notes


def test_notes_explain_every_nan(mixed):
    _, _, ds = mixed
    nan = ds["agreement"].isnull()
    assert bool((ds["note"].where(nan, "x") != "").all())
    # a defined cell's note is empty, or says why its interval is not reported
    defined = ds["note"].where(~nan, "").values.ravel()
    assert all(n == "" or n.startswith(FEW_ITEMS_NOTE) for n in defined)


def test_too_few_units_and_chance_units_are_counted():
    df = simulate(n_items=40, annotators={"a": "good", "b": "good", "c": "good"}, seed=3)
    # one object of a class nobody else uses: a false positive of annotator a
    extra = df[(df["annotator"] == "a") & df["label"].notna()].iloc[[0]]
    extra = extra.assign(label="unicorn", object_id=df["object_id"].max() + 1)
    df = pd.concat([df, extra], ignore_index=True)
    ds = agreement(df, n_chance=10)
    notes = ds["note"].sel(component=list(SIGMA_COMPONENTS))
    n_units = ds["n_units"].sel(component=list(SIGMA_COMPONENTS))
    n_chance = ds["n_chance"].sel(component=list(SIGMA_COMPONENTS))
    few_within = (n_units < MIN_WITHIN_UNITS).values
    source = ds["chance_source"].sel(component=list(SIGMA_COMPONENTS))
    # a borrowing cell needs what its class's "(all)" cell needs
    parent = source.sel(annotator=ALL).broadcast_like(source)
    own = (
        (source["component"] == "localization")
        & (source["label"] != ALL)
        & (
            source.isin(["enumerated", "sampled"])
            | ((source == "borrowed") & parent.isin(["enumerated", "sampled"]))
        )
    )
    # a class's own localization units need only MIN_OWN_CHANCE_UNITS
    # (iaa_frames.core.chance.pooled)
    few_chance = (n_chance < xr.where(own, MIN_OWN_CHANCE_UNITS, MIN_CHANCE_UNITS)).values
    for note, n, m, fw, fc in zip(
        notes.values.ravel(),
        n_units.values.ravel(),
        n_chance.values.ravel(),
        few_within.ravel(),
        few_chance.ravel(),
    ):
        if fw:
            assert note == f"too few within units (n={int(n)})"
        elif fc:
            assert note == f"too few chance units (n={int(m)}: the whole chance population)"
        else:
            assert note in (
                "",
                "no variation: expected disagreement is 0",
                NO_MATCH_NOTE,
            ) or note.startswith(FEW_ITEMS_NOTE)
    assert few_within.any()  # the unicorn
    assert cell(ds, "n_units", "localization", "unicorn") == 0
    # 40 items: the whole chance population is enumerated, whatever n_chance asks
    assert ds.attrs["chance_population"] == "enumerated"
    # nothing of the unicorn class ever matches: no information, not sigma = 0
    assert (
        ds["note"].sel(component="detection", label="unicorn", annotator="a").item()
        == NO_MATCH_NOTE
    )
    sig = ds["agreement"].sel(component=list(SIGMA_COMPONENTS)).values
    assert np.isnan(sig[few_within | few_chance]).all()
    # alpha needs no chance units
    assert cell(ds, "agreement", "classification") > 0.9


# ---------------------------------------------------------------------- acceptance


@pytest.mark.parametrize("kind", ["box", "polygon", "mixed"])
def test_perfect_annotators_score_one_where_defined(kind):
    # polygons are star-shaped (concave): GIoU must not penalize a shape against itself
    df = simulate(
        n_items=60,
        annotators={"p1": "perfect", "p2": "perfect", "p3": "perfect"},
        kind=kind,
        seed=4,
    )
    ds = agreement(df, n_chance=200)
    defined = ds["note"] == ""
    assert int(defined.sum()) >= 3 * 4 * 4  # nearly every cell is defined
    np.testing.assert_allclose(ds["agreement"].where(defined).values[defined.values], 1.0)
    assert ds["agreement"].where(~defined).isnull().all()
    # everybody drew everything: presence alpha has no variation
    assert np.isnan(cell(ds, "presence_alpha", "detection"))


@pytest.mark.slow
@pytest.mark.parametrize("tau", [0.5, 0.0])
def test_random_annotators_score_zero(tau):
    df = simulate(
        n_items=300,
        annotators={"r1": "random", "r2": "random", "r3": "random"},
        objects_per_item=8,
        seed=1,
    )
    ds = agreement(df, match_threshold=tau, n_chance=1000, n_boot=100)
    loc = cell(ds, "agreement", "localization")
    assert abs(loc) < 0.05, loc
    assert cell(ds, "n_units", "localization") >= 100
    det = cell(ds, "agreement", "detection")
    if tau == 0.5:
        assert abs(det) < 0.05, det
    else:
        # at tau = 0 every pair matches and detection only sees the counts: the mean
        # distance is small, so sigma is noisy; its bootstrap interval must cover 0
        assert cell(ds, "ci_low", "detection") < 0 < cell(ds, "ci_high", "detection")


def test_good_detectors_high_detection_but_presence_alpha_near_zero():
    df = simulate(n_items=150, annotators={k: {"miss": 0.03} for k in ("a", "b", "c")}, seed=2)
    ds = agreement(df, n_chance=500)
    # measured: detection sigma 0.96, presence alpha -0.01
    det = cell(ds, "agreement", "detection")
    presence = cell(ds, "presence_alpha", "detection")
    assert det > 0.9, det
    assert abs(presence) < 0.1, presence
    assert "not the headline" in ds["presence_alpha"].attrs["description"]


def test_lazy_center_high_raw_iou_but_no_agreement():
    # pure lazy-center boxes are identical in normalized coordinates on every item: no
    # variation at all, so sigma is undefined (not 1) while raw IoU is perfect
    df = simulate(
        n_items=80,
        annotators={"a": "lazy-center", "b": "lazy-center"},
        layout="single_center",
        seed=3,
    )
    ds = agreement(df, n_chance=200)
    assert cell(ds, "raw_iou", "localization") == pytest.approx(1.0)
    assert np.isnan(cell(ds, "agreement", "localization"))
    assert (
        ds["note"].sel(component="localization", label=ALL, annotator=ALL).item()
        == "no variation: expected disagreement is 0"
    )
    # with some hand noise, raw IoU stays above 0.9 (measured 0.91) and sigma near 0
    # (measured 0.03): the figure shows that the boxes carry no information
    lazy = {"lazy_center": True, "jitter": 0.02}
    df = simulate(
        n_items=120, annotators={"a": lazy, "b": lazy, "c": lazy}, layout="single_center", seed=3
    )
    ds = agreement(df, n_chance=300)
    assert cell(ds, "raw_iou", "localization") > 0.9
    assert abs(cell(ds, "agreement", "localization")) < 0.1


@pytest.mark.slow
def test_each_failure_shows_only_in_its_component():
    df = simulate(
        n_items=150,
        annotators={
            "good1": "good",
            "good2": "good",
            "good3": "good",
            "misser": "misser",
            "mislabeler": "mislabeler",
            "sloppy": "sloppy",
        },
        seed=0,
    )
    ds = agreement(df, n_chance=500)
    by = ds["agreement"].sel(label=ALL).drop_sel(annotator=ALL)
    lowest = {
        c: str(by.sel(component=c).idxmin("annotator").item())
        for c in ("detection", "classification", "localization")
    }
    assert lowest == {
        "detection": "misser",
        "classification": "mislabeler",
        "localization": "sloppy",
    }


def test_localization_sigma_falls_with_jitter():
    # two exact reference annotators: each annotator's cell is then dominated by its own
    # noise (without them the 0.02 and 0.05 cells differ by only ~0.01)
    levels = (0.02, 0.05, 0.1, 0.2)
    annotators = {f"j{j}": {"jitter": j} for j in levels}
    annotators.update(ref1="perfect", ref2="perfect")
    df = simulate(n_items=120, annotators=annotators, seed=6)
    ds = agreement(df, n_chance=400)
    s = [cell(ds, "agreement", "localization", ALL, f"j{j}") for j in levels]
    assert all(x > y for x, y in zip(s, s[1:])), s


def test_mirror_gives_negative_sigma_not_clipped():
    # One object per item, single_center layout. With the centroid distance the mirrored
    # copy is farther than a chance pair: sigma < 0 and reported as such. (With giou the
    # simulator's single_center objects vary more in size than mirroring moves them, so
    # sigma stays positive: measured +0.29.)
    df = simulate(
        n_items=150,
        annotators={"p": "perfect", "m": "mirror"},
        layout="single_center",
        objects_per_item=1,
        objects_per="fixed",
        seed=5,
    )
    ds = agreement(df, n_chance=400, distance="centroid")
    loc = cell(ds, "agreement", "localization")
    assert loc < -0.05, loc
    assert cell(ds, "observed", "localization") > cell(ds, "expected", "localization")


def test_opposite_conventions_give_sigma_near_minus_one():
    # A corpus built so that within-item pairs are always on opposite sides while chance
    # pairs are on the same side half of the time: sigma ~ 1 - 1 / 0.5 = -1, not clipped.
    rng = np.random.default_rng(0)
    n = 80
    left = np.arange(n) % 2 == 0
    cx = np.where(left, 0.25, 0.75) + rng.normal(0, 0.005, n)
    rows = []
    for i in range(n):
        for annotator, x in (("a", cx[i]), ("b", 1 - cx[i])):
            rows.append(
                dict(
                    item=f"i{i}",
                    annotator=annotator,
                    label="obj",
                    x0=100 * (x - 0.1),
                    y0=40.0,
                    x1=100 * (x + 0.1),
                    y1=60.0,
                    width=100.0,
                    height=100.0,
                )
            )
    ds = agreement(pd.DataFrame(rows), match_threshold=0.0, n_chance=300)
    loc = cell(ds, "agreement", "localization")
    assert loc < -0.8, loc


# ----------------------------------------------------------------------- invariance


@pytest.fixture(scope="module")
def small():
    df = simulate(
        n_items=40, annotators={"ann": "good", "bob": "sloppy", "cyd": "mislabeler"}, seed=21
    )
    return df, agreement(df, n_chance=200, n_boot=30)


def test_row_order_does_not_matter(small):
    df, ds = small
    shuffled = df.sample(frac=1.0, random_state=5).reset_index(drop=True)
    import xarray as xr

    xr.testing.assert_identical(agreement(shuffled, n_chance=200, n_boot=30), ds)


def test_renaming_items_and_annotators_does_not_matter(small):
    df, ds = small
    # a permutation that reverses the sort order of annotators and shuffles items
    ann_map = {"ann": "zed", "bob": "yan", "cyd": "xia"}
    items = sorted(df["item"].unique())
    perm = np.random.default_rng(1).permutation(len(items))
    item_map = {it: f"photo_{p:03d}" for it, p in zip(items, perm)}
    renamed = df.assign(annotator=df["annotator"].map(ann_map), item=df["item"].map(item_map))
    other = agreement(renamed, n_chance=200, n_boot=30)
    back = {v: k for k, v in ann_map.items()}
    other = other.assign_coords(annotator=[back.get(a, a) for a in other["annotator"].values])
    other = other.sel(annotator=ds["annotator"].values)
    for var in ds.data_vars:
        if ds[var].dtype == object:
            np.testing.assert_array_equal(other[var].values, ds[var].values)
        else:
            np.testing.assert_allclose(
                other[var].values, ds[var].values, rtol=1e-12, equal_nan=True
            )


# ----------------------------------------------------------------------- parameters


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_boot": -1}, "n_boot must be an integer >= 0; got -1"),
        ({"n_boot": 2.5}, "n_boot must be an integer >= 0; got 2.5"),
        ({"n_boot": True}, "n_boot must be an integer >= 0; got True"),
        ({"progress": "yes"}, "progress must be None, True or False; got 'yes'"),
        ({"match_threshold": 2}, "match_threshold must be a number in"),
        ({"overall": "mean"}, "overall must be one of"),
        ({"seed": -3}, "seed must be an integer >= 0"),
    ],
)
def test_bad_parameters_raise_parameter_error(kwargs, message):
    df = simulate(n_items=3, seed=0)
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        agreement(df, **kwargs)


def test_agreement_from_tables_checks_its_input():
    with pytest.raises(ParameterError, match="tables must be the PairTables"):
        agreement_from_tables(pd.DataFrame())


# ------------------------------------------------------------------ threshold sweeps


def _same_result(got, one):
    """``got`` (one threshold of a sweep) equals the result of that threshold alone:
    every variable and coordinate bitwise; attrs alike but match_threshold (the list)."""
    import xarray as xr

    assert float(got["threshold"]) == float(one["threshold"]) and one["threshold"].dims == ()
    assert {k: v for k, v in got.attrs.items() if k != "match_threshold"} == {
        k: v for k, v in one.attrs.items() if k not in ("match_threshold", "tables_key")
    }
    xr.testing.assert_identical(got.assign_attrs(one.attrs), one)
    for name in one.data_vars:  # bitwise, NaN where NaN
        a, b = got[name].values, one[name].values
        assert a.dtype == b.dtype
        if a.dtype.kind == "f":
            assert np.array_equal(a.view(np.int64), b.view(np.int64)), name
        else:
            assert np.array_equal(a, b), name


@pytest.mark.parametrize(
    "kind, n_items, n_chance",
    [
        ("box", 12, 2000),  # chance population enumerated
        ("box", 90, 150),  # chance pairings sampled
        ("polygon", 10, 2000),
        ("polygon", 100, 120),
    ],
)
def test_sweep_equals_one_call_per_threshold(kind, n_items, n_chance):
    df = simulate(
        n_items=n_items, kind=kind, seed=7, annotators={"a": "good", "b": "sloppy", "c": "misser"}
    )
    taus = [0.0, 0.3, 0.5, 0.75]
    sweep = agreement(df, match_threshold=taus[::-1], n_chance=n_chance, n_boot=30, seed=2)
    assert sweep["agreement"].dims == ("threshold", "component", "label", "annotator")
    assert sweep["threshold"].values.tolist() == taus
    assert sweep.attrs["match_threshold"] == taus and "tables_key" not in sweep.attrs
    population = set()
    for tau in taus:
        one = agreement(df, match_threshold=tau, n_chance=n_chance, n_boot=30, seed=2)
        population.add(one.attrs["chance_population"])
        _same_result(sweep.sel(threshold=tau), one)
    # the sweep moves the figures: the gate is not ignored
    pooled = sweep["agreement"].sel(label=ALL, annotator=ALL).values  # (threshold, component)
    assert not np.array_equal(pooled[0], pooled[-1], equal_nan=True)
    assert population == ({"enumerated"} if n_chance == 2000 else {"sampled"})


def test_sweep_tables_equal_pair_tables_at_each_threshold():
    from iaa_frames.core.tables.pairs import pair_tables_by_threshold

    df = simulate(n_items=60, kind="polygon", seed=3, annotators={"a": "good", "b": "good"})
    every = pair_tables_by_threshold(df, thresholds=[0.6, 0.2], n_chance=100, seed=5)
    assert [t.params["match_threshold"] for t in every] == [0.2, 0.6]
    for t in every:
        alone = pair_tables(df, match_threshold=t.params["match_threshold"], n_chance=100, seed=5)
        assert t.params == alone.params
        for name in TABLES:
            pd.testing.assert_frame_equal(getattr(t, name), getattr(alone, name), check_exact=True)
        assert np.array_equal(t.label_source, alone.label_source)


def test_scalar_threshold_is_a_scalar_coordinate():
    df = simulate(n_items=8, seed=0)
    ds = agreement(df, n_chance=100, n_boot=0, match_threshold=0.4)
    assert "threshold" not in ds.dims and ds["threshold"].dims == ()
    assert float(ds["threshold"]) == 0.4 == ds.attrs["match_threshold"]
    assert ds["threshold"].attrs["long_name"] and "IoU" in ds["threshold"].attrs["description"]
    assert ds["agreement"].dims == ("component", "label", "annotator")
    # a one-element sequence is still a dimension (the type of the input decides)
    one = agreement(df, n_chance=100, n_boot=0, match_threshold=[0.4])
    assert one.sizes["threshold"] == 1
    _same_result(one.sel(threshold=0.4), ds)


@pytest.mark.parametrize(
    "value, message",
    [
        ([], "empty sequence"),
        ([0.3, 1.2], "must be a number in \\[0, 1\\]; got 1.2 \\(position 1"),
        ([0.3, float("nan")], "got nan"),
        ("0.3,0.5", "a string"),
        ([[0.3, 0.5]], "must be a number"),
        ([0.5, True], "got True"),
        (None, "got NoneType"),
        (-0.1, "must be a number in \\[0, 1\\]; got -0.1"),
    ],
)
def test_bad_thresholds_raise_parameter_error(value, message):
    df = simulate(n_items=3, seed=0)
    with pytest.raises(ParameterError, match=message):
        agreement(df, match_threshold=value, n_chance=50, n_boot=0)
    with pytest.raises(ParameterError, match=message):
        pairwise(df, match_threshold=value, n_chance=50)


def test_pair_tables_takes_one_threshold_and_says_where_several_go():
    with pytest.raises(ParameterError, match="several thresholds are accepted by agreement"):
        pair_tables(simulate(n_items=3, seed=0), match_threshold=[0.3, 0.5])


def test_pairwise_and_shortcuts_sweep():
    from oracles import component_alpha, component_ks, component_sigma

    df = simulate(n_items=30, seed=4, annotators={"a": "good", "b": "sloppy", "c": "good"})
    kw = {"n_chance": 200, "seed": 1}
    pw = pairwise(df, match_threshold=[0.3, 0.6], **kw)
    assert pw.dims == ("threshold", "annotator_a", "annotator_b")
    assert pw["n_units"].dims == pw.dims
    for tau in (0.3, 0.6):
        one = pairwise(df, match_threshold=tau, **kw)
        got = pw.sel(threshold=tau)
        assert np.array_equal(got.values, one.values, equal_nan=True)
        assert np.array_equal(got["n_units"].values, one["n_units"].values, equal_nan=True)
        assert (got["note"].values == one["note"].values).all()
    for func in (component_sigma, component_ks, component_alpha):
        da = func(df, match_threshold=[0.3, 0.6], n_boot=0, **kw)
        assert da.dims == ("threshold", "label", "annotator")
        one = func(df, match_threshold=0.6, n_boot=0, **kw)
        assert np.array_equal(da.sel(threshold=0.6).values, one.values, equal_nan=True)


def test_sweep_progress_bar_over_thresholds(capsys):
    agreement(
        simulate(n_items=6, seed=0),
        match_threshold=[0.3, 0.6],
        n_chance=50,
        n_boot=0,
        progress=True,
    )
    err = capsys.readouterr().err
    # one bar per stage and threshold, never a bar over the thresholds around them
    assert "τ = 0.6 (2/2): within-item matching: 100%" in err and "thresholds" not in err
    agreement(
        simulate(n_items=6, seed=0),
        match_threshold=[0.3, 0.6],
        n_chance=50,
        n_boot=0,
        progress=False,
    )
    assert capsys.readouterr().err == ""


def test_classification_counts_without_any_pairable_cluster():
    from iaa_frames.core.engine.alpha import units_per_cell
    from iaa_frames.core.engine.cells import CellLayout

    for layout in (CellLayout(3, 2), CellLayout(3, 2, pairwise=True)):
        empty = np.zeros(0, dtype=np.int64)
        got = units_per_cell(layout, empty, empty, empty, layout.groups(empty, empty))
        assert got.shape == (layout.n_cells,) and not got.any()


def test_annotators_and_labels_in_natural_order():
    """Names with numbers read as people read them ("2" before "10"), case ignored,
    "(all)" first, in the Dataset and the pairwise table alike (the dask back end builds
    the same axes)."""
    names = ["11", "2", "10", "1", "3"]
    df = simulate(n_items=12, annotators={k: "good" for k in names}, seed=0)
    df["label"] = df["label"].map({"car": "Car", "person": "bus", "bicycle": "van10"})
    df.loc[df.index[df["x0"].notna()][::7], "label"] = "van9"
    ds = agreement(df, n_boot=0, n_chance=100)
    assert ds["annotator"].values.tolist() == ["(all)", "1", "2", "3", "10", "11"]
    assert ds["label"].values.tolist() == ["(all)", "bus", "Car", "van9", "van10"]
