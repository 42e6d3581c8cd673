"""Voxel IoU and Dice of label volumes per scan, label and pair of annotators, without
matching: the classic per-structure comparison of segmentations
(:mod:`iaa_frames.geometry.kinds.volume` holds the volumes)."""

from __future__ import annotations

import numpy as np

from iaa_frames.geometry.kinds.volume import (
    VOLUME,
    VOLUME_COLUMNS,  # noqa: F401 (the examples)
    dice_from_iou,
    volume_params,  # noqa: F401 (the examples)
    voxel_keys,
)

__all__ = ["volume_overlap"]


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
    >>> rows = [("s1", "ana", "liver", *volume_params(a)), ("s1", "ben", "liver", *volume_params(b))]
    >>> df = pd.DataFrame(rows, columns=["item", "annotator", "label", *VOLUME_COLUMNS])
    >>> volume_overlap(df)[["label", "iou", "dice"]].round(3).to_dict("records")
    [{'label': 'liver', 'iou': 0.333, 'dice': 0.5}]
    """
    import pandas as pd

    rows = VOLUME.rows(frame)
    df = frame.loc[rows]
    data = VOLUME.read(df)
    annotators = sorted(frame["annotator"].dropna().unique().tolist())
    sets: dict = {}
    for (item, label, who), idx in df.groupby(
        ["item", "label", "annotator"], sort=True
    ).indices.items():
        keys = np.unique(np.concatenate([voxel_keys(r) for r in data[idx, 0]]))
        sets[(item, label, who)] = (keys, float(data[idx[0], 8]))
    out = []
    for item, label in sorted({(i, lab) for i, lab, _ in sets}, key=str):
        for ia, wa in enumerate(annotators):
            for wb in annotators[ia + 1 :]:
                sa, sb = sets.get((item, label, wa)), sets.get((item, label, wb))
                if sa is None and sb is None:
                    continue
                na = len(sa[0]) if sa else 0
                nb = len(sb[0]) if sb else 0
                va = sa[1] if sa else sb[1]
                vb = sb[1] if sb else va
                shared = len(np.intersect1d(sa[0], sb[0], assume_unique=True)) if sa and sb else 0
                union = na + nb - shared
                iou = shared / union if union else 1.0
                out.append((item, label, wa, wb, na * va, nb * vb, shared * min(va, vb), iou))
    res = pd.DataFrame(
        out,
        columns=[
            "item",
            "label",
            "annotator_a",
            "annotator_b",
            "volume_a",
            "volume_b",
            "shared",
            "iou",
        ],
    )
    res["dice"] = dice_from_iou(res["iou"].to_numpy(dtype=np.float64))
    return res
