"""STAPLE consensus of label volumes (3D masks), per scan and label: the voxels of
:mod:`iaa_frames.geometry.kinds.volume` handed to :func:`iaa_frames.decisions.staple.staple`."""

from __future__ import annotations

import numpy as np

from iaa_frames.geometry.kinds.volume import (
    RUNS,
    VOLUME,
    VOLUME_COLUMNS,
    runs_voxels,
    volume_params,  # noqa: F401 (the examples)
    voxel_params,
)
from iaa_frames.measures.volumes import volume_frame
from iaa_frames.settings.validation import Integer, validate_params

from .staple import staple

__all__ = ["volume_staple"]


@validate_params({"max_iter": Integer(1, expected="an integer >= 1 (EM iterations)")}, engine=False)
def volume_staple(frame, *, max_iter: int = 100):
    """STAPLE consensus of each scan's label volumes (Warfield et al. 2004,
    :func:`iaa_frames.decisions.staple.staple`): the hidden true volume of every item and
    label, and each annotator's sensitivity and specificity on it.

    Every annotator with a row on the item (a volume or a coverage row) decides every
    voxel of the box that holds all annotators' voxels of the label (an annotator who drew
    none of it said "background" everywhere); voxels outside that box are background for
    all and left out, so specificities are those of the box (STAPLE's specificity depends
    on the background it is given). One EM per item and label.

    Parameters
    ----------
    frame : pandas.DataFrame
        Volume rows (:func:`iaa_frames.read_nifti`, ``instances=False`` or not: the
        objects of a label are pooled).
    max_iter : int, default 100
        The most EM iterations (>= 1) of each item and label.

    Returns
    -------
    consensus : pandas.DataFrame
        One row per item and label whose STAPLE volume is not empty: ``item, label``,
        ``annotator`` ``"(staple)"``, the :data:`VOLUME_COLUMNS`, ``vol_runs`` and
        ``volume_mm3``: a frame of volume rows.
    performance : pandas.DataFrame
        ``item, label, annotator, sensitivity, specificity``.

    Examples
    --------
    >>> import pandas as pd
    >>> a = np.zeros((4, 4, 4), bool); a[1:3, 1:3, 1:3] = True
    >>> wide = np.zeros((4, 4, 4), bool); wide[0:4, 1:3, 1:3] = True
    >>> df = pd.DataFrame([{"item": "s", "annotator": who, "label": "liver", **volume_params(m)}
    ...                    for who, m in (("ana", a), ("ben", a), ("cy", wide))])
    >>> consensus, perf = volume_staple(df)
    >>> (consensus["vol_runs"].iloc[0] == volume_params(a)["vol_runs"]).all()
    np.True_
    >>> consensus["vol_voxels"].tolist()
    [8.0]
    >>> perf["sensitivity"].round(2).tolist()
    [1.0, 1.0, 1.0]
    """
    import pandas as pd

    df = volume_frame(frame, "volume_staple")
    data = VOLUME.read(df)
    runs = VOLUME.read_payload(df).to_arrays()
    covered = frame.dropna(subset=["item", "annotator"])  # coverage rows too
    on_item = covered.groupby("item", sort=True)["annotator"].unique()
    consensus, performance = [], []
    groups = df.groupby(["item", "label"], sort=True).indices
    for (item, label), idx in groups.items():
        raters = sorted(on_item[item].tolist(), key=str)  # names of numbers and words
        sets = {}
        for i in idx:
            who = df["annotator"].iat[i]
            sets.setdefault(who, []).append(runs_voxels(runs[i]))
        ijk = {w: np.unique(np.concatenate(v), axis=0) for w, v in sets.items()}
        every = np.concatenate(list(ijk.values()))
        lo, hi = every.min(axis=0), every.max(axis=0) + 1
        shape = tuple(int(v) for v in hi - lo)
        decisions = np.zeros((len(raters), int(np.prod(shape))), dtype=bool)
        for r, who in enumerate(raters):
            if who in ijk:
                decisions[r, np.ravel_multi_index(tuple((ijk[who] - lo).T), shape)] = True
        post, p, q = staple(
            decisions,
            np.zeros(len(raters), int),
            np.arange(len(raters)),
            len(raters),
            max_iter=max_iter,
        )
        for r, who in enumerate(raters):
            performance.append((item, label, who, p[r], q[r]))
        inside = np.flatnonzero(post[0] >= 0.5)
        if inside.size:
            row = voxel_params(
                np.column_stack(np.unravel_index(inside, shape)) + lo, zooms=(1, 1, 1)
            )
            row["vol_voxel_mm3"] = float(data[idx[0], 7])
            mm3 = row["vol_voxels"] * row["vol_voxel_mm3"]
            consensus.append({"item": item, "label": label, "annotator": "(staple)", **row})
            consensus[-1]["volume_mm3"] = mm3
    return (
        pd.DataFrame(
            consensus,
            columns=["item", "label", "annotator", *VOLUME_COLUMNS, RUNS, "volume_mm3"],
        ),
        pd.DataFrame(
            performance, columns=["item", "label", "annotator", "sensitivity", "specificity"]
        ),
    )
