"""The compact table of an agreement result: one row per class, annotator or pair of
annotators, one ``"0.86 [0.81, 0.89]"`` cell per component, integer counts, the reason of
every missing number, sorted by support. Over 400 lines: the table, the DataFrame it is
and its HTML view are one idea.

:func:`agreement_table` builds it from the result Dataset (``by="label"``,
``"annotator"`` or ``"component"``) or from the annotator x annotator matrices of
:func:`iaa_frames.pairwise` (``by="pair"``); :class:`AgreementTable` holds it and shows it
as text (``repr``) and as HTML in Jupyter (``_repr_html_``: the reason of an "n/a" on
hover and in the notes column). ``res.iaa.table(by=...)`` is the way in.

:func:`natural_key` sorts names the way people read them: ``"2"`` before ``"10"``,
``"air_conditioner"`` before ``"Christmas_tree"``.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.frame.names import natural_key
from iaa_frames.frame.schema import ALL

from .views import check_choice, check_dataset, check_top, measure_of, symbol

__all__ = ["COUNT_COLUMNS", "AgreementTable", "agreement_table", "numeric_text", "pair_numbers"]

#: The rows of each ``by``.
BY = ("label", "annotator", "pair", "component")

_VARS = ("agreement", "ci_low", "ci_high", "n_units", "note")
#: The count columns of the table (and of the report's tables): component -> column;
#: its ``n_units``.
COUNT_COLUMNS = {
    "detection": "pairings",
    "localization": "matched pairs",
}


#: A number as text ("207", "1,204", "+0.96", "−0.10", "12%", "0.86 [0.81, 0.89]"), and
#: what stands for a missing one.
_NUMBER = re.compile(r"[+\-−]?\d[\d,]*(\.\d+)?( ?%)?( \[[+\-−]?\d[\d.,]*, [+\-−]?\d[\d.]*\])?")
_MISSING = {"", "n/a", "—", "-", "nan"}


def numeric_text(texts) -> bool:
    """Whether a text column holds numbers (and missing marks) only, at least one number:
    it is then right-aligned, as a numeric column is.

    Examples
    --------
    >>> numeric_text(["+0.96", "n/a", "0.86 [0.81, 0.89]", "1,204", "0.97 %"])
    True
    >>> numeric_text(["above chance", "0.5"]), numeric_text(["n/a", ""])
    (False, False)
    """
    numbers = [t.strip() for t in texts if t.strip() not in _MISSING]
    return bool(numbers) and all(_NUMBER.fullmatch(t) for t in numbers)


def _cells(v, lo, hi, digits: int) -> np.ndarray:
    """``"0.86 [0.81, 0.89]"``, ``"0.86"`` without an interval, ``"n/a"`` (vectorized)."""
    v, lo, hi = (np.asarray(x, dtype=float) for x in (v, lo, hi))
    f = np.vectorize(lambda x: f"{x:.{digits}f}", otypes=[object])
    out = np.full(v.shape, "n/a", dtype=object)
    ok = np.isfinite(v)
    if ok.any():
        out[ok] = f(v[ok])
        ci = ok & np.isfinite(lo) & np.isfinite(hi)
        if ci.any():
            out[ci] = out[ci] + " [" + f(lo[ci]) + ", " + f(hi[ci]) + "]"
    return out


class AgreementTable(pd.DataFrame):
    """A compact agreement table (:func:`agreement_table`): a pandas DataFrame of text cells
    (``to_csv``, ``to_latex``, ``.loc``, ``[]`` work as on any frame), shown in Jupyter
    with its title, right-aligned numbers and the reason of every "n/a" on hover.

    The columns: one per component (``"0.86 [0.81, 0.89]"``, ``"0.86"`` without an
    interval, ``"n/a"`` where undefined), the integer counts, and ``notes``: the reason of
    every "n/a" and of every value shown without an interval
    (``"localization: too few chance units (n=27: ...)"``).

    Attributes
    ----------
    numbers : pandas.DataFrame
        The same rows as numbers: columns ``(component, var)`` for ``agreement``,
        ``ci_low``, ``ci_high``, ``n_units`` and ``note``.
    title : str
        What the rows are and how they are sorted.
    n_hidden : int
        Rows left out by ``top``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.load_sample("coco").iaa.agreement(n_boot=0).iaa.table()
    >>> isinstance(t, pd.DataFrame), t.loc["car", "pairings"] > 0
    (True, np.True_)
    >>> t.to_csv().splitlines()[0]
    'label,detection,classification,localization,overall,pairings,matched pairs,notes'
    """

    _metadata = ["numbers", "title", "n_hidden"]

    def __init__(self, data=None, *args, numbers=None, title: str = "", n_hidden: int = 0, **kw):
        super().__init__(data, *args, **kw)
        if numbers is not None or not hasattr(self, "numbers"):
            self.numbers = numbers if numbers is not None else pd.DataFrame(index=self.index)
            self.title = title
            self.n_hidden = int(n_hidden)

    @property
    def _constructor(self):
        return AgreementTable

    @property
    def _constructor_sliced(self):
        return pd.Series

    @property
    def frame(self) -> pd.DataFrame:
        """The table as a plain :class:`pandas.DataFrame` (a copy)."""
        return pd.DataFrame(self).copy()

    def to_frame(self) -> pd.DataFrame:
        """The table as a plain :class:`pandas.DataFrame` (a copy)."""
        return self.frame

    def _footer(self) -> str:
        return f"+ {self.n_hidden:,} more rows not shown" if self.n_hidden else ""

    def __repr__(self) -> str:
        with pd.option_context(
            "display.max_columns", None, "display.width", 200, "display.max_colwidth", 90
        ):
            body = pd.DataFrame(self).to_string()
        return "\n".join(x for x in (self.title, body, self._footer()) if x)

    def _repr_html_(self) -> str:
        frame = pd.DataFrame(self)
        numbers = self.numbers.reindex(frame.index) if len(self.numbers.columns) else None
        if numbers is None:  # built by hand: pandas' own view
            return frame._repr_html_()
        comps = [c for c in frame.columns if c in numbers.columns.get_level_values(0)]
        index_names = [n or "" for n in frame.index.names]
        # names left-aligned (the row names and the notes), numbers right-aligned with
        # their headers (Jupyter centres a header and right-aligns a row name by default)
        left = "text-align:left"
        right = "text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap"
        head = "".join(f'<th style="{left}">{html.escape(str(n))}</th>' for n in index_names)
        num = {c: c in comps or numeric_text(frame[c].astype(str)) for c in frame.columns}
        align = {c: right if num[c] and c != "notes" else left for c in frame.columns}
        head += "".join(f'<th style="{align[c]}">{html.escape(str(c))}</th>' for c in frame.columns)
        rows = []
        for i, idx in enumerate(frame.index):
            keys = idx if isinstance(idx, tuple) else (idx,)
            cells = "".join(f'<th style="{left}">{html.escape(str(k))}</th>' for k in keys)
            for col in frame.columns:
                text = str(frame[col].iloc[i])
                if col in comps:
                    reason = str(numbers[(col, "note")].iloc[i] or "")
                    tip = f' title="{html.escape(reason)}"' if reason else ""
                    mark = "<sup>*</sup>" if reason and text == "n/a" else ""
                    cells += f'<td style="{right}"{tip}>{html.escape(text)}{mark}</td>'
                elif col == "notes":
                    cells += (
                        f'<td style="{left};font-size:smaller;color:#555">{html.escape(text)}</td>'
                    )
                else:
                    cells += f'<td style="{align[col]}">{html.escape(text)}</td>'
            rows.append(f"<tr>{cells}</tr>")
        foot = self._footer()
        caption = html.escape(self.title) + (
            f"<br><small>{html.escape(foot)}</small>" if foot else ""
        )
        return (
            f'<table class="iaa-table"><caption style="caption-side:top;text-align:left">'
            f"{caption}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )


def pair_numbers(matrices: dict) -> pd.DataFrame:
    """The annotator pairs of pairwise matrices, one row per unordered pair.

    Parameters
    ----------
    matrices : dict
        ``component -> DataArray`` of :func:`iaa_frames.pairwise` (dims annotator_a,
        annotator_b; ``n_units`` and ``note`` coordinates).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``(annotator_a, annotator_b)`` with a < b (natural order); columns
        ``(component, var)``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=10, annotators={"a": "good", "b": "good", "c": "good"}, seed=0)
    >>> m = {"detection": iaf.pairwise(df, component="detection", n_chance=100)}
    >>> pair_numbers(m).index.tolist()
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    parts = {}
    index = None
    for comp, m in matrices.items():
        rows, cols = m.dims
        a = np.asarray([str(v) for v in m[rows].values], dtype=object)
        b = np.asarray([str(v) for v in m[cols].values], dtype=object)
        ia, ib = np.triu_indices(len(a), k=1)
        ka = [natural_key(x) for x in a]
        swap = np.asarray([ka[i] > ka[j] for i, j in zip(ia, ib)], dtype=bool)
        first = np.where(swap, b[ib], a[ia])
        second = np.where(swap, a[ia], b[ib])
        here = pd.MultiIndex.from_arrays([first, second], names=["annotator_a", "annotator_b"])
        data = {}
        for var in _VARS:
            if var == "agreement":
                values = np.asarray(m.values)
            elif var in m.coords and m[var].dims == m.dims:
                values = np.asarray(m[var].values)
            else:
                values = np.full(m.shape, "" if var == "note" else np.nan, dtype=object)
            col = values[ia, ib]
            data[(comp, var)] = col.astype(object) if var == "note" else col.astype(float)
        parts[comp] = pd.DataFrame(data, index=here)
        index = here if index is None else index.union(here)
    out = pd.concat(list(parts.values()), axis=1) if parts else pd.DataFrame()
    if len(out):
        order = sorted(range(len(out)), key=lambda i: tuple(natural_key(k) for k in out.index[i]))
        out = out.iloc[order]
    return out


