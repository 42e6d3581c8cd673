"""Every reader gives, on the bundled samples, exactly the frame recorded in
``tests/fixtures/reader_frames/``: same columns, dtypes, row order, values to the last bit
(floats compared through ``repr``, polygons through a digest of their WKB) and ``attrs``.

The recorded frames were written by :func:`record` with the readers as they stood before
the io package was split into modules (issue #12), so this test shows that the split changed
no output. When a reader's output changes on purpose, record again
(``python tests/io/test_reference_frames.py``) and say why in the commit.
"""

import hashlib
import json
import warnings
from pathlib import Path

import pytest
import shapely

from iaa_frames.io import SAMPLES, load_sample
from iaa_frames.io.table import read_table

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

RECORDED = Path(__file__).parents[1] / "fixtures" / "reader_frames"
CORPUS_CSV = Path(__file__).resolve().parents[2] / "iaa_frames" / "samples" / "corpus.csv"
#: name -> how the frame is read: every packaged sample, and the CSV table reader
FRAMES = {
    **{name: (lambda name=name: load_sample(name)) for name in SAMPLES},
    "corpus_csv": lambda: read_table(CORPUS_CSV, fmt="csv"),
}


def as_text(df) -> dict:
    """Each column of ``df`` as a list of exact texts: ``repr`` of every value (``repr``
    of a float gives back the same double, and tells 1, 1.0, '1', None, nan and <NA>
    apart); a polygon as the SHA-256 of its WKB (equal digests: the same coordinates, bit
    for bit; the bounds x0..y1 are kept as numbers), None where there is none."""
    out = {}
    for name in df.columns:
        if name == "geometry":
            out[name] = [
                None if g is None else hashlib.sha256(shapely.to_wkb(g)).hexdigest()[:32]
                for g in df[name]
            ]
        else:
            out[name] = [repr(v) for v in df[name].tolist()]
    return out


def metadata(df) -> dict:
    return {
        "dtypes": {str(k): str(v) for k, v in df.dtypes.items()},
        "attrs": json.loads(json.dumps(df.attrs, default=str)),
    }


def read(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a sample reads with nothing skipped or repaired
        return FRAMES[name]()


def record(names=FRAMES) -> None:
    """Write the recorded frame of every name (text columns, dtypes and attrs as metadata)."""
    RECORDED.mkdir(parents=True, exist_ok=True)
    for name in names:
        df = read(name)
        table = pa.table({k: pa.array(v, type=pa.string()) for k, v in as_text(df).items()})
        meta = {b"iaa_frames_test": json.dumps(metadata(df)).encode()}
        pq.write_table(
            table.replace_schema_metadata(meta),
            RECORDED / f"{name}.parquet",
            compression="zstd",
            compression_level=19,
            write_statistics=False,
            use_dictionary=False,
        )


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_reader_gives_the_recorded_frame(name):
    df = read(name)
    table = pq.read_table(RECORDED / f"{name}.parquet")
    want = json.loads(table.schema.metadata[b"iaa_frames_test"])
    assert metadata(df) == want
    got = as_text(df)
    assert list(got) == table.column_names
    for column, values in got.items():
        recorded = table.column(column).to_pylist()
        assert len(values) == len(recorded), column
        bad = [i for i, (a, b) in enumerate(zip(values, recorded, strict=True)) if a != b]
        assert not bad, (
            f"{name}: column {column!r} differs in {len(bad)} row(s), first row "
            f"{bad[0]}: {values[bad[0]]!r} (recorded {recorded[bad[0]]!r})"
        )


if __name__ == "__main__":
    record()
