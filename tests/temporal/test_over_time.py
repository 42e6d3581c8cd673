"""Agreement over time: windows by an item's last annotation, and the re-calibration flag
over seeds (drifting annotators flagged, a stationary corpus not: its false-alarm rate)."""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError, SchemaError
from iaa_frames.temporal.over_time import item_windows

CELL = dict(label="(all)", annotator="(all)")


def test_an_item_enters_the_window_of_its_last_annotation():
    df = pd.DataFrame(
        {
            "item": ["a", "a", "b", "c"],
            "time": pd.to_datetime(["2026-03-01", "2026-03-03", "2026-03-01", None]),
        }
    )
    with pytest.raises(SchemaError, match="1 items have no 'time'"):
        item_windows(df, time="time", freq="D")
    w = item_windows(df.iloc[:3], time="time", freq="D")
    assert w.astype(str).to_dict() == {"a": "2026-03-03", "b": "2026-03-01"}
    numeric = pd.DataFrame({"item": ["a", "b", "b"], "t": [3.5, 1.0, 7.9]})
    assert item_windows(numeric, time="t", freq=5).to_dict() == {"a": 0.0, "b": 5.0}
    with pytest.raises(ParameterError, match="positive number"):
        item_windows(numeric, time="t", freq="D")


def test_a_window_is_its_items_against_the_corpus_chance():
    """The within side is the window's items (observed, and classification's alpha, as
    the agreement of those items alone); the chance side the whole corpus's (detection
    and overall: the corpus's expected disagreement itself)."""
    df = iaf.simulate_drift(n_items=48, freq="1h", seed=1)
    res = iaf.agreement_over_time(df, freq="D", n_chance=200, n_boot=50, seed=2)
    assert res["n_items"].values.tolist() == [24, 24]
    assert res.attrs["chance"].startswith("the whole corpus (48 items)")
    day1 = iaf.agreement(df[df["time"] < pd.Timestamp("2026-01-02")], n_chance=200, n_boot=0)
    day2 = iaf.agreement(df[df["time"] >= pd.Timestamp("2026-01-02")], n_chance=200, n_boot=0)
    corpus = iaf.agreement(df, n_chance=200, n_boot=0)
    last = res.isel(window=-1).sel(label=day2["label"])
    sigma = ["detection", "localization", "overall"]
    np.testing.assert_allclose(
        last["observed"].sel(component=sigma), day2["observed"].sel(component=sigma)
    )
    np.testing.assert_allclose(
        last["agreement"].sel(component="classification"),
        day2["agreement"].sel(component="classification"),
    )
    sets = ["detection", "overall"]
    for day, window in ((day1, res.isel(window=0)), (day2, res.isel(window=-1))):
        np.testing.assert_allclose(
            window["expected"].sel(component=sets, label=day["label"]),
            corpus["expected"].sel(component=sets, label=day["label"]),
        )
    # the baseline (day 1) is its observed against the same chance
    base = 1 - day1["observed"] / corpus["expected"]
    np.testing.assert_allclose(
        res["baseline"].sel(component=sets, label=day1["label"]), base.sel(component=sets)
    )


def test_too_few_items_per_window():
    df = iaf.simulate_drift(n_items=6, freq="1D", seed=0)
    with pytest.raises(ParameterError, match="no window has 4 items"):
        iaf.agreement_over_time(df, freq="D", n_chance=50, n_boot=0)


@pytest.mark.slow
def test_drift_is_flagged_and_a_stationary_corpus_rarely():
    """120 items, one per hour (5 daily windows of 24), annotators 'good' then 'sloppy'
    after the midpoint, over 20 seeds. Measured on 40 seeds (each window against the
    corpus's chance): stationary false alarms detection 5 %, localization 2.5 %, overall
    5 %, classification 0 %; drift flagged detection, localization and overall 100 %
    (per-window chance, before: localization 92.5 %, false alarms overall 7.5 %)."""
    flags = {}
    for after in ("good", "sloppy"):
        got = []
        for seed in range(20):
            df = iaf.simulate_drift(n_items=120, freq="1h", after=after, seed=seed)
            res = iaf.agreement_over_time(df, freq="D", n_chance=300, n_boot=200, seed=seed)
            got.append(res["recalibrate"].sel(**CELL).to_series())
        flags[after] = pd.DataFrame(got).mean()
    false_alarm, power = flags["good"], flags["sloppy"]
    assert (false_alarm[["detection", "localization", "overall"]] <= 0.15).all(), false_alarm
    assert (power[["detection", "overall"]] >= 0.95).all(), power
    assert power["localization"] >= 0.8, power


