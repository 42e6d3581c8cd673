"""A path passed where a frame is expected, or a directory passed to a reader of files:
the error names the reader call that reads it, and that call works (each test runs the
call the message suggests): each format's layouts, and those of no other format, told as
its own (Potato's project, store, states, config and exports among them)."""

import json
import pathlib
import re
import shutil
import warnings

import pandas as pd
import potato_project
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


# ------------------------------------------------------------------ Potato


def _potato(tmp_path):
    """A Potato project as Potato lays it out (the sample's generator), its states and
    export."""
    root = potato_project.write(tmp_path / "proj")
    return root, root / "annotation_output"


def test_potato_layouts_are_told_and_the_hint_reads_them(tmp_path):
    # a Potato project, its store or a state passed for a frame named no reader, and
    # iaa-frames report said "cannot tell the format"
    root, out = _potato(tmp_path)
    export = out / "exports" / "jsonl" / "annotations.jsonl"
    everyone = ["ana", "ben", "detector"]
    for path, words, annotators in [
        (root, "Potato project", everyone),
        (root / "config.yaml", "Potato config", everyone),
        (out, "Potato annotation output", everyone),
        (out / "ben", "Potato annotator's folder", ["ben"]),
        (out / "ben" / "user_state.json", "Potato user_state.json", ["ben"]),
        (export, "Potato jsonl export", everyone),
    ]:
        found = reader_for(path)
        assert found is not None and found[0] == "read_potato", path
        assert found[1].startswith(words), found
        with pytest.raises(SchemaError) as info:
            iaf.agreement(str(path))
        text = str(info.value)
        assert f"df = iaf.read_potato({str(path)!r})" in text, text
        df = _follow(text)  # the suggested call runs
        assert sorted(df["annotator"].unique()) == annotators, path
        pd.testing.assert_frame_equal(df, iaf.read_potato(path))
    # the project's reading is the sample's (sizes from the config's data file)
    pd.testing.assert_frame_equal(iaf.read_potato(root), iaf.read_potato(sample_path("potato")))


def test_potato_configs_elsewhere_renamed_states_and_csv_exports(tmp_path):
    root, out = _potato(tmp_path)
    # the config in configs/, its task_dir the project
    (root / "configs").mkdir()
    text = (root / "config.yaml").read_text().replace("task_dir: .", "task_dir: ..")
    (root / "configs" / "street.yml").write_text(text)
    (root / "config.yaml").unlink()
    assert reader_for(root) == ("read_potato", "Potato project")
    assert len(_follow(read_hint(root))) == len(iaf.read_potato(sample_path("potato")))
    # a config in JSON
    conf = tmp_path / "potato.json"
    config = {
        "task_dir": str(root),
        "output_annotation_dir": "annotation_output/",
        "annotation_schemes": [{"annotation_type": "image_annotation", "name": "objects"}],
    }
    conf.write_text(json.dumps(config))
    assert reader_for(conf) == ("read_potato", "Potato config")
    assert sorted(_follow(read_hint(conf))["annotator"].unique()) == ["ana", "ben", "detector"]
    # a state under another name: read_potato takes a lone .json for a config, so the
    # hint passes it in a list; its labels lie past the first bytes (its user_id and
    # instance_id_ordering open it, as Potato writes them)
    items = {f"img_{i:04d}": ([], 1_767_225_600 + i) for i in range(400)}
    big = tmp_path / "ana_state.json"
    big.write_text(json.dumps(potato_project.state("ana", items), indent=2))
    assert big.read_text().index("instance_id_to_label_to_value") > 65536
    assert reader_for(big) == ("read_potato", "Potato user_state.json")
    assert f"iaf.read_potato([{str(big)!r}])" in read_hint(big)
    assert len(_follow(read_hint(big))) == 400  # 400 coverage rows
    # the csv and tsv exports: instance_id and user_id columns
    for sep, name in ((",", "annotations.csv"), ("\t", "annotations.tsv")):
        path = tmp_path / name
        rows = [["instance_id", "user_id", "annotator_origin", "objects._data"]]
        rows += [["img1", user, "human", "[]"] for user in ("ana", "ben")]
        path.write_text("".join(sep.join(r) + "\n" for r in rows))
        assert reader_for(path) == ("read_potato", f"Potato {name[-3:]} export")
        assert sorted(_follow(read_hint(path))["annotator"]) == ["ana", "ben"]
    # a folder given to a reader of files names Potato, not its user_state.json
    with pytest.raises(ReaderError) as info:
        iaf.read_coco(out / "ana")
    text = str(info.value)
    assert "looks like Potato annotator's folder" in text and "read_coco([" not in text
    assert set(_follow(text)["annotator"]) == {"ana"}


def test_other_formats_are_not_taken_for_potato(tmp_path):
    for name in ("coco", "cvat", "labelstudio", "voc", "yolo", "darwin"):
        path = _copy(name, tmp_path)
        assert reader_for(path)[0] != "read_potato", name
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        for f in files:
            assert (reader_for(f) or (None,))[0] != "read_potato", f
    assert reader_for(tmp_path / "yolo" / "data.yaml") is None  # a YAML, not Potato's
    other = tmp_path / "other"
    other.mkdir()
    for name, text in [
        ("plain.yaml", "name: street\nnames: [car, person]\n"),
        ("nested.yml", "paths:\n  output_annotation_dir: out/\n"),  # not a top-level key
        # a COCO file whose annotations carry user_id and instance ids (Potato's COCO
        # export pools annotators: read_coco, not read_potato)
        ("coco.json", '{"images": [], "annotations": [{"user_id": "ana", "instance_id": 1}]}'),
        ("user.json", '{"user_id": "ana", "name": "Ana"}'),  # user_id alone
        # Label Studio exports are lists, whatever their keys
        ("tasks.json", '[{"instance_id_to_label_to_value": {}, "user_id": 1}]'),
        ("darwin.json", '{"version": "2.0", "item": {"name": "a.jpg"}, "annotations": []}'),
        ("table.csv", "item,annotator,label,x0,y0,x1,y1,user_id,instance_id\n"),
        ("records.jsonl", '{"id": 1, "text": "a"}\n'),
    ]:
        (other / name).write_text(text)
        assert (reader_for(other / name) or (None,))[0] != "read_potato", name
    assert reader_for(other / "coco.json")[0] == "read_coco"
    assert reader_for(other / "tasks.json")[0] == "read_labelstudio"
    assert reader_for(other / "darwin.json")[0] == "read_darwin"
    assert reader_for(other / "table.csv")[0] == "read_table"
    # annotator folders of COCO files beside a non-Potato YAML stay COCO
    shutil.copy(other / "plain.yaml", tmp_path / "coco" / "plain.yaml")
    assert reader_for(tmp_path / "coco")[0] == "read_coco"
