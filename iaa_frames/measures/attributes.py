# Over 400 lines: one idea, the attribute agreement: levels of measurement and codes, the
# per-item sums of the cells, the Dataset with its intervals, and the entry points.
"""Agreement on per-object attributes: Krippendorff's α of matched objects' attributes.

An attribute is a column of the tidy frame holding one value per object (CVAT's
``occluded`` and ``<attribute>`` elements, Label Studio choices attached to a region,
COCO ``attributes``, a simulated attribute). Which columns are attributes is never
guessed: ``attributes=`` names them, or the frame's ``df.attrs["iaa_attributes"]``,
which the readers and the simulator set to the columns they filled from attributes
(:data:`ATTRIBUTES_ATTR`); the result says which it took (attr ``attributes_source``).

For the objects the matching paired (the clusters of matched objects of the pair tables,
the units of classification α: the same matching, threshold τ and tables as the
agreement figures), :func:`attribute_agreement` gives, per attribute, Krippendorff's α
at the attribute's level of measurement, the raw percent agreement beside it and
cluster-bootstrap intervals over items, per class and per annotator, from the sums and
intervals below.

Levels of measurement
---------------------
Which distance Krippendorff's α of an attribute uses (:func:`infer_level` from the
column, or given), and the column turned into what the sums
(:class:`AttributeCells`) take (:func:`attribute_codes`): category codes
for nominal, ordinal and set values (with the sets' MASI distances), centred and scaled
numbers for interval.

The sums
--------
The sums behind attribute agreement: coincidences of matched objects' values per cell.

The units are the clusters of matched objects of the pair tables (``tables.units``: at
most one object per annotator, the units of classification α). Every unordered pair of
objects of a cluster whose attribute values are both present is a *pair of values*,
weighing ``w = 1 / (m_u - 1)`` for a cluster of ``m_u`` present values, so that summed
over pairs it gives Krippendorff's coincidences (both orders of a pair: ``2 w``). A pair
enters the cells of :class:`iaa_frames.core.engine.cells.CellLayout`: label "(all)", and the
class when both objects carry it; annotator "(all)" and each of its two annotators.

Per cell the columns are ``[n_pairs, n_equal]`` (raw percent agreement), then, by level:

* nominal: ``n_c`` (C columns), ``o`` (the mass of differing values);
* masi: as nominal, with ``o`` the mass of the MASI distances of the distinct sets
  (:func:`~iaa_frames.stats.masi.set_disagreements`);
* ordinal: ``n_c`` (C columns), ``o_ck + o_kc`` for every ``c < k``
  (:func:`iaa_frames.stats.krippendorff_levels.pair_index` order);
* interval: ``n``, ``s_1``, ``s_2``, ``o`` (:func:`~iaa_frames.stats.krippendorff_levels.interval_disagreements`).

They are summed per item (:class:`iaa_frames.stats.bootstrap.ItemSums`), so a bootstrap
replicate is one sparse product and every statistic of every cell is an array
expression (:meth:`AttributeCells.statistics`).

The Dataset
-----------
The attribute agreement Dataset: bootstrap intervals of its cells and its variables.

:func:`intervals` resamples items (groups of items when the frame has a ``group``
column) with :func:`iaa_frames.stats.bootstrap.multiplicity_blocks`, reweighting the
per-item sums of :class:`AttributeCells`, and
takes the interval of the engine (BCa with the corrected width of
:func:`iaa_frames.stats.intervals.interval_scale`, or the percentile interval).
:func:`attribute_dataset` labels the arrays (:data:`VARIABLES`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.engine.assemble import name_order, names_in_order
from iaa_frames.core.engine.cells import CellLayout
from iaa_frames.core.engine.resolve import tables_of
from iaa_frames.core.engine.result import interval_notes, text
from iaa_frames.core.matching.assignment import pairs_within_runs
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import (
    DEFAULT_N_BOOT,
    DEFAULTS,
    MatchSettings,
    check_int,
    checked_settings,
)
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.bootstrap import ItemSums
from iaa_frames.stats.cell_intervals import CI_LEVEL, cell_intervals
from iaa_frames.stats.intervals import CI_METHODS, MIN_CI_ITEMS
from iaa_frames.stats.krippendorff import nominal_disagreements
from iaa_frames.stats.krippendorff_levels import LEVELS as VALUE_LEVELS
from iaa_frames.stats.krippendorff_levels import (
    alpha_from_disagreements,
    interval_disagreements,
    ordinal_disagreements,
)
from iaa_frames.stats.masi import as_set, masi_matrix, set_disagreements

__all__ = [
    "ATTRIBUTES_ATTR",
    "CI_LEVEL",
    "LEVELS",
    "MAX_ORDINAL_CATEGORIES",
    "VARIABLES",
    "attribute_agreement",
    "attribute_agreement_from_tables",
    "attribute_codes",
    "attribute_columns",
    "attribute_dataset",
    "AttributeCells",
    "chosen_levels",
    "infer_level",
    "intervals",
    "value_pairs",
]


#: The levels of measurement of an attribute: Krippendorff's three for single values, and
#: "masi" for sets of choices (:mod:`iaa_frames.stats.masi`).
LEVELS = (*VALUE_LEVELS, "masi")
#: The most categories an ordinal attribute may have (its coincidences grow with C^2).
MAX_ORDINAL_CATEGORIES = 200


def infer_level(values: pd.Series) -> str:
    """The level of measurement a column implies: an ordered Categorical is ordinal;
    numbers (not booleans) are interval; a column whose values are lists, tuples, sets or
    arrays (several choices of one question; a Parquet list column reads as arrays) is
    "masi"; booleans, strings, unordered Categoricals and anything else nominal.

    Examples
    --------
    >>> infer_level(pd.Series([True, False])), infer_level(pd.Series([1.5, 2.0]))
    ('nominal', 'interval')
    >>> infer_level(pd.Series(pd.Categorical(["lo", "hi"], ["lo", "hi"], ordered=True)))
    'ordinal'
    >>> infer_level(pd.Series([["a", "b"], ["a"], None]))
    'masi'
    >>> infer_level(pd.Series([np.array(["a", "b"]), np.array(["a"])]))
    'masi'
    """
    dtype = values.dtype
    if pd.api.types.is_object_dtype(dtype):
        present = values.dropna()
        if len(present) and present.map(lambda v: isinstance(v, _CHOICES)).all():
            return "masi"
    if isinstance(dtype, pd.CategoricalDtype):
        return "ordinal" if dtype.ordered else "nominal"
    if pd.api.types.is_bool_dtype(dtype):
        return "nominal"
    if pd.api.types.is_numeric_dtype(dtype):
        return "interval"
    return "nominal"


#: The containers of several choices (a value of a "masi" attribute).
_CHOICES = (list, tuple, set, frozenset, np.ndarray)


def _hashable(v):
    """A list of choices as a tuple, sorted where its items compare (a set of choices)."""
    if not isinstance(v, _CHOICES):
        return v
    if isinstance(v, np.ndarray):
        v = v.ravel().tolist()
    items = [_hashable(x) for x in v]
    try:
        return tuple(sorted(items))
    except TypeError:
        return tuple(items)


def attribute_codes(name: str, values: pd.Series, level: str):
    """``(codes or values, n_categories, distances)`` of a column at a level: category
    codes (-1 missing) for nominal, ordinal and masi (the distinct sets, with their
    ``(C, C)`` MASI distances; None at the other levels), centred and scaled floats (NaN
    missing) for interval."""
    try:
        if level == "masi":
            sets = values.map(as_set, na_action="ignore")
            codes, uniques = pd.factorize(sets, use_na_sentinel=True)
            return codes.astype(np.int64), len(uniques), masi_matrix(uniques)
        codes, n = _value_codes(name, values, level)
    except TypeError:  # a dict, or a list inside a choice: a value no set or code can hold
        raise ParameterError(_unhashable(name, values, level)) from None
    return codes, n, None


def _unhashable(name: str, values: pd.Series, level: str) -> str:
    """The error of an attribute holding a value that cannot be compared (found only after
    the codes failed, so not on the common path)."""
    for v in values.to_numpy(dtype=object):
        inner = v.ravel().tolist() if isinstance(v, np.ndarray) else v
        parts = inner if isinstance(inner, _CHOICES) else [inner]
        try:
            hash(tuple(parts))
        except TypeError:
            return (
                f"attribute {name!r} ({level}) holds {v!r} ({type(v).__name__}), which "
                "cannot be compared: a value is a number, a text, a boolean, or (several "
                "choices) a list, tuple, set or array of them"
            )
    return f"attribute {name!r} ({level}) holds values that cannot be compared"


def _value_codes(name: str, values: pd.Series, level: str):
    """:func:`attribute_codes` of nominal, ordinal and interval values."""
    if level == "nominal":
        try:
            codes, uniques = pd.factorize(values, use_na_sentinel=True)
        except TypeError:  # lists (several choices): compared as sets
            codes, uniques = pd.factorize(values.map(_hashable, na_action="ignore"))
        return codes.astype(np.int64), len(uniques)
    if isinstance(values.dtype, pd.CategoricalDtype):
        if level == "ordinal":
            if not values.dtype.ordered:
                raise ParameterError(
                    f"attribute {name!r}: ordinal needs an order; make it an ordered "
                    "Categorical (pd.Categorical(..., categories=[low, ..., high], ordered=True))"
                )
            codes = values.cat.codes.to_numpy(np.int64)
            return codes, len(values.dtype.categories)
        values = values.astype(object)
    numbers = pd.to_numeric(values.astype(object), errors="coerce").astype(np.float64)
    bad = values.notna().to_numpy() & ~np.isfinite(numbers.to_numpy())
    if bad.any():
        first = values[bad].iloc[0]
        raise ParameterError(
            f"attribute {name!r} is {level} but holds {first!r}, not a finite number "
            "(an ordinal attribute of words: an ordered Categorical)"
        )
    x = numbers.to_numpy()
    if level == "ordinal":
        uniq = np.unique(x[np.isfinite(x)])
        if len(uniq) > MAX_ORDINAL_CATEGORIES:
            raise ParameterError(
                f"attribute {name!r} has {len(uniq)} distinct values: too many for ordinal "
                f"(at most {MAX_ORDINAL_CATEGORIES}); pass levels={{{name!r}: 'interval'}}"
            )
        codes = np.where(np.isfinite(x), np.searchsorted(uniq, np.nan_to_num(x)), -1)
        return codes.astype(np.int64), len(uniq)
    present = np.isfinite(x)
    if present.any():
        x = x - x[present].mean()
        scale = np.abs(x[present]).max()
        x = x / scale if scale > 0 else x
    return x, 0


def chosen_levels(df, names, levels) -> tuple[dict, dict]:
    if levels is None:
        levels = {}
    elif isinstance(levels, str):
        levels = dict.fromkeys(names, levels)
    elif not isinstance(levels, dict):
        raise ParameterError(
            f"levels must be None, a level or a dict {{attribute: level}}, got {levels!r}"
        )
    unknown = [k for k in levels if k not in names]
    if unknown:
        raise ParameterError(f"levels names {unknown}, which are not among the attributes {names}")
    for k, v in levels.items():
        if v not in LEVELS:
            raise ParameterError(f"levels[{k!r}] must be one of {LEVELS}, got {v!r}")
    chosen = {n: levels.get(n) or infer_level(df[n]) for n in names}
    source = {n: "given" if n in levels else f"inferred from dtype {df[n].dtype}" for n in names}
    return chosen, source


@dataclass(frozen=True, eq=False)
class ValuePairs:
    """Pairs of present values within clusters: objects ``i``, ``j`` (rows of
    ``tables.units``), their item, cluster and weight ``1 / (m_u - 1)``."""

    i: np.ndarray
    j: np.ndarray
    item: np.ndarray
    cluster: np.ndarray
    weight: np.ndarray


def value_pairs(units, present) -> ValuePairs:
    """The pairs of present values of every cluster of ``units`` (``tables.units``).

    Examples
    --------
    >>> import pandas as pd
    >>> units = pd.DataFrame({"item": [0, 0, 0, 1], "annotator": [0, 1, 2, 0],
    ...                       "cluster": [0, 0, 0, 1]})
    >>> p = value_pairs(units, np.array([True, True, True, True]))
    >>> p.i.tolist(), p.j.tolist(), p.weight.tolist()
    ([0, 0, 1], [1, 2, 2], [0.5, 0.5, 0.5])
    """
    cluster = units["cluster"].to_numpy(np.int64)
    keep = np.flatnonzero(present)
    keep = keep[np.lexsort((units["annotator"].to_numpy(np.int64)[keep], cluster[keep]))]
    a, b = pairs_within_runs(cluster[keep])
    i, j = keep[a], keep[b]
    m = np.bincount(cluster[keep], minlength=int(cluster.max(initial=-1)) + 1)
    weight = 1.0 / (m[cluster[i]] - 1.0) if len(i) else np.zeros(0)
    return ValuePairs(i, j, units["item"].to_numpy(np.int64)[i], cluster[i], weight)


@dataclass(frozen=True, eq=False)
class AttributeCells:
    """The per-item sums of one attribute's pairs of values, and the statistics of
    every cell from them."""

    level: str
    n_categories: int
    n_cells: int
    width: int
    within: ItemSums
    n_units: np.ndarray
    n_items: np.ndarray
    distances: np.ndarray | None = None

    @classmethod
    def build(
        cls,
        layout: CellLayout,
        n_items: int,
        units,
        values,
        *,
        level: str,
        n_categories: int,
        distances=None,
    ):
        """Cells of one attribute.

        ``values``: per row of ``units``, the category code (nominal, ordinal, masi; -1
        where missing) or the value (interval, centred and scaled; NaN where missing).
        ``distances``: the ``(C, C)`` distances of the categories (masi).
        """
        values = np.asarray(values)
        present = values >= 0 if level != "interval" else np.isfinite(values)
        p = value_pairs(units, present)
        label = units["label"].to_numpy(np.int64)
        annotator = units["annotator"].to_numpy(np.int64)
        la, lb = label[p.i], label[p.j]
        member = layout.membership(
            np.column_stack([np.zeros_like(la), np.where(la == lb, 1 + la, -1)]),
            layout.groups(annotator[p.i], annotator[p.j]),
        ).tocoo()
        row, cell = member.row.astype(np.int64), member.col.astype(np.int64)
        vi, vj, w = values[p.i][row], values[p.j][row], p.weight[row]
        C = n_categories
        if level == "interval":
            parts = [
                (0, np.ones(len(row))),
                (1, (vi == vj).astype(np.float64)),
                (2, 2.0 * w),
                (3, w * (vi + vj)),
                (4, w * (vi * vi + vj * vj)),
                (5, 2.0 * w * (vi - vj) ** 2),
            ]
            width = 6
        else:
            vi, vj = vi.astype(np.int64), vj.astype(np.int64)
            differ = vi != vj
            parts = [(0, np.ones(len(row))), (1, (~differ).astype(np.float64))]
            parts += [(2 + vi, w), (2 + vj, w)]
            if level == "nominal":
                parts.append((2 + C, 2.0 * w * differ))
                width = 3 + C
            elif level == "masi":
                parts.append((2 + C, 2.0 * w * distances[vi, vj]))
                width = 3 + C
            else:
                c, k = np.minimum(vi, vj), np.maximum(vi, vj)
                pair = c * C - c * (c + 1) // 2 + (k - c - 1)
                parts.append((2 + C + np.where(differ, pair, 0), 2.0 * w * differ))
                width = 2 + C + C * (C - 1) // 2
        n_cells = layout.n_cells
        item = p.item[row]
        within = ItemSums.from_entries(
            item=np.concatenate([item for _ in parts]),
            column=np.concatenate([cell * width + off for off, _ in parts]),
            value=np.concatenate([np.broadcast_to(v, len(row)) for _, v in parts]),
            n_items=n_items,
            n_columns=n_cells * width,
        )
        return cls(
            level,
            C,
            n_cells,
            width,
            within,
            _distinct(cell, p.cluster[row], n_cells),
            _distinct(cell, item, n_cells),
            distances,
        )

    def statistics(self, multiplicities=None) -> dict:
        """``alpha``, ``observed``, ``expected``, ``percent_agreement``, ``n_pairs`` and
        ``n_values`` of every cell: arrays ``(n_cells,)``, or ``(b, n_cells)`` for a block of
        item multiplicities."""
        t = self.within.total(multiplicities)
        t = t.reshape(t.shape[:-1] + (self.n_cells, self.width))
        C = self.n_categories
        if self.level == "interval":
            n = t[..., 2]
            d_o, d_e = interval_disagreements(n, t[..., 3], t[..., 4], t[..., 5])
        else:
            n_c = t[..., 2 : 2 + C]
            n = n_c.sum(axis=-1)
            if self.level == "nominal":
                d_o, d_e = nominal_disagreements(n, n_c, t[..., 2 + C])
            elif self.level == "masi":
                d_o, d_e = set_disagreements(n, n_c, t[..., 2 + C], self.distances)
            else:
                d_o, d_e = ordinal_disagreements(n_c, t[..., 2 + C :])
        n_pairs = t[..., 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            percent = np.where(n_pairs > 0, t[..., 1] / n_pairs, np.nan)
        return {
            "alpha": alpha_from_disagreements(d_o, d_e, n),
            "observed": d_o,
            "expected": d_e,
            "percent_agreement": percent,
            "n_pairs": n_pairs,
            "n_values": n,
        }


def _distinct(cell, key, n_cells) -> np.ndarray:
    """Per cell, the number of distinct ``key`` values among its entries."""
    if not len(cell):
        return np.zeros(n_cells, np.int64)
    k = sorted_unique(cell * (int(key.max()) + 1) + key)
    return np.bincount(k // (int(key.max()) + 1), minlength=n_cells)


_INTERVAL = (
    "cluster-bootstrap interval over items (groups of items with a group column), BCa "
    "with the engine's corrected width by default (ci_method and n_boot in the Dataset "
    f"attrs), level {CI_LEVEL}. NaN when n_boot is 0, the estimate is NaN or the cell "
    f"rests on fewer than {MIN_CI_ITEMS} items."
)

#: name -> (long_name, description) of every data variable, in Dataset order.
VARIABLES = {
    "alpha": (
        "Krippendorff's alpha of the attribute",
        "1 - D_o / D_e over the clusters of matched objects (units; an object's missing "
        "value left out), at the attribute's level of measurement (coordinate `level`): "
        "nominal (equal or not), ordinal (squared distances of midranks), interval "
        "(squared differences), masi (the MASI distance of sets of choices, Passonneau "
        "2006). 1 perfect, 0 chance, < 0 systematic disagreement; NaN "
        "when undefined (`note`).",
    ),
    "ci_low": ("lower confidence bound of alpha", "Lower bound of the " + _INTERVAL),
    "ci_high": ("upper confidence bound of alpha", "Upper bound (at most 1) of the " + _INTERVAL),
    "percent_agreement": (
        "raw percent agreement",
        "Share of the pairs of values within units (pairs of matched objects) whose two "
        "values are equal; not chance-corrected.",
    ),
    "percent_ci_low": (
        "lower confidence bound of percent agreement",
        "Lower bound of the " + _INTERVAL,
    ),
    "percent_ci_high": (
        "upper confidence bound of percent agreement",
        "Upper bound (at most 1) of the " + _INTERVAL,
    ),
    "observed": ("observed disagreement", "Alpha's D_o at the attribute's level."),
    "expected": (
        "expected disagreement",
        "Alpha's D_e at the attribute's level, from the cell's pairable values (interval "
        "values centred and divided by their largest absolute deviation first: alpha "
        "does not change).",
    ),
    "n_pairs": (
        "pairs of values",
        "Pairs of matched objects of the cell (within a unit) with both values present.",
    ),
    "n_values": (
        "pairable values",
        "Krippendorff's n: the cell's values in pairs, each value weighing its share of "
        "its unit's pairs (for '(all)' annotators and classes, the present values of "
        "units of at least two).",
    ),
    "n_units": ("units", "Clusters of matched objects with a pair of values in the cell."),
    "n_items": (
        "items",
        "Items whose pairs of values enter the cell (the items the bootstrap resamples); "
        f"below {MIN_CI_ITEMS} no interval is reported.",
    ),
}

NOTE_DESCRIPTION = (
    "'' where alpha is defined; else why not: no pairs of values (no matched objects with "
    "the attribute in the cell), or no variation (every pairable value is the same: "
    "expected disagreement 0). A defined cell on few items says that its interval is not "
    "reported."
)


def intervals(parts, out: dict, corpus, *, n_boot: int, seed: int, ci_method: str) -> dict:
    """``ci_low``, ``ci_high``, ``percent_ci_low``, ``percent_ci_high`` and ``note`` of
    every (attribute, cell)."""
    defined = np.isfinite(out["alpha"])
    note = np.where(out["n_pairs"] > 0, "", "no pairs of values").astype(object)
    note = np.where(
        (note == "") & ~defined, "no variation: expected disagreement is 0", note
    ).astype(object)
    keys = ("alpha", "percent_agreement")

    def statistics(k):
        stats = [p.statistics(k) for p in parts]
        return {key: np.stack([s[key] for s in stats], axis=1) for key in keys}

    bounds = cell_intervals(
        statistics,
        {key: out[key] for key in keys},
        n_items=len(corpus.items),
        cell_items={key: out["n_items"] for key in keys},
        n_boot=n_boot,
        seed=seed,
        ci_method=ci_method,
        clusters=corpus.group_codes(),
        n_clusters=corpus.n_groups,
        width=max(p.within.matrix.shape[1] for p in parts),
    )
    result = {}
    result["ci_low"], result["ci_high"] = bounds["alpha"]
    result["percent_ci_low"], result["percent_ci_high"] = bounds["percent_agreement"]
    few = interval_notes(
        np.where(defined, "", "x").astype(object), n_items=out["n_items"], min_items=MIN_CI_ITEMS
    )
    few = np.where(defined, few, "")
    result["note"] = np.where(note == "", few, note).astype(object)
    return result


def attribute_dataset(
    values: dict, *, attributes, levels, level_sources, labels, annotators, attrs
) -> xr.Dataset:
    """The Dataset of (attribute, label, annotator) arrays, every variable described.

    Examples
    --------
    >>> shape = (1, 1, 1)
    >>> vals = {k: np.full(shape, 0.5) for k in VARIABLES}
    >>> vals["note"] = np.full(shape, "", dtype=object)
    >>> ds = attribute_dataset(vals, attributes=["occluded"], levels=["nominal"],
    ...                        level_sources=["given"], labels=["(all)"],
    ...                        annotators=["(all)"], attrs={})
    >>> ds["alpha"].attrs["long_name"]
    "Krippendorff's alpha of the attribute"
    """
    dims = ("attribute", "label", "annotator")
    data = {}
    for name, (long_name, description) in VARIABLES.items():
        v = np.asarray(values[name], dtype=np.float64)
        if name.startswith("n_"):
            v = np.rint(np.nan_to_num(v)).astype(np.int64) if name != "n_values" else v
        data[name] = (dims, v, {"long_name": long_name, "description": description})
    data["note"] = text(dims, values["note"], "reason alpha is NaN", description=NOTE_DESCRIPTION)
    coords = {
        "attribute": text(
            "attribute", attributes, "attribute", description="a column of per-object values"
        ),
        "level": text(
            "attribute",
            levels,
            "level of measurement",
            description="nominal, ordinal, interval or masi: the distance alpha uses",
        ),
        "level_source": text(
            "attribute",
            level_sources,
            "why this level",
            description="'given' (levels=) or inferred from the column's dtype",
        ),
        "label": text(
            "label",
            labels,
            "class",
            description=f"{ALL!r} pools every class; a class keeps the pairs of "
            "matched objects that both carry it",
        ),
        "annotator": text(
            "annotator",
            annotators,
            "annotator",
            description=f"{ALL!r} pools every annotator; an annotator's cell keeps "
            "the pairs of values that involve it",
        ),
    }
    description = (
        "Krippendorff's alpha of per-object attributes over the matched objects (the "
        "clusters of the pair tables' matching), at each attribute's level of "
        "measurement, with raw percent agreement and cluster-bootstrap intervals."
    )
    return xr.Dataset(data, coords=coords, attrs={"description": description, **attrs})


#: The frame attr (``df.attrs[...]``) listing the columns that hold attributes.
ATTRIBUTES_ATTR = "iaa_attributes"


def _is_column(name, df: pd.DataFrame) -> bool:
    try:
        return name in df.columns
    except TypeError:  # a list or a Series among the names: no column is named so
        return False


def attribute_columns(df: pd.DataFrame, attributes=None) -> tuple[list[str], str]:
    """The attribute columns of ``df`` and where the list came from.

    ``attributes`` (a column name or a list of them) when given; else the frame's
    ``df.attrs["iaa_attributes"]`` (set by the readers and the simulator). Never a guess:
    without either, a :class:`~iaa_frames.errors.ParameterError` lists the frame's extra
    columns to choose from.

    Returns
    -------
    (names, source)
        ``source`` is ``"attributes="`` or ``"df.attrs['iaa_attributes']"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=3, attributes={"occluded": [False, True]}, seed=0)
    >>> attribute_columns(df)
    (['occluded'], "df.attrs['iaa_attributes']")
    >>> attribute_columns(df, "occluded")
    (['occluded'], 'attributes=')
    """
    if attributes is not None:
        one = isinstance(attributes, (str, bytes)) or not hasattr(attributes, "__iter__")
        names = [attributes] if one else list(attributes)  # 5: a name, not its digits
        source = "attributes="
    else:
        names = list(df.attrs.get(ATTRIBUTES_ATTR) or [])
        source = f"df.attrs[{ATTRIBUTES_ATTR!r}]"
        if not names:
            from iaa_frames.frame.schema import BOX_COLUMNS

            core = {"item", "annotator", "label", "object_id", "geometry", "width", "height"}
            extra = [c for c in df.columns if c not in core and c not in BOX_COLUMNS]
            raise ParameterError(
                "attribute_agreement: the frame names no attribute columns "
                f"(df.attrs[{ATTRIBUTES_ATTR!r}] is not set; the readers and the simulator "
                f"set it); pass attributes=[...], e.g. among its extra columns {extra}"
            )
    named = [n for n in names if not isinstance(n, str) and _is_column(n, df)]
    if named:  # a column named by a number (df[5]): the results name attributes by text
        raise ParameterError(
            f"attributes must be column names that are strings; got {named!r}: rename the "
            f"column(s) first (df.rename(columns={{{named[0]!r}: {str(named[0])!r}}}))"
        )
    bad = [n for n in names if not isinstance(n, str) or n not in df.columns]
    if bad or not names:
        raise ParameterError(
            f"attributes must name columns of the frame; not columns: {bad or names!r}"
        )
    reserved = {"item", "annotator", "label", "object_id", "geometry", "x0", "y0", "x1", "y1"}
    if reserved & set(names):
        raise ParameterError(f"attributes: {sorted(reserved & set(names))} are not attributes")
    return list(dict.fromkeys(names)), source


def attribute_agreement_from_tables(
    tables,
    attributes,
    *,
    levels=None,
    source: str = "attributes=",
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULTS.seed,
    ci_method: str = "bca",
) -> xr.Dataset:
    """:func:`attribute_agreement` of pair tables and attribute names already chosen
    (``source`` says where the names came from).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=10, attributes={"occluded": [False, True]}, seed=0)
    >>> t = iaf.pair_tables(df, n_chance=50)
    >>> ds = attribute_agreement_from_tables(t, ["occluded"], n_boot=0)
    >>> float(ds["alpha"].sel(attribute="occluded", label="(all)", annotator="(all)"))
    1.0
    """
    n_boot, seed = check_int(n_boot, "n_boot"), check_int(seed, "seed")
    if ci_method not in CI_METHODS:
        raise ParameterError(f"ci_method must be one of {CI_METHODS}, got {ci_method!r}")
    corpus = tables.corpus
    objects = corpus.objects
    names, _ = attribute_columns(objects, attributes)
    chosen, level_source = chosen_levels(objects, names, levels)
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    n_items = len(corpus.items)
    parts = []
    for name in names:  # one attribute at a time; everything inside is vectorized
        values, n_cat, delta = attribute_codes(
            name, objects[name].reset_index(drop=True), chosen[name]
        )
        parts.append(
            AttributeCells.build(
                layout,
                n_items,
                tables.units,
                values,
                level=chosen[name],
                n_categories=n_cat,
                distances=delta,
            )
        )
    stats = [p.statistics() for p in parts]
    out = {k: np.stack([s[k] for s in stats]) for k in stats[0]}
    out["n_units"] = np.stack([p.n_units for p in parts]).astype(np.float64)
    out["n_items"] = np.stack([p.n_items for p in parts]).astype(np.float64)
    out.update(intervals(parts, out, corpus, n_boot=n_boot, seed=seed, ci_method=ci_method))
    labels, annotators = name_order(corpus.labels), name_order(corpus.annotators)
    grid = (len(names), layout.n_labels + 1, layout.n_groups)
    values = {k: v.reshape(grid)[:, labels][:, :, annotators] for k, v in out.items()}
    attrs = {
        "title": "iaa_frames attribute agreement",
        "attributes_source": source,
        "levels": "; ".join(f"{n}: {chosen[n]} ({level_source[n]})" for n in names),
        **tables.params,
        "n_boot": int(n_boot),
        "bootstrap_seed": int(seed),
        "ci_method": ci_method,
    }
    return attribute_dataset(
        values,
        attributes=names,
        levels=[chosen[n] for n in names],
        level_sources=[level_source[n] for n in names],
        labels=names_in_order(corpus.labels, labels),
        annotators=names_in_order(corpus.annotators, annotators),
        attrs=attrs,
    )


def _attribute_agreement(
    data,
    *,
    attributes=None,
    levels=None,
    n_boot: int = DEFAULT_N_BOOT,
    ci_method: str = "bca",
    settings: MatchSettings = DEFAULTS,
) -> xr.Dataset:
    """:func:`attribute_agreement` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    if isinstance(data, pd.DataFrame):
        names, source = attribute_columns(data, attributes)
    else:
        names, source = attribute_columns(data.corpus.objects, attributes)
    t = tables_of(data, settings)
    return attribute_agreement_from_tables(
        t,
        names,
        levels=levels,
        source=source,
        n_boot=n_boot,
        seed=settings.seed,
        ci_method=ci_method,
    )


