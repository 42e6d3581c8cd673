# Over 400 lines: the Corpus and Slices contract and prepare(), the canonical form every stage
# reads, kept in one place.
"""A validated frame prepared for matching: canonical codes, normalized shapes, slices.

The engine works on integer codes in a *canonical order* that depends on the content of
the annotations, not on row order or on the names of items and annotators (names only
break exact ties). That is what makes every result, including the seeded chance sample,
independent of row order and of renaming.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.side_thread import side_by_side
from iaa_frames.frame.schema import GROUP, validate
from iaa_frames.geometry.distances import Shapes, areas

from .order import canonical_order
from .rows import gather_rows

__all__ = ["Corpus", "annotation_slices", "item_groups", "prepare"]

_FINGERPRINT = np.array([1.1, 1.3, 1.7, 1.9])


def box_fingerprint(boxes: np.ndarray) -> np.ndarray:
    """A name-free number per object from its box: ``1.1 x0 + 1.3 y0 + 1.7 x1 + 1.9 y1 +
    0.37`` (NaN sides as 0), summed column by column, not as a matrix-vector product (on
    a million boxes that BLAS call starts BLAS's own threads beside the engine's, and its
    bits may depend on the BLAS build). Used wherever objects are ordered by content (the
    canonical codes, the per-class strata's order, :mod:`iaa_frames.dask`'s partitions),
    so that they agree bit for bit.

    Examples
    --------
    >>> box_fingerprint(np.array([[0.0, 0.0, 2.0, 1.0], [np.nan, 0.0, 0.0, 0.0]])).tolist()
    [5.67, 0.37]
    """
    b = np.nan_to_num(np.asarray(boxes, dtype=np.float64))
    fp = b[:, 0] * _FINGERPRINT[0]
    for c in range(1, 4):
        fp += b[:, c] * _FINGERPRINT[c]
    fp += 0.37
    return fp


@dataclass(frozen=True, eq=False)
class Slices:
    """Annotations as slices of the object array; the last slot is an empty annotation."""

    start: np.ndarray
    count: np.ndarray
    item: np.ndarray
    annotator: np.ndarray
    label: np.ndarray | None = None
    #: Group code of each slot's item (see :attr:`Corpus.group`); None: every item is a
    #: group of its own.
    group: np.ndarray | None = None

    @property
    def empty(self) -> int:
        """Index of the empty slot."""
        return len(self.start) - 1

    def group_of(self, s) -> np.ndarray:
        """Group code of slots ``s`` (their item code when there are no groups)."""
        return (self.item if self.group is None else self.group)[s]

    @cached_property
    def group_annotator(self) -> np.ndarray | None:
        """Per slot, its group code (:meth:`group_of`) in the high 32 bits and its
        annotator code in the low 32 bits of one integer, so that one gather per side
        tells both apart (chance pairings:
        :func:`iaa_frames.core.chance.population.valid_pairings`); None when a code does not fit.

        Examples
        --------
        >>> s = Slices(np.array([0, 1, 0]), np.array([1, 1, 0]), np.array([0, 1, -1]),
        ...            np.array([1, 0, -1]))
        >>> code = s.group_annotator
        >>> [int(v >> 32) for v in code], [int(v & 0xFFFFFFFF) for v in code]
        ([0, 1, -1], [1, 0, 4294967295])
        """
        group = np.asarray(self.item if self.group is None else self.group, dtype=np.int64)
        ann = np.asarray(self.annotator, dtype=np.int64)
        fits = lambda v: not len(v) or (v.min() >= -1 and v.max() < 2**31 - 1)  # noqa: E731
        if not (fits(group) and fits(ann)):
            return None
        return (group << 32) | (ann & 0xFFFFFFFF)


@dataclass(frozen=True, eq=False)
class Corpus:
    """Objects in canonical order with their codes, and annotations as slices.

    Attributes
    ----------
    objects : pandas.DataFrame
        The object rows of the validated frame, in canonical order.
    shapes : Shapes
        Their shapes, normalized by image size where known.
    item, annotator, label : ndarray of int
        Codes of each object; names are ``items[code]`` etc.
    items, annotators, labels : ndarray
        Names in canonical order (labels sorted by name).
    annotations : Slices
        One slot per (item, annotator) that covered the item, in canonical order.
    by_label : Slices
        One slot per (item, annotator, label) with at least one object.
    normalization : str
        "image size", "none" or "mixed" (see :func:`prepare`).
    area : ndarray of float
        Area of each (normalized) shape.
    group : ndarray of int or None
        Per item code, the code of its group: the smallest item code in the group (so
        it depends on content, not on the names of groups). None when the frame has no
        ``group`` column: every item is a group of its own.
    """

    objects: pd.DataFrame
    shapes: Shapes
    item: np.ndarray
    annotator: np.ndarray
    label: np.ndarray
    items: np.ndarray
    annotators: np.ndarray
    labels: np.ndarray
    annotations: Slices
    by_label: Slices
    normalization: str
    area: np.ndarray
    group: np.ndarray | None = None

    def group_of_item(self, item) -> np.ndarray:
        """Group code of items ``item`` (the item code itself without groups)."""
        item = np.asarray(item)
        return item if self.group is None else self.group[item]

    @property
    def n_groups(self) -> int:
        """Number of groups (of items, when there are no groups)."""
        return len(self.items) if self.group is None else len(np.unique(self.group))

    def group_codes(self) -> np.ndarray | None:
        """Per item code, its group as 0 .. n_groups - 1 (in order of the groups' smallest
        item codes); None without groups."""
        return None if self.group is None else np.unique(self.group, return_inverse=True)[1]

    def annotation_of(self, item, annotator) -> np.ndarray:
        """Slot in :attr:`annotations` of each (item, annotator) code pair."""
        key = item.astype(np.int64) * len(self.annotators) + annotator
        return np.searchsorted(self._annotation_keys, key)

    def by_label_of(self, item, annotator, label) -> np.ndarray:
        """Slot in :attr:`by_label` of each triple, the empty slot where there is none."""
        keys = self._by_label_keys
        key = (item.astype(np.int64) * len(self.annotators) + annotator) * len(self.labels) + label
        pos = np.searchsorted(keys, key)
        found = pos < len(keys)
        found[found] = keys[pos[found]] == key[found]
        return np.where(found, pos, self.by_label.empty)

    @cached_property
    def boxes_only(self) -> bool:
        """Whether every shape is a plain box (no polygon, no other kind)."""
        return bool(self.shapes.is_box.all())

    def label_slots(self, slot, label) -> np.ndarray:
        """Slot in :attr:`by_label` of each (slot of :attr:`annotations`, class code)
        pair, the empty slot where the annotation has no object of the class: the
        :meth:`by_label_of` of the slot's item and annotator, by a table lookup when the
        table of every (annotation, class) is at most 16 times :attr:`by_label`, else
        by a binary search among the annotation's own classes."""
        slot, label = np.asarray(slot, dtype=np.int64), np.asarray(label, dtype=np.int64)
        n_labels = max(len(self.labels), 1)
        if label.size and (label.min() < 0 or label.max() >= n_labels):
            ann = self.annotations
            return self.by_label_of(ann.item[slot], ann.annotator[slot], label)
        table = self._label_slot_table
        if table is not None:
            return table[slot * n_labels + label].astype(np.int64)
        first = self.class_starts
        lo, hi = first[slot], first[slot + 1]
        end, classes = hi.copy(), self.by_label.label
        for _ in range(int(np.max(np.diff(first), initial=0)).bit_length()):
            mid = (lo + hi) >> 1
            go = (lo < hi) & (classes[mid] < label)
            lo, hi = np.where(go, mid + 1, lo), np.where(go | (lo == hi), hi, mid)
        found = lo < end
        found[found] = classes[lo[found]] == label[found]
        return np.where(found, lo, self.by_label.empty)

    @cached_property
    def _label_slot_table(self) -> np.ndarray | None:
        n_slots, n_labels = len(self.annotations.start), max(len(self.labels), 1)
        s = self.by_label
        if n_slots * n_labels > 16 * len(s.start) + 2**22 or s.empty >= 2**31:
            return None  # int32: 64 bytes or less for each slot of by_label
        table = np.full(n_slots * n_labels, s.empty, dtype=np.int32)
        owner = np.repeat(np.arange(n_slots), np.diff(self.class_starts))
        table[owner * n_labels + s.label[:-1]] = np.arange(s.empty)
        return table

    @cached_property
    def class_starts(self) -> np.ndarray:
        """Per slot of :attr:`annotations` (the empty one included), its first slot in
        :attr:`by_label`, then the end of the last: the classes of annotation ``i`` are
        ``by_label.label[class_starts[i]:class_starts[i + 1]]``, in order."""
        n = max(len(self.labels), 1)
        keys = np.append(self._annotation_keys, np.iinfo(np.int64).max // n) * n
        return np.append(np.searchsorted(self._by_label_keys, keys), self.by_label.empty)

    @property
    def _annotation_keys(self):
        return self.annotations.item[:-1] * len(self.annotators) + self.annotations.annotator[:-1]

    @property
    def _by_label_keys(self):
        s = self.by_label
        return (s.item[:-1] * len(self.annotators) + s.annotator[:-1]) * len(self.labels) + s.label[
            :-1
        ]


def _rank(fingerprint: np.ndarray, names: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Codes ordering entities by rounded fingerprint; exact ties broken by the classes
    the entity drew (``labels``: a sum over its objects of a function of the class name),
    then by its own name."""
    name_rank = pd.Index(names.astype(str)).argsort()
    tie = np.empty(len(names), dtype=np.int64)
    tie[name_rank] = np.arange(len(names))
    order = np.lexsort((tie, np.round(labels, 6), np.round(fingerprint, 6)))
    codes = np.empty(len(names), dtype=np.int64)
    codes[order] = np.arange(len(names))
    return codes


def _slices(keys: np.ndarray, n_objects_keys: np.ndarray, columns: dict) -> Slices:
    """Slices over the sorted object keys for each (sorted, unique) slot key."""
    start = np.searchsorted(n_objects_keys, keys, side="left")
    stop = np.searchsorted(n_objects_keys, keys, side="right")
    pad = lambda a, v: np.append(np.asarray(a, dtype=np.int64), v)  # noqa: E731
    return Slices(
        start=pad(start, 0),
        count=pad(stop - start, 0),
        **{k: pad(v, -1) for k, v in columns.items()},
    )


def annotation_slices(
    item, annotator, label, coverage_key, *, n_annotators: int, n_labels: int, group=None
) -> tuple[Slices, Slices]:
    """The annotation slots (one per covering (item, annotator), ``coverage_key`` =
    ``item * n_annotators + annotator``, sorted) and the per-class slots of objects given
    in canonical order by their codes; ``group`` (per item code, see
    :attr:`Corpus.group`) gives the slots their group codes."""
    n_lab = max(n_labels, 1)
    obj_key = item * n_annotators + annotator
    annotations = _slices(
        coverage_key,
        obj_key,
        {"item": coverage_key // n_annotators, "annotator": coverage_key % n_annotators},
    )
    lab_obj_key = obj_key * n_lab + label
    lab_key = sorted_unique(lab_obj_key)
    by_label = _slices(
        lab_key,
        lab_obj_key,
        {
            "item": lab_key // n_lab // n_annotators,
            "annotator": lab_key // n_lab % n_annotators,
            "label": lab_key % n_lab,
        },
    )
    if group is not None:
        group = np.asarray(group, dtype=np.int64)
        annotations = replace(annotations, group=np.append(group[annotations.item[:-1]], -1))
        by_label = replace(by_label, group=np.append(group[by_label.item[:-1]], -1))
    return annotations, by_label


def item_groups(item_code, item_group_raw) -> np.ndarray | None:
    """Per item code, its group code: the smallest item code of its group.

    Parameters
    ----------
    item_code : ndarray of int
        Canonical code of each item (indexed by the item's raw position).
    item_group_raw : ndarray of int
        Raw group code of each item (same positions), -1 for an item with no group (a
        group of its own).

    Returns
    -------
    ndarray of int64, indexed by item code

    Examples
    --------
    >>> item_groups(np.array([2, 0, 1, 3]), np.array([5, 5, -1, 7])).tolist()
    [0, 1, 0, 3]
    """
    item_code = np.asarray(item_code, dtype=np.int64)
    raw = np.asarray(item_group_raw, dtype=np.int64)
    n = len(item_code)
    # items without a group: a group of their own, numbered after the named ones
    raw = np.where(raw < 0, raw.max(initial=-1) + 1 + np.arange(n), raw)
    _, dense = np.unique(raw, return_inverse=True)
    smallest = np.full(n, n, dtype=np.int64)
    np.minimum.at(smallest, dense, item_code)
    out = np.empty(n, dtype=np.int64)
    out[item_code] = smallest[dense]
    return out


def _group_of_items(df: pd.DataFrame, item_raw: np.ndarray, n_items: int) -> np.ndarray:
    """Raw group code per item (by raw item code), -1 where its rows name no group; the
    frame is validated (an item has at most one group)."""
    group = df[GROUP]
    named = group.notna().to_numpy()
    codes, _ = pd.factorize(group.to_numpy(dtype=object)[named])
    out = np.full(n_items, -1, dtype=np.int64)
    out[item_raw[named]] = codes
    return out


def prepare(df: pd.DataFrame, *, normalize: bool = True) -> Corpus:
    """Validate ``df`` and put it in the canonical form the matcher works on.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (it is validated; invalid rows raise). Its optional
        ``group`` column gives every item a group (:attr:`Corpus.group`).
    normalize : bool, default True
        Divide coordinates by the image size where it is known.

    Returns
    -------
    Corpus

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> c = prepare(iaf.simulate(n_items=3, seed=1))
    >>> int(c.annotations.count[:-1].sum()) == len(c.objects)
    True
    """
    df = validate(df)
    # the object rows are gathered from the frame once, in canonical order (at the end);
    # until then their shapes and codes are read off the frame's columns (a coverage row
    # has no label and a missing shape, and every step is row by row)
    rows = np.flatnonzero(df["x0"].notna().to_numpy())
    every_shape = Shapes.from_frame(df, normalize=normalize, validated=True)
    boxes = every_shape.boxes.take(rows, axis=0)
    known = np.isfinite(df["width"].to_numpy()[rows]) & np.isfinite(df["height"].to_numpy()[rows])
    normalization = (
        "none" if not normalize or not known.any() else "image size" if known.all() else "mixed"
    )

    # raw codes (by first appearance) for items and annotators over every row
    item_raw, item_names = pd.factorize(df["item"])
    ann_raw, ann_names = pd.factorize(df["annotator"])
    distinct = {"item": item_names, "annotator": ann_names}
    item_names, ann_names = (
        np.asarray(item_names, dtype=object),
        np.asarray(ann_names, dtype=object),
    )
    # an object's fingerprint: its box, and how common its class is (a name-free trait,
    # so that items differing only by their labels are told apart whatever the names)
    label_codes, labels = pd.factorize(df["label"], sort=True)  # objects have labels
    distinct["label"] = labels
    label_codes, labels = label_codes[rows], np.asarray(labels, dtype=object)
    # the rank of each label's string among the distinct ones (np.unique of the strings)
    label_raw = np.unique(labels.astype(str), return_inverse=True)[1].ravel()[label_codes]
    fp = box_fingerprint(boxes) + 0.000731 * np.bincount(label_raw)[label_raw] / max(
        len(label_raw), 1
    )
    obj_item, obj_ann = item_raw[rows], ann_raw[rows]
    item_fp = np.bincount(obj_item, weights=fp, minlength=len(item_names)).astype(float)
    ann_fp = np.bincount(obj_ann, weights=fp, minlength=len(ann_names)).astype(float)
    # coverage counts make empty items/annotators distinguishable too
    item_fp += 0.011 * np.bincount(item_raw, minlength=len(item_names))
    ann_fp += 0.013 * np.bincount(ann_raw, minlength=len(ann_names))
    # ties (identical boxes and class frequencies): the class names decide before the
    # entity's own name, so renaming items or annotators never reorders them
    by_name = np.sqrt(1.0 + label_raw)
    item_code = _rank(
        item_fp, item_names, np.bincount(obj_item, weights=by_name, minlength=len(item_names))
    )
    ann_code = _rank(
        ann_fp, ann_names, np.bincount(obj_ann, weights=by_name, minlength=len(ann_names))
    )
    items = np.empty_like(item_names)
    items[item_code] = item_names
    annotators = np.empty_like(ann_names)
    annotators[ann_code] = ann_names

    o_item, o_ann = item_code[obj_item], ann_code[obj_ann]
    order = canonical_order(o_item, o_ann, label_codes, boxes, len(ann_names), len(labels))
    take = rows[order]
    codes = {"item": item_raw[take], "annotator": ann_raw[take], "label": label_codes[order]}
    coded = {c: (codes[c], distinct[c]) for c in codes}

    def the_rest():
        """The shapes and slices, here while the rows are gathered beside (1M boxes: about
        0.15 s each in a sampled timeline of one run)."""
        shapes = every_shape.take(take)
        o_item_, o_ann_ = o_item[order], o_ann[order]
        o_label_ = label_codes[order].astype(np.int64)
        n_ann = len(annotators)
        cov_key = sorted_unique(item_code[item_raw] * n_ann + ann_code[ann_raw])
        group = (
            item_groups(item_code, _group_of_items(df, item_raw, len(item_names)))
            if GROUP in df.columns
            else None
        )
        slices = annotation_slices(
            o_item_,
            o_ann_,
            o_label_,
            cov_key,
            n_annotators=n_ann,
            n_labels=len(labels),
            group=group,
        )
        return shapes, o_item_, o_ann_, o_label_, group, slices

    objects, (shapes, o_item, o_ann, o_label, group, (annotations, by_label)) = side_by_side(
        lambda: gather_rows(df, take, coded), the_rest
    )
    corpus = Corpus(
        objects=objects,
        shapes=shapes,
        item=o_item,
        annotator=o_ann,
        label=o_label,
        items=items,
        annotators=annotators,
        labels=labels,
        annotations=annotations,
        by_label=by_label,
        normalization=normalization,
        area=areas(shapes),
        group=group,
    )
    return corpus


# -- public names of the steps of prepare(), for iaa_frames.dask, which builds the same
# canonical codes and slots from per-partition aggregates of a dask DataFrame
rank_codes = _rank
