"""iaa_frames.agreement on a dask DataFrame equals the in-memory result.

The reference is always the in-memory engine on ``ddf.compute()`` with the same
parameters and seed; the comparison is per variable, to 1e-12 (the implementation is in
fact bitwise equal), with the pair tables compared exactly.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely
import xarray as xr
from helpers import TABLES
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_frames as iaf
from iaa_frames.errors import (
    InvalidAnnotationError,
    NotComparableError,
    ParameterError,
    RepairedGeometryWarning,
    SchemaError,
)

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two workers (threads, so that the test stays fast)."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def corpora():
    # 150 box items: more chance pairings than are enumerated, so the chance sample is
    # drawn (strata, seeds); 90 polygon items with 3 annotators: sampled as well
    return {
        "box": iaf.simulate(n_items=150, seed=3),
        "polygon": iaf.simulate(n_items=90, kind="polygon", seed=5),
    }


def split_items(df, npartitions):
    """dask's own partitioning by rows: an item's rows may fall in two partitions."""
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_pandas(df, npartitions=npartitions, sort=False)


def assert_same_result(got: xr.Dataset, want: xr.Dataset):
    assert got.attrs == want.attrs
    assert list(got.data_vars) == list(want.data_vars)
    for dim in want.dims:
        assert got[dim].values.tolist() == want[dim].values.tolist()
    for name, var in want.data_vars.items():
        a, b = got[name].values, var.values
        if np.issubdtype(b.dtype, np.number):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, equal_nan=True, err_msg=name)
        else:
            assert (a == b).all(), name
        assert got[name].attrs == var.attrs


@pytest.mark.parametrize("npartitions", [1, 3, 8])
@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_agreement_equals_in_memory_on_a_cluster(client, corpora, kind, npartitions):
    df = corpora[kind]
    ddf = split_items(df, npartitions)
    params = {"n_chance": 300, "n_boot": 30, "seed": 7}
    got = iaf.agreement(ddf, **params)
    want = iaf.agreement(ddf.compute(), **params)
    assert want.attrs["chance_population"] == "sampled"
    assert_same_result(got, want)
    # and the figures are real: localization of good annotators is well above chance
    loc = got["agreement"].sel(component="localization", label="(all)", annotator="(all)")
    assert float(loc) > 0.3


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_pair_tables_are_identical(client, corpora, kind):
    df = corpora[kind]
    ddf = split_items(df, 3)
    got = iaf.dask.pair_tables(ddf, n_chance=300, seed=1)
    want = iaf.pair_tables(ddf.compute(), n_chance=300, seed=1)
    for name in TABLES:
        pd.testing.assert_frame_equal(
            getattr(got, name), getattr(want, name), check_exact=True, obj=name
        )
    np.testing.assert_array_equal(got.label_source, want.label_source)
    assert got.params == want.params
    c, w = got.corpus, want.corpus
    for attr in ("item", "annotator", "label", "area"):
        np.testing.assert_array_equal(getattr(c, attr), getattr(w, attr))
    np.testing.assert_array_equal(c.shapes.boxes, w.shapes.boxes)
    assert list(c.items) == list(w.items) and list(c.labels) == list(w.labels)
    # the driver's index holds no polygon: they stay with the partitions
    assert c.shapes.polygons is None
    assert c.shapes.is_polygon.sum() == w.shapes.is_polygon.sum()


@pytest.mark.slow
def test_worker_processes(corpora):
    """Worker processes: codes, distances and polygons cross process boundaries."""
    df = corpora["polygon"].iloc[:600]
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        ddf = split_items(df, 3)
        got = iaf.agreement(ddf, n_chance=200, n_boot=20, distance="iou")
        # the KS tests' replicates are released on every worker once the tests are done
        assert set(client.run(_draws_kept).values()) == {0}
    assert_same_result(got, iaf.agreement(df, n_chance=200, n_boot=20, distance="iou"))


def tied_corpus():
    """Items that differ only by their classes, and twin annotators.

    Every object is the same box, so the fingerprints of items differ only by the class
    term (0.000731 x the share of the class), which orders them against their names
    ("a" is the most common class, "c", "d" and "e" the rarest); "c", "d" and "e" are
    equally common, so those items tie and the tie goes by class name, against the item
    names ("q7" < "q6" < "q5" by class). Annotators x and y draw the same.
    """
    labels = {
        "i0": "a",
        "i1": "a",
        "i2": "a",
        "i3": "b",
        "i4": "b",
        "q7": "c",
        "q6": "d",
        "q5": "e",
    }
    rows = [
        {
            "item": item,
            "annotator": ann,
            "label": label,
            "x0": 10,
            "y0": 10,
            "x1": 50,
            "y1": 50,
            "width": 100,
            "height": 100,
        }
        for item, label in labels.items()
        for ann in ("x", "y")
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("npartitions", [1, 3, 8])
def test_codes_of_tied_items_and_annotators(npartitions):
    df = tied_corpus()
    with dask.config.set(scheduler="synchronous"):
        got = iaf.dask.pair_tables(split_items(df, npartitions), n_chance=300, seed=2)
    want = iaf.pair_tables(df, n_chance=300, seed=2)
    assert list(want.corpus.items) == ["q7", "q6", "q5", "i3", "i4", "i0", "i1", "i2"]
    assert list(got.corpus.items) == list(want.corpus.items)
    assert list(got.corpus.annotators) == list(want.corpus.annotators)
    for name in TABLES:
        pd.testing.assert_frame_equal(
            getattr(got, name), getattr(want, name), check_exact=True, obj=name
        )


def test_parquet_partitions_need_no_shuffle(client, corpora, tmp_path):
    df = corpora["polygon"]
    path = iaf.to_parquet(df, tmp_path, rows_per_file=400)
    ddf = iaf.dask.read_parquet(path)
    assert ddf.npartitions >= 3
    graph = ddf.__dask_graph__()
    assert not any("shuffle" in str(k) for k in graph)
    params = {
        "distance": "iou",
        "match_threshold": 0.3,
        "overall": "per_direction",
        "n_chance": 200,
        "n_boot": 0,
        "seed": 11,
    }
    assert_same_result(
        iaf.agreement(ddf, **params), iaf.agreement(iaf.read_parquet(path), **params)
    )


def test_whole_items_per_partition(corpora):
    ddf = iaf.dask.from_pandas(corpora["polygon"], npartitions=4)
    parts = [ddf.get_partition(k).compute() for k in range(ddf.npartitions)]
    items = [set(p["item"]) for p in parts]
    assert sum(len(s) for s in items) == len(set().union(*items))  # disjoint
    assert isinstance(parts[0]["geometry"].dropna().iloc[0], shapely.Polygon)


@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
def test_local_schedulers(corpora, scheduler):
    df = corpora["polygon"]
    ddf = split_items(df, 3)
    params = {"n_chance": 300, "n_boot": 20, "seed": 0}
    with dask.config.set(scheduler=scheduler):  # not the cluster of the other tests
        got = iaf.agreement(ddf, **params)
    assert_same_result(got, iaf.agreement(df, **params))


def test_accessor_free_dispatch_and_report(client, corpora, tmp_path):
    """iaf.agreement dispatches on the frame type; iaf.report takes the result."""
    df = corpora["box"]
    ds = iaf.agreement(iaf.dask.from_pandas(df, npartitions=2), n_chance=300, n_boot=0)
    page = iaf.report(ds, tmp_path / "r")
    text = page.read_text()
    assert page.name == "report.html" and "detection" in text
    assert (tmp_path / "r" / "agreement.nc").exists()
    assert_same_result(xr.open_dataset(tmp_path / "r" / "agreement.nc").load(), ds)


def test_report_of_a_dask_frame_asks_for_its_result(tmp_path):
    ddf = iaf.dask.from_pandas(iaf.simulate(n_items=6, seed=0), npartitions=2)
    with pytest.raises(ParameterError, match=r"iaf\.report\(ds, path\)"):
        iaf.report(ddf, tmp_path)


def test_empty_partitions_are_harmless(corpora):
    ddf = split_items(corpora["box"], 3)
    first = ddf.get_partition(0)
    empty = first[first["x0"] < -1]  # no row (coverage rows have NaN x0)
    with_empty = dd.concat([empty, ddf, empty])
    assert with_empty.npartitions == 5
    params = {"n_chance": 200, "n_boot": 0}
    assert_same_result(
        iaf.agreement(with_empty, **params), iaf.agreement(with_empty.compute(), **params)
    )


def test_text_geometry_is_a_clear_error(corpora):
    ddf = dd.from_pandas(corpora["polygon"], npartitions=2)  # dask turns objects to text
    with pytest.raises(SchemaError, match="convert-string"):
        iaf.agreement(ddf, n_boot=0)


def test_wkb_geometry_read_by_dask_itself_is_a_clear_error(tmp_path):
    path = iaf.to_parquet(
        iaf.simulate(n_items=8, kind="polygon", seed=0), tmp_path, rows_per_file=50
    )
    with pytest.raises(SchemaError, match=r"iaa_frames\.dask\.read_parquet"):
        iaf.agreement(dd.read_parquet(str(path)), n_boot=0)


def test_invalid_rows_raise_as_in_memory():
    df = iaf.simulate(n_items=10, seed=0)
    df.loc[df.index[3], "x1"] = -5.0  # inverted box
    with pytest.raises(InvalidAnnotationError, match="inverted"):
        iaf.agreement(iaf.dask.from_pandas(df, npartitions=2), n_boot=0)


def test_object_ids_repeated_across_partitions_raise():
    df = iaf.simulate(n_items=10, seed=0)
    ddf = iaf.dask.from_pandas(df, npartitions=2)
    assert iaf.agreement(ddf, n_chance=50, n_boot=0) is not None  # unique ids: fine
    first = df["item"] == df["item"].iloc[0]
    last = df["item"] == df["item"].iloc[-1]
    obj = df["label"].notna()
    df.loc[(last & obj).to_numpy().nonzero()[0][0], "object_id"] = df.loc[
        first & obj, "object_id"
    ].iloc[0]  # same id in the first and last item
    with pytest.raises(InvalidAnnotationError, match="object_id"):
        iaf.agreement(df, n_boot=0)  # as in memory
    with pytest.raises(InvalidAnnotationError, match="duplicate_object_id"):
        iaf.agreement(iaf.dask.from_pandas(df, npartitions=2), n_boot=0)


def test_one_annotator_is_not_comparable():
    df = iaf.simulate(n_items=5, annotators={"solo": "good"}, seed=0)
    with pytest.raises(NotComparableError, match="two annotators"):
        iaf.agreement(iaf.dask.from_pandas(df, npartitions=2), n_boot=0)


def test_not_a_dask_frame():
    with pytest.raises(ParameterError, match="dask DataFrame"):
        iaf.dask.pair_tables(pd.DataFrame({"item": [1]}))
    s = dd.from_pandas(pd.Series([1, 2]), npartitions=1)
    with pytest.raises(ParameterError, match="dask DataFrame"):
        iaf.agreement(s)


def test_bad_parameters_raise_before_any_work():
    ddf = iaf.dask.from_pandas(iaf.simulate(n_items=4, seed=0), npartitions=2)
    with pytest.raises(ParameterError, match="match_threshold"):
        iaf.agreement(ddf, match_threshold=2)
    with pytest.raises(ParameterError, match="npartitions"):
        iaf.dask.from_pandas(pd.DataFrame({"item": []}), npartitions=0)


def test_repaired_polygons_warn_once():
    bowtie = shapely.Polygon([(0, 0), (10, 10), (10, 0), (0, 10)])  # self-intersecting
    rows = []
    # 12 items: enough matched chance pairs that no aligned unit is drawn (the dask driver
    # draws none for polygons; docs/user-guide/dask.md)
    for item in range(12):
        for ann in ("x", "y"):
            rows.append(
                {
                    "item": item,
                    "annotator": ann,
                    "label": "c",
                    "geometry": bowtie if item < 2 else shapely.box(0, 0, 5, 5 + item),
                }
            )
    df = pd.DataFrame(rows)
    # synchronous: warnings.catch_warnings is not thread-safe, and the module's cluster
    # runs workers as threads that validate partitions (and silence their warnings)
    with warnings.catch_warnings(record=True) as caught, dask.config.set(scheduler="synchronous"):
        warnings.simplefilter("always")
        ds = iaf.agreement(iaf.dask.from_pandas(df, npartitions=3), n_chance=50, n_boot=0)
    repaired = [w for w in caught if issubclass(w.category, RepairedGeometryWarning)]
    assert len(repaired) == 1 and "repaired 4 invalid polygon" in str(repaired[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RepairedGeometryWarning)
        assert_same_result(ds, iaf.agreement(df, n_chance=50, n_boot=0))


def test_progress_bars(corpora, capsys):
    ddf = iaf.dask.from_pandas(corpora["box"].iloc[:400], npartitions=2)
    iaf.agreement(ddf, n_chance=100, n_boot=0, progress=True)
    err = capsys.readouterr().err
    assert "validating" in err and "matching" in err
    assert "KS tests, localization" in err


def test_threshold_sweep_equals_in_memory(client, corpora):
    ddf = split_items(corpora["box"], 3)
    params = {"n_chance": 300, "n_boot": 20, "seed": 2}
    got = iaf.agreement(ddf, match_threshold=[0.7, 0.3], **params)
    want = iaf.agreement(ddf.compute(), match_threshold=[0.3, 0.7], **params)
    assert got["threshold"].values.tolist() == [0.3, 0.7]
    assert_same_result(got, want)
    with pytest.raises(ParameterError, match="match_threshold"):
        iaf.agreement(ddf, match_threshold=[0.3, 2.0])


# ------------------------------------------------- statistics from per-partition sums


def lvis_shaped(n_items=120, n_classes=60, seed=0):
    """A long tail of classes: the rare ones borrow pooled chance units."""
    weights = 1.0 / np.arange(1, n_classes + 1) ** 1.1
    return iaf.simulate(
        n_items=n_items,
        classes=[f"class_{c:03d}" for c in range(n_classes)],
        class_weights=weights,
        seed=seed,
    )


def test_pooled_classes_equal_in_memory(client):
    df = lvis_shaped()
    params = {"n_chance": 300, "n_boot": 20, "seed": 3}
    want = iaf.agreement(df, **params)
    source = want["chance_source"].sel(component="localization").values
    assert (source == "pooled").sum() >= 10  # the pooled baseline is what is tested
    assert_same_result(iaf.agreement(split_items(df, 3), **params), want)


def test_ks_tests_in_groups_of_cells_on_the_cluster(client, corpora, monkeypatch):
    """Many small groups of cells, tested on the workers: the same figures (the KS
    statistic of a group after the first differs by rounding only)."""
    from iaa_frames.dask import ks

    monkeypatch.setattr(ks, "CHUNK_ENTRIES", 150)
    df = corpora["box"]
    params = {"n_chance": 300, "n_boot": 0, "seed": 2}
    got = iaf.agreement(split_items(df, 3), **params)
    assert_same_result(got, iaf.agreement(df, **params))


def _draws_kept():
    """How many tables of multiplicities this process keeps (run on a worker too)."""
    from iaa_frames.dask import draws

    return len(draws._DRAWS)


def test_groups_of_cells_draw_their_replicates_once(client, corpora, monkeypatch):
    """Every group of cells of every component tests on one draw of the replicates'
    multiplicities (drawn per group, they cost groups x items: the square of the corpus),
    released when the tests are done; the figures are those of the engine."""
    from iaa_frames.dask import ks
    from iaa_frames.stats import kstest

    calls = []
    original = kstest.multiplicity_blocks
    monkeypatch.setattr(
        kstest, "multiplicity_blocks", lambda *a, **k: calls.append(a[0]) or original(*a, **k)
    )
    monkeypatch.setattr(ks, "CHUNK_ENTRIES", 150)
    df = corpora["box"]
    params = {"n_chance": 300, "n_boot": 0, "seed": 2}
    got = iaf.agreement(split_items(df, 3), **params)
    # two draws for every group of the 3 components: the engine's on the driver (shared
    # by the groups run there, none here) and the workers' (one process: one draw)
    assert calls == [df["item"].nunique()] * 2
    assert _draws_kept() == 0 and set(client.run(_draws_kept).values()) == {0}
    assert_same_result(got, iaf.agreement(df, **params))


def engine_and_sampled_cells(tables, chunk_entries):
    """The localization cells of the engine and the same with a WithinSample."""
    from iaa_frames.core.engine import CellLayout, component_cells
    from iaa_frames.dask.ks import SampledSigmaCells, WithinSample

    layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    cells = component_cells(tables, layout, "localization")
    w = tables.localization_within
    la, lb = w["label_a"].to_numpy(), w["label_b"].to_numpy()
    order = np.random.default_rng(0).permutation(len(w))  # any row order
    sample = WithinSample(
        w["item"].to_numpy()[order],
        w["annotator_a"].to_numpy()[order],
        w["annotator_b"].to_numpy()[order],
        np.where(la == lb, la, -1)[order],
        n_annotators=layout.n_annotators,
        n_labels=layout.n_labels,
        all_rows=True,
    )
    fields = {f: getattr(cells, f) for f in cells.__dataclass_fields__}
    sampled = SampledSigmaCells(
        **fields,
        sample=sample,
        sample_distance=w["distance"].to_numpy()[order],
        chunk_entries=chunk_entries,
    )
    n_units, n_chance = cells.counts()
    return cells, sampled, np.flatnonzero((n_units >= 2) & (n_chance >= 10))


def test_grouped_ks_tests_equal_the_engine():
    tables = iaf.pair_tables(lvis_shaped(n_items=80, n_classes=20, seed=4), n_chance=300)
    cells, sampled, tested = engine_and_sampled_cells(tables, chunk_entries=10**9)
    assert len(tested) >= 20
    want = cells.tests(tested, seed=5)
    # one group: bitwise, whatever the order of the rows
    np.testing.assert_array_equal(sampled.tests(tested, seed=5), want)
    # groups of a few cells: the same to rounding, the same signs
    cells, sampled, tested = engine_and_sampled_cells(tables, chunk_entries=40)
    assert len(sampled.sample.chunks(tested, 40)) >= 10
    got = sampled.tests(tested, seed=5)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(got[1], want[1])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 60),
    st.integers(2, 6),
    st.integers(1, 4),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_within_sample_rows_are_the_engine_cells(n, n_ann, n_lab, localization, seed):
    """Rows of every cell, and cell sizes, as the engine's rows x cells membership; every
    cell's rows ascending (in order of distance: the tests merge them, never sort)."""
    from iaa_frames.core.engine import CellLayout
    from iaa_frames.dask.ks import WithinSample

    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_ann - 1, n)
    b = a + rng.integers(1, n_ann - a)  # a < b, as within pairings
    label = rng.integers(-1, n_lab, n)
    layout = CellLayout(n_lab, n_ann)
    label_cells = (
        np.column_stack([np.zeros(n, np.int64), np.where(label >= 0, 1 + label, -1)])
        if localization
        else (1 + label)[:, None]
    )
    member = layout.membership(label_cells, layout.groups(a, b)).tocsc()
    s = WithinSample(
        np.zeros(n, np.int32),
        a.astype(np.int8),
        b.astype(np.int8),
        label.astype(np.int8),
        n_annotators=n_ann,
        n_labels=n_lab,
        all_rows=localization,
    )
    np.testing.assert_array_equal(s.cell_size, np.diff(member.indptr))
    cells = np.flatnonzero(s.cell_size)
    rows, count = s.rows(cells)
    got = np.split(rows, np.cumsum(count)[:-1])
    for c, r in zip(cells, got):
        assert r.tolist() == sorted(member.indices[member.indptr[c] : member.indptr[c + 1]])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=80), st.integers(0, 20))
