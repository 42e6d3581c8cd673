"""read_cvat against hand-written CVAT for images 1.1 fixtures (tests/fixtures/cvat)."""

import numpy as np
import pandas as pd
import pytest
from helpers import FIX, row_of

import iaa_frames as iaf
from iaa_frames.core.engine import rater_kinds
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.errors import AnnotatorNameWarning, DroppedRowsWarning, ReaderError
from iaa_frames.geometry.distances import Shapes, iou
from iaa_frames.io import read_cvat

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
    assert len(df) == 6
    # the polyline is a polyline (its vertices, the last one repeated); the tag is counted
    line = row_of(df, item="frame_002.jpg", label="person")
    assert [line.pl_0_x, line.pl_0_y, line.pl_2_x, line.pl_2_y, line.pl_31_x] == [1, 1, 9, 1, 9]
    assert (line.x0, line.y0, line.x1, line.y1) == (1, 1, 9, 5)
    assert w.counts == {"unsupported_shape": 1}
    assert list(w.dropped["entry"]) == ["image[3] (name='frame_003.jpg') tag[0]"]


def test_annotator_fallbacks():
    with pytest.warns(AnnotatorNameWarning, match="its annotator is the file name 'task_7'"):
        df = read_cvat(TASK)  # empty task assignee, owner ignored: the file name
    assert set(df["annotator"]) == {"task_7"}
    assert len(df) == 2
    df, _ = _read(JOB, annotator="override")
    assert set(df["annotator"]) == {"override"}
    df, _ = _read({"m": JOB, "t": TASK})
    assert set(df["annotator"]) == {"m", "t"}


def test_several_exports():
    with pytest.warns(AnnotatorNameWarning):
        df, _ = _read(JOB, TASK)
    assert set(df["annotator"]) == {"maria", "task_7"}
    assert df["object_id"].dropna().is_unique
    both = df[df["item"] == "frame_000.jpg"]
    assert set(both["annotator"]) == {"maria", "task_7"}


