"""The ``DataFrame.iaa`` and ``Dataset.iaa`` accessors: compute once, explore the result.

Importing this module registers two accessors:

* ``df.iaa`` on every :class:`pandas.DataFrame` (a tidy annotation frame). Each method
  equals a plain function: ``df.iaa.agreement(...)`` is ``iaa_frames.agreement(df, ...)``,
  ``df.iaa.sigma(...)`` is ``iaa_frames.sigma(df, ...)`` and so on. The pair tables (the
  expensive part: matching and the chance sample) are computed once per frame content and
  parameters and kept in a small cache (:mod:`iaa_frames.cache`), together with the
  results computed from them: after ``df.iaa.agreement()``, ``df.iaa.sigma()``,
  ``.pairwise()``, ``.items()`` and every ``df.iaa.plot.*`` with the same parameters
  take milliseconds.
* ``res.iaa`` on the agreement :class:`xarray.Dataset`: views (``headline()``,
  ``by_label()``, ``by_annotator()``, ``sigma()``, ``reading()``) and figures
  (``res.iaa.plot.forest()``, ...) of that result, with no recomputation. Views that need
  the pair tables (pairwise, items, distributions) find them through the result's
  ``tables_key`` attr while they are cached.

pandas does not cache DataFrame accessors, so ``df.iaa`` only stores the frame.

Examples
--------
>>> import iaa_frames as iaf
>>> df = iaf.simulate(n_items=20, annotators={"ann": "good", "bob": "sloppy"}, seed=0)
>>> res = df.iaa.agreement(n_chance=200)
>>> res["annotator"].values.tolist()
['(all)', 'ann', 'bob']
>>> res.iaa.headline().index.tolist()
['detection', 'classification', 'localization', 'overall']
>>> df.iaa.sigma(n_chance=200).dims       # the cached result, sliced
('label', 'annotator')
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import xarray as xr

from . import cache
from .engine import DEFAULT_N_BOOT, agreement_from_tables, pairwise_from_tables
from .errors import IAAError, ParameterError
from .frame import ALL
from .pairs import PairTables
from .thresholds import (
    check_thresholds,
    concat_thresholds,
    has_threshold_dim,
    nearest_threshold,
)
from .settings import DEFAULTS

__all__ = ["IAAAccessor", "ResultAccessor", "alpha", "ks", "sigma"]

_SIGMA_COMPONENTS = ("detection", "localization", "overall")

_METHODS = {
    "agreement()": "xr.Dataset by component x label x annotator (explore it with res.iaa)",
    "sigma()": "sigma of a component (localization by default), (label, annotator)",
    "ks()": "KS statistic of a component (localization by default), (label, annotator)",
    "alpha()": "classification alpha (or presence alpha), (label, annotator)",
    "pairwise()": "annotator x annotator agreement of a component",
    "items()": "per-item drilldown table, worst item first",
    "within()": "within-item matched pairs",
    "between()": "between-item (chance) matched pairs",
    "tables()": "every pair table (PairTables)",
    "kalpha()": "kalphacv's Krippendorff alpha (literature comparability)",
    "annotators()": "per-annotator quality, corrected for partners' quality",
    "plot": "figures: df.iaa.plot.<name>(...)",
}
_METHODS.update({  # where they disagree (issue 15)
    "conflicts()": "one row per disagreement of the matching",
    "conflict_counts()": "conflicts per kind, class and annotator",
    "confusion()": "label confusion matrix of matched pairs",
    "accuracy()": "precision/recall/label accuracy against a reference annotator",
    "item_agreement()": "per-item agreement columns, indexed by item (join key)",
})

_RESULT_METHODS = {
    "headline()": "the four components pooled over labels and annotators",
    "by_label()": "every class, one column group per component",
    "by_annotator()": "every annotator, one column group per component",
    "sigma()": "sigma of a component (localization by default), (label, annotator)",
    "ks()": "KS statistic of a component, (label, annotator)",
    "alpha()": "classification alpha (or presence alpha), (label, annotator)",
    "pairwise()": "annotator x annotator agreement (needs the cached tables)",
    "items()": "per-item drilldown (needs the cached tables)",
    "reading()": "the plain-language reading of the numbers",
    "plot": "figures: res.iaa.plot.<name>(...)",
}


def _table_rows(methods: dict) -> str:
    return "".join(f"<tr><td><code>.{html.escape(n)}</code></td><td>{html.escape(w)}</td></tr>"
                   for n, w in methods.items())


def _check_component(component, allowed):
    if not isinstance(component, str) or component not in allowed:
        raise ParameterError(f"component must be one of {tuple(allowed)}; got {component!r}")


def _with_coords(da: xr.DataArray, ds: xr.Dataset, component: str, names) -> xr.DataArray:
    extra = {n: ds[n].sel(component=component) for n in names if n in ds}
    return da.assign_coords({n: (v.dims, v.values, v.attrs) for n, v in extra.items()})


# ------------------------------------------------------------------- the result accessor


@xr.register_dataset_accessor("iaa")
class ResultAccessor:
    """Views and figures of an agreement result: ``res.iaa``.

    Nothing is recomputed: the views slice the Dataset; :meth:`pairwise`, :meth:`items`
    and the distribution plots use the pair tables the result was computed from, kept in
    :mod:`iaa_frames.cache` under the result's ``tables_key`` attr (or given with
    ``tables=``).

    Parameters
    ----------
    ds : xarray.Dataset
        The agreement result of :func:`iaa_frames.agreement` / ``df.iaa.agreement()``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.simulate(n_items=20, seed=0).iaa.agreement(n_chance=200)
    >>> res.iaa.by_label().index[0]
    '(all)'
    """

    def __init__(self, ds: xr.Dataset):
        self._ds = ds
        self._tables: PairTables | None = None

    # -- helpers
    def _check(self):
        if "agreement" not in self._ds.data_vars or "component" not in self._ds.dims:
            raise ParameterError("res.iaa works on the agreement result Dataset (dims "
                                 "component, label, annotator); this Dataset is not one")
        return self._ds

    def _single(self, view: str):
        """The result, which must be of one threshold (no ``threshold`` dimension)."""
        ds = self._check()
        if has_threshold_dim(ds):
            taus = ds["threshold"].values
            raise ParameterError(
                f"this result has a threshold dimension (τ = "
                f"{', '.join(f'{t:g}' for t in taus)}); .iaa.{view} needs one threshold: "
                f"select it first, e.g. res.sel(threshold={nearest_threshold(taus):g})"
                f".iaa.{view} (res.iaa.plot.threshold_curve() draws every threshold)")
        return ds

    def _entry(self):
        keys = str(self._ds.attrs.get("tables_key", "")).split()
        if len(keys) > 1:  # a sweep: one key per threshold, in the order of match_threshold
            self._single("pairwise()")
            taus = [float(t) for t in np.atleast_1d(self._ds.attrs.get("match_threshold", []))]
            tau = float(self._ds["threshold"]) if "threshold" in self._ds.coords else None
            keys = [keys[taus.index(tau)]] if tau in taus and len(taus) == len(keys) else []
        found = cache.lookup(keys[0]) if keys else None
        if found is None:
            raise IAAError(
                "the pair tables of this result are not available: it was not computed "
                "by df.iaa.agreement(), was loaded from a file, or its tables left the cache "
                f"(it keeps the last {cache.MAXSIZE}). Recompute with df.iaa.agreement(...) "
                "or attach tables with res.iaa.use_tables(df.iaa.tables(...)).")
        return found

    def use_tables(self, tables: PairTables) -> ResultAccessor:
        """Attach the pair tables this result was computed from (for :meth:`pairwise`,
        :meth:`items` and the distribution plots), e.g. after loading it from netCDF.

        Returns
        -------
        ResultAccessor
            This accessor.
        """
        if not isinstance(tables, PairTables):
            raise ParameterError(f"tables must be PairTables; got {type(tables).__name__}")
        mine = {k: self._ds.attrs.get(k) for k in tables.params if k in self._ds.attrs}
        if "threshold" in self._ds.coords and not has_threshold_dim(self._ds):
            mine["match_threshold"] = float(self._ds["threshold"])  # one τ of a sweep
        differ = {k: (v, tables.params[k]) for k, v in mine.items() if v != tables.params[k]}
        if differ:
            raise ParameterError(f"these tables were computed with other parameters: {differ}")
        self._tables = tables
        return self

    @property
    def tables(self) -> PairTables:
        """The pair tables of this result (from the cache, or attached with
        :meth:`use_tables`)."""
        return self._tables if self._tables is not None else self._entry().tables

    def __repr__(self) -> str:
        ds = self._ds
        n_lab = max(ds.sizes.get("label", 1) - 1, 0)
        n_ann = max(ds.sizes.get("annotator", 1) - 1, 0)
        lines = [f"<res.iaa: agreement of {n_lab} class{'es' if n_lab != 1 else ''} x "
                 f"{n_ann} annotator{'s' if n_ann != 1 else ''}, "
                 f"n_boot={ds.attrs.get('n_boot', '?')}>"]
        lines += [f"  .{name:<15} {what}" for name, what in _RESULT_METHODS.items()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return f"<p><b>res.iaa</b>: views and figures of this result</p><table>" \
               f"{_table_rows(_RESULT_METHODS)}</table>"

    # -- views
    def headline(self) -> pd.DataFrame:
        """The four components pooled over labels and annotators
        (:func:`iaa_frames.report.headline`).

        Returns
        -------
        pandas.DataFrame
        """
        from .views import headline

        return headline(self._single("headline()"))

    def by_label(self) -> pd.DataFrame:
        """Every class ("(all)" first), one column group per component
        (:func:`iaa_frames.report.by_label`).

        Returns
        -------
        pandas.DataFrame
        """
        from .views import by_label

        return by_label(self._single("by_label()"))

    def by_annotator(self) -> pd.DataFrame:
        """Every annotator ("(all)" first), one column group per component
        (:func:`iaa_frames.report.by_annotator`).

        Returns
        -------
        pandas.DataFrame
        """
        from .views import by_annotator

        return by_annotator(self._single("by_annotator()"))

    def reading(self, *, max_labels: int = 8) -> list[str]:
        """The plain-language reading of the numbers (:func:`iaa_frames.report.reading`).

        Returns
        -------
        list of str
        """
        from .report import reading

        return reading(self._single("reading()"), max_labels=max_labels)

    def sigma(self, *, component: str = "localization") -> xr.DataArray:
        """σ of one component by label and annotator.

        Parameters
        ----------
        component : {"localization", "detection", "overall"}, default "localization"
            Localization unless said otherwise: matched objects drawn in the same place.

        Returns
        -------
        xarray.DataArray
            Named ``sigma``, dims ``(label, annotator)``, with ``component``, ``ci_low``,
            ``ci_high``, ``n_units``, ``n_chance`` and ``note`` as coordinates.
        """
        _check_component(component, _SIGMA_COMPONENTS)
        ds = self._check()
        da = ds["agreement"].sel(component=component).rename("sigma")
        da = _with_coords(da, ds, component,
                          ("ci_low", "ci_high", "n_units", "n_chance", "note"))
        return da

    def ks(self, *, component: str = "localization") -> xr.DataArray:
        """KS statistic of one component by label and annotator.

        Parameters
        ----------
        component : {"localization", "detection", "overall"}, default "localization"

        Returns
        -------
        xarray.DataArray
            Named ``ks``, dims ``(label, annotator)``, with ``ks_sign``, ``ks_pvalue`` and
            ``note`` as coordinates.
        """
        _check_component(component, _SIGMA_COMPONENTS)
        ds = self._check()
        da = _with_coords(ds["ks"].sel(component=component), ds, component,
                          ("ks_sign", "ks_pvalue", "note"))
        return da

    def alpha(self, *, component: str = "classification") -> xr.DataArray:
        """Krippendorff's α by label and annotator.

        Parameters
        ----------
        component : {"classification", "detection"}, default "classification"
            "classification": the α of the labels (the component's agreement);
            "detection": the presence α, reported only for comparison with tools that
            show it (it is about 0 whatever the miss rate; see the variable's description).

        Returns
        -------
        xarray.DataArray
            Named ``alpha``, dims ``(label, annotator)``.
        """
        _check_component(component, ("classification", "detection"))
        ds = self._check()
        if component == "detection":
            return ds["presence_alpha"].sel(component="detection").rename("alpha")
        da = ds["agreement"].sel(component="classification").rename("alpha")
        return _with_coords(da, ds, component, ("ci_low", "ci_high", "n_units", "note"))

    def pairwise(self, *, component: str = "localization", label: str = ALL) -> xr.DataArray:
        """Annotator x annotator agreement of one component, from the result's tables
        (:func:`iaa_frames.engine.pairwise_from_tables`).

        Parameters
        ----------
        component : {"detection", "classification", "localization", "overall"}
        label : str, default "(all)"

        Returns
        -------
        xarray.DataArray
        """
        if self._tables is not None:
            return pairwise_from_tables(self._tables, component=component, label=label)
        e = self._entry()
        key = (component, label)
        if key not in e.pairwise:
            e.pairwise[key] = pairwise_from_tables(e.tables, component=component, label=label)
        return e.pairwise[key].copy()

    def items(self, *, component: str = "localization", label: str = ALL,
              top: int | None = None, sort: str = "excess") -> pd.DataFrame:
        """Per-item drilldown from the result's tables (:func:`iaa_frames.items.items`).

        Parameters
        ----------
        component : {"localization", "detection", "overall", "classification"}
        label : str, default "(all)"
        top : int, optional
        sort : {"excess", "sigma"}, default "excess"

        Returns
        -------
        pandas.DataFrame
        """
        from .items import items

        if self._tables is not None:
            return items(self._tables, component=component, label=label, top=top, sort=sort)
        e = self._entry()
        key = (component, label, sort)
        if key not in e.items:
            e.items[key] = items(e.tables, component=component, label=label, sort=sort)
        out = e.items[key]
        return (out if top is None else out.head(int(top))).copy()

    @property
    def plot(self):
        """Figures of this result: ``res.iaa.plot.<name>(...)``
        (:class:`iaa_frames.plot.ResultPlots`)."""
        from .plot.accessor import ResultPlots

        return ResultPlots(self._check(), tables=lambda: self.tables)


# ------------------------------------------------------------------- the frame accessor


@pd.api.extensions.register_dataframe_accessor("iaa")
class IAAAccessor:
    """Inter-annotator agreement of a tidy annotation frame: ``df.iaa``.

    Every method takes the keyword-only parameters of :func:`iaa_frames.agreement` that
    apply to it (``distance``, ``match_threshold``, ``n_chance``, ``n_boot``, ``seed``,
    ``overall``, ``progress``). The pair tables are computed once per frame content and
    parameters and reused (:mod:`iaa_frames.cache`); ``progress`` is not part of the key.
    :meth:`agreement`, :meth:`sigma`, :meth:`ks`, :meth:`alpha` and :meth:`pairwise` also
    take a sequence of ``match_threshold`` values, which adds a ``threshold`` dimension.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (validated when a method runs).
    """

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def __repr__(self) -> str:
        lines = [f"<df.iaa: agreement of a frame with {len(self._df):,} rows>"]
        lines += [f"  .{name:<12} {what}" for name, what in _METHODS.items()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return (f"<p><b>df.iaa</b>: agreement of a frame with {len(self._df):,} rows</p>"
                f"<table>{_table_rows(_METHODS)}</table>")

    def _entry(self, distance, match_threshold, n_chance, seed, overall, progress):
        return cache.entry(self._df, distance=distance, match_threshold=match_threshold,
                           n_chance=n_chance, overall=overall, seed=seed, progress=progress)

    def agreement(self, *, distance=DEFAULTS.distance, match_threshold=DEFAULTS.match_threshold,
                  n_chance: int = DEFAULTS.n_chance, n_boot: int = DEFAULT_N_BOOT,
                  seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
                  progress: bool | None = DEFAULTS.progress) -> xr.Dataset:
        """Agreement by component, label and annotator: :func:`iaa_frames.agreement`,
        cached.

        The Dataset's attr ``tables_key`` names the cached pair tables, so that
        ``res.iaa.pairwise()``, ``res.iaa.items()`` and ``res.iaa.plot.distributions()``
        reuse them. With a sequence of ``match_threshold`` values the result has a
        ``threshold`` dimension; every threshold's tables are cached as if computed alone
        (the missing ones together, see :func:`iaa_frames.cache.entries`), and
        ``res.sel(threshold=τ).iaa`` finds τ's tables while they are cached.

        Returns
        -------
        xarray.Dataset

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> ds = simulate(n_items=20, seed=0).iaa.agreement(n_chance=200)
        >>> ds["component"].values.tolist()
        ['detection', 'classification', 'localization', 'overall']
        >>> bool(ds["ci_low"].notnull().any())     # n_boot=200 by default
        True
        >>> sweep = simulate(n_items=20, seed=0).iaa.agreement(n_chance=200,
        ...                                                    match_threshold=[0.5, 0.7])
        >>> sweep.sizes["threshold"]
        2
        """
        taus, scalar = check_thresholds(match_threshold)
        if scalar:
            e = self._entry(distance, taus[0], n_chance, seed, overall, progress)
            return self._result(e, n_boot, seed, progress)
        found = cache.entries(self._df, thresholds=taus, distance=distance, n_chance=n_chance,
                              overall=overall, seed=seed, progress=progress)
        out = concat_thresholds([self._result(e, n_boot, seed, progress) for e in found])
        if all(e.key for e in found):  # res.sel(threshold=τ).iaa finds τ's tables
            out.attrs["tables_key"] = " ".join(e.key for e in found)
        return out

    @staticmethod
    def _result(e, n_boot, seed, progress) -> xr.Dataset:
        """The agreement Dataset of a cache entry (computed once per n_boot and seed)."""
        if e.key == "":  # not cacheable (bad input): let the engine raise its error
            return agreement_from_tables(e.tables, n_boot=n_boot, seed=seed, progress=progress)
        key = (n_boot, seed)
        if key not in e.results:
            ds = agreement_from_tables(e.tables, n_boot=n_boot, seed=seed, progress=progress)
            ds.attrs["tables_key"] = e.key
            e.results[key] = ds
        return e.results[key].copy()

    def sigma(self, *, component: str = "localization", distance=DEFAULTS.distance,
              match_threshold=DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
              n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
              progress: bool | None = DEFAULTS.progress) -> xr.DataArray:
        """σ of one component, dims (label, annotator); **localization by default**.

        Parameters
        ----------
        component : {"localization", "detection", "overall"}, default "localization"
            Localization (matched objects drawn in the same place) unless said otherwise;
            the DataArray's ``component`` coordinate says which.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> s = simulate(n_items=20, seed=0).iaa.sigma(n_chance=200)
        >>> str(s["component"].values), bool(s.sel(label="(all)", annotator="(all)") > 0)
        ('localization', True)
        """
        _check_component(component, _SIGMA_COMPONENTS)
        return self.agreement(distance=distance, match_threshold=match_threshold,
                              n_chance=n_chance, n_boot=n_boot, seed=seed, overall=overall,
                              progress=progress).iaa.sigma(component=component)

    def ks(self, *, component: str = "localization", distance=DEFAULTS.distance,
           match_threshold=DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
           n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
           progress: bool | None = DEFAULTS.progress) -> xr.DataArray:
        """KS statistic of one component, dims (label, annotator); localization by default.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> k = simulate(n_items=20, seed=0).iaa.ks(n_chance=200)
        >>> 0 <= float(k.sel(label="(all)", annotator="(all)")) <= 1
        True
        """
        _check_component(component, _SIGMA_COMPONENTS)
        return self.agreement(distance=distance, match_threshold=match_threshold,
                              n_chance=n_chance, n_boot=n_boot, seed=seed, overall=overall,
                              progress=progress).iaa.ks(component=component)

    def alpha(self, *, component: str = "classification", distance=DEFAULTS.distance,
              match_threshold=DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
              n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
              progress: bool | None = DEFAULTS.progress) -> xr.DataArray:
        """Classification α (or, with ``component="detection"``, presence α), dims
        (label, annotator).

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> simulate(n_items=20, seed=0).iaa.alpha(n_chance=200).name
        'alpha'
        """
        _check_component(component, ("classification", "detection"))
        return self.agreement(distance=distance, match_threshold=match_threshold,
                              n_chance=n_chance, n_boot=n_boot, seed=seed, overall=overall,
                              progress=progress).iaa.alpha(component=component)

    def pairwise(self, *, component: str = "localization", label: str = ALL,
                 distance=DEFAULTS.distance, match_threshold=DEFAULTS.match_threshold,
                 n_chance: int = DEFAULTS.n_chance, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
                 progress: bool | None = DEFAULTS.progress) -> xr.DataArray:
        """Annotator x annotator agreement of a component: :func:`iaa_frames.pairwise`.

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> simulate(n_items=20, seed=0).iaa.pairwise(n_chance=200).dims
        ('annotator_a', 'annotator_b')
        """
        taus, scalar = check_thresholds(match_threshold)
        found = ([self._entry(distance, taus[0], n_chance, seed, overall, progress)] if scalar
                 else cache.entries(self._df, thresholds=taus, distance=distance,
                                    n_chance=n_chance, overall=overall, seed=seed,
                                    progress=progress))
        key = (component, label)
        parts = []
        for e in found:
            if e.key == "" or key not in e.pairwise:
                value = pairwise_from_tables(e.tables, component=component, label=label)
                if e.key == "":
                    parts.append(value)
                    continue
                e.pairwise[key] = value
            parts.append(e.pairwise[key].copy())
        return parts[0] if scalar else concat_thresholds(parts)

    def items(self, *, component: str = "localization", label: str = ALL,
              top: int | None = None, sort: str = "excess", distance=DEFAULTS.distance,
              match_threshold: float = DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
              seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
              progress: bool | None = DEFAULTS.progress) -> pd.DataFrame:
        """Per-item drilldown table, worst item first: :func:`iaa_frames.items.items`.

        Parameters
        ----------
        component : {"localization", "detection", "overall", "classification"}
        label : str, default "(all)"
            Restrict the drilldown to one class.
        top : int, optional
        sort : {"excess", "sigma"}, default "excess"

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> len(simulate(n_items=6, seed=0).iaa.items(n_chance=50, top=2, label="car"))
        2
        """
        from .items import items

        e = self._entry(distance, match_threshold, n_chance, seed, overall, progress)
        key = (component, label, sort)
        if e.key == "" or key not in e.items:
            value = items(e.tables, component=component, label=label, sort=sort)
            if e.key == "":
                return value if top is None else value.head(int(top))
            e.items[key] = value
        out = e.items[key]
        if top is not None:
            from .views import check_top

            out = out.head(check_top(top))
        return out.copy()

    def within(self, *, distance=DEFAULTS.distance, match_threshold: float = DEFAULTS.match_threshold,
               n_chance: int = DEFAULTS.n_chance, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
               progress: bool | None = DEFAULTS.progress) -> pd.DataFrame:
        """Matched within-item object pairs, names instead of codes:
        :func:`iaa_frames.pairs.within`.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> w = simulate(n_items=5, seed=0).iaa.within(n_chance=50)
        >>> bool((w["iou"] >= 0.5).all())
        True
        """
        from .pairs import named

        t = self.tables(distance=distance, match_threshold=match_threshold,
                        n_chance=n_chance, seed=seed, overall=overall, progress=progress)
        return named(t, t.localization_within)

    def between(self, *, distance=DEFAULTS.distance, match_threshold: float = DEFAULTS.match_threshold,
                n_chance: int = DEFAULTS.n_chance, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
                progress: bool | None = DEFAULTS.progress) -> pd.DataFrame:
        """Sampled between-item (chance) matched pairs: :func:`iaa_frames.pairs.between`.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> b = simulate(n_items=10, seed=0).iaa.between(n_chance=50)
        >>> bool((b["item_a"] != b["item_b"]).all())
        True
        """
        from .pairs import named

        t = self.tables(distance=distance, match_threshold=match_threshold,
                        n_chance=n_chance, seed=seed, overall=overall, progress=progress)
        return named(t, t.localization_between)

    def tables(self, *, distance=DEFAULTS.distance, match_threshold: float = DEFAULTS.match_threshold,
               n_chance: int = DEFAULTS.n_chance, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
               progress: bool | None = DEFAULTS.progress) -> PairTables:
        """Every pair table (:func:`iaa_frames.pairs.pair_tables`), cached.

        Returns
        -------
        PairTables

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> t = simulate(n_items=10, seed=0).iaa.tables(n_chance=50)
        >>> t.params["distance"]
        'giou'
        """
        return self._entry(distance, match_threshold, n_chance, seed, overall,
                           progress).tables

    def kalpha(self, *, match_threshold: float = 0.5, kind: str = "bbox",
               average: str = "images", decimals: int | None = 4,
               progress: bool | None = None) -> float:
        """Krippendorff's α with IoU matching as kalphacv computes it:
        :func:`iaa_frames.kalpha.kalpha`.

        Returns
        -------
        float

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> simulate(n_items=5, annotators={"a": "perfect", "b": "perfect"}, seed=0).iaa.kalpha()
        1.0
        """
        from .kalpha import kalpha  # imported on use: the accessor stays cheap

        return kalpha(self._df, match_threshold=match_threshold, kind=kind, average=average,
                      decimals=decimals, progress=progress)

    def annotators(self, *, match_threshold: float = DEFAULTS.match_threshold, n_boot: int = 0,
                   seed: int = DEFAULTS.seed,
                   progress: bool | None = DEFAULTS.progress) -> pd.DataFrame:
        """Per-annotator quality corrected for the partners' quality, one row per
        annotator: :func:`iaa_frames.ranking.annotator_quality`.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> q = simulate(n_items=20, seed=0, annotators={"a": "good", "b": "good",
        ...                                              "c": "random"}).iaa.annotators()
        >>> q.loc[q["rank"].idxmax(), "annotator"]
        'c'
        """
        from .ranking import annotator_quality  # imported on use: the accessor stays cheap

        return annotator_quality(self._df, match_threshold=match_threshold, n_boot=n_boot,
                                 seed=seed, progress=progress)

    @property
    def plot(self):
        """Figures of this frame: ``df.iaa.plot.<name>(...)``
        (:class:`iaa_frames.plot.FramePlots`; matplotlib is imported on use).

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> type(simulate(n_items=2, seed=0).iaa.plot).__name__
        'FramePlots'
        """
        from .plot.accessor import FramePlots

        return FramePlots(self._df)

    # -- where they disagree ----------------------------------------------------------

    def conflicts(self, *, reference: str | None = None, low_overlap: float | None = 0.8,
                  distance=DEFAULTS.distance, match_threshold: float = DEFAULTS.match_threshold,
                  n_chance: int = DEFAULTS.n_chance, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
                  progress: bool | None = DEFAULTS.progress) -> pd.DataFrame:
        """One row per disagreement of the within-item matching:
        :func:`iaa_frames.conflicts.conflicts`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "misser"}, seed=0)
        >>> set(df.iaa.conflicts(reference="g", n_chance=20)["kind"]) <= {"missed"}
        True
        """
        from .conflicts import conflicts

        return conflicts(self._df, reference=reference, low_overlap=low_overlap,
                         distance=distance, match_threshold=match_threshold,
                         n_chance=n_chance, seed=seed, overall=overall, progress=progress)

    def conflict_counts(self, *, reference: str | None = None,
                        low_overlap: float | None = 0.8, distance=DEFAULTS.distance,
                        match_threshold: float = DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
                        seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
                        progress: bool | None = DEFAULTS.progress) -> pd.DataFrame:
        """Conflicts per kind, class and annotator (long form, "(all)" margins):
        :func:`iaa_frames.conflicts.conflict_counts`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "misser"}, seed=0)
        >>> list(df.iaa.conflict_counts(reference="g", n_chance=20).columns)
        ['kind', 'label', 'annotator', 'count']
        """
        from .conflicts import conflict_counts

        return conflict_counts(self._df, reference=reference, low_overlap=low_overlap,
                               distance=distance, match_threshold=match_threshold,
                               n_chance=n_chance, seed=seed, overall=overall,
                               progress=progress)

    def confusion(self, *, reference: str | None = None, annotator: str | None = None,
                  normalize: bool = False, distance=DEFAULTS.distance,
                  match_threshold: float = DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
                  seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
                  progress: bool | None = DEFAULTS.progress) -> pd.DataFrame:
        """Label confusion matrix of matched pairs: :func:`iaa_frames.confusion.confusion`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "good"}, seed=0)
        >>> df.iaa.confusion(reference="g", n_chance=20).index.name
        'g'
        """
        from .confusion import confusion

        return confusion(self._df, reference=reference, annotator=annotator,
                         normalize=normalize, distance=distance,
                         match_threshold=match_threshold, n_chance=n_chance, seed=seed,
                         overall=overall, progress=progress)

    def accuracy(self, *, reference: str, n_boot: int = 0, seed: int = DEFAULTS.seed,
                 distance=DEFAULTS.distance, match_threshold: float = DEFAULTS.match_threshold,
                 n_chance: int = DEFAULTS.n_chance, overall: str = DEFAULTS.overall,
                 progress: bool | None = DEFAULTS.progress):
        """Accuracy of every annotator against a reference annotator (not agreement):
        :func:`iaa_frames.reference.accuracy`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "good"}, seed=0)
        >>> df.iaa.accuracy(reference="g", n_chance=20)["score"].dims
        ('metric', 'label', 'annotator')
        """
        from .reference import accuracy

        return accuracy(self._df, reference=reference, n_boot=n_boot, seed=seed,
                        distance=distance, match_threshold=match_threshold,
                        n_chance=n_chance, overall=overall, progress=progress)

    def item_agreement(self, *, components=("detection", "classification", "localization"),
                       low_overlap: float | None = 0.8, distance=DEFAULTS.distance,
                       match_threshold: float = DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
                       seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
                       progress: bool | None = DEFAULTS.progress) -> pd.DataFrame:
        """Per-item agreement columns indexed by ``item`` (the join key):
        :func:`iaa_frames.item_agreement.item_agreement`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, seed=0)
        >>> df.iaa.item_agreement(n_chance=20).index.name
        'item'
        """
        from .item_agreement import item_agreement

        return item_agreement(self._df, components=components, low_overlap=low_overlap,
                              distance=distance, match_threshold=match_threshold,
                              n_chance=n_chance, seed=seed, overall=overall,
                              progress=progress)


# ----------------------------------------------------------------- the plain functions


def sigma(df: pd.DataFrame, *, component: str = "localization", distance=DEFAULTS.distance,
          match_threshold=DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
          n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
          progress: bool | None = DEFAULTS.progress) -> xr.DataArray:
    """σ of one component of a frame by label and annotator: ``df.iaa.sigma(...)``.

    Localization by default. σ of two samples of distances is
    :func:`iaa_frames.stats.sigma`.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> iaf.sigma(iaf.simulate(n_items=10, seed=0), n_chance=100).dims
    ('label', 'annotator')
    """
    return df.iaa.sigma(component=component, distance=distance,
                        match_threshold=match_threshold, n_chance=n_chance, n_boot=n_boot,
                        seed=seed, overall=overall, progress=progress)


def ks(df: pd.DataFrame, *, component: str = "localization", distance=DEFAULTS.distance,
       match_threshold=DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
       n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
       progress: bool | None = DEFAULTS.progress) -> xr.DataArray:
    """KS statistic of one component of a frame by label and annotator: ``df.iaa.ks(...)``.

    The KS test of two samples of distances is :func:`iaa_frames.stats.ks`.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> iaf.ks(iaf.simulate(n_items=10, seed=0), n_chance=100).name
    'ks'
    """
    return df.iaa.ks(component=component, distance=distance,
                     match_threshold=match_threshold, n_chance=n_chance, n_boot=n_boot,
                     seed=seed, overall=overall, progress=progress)


def alpha(df: pd.DataFrame, *, component: str = "classification", distance=DEFAULTS.distance,
          match_threshold=DEFAULTS.match_threshold, n_chance: int = DEFAULTS.n_chance,
          n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
          progress: bool | None = DEFAULTS.progress) -> xr.DataArray:
    """Classification α of a frame by label and annotator: ``df.iaa.alpha(...)``.

    Krippendorff's α of any reliability data is :func:`iaa_frames.nominal_alpha`.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> iaf.alpha(iaf.simulate(n_items=10, seed=0), n_chance=100).dims
    ('label', 'annotator')
    """
    return df.iaa.alpha(component=component, distance=distance,
                        match_threshold=match_threshold, n_chance=n_chance, n_boot=n_boot,
                        seed=seed, overall=overall, progress=progress)

