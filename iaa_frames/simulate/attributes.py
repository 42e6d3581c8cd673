"""Per-object attributes of simulated objects, and each annotator's flips of them.

``simulate(attributes={"occluded": [False, True], "color": ["red", "green"]})`` gives
every true object a value of each attribute, drawn uniformly among the listed values;
an annotator who redraws the object keeps it, or with probability
``Profile.attribute_flip`` (per attribute) takes one of the other values, uniformly.
Objects without a true counterpart (false positives, random and lazy-center draws) draw
their values uniformly. The streams are keyed by the seed and the names of the
attribute and the annotator (never positions), and the flips are drawn per true object,
so adding an attribute or changing a rate changes no other draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.geometry.kinds.registry import FRAME_COLUMNS

from .annotators import ANNOTATOR, TRUTH, name_key, stream

__all__ = ["annotator_values", "as_column", "attribute_frames", "check_attributes", "true_values"]

# stream steps after those of .annotators (truth: 0-4, annotator: 0-6)
T_ATTRIBUTE, A_FLIP, A_DRAW = 5, 7, 8

_RESERVED = FRAME_COLUMNS | {"truth_id"}


def check_attributes(attributes, profiles: Mapping) -> dict:
    """``{name: values array}`` of ``simulate(attributes=...)`` (None: no attributes);
    the attributes the ``profiles`` (``{annotator: Profile}``) flip must be among them."""
    for who, profile in profiles.items():
        if not isinstance(profile.attribute_flip, float):
            unknown = [a for a, _ in profile.attribute_flip if a not in (attributes or {})]
            if unknown:
                raise ParameterError(
                    f"annotator {who!r}: attribute_flip names {unknown}, not among the "
                    f"attributes {list(attributes or {})}"
                )
    if attributes is None:
        return {}
    if not isinstance(attributes, Mapping):
        raise ParameterError(
            "attributes must be a dict {name: [value, ...]} (e.g. {'occluded': [False, "
            f"True]}}), got {attributes!r}"
        )
    out = {}
    for name, values in attributes.items():
        if not isinstance(name, str) or not name or name in _RESERVED:
            raise ParameterError(
                f"attribute names must be non-empty strings other than {sorted(_RESERVED)}, "
                f"got {name!r}"
            )
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise ParameterError(f"attribute {name!r}: give a list of its values, got {values!r}")
        vals = list(values)
        kinds = {bool if isinstance(v, (bool, np.bool_)) else type(v) for v in vals}
        if (  # the type first: set() of lists or dicts would raise a TypeError
            len(vals) < 2
            or len(kinds) != 1
            or not kinds <= {bool, int, float, str}
            or len(set(vals)) != len(vals)
        ):
            raise ParameterError(
                f"attribute {name!r}: give at least two distinct values of one type (bool, "
                f"int, float or str), got {values!r}"
            )
        out[name] = np.asarray(vals, dtype=object)
    return out


def true_values(seed: int, name: str, n_values: int, n_truth: int) -> np.ndarray:
    """Code of every true object's value of attribute ``name``."""
    return stream(seed, TRUTH, T_ATTRIBUTE, *name_key(name)).integers(0, n_values, n_truth)


def annotator_values(
    seed: int, annotator: str, rate: float, name: str, n_values: int, truth_codes, truth_id
) -> np.ndarray:
    """Codes of one annotator's objects (``truth_id``: -1 without a true object)."""
    key = (ANNOTATOR, *name_key(annotator))
    n_truth = len(truth_codes)
    rng = stream(seed, *key, A_FLIP, *name_key(name))
    flip = rng.random(n_truth) < rate
    shift = rng.integers(1, n_values, n_truth)
    flipped = np.where(flip, (truth_codes + shift) % n_values, truth_codes)
    has = truth_id >= 0
    drawn = stream(seed, *key, A_DRAW, *name_key(name)).integers(0, n_values, len(truth_id))
    if not n_truth:
        return drawn
    return np.where(has, flipped[np.where(has, truth_id, 0)], drawn)


def as_column(values: np.ndarray, codes: np.ndarray, present: np.ndarray):
    """The attribute column: ``values[codes]`` where ``present``, missing elsewhere, in
    the dtype of the values (boolean, Int64, float64 or str)."""
    codes = np.where(present, codes, 0)
    first = values[0]
    if isinstance(first, (bool, np.bool_)):
        return pd.arrays.BooleanArray(values.astype(bool)[codes], ~present)
    if isinstance(first, int):
        return pd.arrays.IntegerArray(values.astype(np.int64)[codes], ~present)
    if isinstance(first, float):
        return np.where(present, values.astype(np.float64)[codes], np.nan)
    categories = pd.Index(values.astype(str), dtype="str")
    return pd.Categorical.from_codes(np.where(present, codes, -1), categories=categories).astype(
        "str"
    )


def attribute_frames(seed, attribute_values: dict, profiles, names, cols, n_truth):
    """The attribute columns of the annotations (rows ``cols``: ``annotator`` rank in
    ``names``, ``truth_id``, ``label`` -1 on coverage rows) and of the truth."""
    present = cols["label"] >= 0
    objects, truth = {}, {}
    for attr, values in attribute_values.items():
        truth_codes = true_values(seed, attr, len(values), n_truth)
        codes = np.zeros(len(present), np.int64)
        for rank, (name, profile) in enumerate(zip(names, profiles, strict=True)):
            rows = np.flatnonzero(cols["annotator"] == rank)  # one block per annotator
            codes[rows] = annotator_values(
                seed,
                name,
                profile.flip_rate(attr),
                attr,
                len(values),
                truth_codes,
                cols["truth_id"][rows],
            )
        objects[attr] = as_column(values, codes, present)
        truth[attr] = as_column(values, truth_codes, np.ones(n_truth, bool))
    return objects, truth
