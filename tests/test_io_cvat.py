"""read_cvat against hand-written CVAT for images 1.1 fixtures (tests/fixtures/cvat)."""

import numpy as np
import pandas as pd
import pytest

from iaa_frames.errors import DroppedRowsWarning, ReaderError
from iaa_frames.io import read_cvat

from test_io_helpers import FIX, row_of

JOB = FIX / "cvat" / "job_12.xml"
TASK = FIX / "cvat" / "task_7.xml"


def _read(*paths, **kw):
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_cvat(list(paths) if len(paths) > 1 else paths[0], **kw)
    return df, rec[0].message


def test_job_export():
    df, w = _read(JOB)
    assert set(df["annotator"]) == {"maria"}  # meta/job/assignee, not the owner "admin"
    box = row_of(df, item="frame_000.jpg", label="car")
    assert (box.x0, box.y0, box.x1, box.y1) == (100, 200, 300.5, 260)
    assert box["geometry"] is None
    assert (box["width"], box["height"]) == (1280, 720)
    assert not box["occluded"]
    assert box["color"] == "blue" and box["z_order"] == 0 and box["source"] == "manual"
    poly = row_of(df, item="frame_000.jpg", label="person")
    assert poly["geometry"].area == 40 * 80 and poly["occluded"]
    assert pd.isna(poly["color"])
    # rotation=90 about the center of (100, 100, 200, 150): a 50 x 100 polygon
    rot = row_of(df, item="frame_002.jpg", label="car")
    assert rot["geometry"].geom_type == "Polygon" and rot["rotation"] == 90
    np.testing.assert_allclose([rot.x0, rot.y0, rot.x1, rot.y1], [125, 75, 175, 175], atol=1e-9)
    assert rot["geometry"].area == pytest.approx(5000)
    # frame_001 has no shape, frame_003 only a tag: coverage rows
    cov = df[df["x0"].isna()]
    assert sorted(cov["item"]) == ["frame_001.jpg", "frame_003.jpg"]
    assert len(df) == 5
    # the polyline and the tag are counted, with their entries
    assert w.counts == {"unsupported_shape": 2}
    assert list(w.dropped["entry"]) == ["image[2] (name='frame_002.jpg') polyline[0]",
                                        "image[3] (name='frame_003.jpg') tag[0]"]


def test_annotator_fallbacks():
    df = read_cvat(TASK)  # empty task assignee, owner ignored: the file name
    assert set(df["annotator"]) == {"task_7"}
    assert len(df) == 2
    df, _ = _read(JOB, annotator="override")
    assert set(df["annotator"]) == {"override"}
    df, _ = _read({"m": JOB, "t": TASK})
    assert set(df["annotator"]) == {"m", "t"}


def test_several_exports():
    df, _ = _read(JOB, TASK)
    assert set(df["annotator"]) == {"maria", "task_7"}
    assert df["object_id"].dropna().is_unique
    both = df[df["item"] == "frame_000.jpg"]
    assert set(both["annotator"]) == {"maria", "task_7"}


def test_bad_coordinates_name_the_shape(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_text(JOB.read_text().replace('xtl="100.00"', 'xtl="abc"'))
    with pytest.raises(ReaderError, match=r"bad\.xml: image\[0\] \(name='frame_000.jpg'\) box\[0\]: .*xtl"):
        read_cvat(p)
    p.write_text(JOB.read_text().replace(' ybr="260.00"', ""))
    with pytest.raises(ReaderError, match=r"box\[0\]: missing attribute 'ybr'"):
        read_cvat(p)
    p.write_text(JOB.read_text().replace('points="10.00,10.00;', 'points="10.00;'))
    with pytest.raises(ReaderError, match=r"polygon\[0\]: points"):
        read_cvat(p)


def test_inverted_box_raises_or_drops(tmp_path):
    p = tmp_path / "inv.xml"
    p.write_text(JOB.read_text().replace('xbr="300.50"', 'xbr="50"'))
    with pytest.raises(ReaderError, match=r"inv\.xml: image\[0\] \(name='frame_000.jpg'\) box\[0\].*inverted"):
        read_cvat(p)
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_cvat(p, on_invalid="drop")
    counts = [r.message.counts for r in rec]
    assert {"inverted_box": 1, "unsupported_shape": 2} in counts
    assert len(df) == 4


def test_not_a_cvat_file(tmp_path):
    p = tmp_path / "voc.xml"
    p.write_text("<annotation><filename>a.jpg</filename></annotation>")
    with pytest.raises(ReaderError, match=r"voc\.xml: not a CVAT XML export"):
        read_cvat(p)
    p.write_text("<annotations><version>1.1</version><meta/></annotations>")
    with pytest.raises(ReaderError, match="no <image>"):
        read_cvat(p)
