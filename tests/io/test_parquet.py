"""The tidy frame on disk: Parquet round trips, partitioning by item, WKB, errors."""

import json

import numpy as np
import pandas as pd
import pytest
import shapely

import iaa_frames as iaf
from iaa_frames.errors import ReaderError
from iaa_frames.io.parquet import item_partitions, parquet_files

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _mixed():
    """Boxes, polygons (one with a hole, one multi-part), coverage rows, extra columns."""
    ring = shapely.Polygon([(0, 0), (40, 0), (40, 40), (0, 40)], [[(10, 10), (20, 10), (20, 20)]])
    multi = shapely.MultiPolygon([shapely.box(50, 50, 60, 60), shapely.box(70, 70, 80, 85)])
    return iaf.from_records(
        [
            {
                "item": "a",
                "annotator": "ana",
                "label": "cat",
                "x0": 1.5,
                "y0": 2,
                "x1": 30,
                "y1": 40,
                "width": 100,
                "height": 80,
                "source": "cvat",
            },
            {
                "item": "a",
                "annotator": "ben",
                "label": "cat",
                "geometry": ring,
                "width": 100,
                "height": 80,
                "source": "coco",
            },
            {"item": "b", "annotator": "ana", "label": "dog", "geometry": multi, "source": "coco"},
            {"item": "b", "annotator": "ben", "source": "cvat"},  # coverage row
            {
                "item": "c",
                "annotator": "ben",
                "label": "dog",
                "x0": 0.1 + 0.2,
                "y0": 1 / 3,
                "x1": 7,
                "y1": 9,
                "source": None,
            },
        ]
    )


def test_round_trip_is_exact(tmp_path):
    df = _mixed()
    back = iaf.read_parquet(iaf.to_parquet(df, tmp_path / "t"))
    pd.testing.assert_frame_equal(back, iaf.validate(df))
    # the coordinates are the same doubles, not a printed approximation
    for g, h in zip(df["geometry"], back["geometry"], strict=True):
        assert (g is None and h is None) or shapely.equals_exact(g, h, tolerance=0)


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_round_trip_of_simulated_corpus(tmp_path, kind):
    df = iaf.simulate(n_items=40, kind=kind, seed=2)
    out = iaf.to_parquet(df, tmp_path, rows_per_file=60)
    back = iaf.read_parquet(out)
    pd.testing.assert_frame_equal(back.sort_index(), iaf.validate(df).sort_index())
    assert iaf.agreement(back, n_chance=200, n_boot=0).identical(
        iaf.agreement(df, n_chance=200, n_boot=0)
    )


def test_every_item_lies_in_one_file(tmp_path):
    df = iaf.simulate(n_items=50, seed=4)
    out = iaf.to_parquet(df, tmp_path, rows_per_file=100)
    files = parquet_files(out)
    assert len(files) > 3
    seen = {}
    for f in files:
        part = pq.read_table(f, columns=["item"]).to_pandas()
        for item in part["item"].unique():
            assert item not in seen, f"{item} in {seen.get(item)} and {f.name}"
            seen[item] = f.name
        # whole items only: a file exceeds the target by less than its last item
        assert len(part) < 100 + df.groupby("item").size().max()
    assert set(seen) == set(df["item"])


def test_item_partitions_keep_items_whole():
    item = pd.Series(list("aabbbcdddde"))
    part = item_partitions(item, 3)
    assert pd.DataFrame({"i": item, "p": part}).groupby("i")["p"].nunique().max() == 1
    assert (np.diff(part[[0, 2, 5, 6, 10]]) >= 0).all()  # first appearance order


def test_geoparquet_metadata_and_wkb_column(tmp_path):
    out = iaf.to_parquet(_mixed(), tmp_path)
    f = parquet_files(out)[0]
    schema = pq.read_schema(f)
    geo = json.loads(schema.metadata[b"geo"])
    assert geo["version"] == "1.0.0" and geo["primary_column"] == "geometry"
    assert geo["columns"]["geometry"]["encoding"] == "WKB"
    assert geo["columns"]["geometry"]["crs"] is None  # pixels, not a geographic CRS
    assert set(geo["columns"]["geometry"]["geometry_types"]) == {"Polygon", "MultiPolygon"}
    assert pa.types.is_binary(schema.field("geometry").type)
    layout = json.loads(schema.metadata[b"iaa_frames"])
    assert layout["partitioned_by"] == "item" and layout["rows"] == 5
    # any Parquet reader gets the polygons back through plain WKB
    raw = pq.read_table(f).column("geometry").to_pylist()
    assert shapely.from_wkb(raw[1]).equals(_mixed()["geometry"].iloc[1])


def test_existing_directory_needs_overwrite(tmp_path):
    df = iaf.simulate(n_items=6, seed=0)
    iaf.to_parquet(df, tmp_path, rows_per_file=10)
    n_before = len(parquet_files(tmp_path))
    with pytest.raises(FileExistsError, match="overwrite=True"):
        iaf.to_parquet(df, tmp_path)
    iaf.to_parquet(df.iloc[:5], tmp_path, overwrite=True)
    assert len(parquet_files(tmp_path)) == 1 < n_before
    assert len(iaf.read_parquet(tmp_path)) == 5


