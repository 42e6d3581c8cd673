"""Per-item agreement written back to FiftyOne samples: :func:`to_fiftyone`, the way back of
:func:`iaa_frames.io.fiftyone.from_fiftyone`; like it, it never imports ``fiftyone``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError

from .fiftyone import value_of

__all__ = ["to_fiftyone"]


def _plain(v):
    """A value FiftyOne stores: Python numbers, NaN as None."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return None if np.isnan(v) else float(v)
    if v is pd.NA:
        return None
    return v


def to_fiftyone(
    dataset, agreement: pd.DataFrame, *, field: str = "iaa", item: str = "filepath", columns=None
) -> list:
    """Write per-item agreement back to the samples, one field per column.

    Parameters
    ----------
    dataset : fiftyone Dataset, DatasetView or iterable of samples
        The samples the frame was read from (:func:`from_fiftyone`).
    agreement : pandas.DataFrame
        Indexed by item, such as :func:`iaa_frames.item_agreement` returns (or with an
        ``item`` column).
    field : str, default "iaa"
        The prefix of the fields written: ``<field>_<column>``, e.g. ``iaa_detection``.
    item : str, default "filepath"
        The sample attribute naming the item, as given to :func:`from_fiftyone`.
    columns : sequence of str, optional
        The columns written; by default every column.

    Returns
    -------
    list of str
        The fields written. A sample whose item has no row gets ``None``; a Dataset or
        view is written in one ``set_values`` call per field, samples of a list are set
        one by one (and saved when they belong to a dataset).

    Raises
    ------
    ParameterError
        When a column is missing, or no sample matches an item of the frame (``item``
        is likely not the key the frame was read with).

    Examples
    --------
    >>> import iaa_frames as iaf, pandas as pd
    >>> class Sample:  # any object with the item attribute; here a stand-in for fo.Sample
    ...     def __init__(self, filepath): self.filepath = filepath
    >>> samples = [Sample("a.jpg"), Sample("b.jpg")]
    >>> scores = pd.DataFrame({"detection": [0.8, float("nan")]}, index=["a.jpg", "b.jpg"])
    >>> to_fiftyone(samples, scores)
    ['iaa_detection']
    >>> samples[0].iaa_detection, samples[1].iaa_detection
    (0.8, None)
    """
    if not isinstance(agreement, pd.DataFrame):
        raise ParameterError(f"agreement must be a DataFrame, got {type(agreement).__name__}")
    if "item" in agreement.columns:
        agreement = agreement.set_index("item")
    columns = list(agreement.columns if columns is None else columns)
    missing = [c for c in columns if c not in agreement.columns]
    if missing:
        raise ParameterError(f"columns {missing} are not in the agreement frame")
    names = [f"{field}_{c}" for c in columns]
    if hasattr(dataset, "values") and hasattr(dataset, "set_values"):
        keys = dataset.values(item)
        samples = None
    else:
        samples = list(dataset)
        keys = [value_of(s, item) for s in samples]
    pos = agreement.index.get_indexer(pd.Index(keys, dtype=object))
    if len(keys) and len(agreement) and not (pos >= 0).any():
        raise ParameterError(
            f"no sample's {item!r} is an item of the agreement frame (samples: "
            f"{keys[0]!r}, ...; items: {agreement.index[0]!r}, ...): pass the item= the "
            "frame was read with"
        )
    for name, col in zip(names, columns, strict=True):
        vals = agreement[col].to_numpy(dtype=object)
        values = [_plain(vals[p]) if p >= 0 else None for p in pos]
        if samples is None:
            dataset.set_values(name, values)
            continue
        for s, v in zip(samples, values, strict=True):
            if hasattr(s, "__setitem__"):
                s[name] = v
            else:
                setattr(s, name, v)
    if samples is not None:
        for s in samples:
            if getattr(s, "in_dataset", False):
                s.save()
    return names
