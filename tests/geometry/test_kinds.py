"""The geometry-kind registry (iaa_frames.geometry.kinds), and a toy kind added here alone.

The toy kind is circles (centre and radius, columns ``cx, cy, radius``) with the exact IoU
of two discs by the lens-area formula. Defined and registered in this module only, it gets
validation, agreement, a chance baseline and dask equality with nothing else changed in
the package; its figures are cross-checked against the same circles drawn as fine polygons.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import iaa_frames as iaf
from iaa_frames.errors import IAAError, ParameterError
from iaa_frames.geometry import kinds
from iaa_frames.geometry.distances import Shapes, giou, iou
from iaa_frames.geometry.kinds import Kind, get_kind, register_kind, unregister_kind


def lens_area(pa, pb):
    """Area shared by discs ``(cx, cy, r)``: the lens-area formula (e.g. Weisstein,
    "Circle-Circle Intersection", MathWorld), vectorized."""
    d = np.hypot(pa[:, 0] - pb[:, 0], pa[:, 1] - pb[:, 1])
    r, s = pa[:, 2], pb[:, 2]
    # one disc inside the other (centres closer than 1e-12 of the radii count as one
    # centre: the lens formula loses all precision there, and the area differs by 1e-12)
    inside = (d <= np.abs(r - s)) | (d <= 1e-12 * (r + s))
    out = np.where(inside, np.pi * np.minimum(r, s) ** 2, 0.0)
    lens = (d < r + s) & ~inside
    if lens.any():
        d, r, s = d[lens], r[lens], s[lens]
        a = r**2 * np.arccos(np.clip((d**2 + r**2 - s**2) / (2 * d * r), -1, 1))
        b = s**2 * np.arccos(np.clip((d**2 + s**2 - r**2) / (2 * d * s), -1, 1))
        k = np.sqrt(np.maximum((-d + r + s) * (d + r - s) * (d - r + s) * (d + r + s), 0))
        out[lens] = a + b - k / 2
    return out


class Circles(Kind):
    """Discs ``(cx, cy, radius)``: the whole kind, in one class."""

    name = "circle"
    columns = ("cx", "cy", "radius")
    description = "discs (centre, radius), exact lens-area IoU"

    def bounds(self, p):
        return np.column_stack(
            [p[:, 0] - p[:, 2], p[:, 1] - p[:, 2], p[:, 0] + p[:, 2], p[:, 1] + p[:, 2]]
        )

    def areas(self, p):
        return np.pi * p[:, 2] ** 2

    def intersection(self, pa, pb):
        return lens_area(pa, pb)

    def to_polygons(self, p):
        return shapely.buffer(shapely.points(p[:, :2]), p[:, 2], quad_segs=256)

    def centroids(self, p):
        return p[:, :2].copy()


@pytest.fixture(scope="module", autouse=True)
def circle_kind():
    kind = register_kind(Circles())
    yield kind
    unregister_kind("circle")


def circle_corpus(n_items=40, seed=0, annotators=("a", "b", "c")):
    """Circles per item, redrawn by each annotator with noise, a miss now and then."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        k = rng.integers(1, 5)
        truth = np.column_stack(
            [rng.uniform(20, 80, k), rng.uniform(20, 80, k), rng.uniform(4, 12, k)]
        )
        labels = rng.choice(["cell", "nucleus"], k)
        for ann in annotators:
            drawn = 0
            for (cx, cy, r), lab in zip(truth, labels):
                if rng.random() < 0.1:
                    continue
                drawn += 1
                rows.append(
                    {
                        "item": f"img{i}",
                        "annotator": ann,
                        "label": str(lab),
                        "cx": cx + rng.normal(0, 1.0),
                        "cy": cy + rng.normal(0, 1.0),
                        "radius": r * rng.uniform(0.85, 1.15),
                    }
                )
            if not drawn:
                rows.append({"item": f"img{i}", "annotator": ann})
    return pd.DataFrame(rows)


