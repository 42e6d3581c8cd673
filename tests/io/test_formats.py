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
