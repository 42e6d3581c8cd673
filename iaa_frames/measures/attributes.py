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
cluster-bootstrap intervals over items, per class and per annotator. The sums it rests
on are in :mod:`iaa_frames.measures.attribute_cells`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.core.engine.assemble import name_order, names_in_order
from iaa_frames.core.engine.cells import CellLayout
from iaa_frames.core.engine.resolve import tables_of
from iaa_frames.errors import ParameterError
from iaa_frames.settings.parameters import (
    DEFAULT_N_BOOT,
    DEFAULTS,
    MatchSettings,
    check_int,
    checked_settings,
)
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.intervals import CI_METHODS

from .attribute_cells import AttributeCells
from .attribute_levels import attribute_codes, chosen_levels, infer_level
from .attribute_result import attribute_dataset, intervals

__all__ = [
    "ATTRIBUTES_ATTR",
    "attribute_agreement",
    "attribute_agreement_from_tables",
    "attribute_columns",
    "infer_level",
]

#: The frame attr (``df.attrs[...]``) listing the columns that hold attributes.
ATTRIBUTES_ATTR = "iaa_attributes"


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
        names = [attributes] if isinstance(attributes, str) else list(attributes)
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
