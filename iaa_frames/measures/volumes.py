"""Voxel IoU and Dice of label volumes per scan, label and pair of annotators, without
matching: the classic per-structure comparison of segmentations
(:mod:`iaa_frames.geometry.kinds.volume` holds the volumes)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.errors import InvalidAnnotationError, SchemaError
from iaa_frames.geometry.kinds.ragged import Ragged
from iaa_frames.geometry.kinds.volume import (
    VOLUME,
    dice_from_iou,
    runs_voxels,
    shared_voxels,
    volume_params,  # noqa: F401 (the examples)
    voxel_runs,
)
from iaa_frames.settings.validation import validate_params

__all__ = ["volume_frame", "volume_overlap"]


def volume_frame(frame, name: str) -> pd.DataFrame:
    """The volume rows of ``frame`` (the others left out), or a :class:`SchemaError`
    naming ``name`` when ``frame`` is not a frame of ``item``, ``annotator`` and
    ``label`` rows or has no volume columns at all (a frame of boxes: nothing to read),
    an :class:`InvalidAnnotationError` when a volume row has no item or annotator.

    Examples
    --------
    >>> volume_frame(pd.DataFrame({"item": ["a"], "annotator": ["x"], "label": ["cat"],
    ...                            "x0": [0.0]}), "volume_overlap")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.SchemaError: volume_overlap needs volume rows (the columns vol_x0, ..., vol_runs that read_nifti writes); the frame has no vol_x0
    """
    if not isinstance(frame, pd.DataFrame):
        raise SchemaError(f"{name} needs a DataFrame of volume rows; got {type(frame).__name__}")
    missing = [c for c in ("item", "annotator", "label") if c not in frame.columns]
    if missing:
        raise SchemaError(f"{name} needs the columns item, annotator and label; no {missing}")
    absent = [c for c in (*VOLUME.columns, VOLUME.payload) if c not in frame.columns]
    if absent:
        raise SchemaError(
            f"{name} needs volume rows (the columns {VOLUME.columns[0]}, ..., "
            f"{VOLUME.payload} that read_nifti writes); the frame has no {absent[0]}"
        )
    df = frame.loc[VOLUME.rows(frame)]
    unnamed = df[["item", "annotator"]].isna().any(axis=1).to_numpy()
    if unnamed.any():
        raise InvalidAnnotationError(
            f"{name}: {int(unnamed.sum())} volume row(s) have no item or no annotator, "
            f"e.g. the row at index {df.index[unnamed][0]!r}"
        )
    return df


@validate_params(engine=False)
def volume_overlap(frame):
    """Voxel IoU and Dice per item, label and pair of annotators, without matching: each
    annotator's voxels of a label (every object of it) against the other's.

    Parameters
    ----------
    frame : pandas.DataFrame
        Volume rows (:func:`iaa_frames.read_nifti`); other rows are ignored.

    Returns
    -------
    pandas.DataFrame
        Columns ``item, label, annotator_a, annotator_b, volume_a, volume_b`` (mm³),
        ``shared`` (mm³), ``iou``, ``dice``; a label one of the two left out has
        ``iou = dice = 0``. Pairs where neither marked the label are left out.

    Examples
    --------
    >>> import pandas as pd
    >>> a = np.zeros((4, 4, 4), bool); a[:2] = True
    >>> b = np.zeros((4, 4, 4), bool); b[1:3] = True
    >>> df = pd.DataFrame([{"item": "s1", "annotator": "ana", "label": "liver", **volume_params(a)},
    ...                    {"item": "s1", "annotator": "ben", "label": "liver", **volume_params(b)}])
    >>> volume_overlap(df)[["label", "iou", "dice"]].round(3).to_dict("records")
    [{'label': 'liver', 'iou': 0.333, 'dice': 0.5}]
    """
    df = volume_frame(frame, "volume_overlap")
    data = VOLUME.read(df)
    runs = VOLUME.read_payload(df)
    # by name: annotators named by numbers and by words side by side sort too
    annotators = sorted(frame["annotator"].dropna().unique().tolist(), key=str)
    keys, sets = [], []
    for key, idx in df.groupby(["item", "label", "annotator"], sort=True).indices.items():
        # the union of the annotator's objects of the label (they may overlap)
        if len(idx) == 1:
            sets.append(runs.take(idx).to_arrays()[0])
        else:
            sets.append(voxel_runs(runs_voxels(np.concatenate(runs.take(idx).to_arrays()))))
        keys.append((*key, float(data[idx[0], 7])))
    where = {k[:3]: i for i, k in enumerate(keys)}
    pairs = []
    for item, label in sorted({k[:2] for k in keys}, key=str):
        for ia, wa in enumerate(annotators):
            for wb in annotators[ia + 1 :]:
                sa, sb = where.get((item, label, wa)), where.get((item, label, wb))
                if sa is not None or sb is not None:
                    pairs.append((item, label, wa, wb, sa, sb))
    ragged = Ragged.from_arrays(sets)
    size = np.array([float((s[1::2] - s[0::2]).sum()) for s in sets] + [0.0])
    mm3 = np.array([k[3] for k in keys] + [np.nan])
    ia = np.array([len(sets) if p[4] is None else p[4] for p in pairs], dtype=np.int64)
    ib = np.array([len(sets) if p[5] is None else p[5] for p in pairs], dtype=np.int64)
    padded = Ragged.concat([ragged, Ragged.empty(1)])
    shared = shared_voxels(padded.take(ia), padded.take(ib))
    va = np.where(np.isnan(mm3[ia]), mm3[ib], mm3[ia])
    vb = np.where(np.isnan(mm3[ib]), va, mm3[ib])
    union = size[ia] + size[ib] - shared
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = np.where(union > 0, shared / union, 1.0)
    res = pd.DataFrame(
        {
            "item": [p[0] for p in pairs],
            "label": [p[1] for p in pairs],
            "annotator_a": [p[2] for p in pairs],
            "annotator_b": [p[3] for p in pairs],
            "volume_a": size[ia] * va,
            "volume_b": size[ib] * vb,
            "shared": shared * np.minimum(va, vb),
            "iou": iou,
        }
    )
    res["dice"] = dice_from_iou(res["iou"].to_numpy(dtype=np.float64))
    return res