def _result_numbers(result, by: str) -> pd.DataFrame:
    """Columns ``(component, var)`` per class / annotator / component of the result."""
    comps = [str(c) for c in result["component"].values]
    if by == "component":
        sub = result.sel(label=ALL, annotator=ALL)
        data = {}
        for var in _VARS:
            if var in sub:
                data[var] = np.asarray(sub[var].values)
        frame = pd.DataFrame(data, index=pd.Index(comps, name="component"))
        return frame
    other = "annotator" if by == "label" else "label"
    sub = result.sel({other: ALL})
    names = [str(v) for v in sub[by].values]
    data = {}
    for c in comps:
        cell = sub.sel(component=c)
        for var in _VARS:
            if var in cell:
                data[(c, var)] = np.asarray(cell[var].values)
            else:
                data[(c, var)] = np.full(len(names), "" if var == "note" else np.nan, object)
    return pd.DataFrame(data, index=pd.Index(names, name=by))


def _support(numbers: pd.DataFrame) -> np.ndarray:
    """Localization ``n_units`` (matched object pairs), else the largest ``n_units``."""
    comps = list(dict.fromkeys(numbers.columns.get_level_values(0)))
    if "localization" in comps:
        s = numbers[("localization", "n_units")].to_numpy(dtype=float)
    else:
        s = np.nanmax(
            np.column_stack([numbers[(c, "n_units")].to_numpy(dtype=float) for c in comps]),
            axis=1,
        )
    return np.nan_to_num(s)