def test_distinct_rows_index_every_entry(rows, extra):
    from iaa_frames.dask.ks import distinct_rows

    rows = np.asarray(rows, dtype=np.int32)
    n_rows = int(rows.max(initial=-1)) + 1 + extra
    distinct, at = distinct_rows(rows, n_rows)
    assert distinct.tolist() == sorted(set(rows.tolist()))
    np.testing.assert_array_equal(distinct[at], rows)
    assert at.dtype == np.int32


def _grouped(df, size):
    """``df`` with items dealt into groups of ``size`` (by item name)."""
    items = np.sort(df["item"].unique())
    return df.assign(group=df["item"].map(dict(zip(items, np.arange(len(items)) // size))))


@pytest.mark.parametrize("npartitions", [1, 4])
def test_groups_give_the_in_memory_result(client, corpora, npartitions):
    # a group's items fall in several partitions: the driver joins their groups
    df = _grouped(corpora["box"], 4)
    ddf = split_items(df, npartitions)
    params = {"n_chance": 300, "n_boot": 30, "seed": 7}
    want = iaf.agreement(df, **params)
    assert_same_result(iaf.agreement(ddf, **params), want)
    t = iaf.dask.pair_tables(ddf, n_chance=300)
    mem = iaf.pair_tables(df, n_chance=300)
    np.testing.assert_array_equal(t.corpus.group, mem.corpus.group)
    for name in ("sets_between", "localization_between"):
        pd.testing.assert_frame_equal(getattr(t, name), getattr(mem, name))
    g = t.corpus.group
    b = t.sets_between
    assert (g[b["item_a"].to_numpy()] != g[b["item_b"].to_numpy()]).all()
    # and the groups change the result: without them, pairings within groups count
    assert not iaf.agreement(df.drop(columns="group"), **params).equals(want)


def test_an_item_in_two_groups_across_partitions_raises(corpora):
    df = _grouped(corpora["box"], 4)
    first = df["item"].iloc[0]
    rows = np.flatnonzero(df["item"] == first)
    df.loc[df.index[rows[-1]], "group"] = 999  # the item's last row names another group
    ddf = dd.from_pandas(df, npartitions=2, sort=False)
    with pytest.raises(InvalidAnnotationError, match=f"item '{first}'"):
        iaf.agreement(ddf, n_chance=100, n_boot=0)