def test_iso_strings_with_their_own_precision_and_offsets():
    """Label Studio writes '2026-01-09T10:00:00.123456Z', CVAT '... +00:00': mixed in one
    column, every value is read (in UTC)."""
    df = pd.DataFrame(
        {
            "item": ["a", "b", "c", "d"],
            "time": [
                "2026-01-01T10:00:00Z",
                "2026-01-04T23:30:00-02:00",  # 2026-01-05 01:30 UTC: the next week
                "2026-01-09T10:00:00.123456Z",
                "Jan 12 2026",
            ],
        }
    )
    w = item_windows(df, time="time", freq="W").astype(str).to_dict()
    assert w == {"a": "2025-12-29", "b": "2026-01-05", "c": "2026-01-05", "d": "2026-01-12"}


def test_windows_are_exactly_freq_wide():
    """'2D' gives 2-day windows (not daily ones) from the first item's day, '50h' 50-hour
    windows from its hour; calendar aliases keep their periods, with multiples in runs."""
    t = pd.Timestamp("2026-03-01 07:30") + pd.to_timedelta(np.arange(0, 240, 5), unit="h")
    df = pd.DataFrame({"item": [f"i{k}" for k in range(len(t))], "time": t})
    grid = {"2D": "2026-03-01", "50h": "2026-03-01 07:00", "D": "2026-03-01"}
    for freq, origin in (grid | {"90min": "2026-03-01 07:30"}).items():
        start = item_windows(df, time="time", freq=freq)
        first, width = pd.Timestamp(origin), pd.Timedelta(freq if freq[0].isdigit() else "1D")
        steps = (start - first) / width
        assert (steps == steps.round()).all(), freq  # every start on the grid
        last = df.set_index("item")["time"].reindex(start.index)
        assert ((last >= start) & (last < start + width)).all(), freq
    two = item_windows(df, time="time", freq="2D")
    assert sorted(two.unique().astype(str)) == [f"2026-03-{d:02d}" for d in range(1, 12, 2)]
    assert item_windows(df, time="time", freq="50h").nunique() == 5
    # calendar: weeks from Monday, months; "2W" pairs weeks from the first item's week
    assert item_windows(df, time="time", freq="W").astype(str).unique().tolist() == [
        "2026-02-23",
        "2026-03-02",
        "2026-03-09",
    ]
    assert item_windows(df, time="time", freq="2W").astype(str).unique().tolist() == [
        "2026-02-23",
        "2026-03-09",
    ]
    assert item_windows(df, time="time", freq="M").astype(str).unique().tolist() == ["2026-03-01"]
    for bad in ("0D", "-2D", "xyz", 3):
        with pytest.raises(ParameterError, match="freq"):
            item_windows(df, time="time", freq=bad)


def _boxes(n_items=200, span="16D", *, drifter=None, drift_from=None, heavy=6.0, seed=0):
    """Three annotators (A, B, C) draw 1-3 boxes per item, 15-40 px in a 640 x 480 image,
    each class in its own third of the image, with 1.5 px of noise per coordinate;
    ``drifter`` draws with ``heavy`` px of noise on the items from ``drift_from`` on.
    Items are evenly spread over ``span`` (the annotators 5 minutes apart)."""
    rng = np.random.default_rng(seed)
    start = pd.Timestamp("2026-03-01")
    step = pd.Timedelta(span) / n_items
    rows = []
    for i in range(n_items):
        t = start + i * step
        for _ in range(rng.integers(1, 4)):
            region = rng.integers(3)
            w, h = rng.uniform(15, 40, 2)
            x0, y0 = rng.uniform(0, 213 - w) + 213 * region, rng.uniform(0, 480 - h)
            for k, who in enumerate("ABC"):
                late = who == drifter and t >= drift_from
                b = np.array([x0, y0, x0 + w, y0 + h]) + rng.normal(0, heavy if late else 1.5, 4)
                b = np.r_[np.minimum(b[:2], b[2:]), np.maximum(b[:2], b[2:]) + 1.0]
                when = t + pd.Timedelta(minutes=5 * k)
                rows.append((f"img{i:04d}", who, ["car", "person", "sign"][region], *b, when))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "time"]
    return pd.DataFrame(rows, columns=cols).assign(width=640.0, height=480.0)


