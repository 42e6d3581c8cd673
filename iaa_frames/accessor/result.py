"""``res.iaa``: the views and figures of an agreement result, with no recomputation.

Registered on every :class:`xarray.Dataset` when :mod:`iaa_frames` is imported. The views
slice the Dataset (:mod:`iaa_frames.api.shortcuts`) or read it (:mod:`iaa_frames.explore.views`,
:func:`iaa_frames.report.reading`);
the views that need the pair tables (pairwise, items, distributions) find them in
:mod:`iaa_frames.core.engine.memo` through the result's ``tables_key`` attr while they are cached,
or take them from :meth:`ResultAccessor.use_tables`.
"""

from __future__ import annotations

import html

import pandas as pd
import xarray as xr

from iaa_frames.api.methods import doc_from, keywords_checked
from iaa_frames.api.results import items_of
from iaa_frames.api.shortcuts import alpha_of, ks_of, sigma_of
from iaa_frames.core.engine import memo as cache
from iaa_frames.core.engine import resolve
from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.explore.compact import AgreementTable, agreement_table
from iaa_frames.explore.views import by_annotator, by_label, check_top, headline
from iaa_frames.frame.schema import ALL
from iaa_frames.report import reading
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, check_int
from iaa_frames.settings.thresholds import has_threshold_dim
from iaa_frames.settings.validation import ANNOTATORS

__all__ = ["ResultAccessor", "method_table"]


_RESULT_METHODS = {
    "headline()": "the four components pooled over labels and annotators",
    "by_label()": "every class, one column group per component",
    "by_annotator()": "every annotator, one column group per component",
    "table(by=...)": "compact table per label, annotator or pair: 0.86 [0.81, 0.89], notes",
    "sigma()": "sigma of a component (localization by default), (label, annotator)",
    "ks()": "KS statistic of a component, (label, annotator)",
    "alpha()": "classification alpha (or presence alpha), (label, annotator)",
    "pairwise()": "annotator x annotator agreement (needs the cached tables)",
    "items()": "per-item drilldown (needs the cached tables)",
    "reading()": "the plain-language reading of the numbers",
    "plot": "figures: res.iaa.plot.<name>(...)",
}


def method_table(methods: dict) -> str:
    """The rows of an HTML table of ``{".method()": "what it gives"}`` (the accessors'
    ``_repr_html_``).

    Examples
    --------
    >>> method_table({"sigma()": "σ < 1"})
    '<tr><td><code>.sigma()</code></td><td>σ &lt; 1</td></tr>'
    """
    return "".join(
        f"<tr><td><code>.{html.escape(n)}</code></td><td>{html.escape(w)}</td></tr>"
        for n, w in methods.items()
    )


def method_lines(methods: dict) -> list[str]:
    """The lines of the accessors' text ``repr``: one ``.method()  what it gives`` each,
    aligned.

    Examples
    --------
    >>> method_lines({"sigma()": "σ", "table()": "the compact table"})
    ['  .sigma() σ', '  .table() the compact table']
    """
    width = max(map(len, methods))
    return [f"  .{name:<{width}} {what}" for name, what in methods.items()]