def as_polygons_frame(df):
    """The same circles as fine polygons in the geometry column."""
    obj = df["radius"].notna().to_numpy()
    geom = np.full(len(df), None, dtype=object)
    p = df.loc[obj, ["cx", "cy", "radius"]].to_numpy(dtype=float)
    geom[obj] = Circles().to_polygons(p)
    return df.drop(columns=["cx", "cy", "radius"]).assign(geometry=geom)


# -- the registry ------------------------------------------------------------------------


def test_builtin_kinds_come_first():
    assert kinds.available_kinds()[:3] == ["box", "polygon", "mask"]
    assert "circle" in kinds.available_kinds()
    assert get_kind("box").native and get_kind("polygon").native
    assert not get_kind("circle").native


def test_unknown_kind_names_it():
    with pytest.raises(IAAError, match=r"unknown geometry kind 'ellipse'.*box, polygon, mask"):
        get_kind("ellipse")
    with pytest.raises(ParameterError, match="unknown geometry kind"):
        Shapes([[0, 0, 1, 1]], params={"ellipse": [[0.0]]})


def test_registering_twice():
    class Other(Circles):
        columns = ("ox", "oy", "oradius")

    with pytest.raises(ParameterError, match="'circle' is already registered"):
        register_kind(Circles())
    # overwrite replaces a parametric kind, never a native one
    assert register_kind(Circles(), overwrite=True).name == "circle"
    with pytest.raises(ParameterError, match="native kinds cannot be replaced"):
        register_kind(kinds.BoxKind(), overwrite=True)
    # a second kind cannot claim the columns of the first, nor those of the frame
    clash = Other()
    clash.name, clash.columns = "circle2", ("cx", "z", "w")
    with pytest.raises(ParameterError, match="are those of the kind 'circle'"):
        register_kind(clash)
    frame_cols = Other()
    frame_cols.name, frame_cols.columns = "circle3", ("x0", "r")
    with pytest.raises(ParameterError, match="belong to the tidy frame"):
        register_kind(frame_cols)
    with pytest.raises(ParameterError, match="needs a Kind"):
        register_kind("circle")
    with pytest.raises(ParameterError, match="cannot be removed"):
        unregister_kind("polygon")


def test_kind_of_rows():
    df = pd.DataFrame(
        {
            "x0": [0.0, 1.0, None, None],
            "y0": [0.0, 1.0, None, None],
            "x1": [1.0, 2.0, None, None],
            "y1": [1.0, 2.0, None, None],
            "geometry": [None, shapely.box(1, 1, 2, 2), None, None],
            "cx": [None, None, 5.0, None],
            "cy": [None, None, 5.0, None],
            "radius": [None, None, 1.0, None],
        }
    )
    assert kinds.kind_of_rows(df).tolist() == ["box", "polygon", "circle", ""]


def random_shapes(rng, n):
    """Random boxes, polygons (stars, some with holes) and circles, one per row."""
    cx, cy = rng.uniform(0, 10, n), rng.uniform(0, 10, n)
    size = rng.uniform(0.5, 3, n)
    boxes = np.column_stack([cx - size, cy - size / 2, cx + size, cy + size / 2])
    t = np.linspace(0, 2 * np.pi, 9)[:-1]
    polys = []
    for x, y, s in zip(cx, cy, size):
        rad = s * rng.uniform(0.4, 1.0, len(t))
        ring = np.column_stack([x + rad * np.cos(t), y + rad * np.sin(t)])
        p = shapely.Polygon(ring)
        if rng.random() < 0.3:
            p = p.difference(shapely.Point(x, y).buffer(0.15 * s))
        polys.append(shapely.make_valid(p))
    circles = np.column_stack([cx, cy, size])
    return boxes, np.array(polys, dtype=object), circles


def containers(rng, n):
    boxes, polys, circles = random_shapes(rng, n)
    return {
        "box": (Shapes(boxes), [shapely.box(*b) for b in boxes]),
        "polygon": (Shapes.from_geometries(polys), list(polys)),
        "circle": (
            Shapes(Circles().bounds(circles), params={"circle": circles}),
            list(Circles().to_polygons(circles)),
        ),
    }


