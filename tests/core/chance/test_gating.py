"""Tests for iaa_frames.core.chance.gating: the estimate of the boxes' overlaps that decides,
before any tree is built, whether the chance index is listed or pairings are drawn."""

import numpy as np
import pytest

from iaa_frames.core.chance import gating


def _sweep(box):
    order = np.argsort(box[:, 0], kind="stable")
    later = np.searchsorted(box[order, 0], box[order, 2], side="left") - np.arange(len(box)) - 1
    return order, np.maximum(later, 0)


def _exact(box):
    x = np.minimum(box[:, None, 2], box[None, :, 2]) > np.maximum(box[:, None, 0], box[None, :, 0])
    y = np.minimum(box[:, None, 3], box[None, :, 3]) > np.maximum(box[:, None, 1], box[None, :, 1])
    return (np.triu(x & y, 1)).sum()


@pytest.mark.parametrize("size", [0.02, 0.1, 0.4])
@pytest.mark.parametrize("seed", [0, 1])
def test_overlaps_estimate_is_close_to_the_exact_count(size, seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n = 2_000
    lo = rng.random((n, 2))
    box = np.column_stack([lo, lo + size * rng.uniform(0.5, 1.5, (n, 2))])
    monkeypatch.setattr(gating, "TREE_SAMPLE_PAIRS", 50)  # the subsampling is exercised
    estimate = gating._overlaps_estimate(box, *_sweep(box))
    assert estimate == pytest.approx(_exact(box), rel=0.15)


def test_overlaps_estimate_of_disjoint_boxes_is_zero():
    box = np.column_stack([np.arange(10.0), np.zeros(10), np.arange(10.0) + 0.5, np.ones(10)])
    assert gating._overlaps_estimate(box, *_sweep(box)) == 0.0


def test_overlaps_estimate_reads_the_same_counts_from_a_function():
    rng = np.random.default_rng(4)
    lo = rng.random((500, 2))
    box = np.column_stack([lo, lo + 0.1])
    order, later = _sweep(box)
    assert gating._overlaps_estimate(box, order, later) == gating._overlaps_estimate(
        box, order, lambda pos: later[pos]
    )


@pytest.mark.parametrize("budget", [0, 300, 3_000, 30_000, 10**9])
@pytest.mark.parametrize("size", [0.01, 0.2])
def test_the_probe_of_the_sweep_decides_as_the_full_count(budget, size, monkeypatch):
    # the probe counts the x overlaps of every 64th sorted box: a lower bound of the sum,
    # so past the budget it must decide what the sum of every box decides
    import iaa_frames as iaf
    from iaa_frames.core.matching.corpus import prepare

    df = iaf.simulate(n_items=150, seed=1)
    w = (df["x1"] - df["x0"]) * size * 10
    df = df.assign(x1=df["x0"] + w.where(w > 0, 1.0))
    corpus = prepare(df)
    monkeypatch.setattr(gating, "OBJECT_PAIR_BUDGET", budget)
    probed = gating.gated_pairings(corpus, 0.3)
    monkeypatch.setattr(gating, "_PROBE_STEP", 1)  # the probe is the full count
    full = gating.gated_pairings(corpus, 0.3)
    assert (probed is None) == (full is None)
    if full is not None:
        for x, y in zip(probed, full, strict=True):
            assert np.array_equal(x, y)


def _covered(members):
    """The unordered pairs the classes of _area_classes compare, each as often as it is
    compared."""
    seen = []
    for queried, targets in members:
        for target in targets:
            if target is queried:
                i, j = np.triu_indices(len(queried), 1)
                seen += list(zip(queried[i].tolist(), queried[j].tolist(), strict=True))
            else:
                for a in queried.tolist():
                    seen += [(min(a, b), max(a, b)) for b in target.tolist()]
    return seen


@pytest.mark.parametrize("tau", [0.05, 0.3, 0.5, 0.7, 0.999])
@pytest.mark.parametrize("seed", range(4))
def test_area_classes_compare_every_pair_the_bound_can_keep_exactly_once(tau, seed):
    """Brute force over every pair: compared exactly once, and compared wherever the
    areas' ratio reaches tau, one area is not finite and positive, or one shape has more
    than half the mask rule's coordinates (its pairs may get the mask IoU's bound)."""
    from types import SimpleNamespace

    import shapely

    from iaa_frames.geometry.distances import Shapes
    from iaa_frames.geometry.mask_rule import MASK_IOU_MIN_COORDINATES

    rng = np.random.default_rng(seed)
    n = 120
    area = np.exp(rng.uniform(np.log(1e-7), 0, n))
    area[rng.random(n) < 0.05] = 0.0
    area[rng.random(n) < 0.03] = np.nan
    area[:10] = (
        area[10] * np.r_[1, tau, tau * (1 + 1e-12), tau * (1 - 1e-12), 1 / tau, 2, 0.5, 1, 1, 1]
    )
    fine = rng.random(n) < 0.1  # traced with more than half the rule's coordinates
    ring = np.linspace(0, 2 * np.pi, MASK_IOU_MIN_COORDINATES // 2 + 1, endpoint=False)
    disc = shapely.Polygon(np.c_[np.cos(ring), np.sin(ring)])
    shapes = Shapes.from_geometries(np.where(fine, disc, shapely.box(0, 0, 1, 1)))
    coords = shapes.n_coords()
    assert (2 * coords[fine] > MASK_IOU_MIN_COORDINATES).all()
    members = gating._area_classes(SimpleNamespace(shapes=shapes, area=area), tau)
    covered = _covered(members)
    assert len(covered) == len(set(covered))
    i, j = np.triu_indices(n, 1)
    with np.errstate(invalid="ignore"):
        ratio = np.minimum(area[i], area[j]) / np.maximum(area[i], area[j])
        sized = np.isfinite(area) & (area > 0) & (2 * coords <= MASK_IOU_MIN_COORDINATES)
    must = (ratio >= tau * (1 - 1e-9)) | ~sized[i] | ~sized[j]
    covered = set(covered)
    missing = [
        p
        for p, m in zip(zip(i.tolist(), j.tolist(), strict=True), must, strict=True)
        if m and p not in covered
    ]
    assert not missing


def _polygon_corpus(seed):
    """Polygons of many sizes (areas over four orders of magnitude), some traced finely
    enough for the mask IoU (image sizes known), some boxes, three annotators."""
    import pandas as pd
    import shapely

    rng = np.random.default_rng(seed)
    rows = []
    for item in range(40):
        centres = rng.uniform(50, 590, (6, 2))
        radii = np.exp(rng.uniform(np.log(2), np.log(150), 6))
        for annotator in "abc":
            for k in range(6):
                c = centres[k] + rng.normal(0, 0.05 * radii[k], 2)
                r = radii[k] * rng.uniform(0.85, 1.15)
                if k == 0:
                    g = shapely.box(c[0] - r, c[1] - r / 2, c[0] + r, c[1] + r / 2)
                else:
                    m = 400 if k == 1 else int(rng.integers(5, 40))
                    ang = np.sort(rng.uniform(0, 2 * np.pi, m))
                    ring = c + np.c_[np.cos(ang), np.sin(ang)] * r * rng.uniform(0.6, 1, (m, 1))
                    g = shapely.make_valid(shapely.Polygon(ring))
                    if g.geom_type != "Polygon":
                        g = g.convex_hull
                rows.append(
                    dict(
                        item=f"i{item}",
                        annotator=annotator,
                        label=f"c{k % 3}",
                        geometry=g,
                        width=640.0,
                        height=480.0,
                    )
                )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("tau", [0.3, 0.5, 0.8])
def test_tree_by_area_class_lists_the_pairings_of_the_sweep_on_polygons(tau):
    """Polygons whose areas span four orders of magnitude, some with the mask IoU: the
    trees by area class list the pairings the sweep lists (no area class there)."""
    import iaa_frames as iaf
    from iaa_frames.core.matching.corpus import prepare

    corpus = prepare(iaf.validate(_polygon_corpus(3)))
    assert len(gating._area_classes(corpus, tau)) > 3
    sweep = gating.gated_pairings(corpus, tau)
    tree = gating._gated_by_tree(corpus, tau)
    assert sweep is not None and tree is not None and len(sweep[0]) > 0
    for s, t in zip(sweep, tree, strict=True):
        np.testing.assert_array_equal(s, t)
