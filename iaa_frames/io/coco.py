# Over 400 lines: one format (COCO JSON, streamed); 94 of them are documentation.
"""Reader for COCO object-detection JSON (one file per annotator, or rater keys)."""

from __future__ import annotations

import math
import warnings
from array import array

import numpy as np

from iaa_frames.errors import ParameterError, ReaderError
from iaa_frames.geometry.kinds import KEYPOINTS
from iaa_frames.geometry.kinds.mask import TRACE_CANVAS_PIXELS, masks_to_geometries
from iaa_frames.geometry.kinds.registry import FRAME_COLUMNS

from .builder import FrameBuilder, finish
from .groups import with_groups
from .item_keys import ItemKeys, one_item_per_image
from .json_stream import JSONStream
from .keypoints import joint_order, keypoint_params, skeleton_kind
from .masks import MAX_MASK_PIXELS, mask_to_geometry, rle_crop
from .paths import ENTRY_ERRORS, files_and_annotators, reader_error
from .values import flat_ring, is_number, json_object, number, size_value

__all__ = ["mask_to_geometry", "read_coco"]

#: Column names an ``attributes`` key does not take (it gets the prefix ``attr_``).
_TAKEN = FRAME_COLUMNS | {"mask_width", "mask_height"}
_KNOWN = {"id", "image_id", "category_id", "bbox", "segmentation", "area", "iscrowd", "score"}
_ID = {int, str}  # exact types: bool is not an id
_NUM = {int, float}
_FLOAT_MAX = 1 << 1024


def _entry(i, aid):
    return f"annotations[{i}]" if aid is None else f"annotations[{i}] (id={aid})"


def _check_id(path, entry, v, what) -> None:
    if type(v) not in _ID:
        raise reader_error(path, entry, f"{what} must be an integer or string, got {v!r}")


