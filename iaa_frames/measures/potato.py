"""Potato's admin-page agreement of a geometry scheme, computed by this package.

Potato's overlap report (its ``_aggregate_blobs``) shows, for an image scheme, the keys
``mean_agreement``, ``mean_matched_iou``, ``detection_f1``, ``mean_object_count_diff``,
``n_items``, ``n_annotators``, ``n_scored_pairs``, ``n_empty_pairs``, ``sigma``, ``ks``,
``detection_alpha`` and ``classification_alpha``, from the rows it gathers in memory:
``{item: {user: [shapes]}}``, coordinates in fractions of the image.
:func:`potato_metrics` takes those rows and returns the same keys, each computed by
:func:`iaa_frames.agreement` (matched chance pairs, τ-gated, bootstrap over items), with
the intervals and the per-annotator cells beside them. Results are cached on the content
of the rows and the settings, so a page that reloads with unchanged data costs a lookup.

Cost (the Potato sample: 40 images, 3 annotators, 276 shapes; a shared 2-core machine):
about 0.3 s of CPU per computed call, whatever ``n_boot`` (0 to 200; the bootstrap is
under 0.05 s of it): about 0.16 s matching the real and the chance pairs, 0.1 s
assembling the cells and 0.03 s building the frame. A call with rows of equal content
(any dict, rebuilt or not) is a hash and a copy: about 3 ms. The first access to
``iaf.potato_metrics`` imports the engine (scipy.stats and scipy.optimize among it): about
1 s once per process. The user guide's page "Coming from Potato" (its section "Speed")
has the figures and the machine they were measured on.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import threading
from collections import OrderedDict
from itertools import combinations

import numpy as np

from iaa_frames.core.engine import agreement
from iaa_frames.errors import ParameterError
from iaa_frames.geometry.kinds.registry import similarity_settings
from iaa_frames.io.builder import FrameBuilder, finish
from iaa_frames.io.potato_shapes import Place, add_shape, mask_size
from iaa_frames.settings.parameters import DEFAULTS

__all__ = ["CACHE_SIZE", "cache_key", "clear_cache", "potato_metrics"]

#: Results kept (least recently used first out).
CACHE_SIZE = 32
_CACHE: OrderedDict = OrderedDict()
_CACHE_LOCK = threading.Lock()  # a web server calls from several threads
_COMPONENTS = ("detection", "classification", "localization", "overall")


def _client(shape):
    """A shape in Potato's stored form, from its stored or its canonical form (``bbox``
    ``[x, y, w, h]``, ``points`` ``[[x, y], ...]``, ``rle``: what its IAA code reads)."""
    if not isinstance(shape, dict) or "coordinates" in shape or shape.get("type") == "mask":
        return shape
    out = {k: v for k, v in shape.items() if k not in ("bbox", "points")}
    kind, pts, bbox = shape.get("type"), shape.get("points"), shape.get("bbox")
    if isinstance(pts, list) and kind != "bbox":
        xy = [{"x": p[0], "y": p[1]} for p in pts if isinstance(p, (list, tuple)) and len(p) >= 2]
        if kind == "landmark" and xy:
            out["coordinates"] = xy[0]
        else:
            out["type"] = "polyline" if shape.get("closed") is False else "polygon"
            out["coordinates"] = xy
    elif isinstance(bbox, (list, tuple)) and len(bbox) >= 4:
        out["type"] = "bbox"
        out["coordinates"] = dict(zip(("x", "y", "width", "height"), bbox[:4], strict=True))
    return out


def _plain(value):
    """A JSON value for what :mod:`json` cannot write, for the cache key: numpy arrays
    in full (their ``str`` elides the middle of a long array, so two different arrays
    would share a key), numpy scalars as numbers, anything else by type and ``repr``."""
    if isinstance(value, np.ndarray):
        return {"ndarray": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    return f"{type(value).__qualname__}:{value!r}"


def _str_keys(value):
    """``value`` with every mapping's keys as strings (what the frame makes of them)."""
    if isinstance(value, dict):
        return {str(k): _str_keys(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_str_keys(v) for v in value]
    return value


def cache_key(rows, match_threshold, n_boot) -> str:
    """The SHA-256 of the content of ``rows`` and the settings: equal for equal content,
    whatever the dicts' order or identity.

    The items' and users' order does not change the result (the engine sorts them), so
    the keys are sorted; the order of an annotator's shapes is kept.

    Examples
    --------
    >>> a = {"img1": {"ana": [], "ben": [{"type": "bbox", "label": "car"}]}}
    >>> b = {"img1": {"ben": [{"label": "car", "type": "bbox"}], "ana": []}}
    >>> cache_key(a, 0.5, 100) == cache_key(b, 0.5, 100) != cache_key(a, 0.5, 0)
    True
    """
    try:
        text = json.dumps([rows, match_threshold, n_boot], sort_keys=True, default=_plain)
    except TypeError:  # keys of several types (1 and "img2") do not sort
        text = json.dumps(
            [_str_keys(rows), match_threshold, n_boot], sort_keys=True, default=_plain
        )
    return hashlib.sha256(text.encode()).hexdigest()


def _cached(key):
    """A copy of the cached result of ``key`` (None when there is none, or when it was
    computed under other settings of the geometry kinds' similarities: a skeleton
    kind's ``mirror_aware``, say)."""
    with _CACHE_LOCK:
        found = _CACHE.get(key)
        if found is None or found[0] != similarity_settings():
            return None
        _CACHE.move_to_end(key)
    return copy.deepcopy(found[1])  # the cached dict is never handed out


def _keep(key, out) -> None:
    # the kinds' settings after the computation: the rows' skeletons have registered
    # their kinds by then, so that an equal call finds the same settings
    with _CACHE_LOCK:
        _CACHE[key] = (similarity_settings(), copy.deepcopy(out))
        _CACHE.move_to_end(key)
        while len(_CACHE) > max(int(CACHE_SIZE), 0):
            _CACHE.popitem(last=False)


def clear_cache() -> None:
    """Forget every cached result (:func:`potato_metrics` computes again)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _frame(rows):
    b = FrameBuilder("potato_rows", on_invalid="drop")
    f = b.add_file("(rows)")
    for item, by_user in rows.items():
        if not isinstance(by_user, dict):
            raise ParameterError(f"rows[{item!r}] must be a mapping {{user: [shapes]}}")
        shapes = {u: [_client(s) for s in (v or [])] for u, v in by_user.items()}
        size = next((mask_size(s) for v in shapes.values() for s in v if mask_size(s)), None)
        w, h = size if size else (1.0, 1.0)
        for user, objs in shapes.items():
            place = Place("(rows)", f"rows[{item!r}][{user!r}]", str(item), str(user),
                          float(w), float(h), size is not None, f, {}, frozenset())  # fmt: skip
            b.cover(place.item, place.annotator, width=w, height=h, file_idx=f)
            for k, shape in enumerate(objs):
                try:
                    add_shape(b, place, k, shape)
                except (ValueError, OverflowError) as exc:
                    b.drop("(rows)", place.entry, "unreadable_entry", str(exc))
    return finish(b, on_invalid="drop", return_dropped=True)


def _counts(rows):
    """Potato's pair counts: pairs of annotators of an item, both empty (not scored) or
    not, and the mean difference of their object counts over the scored pairs."""
    empty = scored = 0
    diffs = []
    users = set()
    n_items = 0
    for by_user in rows.values():
        if len(by_user) < 2:
            continue
        n_items += 1
        users.update(by_user)
        for a, b in combinations(sorted(by_user), 2):
            na, nb = len(by_user[a] or []), len(by_user[b] or [])
            if na == nb == 0:
                empty += 1
                continue
            scored += 1
            diffs.append(abs(na - nb))
    diff = float(np.mean(diffs)) if diffs else math.nan
    return n_items, len(users), scored, empty, diff


class _Cells:
    """Values of the result's cells by name, read from its arrays (xarray's ``sel``
    imports dask on its slow path wherever dask is installed: a second per page)."""

    def __init__(self, res):
        self.res = res
        self.where = {d: {str(v): i for i, v in enumerate(res[d].values)} for d in
                      ("component", "label", "annotator")}  # fmt: skip
        self.arrays: dict = {}

    def raw(self, var, comp, annotator="(all)"):
        a = self.arrays.get(var)
        if a is None:
            a = self.arrays[var] = self.res[var].transpose("component", "label", "annotator").values
        w = self.where
        return a[w["component"][comp], w["label"]["(all)"], w["annotator"][annotator]]

    def __call__(self, var, comp, annotator="(all)"):
        v = float(self.raw(var, comp, annotator))
        return None if math.isnan(v) else v


def potato_metrics(rows, *, match_threshold: float = DEFAULTS.match_threshold, n_boot: int = 100):
    """The agreement figures of Potato's admin page for one geometry scheme, by this
    package's estimators, with intervals and per-annotator cells.

    Parameters
    ----------
    rows : dict
        ``{item: {user: [shapes]}}`` as Potato gathers them: each shape in its stored form
        (``type``, ``label``, ``coordinates`` in fractions; masks with ``rle``) or its
        canonical form (``bbox`` ``[x, y, w, h]``, ``points``); ``[]`` for an annotator
        who saved the item with nothing drawn. Coordinates stay fractions (each image is
        the unit square) unless a mask gives the item its size.
    match_threshold : float, default 0.5
        IoU at which two objects are the same object (Potato's default too).
    n_boot : int, default 100
        Bootstrap replicates over items for the intervals; lower it for a faster page
        (0: no intervals).

    Returns
    -------
    dict
        Potato's keys: ``sigma`` and ``ks`` (localization: σ and the KS statistic against
        matched chance pairs), ``detection_alpha`` (presence α over matched clusters, as
        Potato computes it: ≈ 0 under independent misses, not our detection headline),
        ``classification_alpha`` (α of the labels of matched pairs), ``mean_matched_iou``,
        ``detection_f1`` (mean F1 of two annotations at τ), ``mean_agreement`` (the
        overall set similarity), ``mean_object_count_diff``, ``n_items`` (items with two
        or more annotators), ``n_annotators``, ``n_scored_pairs``, ``n_empty_pairs``.
        Ours beside them: ``components`` ``{component: {agreement, ci_low, ci_high,
        note}}`` (the chance-corrected detection, classification, localization and
        overall), ``annotators`` ``{user: {component: {agreement, ci_low, ci_high}}}``,
        ``n_dropped`` (shapes that could not be read) and the settings. Undefined values
        are None. The result is cached on the content of ``rows`` and the settings
        (:func:`cache_key`; the :data:`CACHE_SIZE` most recently used results are
        kept): a call with equal rows computes nothing and returns a copy, which the
        caller may change freely. :func:`clear_cache` forgets them.

    Examples
    --------
    >>> def b(x, y, label="car"):
    ...     return {"type": "bbox", "label": label,
    ...             "coordinates": {"x": x, "y": y, "width": 0.2, "height": 0.2}}
    >>> rows = {f"img{i}": {"ana": [b(0.05 * i, 0.1)], "ben": [b(0.05 * i + 0.01, 0.1)]}
    ...         for i in range(12)}
    >>> m = potato_metrics(rows, n_boot=0)
    >>> m["n_items"], m["n_scored_pairs"], round(m["detection_f1"], 2)
    (12, 12, 1.0)
    >>> sorted(m["components"])
    ['classification', 'detection', 'localization', 'overall']
    """
    if not isinstance(rows, dict):
        raise ParameterError(
            f"rows must be a mapping {{item: {{user: [shapes]}}}}, got {type(rows).__name__}"
        )
    key = cache_key(rows, match_threshold, n_boot)
    hit = _cached(key)
    if hit is not None:
        return hit
    frame, dropped = _frame(rows)
    n_items, n_annotators, scored, empty, diff = _counts(rows)
    res = agreement(frame, n_boot=n_boot, match_threshold=match_threshold, progress=False)
    _value = _Cells(res)
    det_obs = _value("observed", "detection")
    overall_obs = _value("observed", "overall")
    out = {
        "mean_agreement": None if overall_obs is None else 1 - overall_obs,
        "mean_matched_iou": _value("raw_iou", "localization"),
        "detection_f1": None if det_obs is None else 1 - det_obs,
        "mean_object_count_diff": None if math.isnan(diff) else diff,
        "n_items": n_items,
        "n_annotators": n_annotators,
        "n_scored_pairs": scored,
        "n_empty_pairs": empty,
        "sigma": _value("agreement", "localization"),
        "ks": _value("ks", "localization"),
        "detection_alpha": _value("presence_alpha", "detection"),
        "classification_alpha": _value("agreement", "classification"),
        "components": {},
        "annotators": {},
        "n_dropped": len(dropped),
        "match_threshold": match_threshold,
        "n_boot": n_boot,
    }
    for comp in _COMPONENTS:
        note = str(_value.raw("note", comp))
        out["components"][comp] = {
            "agreement": _value("agreement", comp),
            "ci_low": _value("ci_low", comp),
            "ci_high": _value("ci_high", comp),
            "note": note or None,
        }
    for a in map(str, res["annotator"].values):
        if a == "(all)":
            continue
        out["annotators"][a] = {
            comp: {v: _value(v, comp, a) for v in ("agreement", "ci_low", "ci_high")}
            for comp in _COMPONENTS
        }
    _keep(key, out)
    return out
