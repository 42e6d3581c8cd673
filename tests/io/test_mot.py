"""read_mot: MOTChallenge / CVAT MOT text files, hand-written from the formats' docs
(motchallenge.net/instructions; CVAT's MOT export: frame_id, track_id, x, y, w, h,
"not ignored", class_id, visibility)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.io.mot import read_mot


def _sequence(tmp_path, name="MOT17-02", lines=None, labels=("person", "car")):
    seq = tmp_path / name
    (seq / "gt").mkdir(parents=True)
    (seq / "seqinfo.ini").write_text(
        f"[Sequence]\nname={name}\nimDir=img1\nframeRate=30\nseqLength=4\n"
        "imWidth=1920\nimHeight=1080\nimExt=.jpg\n"
    )
    (seq / "gt" / "labels.txt").write_text("\n".join(labels) + "\n")
    text = lines or (
        "1,1,1363,569,103,241,1,1,0.86014\n"
        "2,1,1362,568,103,241,1,1,0.86173\n"
        "2,2,100,200,50,80,1,2,1\n"
        "3,2,102,200,50,80,0,2,1\n"
    )
    (seq / "gt" / "gt.txt").write_text(text)
    return seq / "gt" / "gt.txt"


def test_gt_with_classes_seqinfo_and_an_ignored_entry(tmp_path):
    path = _sequence(tmp_path)
    with pytest.warns(DroppedRowsWarning, match="1 ignored") as w:
        df = read_mot(path, annotator="ana")
    assert w[0].message.dropped["entry"].tolist() == ["line 4"]
    objects = df[df["x0"].notna()]
    assert objects["item"].tolist() == [
        "MOT17-02/frame_000001",
        "MOT17-02/frame_000002",
        "MOT17-02/frame_000002",
    ]
    assert objects["label"].tolist() == ["person", "person", "car"]
    np.testing.assert_allclose(objects[["x0", "y0", "x1", "y1"]].iloc[0], [1363, 569, 1466, 810])
    assert objects["track_id"].tolist() == [1, 1, 2]
    assert objects["visibility"].iloc[0] == pytest.approx(0.86014)
    assert (df["group"] == "MOT17-02").all() and (df["width"] == 1920).all()
    # frames 3 (its only entry ignored) and 4 (seqLength) are covered and empty
    assert sorted(df.loc[df["x0"].isna(), "frame"]) == [3, 4]
    kept = read_mot(path, annotator="ana", ignored="keep")
    assert int(kept["x0"].notna().sum()) == 4


def test_results_file_without_classes(tmp_path):
    p = tmp_path / "MOT16-04.txt"
    p.write_text("1, 3, 10.5, 20, 30, 40, 0.9, -1, -1, -1\n2, 3, 11, 20, 30, 40, 0.8, -1, -1, -1\n")
    df = read_mot(p, annotator="tracker", label="person")
    assert (df["group"] == "MOT16-04").all() and (df["label"] == "person").all()
    assert df["x1"].tolist() == [40.5, 41.0] and np.isnan(df["width"]).all()


@pytest.mark.parametrize(
    "text, match",
    [
        ("1,1,10,20,30\n", "at least 6"),
        ("1,1,10,twenty,30,40\n", "line 1: frame, id and the box must be numbers"),
        ("0,1,10,20,30,40\n", "line 1: .*integer >= 1"),
        ("1,1,10,20,30,40\n2,1,10,20,0,40\n", "line 2: the shape has zero area"),
    ],
)
def test_broken_lines_name_the_line(tmp_path, text, match):
    p = tmp_path / "s.txt"
    p.write_text(text)
    with pytest.raises(ReaderError, match=match):
        read_mot(p, annotator="a")


def test_unknown_class_id(tmp_path):
    path = _sequence(tmp_path, lines="1,1,10,20,30,40,1,3,1\n")
    with pytest.raises(ReaderError, match="line 1: class id '3' is not one of 1..2"):
        read_mot(path, annotator="a")


def _write_mot(df, annotator, path):
    o = df[(df["annotator"] == annotator) & df["x0"].notna()]
    rows = np.c_[
        o["frame"] + 1, o["track_id"], o["x0"], o["y0"], o["x1"] - o["x0"], o["y1"] - o["y0"]
    ]
    np.savetxt(
        path, np.c_[rows, np.ones(len(o)), -np.ones((len(o), 3))], delimiter=",", fmt="%.17g"
    )


def test_round_trip_gives_the_same_track_agreement(tmp_path):
    sim = iaf.simulate_tracks(
        n_sequences=1,
        n_frames=20,
        seed=4,
        classes=("object",),
        annotators={"A": {"jitter": 0.05, "miss": 0.1}, "B": {"jitter": 0.05, "swaps": 1}},
    )
    sim = sim.assign(width=np.nan, height=np.nan)
    for a in ("A", "B"):
        _write_mot(sim, a, tmp_path / f"{a}.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_mot({a: tmp_path / f"{a}.txt" for a in "AB"}, sequence="seq000")
    got = iaf.track_figures(df, n_chance=50)
    want = iaf.track_figures(sim, n_chance=50)
    cols = ["idf1", "id_switches", "fragmentations", "matched"]
    np.testing.assert_allclose(got[cols].to_numpy(), want[cols].to_numpy())


# ------------------------------------ #41 T2: seqinfo.ini values, encodings: clear errors


@pytest.mark.parametrize(
    "line, match",
    [
        ("imWidth=abc", r"seqinfo.ini: imWidth: 'abc' is not an image size"),
        ("imWidth=-5", r"seqinfo.ini: imWidth: '-5' is not an image size"),
        ("imHeight=1_0", r"seqinfo.ini: imHeight: '1_0' is not an image size"),
        ("imHeight=inf", r"seqinfo.ini: imHeight: 'inf'"),
        ("seqLength=4%", r"seqinfo.ini: seqLength: '4%' is not a number of frames"),
        ("seqLength", r"seqinfo.ini: not a valid seqinfo.ini"),
    ],
)
def test_t2_bad_seqinfo_values_name_the_file_and_key(tmp_path, line, match):
    path = _sequence(tmp_path)
    ini = path.parent.parent / "seqinfo.ini"
    key = line.split("=")[0]
    kept = [x for x in ini.read_text().splitlines() if not x.startswith(key + "=")]
    ini.write_text("\n".join([*kept, line]) + "\n")
    with pytest.raises(ReaderError, match=match):
        read_mot(path, annotator="ana")


def test_t2_a_percent_in_seqinfo_is_text(tmp_path):
    path = _sequence(tmp_path)
    ini = path.parent.parent / "seqinfo.ini"
    ini.write_text(ini.read_text().replace("name=MOT17-02", "name=walk 50%"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedRowsWarning)
        df = read_mot(path, annotator="ana")
    assert set(df["group"]) == {"walk 50%"}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "utf-32"])
def test_t2_a_byte_order_mark_is_read_as_it_says(tmp_path, encoding):
    path = _sequence(tmp_path)
    clean = read_mot(path, annotator="ana", return_dropped=True)[0]
    for f in (path, path.parent / "labels.txt", path.parent.parent / "seqinfo.ini"):
        f.write_bytes(f.read_text().encode(encoding))
    df = read_mot(path, annotator="ana", return_dropped=True)[0]
    pd.testing.assert_frame_equal(df, clean)


@pytest.mark.parametrize(
    "which, data, match",
    [
        ("gt", "1,1,10,20,30,40,1,1,1\n".encode("utf-16-le"), "NUL bytes"),
        ("gt", "1,1,10,20,30,40,1,1,1\n1,2,1\xe9,2,3,4,1,1,1\n".encode("latin-1"), "not UTF-8"),
        ("ini", "[Sequence]\nname=caf\xe9\n".encode("latin-1"), r"seqinfo.ini: not UTF-8"),
        ("labels", "person\ncaf\xe9\n".encode("latin-1"), r"labels.txt: not UTF-8"),
    ],
)
def test_t2_other_encodings_are_reader_errors(tmp_path, which, data, match):
    path = _sequence(tmp_path)
    target = {
        "gt": path,
        "ini": path.parent.parent / "seqinfo.ini",
        "labels": path.parent / "labels.txt",
    }[which]
    target.write_bytes(data)
    with pytest.raises(ReaderError, match=match):
        read_mot(path, annotator="ana")


def test_t2_a_missing_labels_file_is_a_reader_error(tmp_path):
    path = _sequence(tmp_path)
    with pytest.raises(ReaderError, match="nope.txt: no such labels file"):
        read_mot(path, annotator="ana", labels=tmp_path / "nope.txt")
