"""One item's objects, matched pairs and conflicts: what :func:`iaa_frames.plot.item`
draws.

:func:`item_view` takes the item's rows from the corpus's pair tables (or matches the
item's own rows of a frame: within-item matching depends on nothing else) and returns an
:class:`ItemView`: the objects with their cluster and unmatched conflicts, the matched
pairs oriented by annotator name with their label and low-overlap flags, the item's rows
of :func:`iaa_frames.explore.conflicts.conflicts`, the annotators who covered the item and the
image size.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from iaa_frames.core.tables.pairs import PairTables, pair_tables
from iaa_frames.errors import ParameterError
from iaa_frames.settings.parameters import DEFAULTS, engine_kwargs, not_default

from .conflicts import DEFAULT_LOW_OVERLAP
from .conflicts import conflicts as conflict_table

__all__ = ["ItemView", "item_view"]


class ItemView(NamedTuple):
    """What :func:`iaa_frames.plot.item` draws (from :func:`item_view`).

    Attributes
    ----------
    objects : pandas.DataFrame
        The item's objects (the validated rows, pixel coordinates) with ``annotator``,
        ``label``, ``object_id``, ``x0..y1``, ``geometry``, plus ``cluster`` (objects of
        one matched group share it) and ``conflict`` (comma-separated kinds of the
        unmatched/missed/extra conflicts of the object, '' when none).
    pairs : pandas.DataFrame
        Matched pairs: ``object_id_a, object_id_b, annotator_a, annotator_b, iou,
        label_conflict, low_overlap`` (``annotator_a`` < ``annotator_b`` by name).
    conflicts : pandas.DataFrame
        The item's rows of :func:`iaa_frames.explore.conflicts.conflicts`.
    annotators : list of str
        Annotators who covered the item (drew something or reviewed it and drew nothing).
    width, height : float
        Image size in pixels (from the annotations; the objects' extent when unknown).
    size_known : bool
        Whether the image size came from the annotations.
    """

    objects: pd.DataFrame
    pairs: pd.DataFrame
    conflicts: pd.DataFrame
    annotators: list
    width: float
    height: float
    size_known: bool


def _item_code(t: PairTables, item) -> int:
    names = t.corpus.items
    hits = np.flatnonzero(np.asarray([n == item for n in names], dtype=bool))
    if len(hits) == 0:
        shown = ", ".join(map(repr, list(names[:5])))
        raise ParameterError(
            f"item {item!r} is not in the corpus (items: {shown}"
            f"{', ...' if len(names) > 5 else ''})"
        )
    return int(hits[0])


def item_view(
    data,
    item,
    *,
    reference: str | None = None,
    low_overlap: float | None = DEFAULT_LOW_OVERLAP,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> ItemView:
    """The objects, matched pairs and conflicts of one item.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame (only the item's rows are matched: within-item matching
        depends on nothing else, so the result equals the corpus's matching) or the
        corpus's pair tables (reused).
    item
        The item, as in the frame's ``item`` column.
    reference, low_overlap
        As in :func:`iaa_frames.explore.conflicts.conflicts`.
    distance, match_threshold, n_chance, seed, overall, progress
        ``distance``, ``match_threshold``, ... for the matching when ``data`` is a frame.

    Returns
    -------
    ItemView

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=3, annotators={"a": "good", "b": "misser"}, seed=0)
    >>> v = item_view(df, "img_00000")
    >>> sorted(v.annotators)
    ['a', 'b']
    """
    if isinstance(data, pd.DataFrame):
        if "item" not in data.columns:
            raise ParameterError("the annotation frame has no 'item' column")
        mask = (data["item"] == item).to_numpy(dtype=bool)
        if not mask.any():
            raise ParameterError(f"item {item!r} is not in the annotation frame")
        if n_chance == DEFAULTS.n_chance:  # one item: there is no chance sample to draw
            n_chance = 1
        t = pair_tables(data.loc[mask], **engine_kwargs(locals()))
    elif isinstance(data, PairTables):
        given = not_default(locals())
        if given:
            raise ParameterError(f"unexpected keyword(s) {sorted(given)} with PairTables")
        t = data
    else:
        raise ParameterError(
            f"data must be a tidy annotation frame or PairTables; got {type(data).__name__}"
        )
    code = _item_code(t, item)
    c = t.corpus
    rows = np.flatnonzero(c.item == code)
    objects = c.objects.iloc[rows].copy()
    objects["annotator"] = objects["annotator"].astype(str)
    objects["cluster"] = t.units["cluster"].to_numpy()[rows]
    conf = conflict_table(t, reference=reference, low_overlap=low_overlap)
    conf = conf[np.asarray([i == item for i in conf["item"]], dtype=bool)].reset_index(drop=True)
    kinds: dict = {}
    for kind, side in (("unmatched", "a"), ("missed", "a"), ("extra", "b")):
        sel = conf[conf["kind"] == kind]
        for oid in sel[f"object_id_{side}"]:
            kinds.setdefault(oid, set()).add(kind)
    objects["conflict"] = [",".join(sorted(kinds.get(o, ()))) for o in objects["object_id"]]
    w = t.localization_within
    w = w[w["item"].to_numpy() == code]
    ids = c.objects["object_id"].array
    label = c.label
    oa, ob = w["object_a"].to_numpy(np.int64), w["object_b"].to_numpy(np.int64)
    iou = w["iou"].to_numpy(float)
    pairs = pd.DataFrame(
        {
            "object_id_a": ids.take(oa),
            "object_id_b": ids.take(ob),
            "annotator_a": [str(x) for x in c.annotators[w["annotator_a"].to_numpy(np.int64)]],
            "annotator_b": [str(x) for x in c.annotators[w["annotator_b"].to_numpy(np.int64)]],
            "iou": iou,
            "label_conflict": label[oa] != label[ob],
            "low_overlap": (iou < low_overlap)
            if low_overlap is not None
            else np.zeros(len(iou), bool),
        }
    )
    # orientation by annotator name (codes depend on the corpus the tables come from)
    swap = (pairs["annotator_a"] > pairs["annotator_b"]).to_numpy()
    for x, y in (("object_id_a", "object_id_b"), ("annotator_a", "annotator_b")):
        xa, ya = pairs[x].to_numpy(copy=True), pairs[y].to_numpy(copy=True)
        pairs[x] = np.where(swap, ya, xa)
        pairs[y] = np.where(swap, xa, ya)
    pairs = pairs.sort_values(
        ["annotator_a", "annotator_b", "object_id_a"], kind="stable"
    ).reset_index(drop=True)
    if reference is not None:
        keep = (pairs["annotator_a"] == reference) | (pairs["annotator_b"] == reference)
        pairs = pairs[keep.to_numpy()].reset_index(drop=True)
    covered = t.coverage[t.coverage["item"].to_numpy() == code]["annotator"].to_numpy()
    annotators = sorted(str(x) for x in c.annotators[covered])
    wh = objects[["width", "height"]].to_numpy(dtype=float)
    known = np.isfinite(wh).all(axis=1)
    if known.any():
        width, height = wh[known][0]
        size_known = True
    else:
        width = float(np.nanmax(objects["x1"].to_numpy(float), initial=1.0))
        height = float(np.nanmax(objects["y1"].to_numpy(float), initial=1.0))
        size_known = False
    return ItemView(
        objects.reset_index(drop=True),
        pairs,
        conf,
        annotators,
        float(width),
        float(height),
        size_known,
    )
