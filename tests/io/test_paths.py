"""The first argument of the readers: one file, a list of files with their annotators, a
mapping {annotator: path}, or a directory per annotator; every misuse is a clear error."""

import pytest

from iaa_frames.errors import ParameterError, ReaderError
from iaa_frames.io.paths import annotator_dirs, files_and_annotators


@pytest.fixture
def files(tmp_path):
    out = []
    for name in ("a.json", "b.json"):
        p = tmp_path / name
        p.write_text("{}")
        out.append(p)
    return out


def test_the_forms_of_files_and_annotators(files):
    a, b = files
    assert files_and_annotators(a, None, reader="r") == [(a, None)]
    assert files_and_annotators(str(a), "ana", reader="r") == [(a, "ana")]
    assert files_and_annotators([a, b], None, reader="r") == [(a, None), (b, None)]
    assert files_and_annotators([a, b], "ana", reader="r") == [(a, "ana"), (b, "ana")]
    assert files_and_annotators([a, b], ["ana", "ben"], reader="r") == [(a, "ana"), (b, "ben")]
    assert files_and_annotators({"ben": b, "ana": a}, None, reader="r") == [(b, "ben"), (a, "ana")]


@pytest.mark.parametrize(
    "args, message",
    [
        (lambda a, b: ([a, b], ["ana"]), "2 files but 1 annotator names"),
        (lambda a, b: ({"ana": a}, "ben"), "either as mapping keys or as annotator="),
        (lambda a, b: ({}, None), "r: the mapping of annotators to files is empty"),
        (lambda a, b: ({"": a}, None), "annotator names must be non-empty strings"),
        (lambda a, b: ([], None), "r: no files given"),
        (lambda a, b: (a, ["ana"]), "annotator must be a string for one file"),
    ],
)
def test_misuse_is_a_parameter_error(files, args, message):
    with pytest.raises(ParameterError, match=message):
        files_and_annotators(*args(*files), reader="r")


def test_unreadable_paths_are_reader_errors(tmp_path, files):
    with pytest.raises(ReaderError, match=r"missing\.json: no such file"):
        files_and_annotators([files[0], tmp_path / "missing.json"], None, reader="r")
    with pytest.raises(ReaderError, match="is a directory, expected a file"):
        files_and_annotators(tmp_path, None, reader="r")


def test_annotator_dirs(tmp_path):
    for name in ("ben", "ana", ".hidden"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("not an annotator")
    assert annotator_dirs(tmp_path, "r") == [("ana", tmp_path / "ana"), ("ben", tmp_path / "ben")]
    assert annotator_dirs({"x": tmp_path / "ben"}, "r") == [("x", tmp_path / "ben")]
    with pytest.raises(ReaderError, match=r"nope: no such directory"):
        annotator_dirs({"x": tmp_path / "nope"}, "r")
    with pytest.raises(ReaderError, match=r"notes\.txt: is not a directory"):
        annotator_dirs(tmp_path / "notes.txt", "r")
    with pytest.raises(
        ParameterError, match="r: the mapping of annotators to directories is empty"
    ):
        annotator_dirs({}, "r")