class _CocoFile:
    """State while streaming one COCO file."""

    def __init__(
        self, path, annotator, builder: FrameBuilder, rater_key, rater_list_key, keys: ItemKeys
    ):
        self.path = path
        self.keys = keys
        self.explicit = annotator
        self.annotator = annotator if annotator is not None else path.stem
        self.b = builder
        self.rater_key = rater_key if annotator is None else None
        self.rater_list_key = rater_list_key if annotator is None else None
        self.images: dict = {}  # id -> (name, width, height, raters or None, index)
        self.items: dict = {}  # item -> (entry, size) of the image record that gave it
        self.by_id = False  # item_key="id": the item is the image id
        self.explicit_rater = False  # rater_key= passed: a file without it is refused
        self.max_mask_pixels = MAX_MASK_PIXELS
        self.categories: dict = {}
        self.has_images = False
        self.has_annotations = False
        self.has_categories = False
        self.n_annotations = 0
        self.rows_start = builder.n
        self.rater_rows = array("b")  # per row of this file: 1 when the rater key was given
        self.ann_index: list = []  # annotation index per row
        self.image_ids: list = []  # image id per row
        self.file_idx = builder.add_file(path, lambda i: f"annotations[{i}]")
        self.group_key, self.groups = None, {}  # set by read_coco
        self.results = False  # a top-level list of annotations (COCO results format)
        self.pending_cover: list = []  # (image id, annotator, rater given, index) of skipped annotations
        self.keypoints = True  # read annotations with keypoints as skeletons
        self.kp_rows: list = []  # (row, category id, x, y, v, area, box) of skeletons
        self.skeletons: dict = {}  # category id -> (joint names, skeleton edges)
        self.masks: list = []  # (row, cropped mask, origin) of RLE masks not traced yet
        self.mask_pixels = 0

    # --- sections ----------------------------------------------------------------------
    def image(self, i, img):
        entry = f"images[{i}]"
        json_object(self.path, entry, img, "an image")
        if "id" not in img:
            raise reader_error(self.path, entry, "missing key 'id'")
        iid = img["id"]
        _check_id(self.path, entry, iid, "image id")
        entry = f"images[{i}] (id={iid})"
        if iid in self.images:
            raise reader_error(self.path, entry, "duplicate image id")
        name = img.get("file_name", str(iid))  # an item is text, whatever the id
        if not isinstance(name, (str, int)) or isinstance(name, bool):
            raise reader_error(self.path, entry, f"file_name must be a string, got {name!r}")
        if self.by_id:
            name = str(iid)
        elif "file_name" in img:
            name = self.keys(name, scope=self.path, path=self.path, entry=entry)
        w = size_value(self.path, entry, img.get("width"), "width")
        h = size_value(self.path, entry, img.get("height"), "height")
        one_item_per_image(self.path, self.items, name, entry, (w, h))
        raters = None
        if self.rater_list_key is not None and self.rater_list_key in img:
            raters = img[self.rater_list_key]
            if not isinstance(raters, list) or not all(type(r) in _ID and r != "" for r in raters):
                why = f"{self.rater_list_key} must be a list of rater ids, got {raters!r}"
                raise reader_error(self.path, entry, why)
        self.images[iid] = (name, w, h, raters, i)
        if self.group_key is not None and img.get(self.group_key) is not None:
            g = img[self.group_key]
            _check_id(self.path, entry, g, self.group_key)
            self.groups.setdefault(name, set()).add(str(g))

    def category(self, i, cat):
        entry = f"categories[{i}]"
        json_object(self.path, entry, cat, "a category")
        for k in ("id", "name"):
            if k not in cat:
                raise reader_error(self.path, entry, f"missing key {k!r}")
        cid, name = cat["id"], cat["name"]
        _check_id(self.path, entry, cid, "category id")
        if not isinstance(name, str) or not name:
            raise reader_error(
                self.path, entry, f"category name must be a non-empty string, got {name!r}"
            )
        if cid in self.categories and self.categories[cid] != name:
            why = f"category id {cid} is defined twice ({self.categories[cid]!r} and {name!r})"
            raise reader_error(self.path, f"{entry} (id={cid})", why)
        self.categories[cid] = name
        joints = cat.get("keypoints")
        if joints is not None:
            if not isinstance(joints, list) or not all(isinstance(j, str) for j in joints):
                why = f"keypoints must be a list of joint names, got {joints!r}"
                raise reader_error(self.path, f"{entry} (id={cid})", why)
            edges = cat.get("skeleton") or []
            if not isinstance(edges, list) or not all(
                isinstance(e, list)
                and len(e) == 2
                and all(type(j) is int and 1 <= j <= len(joints) for j in e)
                for e in edges
            ):
                why = (
                    f"skeleton must be a list of [joint, joint] pairs counted from 1, got {edges!r}"
                )
                raise reader_error(self.path, f"{entry} (id={cid})", why)
            self.skeletons[cid] = (joints, [(a - 1, b - 1) for a, b in edges])

    def _attributes(self, ann, attributes: dict, extras: dict) -> None:
        """An ``attributes`` dictionary (CVAT's and Datumaro's COCO exports) as columns,
        one per key (``attr_<key>`` when the key is a core column or an annotation key,
        prefixed again while that names another column: ``attributes`` holding ``item``
        and ``attr_item``, or beside an annotation key ``attr_item``), declared attributes
        of the frame."""
        for key, value in attributes.items():
            name = str(key)
            col = f"attr_{name}" if name in _TAKEN or name in ann else name
            while col in extras or col in ann:
                col = f"attr_{col}"
            extras[col] = value
            self.b.attributes[col] = None

    def annotation(self, i, ann):
        path = self.path
        if type(ann) is not dict:
            why = f"an annotation must be a JSON object, got {type(ann).__name__}"
            raise reader_error(path, f"annotations[{i}]", why)
        aid = ann.get("id")
        if aid is not None and type(aid) not in _ID:
            _check_id(path, f"annotations[{i}]", aid, "annotation id")
        try:
            iid = ann["image_id"]
            cid = ann["category_id"]
        except KeyError as exc:
            raise reader_error(path, _entry(i, aid), f"missing key {exc.args[0]!r}") from None
        if type(iid) not in _ID or type(cid) not in _ID:
            _check_id(path, _entry(i, aid), iid, "image_id")
            _check_id(path, _entry(i, aid), cid, "category_id")
        annotator = self.annotator
        rater_given = False
        extras = {}
        attributes = None
        for k in ann.keys() - _KNOWN:
            v = ann[k]
            if k == self.rater_key:
                if type(v) not in _ID or v == "":
                    raise reader_error(
                        path, _entry(i, aid), f"{k} must be an integer or string, got {v!r}"
                    )
                annotator = str(v)
                rater_given = True
            elif k == "attributes" and type(v) is dict:
                attributes = v  # after the annotation's keys, whose columns it must not take
            else:
                extras[k] = v
        if attributes:
            self._attributes(ann, attributes, extras)
        for k in ("area", "score"):
            v = ann.get(k)
            if v is not None:
                if type(v) not in _NUM:
                    raise reader_error(path, _entry(i, aid), f"{k} must be a number, got {v!r}")
                if type(v) is float and not math.isfinite(v):  # the entry named on errors only
                    number(path, _entry(i, aid), v, k)  # raises, naming it
                extras[k] = v
                if type(v) is int and not -_FLOAT_MAX < v < _FLOAT_MAX:
                    raise OverflowError(k)
        v = ann.get("iscrowd")
        if v is not None:
            if type(v) is not int or v not in (0, 1):
                raise reader_error(path, _entry(i, aid), f"iscrowd must be 0 or 1, got {v!r}")
            extras["iscrowd"] = v
        oid = aid
        entry = None
        bbox = ann.get("bbox")
        if bbox is not None:
            if type(bbox) is not list or len(bbox) != 4:
                raise reader_error(
                    path, _entry(i, aid), f"bbox must be a list [x, y, width, height], got {bbox!r}"
                )
            x, y, w, h = bbox
            if (
                type(x) not in _NUM
                or type(y) not in _NUM
                or type(w) not in _NUM
                or type(h) not in _NUM
            ):
                raise reader_error(path, _entry(i, aid), f"bbox must hold 4 numbers, got {bbox!r}")
        if self.keypoints and "keypoints" in ann:
            extras.pop("keypoints")
            extras.pop("num_keypoints", None)
            box = None if bbox is None else (x, y, x + w, y + h)
            self._skeleton(i, aid, ann, iid, cid, annotator, rater_given, extras, box)
            return
        seg = ann.get("segmentation")
        if seg is not None and seg != []:
            entry = _entry(i, aid)
        b = self.b
        kw = {"object_id": oid, "file_idx": self.file_idx, "entry": i, "extras": extras}
        who = {"item": iid, "annotator": annotator, "record": seg}
        if isinstance(seg, dict):
            if "counts" not in seg or "size" not in seg:
                raise reader_error(
                    path, entry, "segmentation is a dict but not an RLE (needs 'counts' and 'size')"
                )
            crop = rle_crop(path, entry, seg, self.max_mask_pixels)
            extras["mask_height"], extras["mask_width"] = seg["size"]
            row = b.add_geometry(iid, annotator, cid, None, **kw)
            self._add_mask(row, *crop)
        elif seg is not None and seg != []:
            if not isinstance(seg, list):
                why = f"segmentation must be a list of polygons or an RLE dict, got {type(seg).__name__}"
                raise reader_error(path, entry, why)
            if all(is_number(v) for v in seg):
                seg = [seg]  # a single flat polygon, written without the outer list
            parts = []
            for j, part in enumerate(seg):
                ring = flat_ring(path, entry, part, f"segmentation[{j}]")
                if len(ring) < 6:
                    continue
                parts.append([ring])
            if not parts:
                if bbox is None:
                    why = "segmentation has no polygon with 3 or more points and there is no bbox"
                    raise reader_error(path, entry, why)
                why = "no polygon part has 3 or more points; the bbox was kept as a box"
                b.drop(path, entry, "degenerate_polygon_bbox_kept", why, **who)
                b.add_box(iid, annotator, cid, x, y, x + w, y + h, **kw)
            else:
                if len(parts) < len(seg):
                    why = "a polygon part with fewer than 3 points was skipped; the other parts were kept"
                    b.drop(path, entry, "degenerate_polygon_part", why, **who)
                b.add_polygon(iid, annotator, cid, parts, **kw)
        else:
            if bbox is None:
                raise reader_error(path, _entry(i, aid), "has neither bbox nor segmentation")
            b.add_box(iid, annotator, cid, x, y, x + w, y + h, **kw)
        self.rater_rows.append(rater_given)

    def _skeleton(self, i, aid, ann, iid, cid, annotator, rater_given, extras, box):
        """An annotation with ``keypoints``: a skeleton (its segmentation and bbox give
        only its area), added as a box until the category names its joints."""
        path, entry = self.path, _entry(i, aid)
        flat = ann["keypoints"]
        if (
            type(flat) is not list
            or not flat
            or len(flat) % 3
            or not all(type(v) in _NUM for v in flat)
        ):
            raise reader_error(
                path, entry, f"keypoints must be a list of numbers x, y, v per joint, got {flat!r}"
            )
        xyv = np.array(flat, dtype=np.float64).reshape(-1, 3)
        v = xyv[:, 2]
        if not np.isfinite(xyv).all() or not np.isin(v, (0, 1, 2)).all():
            why = f"keypoints must hold finite x, y and a visibility 0, 1 or 2, got {flat!r}"
            raise reader_error(path, entry, why)
        if not (v > 0).any():  # COCOeval ignores them too (num_keypoints == 0)
            why = "a skeleton with no labelled joint (num_keypoints 0) was skipped"
            who = {"item": iid, "annotator": annotator, "record": ann}
            self.b.drop(path, entry, "keypoints_none_labelled", why, **who)
            self._reviewed(iid, annotator, rater_given, i)
            return
        on = xyv[v > 0]
        (x0, y0), (x1, y1) = on[:, :2].min(axis=0), on[:, :2].max(axis=0)
        kw = {"object_id": aid, "file_idx": self.file_idx, "entry": i, "extras": extras}
        row = self.b.add_box(iid, annotator, cid, x0, y0, x1, y1, **kw)
        area = ann.get("area")
        self.kp_rows.append((row, cid, xyv, area if type(area) in _NUM else None, box))
        self.rater_rows.append(rater_given)

    def _skeleton_rows(self):
        """The skeletons as shapes of their category's keypoints kind."""
        for row, cid, xyv, area, box in self.kp_rows:
            if row in self.b.voided:
                continue
            joints, edges = self.skeletons.get(cid, (None, ()))  # None: COCO's 17, by position
            try:
                if joints is None and len(xyv) != 17:
                    raise reader_error(
                        self.path,
                        self.ann_entry(row),
                        f"the category {cid!r} names no 'keypoints' and the annotation has "
                        f"{len(xyv)} joints (not COCO's 17 person keypoints)",
                    )
                label = self.categories.get(cid, str(cid))
                kind = skeleton_kind(joints, label, skeleton=edges) if joints else KEYPOINTS
                if len(xyv) != kind.n_keypoints:
                    why = (
                        f"{len(xyv)} keypoints, but the category {label!r} names {kind.n_keypoints}"
                    )
                    raise reader_error(self.path, self.ann_entry(row), why)
            except (ReaderError, ParameterError) as exc:
                if not isinstance(exc, ReaderError):
                    exc = reader_error(self.path, self.ann_entry(row), str(exc))
                self.b.void(row, exc, self.path, self.ann_entry(row))
                continue
            if joints:
                xyv = xyv[joint_order(kind, joints)]
            params = keypoint_params(xyv[:, 0], xyv[:, 1], xyv[:, 2], area, box)
            self.b.reshape_row(row, kind.name, params)

    def _add_mask(self, row, mask, origin):
        # masks are traced together (much faster than one by one), a canvas at a time
        self.masks.append((row, mask, origin))
        self.mask_pixels += mask.size
        if self.mask_pixels >= TRACE_CANVAS_PIXELS:
            self._trace_masks()

    def _trace_masks(self):
        if self.masks:
            rows, masks, origins = zip(*self.masks, strict=True)
            self.b.geoms.update(zip(rows, masks_to_geometries(masks, origins), strict=True))
        self.masks, self.mask_pixels = [], 0

    def ann_entry(self, r):
        _, entry = self.b.describe_row(r)
        return entry

    def _reviewed(self, iid, annotator, rater_given, i):
        # the annotation was skipped, but the image was still reviewed by this annotator
        self.pending_cover.append((iid, annotator, rater_given, i))

    # --- end of file ---------------------------------------------------------------------
    def finish(self):
        self._trace_masks()
        path, b = self.path, self.b
        if not self.has_images and not self.has_annotations:
            raise reader_error(path, None, "neither 'images' nor 'annotations': not a COCO export")
        if not self.images and not self.n_annotations:
            raise reader_error(path, None, "no images and no annotations: nothing to read")
        if self.n_annotations and not self.results and not self.has_categories:
            raise reader_error(
                path, None, "no 'categories': the category_id of the annotations cannot be named"
            )
        rows = range(self.rows_start, b.n)  # every row this file added (coverage comes later)
        rater = (
            np.frombuffer(self.rater_rows, dtype=np.int8).astype(bool)
            if len(self.rater_rows)
            else np.zeros(0, bool)
        )
        any_rater_list = any(v[3] is not None for v in self.images.values())
        rater_mode = bool(rater.any()) or any_rater_list
        if rater_mode and not rater.all() and len(rows):
            r = rows[int(np.flatnonzero(~rater)[0])]
            _, entry = b.describe(r)
            why = (
                "other annotations of this file carry one"
                if rater.any()
                else f"the images of this file carry {self.rater_list_key!r}"
            )
            raise reader_error(
                path,
                entry,
                f"no {self.rater_key!r} although {why}; "
                "pass annotator= to read the file as one annotator",
            )
        if self.explicit_rater and self.rater_key is not None and not rater_mode and len(rows):
            raise reader_error(
                path,
                None,
                f"no annotation carries the annotator field {self.rater_key!r} (rater_key=): "
                "the file pools every annotator's objects with nothing saying whose they are "
                "(Potato's COCO export does: read its store with read_potato); omit "
                "rater_key= to read the file as one annotator",
            )
        # labels and items
        cats = self.categories
        mask_w, mask_h = b.extras.get("mask_width"), b.extras.get("mask_height")

        def void(r, why, cover=True):
            entry = self.ann_entry(r)
            b.void(r, reader_error(path, entry, why), path, entry, cover=cover)

        for r in rows:
            cid = b.label[r]
            iid = b.item[r]
            img = self.images.get(iid)
            name = cats.get(cid)
            if img is None and self.has_images:
                void(r, f"image_id {iid!r} is not in 'images'", cover=False)
                continue
            if img is None:
                b.item[r] = str(iid)  # a results file: the image id, as text
            else:
                b.item[r] = img[0]
                b.width[r] = img[1]
                b.height[r] = img[2]
                has_mask = mask_w is not None and r < len(mask_w) and bool(mask_w[r])
                if math.isnan(img[1]) and has_mask:
                    b.width[r], b.height[r] = mask_w[r], mask_h[r]  # the mask knows its image
                elif has_mask and (mask_w[r], mask_h[r]) != (img[1], img[2]):
                    # a mask of another resolution: normalised by its image's size it
                    # would cover another part of the image (#41 S19)
                    void(
                        r,
                        f"the RLE mask is {mask_w[r]:g} x {mask_h[r]:g} pixels (its 'size' "
                        f"[height, width]) but its image {img[0]!r} is {img[1]:g} x "
                        f"{img[2]:g}: fix the image's width and height or the mask",
                    )
                    continue
            if name is None:
                if not self.results:
                    void(r, f"category_id {cid!r} is not defined in 'categories'")
                    continue
                name = str(cid)  # a results file without categories: the id is the label
            b.label[r] = name
        if self.kp_rows:
            self._skeleton_rows()
        for iid, annotator, _rater_given, i in self.pending_cover:
            img = self.images.get(iid)
            name, w, h = (img[0], img[1], img[2]) if img else (str(iid), math.nan, math.nan)
            b.cover(name, annotator, width=w, height=h, file_idx=self.file_idx, entry=i)
        # coverage
        for _iid, (name, w, h, raters, i) in self.images.items():
            entry = f"images[{i}]"
            if not rater_mode:
                b.cover(
                    name, self.annotator, width=w, height=h, file_idx=self.file_idx, entry=entry
                )
            elif raters is not None:
                for r in raters:
                    b.cover(name, str(r), width=w, height=h, file_idx=self.file_idx, entry=entry)


