# Over 400 lines: the public 2D simulators (simulate, simulate_with_truth), their parameter
# checks and the tidy frames they build, which read together.
"""The public simulators: validation of their parameters, and the tidy frame of the
annotations (with coverage rows) and of the truth."""

from __future__ import annotations

import contextvars
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import check_int

from .annotators import T_SIZE, TRUTH, World, annotate, stream, truth_objects
from .attributes import attribute_frames, check_attributes
from .limits import check_names, check_size, corpus_rows
from .profiles import PRESETS, Profile, as_profile
from .shapes import finish_shapes

#: Image sizes (width, height) drawn uniformly per item when ``image_size`` is None.
COMMON_IMAGE_SIZES = (
    (640, 480),
    (800, 600),
    (1024, 768),
    (1280, 720),
    (1280, 960),
    (1920, 1080),
    (1080, 1080),
    (512, 512),
    (480, 640),
    (720, 1280),
)

_KINDS = ("box", "polygon", "mixed")
_LAYOUTS = ("random", "single_center")
_OBJECTS_PER = ("poisson", "fixed")
#: The public function the user called, for the messages (``simulate`` runs this module's
#: ``simulate_with_truth``).
_CALLED = contextvars.ContextVar("iaa_frames_simulator", default="simulate_with_truth")


class Simulated(NamedTuple):
    """What :func:`simulate_with_truth` returns.

    Attributes
    ----------
    annotations : pandas.DataFrame
        The tidy annotation frame, with a ``truth_id`` column (``Int64``) naming the true
        object each row redraws (NA for false positives, random and lazy-center draws, and
        coverage rows).
    truth : pandas.DataFrame
        One row per true object: ``item, truth_id, label, x0, y0, x1, y1, geometry,
        width, height``.
    """

    annotations: pd.DataFrame
    truth: pd.DataFrame


def _check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ParameterError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}"
        )
    return value


def check_classes(classes, class_weights):
    """``(classes, probabilities)``: a tuple of distinct non-empty class names, and the
    normalized ``class_weights`` (None: uniform); a :class:`ParameterError` otherwise."""
    if isinstance(classes, str) or not isinstance(classes, Sequence) or len(classes) == 0:
        raise ParameterError(
            f"classes must be a non-empty sequence of strings (e.g. ('car', 'person')), "
            f"got {classes!r}"
        )
    classes = tuple(classes)
    if not all(isinstance(k, str) and k for k in classes):
        raise ParameterError(f"classes must be non-empty strings, got {classes!r}")
    if len(set(classes)) != len(classes):
        raise ParameterError(f"classes must be distinct, got {classes!r}")
    if ALL in classes:
        raise ParameterError(f"the class name {ALL!r} is reserved")
    if class_weights is None:
        return classes, None
    try:
        w = np.asarray(class_weights, dtype=float)
    except (TypeError, ValueError):
        w = None
    if w is None or w.shape != (len(classes),) or not np.all(np.isfinite(w)) \
            or np.any(w < 0) or w.sum() <= 0:  # fmt: skip
        raise ParameterError(
            f"class_weights must be {len(classes)} finite non-negative numbers (one per "
            f"class) with a positive sum, got {class_weights!r}"
        )
    return classes, w / w.sum()


def _check_annotators(annotators):
    if annotators is None:
        annotators = {"A": "good", "B": "good", "C": "good"}
    if not isinstance(annotators, Mapping) or len(annotators) == 0:
        raise ParameterError(
            "annotators must be a non-empty dict {name: profile} where a profile is a "
            f"Profile, a dict of its fields or a preset name ({', '.join(PRESETS)}); "
            f"got {annotators!r}"
        )
    check_names(annotators)
    return {name: as_profile(name, value) for name, value in annotators.items()}


def check_image_size(image_size, *, required: bool = False):
    """``(width, height)`` as floats (None stays None unless ``required``), both finite and
    >= 4 pixels; a :class:`ParameterError` otherwise."""
    if image_size is None:
        if required:
            raise ParameterError("image_size must be (width, height) in pixels; got None")
        return None
    ok = (
        isinstance(image_size, Sequence)
        and not isinstance(image_size, str)
        and len(image_size) == 2
        and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in image_size)
        and all(math.isfinite(v) and v >= 4 for v in image_size)
    )
    if not ok:
        raise ParameterError(
            f"image_size must be None or (width, height) in pixels, both >= 4, got {image_size!r}"
        )
    return float(image_size[0]), float(image_size[1])


