"""STAPLE consensus of label volumes (3D masks), per scan and label: the voxels of
:mod:`iaa_frames.geometry.kinds.volume` handed to :func:`iaa_frames.decisions.staple.staple`."""

from __future__ import annotations

import numpy as np

from iaa_frames.geometry.kinds.volume import (
    VOLUME,
    VOLUME_COLUMNS,
    volume_params,  # noqa: F401 (the examples)
    voxel_params,
    voxels,
)

from .staple import staple

__all__ = ["volume_staple"]


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

    Returns
    -------
    consensus : pandas.DataFrame
        One row per item and label whose STAPLE volume is not empty: ``item, label``,
        ``annotator`` ``"(staple)"``, the :data:`VOLUME_COLUMNS` and ``volume_mm3``.
    performance : pandas.DataFrame
        ``item, label, annotator, sensitivity, specificity``.

    Examples
    --------
    >>> import pandas as pd
    >>> a = np.zeros((4, 4, 4), bool); a[1:3, 1:3, 1:3] = True
    >>> wide = np.zeros((4, 4, 4), bool); wide[0:4, 1:3, 1:3] = True
    >>> rows = [("s", who, "liver", *volume_params(m)) for who, m in
    ...         (("ana", a), ("ben", a), ("cy", wide))]
    >>> df = pd.DataFrame(rows, columns=["item", "annotator", "label", *VOLUME_COLUMNS])
    >>> consensus, perf = volume_staple(df)
    >>> consensus["vol_ref"].iloc[0] == volume_params(a)[0], consensus["vol_voxels"].tolist()
    (np.True_, [8.0])
    >>> perf["sensitivity"].round(2).tolist()
    [1.0, 1.0, 1.0]
    """
    import pandas as pd

    rows = VOLUME.rows(frame)
    df = frame.loc[rows]
    data = VOLUME.read(df)
    on_item = frame.groupby("item", sort=True)["annotator"].unique()
    consensus, performance = [], []
    groups = df.groupby(["item", "label"], sort=True).indices
    for (item, label), idx in groups.items():
        raters = sorted(on_item[item].tolist())
        sets = {}
        for i in idx:
            who = df["annotator"].iat[i]
            sets.setdefault(who, []).append(voxels(data[i, 0]))
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
            params = voxel_params(
                np.column_stack(np.unravel_index(inside, shape)) + lo, zooms=(1, 1, 1)
            )
            params[8] = float(data[idx[0], 8])
            consensus.append((item, label, "(staple)", *params, params[7] * params[8]))
    return (
        pd.DataFrame(
            consensus, columns=["item", "label", "annotator", *VOLUME_COLUMNS, "volume_mm3"]
        ),
        pd.DataFrame(
            performance, columns=["item", "label", "annotator", "sensitivity", "specificity"]
        ),
    )
