"""A path passed where a frame is expected, or a directory passed to a reader of files:
the error names the reader call that reads it, and that call works (each test runs the
call the message suggests)."""

import pathlib
import re
import shutil
import warnings

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ReaderError, SchemaError
from iaa_frames.io.formats import read_hint, reader_for
from iaa_frames.io.samples import sample_path


def _follow(message: str):
    """Run the reader call ``iaf.read_...(...)`` the message suggests; its frame."""
    m = re.search(r"(iaf\.read_\w+\(.*\))(?:, then pass df)?$", message)
    assert m is not None, message
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = eval(m.group(1), {"iaf": iaf, "pathlib": pathlib})  # the suggested call
    assert isinstance(out, pd.DataFrame)
    return out


def _copy(name, tmp_path):
    src = sample_path(name)
    dst = tmp_path / src.name
    (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    return dst


@pytest.mark.parametrize(
    ("sample", "reader"),
    [
        ("coco", "read_coco"),  # a directory of COCO files, one per annotator
        ("cvat", "read_cvat"),  # a directory of CVAT jobs
        ("labelstudio", "read_labelstudio"),  # one file
        ("voc", "read_voc"),  # a directory per annotator
        ("darwin", "read_darwin"),
    ],
)
def test_a_path_for_a_frame_names_the_reader_and_it_reads(sample, reader, tmp_path):
    # issue #42 item 5: iaf.agreement("ann.json") said "expected a pandas DataFrame, got str"
    path = _copy(sample, tmp_path)
    with pytest.raises(SchemaError) as info:
        iaf.agreement(str(path))
    text = str(info.value)
    assert f"got a path (str) {str(path)!r}" in text and f"df = iaf.{reader}(" in text
    df = _follow(text)
    res = iaf.agreement(df, n_chance=20, n_boot=0)  # the remedy followed: it runs
    assert "localization" in res["component"].values.tolist()
    with pytest.raises(SchemaError, match=f"iaf.{reader}"):
        iaf.validate(pathlib.Path(path))  # a Path too, and every function that validates


def test_a_path_of_no_known_format_lists_the_readers(tmp_path):
    with pytest.raises(SchemaError) as info:
        iaf.agreement(str(tmp_path / "nothing.json"))
    text = str(info.value)
    assert "no such file" in text and "iaf.read_coco, iaf.read_cvat" in text
    notes = tmp_path / "notes.md"
    notes.write_text("# notes")
    assert reader_for(notes) is None and "with the reader of its format" in read_hint(notes)


def test_a_directory_to_read_coco_names_its_json_files(tmp_path):
    coco = _copy("coco", tmp_path)
    (coco / "tasks.json").write_text('[{"data": {"image": "a.jpg"}}]')  # not COCO: left out
    with pytest.raises(ReaderError) as info:
        iaf.read_coco(coco)
    text = str(info.value)
    assert "is a directory; read_coco reads files" in text
    assert "4 .json file(s) (ana.json, ben.json, chloe.json, dev.json)" in text
    assert "tasks.json" not in text
    df = _follow(text)
    assert sorted(df["annotator"].unique()) == ["ana", "ben", "chloe", "dev"]
    pd.testing.assert_frame_equal(df, iaf.read_coco(sorted(coco.glob("[abcd]*.json"))))


def test_a_directory_of_many_files_is_read_with_a_glob(tmp_path):
    coco = _copy("coco", tmp_path)
    for name in ("ana", "ben"):
        shutil.copy(coco / f"{name}.json", coco / f"{name}_2.json")
    with pytest.raises(ReaderError) as info:
        iaf.read_coco(str(coco))
    text = str(info.value)
    assert "6 .json file(s)" in text and ".glob('*.json')" in text
    assert len(_follow(text)["annotator"].unique()) == 6


def test_a_directory_of_another_format_names_its_reader(tmp_path):
    voc = _copy("voc", tmp_path)
    with pytest.raises(ReaderError) as info:
        iaf.read_coco(voc)
    text = str(info.value)
    assert (
        "expected a file; it holds no .json file of read_coco's format and looks like Pascal VOC XML"
        in text
    )
    assert len(_follow(text))
    cvat = _copy("cvat", tmp_path)
    with pytest.raises(ReaderError, match=r"read_cvat reads files.*job_1\.xml"):
        iaf.read_cvat(cvat)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(
        ReaderError, match=r"expected a file; it holds no \.json file.*a list of files or"
    ):
        iaf.read_coco(empty)


#: KITTI object labels (the KITTI devkit's format): a type and 14 numbers, 15 with a score.
KITTI = (
    "Car 0.00 0 -1.58 587.01 173.33 614.12 200.12 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\n"
    "DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 -1000 -1000 -1000 -10\n"
)
KITTI_SCORED = (
    "Person_sitting 0 0 -0.2 712.4 143 810.73 307.92 1.89 0.48 1.2 1.84 1.47 8.41 0.01 .93\n"
)


def test_kitti_labels_are_told_from_yolo_and_mot(tmp_path):
    # a folder of KITTI labels was taken for YOLO labels (the reader then failed on
    # "non-numeric value in 'Car 0.00 ...'"), and a path of them named no reader
    root = tmp_path / "kitti"
    ana = root / "ana"
    ana.mkdir(parents=True)
    (ana / "000001.txt").write_text("\n" + KITTI)  # a blank first line
    (ana / "000002.txt").write_text(KITTI_SCORED)
    shutil.copytree(ana, root / "ben")
    found = ("read_kitti", "KITTI object labels")
    assert reader_for(ana / "000002.txt") == found
    assert reader_for(ana) == found  # one annotator's folder
    assert reader_for(root) == found  # a folder per annotator
    other = tmp_path / "other"
    other.mkdir()
    for name, text, want in [
        ("yolo.txt", "0 0.5 0.5 0.2 0.2\n", None),  # numbers only: YOLO, from its folder
        ("mot.txt", "1,1,10,20,30,40,1,-1,-1,-1\n", "read_mot"),
        ("short.txt", "Car 0 0 0 1 2 3 4\n", None),  # too few numbers
        ("long.txt", "Car" + " 1" * 16 + "\n", None),  # too many
        ("words.txt", "Car 0 0 0 1 2 3 4 5 6 7 8 9 x 11\n", None),
    ]:
        (other / name).write_text(text)
        assert (reader_for(other / name) or (None,))[0] == want, name
    with pytest.raises(SchemaError) as info:
        iaf.validate(str(root))
    df = _follow(str(info.value))  # the hint's call reads them
    assert sorted(df["annotator"].unique()) == ["ana", "ben"]
