# Over 400 lines: one writer per export format of the bundled samples, sharing their layout.
"""Minimal writers of the supported formats, used to make the packaged samples.

They write a validated tidy frame the way the annotation tools export it: one file (or
directory) per annotator, an image entry for every item the annotator covered (so that a
reader gives back the coverage rows), boxes and polygons in each format's own coordinate
convention. They are deliberately small: they write what the readers read, and nothing of
the formats' other features. Coordinates in pixels are rounded to ``decimals`` places,
normalized YOLO coordinates to 6 places, Label Studio percentages to 6 places. No writer
replaces an existing file unless ``overwrite=True`` (a FileExistsError names it; also
through :meth:`~iaa_frames.decisions.consensus.Consensus.to_coco` and ``to_cvat``, which
pass their options on).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import validate
from iaa_frames.geometry.kinds import POINT_SET, POLYLINE, polyline_vertices
from iaa_frames.geometry.kinds.cuboid2d import CUBOID_2D_COLUMNS

from .safe_csv import csv_text

__all__ = [
    "write_coco",
    "write_coco_raters",
    "write_cvat",
    "write_darwin",
    "write_labelstudio",
    "write_voc",
    "write_yolo",
]


def _frame(df):
    df = validate(df)
    return df, df["x0"].notna().to_numpy()


def _safe_names(df, columns) -> None:
    """Refuse an item or annotator that would not stay one file name inside the target
    folder (``../x``, ``/abs``, ``a/b``, ``..``), before anything is written."""
    for col in columns:
        for name in pd.unique(df[col].to_numpy(dtype=object)):
            text = str(name)
            if (
                text in ("", ".", "..")
                or any(c in text for c in ("/", "\\", "\0"))
                or Path(text).is_absolute()
                or (len(text) > 1 and text[1] == ":")  # a Windows drive
            ):
                raise ParameterError(
                    f"the {col} {text!r} names a file here, and would leave the target "
                    "folder or not be one file name: rename it (no '/', '\\', '..')"
                )


def _r(v, decimals):
    v = round(float(v), decimals)
    return int(v) if v == int(v) else v


def _rings(geom):
    """Parts of a (Multi)Polygon, each a list of rings (exterior first), each an (n, 2)
    array without the closing point."""
    parts = geom.geoms if geom.geom_type == "MultiPolygon" else [geom]
    out = []
    for p in parts:
        rings = [p.exterior, *p.interiors]
        out.append([np.asarray(r.coords)[:-1] for r in rings])
    return out


def _cvat_points(rec):
    """``("polyline" | "points", (n, 2) points)`` of a row of the kind ``polyline`` (its
    vertices without the repeats of the last one) or ``point_set`` (its ``ps_n`` points),
    else ``(None, None)``."""
    if pd.notna(rec.get("pl_0_x", np.nan)):
        return "polyline", polyline_vertices(POLYLINE, [rec[c] for c in POLYLINE.columns])
    if pd.notna(rec.get("ps_n", np.nan)):
        xy = np.array([rec[c] for c in POINT_SET.columns[1:]], dtype=np.float64).reshape(-1, 2)
        return "points", xy[: int(rec["ps_n"])]
    return None, None


def _cvat_cuboid(rec, decimals) -> dict:
    """The corner attributes of a ``<cuboid>`` (``xtl1 ... ybr2``) of a 2D cuboid row."""
    out = {}
    for face, n in (("f", "1"), ("b", "2")):
        for k, corner in enumerate(("tl", "tr", "br", "bl"), 1):
            out[f"x{corner}{n}"] = f"{rec[f'c2d_{face}x{k}']:.{decimals}f}"
            out[f"y{corner}{n}"] = f"{rec[f'c2d_{face}y{k}']:.{decimals}f}"
    return out


def _annotators(df):
    return sorted(df["annotator"].unique())


def _items(df):
    return list(dict.fromkeys(sorted(df["item"].unique(), key=str)))


def _size(row):
    w, h = row["width"], row["height"]
    return (None if pd.isna(w) else _r(w, 0)), (None if pd.isna(h) else _r(h, 0))


def _rows(df, obj):
    """Per (annotator, item): (size, list of object rows) for every covered item."""
    out = {}
    for rec, is_obj in zip(df.to_dict("records"), obj, strict=True):
        key = (rec["annotator"], rec["item"])
        entry = out.setdefault(key, [rec, []])
        if is_obj:
            entry[1].append(rec)
    return out


def _indent(el, level=0):
    ET.indent(el, space="  ", level=level)


def _texts(parent, tag=None, **texts):
    """``parent`` (or its new child ``tag``) given a child element per keyword, holding its
    text, in order; the element."""
    el = parent if tag is None else ET.SubElement(parent, tag)
    for child, text in texts.items():
        ET.SubElement(el, child).text = text
    return el


def _write(path: Path, text: str, overwrite: bool) -> None:
    """Write ``text`` to ``path``; an existing file is a FileExistsError unless
    ``overwrite`` (every file the writers write goes through here)."""
    try:
        with open(path, "w" if overwrite else "x", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except FileExistsError:
        raise FileExistsError(
            f"{path} exists: pass overwrite=True to replace it, or write into another folder"
        ) from None


def _write_xml(root, path: Path, overwrite: bool):
    _indent(root)
    _write(
        path,
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n",
        overwrite,
    )


def write_coco(df, directory, *, suffix=".jpg", decimals=2, overwrite=False):
    """One COCO file per annotator, ``{directory}/{annotator}.json``.

    Image ids, category ids (labels sorted, from 1) and annotation ids (``object_id + 1``
    when integer) are shared by all files; ``file_name`` is ``f"{item}{suffix}"``.
    """
    df, obj = _frame(df)
    _safe_names(df, ("annotator",))
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    items = _items(df)
    image_id = {it: k + 1 for k, it in enumerate(items)}
    labels = sorted(df.loc[obj, "label"].unique())
    cat_id = {lab: k + 1 for k, lab in enumerate(labels)}
    cats = [{"id": cat_id[lab], "name": lab, "supercategory": "object"} for lab in labels]
    by = _rows(df, obj)
    paths = []
    for ann in _annotators(df):
        images, anns = [], []
        for it in items:
            if (ann, it) not in by:
                continue
            first, objs = by[(ann, it)]
            w, h = _size(first)
            images.append(
                {"id": image_id[it], "file_name": f"{it}{suffix}", "width": w, "height": h}
            )
            for rec in objs:
                anns.append(_coco_ann(rec, image_id[it], cat_id, decimals))
        path = directory / f"{ann}.json"
        doc = {
            "info": {"description": f"annotations by {ann}", "version": "1.0"},
            "licenses": [],
            "images": images,
            "annotations": anns,
            "categories": cats,
        }
        _write(path, json.dumps(doc, indent=1), overwrite)
        paths.append(path)
    return paths


def _coco_ann(rec, iid, cat_id, decimals, extra=None):
    oid = rec["object_id"]
    a = {
        "id": int(oid) + 1 if isinstance(oid, (int, np.integer)) else oid,
        "image_id": iid,
        "category_id": cat_id[rec["label"]],
    }
    g = rec["geometry"]
    if g is not None:
        segs = []
        for rings in _rings(g):
            segs.append([_r(v, decimals) for v in rings[0].ravel()])
        a["segmentation"] = segs
        area = g.area
    else:
        a["segmentation"] = []
        area = (rec["x1"] - rec["x0"]) * (rec["y1"] - rec["y0"])
    x0, y0, x1, y1 = (_r(rec[c], decimals) for c in ("x0", "y0", "x1", "y1"))
    a["bbox"] = [x0, y0, _r(x1 - x0, decimals), _r(y1 - y0, decimals)]
    a["area"] = _r(area, decimals)
    a["iscrowd"] = 0
    if extra:
        a.update(extra)
    return a


def write_coco_raters(df, path, *, suffix=".jpg", decimals=2, overwrite=False):
    """One COCO file for all annotators, LVIS style: ``rater_id`` on every annotation and
    ``rater_list`` on every image (the annotators who reviewed it)."""
    df, obj = _frame(df)
    path = Path(path)
    items = _items(df)
    image_id = {it: k + 1 for k, it in enumerate(items)}
    labels = sorted(df.loc[obj, "label"].unique())
    cat_id = {lab: k + 1 for k, lab in enumerate(labels)}
    by = _rows(df, obj)
    raters = {it: [] for it in items}
    size = {}
    for (ann, it), (first, _) in by.items():
        raters[it].append(ann)
        size.setdefault(it, _size(first))
    images = [
        {
            "id": image_id[it],
            "file_name": f"{it}{suffix}",
            "width": size[it][0],
            "height": size[it][1],
            "rater_list": sorted(raters[it]),
        }
        for it in items
    ]
    anns = []
    for (ann, it), (_, objs) in sorted(by.items(), key=lambda kv: (image_id[kv[0][1]], kv[0][0])):
        for rec in objs:
            anns.append(_coco_ann(rec, image_id[it], cat_id, decimals, {"rater_id": ann}))
    cats = [{"id": cat_id[lab], "name": lab} for lab in labels]
    _write(
        path,
        json.dumps({"images": images, "annotations": anns, "categories": cats}, indent=1),
        overwrite,
    )
    return path


def write_cvat(df, directory, *, suffix=".jpg", decimals=2, overwrite=False):
    """One CVAT for images 1.1 XML per annotator, ``{directory}/job_{k}.xml``, with the
    annotator as the job assignee; lines of the kind ``polyline`` as ``<polyline>``, sets
    of the kind ``point_set`` as ``<points>``, 2D cuboids (kind ``cuboid_2d``) as
    ``<cuboid>`` (the front face the first); a row whose ``rater_kind`` is ``"machine"``
    has the ``source`` ``auto``, the others ``manual``."""
    df, obj = _frame(df)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    items = _items(df)
    labels = sorted(df.loc[obj, "label"].unique())
    by = _rows(df, obj)
    paths = []
    for k, ann in enumerate(_annotators(df), start=1):
        root = _texts(ET.Element("annotations"), version="1.1")
        meta = ET.SubElement(root, "meta")
        mine = [it for it in items if (ann, it) in by]
        job = _texts(meta, "job", id=str(k), size=str(len(mine)), mode="annotation", overlap="0")
        _texts(job, bugtracker="", subset="default")
        _texts(job, "owner", username="admin", email="admin@example.org")
        _texts(job, "assignee", username=ann, email=f"{ann}@example.org")
        labs = ET.SubElement(job, "labels")
        for lab in labels:
            _texts(labs, "label", name=lab, type="any", attributes=None)
        _texts(meta, dumped="2024-01-01 00:00:00.000000+00:00")
        for it in mine:
            first, objs = by[(ann, it)]
            w, h = _size(first)
            image = {"id": str(items.index(it)), "name": f"{it}{suffix}"}
            im = ET.SubElement(root, "image", **image, width=str(w), height=str(h))
            for rec in objs:
                g = rec["geometry"]
                machine = rec.get("rater_kind") == "machine"
                common = {"label": rec["label"], "source": "auto" if machine else "manual",
                          "occluded": "0"}  # fmt: skip
                tag, xy = _cvat_points(rec)
                if pd.notna(rec.get(CUBOID_2D_COLUMNS[0], np.nan)):
                    ET.SubElement(
                        im, "cuboid", **common, **_cvat_cuboid(rec, decimals), z_order="0"
                    )
                elif tag is not None:  # a polyline or a point set
                    pts = ";".join(f"{x:.{decimals}f},{y:.{decimals}f}" for x, y in xy)
                    ET.SubElement(im, tag, **common, points=pts, z_order="0")
                elif g is None:
                    corners = (("xtl", "x0"), ("ytl", "y0"), ("xbr", "x1"), ("ybr", "y1"))
                    box = {k: f"{rec[c]:.{decimals}f}" for k, c in corners}
                    ET.SubElement(im, "box", **common, **box, z_order="0")
                else:
                    for rings in _rings(g):
                        pts = ";".join(f"{x:.{decimals}f},{y:.{decimals}f}" for x, y in rings[0])
                        ET.SubElement(im, "polygon", **common, points=pts, z_order="0")
        path = directory / f"job_{k}.xml"
        _write_xml(root, path, overwrite)
        paths.append(path)
    return paths


def write_labelstudio(df, path, *, suffix=".jpg", upload_dir="/data/upload/1/", overwrite=False):
    """A Label Studio JSON export: one task per item, one annotation per annotator who
    covered it (``completed_by`` a dict with ``id`` and ``email = {annotator}@example.org``),
    rectangles and polygons in percent of the image size; lines of the kind ``polyline``
    as polygons left open (``"closed": false``, read back with
    ``read_labelstudio(open_polygons="polyline")``)."""
    df, obj = _frame(df)
    if df["width"].isna().any() or df["height"].isna().any():
        raise ParameterError("write_labelstudio needs width and height on every row")
    path = Path(path)
    items = _items(df)
    anns_sorted = _annotators(df)
    user = {a: k + 1 for k, a in enumerate(anns_sorted)}
    by = _rows(df, obj)
    tasks = []
    aid = 0
    for t, it in enumerate(items, start=1):
        annotations = []
        for ann in anns_sorted:
            if (ann, it) not in by:
                continue
            first, objs = by[(ann, it)]
            W, H = float(first["width"]), float(first["height"])
            aid += 1
            result = []
            for rec in objs:
                g = rec["geometry"]
                base = {
                    "id": f"r{rec['object_id']}",
                    "from_name": "label",
                    "to_name": "image",
                    "original_width": int(W),
                    "original_height": int(H),
                    "image_rotation": 0,
                }
                if g is None and _cvat_points(rec)[0] is None:
                    value = {
                        "x": round(rec["x0"] / W * 100, 6),
                        "y": round(rec["y0"] / H * 100, 6),
                        "width": round((rec["x1"] - rec["x0"]) / W * 100, 6),
                        "height": round((rec["y1"] - rec["y0"]) / H * 100, 6),
                        "rotation": 0,
                        "rectanglelabels": [rec["label"]],
                    }
                    result.append({**base, "type": "rectanglelabels", "value": value})
                else:
                    tag, xy = _cvat_points(rec)
                    if tag == "points":
                        raise ParameterError(
                            "write_labelstudio cannot write point sets (Label Studio's points "
                            "are keypoints)"
                        )
                    closed = tag is None  # a polyline is an open polygon (read_labelstudio)
                    ring = _rings(g)[0][0] if closed else xy
                    pts = [[round(x / W * 100, 6), round(y / H * 100, 6)] for x, y in ring]
                    value = {"points": pts, "closed": closed, "polygonlabels": [rec["label"]]}
                    outline = {"from_name": "outline", "type": "polygonlabels", "value": value}
                    result.append({**base, **outline})
            annotations.append(
                {
                    "id": aid,
                    "completed_by": {"id": user[ann], "email": f"{ann}@example.org"},
                    "result": result,
                    "was_cancelled": False,
                    "ground_truth": False,
                    "lead_time": 10.0,
                    "task": t,
                }
            )
        data = {"image": f"{upload_dir}{it}{suffix}"}
        tasks.append({"id": t, "data": data, "annotations": annotations, "predictions": []})
    _write(path, json.dumps(tasks, indent=1), overwrite)
    return path


def write_voc(df, directory, *, suffix=".jpg", decimals=2, overwrite=False):
    """Pascal VOC XML, ``{directory}/{annotator}/{item}.xml``; polygons are written as their
    bounding boxes (VOC has no polygons)."""
    df, obj = _frame(df)
    _safe_names(df, ("annotator", "item"))
    directory = Path(directory)
    by = _rows(df, obj)
    paths = []
    for (ann, it), (first, objs) in sorted(by.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        d = directory / ann
        d.mkdir(parents=True, exist_ok=True)
        root = _texts(ET.Element("annotation"), folder="images", filename=f"{it}{suffix}")
        _texts(root, "source", database="iaa_frames sample")
        w, h = _size(first)
        _texts(root, "size", width=str(w or 0), height=str(h or 0), depth="3")
        _texts(root, segmented="0")
        for rec in objs:
            o = _texts(root, "object", name=rec["label"], pose="Unspecified", truncated="0")
            _texts(o, difficult="0")
            bb = ET.SubElement(o, "bndbox")
            for tag, col in (("xmin", "x0"), ("ymin", "y0"), ("xmax", "x1"), ("ymax", "y1")):
                ET.SubElement(bb, tag).text = f"{rec[col]:.{decimals}f}"
        path = d / f"{it}.xml"
        _write_xml(root, path, overwrite)
        paths.append(path)
    return paths


def write_yolo(df, directory, *, classes=None, overwrite=False):
    """YOLO labels, ``{directory}/{annotator}/{item}.txt`` (boxes as ``class cx cy w h``,
    polygons as segmentation lines), plus ``classes.txt`` and ``image_sizes.csv`` (item,
    width, height) in ``directory``."""
    df, obj = _frame(df)
    _safe_names(df, ("annotator", "item"))
    if df["width"].isna().any() or df["height"].isna().any():
        raise ParameterError("write_yolo needs width and height on every row")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    classes = list(classes) if classes is not None else sorted(df.loc[obj, "label"].unique())
    idx = {c: k for k, c in enumerate(classes)}
    by = _rows(df, obj)
    sizes = {}
    for (ann, it), (first, objs) in sorted(by.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        d = directory / ann
        d.mkdir(parents=True, exist_ok=True)
        W, H = float(first["width"]), float(first["height"])
        sizes[it] = (int(W), int(H))
        lines = []
        for rec in objs:
            g = rec["geometry"]
            c = idx[rec["label"]]
            if g is None:
                cx = (rec["x0"] + rec["x1"]) / 2 / W
                cy = (rec["y0"] + rec["y1"]) / 2 / H
                bw = (rec["x1"] - rec["x0"]) / W
                bh = (rec["y1"] - rec["y0"]) / H
                lines.append(f"{c} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
            else:
                parts = _rings(g)
                if len(parts) != 1:
                    raise ParameterError(
                        "write_yolo writes one polygon per object, not a MultiPolygon"
                    )
                xy = parts[0][0] / (W, H)
                lines.append(f"{c} " + " ".join(f"{v:.6f}" for v in xy.ravel()))
        _write(d / f"{it}.txt", "".join(line + "\n" for line in lines), overwrite)
    _write(directory / "classes.txt", "".join(c + "\n" for c in classes), overwrite)
    sizes_csv = csv_text(
        pd.DataFrame(
            [(it, w, h) for it, (w, h) in sorted(sizes.items(), key=lambda kv: str(kv[0]))],
            columns=["item", "width", "height"],
        ),
        index=False,
    )
    _write(directory / "image_sizes.csv", sizes_csv, overwrite)
    return directory


def write_darwin(df, directory, *, suffix=".jpg", decimals=2, overwrite=False):
    """V7 Darwin JSON 2.0, ``{directory}/{annotator}/{item}.json``, every annotation with
    its ``annotators`` (email ``{annotator}@example.org``)."""
    df, obj = _frame(df)
    _safe_names(df, ("annotator", "item"))
    directory = Path(directory)
    by = _rows(df, obj)
    for (ann, it), (first, objs) in sorted(by.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        d = directory / ann
        d.mkdir(parents=True, exist_ok=True)
        w, h = _size(first)
        annotations = []
        for rec in objs:
            g = rec["geometry"]
            x0, y0, x1, y1 = (_r(rec[c], decimals) for c in ("x0", "y0", "x1", "y1"))
            oid = rec["object_id"]
            if isinstance(oid, (int, np.integer)):
                oid = f"{int(oid):08d}-0000-4000-8000-000000000000"
            bbox = {"h": _r(y1 - y0, decimals), "w": _r(x1 - x0, decimals), "x": x0, "y": y0}
            a = {
                "bounding_box": bbox,
                "id": str(oid),
                "name": rec["label"],
                "properties": [],
                "slot_names": ["0"],
                "annotators": [{"email": f"{ann}@example.org", "full_name": ann.title()}],
                "reviewers": [],
            }
            if g is not None:
                rings = [ring for part in _rings(g) for ring in part]
                paths = [
                    [{"x": _r(x, decimals), "y": _r(y, decimals)} for x, y in r] for r in rings
                ]
                a["polygon"] = {"paths": paths}
            annotations.append(a)
        source = [{"file_name": f"{it}{suffix}"}]
        slot = {"type": "image", "slot_name": "0", "width": w, "height": h, "source_files": source}
        doc = {
            "version": "2.0",
            "schema_ref": "https://darwin-public.s3.eu-west-1.amazonaws.com/darwin_json/2.0/schema.json",
            "item": {
                "name": f"{it}{suffix}",
                "path": "/",
                "slots": [slot],  # fmt: skip
            },
            "annotations": annotations,
        }
        _write(d / f"{it}.json", json.dumps(doc, indent=1), overwrite)
    return directory
