"""The tidy frame of a simulated corpus of one parametric geometry kind (keypoints,
polylines): every annotator's objects, a coverage row where it drew nothing on an image.

Examples
--------
>>> cols = [{"item": np.array([0]), "annotator": "a", "label": np.array(["cat"]), "p": [1.0]}]
>>> tidy_objects(cols, n_items=2, width=10.0, height=8.0)[["item", "annotator", "label", "p"]]
        item annotator label    p
0  img_00000         a   cat  1.0
1  img_00001         a   NaN  NaN
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError

from .limits import check_names

__all__ = ["check_profiles", "tidy_objects"]


def tidy_objects(columns, *, n_items: int, width: float, height: float) -> pd.DataFrame:
    """One frame of every annotator's objects, sorted by item then annotator.

    Parameters
    ----------
    columns : list of dict
        Per annotator: ``item`` (codes ``0 .. n_items-1``), ``annotator`` (its name),
        ``label`` and the kind's columns, one value per object.
    n_items : int
    width, height : float
        The image size of every item.

    Returns
    -------
    pandas.DataFrame
        ``item`` (``img_00000``, ...), ``annotator``, ``label``, ``width``, ``height`` and
        the kind's columns; a coverage row (no object) where an annotator drew nothing.
    """
    frames = []
    for cols in columns:
        frame = pd.DataFrame(cols)
        empty = np.setdiff1d(np.arange(n_items), cols["item"])
        cover = pd.DataFrame({"item": empty, "annotator": cols["annotator"]})
        frames.append(pd.concat([frame, cover], ignore_index=True) if len(empty) else frame)
    df = pd.concat(frames, ignore_index=True)
    df = df.sort_values(["item", "annotator"], kind="stable", ignore_index=True)
    digits = max(5, len(str(n_items - 1)))
    names = pd.Index([f"img_{i:0{digits}d}" for i in range(n_items)], dtype="str")
    df["item"] = pd.Categorical.from_codes(df["item"].to_numpy(), categories=names).astype("str")
    df["annotator"] = df["annotator"].astype("str")
    df["label"] = df["label"].astype("str")
    df.insert(3, "width", width)
    df.insert(4, "height", height)
    return df


def check_profiles(annotators, profile: type, function: str) -> None:
    """Raise unless ``annotators`` is a non-empty dict of ``profile`` instances, named by
    non-empty strings other than ``'(all)'``.

    Raises
    ------
    ParameterError
        Naming ``function`` and the annotator whose profile is of another type, or the
        name that is not an annotator name.
    """
    kind = profile.__name__
    if not isinstance(annotators, dict) or not annotators:
        raise ParameterError(f"{function} needs annotators: {{name: {kind}}}")
    check_names(annotators)
    for name, p in annotators.items():
        if not isinstance(p, profile):
            raise ParameterError(f"annotator {name!r}: needs a {kind}; got {type(p).__name__}")
