"""Distances between two annotated objects, and the registry of distances by name.

Every distance takes two aligned :class:`~iaa_frames.geometry.shapes.Shapes` ``a`` and
``b`` of equal length and returns an ``(n,)`` float64 array, one value per pair
``(a[i], b[i])``, 0 meaning identical; missing input (NaN box, no geometry) gives NaN. The
matcher, the chance pairs and the statistics look distances up by name
(:func:`get_distance`):

========= ==================================================================
name      distance
========= ==================================================================
giou      ``(1 - GIoU) / 2`` in [0, 1], the default (:func:`giou_distance`)
iou       ``1 - IoU`` in [0, 1] (:func:`iou_distance`)
l2        Euclidean distance between the ``(x0, y0, x1, y1)`` vectors
centroid  Euclidean distance between the centroids
hausdorff Hausdorff distance between the shapes (shapely)
========= ==================================================================

Users may register their own callables (:func:`register_distance`). ``giou`` and ``iou``
also carry the object-pair similarity of the set-level ``overall`` component (IoU, and GIoU
floored at 0 as in Braylan et al.'s code) and reuse an IoU the matcher already computed.

The geometry underneath lives in :mod:`iaa_frames.geometry`: the :class:`Shapes`
container, areas and IoU (exact overlay, or the COCO mask IoU for detailed polygons),
GIoU, and the cheap IoU bounds of the matcher. Its public names are importable from here
too, so ``from iaa_frames.geometry.distances import Shapes, iou`` is the one import users need.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import shapely

from iaa_frames.errors import ParameterError

from .bounds import iou_upper_bound, kind_shared_bound, mask_iou_upper_bound
from .giou import giou, giou_upper_bound
from .kinds.polygon import POLYGON
from .kinds.registry import get_kind
from .mask_rule import MASK_IOU_MIN_COORDINATES, may_use_masks, uses_mask_iou
from .overlap import areas, areas_inside, areas_inside_bound, iou
from .shapes import Shapes, as_polygons, check_aligned

__all__ = [
    "Shapes",
    "as_polygons",
    "areas",
    "areas_inside",
    "areas_inside_bound",
    "iou",
    "giou",
    "giou_distance",
    "iou_distance",
    "l2_distance",
    "centroid_distance",
    "hausdorff_distance",
    "Distance",
    "register_distance",
    "get_distance",
    "available_distances",
    "DEFAULT_DISTANCE",
    "MASK_IOU_MIN_COORDINATES",
    "uses_mask_iou",
    "iou_upper_bound",
    "kind_shared_bound",
    "mask_iou_upper_bound",
    "may_use_masks",
]

DEFAULT_DISTANCE = "giou"


# --------------------------------------------------------------------------------------
# Distances (0 = identical)
# --------------------------------------------------------------------------------------


def giou_distance(a: Shapes, b: Shapes, *, known_iou: np.ndarray | None = None) -> np.ndarray:
    """``(1 - GIoU) / 2``, in [0, 1]; the default distance (registry name ``"giou"``).

    Examples
    --------
    >>> a = Shapes([[0, 0, 1, 1], [0, 0, 1, 1]])
    >>> b = Shapes([[0, 0, 1, 1], [1, 0, 2, 1]])
    >>> giou_distance(a, b).tolist()  # identical; touching (GIoU 0)
    [0.0, 0.5]
    """
    check_aligned(a, b, "giou_distance")
    return (1.0 - giou(a, b, known_iou=known_iou)) / 2.0


def iou_distance(a: Shapes, b: Shapes, *, known_iou: np.ndarray | None = None) -> np.ndarray:
    """``1 - IoU``, in [0, 1], with the IoU of :func:`iou` (registry name ``"iou"``).

    Examples
    --------
    >>> iou_distance(Shapes([[0, 0, 2, 2]]), Shapes([[0, 0, 2, 1]])).tolist()
    [0.5]
    """
    check_aligned(a, b, "iou_distance")
    return 1.0 - (iou(a, b) if known_iou is None else np.asarray(known_iou, dtype=np.float64))


def l2_distance(a: Shapes, b: Shapes) -> np.ndarray:
    """Euclidean distance between the ``(x0, y0, x1, y1)`` vectors (registry ``"l2"``).

    For polygons the vector is their bounds. Coordinates are those held by the
    :class:`Shapes` (normalized by :meth:`Shapes.from_frame` where the image size is
    known).

    Examples
    --------
    >>> l2_distance(Shapes([[0, 0, 1, 1]]), Shapes([[0, 0, 4, 5]])).tolist()
    [5.0]
    """
    check_aligned(a, b, "l2_distance")
    diff = a.boxes - b.boxes
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def _centroids(shapes: Shapes) -> np.ndarray:
    b = shapes.boxes
    xy = np.column_stack([(b[:, 0] + b[:, 2]) / 2.0, (b[:, 1] + b[:, 3]) / 2.0])
    poly = shapes.is_polygon
    if poly.any():
        xy[poly] = POLYGON.centroids(shapes.polygons[poly])
    for name, rows in shapes.kind_rows().items():
        xy[rows] = get_kind(name).centroids(shapes.params[name][rows])
    return xy


def centroid_distance(a: Shapes, b: Shapes) -> np.ndarray:
    """Euclidean distance between centroids (registry name ``"centroid"``).

    Box centroids are computed analytically, polygon centroids with shapely.

    Examples
    --------
    >>> centroid_distance(Shapes([[0, 0, 2, 2]]), Shapes([[3, 4, 5, 6]])).tolist()
    [5.0]
    """
    check_aligned(a, b, "centroid_distance")
    d = _centroids(a) - _centroids(b)
    return np.hypot(d[:, 0], d[:, 1])


def hausdorff_distance(a: Shapes, b: Shapes) -> np.ndarray:
    """Hausdorff distance as computed by :func:`shapely.hausdorff_distance`.

    Registry name ``"hausdorff"``. Boxes are turned into polygons first. GEOS computes
    the discrete Hausdorff distance from the vertices of each shape to the other shape.

    Examples
    --------
    >>> hausdorff_distance(Shapes([[0, 0, 1, 1]]), Shapes([[0, 0, 2, 1]])).tolist()
    [1.0]
    """
    check_aligned(a, b, "hausdorff_distance")
    return np.asarray(shapely.hausdorff_distance(as_polygons(a), as_polygons(b)), dtype=np.float64)


def _iou_similarity(a: Shapes, b: Shapes, *, known_iou=None, known_distance=None) -> np.ndarray:
    if known_distance is not None:
        return 1.0 - np.asarray(known_distance, dtype=np.float64)
    return iou(a, b) if known_iou is None else np.asarray(known_iou, dtype=np.float64)


def _giou_similarity(a: Shapes, b: Shapes, *, known_iou=None, known_distance=None) -> np.ndarray:
    # GIoU floored at 0, as in Braylan et al.'s code; np.maximum keeps NaN.
    if known_distance is not None:  # the giou distance is (1 - GIoU) / 2
        return np.maximum(1.0 - 2.0 * np.asarray(known_distance, dtype=np.float64), 0.0)
    return np.maximum(giou(a, b, known_iou=known_iou), 0.0)


def _giou_similarity_bound(a: Shapes, b: Shapes, *, iou_bound, exact=False, floor=None):
    # the similarity is GIoU floored at 0
    return np.maximum(giou_upper_bound(a, b, iou_bound, exact=exact, floor=floor), 0.0)


# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Distance:
    """A registered distance.

    Attributes
    ----------
    name : str
    func : callable
        ``func(a: Shapes, b: Shapes) -> ndarray`` of shape (n,), 0 = identical.
    similarity : callable or None
        Object-pair similarity used by the set-level ``overall`` component (the best
        match of each object in the other annotation is its most similar object, after
        Braylan et al.); ``None`` means the best match is the minimum distance.
    bounded : bool
        True when the distance is known to lie in [0, 1].
    reuses_iou : bool
        True when ``func`` and ``similarity`` accept ``known_iou=`` (the pairs' IoU,
        already computed by the matcher) and then skip recomputing intersections, and
        ``similarity`` also accepts ``known_distance=`` (the pairs' distance).
    similarity_bound : callable or None
        ``similarity_bound(a, b, *, iou_bound)``: an upper bound of the similarity of
        each pair whose IoU is at most ``iou_bound``, far cheaper than the IoU; with it the
        matcher skips the overlay of pairs that cannot change a best match. ``None``: the
        IoU bound itself (``reuses_iou`` similarities never exceed the IoU).
    bound_hints : bool
        True when ``similarity_bound`` also accepts the keywords ``exact`` and ``floor``
        of :func:`~iaa_frames.geometry.giou.giou_upper_bound`: ``exact=True`` says the
        ``iou_bound`` are the pairs' exact IoU (the matcher's, once computed), and
        ``floor`` the value at or below which a pair's bound need not be tighter (the
        best similarity its objects already have), both of which may save work.

    Examples
    --------
    >>> d = get_distance("iou")
    >>> d(Shapes([[0, 0, 2, 2]]), Shapes([[0, 0, 2, 1]])).tolist()
    [0.5]
    """

    name: str
    func: Callable
    similarity: Callable | None = None
    bounded: bool = False
    reuses_iou: bool = False
    similarity_bound: Callable | None = None
    bound_hints: bool = False

    def __call__(self, a: Shapes, b: Shapes, *, known_iou=None) -> np.ndarray:
        """Apply ``func`` and check it returns one float per pair.

        ``known_iou`` (the pairs' IoU, when the caller has it) is passed on to functions
        registered with ``reuses_iou=True``, which then skip recomputing intersections.
        """
        check_aligned(a, b, f"distance {self.name!r}")
        kw = {"known_iou": known_iou} if self.reuses_iou and known_iou is not None else {}
        out = np.asarray(self.func(a, b, **kw), dtype=np.float64)
        if out.shape != (len(a),):
            raise ParameterError(
                f"distance {self.name!r} returned shape {out.shape}; expected ({len(a)},)"
            )
        return out

    def similar(self, a: Shapes, b: Shapes, *, known_iou=None, known_distance=None) -> np.ndarray:
        """The object-pair similarity (requires ``similarity``).

        With ``reuses_iou``, the pairs' known IoU and/or known distance (this
        distance's value for the same pairs) are passed on, and the similarity is then
        derived from them without recomputing any geometry.
        """
        known = {"known_iou": known_iou, "known_distance": known_distance}
        kw = {k: v for k, v in known.items() if v is not None} if self.reuses_iou else {}
        return np.asarray(self.similarity(a, b, **kw), dtype=np.float64)


_REGISTRY: dict[str, Distance] = {}


def register_distance(
    name: str,
    func: Callable,
    *,
    similarity: Callable | None = None,
    bounded: bool = False,
    reuses_iou: bool = False,
    similarity_bound: Callable | None = None,
    bound_hints: bool = False,
    overwrite: bool = False,
) -> Distance:
    """Register ``func(a: Shapes, b: Shapes) -> ndarray`` under ``name``.

    Parameters
    ----------
    name : str
        Registry name (non-empty).
    func : callable
        Vectorized distance over aligned :class:`Shapes`, 0 = identical.
    similarity : callable, optional
        Object-pair similarity for the ``overall`` component; by default the best
        match is the minimum distance.
    bounded : bool, default False
        Whether the distance lies in [0, 1].
    reuses_iou : bool, default False
        Whether ``func`` and ``similarity`` accept ``known_iou=`` (see :class:`Distance`).
    similarity_bound : callable, optional
        With ``reuses_iou``: an upper bound of the similarity from one of the IoU (see
        :class:`Distance`).
    bound_hints : bool, default False
        Whether ``similarity_bound`` accepts ``exact=`` and ``floor=`` (see
        :class:`Distance`).
    overwrite : bool, default False
        Replace an existing entry of that name instead of raising.

    Returns
    -------
    Distance

    Examples
    --------
    >>> def width_gap(a, b):
    ...     return abs((a.boxes[:, 2] - a.boxes[:, 0]) - (b.boxes[:, 2] - b.boxes[:, 0]))
    >>> d = register_distance("width_gap_example", width_gap, overwrite=True)
    >>> get_distance("width_gap_example")(Shapes([[0, 0, 3, 1]]), Shapes([[0, 0, 1, 1]])).tolist()
    [2.0]
    """
    if not isinstance(name, str) or not name:
        raise ParameterError(f"distance name must be a non-empty string; got {name!r}")
    if not callable(func):
        raise ParameterError(f"distance {name!r}: func must be callable; got {type(func).__name__}")
    if similarity is not None and not callable(similarity):
        raise ParameterError(f"distance {name!r}: similarity must be callable or None")
    if name in _REGISTRY and not overwrite:
        raise ParameterError(
            f"distance {name!r} is already registered; pass overwrite=True to replace it"
        )
    if similarity_bound is not None and not callable(similarity_bound):
        raise ParameterError(f"distance {name!r}: similarity_bound must be callable or None")
    hints = bool(bound_hints) and similarity_bound is not None
    entry = Distance(
        name, func, similarity, bool(bounded), bool(reuses_iou), similarity_bound, hints
    )
    _REGISTRY[name] = entry
    return entry


def get_distance(name_or_callable) -> Distance:
    """Look up a distance by name, or wrap a user callable.

    Parameters
    ----------
    name_or_callable : str, Distance or callable
        A registered name, a :class:`Distance` (returned as is), or a callable
        ``f(a: Shapes, b: Shapes) -> ndarray``, wrapped with its ``__name__``, no
        similarity and ``bounded=False``.

    Returns
    -------
    Distance

    Raises
    ------
    ParameterError
        For an unknown name (the message lists the valid names) or another type.

    Examples
    --------
    >>> get_distance("giou").bounded
    True
    >>> get_distance(lambda a, b: a.boxes[:, 0] - b.boxes[:, 0]).name
    '<lambda>'
    """
    if isinstance(name_or_callable, Distance):
        return name_or_callable
    if isinstance(name_or_callable, str):
        try:
            return _REGISTRY[name_or_callable]
        except KeyError:
            raise ParameterError(
                f"unknown distance {name_or_callable!r}; valid names are "
                f"{', '.join(available_distances())}, or pass a callable f(a, b)"
            ) from None
    if callable(name_or_callable):
        name = getattr(name_or_callable, "__name__", None) or repr(name_or_callable)
        return Distance(name, name_or_callable, None, False)
    raise ParameterError(
        f"distance must be a name or a callable; got {type(name_or_callable).__name__}"
    )


def available_distances() -> list[str]:
    """Names of the registered distances, in registration order.

    Examples
    --------
    >>> available_distances()[:5]
    ['giou', 'iou', 'l2', 'centroid', 'hausdorff']
    """
    return list(_REGISTRY)


register_distance(
    "giou",
    giou_distance,
    similarity=_giou_similarity,
    bounded=True,
    reuses_iou=True,
    similarity_bound=_giou_similarity_bound,
    bound_hints=True,
)
register_distance("iou", iou_distance, similarity=_iou_similarity, bounded=True, reuses_iou=True)
register_distance("l2", l2_distance)
register_distance("centroid", centroid_distance)
register_distance("hausdorff", hausdorff_distance)
