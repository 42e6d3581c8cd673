"""The validation studies of ``benchmarks/`` still run on the current tables.

They read the pair tables and the result directly, so a change of schema breaks them
silently (``bench_kstest`` once selected a column that no longer existed). These tests run
one small corpus of each study's code path and check the null constructions themselves.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import load_benchmark

import iaa_frames as iaf

bench_kstest = load_benchmark("bench_kstest")
bench_coverage = load_benchmark("bench_coverage")


@pytest.mark.parametrize("n_items", [4, 9])
def test_shuffled_null_gives_every_item_three_images_of_its_own(n_items):
    shuffled = bench_kstest.corpus("shuffled", n_items, seed=3)
    original = iaf.simulate(
        n_items=3 * n_items,
        seed=3,
        layout="single_center",
        image_size=(640, 480),
        annotators={"a": "good", "b": "good", "c": "good"},
    )
    source = shuffled.merge(
        original[["object_id", "item"]].rename(columns={"item": "source"}), on="object_id"
    )
    assert len(source) == len(shuffled)  # every row is an original annotation, once
    assert shuffled["item"].nunique() == n_items
    # an image feeds one item, through one annotator: items share nothing
    per_source = source.groupby("source").agg(
        items=("item", "nunique"), annotators=("annotator", "nunique")
    )
    assert (per_source[["items", "annotators"]] == 1).all().all()
    # an item holds one image per annotator, all different
    per_item = source.groupby("item").agg(
        sources=("source", "nunique"), annotators=("annotator", "nunique")
    )
    assert (per_item["sources"] == per_item["annotators"]).all()
    # every annotation of the images kept for an annotator is there
    kept = original.merge(
        source[["source", "annotator"]].drop_duplicates(),
        left_on=["item", "annotator"],
        right_on=["source", "annotator"],
    )
    assert len(kept) == len(shuffled)


def test_samples_of_the_all_cell_are_the_uniform_chance_rows():
    df = iaf.simulate(n_items=12, annotators={"a": "good", "b": "sloppy", "c": "good"}, seed=1)
    tables = iaf.pair_tables(df, seed=1, progress=False)
    ds = iaf.agreement_from_tables(tables, n_boot=0, progress=False)
    for component in ("detection", "localization", "overall"):
        within, chance, weight = bench_kstest.samples(tables, component)
        cell = ds.sel(component=component, label=iaf.ALL, annotator=iaf.ALL)
        assert len(within) == int(cell["n_units"])
        assert len(chance) == int(cell["n_chance"])
        # the observed and expected means of the cell are the means of these samples
        np.testing.assert_allclose(within.mean(), float(cell["observed"]), rtol=1e-12)
        np.testing.assert_allclose(
            np.average(chance, weights=weight), float(cell["expected"]), rtol=1e-12
        )


@pytest.mark.parametrize("kind", ["shuffled", "random", "sloppy"])
def test_one_corpus_reports_every_test_as_a_decision(kind):
    rows = bench_kstest.one_corpus(6, 11, kind)
    assert rows, "no component had a p-value"
    for row in rows:
        assert row["component"] in bench_kstest.COMPONENTS
        for method in ("scipy two-sided", "scipy, agreement", "cluster one-sided"):
            assert isinstance(row[method], (bool, np.bool_))


def test_coverage_study_reads_every_requested_cell():
    df = iaf.simulate(n_items=12, annotators={"a": "good", "b": "sloppy"}, seed=2)
    ds = iaf.agreement(df, n_chance=300, n_boot=20)
    cells = bench_coverage.values(ds, [iaf.ALL, "b"])
    assert list(cells.columns) == ["estimate", "low", "high"]
    assert len(cells) == 2 * len(bench_coverage.COMPONENTS)
    row = cells.loc[("overall", "b")]
    sel = ds.sel(component="overall", label=iaf.ALL, annotator="b")
    assert np.isfinite(row["estimate"])
    assert row["estimate"] == float(sel["agreement"])
    assert (row["low"], row["high"]) == (float(sel["ci_low"]), float(sel["ci_high"]))


def test_rare_class_study_reads_the_class_cells_and_their_items():
    df = iaf.simulate(n_items=12, annotators={"a": "good", "b": "sloppy"}, seed=2)
    name = bench_coverage.RARE[0][0]
    chosen = df["item"].unique()[:5]
    df.loc[df["item"].isin(chosen) & (df["label"] == "car"), "label"] = name
    ds = iaf.agreement(df, n_chance=300, n_boot=20)
    cells = bench_coverage.rare_values(ds, df)
    assert list(cells.columns) == ["estimate", "low", "high", "n_items", "class_items"]
    assert set(cells.index.get_level_values("label")) == {name}
    drawn = df.loc[df["label"] == name, "item"].nunique()
    assert (cells["class_items"] == drawn).all() and drawn <= 5
    assert (cells["n_items"] <= drawn).all()
    for comp in bench_coverage.COMPONENTS:
        sel = ds.sel(component=comp, label=name, annotator=iaf.ALL)
        row = cells.loc[(comp, name)]
        assert row["estimate"] == pytest.approx(float(sel["agreement"]), nan_ok=True)
        assert row["n_items"] == float(sel["n_items"])
    assert bench_coverage.bin_of([1, 2, 3, 4, 6, 7, 10, 11]).tolist() == [
        "1",
        "2",
        "3",
        "4-6",
        "4-6",
        "7-10",
        "7-10",
        "> 10",
    ]


def test_lvis_like_has_the_shapes_of_the_real_lvis_file():
    # the real LVIS v1.0 val double annotations (200-image subset, 3,521 polygons), as
    # measured on the file (benchmarks/corpora.py LVIS): vertices median 21, 90th percentile
    # 63; 11.2 % multi-part; sqrt(area / image area) median 0.043; 9.5 objects per image and
    # rater, median 5, 90th percentile 21; the largest class 102 objects, 64 classes of at
    # most 2; 0.62 distinct classes per object of an image
    import shapely

    corpora = load_benchmark("corpora")
    df = corpora.lvis_like(seed=1)
    obj = df[iaf.is_object(df)]
    geom = obj["geometry"].to_numpy()
    parts = shapely.get_num_geometries(geom)
    vertices = shapely.get_num_coordinates(geom) - parts
    assert 17 <= np.median(vertices) <= 26 and 50 <= np.percentile(vertices, 90) <= 80
    assert 0.08 <= (parts > 1).mean() <= 0.15
    size = np.sqrt(shapely.area(geom) / (obj["width"] * obj["height"]).to_numpy())
    assert 0.03 <= np.median(size) <= 0.06
    per_image = obj.groupby(["item", "annotator"]).size()
    assert 8 <= per_image.mean() <= 11 and np.percentile(per_image, 90) >= 15
    counts = obj["label"].value_counts()
    assert 60 <= counts.iloc[0] <= 160 and (counts <= 2).sum() >= 20
    distinct = obj.groupby(["item", "annotator"])["label"].agg(lambda v: v.nunique() / len(v))
    assert 0.55 <= distinct.mean() <= 0.75
    assert shapely.is_valid(geom).all()
    # the first generator is kept as it was: simple rings of 24 vertices
    stars = corpora.lvis_like(n_images=20, shapes="stars", seed=0)
    first = stars[iaf.is_object(stars) & (stars["annotator"] == "r1")]["geometry"].to_numpy()
    assert (shapely.get_num_coordinates(first) == 25).all()


def test_interval_candidates_rebuild_the_shipped_interval():
    # the candidates' study observes the engine's interval step through its private names:
    # what it keeps must rebuild the engine's own interval, bit for bit, and leave the
    # engine as it was
    from iaa_frames.core.engine import assemble

    bench = load_benchmark("bench_interval_candidates")
    before = assemble._bootstrap, assemble.bca_interval, assemble._interval_scale
    tables = iaf.pair_tables(iaf.simulate(n_items=12, seed=2), progress=False)
    with bench.Recorder() as recorder:
        ds = assemble.agreement_from_tables(
            tables, n_boot=30, seed=1, ci_method="bca", progress=False
        )
        kept = recorder.cells(ds.sizes["annotator"]) | {"seed": 0}
    assert (assemble._bootstrap, assemble.bca_interval, assemble._interval_scale) == before
    low, high = bench.finish(kept, *bench.shipped(kept))
    cell = ds.sel(label=iaf.ALL, annotator=iaf.ALL)
    for c, name in enumerate(bench.COMPONENTS):
        got = cell.sel(component=name)
        np.testing.assert_array_equal([low[c, 0], high[c, 0]], [got.ci_low, got.ci_high])
    assert np.isfinite(kept["var_u"][:, 0, 0]).all()  # every replicate's own variance
    for name, interval in bench.CANDIDATES.items():
        lo, hi = bench.finish(kept, *interval(kept))
        shown = np.isfinite(low)
        assert (np.isfinite(lo) == shown).all() and (np.isfinite(hi) == shown).all(), name
        assert (lo[shown] <= kept["est"][shown]).all(), name
        assert (kept["est"][shown] <= hi[shown]).all(), name
    res = bench.evaluate([kept | {"truth": {c: 0.5 for c in bench.COMPONENTS}}], ["shipped"])
    assert res[("detection", "(all)")]["shipped"]["n"] == 1


bench_targets = load_benchmark("bench_targets")


def _round(wall_1m, cpu_10, cpu_1000, cpu_3, cpu_30, ours, peer):
    return {
        "1M boxes": {"wall": wall_1m, "cpu": 2 * wall_1m, "peak_mb": 1900, "boxes": 10**6},
        "10/img": {"wall": cpu_10, "cpu": cpu_10, "boxes": 90_000},
        "1000/img": {"wall": cpu_1000, "cpu": cpu_1000, "boxes": 90_000},
        "3 ann": {"wall": cpu_3, "cpu": cpu_3},
        "30 ann": {"wall": cpu_30, "cpu": cpu_30},
        "ours_polygons": {"wall": ours, "cpu": ours},
        "kalphacv": {"wall": peer, "cpu": peer},
    }


def test_the_targets_are_read_from_the_medians_of_the_rounds():
    """One slow round does not decide: the medians do, and each round is shown."""
    rounds = [
        _round(7.5, 2.0, 3.8, 0.5, 0.9, 1.0, 6.5),
        _round(9.9, 2.0, 4.4, 0.5, 1.2, 1.5, 6.0),  # a slow phase
        _round(7.7, 2.1, 3.9, 0.5, 0.95, 1.05, 6.6),
    ]
    by = {t["target"]: t for t in bench_targets.summarize(rounds)}
    wall = by["1M boxes: wall"]
    assert wall["value"] == 7.7 and wall["met"] and wall["rounds"] == [7.5, 9.9, 7.7]
    assert by["CPU per box, 1000/img over 10/img"]["value"] == pytest.approx(3.9 / 2.0)
    assert by["30 ann over 3 ann: cpu"]["value"] == pytest.approx(0.95 / 0.5)
    lvis = by["LVIS: kalphacv CPU over ours"]
    assert lvis["value"] == pytest.approx(6.5 / 1.05) and lvis["met"]
    assert lvis["rounds"] == pytest.approx([6.5, 4.0, 6.6 / 1.05])
    assert by["30 ann over 3 ann: wall (shown)"]["met"] is None  # shown, no verdict
    assert "NOT met" not in bench_targets.report(list(by.values()))


def test_a_missed_target_and_a_skipped_run_are_reported_as_such():
    rounds = [_round(8.4, 2.0, 4.2, 0.5, 1.1, 1.3, 6.5) for _ in range(2)]
    for r in rounds:
        del r["kalphacv"]  # no peer: no LVIS verdict
    by = {t["target"]: t for t in bench_targets.summarize(rounds)}
    assert by["1M boxes: wall"]["met"] is False
    assert by["CPU per box, 1000/img over 10/img"]["met"] is False
    assert by["30 ann over 3 ann: cpu"]["met"] is False
    assert by["LVIS: kalphacv CPU over ours"]["value"] is None
    assert by["LVIS: kalphacv CPU over ours"]["met"] is None
    text = bench_targets.report(list(by.values()))
    assert text.count("NOT met") == 3 and "n/a" in text
