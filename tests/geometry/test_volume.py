"""The volume kind (3D masks) and read_nifti: exact voxel IoU, spacing, agreement.

The synthetic corpus: scans of 40³ voxels, each with two blobs (balls of radius 5.5 to
6.5 voxels), one in each half of the scan (apart even when dilated by 3 voxels), of random labels 1 or 2 (so that unrelated scans
hold overlapping blobs of either label, as lesions of two grades would).
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import ndimage

import iaa_frames as iaf
from iaa_frames.errors import ParameterError, ReaderError, SchemaError
from iaa_frames.geometry.kinds import VOLUME, get_kind, kind_of_rows
from iaa_frames.geometry.kinds.ragged import Ragged
from iaa_frames.geometry.kinds.volume import (
    RUNS,
    VOLUME_COLUMNS,
    dice_from_iou,
    runs_voxels,
    shared_voxels,
    volume_params,
    voxel_runs,
)
from iaa_frames.geometry.shapes import Shapes

N = 40


def _ball(shape, centre, radius):
    g = np.indices(shape)
    return ((g - np.asarray(centre)[:, None, None, None]) ** 2).sum(0) <= radius**2


def _scan(rng, n=N):
    vol = np.zeros((n, n, n), np.uint8)
    for lo, hi in ((8, 10), (30, 32)):
        centre = [rng.uniform(lo, hi), rng.uniform(14, 26), rng.uniform(14, 26)]
        vol[_ball(vol.shape, centre, rng.uniform(5.5, 6.5))] = rng.integers(1, 3)
    return vol


def _dilated(vol, k):
    if k == 0:
        return vol.copy()
    out = np.zeros_like(vol)
    comp, n = ndimage.label(vol > 0)
    for c in range(1, n + 1):
        blob = comp == c
        lab = vol[blob][0]
        out[ndimage.binary_dilation(blob, iterations=k) & (out == 0)] = lab
    return out


@pytest.fixture(scope="module")
def scans():
    rng = np.random.default_rng(0)
    return {f"s{i:02d}": _scan(rng) for i in range(24)}


def _agreement(mapping, **kw):
    df = iaf.read_nifti(mapping, instances=True)
    kw = {"distance": "iou", "match_threshold": 0.2, "n_chance": 300, "n_boot": 0, **kw}
    res = iaf.agreement(df, seed=0, **kw)
    return res["agreement"].sel(label="(all)", annotator="(all)").to_series().to_dict()


def test_registered_and_rows():
    kind = get_kind("volume")
    assert kind is VOLUME and kind.columns == VOLUME_COLUMNS
    a = np.zeros((5, 5, 5), bool)
    a[1:3, 2:4, 0:5] = True
    df = pd.DataFrame([{"item": "s", "annotator": "ana", "label": "x", **volume_params(a)}])
    out = iaf.validate(df)
    assert kind_of_rows(out).tolist() == ["volume"]
    assert out[["x0", "y0", "x1", "y1"]].iloc[0].tolist() == [1.0, 2.0, 3.0, 4.0]


def _floats(rows):
    return np.array([[r[c] for c in VOLUME_COLUMNS] for r in rows], dtype=np.float64)


def _runs(rows):
    return Ragged.from_arrays([r[RUNS] for r in rows])


def test_runs_round_trip():
    ijk = np.array([[3, 1, 2], [0, 0, 0], [3, 1, 2], [3, 1, 3], [-5, 0, 1]])
    runs = voxel_runs(ijk)
    assert runs_voxels(runs).tolist() == [[-5, 0, 1], [0, 0, 0], [3, 1, 2], [3, 1, 3]]
    assert (runs[1::2] - runs[0::2]).tolist() == [1, 1, 2]  # (3, 1, 2..3) is one run
    with pytest.raises(ParameterError, match="voxel indices"):
        voxel_runs([[2**20, 0, 0]])


def test_voxel_iou_brute_force():
    rng = np.random.default_rng(1)
    ra, rb, want = [], [], []
    for _ in range(30):
        a = rng.random((6, 7, 5)) < 0.3
        b = rng.random((6, 7, 5)) < 0.3
        a[0, 0, 0] = b[0, 0, 0] = True
        ra.append(volume_params(a))
        rb.append(volume_params(b))
        want.append((a & b).sum() / (a | b).sum())
    pa, pb = _floats(ra), _floats(rb)
    inter = VOLUME.intersection(pa, pb, _runs(ra), _runs(rb))
    got = inter / (VOLUME.areas(pa) + VOLUME.areas(pb) - inter)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    # the matcher's bound holds: shared <= boxes' shared area x z overlap
    box_a, box_b = VOLUME.bounds(pa), VOLUME.bounds(pb)
    planar = np.clip(
        np.minimum(box_a[:, 2:], box_b[:, 2:]) - np.maximum(box_a[:, :2], box_b[:, :2]), 0, None
    ).prod(axis=1)
    assert (inter <= VOLUME.shared_bound(pa, pb, planar) + 1e-9).all()
    with pytest.raises(ParameterError, match="voxel runs"):
        VOLUME.intersection(pa, pb)


def _box(ijk):
    if not len(ijk):
        return [0, 0, 0, 0, 0, 0]  # an empty set: any box holds it
    return [*ijk.min(axis=0), *(ijk.max(axis=0) + 1)]


_masks = hnp.arrays(bool, hnp.array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=6))


@given(st.lists(st.tuples(_masks, _masks, st.integers(-3, 3)), min_size=1, max_size=12))
def test_shared_voxels_equal_brute_force(cases):
    # pairs of random masks of random shapes (one moved along x), in one call: the counts
    # are those of numpy on the dense arrays, by both searches
    ra, rb, want = [], [], []
    for a, b, dx in cases:
        ia, ib = np.argwhere(a), np.argwhere(b) + [dx, 0, 0]
        ra.append(voxel_runs(ia) if len(ia) else np.zeros(0, np.int64))
        rb.append(voxel_runs(ib) if len(ib) else np.zeros(0, np.int64))
        sa, sb = {tuple(v) for v in ia.tolist()}, {tuple(v) for v in ib.tolist()}
        want.append(len(sa & sb))
    # each pair as given, reversed, and every pair against the first's b (repeated rows)
    ya, yb = Ragged.from_arrays(ra), Ragged.from_arrays(rb)
    np.testing.assert_array_equal(shared_voxels(ya, yb), want)
    np.testing.assert_array_equal(shared_voxels(yb, ya), want)
    got = shared_voxels(ya, yb, search="bisect")
    np.testing.assert_array_equal(got, want)
    # with the sets' boxes (runs outside the other's box left out first), both searches
    box_a = np.array([_box(np.argwhere(a)) for a, _, _ in cases])
    box_b = np.array([_box(np.argwhere(b) + [dx, 0, 0]) for _, b, dx in cases])
    for search in ("sorted", "bisect"):
        got = shared_voxels(ya, yb, (box_a, box_b), search=search)
        np.testing.assert_array_equal(got, want)
        got = shared_voxels(yb, ya, (box_b, box_a), search=search)
        np.testing.assert_array_equal(got, want)
    first = yb.take(np.zeros(len(cases), np.int64))
    b0 = {tuple(v) for v in runs_voxels(rb[0]).tolist()} if len(rb[0]) else set()
    want0 = [len({tuple(v) for v in runs_voxels(r).tolist()} & b0) if len(r) else 0 for r in ra]
    np.testing.assert_array_equal(shared_voxels(ya, first), want0)


def test_shared_voxels_of_many_scans_in_one_call():
    # 40 pairs of 16³ blobs in one call, against numpy's count on the dense masks
    rng = np.random.default_rng(3)
    ra, rb, want = [], [], []
    g = np.indices((16, 16, 16))
    for _ in range(40):
        c, r = rng.uniform(4, 12, (2, 3)), rng.uniform(2, 6, 2)
        a = ((g - c[0][:, None, None, None]) ** 2).sum(0) <= r[0] ** 2
        b = ((g - c[1][:, None, None, None]) ** 2).sum(0) <= r[1] ** 2
        a[0, 0, 0] = b[15, 15, 15] = True
        ra.append(volume_params(a))
        rb.append(volume_params(b))
        want.append((a & b).sum())
    np.testing.assert_array_equal(shared_voxels(_runs(ra), _runs(rb)), want)


def test_translated_volumes_move_their_voxels():
    a = np.zeros((6, 6, 6), bool)
    a[1:3, 1:4, 2:5] = True
    b = np.zeros((6, 6, 6), bool)
    b[2:4, 1:4, 2:5] = True  # a moved by one voxel along x
    df = pd.DataFrame(
        [
            {"item": "s", "annotator": w, "label": "x", **volume_params(m)}
            for w, m in (("a", a), ("b", b))
        ]
    )
    shapes = Shapes.from_frame(iaf.validate(df))
    moved = shapes.take([0]).translated([1.2], [0.0])  # rounded to a whole voxel
    assert moved.boxes.tolist() == [[2.0, 1.0, 4.0, 4.0]]
    assert runs_voxels(moved.payloads["volume"].to_arrays()[0]).tolist() == np.argwhere(b).tolist()
    other = shapes.take([1])
    shared = VOLUME.intersection(
        moved.params["volume"],
        other.params["volume"],
        moved.payloads["volume"],
        other.payloads["volume"],
    )
    assert shared.tolist() == [18.0]  # all of b
    assert shapes.payloads["volume"].to_arrays()[0].tolist() == voxel_runs(np.argwhere(a)).tolist()


def test_dice_from_iou_brute_force():
    rng = np.random.default_rng(2)
    a, b = rng.random((8, 8, 8)) < 0.4, rng.random((8, 8, 8)) < 0.4
    iou = (a & b).sum() / (a | b).sum()
    assert dice_from_iou(iou) == pytest.approx(2 * (a & b).sum() / (a.sum() + b.sum()))


def test_spacing_gives_mm3(tmp_path):
    nib = pytest.importorskip("nibabel")
    vol = np.zeros((6, 6, 6), np.int16)
    vol[1:4, 1:3, 2:4] = 3  # 12 voxels
    img = nib.Nifti1Image(vol, affine=np.diag([2.0, 1.0, 1.0, 1.0]))
    path = tmp_path / "ana.nii.gz"
    nib.save(img, path)
    df = iaf.read_nifti({"scan": {"ana": path}})
    assert df["vol_voxels"].tolist() == [12.0]
    assert df["vol_voxel_mm3"].tolist() == [2.0]
    assert df["volume_mm3"].tolist() == [24.0]
    assert VOLUME.areas(VOLUME.read(df)).tolist() == [24.0]


def test_reader_on_nifti_files(tmp_path):
    nib = pytest.importorskip("nibabel")
    a = np.zeros((10, 10, 10), np.uint8)
    a[1:4, 1:4, 1:4] = 1
    a[6:9, 6:9, 6:9] = 1
    a[1:3, 6:9, 1:3] = 2
    b = a.copy()
    b[6:9, 6:9, 6:9] = 0
    c = np.zeros_like(a)
    zooms = np.diag([1.5, 1.5, 3.0, 1.0])
    paths = {}
    for who, vol in (("ana", a), ("ben", b), ("cy", c)):
        paths[who] = tmp_path / f"{who}.nii.gz"
        nib.save(nib.Nifti1Image(vol, zooms), paths[who])
    df = iaf.read_nifti({"scan": paths}, labels={1: "lesion", 2: "cyst"})
    objects = df[df["vol_voxels"].notna()]
    assert sorted(zip(objects["annotator"], objects["label"])) == [
        ("ana", "cyst"),
        ("ana", "lesion"),
        ("ben", "cyst"),
        ("ben", "lesion"),
    ]
    # the annotator who marked nothing is a coverage row
    assert df[df["annotator"] == "cy"]["vol_voxels"].isna().all()
    lesion = objects[objects["label"] == "lesion"].set_index("annotator")
    assert lesion["vol_voxels"].to_dict() == {"ana": 54.0, "ben": 27.0}
    assert lesion["volume_mm3"].to_dict() == {"ana": 54 * 6.75, "ben": 27 * 6.75}
    inst = iaf.read_nifti({"scan": paths}, instances=True, labels=[1])
    assert sorted(inst["object_id"].dropna()) == ["ana/scan/1#1", "ana/scan/1#2", "ben/scan/1#1"]
    over = iaf.volume_overlap(df).set_index(["label", "annotator_a", "annotator_b"])
    assert over.loc[("lesion", "ana", "ben"), "iou"] == pytest.approx(0.5)
    assert over.loc[("lesion", "ana", "ben"), "dice"] == pytest.approx(2 / 3)
    assert over.loc[("lesion", "ana", "cy"), "iou"] == 0.0
    assert over.loc[("cyst", "ana", "ben"), "iou"] == 1.0


def test_reader_refuses_mismatched_grids():
    a = np.zeros((4, 4, 4), np.uint8)
    a[1, 1, 1] = 1
    with pytest.raises(ReaderError, match="one grid"):
        iaf.read_nifti({"s": {"ana": a, "ben": np.zeros((4, 4, 5), np.uint8)}})


def test_identical_annotators_agree_fully(scans):
    got = _agreement({k: {"ana": v, "ben": v.copy()} for k, v in scans.items()})
    assert got == {"detection": 1.0, "classification": 1.0, "localization": 1.0, "overall": 1.0}


def test_identical_balls_agree_fully_with_the_default_distance(scans):
    """GIoU (the default distance, and the overall component's similarity) of a ball with
    itself is 1: its penalty counts the space between two volumes, not a ball's corners
    inside its box (which gave localization 0.51 and overall 0.60 for identical
    annotators)."""
    got = _agreement(
        {k: {"ana": v, "ben": v.copy()} for k, v in scans.items()},
        distance="giou",
        match_threshold=0.5,
    )
    assert got == {"detection": 1.0, "classification": 1.0, "localization": 1.0, "overall": 1.0}
    loc = [
        _agreement(
            {s: {"ana": v, "ben": _dilated(v, k)} for s, v in scans.items()},
            distance="giou",
            match_threshold=0.2,
        )
        for k in (1, 2)
    ]
    assert 0 < loc[1]["localization"] < loc[0]["localization"] < 1
    assert 0 < loc[1]["overall"] < loc[0]["overall"] < 1


def test_dilation_ladder_is_monotone(scans):
    loc = []
    for k in (0, 1, 2, 3):
        got = _agreement({s: {"ana": v, "ben": _dilated(v, k)} for s, v in scans.items()})
        assert got["detection"] == pytest.approx(1.0)
        loc.append(got["localization"])
    assert loc[0] == pytest.approx(1.0)
    assert all(np.diff(loc) < 0), loc


def test_random_blobs_are_chance():
    # each annotator's blobs drawn independently of the scan: 60 scans (the figures of
    # a few dozen matched pairs move by about ±0.1 from seed to seed)
    rng = np.random.default_rng(7)
    mapping = {f"s{i:02d}": {"ana": _scan(rng), "ben": _scan(rng)} for i in range(60)}
    got = _agreement(mapping)
    for component in ("detection", "classification", "localization", "overall"):
        assert abs(got[component]) < 0.1, got


def _structured_scan(rng, n=N):
    # image-blind structure: each label has its own region and size in every scan (small
    # lesions of label 1 in the front third, large ones of label 2 at the back), drawn
    # with no regard to what the scan shows
    vol = np.zeros((n, n, n), np.uint8)
    for label, (lo, hi), radius in ((1, (6, 12), (3.5, 4.5)), (2, (24, 32), (6.0, 7.5))):
        centre = [rng.uniform(lo, hi), rng.uniform(12, 28), rng.uniform(12, 28)]
        vol[_ball(vol.shape, centre, rng.uniform(*radius))] = label
    return vol


def test_random_blobs_with_image_blind_structure_are_chance():
    # the labels' regions and sizes agree across annotators by construction, not by
    # looking at the scan: the chance pairs of other scans share that structure, so
    # nothing of it counts as agreement
    rng = np.random.default_rng(11)
    mapping = {
        f"s{i:02d}": {"ana": _structured_scan(rng), "ben": _structured_scan(rng)} for i in range(60)
    }
    got = _agreement(mapping)
    # measured: detection -0.035, localization 0.062, overall -0.013; classification is
    # undefined (NaN): a label's region decides it, so no matched pair, within a scan or
    # across two, ever disagrees on it
    assert np.isnan(got["classification"]), got
    for component in ("detection", "localization", "overall"):
        assert abs(got[component]) < 0.1, got


@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_equals_in_memory_on_volumes(scans, npartitions):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    df = iaf.read_nifti(
        {s: {"ana": v, "ben": _dilated(v, 1)} for s, v in scans.items()}, instances=True
    )
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=npartitions, sort=False)
    params = {"distance": "iou", "match_threshold": 0.2, "n_chance": 300, "n_boot": 20, "seed": 7}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = iaf.agreement(ddf, **params)
    want = iaf.agreement(df, **params)
    assert got.attrs == want.attrs
    for name, var in want.data_vars.items():
        a, b = got[name].values, var.values
        if np.issubdtype(b.dtype, np.number):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, equal_nan=True, err_msg=name)
        else:
            assert (a == b).all(), name


def _nifti1_bytes(vol: np.ndarray, zooms) -> bytes:
    """A NIfTI-1 single file (``.nii``) written from the format's specification
    (nifti1.h: the 348-byte header, 4 bytes of extension flag, the data from byte 352 with
    the first index varying fastest), not by nibabel."""
    import struct

    hdr = bytearray(348)
    struct.pack_into("<i", hdr, 0, 348)  # sizeof_hdr
    struct.pack_into("<8h", hdr, 40, 3, *vol.shape, 1, 1, 1, 1)  # dim
    struct.pack_into("<hh", hdr, 70, 2, 8)  # datatype DT_UNSIGNED_CHAR, bitpix
    struct.pack_into("<8f", hdr, 76, 1.0, *zooms, 1.0, 1.0, 1.0, 1.0)  # pixdim (qfac 1)
    struct.pack_into("<f", hdr, 108, 352.0)  # vox_offset
    struct.pack_into("<ff", hdr, 112, 1.0, 0.0)  # scl_slope, scl_inter
    hdr[123] = 2  # xyzt_units: NIFTI_UNITS_MM
    struct.pack_into("<hh", hdr, 252, 0, 0)  # qform_code, sform_code: none
    hdr[344:348] = b"n+1\0"  # magic: single file
    return bytes(hdr) + b"\0\0\0\0" + np.asarray(vol, np.uint8).tobytes(order="F")


def test_reader_on_files_written_from_the_specification(tmp_path):
    import gzip

    pytest.importorskip("nibabel")
    vol = np.zeros((5, 4, 3), np.uint8)
    vol[4, 0, 0] = 1  # a voxel at the end of the fastest (first) axis
    vol[0, 3, 2] = 2
    vol[1:3, 1:3, 1] = 2
    (tmp_path / "ana.nii").write_bytes(_nifti1_bytes(vol, (0.5, 0.5, 4.0)))
    (tmp_path / "ben.nii.gz").write_bytes(gzip.compress(_nifti1_bytes(vol, (0.5, 0.5, 4.0))))
    df = iaf.read_nifti({"scan": {"ana": tmp_path / "ana.nii", "ben": tmp_path / "ben.nii.gz"}})
    for who in ("ana", "ben"):
        rows = df[df["annotator"] == who].set_index("label")
        assert runs_voxels(rows.loc["1", RUNS]).tolist() == [[4, 0, 0]]
        two = runs_voxels(rows.loc["2", RUNS]).tolist()
        assert two == [[0, 3, 2], [1, 1, 1], [1, 2, 1], [2, 1, 1], [2, 2, 1]]
        assert rows.loc["2", "volume_mm3"] == 5 * 0.5 * 0.5 * 4.0
        assert rows.loc["2", ["x0", "y0", "x1", "y1"]].tolist() == [0.0, 1.0, 3.0, 4.0]
    inst = iaf.read_nifti({"scan": {"ana": tmp_path / "ana.nii"}}, instances=True)
    assert sorted(inst["vol_voxels"]) == [1.0, 1.0, 4.0]
    corner = iaf.read_nifti({"scan": {"ana": tmp_path / "ana.nii"}}, instances=True, connectivity=3)
    # (0, 3, 2) touches (1, 2, 1) by a corner only: one lesion with corners connected
    assert sorted(corner["vol_voxels"]) == [1.0, 5.0]


def test_staple_recovers_the_volume_two_of_three_drew(scans):
    items = dict(list(scans.items())[:6])
    df = iaf.read_nifti(
        {s: {"ana": v, "ben": v.copy(), "cy": _dilated(v, 2)} for s, v in items.items()},
        labels=[1, 2],
    )
    consensus, perf = iaf.volume_staple(df)
    truth = iaf.read_nifti({s: {"ana": v} for s, v in items.items()}, labels=[1, 2])
    want = truth.set_index(["item", "label"])[RUNS].sort_index().map(tuple)
    got = consensus.set_index(["item", "label"])[RUNS].sort_index().map(tuple)
    assert got.equals(want)
    mean = perf.groupby("annotator")[["sensitivity", "specificity"]].mean()
    assert (mean["sensitivity"] > 0.99).all()
    assert mean.loc["cy", "specificity"] < mean.loc["ana", "specificity"] - 0.1


def _frame_of_blobs(n_scans=6):
    rng = np.random.default_rng(5)
    scans = {f"s{i}": _scan(rng) for i in range(n_scans)}
    return iaf.read_nifti(
        {s: {"ana": v, "ben": _dilated(v, 1)} for s, v in scans.items()}, instances=True
    )


_SETTINGS = {"distance": "iou", "match_threshold": 0.2, "n_chance": 200, "n_boot": 20, "seed": 3}


def test_parquet_round_trip_gives_the_same_agreement(tmp_path):
    pytest.importorskip("pyarrow")
    df = _frame_of_blobs()
    iaf.to_parquet(df, tmp_path / "vol")
    back = iaf.read_parquet(tmp_path / "vol")
    vols = back[back["vol_voxels"].notna()]
    assert all(isinstance(r, np.ndarray) and r.dtype == np.int64 for r in vols[RUNS])
    want, got = iaf.agreement(df, **_SETTINGS), iaf.agreement(back, **_SETTINGS)
    for name, var in want.data_vars.items():
        if np.issubdtype(var.dtype, np.number):
            np.testing.assert_array_equal(got[name].values, var.values, err_msg=name)


def test_agreement_in_another_process_from_parquet(tmp_path):
    # no state of this process is needed: a fresh interpreter reads the file and
    # measures the same agreement
    pytest.importorskip("pyarrow")
    df = _frame_of_blobs()
    iaf.to_parquet(df, tmp_path / "vol")
    want = iaf.agreement(df, **_SETTINGS)["agreement"].sel(label="(all)", annotator="(all)")
    code = (
        "import json, sys, iaa_frames as iaf\n"
        f"res = iaf.agreement(iaf.read_parquet(sys.argv[1]), **{_SETTINGS!r})\n"
        "a = res['agreement'].sel(label='(all)', annotator='(all)')\n"
        "print(json.dumps(a.values.tolist()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "vol")],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    np.testing.assert_array_equal(np.array(got, dtype=np.float64), want.values)


def test_dask_worker_processes_equal_in_memory():
    # the partitions travel to worker processes: their voxels go with them
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    df = _frame_of_blobs()
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=3, sort=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with dask.config.set(scheduler="processes", num_workers=2):
            got = iaf.agreement(ddf, **_SETTINGS)
        want = iaf.agreement(df, **_SETTINGS)
    for name, var in want.data_vars.items():
        if np.issubdtype(var.dtype, np.number):
            np.testing.assert_allclose(
                got[name].values, var.values, rtol=0, atol=1e-12, equal_nan=True, err_msg=name
            )


def test_no_module_level_voxel_store():
    import iaa_frames.geometry.kinds.volume as vol
    import iaa_frames.geometry.kinds.voxel_runs as runs

    for module in (vol, runs):
        stores = [
            k for k, v in vars(module).items() if isinstance(v, dict) and not k.startswith("__")
        ]
        assert stores == [], stores


def test_volume_rows_without_their_runs_are_refused():
    df = _frame_of_blobs(2)
    with pytest.raises(SchemaError, match="vol_runs"):
        Shapes.from_frame(df.drop(columns=[RUNS]))
    bad = df.copy()
    row = int(np.flatnonzero(bad["vol_voxels"].notna())[0])
    bad.at[bad.index[row], "vol_voxels"] += 1.0  # no longer the runs' count
    with pytest.raises(SchemaError, match="counting"):
        iaf.agreement(bad, **_SETTINGS)


def test_reader_names_a_broken_file(tmp_path):
    pytest.importorskip("nibabel")
    bad = tmp_path / "ana.nii.gz"
    bad.write_bytes(b"not a volume at all")
    with pytest.raises(ReaderError, match="ana.nii.gz"):
        iaf.read_nifti({"s": {"ana": bad}})
    cut = tmp_path / "ben.nii"
    vol = np.zeros((5, 4, 3), np.uint8)
    cut.write_bytes(_nifti1_bytes(vol, (1.0, 1.0, 1.0))[:360])  # the data cut short
    with pytest.raises(ReaderError, match="ben.nii"):
        iaf.read_nifti({"s": {"ben": cut}})
    with pytest.raises(ParameterError, match="a volume is a path"):
        iaf.read_nifti({"s": {"ana": 3}})


def test_reader_checks_declared_size_before_allocating(tmp_path):
    import gzip
    import struct

    pytest.importorskip("nibabel")
    vol = np.zeros((5, 4, 3), np.uint8)
    data = bytearray(_nifti1_bytes(vol, (1.0, 1.0, 1.0)))
    struct.pack_into("<8h", data, 40, 3, 3000, 3000, 3000, 1, 1, 1, 1)  # 27 GB declared
    (tmp_path / "huge.nii").write_bytes(bytes(data))
    (tmp_path / "huge.nii.gz").write_bytes(gzip.compress(bytes(data)))
    for name in ("huge.nii", "huge.nii.gz"):
        with pytest.raises(ReaderError, match=name + ".*declares 27,000,000,352 bytes"):
            iaf.read_nifti({"s": {"ana": tmp_path / name}})
    struct.pack_into("<8h", data, 40, 3, 5, -4, 3, 1, 1, 1, 1)
    (tmp_path / "neg.nii").write_bytes(bytes(data))
    with pytest.raises(ReaderError, match="neg.nii.*not positive"):
        iaf.read_nifti({"s": {"ana": tmp_path / "neg.nii"}})
    struct.pack_into("<hh", data, 70, 32, 64)  # DT_COMPLEX64
    struct.pack_into("<8h", data, 40, 3, 5, 4, 3, 1, 1, 1, 1)
    (tmp_path / "cplx.nii").write_bytes(bytes(data))
    with pytest.raises(ReaderError, match="cplx.nii.*datatype 32"):
        iaf.read_nifti({"s": {"ana": tmp_path / "cplx.nii"}})
    assert issubclass(ReaderError, iaf.errors.IAAError)


def test_volume_sample_is_packaged_and_reads():
    import volume_sample

    from iaa_frames.io.samples import sample_path

    pytest.importorskip("nibabel")
    root = sample_path("volumes")
    packaged = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.glob("*/*.nii.gz")}
    assert packaged == volume_sample.files()  # what the writer writes, byte for byte
    df = iaf.load_sample("volumes")
    assert sorted(df["annotator"].unique()) == ["ana", "ben", "cy"]
    assert df["item"].nunique() == 6
    assert set(df["label"].dropna()) == {"lesion", "cyst"}
    assert (df["vol_voxel_mm3"].dropna() == 2.5).all()
    # cy misses one lesion per scan: one object fewer per scan than ana
    n = df[df["vol_voxels"].notna()].groupby("annotator").size()
    assert n["ana"] == n["ben"] == n["cy"] + 6
    got = iaf.agreement(df, distance="iou", n_boot=0, n_chance=100, seed=0)
    loc = got["agreement"].sel(label="(all)", annotator="(all)", component="localization")
    assert 0 < float(loc) < 1