@validate_params(engine=False)
def attribute_agreement(
    data,
    *,
    attributes=None,
    levels=None,
    n_boot: int = DEFAULT_N_BOOT,
    ci_method: str = "bca",
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> xr.Dataset:
    """Krippendorff's α of every attribute over the matched objects, at its level.

    The units are the clusters of matched objects (at most one object per annotator;
    with two annotators, the matched pairs) of the pair tables, the same matching as
    every agreement figure. For an attribute, a unit's values are its objects' values
    (missing ones left out); α is Krippendorff's at the attribute's level of measurement
    (nominal: equal or not; ordinal: ranks; interval: differences; masi: sets of
    choices, agreeing in part when they share some, :mod:`iaa_frames.stats.masi`), and
    the raw percent agreement the share of pairs of values within units that are equal.
    A class's cell keeps the pairs whose two objects both carry the class; an
    annotator's cell the pairs that involve it ("(all)": every pair). A column of lists
    or sets (several choices of one question) is "masi" unless ``levels`` says
    otherwise; at the nominal level a list is compared as a set, equal when it holds the
    same choices.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame with attribute columns, or its pair tables.
    attributes : str or list of str, optional
        The attribute columns. Default: the frame's ``df.attrs["iaa_attributes"]``,
        which the readers (:func:`iaa_frames.read_cvat`, :func:`iaa_frames.read_labelstudio`,
        :func:`iaa_frames.read_coco`) and :func:`iaa_frames.simulate` set; without it,
        an error lists the columns to choose from. Attr ``attributes_source`` says
        which was used.
    levels : str or dict {attribute: level}, optional
        "nominal", "ordinal", "interval" or "masi" per attribute; a missing one is
        inferred from the column (:func:`infer_level`: ordered Categorical -> ordinal,
        numbers -> interval, lists and sets -> masi, booleans and text -> nominal). The ``level`` coordinate and the
        attr ``levels`` say which was used and why. Ordinal values are ranked by the
        Categorical's order or by number.
    n_boot : int, default 200
        Cluster-bootstrap replicates over items (groups of items with a ``group``
        column) for ``ci_low`` / ``ci_high`` and ``percent_ci_low`` / ``percent_ci_high``
        (0: none).
    seed : int, default 0
        Seed of the bootstrap (and of the chance sample when tables are built here).
    ci_method : {"bca", "percentile"}, default "bca"
        As in :func:`iaa_frames.agreement`.
    distance, match_threshold, n_chance, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame.

    Returns
    -------
    xarray.Dataset
        Dims ``attribute`` (in the order given), ``label`` and ``annotator`` ("(all)"
        first, then by name); variables ``alpha``, ``ci_low``, ``ci_high``,
        ``percent_agreement``, ``percent_ci_low``, ``percent_ci_high``, ``observed``,
        ``expected``, ``n_pairs``, ``n_values``, ``n_units``, ``n_items`` and ``note``,
        each with ``long_name`` and ``description``; coordinates ``level`` and
        ``level_source`` on ``attribute``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=40, seed=0, attributes={"color": ["red", "blue"]},
    ...                   annotators={"a": "good", "b": {"preset": "good",
    ...                                                  "attribute_flip": 0.3}})
    >>> ds = attribute_agreement(df, n_boot=50, n_chance=100)
    >>> ds["alpha"].dims
    ('attribute', 'label', 'annotator')
    >>> str(ds["level"].sel(attribute="color").item())
    'nominal'
    >>> a = float(ds["alpha"].sel(attribute="color", label="(all)", annotator="(all)"))
    >>> bool(0.2 < a < 0.6)
    True
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    ).single()
    return _attribute_agreement(
        data,
        attributes=attributes,
        levels=levels,
        n_boot=n_boot,
        ci_method=ci_method,
        settings=settings,
    )