def _check_vertices(vertices):
    ok = (
        isinstance(vertices, Sequence)
        and len(vertices) == 2
        and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in vertices)
        and 5 <= vertices[0] <= vertices[1] <= 64
    )
    if not ok:
        raise ParameterError(
            f"vertices must be (min, max) integers with 5 <= min <= max <= 64, got {vertices!r}"
        )
    return int(vertices[0]), int(vertices[1])


def simulate_with_truth(
    *,
    n_items: int = 100,
    annotators: Mapping[str, Profile | Mapping | str] | None = None,
    kind: str = "box",
    classes: Sequence[str] = ("car", "person", "bicycle"),
    objects_per_item: float = 4,
    seed: int = 0,
    image_size: tuple[float, float] | None = None,
    objects_per: str = "poisson",
    class_weights: Sequence[float] | None = None,
    layout: str = "random",
    vertices: tuple[int, int] = (5, 12),
    attributes: Mapping[str, Sequence] | None = None,
) -> Simulated:
    """Simulate a corpus: true objects per item, and each annotator's redrawing of them.

    Parameters
    ----------
    n_items : int, default 100
        Number of items (images), named ``"img_00000"``, ``"img_00001"``, ... (zero-padded
        to at least five digits, so that string order is numeric order).
    annotators : dict {str: Profile or dict or str}, optional
        Annotator name to profile: a :class:`Profile`, a dict of its fields (optionally
        with a ``"preset"`` key as the base), or a preset name from :data:`PRESETS`
        (``"perfect"``, ``"good"``, ``"sloppy"``, ``"misser"``, ``"mislabeler"``,
        ``"random"``, ``"mirror"``, ``"lazy-center"``). Default: three ``"good"``
        annotators ``"A"``, ``"B"``, ``"C"``.
    kind : {"box", "polygon", "mixed"}, default "box"
        Shapes of the true objects. ``"polygon"`` gives star-shaped polygons with
        ``vertices`` vertices; ``"mixed"`` makes each object a box or a polygon with
        probability 1/2. Annotators redraw an object in its own kind; false positives and
        random draws follow ``kind`` too.
    classes : sequence of str, default ("car", "person", "bicycle")
        Class names.
    objects_per_item : float, default 4
        Mean number of true objects per item (Poisson, so some items have none), or the
        exact number with ``objects_per="fixed"``. Ignored by ``layout="single_center"``.
    seed : int, default 0
        Seed of every random draw (see the module notes on streams).
    image_size : (float, float), optional
        Fixed (width, height) in pixels. By default each item draws one of
        ``COMMON_IMAGE_SIZES``.
    objects_per : {"poisson", "fixed"}, default "poisson"
        Distribution of the number of true objects per item.
    class_weights : sequence of float, optional
        Relative class frequencies of the true objects (class imbalance). False positives
        and random draws use uniform classes.
    layout : {"random", "single_center"}, default "random"
        ``"random"``: objects of 5–40 % of the image side (log-uniform, varied aspect)
        anywhere in the image. ``"single_center"``: exactly one large object per item
        (35–65 % of each side), centred up to ±10 % off the image centre.
    vertices : (int, int), default (5, 12)
        Range of the number of polygon vertices (each polygon draws its own count).
    attributes : dict {str: list}, optional
        Per-object attributes: name to its values (at least two distinct values of one
        type: bool, int, float or str). Every true object draws a value uniformly; an
        annotator keeps it or, with probability ``Profile.attribute_flip``, takes another
        (:mod:`iaa_frames.simulate.attributes`). Each becomes a column of the annotations
        and of the truth (missing on coverage rows), and the annotations'
        ``attrs["iaa_attributes"]`` lists them (what
        :func:`iaa_frames.attribute_agreement` reads).

    Returns
    -------
    Simulated
        ``annotations``: the tidy frame with columns ``item, annotator, label, object_id,
        x0, y0, x1, y1, geometry, width, height, truth_id``, sorted by item and annotator.
        Boxes are clipped to the image with positive area; polygon rows carry a valid
        shapely Polygon in ``geometry`` and its bounds in ``x0..y1``; box rows have
        ``geometry=None``. Every annotator who reviewed an item and drew nothing on it has
        exactly one coverage row (NA label, NaN coordinates). ``truth``: one row per true
        object (``item, truth_id, label, x0, y0, x1, y1, geometry, width, height``).

    Raises
    ------
    ParameterError
        For an invalid parameter, unknown preset or unknown profile field, or a corpus of
        more rows than :data:`~iaa_frames.simulate.limits.MAX_SIMULATED_ROWS` (refused
        before anything is drawn).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate_with_truth
    >>> sim = simulate_with_truth(n_items=3, annotators={"a": "perfect", "b": "misser"},
    ...                           seed=1)
    >>> list(sim.truth.columns)
    ['item', 'truth_id', 'label', 'x0', 'y0', 'x1', 'y1', 'geometry', 'width', 'height']
    >>> perfect = sim.annotations.query("annotator == 'a'")
    >>> len(perfect) == len(sim.truth)
    True
    """
    n_items = check_int(n_items, "n_items", low=1)
    annotators = _check_annotators(annotators)
    kind = _check_choice("kind", kind, _KINDS)
    classes, class_p = check_classes(classes, class_weights)
    seed = check_int(seed, "seed", low=0)
    size = check_image_size(image_size)
    objects_per = _check_choice("objects_per", objects_per, _OBJECTS_PER)
    layout = _check_choice("layout", layout, _LAYOUTS)
    vrange = _check_vertices(vertices)
    attribute_values = check_attributes(attributes, annotators)
    if isinstance(objects_per_item, bool) or not isinstance(objects_per_item, numbers.Real) \
            or not (math.isfinite(objects_per_item) and objects_per_item >= 0):  # fmt: skip
        raise ParameterError(
            f"objects_per_item must be a finite number >= 0, got {objects_per_item!r}"
        )
    if objects_per == "fixed" and objects_per_item != int(objects_per_item):
        raise ParameterError(
            f"objects_per_item must be a whole number with objects_per='fixed', "
            f"got {objects_per_item!r}"
        )
    fp = max(p.false_positives for p in annotators.values())
    check_size(
        _CALLED.get(),
        corpus_rows(n_items, annotators.values(), objects_per_item, layout),
        n_items=n_items,
        objects_per_item=objects_per_item,
        **{"len(annotators)": len(annotators)},
        **({"false_positives": fp} if fp else {}),
    )

    # Image sizes.
    if size is None:
        choice = stream(seed, TRUTH, T_SIZE).integers(0, len(COMMON_IMAGE_SIZES), n_items)
        W, H = np.asarray(COMMON_IMAGE_SIZES, dtype=float)[choice].T.copy()
    else:
        W, H = np.full(n_items, size[0]), np.full(n_items, size[1])

    if layout == "single_center":

        def count(rng):
            return np.ones(n_items, np.int64)
    elif objects_per == "fixed":

        def count(rng):
            return np.full(n_items, int(objects_per_item), np.int64)
    else:

        def count(rng):
            return rng.poisson(float(objects_per_item), n_items).astype(np.int64)

    c = World(seed, n_items, W, H, len(classes), kind, count, vrange, max(vrange[1], 4))
    truth = truth_objects(c, class_p, layout)

    # Annotators, in name order; each block is sorted by item, coverage rows included.
    names = sorted(annotators)
    blocks = []
    for rank, name in enumerate(names):
        obj, box, geometry, reviewed = annotate(name, annotators[name], truth, c)
        drawn = np.bincount(obj.item, minlength=n_items)
        empty = np.flatnonzero(reviewed & (drawn == 0))
        item = np.concatenate([obj.item, empty])
        blocks.append(dict(
            item=item,
            annotator=np.full(len(item), rank, np.int64),
            label=np.concatenate([obj.label, np.full(len(empty), -1, np.int64)]),
            truth_id=np.concatenate([obj.truth_id, np.full(len(empty), -1, np.int64)]),
            box=np.concatenate([box, np.full((len(empty), 4), np.nan)]),
            geometry=np.concatenate([geometry, np.full(len(empty), None, dtype=object)]),
        ))  # fmt: skip
    cols = {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}
    order = np.argsort(cols["item"] * len(names) + cols["annotator"], kind="stable")
    cols = {k: v[order] for k, v in cols.items()}

    width = max(5, len(str(n_items - 1)))
    item_names = pd.Index([f"img_{i:0{width}d}" for i in range(n_items)], dtype="str")
    class_index = pd.Index(classes, dtype="str")

    def strings(codes, categories):
        return pd.Categorical.from_codes(codes, categories=categories).astype("str")

    item_col = strings(cols["item"], item_names)
    annotations = pd.DataFrame({
        "item": item_col,
        "annotator": strings(cols["annotator"], pd.Index(names, dtype="str")),
        "label": strings(cols["label"], class_index),
        "object_id": np.arange(len(order), dtype=np.int64),
        "x0": cols["box"][:, 0], "y0": cols["box"][:, 1],
        "x1": cols["box"][:, 2], "y1": cols["box"][:, 3],
        "geometry": cols["geometry"],
        "width": W[cols["item"]], "height": H[cols["item"]],
        "truth_id": pd.arrays.IntegerArray(np.maximum(cols["truth_id"], 0),
                                           cols["truth_id"] < 0),
    })  # fmt: skip

    tbox, tgeom = finish_shapes(truth, W, H)
    truth_frame = pd.DataFrame({
        "item": strings(truth.item, item_names),
        "truth_id": truth.truth_id,
        "label": strings(truth.label, class_index),
        "x0": tbox[:, 0], "y0": tbox[:, 1], "x1": tbox[:, 2], "y1": tbox[:, 3],
        "geometry": tgeom,
        "width": W[truth.item], "height": H[truth.item],
    })  # fmt: skip
    if attribute_values:
        objects, true = attribute_frames(
            seed, attribute_values, [annotators[n] for n in names], names, cols, len(truth.item)
        )
        annotations, truth_frame = annotations.assign(**objects), truth_frame.assign(**true)
        annotations.attrs["iaa_attributes"] = list(attribute_values)
    return Simulated(annotations, truth_frame)