def test_bad_coordinates_name_the_shape(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_text(JOB.read_text().replace('xtl="100.00"', 'xtl="abc"'))
    with pytest.raises(
        ReaderError, match=r"bad\.xml: image\[0\] \(name='frame_000.jpg'\) box\[0\]: .*xtl"
    ):
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
    with pytest.raises(
        ReaderError, match=r"inv\.xml: image\[0\] \(name='frame_000.jpg'\) box\[0\].*inverted"
    ):
        read_cvat(p)
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_cvat(p, on_invalid="drop")
    counts = [r.message.counts for r in rec]
    assert {"inverted_box": 1, "unsupported_shape": 1} in counts
    assert len(df) == 5


def test_not_a_cvat_file(tmp_path):
    p = tmp_path / "voc.xml"
    p.write_text("<annotation><filename>a.jpg</filename></annotation>")
    with pytest.raises(ReaderError, match=r"voc\.xml: not a CVAT XML export"):
        read_cvat(p)
    p.write_text("<annotations><version>1.1</version><meta/></annotations>")
    with pytest.raises(ReaderError, match="no <image>"):
        read_cvat(p)


# -- CVAT for video, Datumaro-written files, on_invalid, item keys --------------------------

VIDEO_DOC = FIX / "cvat" / "video_doc_example.xml"
VIDEO_ANA = FIX / "cvat" / "video_job_ana.xml"
VIDEO_BEN = FIX / "cvat" / "video_job_ben_keyframes.xml"
DATUMARO = FIX / "cvat" / "datumaro_for_images.xml"


def test_video_doc_example_outside_ends_visibility():
    # the example of CVAT's XML format page: visible on frames 0, 6 and 13 only, each
    # followed by an outside="1" keyframe; every frame of the task is covered
    with pytest.warns(AnnotatorNameWarning, match="names no assignee.*'video_doc_example'"):
        df = read_cvat(VIDEO_DOC)
    objs = df[df["x0"].notna()]
    assert objs["item"].tolist() == ["frame_000000", "frame_000006", "frame_000013"]
    assert set(objs["label"]) == {"car"} and (objs["track_id"] == 0).all()
    assert objs["keyframe"].all()
    assert (df["width"] == 640).all() and (df["height"] == 480).all()
    assert sorted(df["item"]) == [f"frame_{i:06d}" for i in range(20)]  # size 20
    first = objs.iloc[0]["geometry"]
    assert first.geom_type == "Polygon" and len(first.exterior.coords) == 7  # 6 points, closed


def test_video_every_frame_written_and_keyframes_only_agree():
    # ana's export writes every frame (interpolated ones keyframe="0"); ben's writes the
    # keyframes only: CVAT's interpolation rule makes the same boxes
    ana = read_cvat(VIDEO_ANA)
    ben = read_cvat(VIDEO_BEN)
    assert set(ana["annotator"]) == {"ana"} and set(ben["annotator"]) == {"ben"}
    cars_a = ana[ana["label"] == "car"].set_index("item")
    cars_b = ben[ben["label"] == "car"].set_index("item")
    # ana: frames 0-3 visible, frame 4 outside; ben: 0-3 interpolated, then held to frame 5
    assert cars_a.index.tolist() == [f"frame_{i:06d}" for i in range(4)]
    assert cars_b.index.tolist() == [f"frame_{i:06d}" for i in range(6)]
    cols = ["x0", "y0", "x1", "y1"]
    np.testing.assert_allclose(cars_a[cols].to_numpy(), cars_b.loc[cars_a.index, cols].to_numpy())
    assert cars_b.loc["frame_000001", "x0"] == pytest.approx(110)  # 100 + (130 - 100) / 3
    assert cars_b["keyframe"].tolist() == [True, False, False, True, False, False]
    assert cars_a["occluded"].tolist() == [False, False, False, True]
    # the person was drawn on frame 2 only (a single-frame track)
    person = ana[ana["label"] == "person"]
    assert person["item"].tolist() == ["frame_000002"] and person["track_id"].tolist() == [1]
    # every frame of the job is covered, with the original size
    assert sorted(set(ana["item"])) == [f"frame_{i:06d}" for i in range(6)]
    assert (ana["width"] == 1920).all()
    # the two exports give agreement without any renaming
    df = pd.concat([ana, ben], ignore_index=True)
    df["object_id"] = range(len(df))
    res = iaf.agreement(df, n_chance=50)
    loc = res.sel(component="localization", label="(all)", annotator="(all)")
    # every car pair of the same frame is matched and nearly identical; six frames hold
    # too few chance pairs for sigma, and the note says they are all there is
    assert float(loc["n_units"]) >= 4 and float(loc["observed"]) < 0.05
    assert "the whole chance population" in loc["note"].item()


def test_datumaro_empty_label_raises_one_line_or_drops():
    with pytest.raises(ReaderError) as info:
        read_cvat(DATUMARO, annotator="dm")
    msg = str(info.value)
    assert (
        "datumaro_for_images.xml: image[0] (name='images/photo.jpg') box[1]: an object has no label"
        in msg
    )
    assert "on_invalid='drop'" in msg
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_cvat(DATUMARO, annotator="dm", on_invalid="drop")
    assert rec[0].message.counts == {"missing_label": 1}
    # item_key="name" (the default) makes the items base names
    assert sorted(set(df["item"])) == ["dog.jpg", "photo.jpg"]
    assert len(df) == 2


def test_on_invalid_drop_skips_unreadable_shapes(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_text(JOB.read_text().replace('xtl="100.00"', 'xtl="abc"'))
    with pytest.warns(DroppedRowsWarning) as rec:
        df = read_cvat(p, on_invalid="drop")
    w = next(r.message for r in rec if "unreadable_entry" in r.message.counts)
    row = w.dropped[w.dropped["reason"] == "unreadable_entry"].iloc[0]
    assert row["entry"] == "image[0] (name='frame_000.jpg') box[0]" and "xtl" in row["detail"]
    assert '"xtl": "abc"' in row["record"]
    assert "car" not in set(df.loc[df["item"] == "frame_000.jpg", "label"])
    assert "frame_000.jpg" in set(df["item"])  # the image is still covered


def test_one_file_in_a_list_with_one_annotator_name():
    with pytest.warns(DroppedRowsWarning):
        df = read_cvat([JOB], annotator="A")
    assert set(df["annotator"]) == {"A"}
    with pytest.warns(DroppedRowsWarning):
        df = read_cvat([JOB, DATUMARO], annotator="A", on_invalid="drop")
    assert set(df["annotator"]) == {"A"}


def test_item_key_options():
    with pytest.warns(DroppedRowsWarning):
        df = read_cvat(DATUMARO, annotator="dm", on_invalid="drop", item_key="path")
    assert sorted(set(df["item"])) == ["images/dog.jpg", "images/photo.jpg"]
    with pytest.warns(DroppedRowsWarning):
        df = read_cvat(DATUMARO, annotator="dm", on_invalid="drop", item_key="stem")
    assert sorted(set(df["item"])) == ["dog", "photo"]
    with pytest.warns(DroppedRowsWarning):
        df = read_cvat(DATUMARO, annotator="dm", on_invalid="drop", item_key=str.upper)
    assert sorted(set(df["item"])) == ["IMAGES/DOG.JPG", "IMAGES/PHOTO.JPG"]


def test_two_images_with_one_base_name_are_not_merged(tmp_path):
    p = tmp_path / "two.xml"
    p.write_text(DATUMARO.read_text().replace("images/dog.jpg", "other/photo.jpg"))
    with pytest.raises(
        ReaderError,
        match=r"'images/photo.jpg' and 'other/photo.jpg' both become "
        r"item 'photo.jpg'.*item_key='path'",
    ):
        read_cvat(p, annotator="dm", on_invalid="drop")


def test_video_frames_form_one_group_and_images_none():
    # exports of one video read in separate calls (one per annotator) share the group
    ana, ben = read_cvat(VIDEO_ANA), read_cvat(VIDEO_BEN)
    assert set(ana["group"]) == {"video"} and set(ben["group"]) == {"video"}
    df = pd.concat([ana, ben], ignore_index=True).assign(object_id=lambda d: range(len(d)))
    t = iaf.pair_tables(df, n_chance=50)
    assert t.corpus.n_groups == 1 and len(t.sets_between) == 0  # no chance pairing
    # a name of one's own, or none (every frame its own group, as before)
    assert set(read_cvat(VIDEO_ANA, group="street.mp4")["group"]) == {"street.mp4"}
    assert "group" not in read_cvat(VIDEO_ANA, group=None).columns
    # images have no natural group
    df, _ = _read(JOB)
    assert "group" not in df.columns
    with pytest.raises(iaf.errors.ParameterError, match="group"):
        read_cvat(VIDEO_ANA, group="")


def test_two_videos_read_apart_keep_their_groups():
    one = read_cvat(VIDEO_ANA, group="a.mp4", item_key=lambda s: f"a/{s}")
    two = read_cvat(VIDEO_ANA, group="b.mp4", item_key=lambda s: f"b/{s}")
    df = pd.concat([one, two], ignore_index=True).assign(object_id=lambda d: range(len(d)))
    c = prepare(df)
    assert c.n_groups == 2
    by_video = pd.Series(c.group_codes(), index=c.items).groupby(lambda s: s[0]).nunique()
    assert (by_video == 1).all()


LANES = FIX / "cvat" / "lanes_images.xml"


def test_polylines_and_points_on_images():
    from iaa_frames.geometry.kinds import POINT_SET, POLYLINE

    df, dropped = read_cvat(LANES, return_dropped=True)
    lanes = df[df["label"] == "lane"].reset_index(drop=True)
    assert len(lanes) == 3
    # as written, the last vertex repeated up to the kind's 32
    first = lanes.loc[0, list(POLYLINE.columns)].to_numpy(dtype=float).reshape(-1, 2)
    np.testing.assert_array_equal(first[:2], [[462.1, 0.0], [126.8, 1200.0]])
    assert (first[2:] == first[1]).all()
    assert (lanes.loc[0, ["x0", "y0", "x1", "y1"]].tolist()) == [126.8, 0.0, 462.1, 1200.0]
    assert lanes["style"].tolist() == ["solid", "dashed", "solid"]
    assert lanes["occluded"].tolist() == [False, True, False]
    # a line drawn back over itself keeps its closing vertex (a polyline is not a ring)
    back = lanes.loc[2, list(POLYLINE.columns)].to_numpy(dtype=float).reshape(-1, 2)
    assert back[2].tolist() == [800.0, 100.0] and back[1].tolist() == [800.0, 1100.0]
    wheels = df[df["label"] == "wheel"].reset_index(drop=True)
    assert wheels["ps_n"].tolist() == [4.0, 1.0]
    xy = wheels.loc[0, list(POINT_SET.columns[1:])].to_numpy(dtype=float).reshape(-1, 2)
    np.testing.assert_array_equal(xy[[0, 3]], [[574.9, 939.48], [600.16, 459.48]])
    assert wheels.loc[0, ["x0", "y0", "x1", "y1"]].tolist() == [574.9, 445.26, 1170.16, 939.48]
    # the one-point polyline is counted, named, not read
    assert dropped["reason"].tolist() == ["degenerate_polyline"]
    assert dropped["entry"].tolist() == ["image[1] (name='road_001.jpg') polyline[1]"]


def test_polylines_agree_with_themselves_and_less_when_moved(tmp_path):
    # a round trip through the frame: two annotators' exports, one with a lane moved
    text = LANES.read_text().replace('points="10.00,10.00" z_order', 'points="10,10;20,20" z_order')
    moved = text.replace("1390.00,600.00", "1396.00,600.00").replace(
        "<username>lea", "<username>max"
    )
    (tmp_path / "lea.xml").write_text(text)
    (tmp_path / "max.xml").write_text(moved)
    df = read_cvat([tmp_path / "lea.xml", tmp_path / "max.xml"])
    lines = df[df["pl_0_x"].notna()]
    a, b = (Shapes.from_frame(lines[lines["annotator"] == who]) for who in ("lea", "max"))
    sim = iou(a, b)
    assert sim[[0, 2, 3]].tolist() == [1.0, 1.0, 1.0] and 0.5 < sim[1] < 1.0


def test_polyline_and_points_errors_name_the_shape(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_text(LANES.read_text().replace("1390.00,600.00", "1390.00,abc"))
    with pytest.raises(
        ReaderError, match=r"bad\.xml: image\[0\] \(name='road_000.jpg'\) polyline\[1\]: points"
    ):
        read_cvat(p)
    many = ";".join(f"{i},{i}" for i in range(33))
    p.write_text(LANES.read_text().replace('points="300.00,400.00"', f'points="{many}"'))
    with pytest.raises(
        ReaderError,
        match=r"road_001.jpg.\) points\[0\]: a points shape of 33 points; the point set kind 'point_set' holds at most 32",
    ):
        read_cvat(p)


LANE_TRACK = """<?xml version="1.0" encoding="utf-8"?>
<annotations>
  <version>1.1</version>
  <meta><job><id>9</id><size>4</size><mode>interpolation</mode><start_frame>0</start_frame>
  <stop_frame>3</stop_frame><assignee><username>dee</username></assignee>
  <original_size><width>1280</width><height>720</height></original_size></job></meta>
  <track id="0" label="lane" source="manual">
    <polyline frame="0" keyframe="1" outside="0" occluded="0" points="100,700;300,300" z_order="0"/>
    <polyline frame="1" keyframe="1" outside="0" occluded="0" points="100,700;300,300" z_order="0"/>
    <polyline frame="3" keyframe="1" outside="0" occluded="0" points="110,700;310,300" z_order="0"/>
  </track>
  <track id="1" label="wheel" source="manual">
    <points frame="0" keyframe="1" outside="0" occluded="0" points="50,60;70,80" z_order="0"/>
    <points frame="1" keyframe="1" outside="1" occluded="0" points="50,60;70,80" z_order="0"/>
  </track>
</annotations>
"""


def test_polyline_and_points_tracks(tmp_path):
    p = tmp_path / "lanes_video.xml"
    p.write_text(LANE_TRACK)
    df, dropped = read_cvat(p, return_dropped=True)
    lanes = df[df["label"] == "lane"].sort_values("item")
    # frames 0, 1 and 3 as written; frame 2 between two differing keyframes is not guessed
    assert lanes["item"].tolist() == ["frame_000000", "frame_000001", "frame_000003"]
    assert lanes["pl_0_x"].tolist() == [100.0, 100.0, 110.0]
    assert dropped["reason"].tolist() == ["track_gap_not_interpolated"]
    assert "polyline track 0: frames 2-2" in dropped["detail"].iloc[0]
    wheels = df[df["label"] == "wheel"]
    assert wheels["item"].tolist() == ["frame_000000"] and wheels["ps_n"].tolist() == [2.0]
    assert set(df["item"]) == {f"frame_{i:06d}" for i in range(4)}  # every frame covered


def test_polylines_and_point_sets_round_trip_through_write_cvat(tmp_path):
    from iaa_frames.geometry.kinds import POINT_SET, POLYLINE
    from iaa_frames.io.writers import write_cvat
    from iaa_frames.simulate import PolylineProfile, simulate_polylines

    lines = simulate_polylines(
        n_items=6, annotators={"ana": PolylineProfile(jitter=0.5), "ben": PolylineProfile()}, seed=1
    )
    lines[list(POLYLINE.columns)] = lines[list(POLYLINE.columns)].round(2)
    sets = pd.DataFrame(
        [[f"img_{i:05d}", who, "wheel", 1280.0, 720.0, 3.0, 10.5 * i, 20, 30, 40.25, 50, 60]
         for i in range(6) for who in ("ana", "ben")],
        columns=["item", "annotator", "label", "width", "height", "ps_n",
                 "ps_0_x", "ps_0_y", "ps_1_x", "ps_1_y", "ps_2_x", "ps_2_y"],
    )  # fmt: skip
    pad = {f"ps_{i}_{c}": sets[f"ps_2_{c}"] for i in range(3, POINT_SET.max_points) for c in "xy"}
    sets = pd.concat([sets, pd.DataFrame(pad)], axis=1)
    df = iaf.validate(pd.concat([lines, sets], ignore_index=True))
    back = read_cvat(write_cvat(df, tmp_path), item_key="stem")
    cols = ["item", "annotator", "label", *POLYLINE.columns, *POINT_SET.columns]
    want = df[df["label"].notna()].sort_values(cols[:3] + ["ps_n"]).reset_index(drop=True)
    got = back[back["label"].notna()].sort_values(cols[:3] + ["ps_n"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(got[cols], want[cols], check_dtype=False)


# ------------------------------------------------- CVAT for video: start frame and step

#: "CVAT for video 1.1", a task of frames 10, 13, ..., 28 (its comment says what it holds)
STEP_TASK = (FIX / "cvat" / "video_task_step3.xml").read_text()


def _write_xml(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_video_start_frame_and_step_read_every_shape(tmp_path):
    # issue #42 item 4: the shapes sit on frames 10, 13, ..., 28 (start_frame + k * step),
    # not on 0..size - 1; none is dropped as out of range or off the step
    df, dropped = read_cvat(_write_xml(tmp_path, "task_4.xml", STEP_TASK), return_dropped=True)
    assert len(dropped) == 0, dropped
    frames = [f"frame_{k:06d}" for k in range(10, 29, 3)]
    assert sorted(set(df["item"])) == frames  # every frame of the task, no other
    assert set(df["annotator"]) == {"ana"}
    assert (df["width"] == 640).all() and (df["height"] == 360).all()  # <task><original_size>
    cars = df[(df["label"] == "car") & (df["track_id"] == 0)].set_index("item")
    assert cars.index.tolist() == frames[:4]  # visible until the outside shape at 22
    assert cars["x0"].tolist() == [100.0, 110.0, 120.0, 130.0]
    assert cars["keyframe"].tolist() == [True, False, False, True]
    assert cars["occluded"].tolist() == [False, False, False, True]
    single = df[(df["label"] == "car") & (df["track_id"] == 1)]
    assert single["item"].tolist() == ["frame_000016"]


def test_video_step_interpolates_between_keyframes_on_the_kept_frames(tmp_path):
    # the keyframes only (as ben's exports of older CVAT): the frames between are CVAT's
    # frames 13 and 16, a third and two thirds of the way; after the last keyframe the
    # box is held on every kept frame to the last one, 28
    keyframes_only = "\n".join(
        line
        for line in STEP_TASK.splitlines()
        if 'keyframe="0" outside="0" occluded="0" xtl' not in line
    )
    df, dropped = read_cvat(
        _write_xml(
            tmp_path, "ben.xml", keyframes_only.replace('<box frame="22"', '<box frame="25"')
        ),
        annotator="ben",
        return_dropped=True,
    )
    assert len(dropped) == 0
    cars = df[(df["label"] == "car") & (df["track_id"] == 0)].set_index("item")
    assert cars.index.tolist() == [f"frame_{k:06d}" for k in (10, 13, 16, 19, 22)]
    np.testing.assert_allclose(cars["x0"], [100, 110, 120, 130, 130])
    assert cars["keyframe"].tolist() == [True, False, False, True, False]
    held = read_cvat(
        _write_xml(
            tmp_path,
            "held.xml",
            keyframes_only.replace(
                '<box frame="22" keyframe="1" outside="1"',
                '<box frame="22" keyframe="1" outside="0"',
            ),
        ),
        annotator="ben",
    )
    held = held[(held["label"] == "car") & (held["track_id"] == 0)]
    assert held["item"].tolist() == [f"frame_{k:06d}" for k in range(10, 29, 3)]


def test_video_skeleton_track_reads_joints_outside_occluded_and_missing(tmp_path):
    from iaa_frames.geometry.kinds import get_kind

    df = read_cvat(_write_xml(tmp_path, "task_4.xml", STEP_TASK))
    kind = get_kind("keypoints_paw")
    assert kind.keypoints == ("heel", "toe", "claw")  # the order of <meta>'s sublabels
    paws = df[df["label"] == "paw"].set_index("item")
    # frames 10-19; the empty <skeleton> of 22 ends it (no labelled joint)
    assert paws.index.tolist() == [f"frame_{k:06d}" for k in (10, 13, 16, 19)]
    v = [f"keypoints_paw_{j}_v" for j in kind.keypoints]
    assert paws[v].to_numpy().tolist() == [
        [2.0, 2.0, 2.0],
        [2.0, 1.0, 2.0],  # the toe occluded
        [0.0, 2.0, 2.0],  # the heel outside
        [2.0, 0.0, 2.0],  # the toe not written
    ]
    assert paws["keypoints_paw_heel_x"].tolist() == [20.0, 23.0, 0.0, 29.0]
    assert paws["keypoints_paw_claw_x"].tolist() == [35.0, 38.0, 41.0, 44.0]
    assert paws["keyframe"].tolist() == [True, False, True, True]


def test_video_job_of_a_stepped_task_names_the_same_frames(tmp_path):
    # a job export gives its own start_frame/stop_frame in task frame numbers (CVAT
    # writes start_frame + segment start * step) and its segment from 0; the frame size
    # sits beside <job> in <meta>
    job = (
        STEP_TASK.replace("<task>", "<job>")
        .replace("</task>", "</job>")
        .replace(
            "<start_frame>10</start_frame><stop_frame>28</stop_frame>",
            "<start_frame>13</start_frame><stop_frame>22</stop_frame>",
        )
        .replace("<size>7</size>", "<size>4</size>")
        .replace("<start>0</start><stop>6</stop>", "<start>1</start><stop>4</stop>")
        .replace("<original_size><width>640</width><height>360</height></original_size>", "")
        .replace(
            "<dumped>",
            "<original_size><width>640</width><height>360</height></original_size><dumped>",
        )
    )
    df, dropped = read_cvat(_write_xml(tmp_path, "job_5.xml", job), return_dropped=True)
    assert sorted(set(df["item"])) == [f"frame_{k:06d}" for k in (13, 16, 19, 22)]
    assert (df["width"] == 640).all()
    # the shapes of frames 10 and 25-28 are past the job's frames (counted, not lost)
    assert set(dropped["reason"]) == {"frame_out_of_range"}
    task = read_cvat(_write_xml(tmp_path, "task_4.xml", STEP_TASK))
    keep = task["item"].isin(df["item"]) & task["x0"].notna()
    cols = ["item", "label", "x0", "y0", "x1", "y1"]
    pd.testing.assert_frame_equal(
        df[df["x0"].notna()][cols].reset_index(drop=True), task[keep][cols].reset_index(drop=True)
    )


def test_video_frame_filter_and_off_step_frames(tmp_path):
    # a shape between the kept frames is not a frame of the export: counted, not drawn
    off = STEP_TASK.replace(
        '<box frame="16" keyframe="1" outside="0"', '<box frame="17" keyframe="1" outside="0"'
    )
    df, dropped = read_cvat(_write_xml(tmp_path, "off.xml", off), return_dropped=True)
    assert dropped["reason"].tolist() == ["frame_off_step"]
    assert "step=3" in dropped["detail"].iloc[0] and "from 10" in dropped["detail"].iloc[0]
    assert "frame_000017" not in set(df["item"])
    for bad in ("step=0", "step=x", "range=1-5"):
        with pytest.raises(ReaderError, match=r"bad\.xml: <meta>: frame_filter .*step=N"):
            read_cvat(_write_xml(tmp_path, "bad.xml", STEP_TASK.replace("step=3", bad)))
    # without start_frame/stop_frame the segments count from 0 by the step
    noframes = STEP_TASK.replace("<start_frame>10</start_frame><stop_frame>28</stop_frame>", "")
    df = read_cvat(
        _write_xml(tmp_path, "seg.xml", noframes), on_invalid="drop", return_dropped=True
    )[0]
    assert sorted(set(df["item"])) == [f"frame_{k:06d}" for k in range(0, 19, 3)]


def test_images_skeleton_with_no_element_is_counted_not_raised(tmp_path):
    xml = """<annotations><version>1.1</version>
      <meta><task><assignee><username>ana</username></assignee></task></meta>
      <image id="0" name="a.jpg" width="100" height="80">
        <skeleton label="paw" source="manual" z_order="0"></skeleton>
        <box label="car" occluded="0" xtl="10" ytl="20" xbr="40" ybr="60"/>
      </image></annotations>"""
    df, dropped = read_cvat(_write_xml(tmp_path, "img.xml", xml), return_dropped=True)
    assert dropped["reason"].tolist() == ["keypoints_none_labelled"]
    assert df["label"].dropna().tolist() == ["car"]


def _image_xml(shapes: str, n_images: int = 1) -> str:
    images = "".join(
        f'<image id="{k}" name="{k}.jpg" width="200" height="100">{shapes}</image>'
        for k in range(n_images)
    )
    return f'<?xml version="1.0" encoding="utf-8"?>\n<annotations><version>1.1</version>{images}</annotations>'


def test_ellipses_are_polygons_of_their_area_and_orientation(tmp_path):
    """#45 item 4: a CVAT <ellipse> (cx, cy, rx, ry, rotation clockwise in degrees; CVAT
    for images 1.1) is read as the polygon of iaa_frames.geometry.ellipse, an exact area;
    a zero radius is dropped and counted; two annotators drawing the same ellipses agree
    fully."""
    shapes = (
        '<ellipse label="cell" source="manual" occluded="0" cx="50" cy="40" rx="20" ry="10" '
        'z_order="0"/>'
        '<ellipse label="cell" source="manual" occluded="0" cx="150" cy="50" rx="20" ry="5" '
        'rotation="90" z_order="0"/>'
    )
    for who in ("ann", "bob"):
        (tmp_path / f"{who}.xml").write_text(_image_xml(shapes, n_images=3))
    df = read_cvat([tmp_path / "ann.xml", tmp_path / "bob.xml"])
    one = df[(df["annotator"] == "ann") & (df["item"] == "0.jpg")].sort_values("x0")
    np.testing.assert_allclose(one["geometry"].map(lambda g: g.area), [np.pi * 200, np.pi * 100])
    first, turned = one["geometry"].tolist()
    assert first.bounds[2] - first.bounds[0] > first.bounds[3] - first.bounds[1]
    assert turned.bounds[3] - turned.bounds[1] > turned.bounds[2] - turned.bounds[0]
    res = iaf.agreement(df, n_boot=0, progress=False)
    assert (
        float(res["agreement"].sel(component="localization", label="(all)", annotator="(all)")) == 1
    )
    (tmp_path / "flat.xml").write_text(
        _image_xml('<ellipse label="cell" cx="5" cy="5" rx="0" ry="3" z_order="0"/>')
    )
    with pytest.warns(DroppedRowsWarning) as rec:
        read_cvat(tmp_path / "flat.xml", annotator="c")
    assert rec[0].message.counts == {"degenerate_ellipse": 1}
    (tmp_path / "bad.xml").write_text(
        _image_xml('<ellipse label="cell" cx="5" cy="x" rx="1" ry="3" z_order="0"/>')
    )
    with pytest.raises(ReaderError, match=r"bad\.xml: image\[0\] .*ellipse\[0\]: .*cy"):
        read_cvat(tmp_path / "bad.xml", annotator="c")


# ------------------------------------------- #41 S11, D3: attributes never replace a column

_VIDEO_ATTRS = """<annotations><version>1.1</version>
  <meta><job><start_frame>0</start_frame><stop_frame>1</stop_frame>
    <assignee><username>ana</username></assignee></job></meta>
  <track id="7" label="car">
    <box frame="0" keyframe="1" outside="0" occluded="0" xtl="0" ytl="0" xbr="10" ybr="10"
         rotation="0">
      <attribute name="track_id">99</attribute>
      <attribute name="keyframe">no</attribute>
      <attribute name="rotation">45</attribute>
      <attribute name="color">red</attribute>
      <attribute name="color">blue</attribute>
    </box>
    <box frame="1" keyframe="1" outside="1" occluded="0" xtl="0" ytl="0" xbr="10" ybr="10"/>
  </track>
</annotations>"""


def test_s11_a_track_attribute_never_replaces_the_track_identity(tmp_path):
    p = tmp_path / "video.xml"
    p.write_text(_VIDEO_ATTRS)
    df, dropped = read_cvat(p, return_dropped=True)
    obj = df[df["x0"].notna()]
    assert len(obj) == 1
    row = obj.iloc[0]
    assert row["track_id"] == 7  # not the attribute's 99
    assert isinstance(row["keyframe"], (bool, np.bool_)) and row["keyframe"]  # not "no"
    assert row["attr_track_id"] == "99" and row["attr_keyframe"] == "no"
    assert row["attr_rotation"] == "45" and row["geometry"] is None  # an upright box
    assert {"attr_track_id", "attr_keyframe", "attr_rotation"} <= set(df.attrs["iaa_attributes"])
    # D3: the second <attribute name="color"> is counted, not silently lost
    assert row["color"] == "red"
    dup = dropped[dropped["reason"] == "duplicate_attribute"]
    assert len(dup) == 1 and "'color'" in dup["entry"].iat[0] and "blue" in dup["record"].iat[0]


def test_d3_rotation_attribute_of_a_rotated_image_box_is_kept(tmp_path):
    p = tmp_path / "img.xml"
    p.write_text(
        """<annotations><version>1.1</version>
        <meta><task><assignee><username>ana</username></assignee></task></meta>
        <image id="0" name="a.jpg" width="100" height="80">
          <box label="car" occluded="0" xtl="10" ytl="10" xbr="30" ybr="20" rotation="90">
            <attribute name="rotation">left</attribute>
            <attribute name="attr_rotation">x</attribute>
          </box>
        </image></annotations>"""
    )
    df = read_cvat(p)
    row = df.iloc[0]
    assert row["rotation"] == 90 and row["geometry"] is not None
    assert row["attr_rotation"] == "left" and row["attr_attr_rotation"] == "x"


# ----------------------------------------------------- cuboids and rater kinds (issue #45)


def _cuboid(label, x, y, w, h, dx, dy, source="manual"):
    """A ``<cuboid>`` as CVAT for images writes it (XML 1.1): the first face's corners
    ``xtl1 ytl1 xbl1 ybl1 xtr1 ytr1 xbr1 ybr1``, the second's ending in 2."""
    c = {"tl1": (x, y), "bl1": (x, y + h), "tr1": (x + w, y), "br1": (x + w, y + h)}
    c |= {k[:2] + "2": (px + dx, py + dy) for k, (px, py) in list(c.items())}
    attrs = " ".join(f'x{k}="{px:g}" y{k}="{py:g}"' for k, (px, py) in c.items())
    return f'<cuboid label="{label}" source="{source}" occluded="0" {attrs} z_order="0"></cuboid>'


def _images(assignee, shapes):
    images = "".join(
        f'<image id="{i}" name="img{i}.jpg" width="640" height="480">{"".join(s)}</image>'
        for i, s in enumerate(shapes)
    )
    return (f"<annotations><version>1.1</version><meta><job><assignee><username>{assignee}"
            f"</username></assignee></job></meta>{images}</annotations>")  # fmt: skip


def test_cuboids_are_read_as_2d_cuboids_with_their_faces(tmp_path):
    text = _images("ana", [[_cuboid("car", 100, 100, 80, 60, 30, -20)], []])
    df = read_cvat(_write_xml(tmp_path, "ana.xml", text))
    car = row_of(df, label="car")
    front = [car[f"c2d_f{a}{k}"] for k in range(1, 5) for a in "xy"]
    back = [car[f"c2d_b{a}{k}"] for k in range(1, 5) for a in "xy"]
    assert front == [100, 100, 180, 100, 180, 160, 100, 160]  # tl, tr, br, bl
    assert back == [130, 80, 210, 80, 210, 140, 130, 140]
    assert (car.x0, car.y0, car.x1, car.y1) == (100, 80, 210, 160)
    assert car["source"] == "manual" and car["rater_kind"] == "human"
    # identical cuboids agree fully, a cuboid whose back face differs less
    shapes = [[_cuboid("car", 40 * i % 400, 30 + 7 * i % 300, 80, 60, 30, -20)] for i in range(40)]
    moved = [[_cuboid("car", 40 * i % 400, 30 + 7 * i % 300, 80, 60, 40, -10)] for i in range(40)]
    a = read_cvat(_write_xml(tmp_path, "a.xml", _images("a", shapes)))
    b = read_cvat(_write_xml(tmp_path, "b.xml", _images("b", shapes)))
    c = read_cvat(_write_xml(tmp_path, "c.xml", _images("c", moved)))
    p = iaf.pairwise(
        pd.concat([a, b, c], ignore_index=True), n_chance=300, n_boot=0, distance="iou"
    )
    assert float(p.sel(annotator_a="a", annotator_b="b")) == pytest.approx(1.0)
    assert 0 < float(p.sel(annotator_a="a", annotator_b="c")) < 1


def test_a_bow_tie_cuboid_is_dropped(tmp_path):
    # the first face's right corners swapped: its edges cross
    bad = _cuboid("car", 100, 100, 80, 60, 30, -20).replace('ytr1="100"', 'ytr1="160"')
    bad = bad.replace('ybr1="160"', 'ybr1="100"')
    with pytest.warns(DroppedRowsWarning) as rec:
        read_cvat(_write_xml(tmp_path, "bad.xml", _images("ana", [[bad]])), on_invalid="drop")
    assert rec[0].message.counts == {"degenerate_cuboid": 1}


def test_source_gives_the_rater_kind(tmp_path):
    shapes = [[
        '<box label="car" source="manual" occluded="0" xtl="1" ytl="1" xbr="9" ybr="9"/>',
        '<box label="car" source="auto" occluded="0" xtl="11" ytl="1" xbr="19" ybr="9"/>',
        '<box label="car" source="semi-auto" occluded="0" xtl="21" ytl="1" xbr="29" ybr="9"/>',
        '<box label="car" source="file" occluded="0" xtl="31" ytl="1" xbr="39" ybr="9"/>',
        '<box label="car" occluded="0" xtl="41" ytl="1" xbr="49" ybr="9"/>',
    ]]  # fmt: skip
    df = read_cvat(_write_xml(tmp_path, "ana.xml", _images("ana", shapes))).sort_values("x0")
    assert df["rater_kind"].tolist()[:3] == ["human", "machine", "human"]
    assert df["rater_kind"].iloc[3:].isna().all()
    assert rater_kinds(df) == {"ana": "mixed"}


def test_cuboids_and_rater_kinds_round_trip_through_write_cvat(tmp_path):
    from iaa_frames.io.writers import write_cvat

    shapes = [[_cuboid("car", 100, 100, 80, 60, 30, -20)],
              [_cuboid("car", 10, 20, 50, 40, -10, 5, source="auto")]]  # fmt: skip
    df = read_cvat(_write_xml(tmp_path, "ana.xml", _images("ana", shapes)))
    back = read_cvat(write_cvat(df, tmp_path / "out"), item_key="stem")
    cols = [c for c in df.columns if c.startswith("c2d_")] + ["rater_kind", "source"]
    a = df.dropna(subset=["x0"]).sort_values("x0")[cols].reset_index(drop=True)
    b = back.dropna(subset=["x0"]).sort_values("x0")[cols].reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)


CUBOID_TRACK = """<annotations><version>1.1</version>
<meta><task><size>3</size><mode>interpolation</mode><start_frame>0</start_frame>
<stop_frame>2</stop_frame><assignee><username>ana</username></assignee>
<original_size><width>640</width><height>480</height></original_size></task></meta>
<track id="0" label="car" source="auto">
{0}
{1}
</track></annotations>"""


def test_a_cuboid_track_moves_its_corners_linearly_between_keyframes(tmp_path):
    def at(frame, dx):
        shape = _cuboid("car", 100 + dx, 100, 80, 60, 30, -20)
        return shape.replace(
            'label="car" source="manual" ', f'frame="{frame}" outside="0" keyframe="1" '
        )

    text = CUBOID_TRACK.format(at(0, 0), at(2, 20))
    df = read_cvat(_write_xml(tmp_path, "video.xml", text)).sort_values("item")
    assert list(df["c2d_fx1"]) == [100, 110, 120]
    assert list(df["keyframe"]) == [True, False, True]
    assert set(df["rater_kind"]) == {"machine"}