def agreement_table(
    data,
    *,
    by: str = "label",
    sort: str = "support",
    top: int | None = None,
    digits: int = 2,
    annotators=None,
) -> AgreementTable:
    """The compact table of an agreement result.

    Parameters
    ----------
    data : xarray.Dataset or dict
        The agreement result (``by`` "label", "annotator" or "component"), or for
        ``by="pair"`` the pairwise matrices ``{component: DataArray}`` of
        :func:`iaa_frames.pairwise` (``res.iaa.table(by="pair")`` computes them).
    by : {"label", "annotator", "pair", "component"}, default "label"
        The rows: every class (pooled over annotators), every annotator (pooled over
        classes; with two annotators both rows equal "(all)", since each of them is in
        every pair), every pair of annotators, or the four components pooled.
    sort : {"support", "name"}, default "support"
        "support": most matched object pairs (localization ``n_units``) first, ties in
        natural order of the names; "name": natural order (``"2"`` before ``"10"``, case
        ignored). "(all)" is always first.
    top : int, optional
        Keep the first ``top`` rows (after "(all)"); :attr:`AgreementTable.n_hidden`
        counts the others.
    digits : int, default 2
    annotators : sequence of str, optional
        With ``by="pair"``: the pairs among these annotators only
        (``res.iaa.table(by="pair", annotators=...)`` computes only those, as
        :func:`iaa_frames.pairwise` does beyond 1,000 annotators).

    Returns
    -------
    AgreementTable
        ``frame``: one column per component (``"0.86 [0.81, 0.89]"``: the agreement, σ or
        α, and its 95% interval; ``"n/a"`` where undefined), ``pairings`` (detection
        ``n_units``: pairings of two annotations of an item), ``matched pairs``
        (localization ``n_units``: matched object pairs), and ``notes`` (the reason of each
        "n/a", from the result's ``note``). For ``by="component"`` the columns are
        ``measure``, ``agreement``, ``n units`` and ``notes``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.load_sample("coco").iaa.agreement(n_boot=0)
    >>> t = agreement_table(res, by="annotator")
    >>> t.frame.index.tolist()
    ['(all)', 'dev', 'ana', 'chloe', 'ben']
    >>> t.frame.loc["ben", "localization"], t.frame.loc["ben", "notes"]
    ('0.21', '')
    >>> t.frame["matched pairs"].dtype
    dtype('int64')
    """
    check_choice("by", by, BY)
    check_choice("sort", sort, ("support", "name"))
    top = check_top(top)
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 0:
        raise ParameterError(f"digits must be a non-negative integer; got {digits!r}")
    if annotators is not None and by != "pair":
        raise ParameterError(f"annotators= chooses the pairs of by='pair'; got by={by!r}")
    if by == "pair":
        if not isinstance(data, dict) or not data:
            raise ParameterError(
                "by='pair' needs the pairwise matrices {component: DataArray}; "
                "use res.iaa.table(by='pair')"
            )
        if annotators is not None:
            keep = [str(a) for a in annotators]
            data = {
                c: m.sel(
                    annotator_a=m["annotator_a"].isin(keep), annotator_b=m["annotator_b"].isin(keep)
                )
                for c, m in data.items()
            }
        numbers = pair_numbers(data)
        result = None
    else:
        result = check_dataset(data, ("agreement",))
        numbers = _result_numbers(result, by)
    if by == "component":
        return _component_table(result, numbers, digits)
    comps = list(dict.fromkeys(numbers.columns.get_level_values(0)))
    names = list(numbers.index)
    is_all = np.asarray([n == ALL for n in names], dtype=bool)
    keys = [natural_key(n) for n in names]
    natural = np.empty(len(names), dtype=int)
    natural[sorted(range(len(names)), key=keys.__getitem__)] = np.arange(len(names))
    if sort == "support":
        order = np.lexsort((natural, -_support(numbers), ~is_all))
    else:
        order = np.lexsort((natural, ~is_all))
    numbers = numbers.iloc[order]
    n_all = int(is_all.sum())
    hidden = 0
    if top is not None and len(numbers) - n_all > top:
        hidden = len(numbers) - n_all - top
        numbers = numbers.iloc[: n_all + top]
    frame = pd.DataFrame(index=numbers.index)
    notes = np.full(len(numbers), "", dtype=object)
    for c in comps:
        v = numbers[(c, "agreement")].to_numpy(dtype=float)
        frame[c] = _cells(v, numbers[(c, "ci_low")], numbers[(c, "ci_high")], digits)
        reason = numbers[(c, "note")].fillna("").astype(str).to_numpy(dtype=object)
        no_ci = ~np.isfinite(numbers[(c, "ci_low")].to_numpy(dtype=float))
        missing = (~np.isfinite(v) | no_ci) & (reason != "") & (reason != "not applicable")
        add = np.where(missing, c + ": " + reason, "")
        notes = np.where((notes != "") & (add != ""), notes + "; " + add, notes + add)
    for c, name in COUNT_COLUMNS.items():
        if c in comps:
            n = numbers[(c, "n_units")].to_numpy(dtype=float)
            frame[name] = np.nan_to_num(n).astype(np.int64)
    frame["notes"] = notes
    what = {"label": "class", "annotator": "annotator", "pair": "pair of annotators"}[by]
    measures = ", ".join(
        f"{c} {symbol(measure_of(result, c) if result is not None else _measure(data, c))}"
        for c in comps
    )
    order_text = (
        "most matched pairs first" if sort == "support" else "in natural order of the names"
    )
    has_ci = any(np.isfinite(numbers[(c, "ci_low")].to_numpy(dtype=float)).any() for c in comps)
    values = "agreement [95% CI]" if has_ci else "agreement (no interval)"
    title = f"{values} per {what} ({measures}); {order_text}"
    return AgreementTable(frame, numbers=numbers, title=title, n_hidden=hidden)


def _measure(matrices: dict, component: str) -> str:
    m = matrices[component]
    if "measure" in m.attrs:
        return str(m.attrs["measure"])
    if "measure" in m.coords and m["measure"].ndim == 0:
        return str(m["measure"].values)
    return "alpha" if component == "classification" else "sigma"


def _component_table(result, numbers: pd.DataFrame, digits: int) -> AgreementTable:
    comps = list(numbers.index)
    frame = pd.DataFrame(index=numbers.index)
    frame["measure"] = [symbol(measure_of(result, c)) for c in comps]
    frame["agreement"] = _cells(numbers["agreement"], numbers["ci_low"], numbers["ci_high"], digits)
    frame["n units"] = np.nan_to_num(numbers["n_units"].to_numpy(dtype=float)).astype(np.int64)
    frame["notes"] = numbers["note"].fillna("").astype(str).to_numpy(dtype=object)
    # the numbers under the one "agreement" column (its reason on hover in HTML)
    shaped = pd.DataFrame(
        {("agreement", v): numbers[v] for v in _VARS if v in numbers}, index=numbers.index
    )
    return AgreementTable(
        frame,
        numbers=shaped,
        title="agreement [95% CI] of each component, pooled over classes and annotators",
    )