@pytest.mark.parametrize("name", ["box", "polygon", "circle"])
def test_bounds_contain_the_shape_and_identical_shapes_have_iou_1(name):
    shapes, polygons = containers(np.random.default_rng(1), 200)[name]
    box = shapely.box(*shapes.boxes.T)
    assert shapely.covers(shapely.buffer(box, 1e-9), np.array(polygons, dtype=object)).all()
    np.testing.assert_allclose(iou(shapes, shapes), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(giou(shapes, shapes), 1.0, rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    ("left", "right", "atol"),
    [
        ("box", "box", 1e-12),
        ("polygon", "polygon", 1e-12),
        ("box", "polygon", 1e-12),
        # discs against the 1024-gon shapely draws them as: the polygon's error
        ("circle", "circle", 1e-4),
        ("circle", "polygon", 1e-4),
        ("box", "circle", 1e-4),
    ],
)
def test_iou_matches_shapely_by_brute_force(left, right, atol):
    rng = np.random.default_rng(7)
    made = containers(rng, 300)
    a, pa = made[left]
    b, pb = containers(rng, 300)[right]
    pa, pb = np.array(pa, dtype=object), np.array(pb, dtype=object)
    inter = shapely.area(shapely.intersection(pa, pb))
    want = inter / (shapely.area(pa) + shapely.area(pb) - inter)
    got = iou(a, b)
    assert (want > 0.05).sum() > 20  # the random cases overlap often enough to test
    np.testing.assert_allclose(got, want, rtol=0, atol=atol)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0, 5),
    st.floats(0, 5),
    st.floats(0.1, 3),
    st.floats(0, 5),
    st.floats(0, 5),
    st.floats(0.1, 3),
)
def test_lens_area_is_the_overlay_of_the_discs(x, y, r, u, v, s):
    pa, pb = np.array([[x, y, r]]), np.array([[u, v, s]])
    polys = Circles().to_polygons(np.vstack([pa, pb]))
    overlay = shapely.area(shapely.intersection(polys[0], polys[1]))
    lens = lens_area(pa, pb)[0]
    # the 1024-gons lie inside the discs and miss 6.3e-6 of their area each
    assert overlay <= lens + 1e-12
    assert lens - overlay <= 7e-6 * np.pi * (r**2 + s**2)


# -- the toy kind, end to end ---------------------------------------------------------------


def test_validation_fills_the_bounds_and_drops_bad_circles():
    df = pd.DataFrame(
        {
            "item": ["i", "i", "i", "i"],
            "annotator": ["a", "b", "c", "d"],
            "label": ["x", "x", "x", "x"],
            "cx": [10.0, 11.0, 5.0, 5.0],
            "cy": [10.0, 10.0, 5.0, None],
            "radius": [2.0, 2.0, 0.0, 1.0],
        }
    )
    res = iaf.check(df)
    assert res.counts == {"zero_area": 1, "nonfinite_coordinates": 1}
    assert res.frame[["x0", "y0", "x1", "y1"]].to_numpy().tolist() == [
        [8.0, 8.0, 12.0, 12.0],
        [9.0, 8.0, 13.0, 12.0],
    ]


def test_readers_add_circles_through_the_builder():
    from iaa_frames.io.builder import FrameBuilder

    b = FrameBuilder("toy")
    b.add_shape("img", "a", "cell", "circle", [10, 20, 5])
    b.add_box("img", "b", "cell", 5, 15, 15, 25)
    frame = iaf.validate(b.build())
    assert kinds.kind_of_rows(frame).tolist() == ["circle", "box"]
    assert frame[["x0", "y0", "x1", "y1"]].to_numpy().tolist() == [[5, 15, 15, 25]] * 2
    with pytest.raises(ParameterError, match="takes 3 parameters"):
        b.add_shape("img", "a", "cell", "circle", [1, 2])
    with pytest.raises(ParameterError, match="add_box, add_polygon"):
        b.add_shape("img", "a", "cell", "polygon", [1, 2])


@pytest.fixture(scope="module")
def circles():
    return circle_corpus()