class ResultAccessor:
    """Views and figures of an agreement result: ``res.iaa``.

    The numbers are chance-corrected agreement: σ = 1 − mean(within-item distance) /
    mean(chance distance) for detection, localization and overall (1 perfect, 0 what
    annotations of unrelated items give, below 0 systematic disagreement; never clipped)
    and α for the labels (classification: the label disagreement of matched pairs
    against that of matched chance pairs; Krippendorff's own α is ``label_alpha``). ``table(by=...)`` shows them
    with their 95% intervals and the reason of every "n/a"; ``reading()`` says them in
    words.

    Nothing is recomputed: the views slice the Dataset; :meth:`pairwise`, :meth:`items`
    and the distribution plots use the pair tables the result was computed from, which it
    carries (:mod:`iaa_frames.core.engine.carry`), or, read back from a file, finds in
    :mod:`iaa_frames.core.engine.memo` under its ``tables_key`` attr or takes from
    :meth:`use_tables`.

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
        self._attached: cache.Entry | None = None  # tables given with use_tables()

    # -- helpers
    def _check(self):
        if "agreement" in self._ds.data_vars:  # a component selected away: say so
            resolve.require_dims(self._ds, ("component",), "res.iaa")
        if "agreement" not in self._ds.data_vars or "component" not in self._ds.dims:
            raise ParameterError(
                "res.iaa works on the agreement result Dataset (dims "
                "component, label, annotator); this Dataset is not one"
            )
        return self._ds

    def _single(self, view: str, pooled=resolve.POOLED):
        """The result, which must be of one threshold (no ``threshold`` dimension), with
        its ``label`` and ``annotator`` dimensions and the ``"(all)"`` cells of ``pooled``
        (:func:`~iaa_frames.core.engine.resolve.with_pooled`)."""
        return resolve.with_pooled(resolve.one_threshold(self._check(), view), view, pooled)

    def _entry(self, view: str) -> cache.Entry:
        """The attached or cached tables of this result (and what was computed from them)."""
        if self._attached is not None:
            return self._attached
        return resolve.entry_of(self._ds, view=view)

    @keywords_checked
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
        self._attached = cache.Entry("", tables)  # not cached: it lives with this accessor
        return self

    @property
    def tables(self) -> PairTables:
        """The pair tables of this result (those it carries, or attached with
        :meth:`use_tables`)."""
        return self._entry("tables").tables

    def __repr__(self) -> str:
        ds = self._ds
        n_lab = max(ds.sizes.get("label", 1) - 1, 0)
        n_ann = max(ds.sizes.get("annotator", 1) - 1, 0)
        lines = [
            f"<res.iaa: agreement of {n_lab} class{'es' if n_lab != 1 else ''} x "
            f"{n_ann} annotator{'s' if n_ann != 1 else ''}, "
            f"n_boot={ds.attrs.get('n_boot', '?')}>"
        ]
        return "\n".join(lines + method_lines(_RESULT_METHODS))

    def _repr_html_(self) -> str:
        return (
            f"<p><b>res.iaa</b>: views and figures of this result</p><table>"
            f"{method_table(_RESULT_METHODS)}</table>"
        )

    # -- views
    @doc_from(headline)
    def headline(self):
        return headline(self._single("headline()"))

    @doc_from(by_label)
    def by_label(self):
        return by_label(self._single("by_label()", pooled=("annotator",)))

    @doc_from(by_annotator)
    def by_annotator(self):
        return by_annotator(self._single("by_annotator()", pooled=("label",)))

    @keywords_checked
    def table(
        self,
        *,
        by: str = "label",
        sort: str = "support",
        top: int | None = None,
        digits: int = 2,
        annotators=None,
    ) -> AgreementTable:
        """The compact table: one row per class, annotator or pair of annotators, one
        ``"0.86 [0.81, 0.89]"`` cell per component, integer counts and the reason of every
        "n/a" (:func:`iaa_frames.explore.compact.agreement_table`); rich display in Jupyter.

        Parameters
        ----------
        by : {"label", "annotator", "pair", "component"}, default "label"
            The rows. "pair" needs the result's pair tables (cached by
            ``df.iaa.agreement()``, or :meth:`use_tables`); its cells have no interval.
            With two annotators the "annotator" rows both equal "(all)": each of them is
            in the only pair.
        sort : {"support", "name"}, default "support"
            Most matched object pairs first, or natural order of the names ("2" before
            "10", case ignored); "(all)" first either way.
        top : int, optional
            Keep the first ``top`` rows after "(all)".
        digits : int, default 2
        annotators : sequence of str, optional
            With ``by="pair"``: whose pairs (default: all; needed beyond
            :data:`~iaa_frames.core.engine.pairwise.MAX_PAIRWISE_ANNOTATORS` annotators, as in
            :meth:`pairwise`).

        Returns
        -------
        AgreementTable
            ``.frame`` is the table shown (a DataFrame), ``.numbers`` the same rows as
            numbers.

        Examples
        --------
        >>> import iaa_frames as iaf
        >>> res = iaf.load_sample("coco").iaa.agreement(n_boot=0)
        >>> res.iaa.table(by="pair").frame.index[0]
        ('ana', 'dev')
        """
        if by == "pair":
            entry = self._entry("table(by='pair')")
            comps = [str(c) for c in self._single("table()", pooled=())["component"].values]
            data = {c: entry.pairwise_of(component=c, annotators=annotators) for c in comps}
        else:
            views = {"label": ("annotator",), "annotator": ("label",)}
            pooled = views.get(by, resolve.POOLED) if isinstance(by, str) else resolve.POOLED
            data = self._single(f"table(by={by!r})", pooled)  # a bad ``by``: said below
        return agreement_table(
            data, by=by, sort=sort, top=top, digits=digits, annotators=annotators
        )

    @keywords_checked
    def reading(self, *, max_labels: int = 8, sweep=None) -> list[str]:
        """The plain-language reading of the numbers, as the report's "Reading" section
        writes it (:func:`iaa_frames.report.reading`).

        Each line reads one thing against chance and against the other components: the
        pooled components with their level (σ: 1 perfect, 0 no better than annotations of
        unrelated items, below 0 systematic disagreement; α of the labels read with
        Krippendorff's 0.667 / 0.8); what the three components say together (e.g. "agree
        on what to annotate and how to label it, but not on how to draw it") and the
        intervals that conclusion rests on; the raw IoU against localization σ; the
        classes whose profile differs; each annotator below everybody beyond its interval
        on a component, and what that suggests.

        Parameters
        ----------
        max_labels : int, default 8
            Classes named at most per line.
        sweep : xarray.Dataset, optional
            The same corpus at several thresholds (a ``threshold`` dimension): the reading
            then says when detection and localization fall together because of τ.

        Returns
        -------
        list of str
            One sentence per line.

        Examples
        --------
        >>> import iaa_frames as iaf
        >>> res = iaf.load_sample("coco").iaa.agreement(n_boot=0)
        >>> lines = res.iaa.reading()
        >>> isinstance(lines[0], str) and any("σ" in line for line in lines)
        True
        """
        max_labels = check_int(max_labels, "max_labels", low=0)  # NaN was a raw TypeError
        ds = self._single("reading()")
        missing = [c for c in COMPONENTS if c not in {str(v) for v in ds["component"].values}]
        if missing:  # it reads the components together: a raw KeyError of xarray's before
            raise ParameterError(
                f".iaa.reading() reads the four components together; this result no longer "
                f"holds {', '.join(missing)}: read the whole result (before .sel/.isel of "
                "component)"
            )
        return reading(ds, max_labels=max_labels, sweep=sweep)

    # slices of the result: the functions of iaa_frames.api.shortcuts, built from them
    @doc_from(sigma_of)
    def sigma(
        self,
        *,
        component="localization",
    ):
        return sigma_of(self._check(), component=component)

    @doc_from(ks_of)
    def ks(
        self,
        *,
        component="localization",
    ):
        return ks_of(self._check(), component=component)

    @doc_from(alpha_of)
    def alpha(
        self,
        *,
        component="classification",
    ):
        return alpha_of(self._check(), component=component)

    @keywords_checked
    def pairwise(
        self,
        *,
        component: str = "localization",
        label: str = ALL,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int | None = None,
        annotators=None,
    ) -> xr.DataArray:
        """Annotator x annotator agreement of one component, from the result's tables
        (:func:`iaa_frames.core.engine.pairwise_from_tables`).

        Parameters
        ----------
        component : {"detection", "classification", "localization", "overall"}
        label : str, default "(all)"
        n_boot : int, default 200
            Bootstrap replicates of the ``ci_low`` / ``ci_high`` coordinates.
        seed : int, optional
            Seed of the bootstrap (default: the tables' seed).
        annotators : sequence of str, optional
            Whose pairs (default: all; needed beyond
            :data:`~iaa_frames.core.engine.pairwise.MAX_PAIRWISE_ANNOTATORS` annotators).

        Returns
        -------
        xarray.DataArray
        """
        n_boot = check_int(n_boot, "n_boot")
        seed = None if seed is None else check_int(seed, "seed")
        annotators = ANNOTATORS.check("annotators", annotators)
        return self._entry("pairwise()").pairwise_of(
            component=component, label=label, n_boot=n_boot, seed=seed, annotators=annotators
        )

    @keywords_checked
    def items(
        self,
        *,
        component: str = "localization",
        label: str = ALL,
        top: int | None = None,
        sort: str = "excess",
    ) -> pd.DataFrame:
        """Per-item drilldown from the result's tables (:func:`iaa_frames.explore.items.items`).

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
        return items_of(
            self._entry("items()"), component=component, label=label, top=check_top(top), sort=sort
        )

    @property
    def plot(self):
        """Figures of this result: ``res.iaa.plot.<name>(...)``
        (:class:`iaa_frames.plot.ResultPlots`)."""
        from iaa_frames.plot.accessor import ResultPlots  # matplotlib is imported on use

        return ResultPlots(self._check(), tables=lambda: self.tables)
