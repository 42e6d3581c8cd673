"""read_table: a tidy frame saved as CSV (polygons as WKT) or Parquet (polygons as WKB) reads
back into the frame that was saved, and a broken table is a ReaderError naming the file."""

import importlib.util

import numpy as np
import pandas as pd
import pytest
import shapely

from iaa_frames.errors import DroppedRowsWarning, IAAError, ParameterError, ReaderError
from iaa_frames.io import load_sample, read_table


@pytest.fixture(scope="module")
def frame():
    """Boxes, polygons and coverage rows (the COCO sample: 40 images, 4 annotators)."""
    df = load_sample("coco")
    assert df["geometry"].notna().any() and df["geometry"].isna().any() and df["x0"].isna().any()
    return df


def same_geometry(a, b):
    return all(
        (g is None and h is None) or shapely.to_wkb(g) == shapely.to_wkb(h)
        for g, h in zip(a, b, strict=True)
    )


def test_csv_with_full_precision_wkt_reads_back_exactly(tmp_path, frame):
    path = tmp_path / "frame.csv"
    wkt = [
        None if g is None else shapely.to_wkt(g, rounding_precision=-1) for g in frame["geometry"]
    ]
    frame.assign(geometry=wkt).to_csv(path, index=False)
    back = read_table(path)  # .csv: read as CSV
    assert list(back.columns) == list(frame.columns) and len(back) == len(frame)
    assert same_geometry(back["geometry"], frame["geometry"])
    for col in ("item", "annotator", "label"):
        assert (
            back[col].astype(object).where(back[col].notna(), None).tolist()
            == frame[col].astype(object).where(frame[col].notna(), None).tolist()
        )
    np.testing.assert_allclose(
        back[["x0", "y0", "x1", "y1", "width", "height"]].to_numpy(float),
        frame[["x0", "y0", "x1", "y1", "width", "height"]].to_numpy(float),
        rtol=1e-15,
        atol=0,
    )


def test_parquet_with_wkb_reads_back_the_same_frame(tmp_path, frame):
    pytest.importorskip("pyarrow")
    path = tmp_path / "frame.parquet"
    wkb = [None if g is None else shapely.to_wkb(g) for g in frame["geometry"]]
    frame.assign(geometry=wkb).to_parquet(path, index=False)
    back = read_table(path)  # .parquet: read as Parquet
    assert same_geometry(back["geometry"], frame["geometry"])
    pd.testing.assert_frame_equal(
        back.drop(columns="geometry"), frame.drop(columns="geometry"), check_exact=True
    )
    # the same file under another name, with the format given
    other = tmp_path / "frame.bin"
    other.write_bytes(path.read_bytes())
    assert same_geometry(read_table(other, fmt="parquet")["geometry"], frame["geometry"])


def test_without_geometry_column_every_row_is_a_box_or_coverage(tmp_path, frame):
    path = tmp_path / "boxes.csv"
    frame.drop(columns="geometry").to_csv(path, index=False)
    back = read_table(path, fmt="csv")
    assert back["geometry"].isna().all()
    assert back["x0"].notna().sum() == frame["x0"].notna().sum()


def test_broken_tables_name_the_file(tmp_path, monkeypatch):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ReaderError, match=r"empty\.csv: the file is empty"):
        read_table(empty)
    bad = tmp_path / "bad.csv"
    pd.DataFrame(
        {"item": ["a"], "annotator": ["x"], "label": ["car"], "geometry": ["POLYGON ((0 0, 1"]}
    ).to_csv(bad, index=False)
    with pytest.raises(ReaderError, match=r"bad\.csv: the geometry column is not WKT/WKB"):
        read_table(bad)
    with pytest.raises(ParameterError, match="fmt must be 'csv' or 'parquet'"):
        read_table(bad, fmt="excel")
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pyarrow" else find_spec(name, *a),
    )
    with pytest.raises(ReaderError, match="needs the pyarrow package"):
        read_table(tmp_path / "any.parquet")


def test_invalid_rows_raise_or_drop(tmp_path):
    path = tmp_path / "inverted.csv"
    pd.DataFrame(
        {
            "item": ["a", "a"],
            "annotator": ["x", "y"],
            "label": ["car", "car"],
            "x0": [0.0, 5.0],
            "y0": [0.0, 0.0],
            "x1": [4.0, 1.0],
            "y1": [2.0, 2.0],
        }
    ).to_csv(path, index=False)
    with pytest.raises(IAAError):
        read_table(path)
    with pytest.warns(DroppedRowsWarning):
        kept = read_table(path, on_invalid="drop")
    assert kept["annotator"].tolist() == ["x"]