def test_agreement_on_circles_equals_the_polygon_figures(circles):
    params = {"n_chance": 400, "n_boot": 0, "seed": 3, "distance": "iou"}
    got = iaf.agreement(circles, **params)
    want = iaf.agreement(as_polygons_frame(circles), **params)
    assert got.attrs["chance_population"] == want.attrs["chance_population"]
    for name in ("agreement", "observed", "expected", "n_units", "n_chance", "raw_iou"):
        np.testing.assert_allclose(
            got[name].values, want[name].values, rtol=0, atol=1e-4, equal_nan=True, err_msg=name
        )
    loc = got["agreement"].sel(component="localization", label="(all)", annotator="(all)")
    exp = got["expected"].sel(component="localization", label="(all)", annotator="(all)")
    assert float(loc) > 0.2 and 0.2 < float(exp) <= 1  # a real chance baseline


def test_default_distance_on_circles(circles):
    """GIoU (the default) uses the circles' polygons for the convex hulls."""
    got = iaf.agreement(circles, n_chance=200, n_boot=0, seed=1)
    want = iaf.agreement(as_polygons_frame(circles), n_chance=200, n_boot=0, seed=1)
    np.testing.assert_allclose(
        got["agreement"].values, want["agreement"].values, atol=1e-4, equal_nan=True
    )


def test_circles_with_boxes_in_one_frame(circles):
    """Circles of one annotator against their bounding squares drawn by another: every
    circle-box pair (the overlay of the circle's polygon and the box) has IoU pi / 4."""
    a = circles[(circles["annotator"] == "a") & circles["radius"].notna()]
    p = a[["cx", "cy", "radius"]].to_numpy()
    x0, y0, x1, y1 = Circles().bounds(p).T
    squares = a[["item", "label"]].assign(annotator="d", x0=x0, y0=y0, x1=x1, y1=y1)
    mixed = pd.concat([a, squares], ignore_index=True)
    assert set(kinds.kind_of_rows(iaf.validate(mixed))) == {"circle", "box"}
    res = iaf.agreement(mixed, n_chance=100, n_boot=0, seed=0, distance="iou")
    cell = {"component": "localization", "label": "(all)", "annotator": "(all)"}
    assert int(res["n_units"].sel(cell)) == len(a)
    np.testing.assert_allclose(float(res["raw_iou"].sel(cell)), np.pi / 4, atol=1e-5)


def test_anisotropic_images_are_refused(circles):
    df = circles.assign(width=200.0, height=100.0)
    with pytest.raises(ParameterError, match="'circle' cannot be normalized"):
        iaf.agreement(df, n_chance=50, n_boot=0)
    square = circles.assign(width=100.0, height=100.0)
    got = iaf.agreement(square, n_chance=100, n_boot=0, seed=0, distance="iou")
    want = iaf.agreement(circles, n_chance=100, n_boot=0, seed=0, distance="iou")
    np.testing.assert_allclose(
        got["agreement"].values, want["agreement"].values, atol=1e-12, equal_nan=True
    )


@pytest.mark.parametrize(("npartitions", "with_polygons"), [(1, False), (4, False), (3, True)])
def test_dask_equals_in_memory_on_circles(circles, npartitions, with_polygons):
    """Circles alone (their parameters travel with the index), and beside polygons drawn
    by another annotator (the chance pairings fetch the polygons from the partitions)."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    if with_polygons:
        drawn = as_polygons_frame(circles[circles["annotator"] == "c"]).assign(annotator="p")
        circles = pd.concat([circles, drawn], ignore_index=True)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(circles, npartitions=npartitions, sort=False)
    params = {"n_chance": 300, "n_boot": 20, "seed": 7}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = iaf.agreement(ddf, **params)
    want = iaf.agreement(circles, **params)
    assert got.attrs == want.attrs
    assert list(got.data_vars) == list(want.data_vars)
    for name, var in want.data_vars.items():
        a, b = got[name].values, var.values
        if np.issubdtype(b.dtype, np.number):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, equal_nan=True, err_msg=name)
        else:
            assert (a == b).all(), name
