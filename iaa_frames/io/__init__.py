"""Readers of annotation exports into the tidy annotation frame.

Every reader returns the validated tidy frame of :func:`iaa_frames.frame.schema.validate`: one row per drawn
object plus *coverage rows* for images an annotator reviewed and left empty, with
``width``/``height`` whenever the format carries them. Skipped input (cancelled
annotations, unsupported shapes, RLE masks without pycocotools, ...) is never lost
silently: it is counted in a :class:`~iaa_frames.errors.DroppedRowsWarning` whose
``dropped`` attribute holds the records, or returned with ``return_dropped=True``. Broken or
hostile input raises :class:`~iaa_frames.errors.ReaderError` naming the file and the entry.

====================================  ==========================================================
:func:`read_coco`                     COCO JSON: one file per annotator, or ``rater_id`` keys
:func:`read_cvat`                     CVAT for images 1.1 XML, one export per job or annotator
:func:`read_labelstudio`              Label Studio JSON export (rectangles, polygons)
:func:`read_voc`                      Pascal VOC XML, one directory per annotator
:func:`read_yolo`                     YOLO ``.txt`` (boxes and segmentation polygons)
:func:`read_darwin`                   V7 Darwin JSON 2.0
:func:`read_kitti`                    KITTI object labels (3D cuboids), one ``.txt`` per frame
:func:`read_supervisely_pointcloud`   Supervisely (and CVAT "Sly") point-cloud JSON, ``cuboid_3d``
:func:`read_mot`                      MOTChallenge text files (``frame, id, x, y, w, h``), video tracks
:func:`read_labelstudio_video`        Label Studio video rectangles (keyframes filled in), video tracks
:func:`read_activitynet`              ActivityNet-style JSON: time segments ``[start, end]`` per video
:func:`read_nifti`                    NIfTI label volumes (3D masks), one per annotator per scan
:func:`read_table`                    a tidy frame saved as CSV (polygons as WKT) or one Parquet file;
                                      ``boxes=``: a list-of-boxes column (crowdsourcing exports)
:func:`from_supervision`              ``supervision.Detections`` per (item, annotator)
:func:`from_fiftyone`                 FiftyOne label fields (Detections, Polylines, masks)
:func:`load_sample`                   the packaged samples (one simulated corpus in every format)
====================================  ==========================================================

Every reader is one module named after its format (``coco``, ``cvat``, ...). What they
share has one module each: ``paths`` (the files a reader is given, and the error that
names a file and an entry), ``json_stream`` (JSON decoded element by element),
``safe_xml`` (XML through defusedxml), ``values`` (checked numbers and coordinates),
``item_keys`` (image names to items), ``shapes`` (rotated boxes), ``masks`` (pixel masks
as polygons) and ``builder`` (the frame built column-wise, then validated and reported by
``finish``). ``parquet`` reads and writes the frame partitioned by item, ``writers``
writes the frame in each tool's format, ``samples`` holds the packaged samples.
``box_lists`` reads list-of-boxes cells. ``supervision`` / ``supervision_export`` and
``fiftyone`` / ``fiftyone_export`` are the bridges to those libraries (imported only when
a bridge needs them: ``to_supervision`` needs the ``supervision`` extra).
"""

from iaa_frames.frame.schema import register_path_hint

from .activitynet import read_activitynet
from .coco import read_coco
from .cvat import read_cvat
from .darwin import read_darwin
from .fiftyone import from_fiftyone
from .fiftyone_export import to_fiftyone
from .formats import read_hint
from .kitti import read_kitti
from .labelstudio import read_labelstudio
from .labelstudio_video import read_labelstudio_video
from .mot import read_mot
from .nifti import read_nifti
from .samples import SAMPLES, load_sample
from .supervisely import read_supervisely_pointcloud
from .supervision import from_supervision
from .supervision_export import to_supervision
from .table import read_table
from .voc import read_voc
from .yolo import read_yolo
from .yolo_classes import read_yolo_classes

register_path_hint(read_hint)  # iaf.agreement("ann.json") names the reader to use

__all__ = [
    "SAMPLES",
    "from_fiftyone",
    "from_supervision",
    "load_sample",
    "read_activitynet",
    "read_nifti",
    "read_coco",
    "read_cvat",
    "read_darwin",
    "read_kitti",
    "read_labelstudio",
    "read_supervisely_pointcloud",
    "read_labelstudio_video",
    "read_mot",
    "read_table",
    "read_voc",
    "read_yolo",
    "read_yolo_classes",
    "to_fiftyone",
    "to_supervision",
]