def test_mixed_item_types_are_text(tmp_path):
    # identifiers are text (frame.schema.identifier_column): the item 1 is "1"
    df = pd.DataFrame(
        {
            "item": [1, "b"],
            "annotator": ["x", "y"],
            "label": ["c", "c"],
            "x0": [0, 0],
            "y0": [0, 0],
            "x1": [1, 1],
            "y1": [1, 1],
        }
    )
    back = iaf.read_parquet(iaf.to_parquet(df, tmp_path))
    assert back["item"].tolist() == ["1", "b"]


def test_integer_items_become_text(tmp_path):
    # #41 S7: integer items were kept as integers, so the item 7 of a Parquet corpus and
    # the item "7" of a COCO export were two items
    df = pd.DataFrame(
        {
            "item": [7, 7, 9],
            "annotator": ["x", "y", "x"],
            "label": ["c"] * 3,
            "x0": [0, 1, 2],
            "y0": [0, 0, 0],
            "x1": [5, 5, 5],
            "y1": [5, 5, 5],
        }
    )
    back = iaf.read_parquet(iaf.to_parquet(df, tmp_path))
    assert back["item"].tolist() == ["7", "7", "9"]


def test_invalid_wkb_names_file_and_row(tmp_path):
    table = pa.table(
        {
            "item": ["a", "a"],
            "annotator": ["x", "y"],
            "label": ["c", "c"],
            "x0": [0.0, 0.0],
            "y0": [0.0, 0.0],
            "x1": [1.0, 1.0],
            "y1": [1.0, 1.0],
            "geometry": pa.array([None, b"\x01\x03garbage"], pa.binary()),
        }
    )
    pq.write_table(table, tmp_path / "bad.parquet")
    with pytest.raises(ReaderError, match=r"bad\.parquet: row 1: invalid WKB"):
        iaf.read_parquet(tmp_path)


def test_geometry_must_be_wkb(tmp_path):
    table = pa.table(
        {
            "item": ["a"],
            "annotator": ["x"],
            "label": ["c"],
            "x0": [0.0],
            "y0": [0.0],
            "x1": [1.0],
            "y1": [1.0],
            "geometry": ["POLYGON EMPTY"],
        }
    )
    pq.write_table(table, tmp_path / "text.parquet")
    with pytest.raises(ReaderError, match="WKB bytes"):
        iaf.read_parquet(tmp_path / "text.parquet")


def test_a_stray_value_among_wkb_is_named_by_its_row():
    from iaa_frames.io.parquet import decode_geometry

    wkb = shapely.to_wkb(shapely.box(0, 0, 1, 1))
    frame = pd.DataFrame({"geometry": np.array([wkb, None, bytearray(wkb), "box"], object)})
    with pytest.raises(ReaderError, match="f.parquet: row 3: .* found str"):
        decode_geometry(frame, source="f.parquet")
    back = decode_geometry(frame.iloc[:3], source="f.parquet")["geometry"]
    assert [None if g is None else g.area for g in back] == [1.0, None, 1.0]


def test_missing_or_empty_path(tmp_path):
    with pytest.raises(FileNotFoundError):
        iaf.read_parquet(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match="no Parquet file"):
        iaf.read_parquet(tmp_path)


def test_not_parquet_is_a_reader_error(tmp_path):
    (tmp_path / "x.parquet").write_text("not parquet")
    with pytest.raises(ReaderError, match="x.parquet"):
        iaf.read_parquet(tmp_path)


def test_invalid_rows_are_refused_before_writing(tmp_path):
    df = pd.DataFrame(
        {
            "item": ["a"],
            "annotator": ["x"],
            "label": ["c"],
            "x0": [5.0],
            "y0": [0.0],
            "x1": [1.0],
            "y1": [1.0],
        }
    )
    with pytest.raises(iaf.InvalidAnnotationError):
        iaf.to_parquet(df, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# ------------------------------------------------- #41 T8: output paths, a failed rewrite


def test_t8_output_paths_that_cannot_be_written_name_the_path(tmp_path, monkeypatch):
    from iaa_frames.errors import ParameterError
    from iaa_frames.io import parquet

    df = iaf.simulate(n_items=3, seed=0)
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ParameterError, match="file.txt exists and is not a directory"):
        iaf.to_parquet(df, tmp_path / "file.txt")
    with pytest.raises(
        ParameterError, match=r"file.txt.*cannot write.*a part of the path is a file"
    ):
        iaf.to_parquet(df, tmp_path / "file.txt" / "sub")

    def refused(*args, dir=None, **kwargs):  # a read-only folder (root would write there)
        raise PermissionError(13, "Permission denied", str(dir))

    monkeypatch.setattr(parquet.tempfile, "mkdtemp", refused)
    with pytest.raises(ParameterError, match="ro: cannot write.*no permission"):
        iaf.to_parquet(df, tmp_path / "ro")


def test_t8_a_failed_rewrite_leaves_the_earlier_files_whole(tmp_path, monkeypatch):
    df = iaf.simulate(n_items=6, seed=0)
    iaf.to_parquet(df, tmp_path, rows_per_file=10)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real = pq.write_table
    calls = []

    def full_disk(table, where, **kw):
        calls.append(where)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(where))
        return real(table, where, **kw)

    monkeypatch.setattr(pq, "write_table", full_disk)
    from iaa_frames.errors import ParameterError

    with pytest.raises(ParameterError, match="No space left on device"):
        iaf.to_parquet(df.iloc[:20], tmp_path, rows_per_file=5, overwrite=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    monkeypatch.undo()
    assert len(iaf.read_parquet(tmp_path)) == len(iaf.validate(df))