def read_coco(
    path_or_paths,
    *,
    annotator=None,
    rater_key: str | None = None,
    rater_list_key: str = "rater_list",
    item_key="name",
    rle: str | None = None,
    max_mask_pixels: int = MAX_MASK_PIXELS,
    on_invalid: str = "raise",
    return_dropped: bool = False,
    group_key: str | None = "video_id",
    keypoints: bool = True,
):
    """Read COCO object-detection JSON into the tidy annotation frame.

    Parameters
    ----------
    path_or_paths : path, list of paths, or mapping {annotator: path}
        One COCO file per annotator, or one file whose annotations carry a rater key.
    annotator : str or list of str, optional
        The annotator of each file. By default it is the mapping key, else the rater key
        of each annotation (see below), else the file name stem. When given, rater keys are
        not interpreted and are kept as an ordinary column.
    rater_key : str, default "rater_id"
        Annotation key naming the annotator when one file holds several annotators (as in
        the public LVIS double-annotation files). When passed, a file whose annotations
        all lack it is a ReaderError: it pools every annotator with nothing saying whose
        objects are whose (Potato's COCO export does; read Potato's store with
        :func:`iaa_frames.read_potato`).
    rater_list_key : str, default "rater_list"
        Image key listing the raters who reviewed the image; each gives a coverage row
        when that rater drew nothing on the image.
    item_key : {"name", "stem", "path", "id"} or callable, default "name"
        How an image ``file_name`` becomes the ``item`` (see :mod:`iaa_frames.io.item_keys`):
        by default its base name, so that it lines up with the same image in other tools'
        exports; ``"id"``: the image ``id`` as text. Two image records of one file that give
        one item (the same ``file_name``, different ids) are refused: pass ``"id"`` to read
        them as two items.
    rle : {"drop", "bbox"}, optional
        Deprecated, no effect (a :class:`FutureWarning`): it said what to do with RLE masks
        without ``pycocotools``; masks are now decoded without it (see Notes).
    max_mask_pixels : int, default 100_000_000
        The largest RLE mask decoded (height x width, as its ``size`` declares; the default
        is 10,000 x 10,000). A few bytes of RLE can declare any size, and decoding takes
        about 5 bytes per pixel: a larger mask is a ReaderError naming the entry, raised
        before anything is allocated (dropped with ``on_invalid="drop"``).
    on_invalid : {"raise", "drop"}, default "raise"
        What to do with annotations the frame cannot use (zero-area or inverted boxes, an
        entry that cannot be read, a category or image id that is not defined, ...):
        raise a :class:`~iaa_frames.errors.ReaderError` naming file and entry, or drop them,
        counted, with a warning.
    return_dropped : bool, default False
        Return ``(frame, dropped)`` instead of warning about skipped records.
    group_key : str or None, default "video_id"
        Image key naming the image's group (the ``video_id`` of COCO-style video data
        sets: YouTube-VIS, TAO, ImageNet-VID in COCO form): where images carry it, the
        frame gets a ``group`` column, so that chance pairings never join two frames of
        one video (see :func:`iaa_frames.validate`). None: no group column.
    keypoints : bool, default True
        Read annotations with ``keypoints`` (COCO's person keypoints format) as skeletons
        (see Notes); False: read their bbox and segmentation as for detection, and keep
        ``keypoints`` as a column.

    Returns
    -------
    pandas.DataFrame
        The validated tidy frame. ``item`` is the image ``file_name`` (the image ``id``
        where there is no ``file_name``), so that files of different annotators line up
        even when their image ids differ. ``bbox`` (x, y, width, height) becomes
        ``x0, y0, x1, y1``; a polygon ``segmentation`` becomes ``geometry`` (several
        parts give a MultiPolygon). ``label`` is the category name. ``object_id`` is the
        COCO annotation ``id`` when one file is read, ``"{annotator}/{id}"`` when several
        are. ``iscrowd``, ``area`` and ``score`` are kept as columns when present, and so
        are unknown annotation keys. An ``attributes`` dictionary (CVAT's and
        Datumaro's COCO exports: ``{"occluded": false, "color": "red"}``) becomes one
        column per key (``attr_<key>`` when the key is a core column or an annotation
        key), and ``attrs["iaa_attributes"]`` lists those columns for
        :func:`iaa_frames.attribute_agreement`. Images that the annotator reviewed without drawing
        give coverage rows: every image of a per-annotator file, and for rater-keyed files,
        every rater in the image's ``rater_list``.

    Raises
    ------
    ReaderError
        For a missing, empty, truncated or malformed file, wrong types, missing keys, a
        ``category_id`` not in ``categories``, an ``image_id`` not in ``images``, or a
        file with neither images nor annotations. A file with images but no annotations is
        legal: all its rows are coverage rows. The message names the file and the entry
        (``annotations[17] (id=123)``).

    Notes
    -----
    **Masks.** An RLE ``segmentation`` (compressed, ``counts`` a string, or uncompressed,
    a list of run lengths; ``iscrowd`` 0 or 1 alike) is decoded (no pycocotools needed:
    :func:`~iaa_frames.io.masks.rle_crop`, checked against it in the tests) and becomes the exact union of its pixel squares (:func:`mask_to_geometry`), a polygon in
    pixel coordinates like any other: the IoU of two such polygons is exactly the pixel
    IoU of the masks (``pycocotools.mask.iou``), and every distance, the matching and the
    chance baseline treat them as polygons. The mask size is kept as ``mask_width`` and
    ``mask_height``, and stands in for the image size when the image has none. *Images of
    different sizes*: like every polygon, a mask is compared in coordinates normalized by
    its image's width and height, so a chance pair of masks from a 640 x 480 and a
    1280 x 960 image compares the fractions of their images they cover (the left half of
    one and the left half of the other have IoU 1). Within an item both masks share the
    image size, so the normalized IoU is the pixel IoU.

    **Keypoints.** An annotation with ``keypoints`` (``x, y, v`` per joint, ``v`` 0 not
    labelled, 1 occluded, 2 visible) is a skeleton of its category's joints (the
    category's ``keypoints`` names and ``skeleton`` edges; COCO's 17 person keypoints when
    the category names none and there are 17): a row of the keypoints kind of those joints
    (:mod:`iaa_frames.io.keypoints`; COCO's person skeleton is the kind ``keypoints``,
    columns ``kp_{joint}_x/_y/_v`` and ``kp_area``), scored by OKS, with ``area`` its scale
    (the bbox area where the annotation has no ``area``). Its box is that of its labelled
    joints; its bbox and segmentation are not read. One with no labelled joint
    (``num_keypoints`` 0, which COCOeval ignores) is skipped, counted as
    ``keypoints_none_labelled``.

    The file is streamed: the elements of ``images``, ``annotations`` and ``categories``
    are decoded one at a time and stored column-wise, so peak memory stays a small
    multiple of the file size. A top-level JSON array is read as a COCO *results* file
    (a list of annotations, labels are the category ids as strings).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> coco = {"images": [{"id": 1, "file_name": "a.jpg", "width": 100, "height": 80},
    ...                    {"id": 2, "file_name": "b.jpg", "width": 100, "height": 80}],
    ...         "categories": [{"id": 3, "name": "cat"}],
    ...         "annotations": [{"id": 7, "image_id": 1, "category_id": 3,
    ...                          "bbox": [10, 20, 30, 40], "area": 1200, "iscrowd": 0}]}
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ann.json"
    >>> _ = p.write_text(json.dumps(coco))
    >>> df = read_coco(p)
    >>> df[["item", "annotator", "label", "x0", "y0", "x1", "y1"]]
        item annotator label    x0    y0    x1    y1
    0  a.jpg       ann   cat  10.0  20.0  40.0  60.0
    1  b.jpg       ann   NaN   NaN   NaN   NaN   NaN
    """
    if rle is not None:
        if rle not in ("drop", "bbox"):
            raise ParameterError(f"rle must be 'drop' or 'bbox', got {rle!r}")
        warnings.warn(
            "read_coco(rle=) has no effect and will be removed: RLE masks are decoded "
            "without pycocotools",
            FutureWarning,
            stacklevel=2,
        )
    if (
        isinstance(max_mask_pixels, bool)
        or not isinstance(max_mask_pixels, (int, np.integer))
        or max_mask_pixels < 1
    ):
        raise ParameterError(f"max_mask_pixels must be a positive integer, got {max_mask_pixels!r}")
    files = files_and_annotators(path_or_paths, annotator, reader="read_coco")
    explicit_rater = rater_key is not None
    rater_key = "rater_id" if rater_key is None else rater_key
    names = [a if a is not None else p.stem for p, a in files]
    if len(files) > 1 and len(set(names)) < len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ParameterError(
            f"read_coco: several files give the annotator name(s) {dup} "
            "(from their file names); pass a mapping {annotator: path} or annotator=[...]"
        )
    b = FrameBuilder("coco", on_invalid=on_invalid)
    keys = ItemKeys("path" if item_key == "id" else item_key)
    groups: dict = {}  # item -> the groups its images name, over every file
    for path, ann_name in files:
        f = _CocoFile(path, ann_name, b, rater_key, rater_list_key, keys)
        f.explicit_rater = explicit_rater
        f.group_key, f.groups = group_key, groups
        f.by_id = item_key == "id"
        f.max_mask_pixels = int(max_mask_pixels)
        f.keypoints = bool(keypoints)
        stream = JSONStream(
            path, stream_keys=("images", "annotations", "categories"), top_name="annotations"
        )
        for kind, key, i, value in stream:
            if stream.top == "array":  # a results file: a list of annotations
                f.results, key = True, "annotations"
            if kind == "item":
                try:
                    if key == "annotations":
                        f.n_annotations += 1
                        f.annotation(i, value)
                    elif key == "images":
                        f.image(i, value)
                    else:
                        f.category(i, value)
                except ENTRY_ERRORS as exc:  # (a ReaderError names its entry already)
                    aid = value.get("id") if isinstance(value, dict) else None
                    entry = _entry(i, aid) if key == "annotations" else f"{key}[{i}]"
                    b.entry_failed(exc, path, entry, record=value)
            elif key in ("images", "annotations", "categories"):
                if not isinstance(value, list) and value is not None:
                    raise reader_error(
                        path, key, f"'{key}' must be a list, got {type(value).__name__}"
                    )
            if key == "images":
                f.has_images = True
            elif key == "annotations":
                f.has_annotations = True
            elif key == "categories":
                f.has_categories = True
        if stream.top == "array" and not f.n_annotations:
            raise reader_error(path, None, "an empty list: no images and no annotations")
        f.finish()
    if len(files) > 1:
        b.object_id = [
            oid if oid is None else f"{a}/{oid}"
            for oid, a in zip(b.object_id, b.annotator, strict=True)
        ]
    out = finish(b, on_invalid=on_invalid, return_dropped=return_dropped)
    return with_groups(out, groups, return_dropped=return_dropped, reader="read_coco")
