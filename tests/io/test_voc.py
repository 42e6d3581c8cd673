"""read_voc against hand-written Pascal VOC fixtures (tests/fixtures/voc)."""

import shutil

import pytest
from helpers import FIX, row_of

from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.io import read_voc


def test_parent_directory():
    df = read_voc(FIX / "voc")
    assert sorted(df["annotator"].unique()) == ["ana", "ben"]
    a = df[(df["annotator"] == "ana") & df["x0"].notna()]
    assert len(a) == 2
    first = row_of(df, annotator="ana", item="000005.jpg", pose="Rear")
    assert (first.x0, first.y0, first.x1, first.y1) == (263, 211, 324, 339)  # as written
    assert (first["width"], first["height"]) == (500, 375)
    assert not first["difficult"] and not first["truncated"]
    second = row_of(df, annotator="ana", item="000005.jpg", pose="Unspecified")
    assert second["difficult"] and second["truncated"]
    b = row_of(df, annotator="ben", item="000005.jpg")
    assert b.x0 == 260.5
    # 000007.xml has no <object>: a coverage row with the image size
    cov = row_of(df, item="000007.jpg")
    assert cov["annotator"] == "ana" and cov["height"] == 333
    assert len(df) == 4


def test_mapping_and_single_directory(tmp_path):
    df = read_voc({"x": FIX / "voc" / "ana"})
    assert set(df["annotator"]) == {"x"} and len(df) == 3
    df = read_voc(FIX / "voc" / "ben")  # xml files, no subdirectory: one annotator
    assert set(df["annotator"]) == {"ben"}
    devkit = tmp_path / "VOC2007"
    shutil.copytree(FIX / "voc" / "ana", devkit / "Annotations")
    (devkit / "JPEGImages").mkdir()
    df = read_voc(devkit)
    assert set(df["annotator"]) == {"VOC2007"} and len(df) == 3


def test_no_filename_uses_stem_and_zero_size_is_unknown(tmp_path):
    d = tmp_path / "ann"
    d.mkdir()
    (d / "x.xml").write_text(
        "<annotation><size><width>0</width><height>0</height></size>"
        "<object><name>cat</name><bndbox><xmin>1</xmin><ymin>1</ymin>"
        "<xmax>5</xmax><ymax>5</ymax></bndbox></object></annotation>"
    )
    df = read_voc(tmp_path)
    assert df["item"].iloc[0] == "x" and df["width"].isna().all()


def test_bad_objects_name_file_and_object(tmp_path):
    d = tmp_path / "ana"
    shutil.copytree(FIX / "voc" / "ana", d)
    p = d / "000005.xml"
    text = p.read_text()
    p.write_text(text.replace("<xmax>67</xmax>", "<xmax>sixty</xmax>"))
    with pytest.raises(
        ReaderError,
        match=r"000005\.xml: object\[1\] \(name='chair'\): <xmax>='sixty' is not a number",
    ):
        read_voc(tmp_path)
    p.write_text(text.replace("<ymax>374</ymax>", ""))
    with pytest.raises(ReaderError, match=r"object\[1\] \(name='chair'\): missing element <ymax>"):
        read_voc(tmp_path)
    p.write_text(text.replace("<xmax>67</xmax>", "<xmax>1</xmax>"))
    with pytest.raises(ReaderError, match=r"000005\.xml: object\[1\] \(name='chair'\).*inverted"):
        read_voc(tmp_path)
    p.write_text(text.replace("<name>chair</name>", "<name></name>", 1))
    with pytest.raises(ReaderError, match=r"object\[0\]: missing <name>"):
        read_voc(tmp_path)
    p.write_text("<annotations/>")
    with pytest.raises(ReaderError, match="not a VOC annotation"):
        read_voc(tmp_path)


def test_layout_errors(tmp_path):
    with pytest.raises(ReaderError, match="no annotator subdirectories"):
        read_voc(tmp_path)
    (tmp_path / "ana").mkdir()
    with pytest.raises(ReaderError, match="no .xml files for annotator 'ana'"):
        read_voc(tmp_path)
    shutil.copy(FIX / "voc" / "ben" / "000005.xml", tmp_path / "loose.xml")
    with pytest.raises(ReaderError, match="both .xml files and subdirectories"):
        read_voc(tmp_path)


def test_person_layout_parts_are_counted(tmp_path):
    d = tmp_path / "ana"
    d.mkdir()
    (d / "p.xml").write_text(
        "<annotation><filename>p.jpg</filename><size><width>100</width><height>100</height></size>"
        "<object><name>person</name><bndbox><xmin>10</xmin><ymin>10</ymin><xmax>60</xmax><ymax>90</ymax></bndbox>"
        "<part><name>head</name><bndbox><xmin>20</xmin><ymin>10</ymin><xmax>40</xmax><ymax>30</ymax></bndbox></part>"
        "</object></annotation>"
    )
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_voc(tmp_path)
    assert len(df) == 1 and df["label"].iloc[0] == "person"
    w = rec[0].message
    assert w.counts == {"unsupported_shape": 1}
    assert w.dropped["entry"].iloc[0] == "object[0] (name='person') part[0]"


def test_on_invalid_drop_skips_unreadable_objects(tmp_path):
    root = tmp_path / "voc"
    shutil.copytree(FIX / "voc", root)
    p = min((root / "ana").glob("*.xml"))
    text = p.read_text()
    p.write_text(text.replace("<xmin>", "<xmin>x", 1))
    with pytest.raises(ReaderError, match=r"object\[0\].*xmin"):
        read_voc(root)
    with pytest.warns(DroppedRowsWarning) as rec:
        read_voc(root, on_invalid="drop")
    assert any("unreadable_entry" in r.message.counts for r in rec)


def test_d3_a_second_bndbox_is_counted_not_lost(tmp_path):
    """#41 D3: an <object> with two <bndbox> reads the first and counts the second."""
    d = tmp_path / "ana"
    d.mkdir()
    (d / "a.xml").write_text(
        "<annotation><filename>a.jpg</filename>"
        "<size><width>100</width><height>80</height></size>"
        "<object><name>cat</name>"
        "<bndbox><xmin>10</xmin><ymin>20</ymin><xmax>40</xmax><ymax>60</ymax></bndbox>"
        "<bndbox><xmin>50</xmin><ymin>5</ymin><xmax>90</xmax><ymax>30</ymax></bndbox>"
        "</object></annotation>"
    )
    df, dropped = read_voc({"ana": d}, return_dropped=True)
    assert len(df) == 1 and (df["x0"].iat[0], df["x1"].iat[0]) == (10, 40)
    assert list(dropped["reason"]) == ["extra_bndbox"]
    assert dropped["entry"].iat[0] == "object[0] (name='cat') bndbox[1]"
    assert '"xmin": "50"' in dropped["record"].iat[0]
    with pytest.warns(DroppedRowsWarning, match="extra_bndbox: 1"):
        read_voc({"ana": d})