def test_localization_is_finite_in_every_window_of_a_thin_corpus():
    """200 items of 1-3 small boxes over 16 days, 2-day windows of 25 items: a window's
    own chance pairs of small boxes hardly ever match (alone, it needs aligned units),
    the corpus's do, and every window's localization is finite with an interval."""
    df = _boxes()
    res = iaf.agreement_over_time(df, freq="2D", n_chance=2000, n_boot=100)
    assert res["n_items"].values.tolist() == [25] * 8
    loc = res.sel(component="localization")
    for annotator in ("(all)", "A", "B", "C"):
        cell = loc.sel(label="(all)", annotator=annotator)
        assert np.isfinite(cell["agreement"]).all(), annotator
        assert (cell["ci_low"] < cell["agreement"]).all() and (
            cell["agreement"] < cell["ci_high"]
        ).all()
    assert (loc["note"].sel(label="(all)") == "").all()
    # a window alone is thin: its few matched chance pairs need aligned units
    # (iaa_frames.core.chance.aligned); the windows take the corpus's empirical ones instead
    first = df[df["item"].isin(df["item"].unique()[:25])]
    alone = iaf.agreement(first, n_chance=2000, n_boot=0)
    cell = alone.sel(component="localization", label="(all)", annotator="(all)")
    assert str(cell["chance_source"].item()) == "aligned"
    assert res.attrs["chance"].startswith("the whole corpus (200 items)")


def _drift_flags(seed, drifter):
    """8 daily windows of 24 items (one an hour); ``drifter`` jitters heavily from the
    sixth window on. The flags and change windows of the "(all)" label."""
    df = _boxes(192, "192h", drifter=drifter, drift_from=pd.Timestamp("2026-03-06"), seed=seed)
    res = iaf.agreement_over_time(df, freq="D", n_chance=1000, n_boot=200, seed=seed)
    assert res["n_items"].values.tolist() == [24] * 8
    cell = res.sel(label="(all)", component=["localization", "overall"])
    return cell["recalibrate"].to_pandas(), cell["change_window"].to_pandas()


@pytest.mark.slow
def test_the_flag_names_who_drifted_and_when():
    """C degrades in the last three of eight windows: C is flagged, A and B (whose cells
    hold their pairs with C, and fall too) are not, and C's change window is the sixth.
    Measured on 30 seeds: C flagged in 100 % (detection, localization, overall), A and B
    in 0 %; C's change window the sixth in 97 % (localization), 100 % (overall), 63 %
    (detection: the other seeds a later window), A's and B's none."""
    named = changed = 0
    for seed in range(10):
        flags, change = _drift_flags(seed, "C")
        named += bool(flags.loc["localization", "C"]) and not flags.loc[:, ["A", "B"]].any().any()
        changed += change.loc["localization", "C"] == pd.Timestamp("2026-03-06")
        assert change.loc[:, ["A", "B"]].isna().all().all()
    assert named >= 8 and changed >= 8, (named, changed)


@pytest.mark.slow
def test_a_stationary_corpus_rarely_raises_a_flag():
    """The same corpus without drift. Measured on 30 seeds: annotators never flagged;
    the "(all)" cell flagged in 2 of 30 (localization, overall; detection 0); a change
    window in 2 of 30 (localization "(all)"), 1 ("(all)" overall), 2 (C overall)."""
    pooled = annotators = 0
    for seed in range(10):
        flags, change = _drift_flags(seed, None)
        pooled += bool(flags["(all)"].any())
        annotators += bool(flags.loc[:, ["A", "B", "C"]].any().any())
        annotators += bool(change.loc[:, ["A", "B", "C"]].notna().any().any())
    assert pooled <= 2 and annotators <= 2, (pooled, annotators)


def test_two_annotators_no_replicates_and_a_threshold_sweep():
    """With two annotators there are no other annotators' pairs: an annotator's flag is
    its cell's own drop. Without replicates nothing is flagged and no change is found.
    A sweep of thresholds stacks the results."""
    df = _boxes(60, "8D", drifter="B", drift_from=pd.Timestamp("2026-03-07"), heavy=8.0)
    two = df[df["annotator"] != "C"]
    res = iaf.agreement_over_time(two, freq="2D", n_chance=300, n_boot=100)
    assert res["others_agreement"].isnull().all() and res["contrast"].isnull().all()
    cell = res.sel(component="overall", label="(all)")
    assert cell["recalibrate"].values.tolist() == [True, True, True]  # (all), A, B: both
    none = iaf.agreement_over_time(df, freq="2D", n_chance=300, n_boot=0)
    assert not none["recalibrate"].any() and none["change_window"].isnull().all()
    assert none["ci_low"].isnull().all()
    sweep = iaf.agreement_over_time(
        df, freq="2D", n_chance=300, n_boot=0, match_threshold=[0.3, 0.5]
    )
    assert sweep["agreement"].dims == ("threshold", "window", "component", "label", "annotator")