def simulate(
    *,
    n_items: int = 100,
    annotators: Mapping[str, Profile | Mapping | str] | None = None,
    kind: str = "box",
    classes: Sequence[str] = ("car", "person", "bicycle"),
    objects_per_item: float = 4,
    seed: int = 0,
    image_size: tuple[float, float] | None = None,
    objects_per: str = "poisson",
    class_weights: Sequence[float] | None = None,
    layout: str = "random",
    vertices: tuple[int, int] = (5, 12),
    attributes: Mapping[str, Sequence] | None = None,
) -> pd.DataFrame:
    """Simulate an annotation corpus: ``simulate_with_truth(...).annotations``.

    Parameters
    ----------
    n_items, annotators, kind, classes, objects_per_item, seed, image_size, objects_per, \
class_weights, layout, vertices, attributes
        As in :func:`simulate_with_truth`.

    Returns
    -------
    pandas.DataFrame
        The tidy annotation frame (see :func:`simulate_with_truth`).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> df = simulate(n_items=20, annotators={"good": "good", "lazy": "lazy-center"},
    ...               kind="polygon", seed=3)
    >>> sorted(df["annotator"].unique())
    ['good', 'lazy']
    >>> objects = df[df["label"].notna()]      # coverage rows have no label
    >>> bool(objects["geometry"].notna().all())
    True
    >>> df["item"].iloc[0]
    'img_00000'
    """
    token = _CALLED.set("simulate")
    try:
        sim = simulate_with_truth(
            n_items=n_items,
            annotators=annotators,
            kind=kind,
            classes=classes,
            objects_per_item=objects_per_item,
            seed=seed,
            image_size=image_size,
            objects_per=objects_per,
            class_weights=class_weights,
            layout=layout,
            vertices=vertices,
            attributes=attributes,
        )
    finally:
        _CALLED.reset(token)
    return sim.annotations
