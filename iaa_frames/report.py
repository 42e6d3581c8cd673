"""A self-contained HTML report of a corpus's agreement, with the numbers as files.

:func:`report` computes the pair tables once, the agreement result (with bootstrap CIs),
the annotator x annotator tables and the per-item drilldown, draws every figure of
:mod:`iaa_frames.plot`, and writes into one directory:

* ``report.html``: one file, figures inline as SVG, no external asset (opens offline);
* ``agreement.nc``: the result Dataset (netCDF);
* ``agreement.csv`` (every cell, long form), ``headline.csv``, ``by_label.csv``,
  ``by_annotator.csv``, ``pairwise.csv`` and ``items.csv``.

:func:`reading` is the plain-language reading of the numbers (the diagnosis table,
"Reading the components together" in docs/ARCHITECTURE.md), usable on its own.
"""

from __future__ import annotations

import html
import io
import math
import re
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from . import cache
from .comparability import require_comparable
from .errors import IAAWarning, ParameterError
from .frame import ALL
from .pairs import iter_pair_tables, pair_tables
from .thresholds import check_thresholds, concat_thresholds, has_threshold_dim
from .settings import DEFAULTS

__all__ = ["GAP", "HIGH", "LOW", "SECTIONS", "against_chance", "level", "reading",
           "relative_levels", "report", "headline", "by_label", "by_annotator"]

#: Alpha at or above this reads "high": Krippendorff's (2004, *Content Analysis*, §11.4)
#: conventional threshold for relying on data. It applies to alpha only: sigma has no
#: calibrated cut-offs, so sigma is read against chance and against the other components.
HIGH = 0.8
#: Alpha below this reads "low" (Krippendorff's lowest threshold, for tentative
#: conclusions); between LOW and HIGH reads "moderate".
LOW = 2 / 3
#: In the diagnosis, a component reads as a weak point when it is more than this below the
#: best of detection, classification and localization (or not above chance). A rule of
#: thumb for comparing the components with each other, not a quality threshold.
GAP = 0.15

_COMPONENTS = ("detection", "classification", "localization", "overall")
MEASURE_OF = {"detection": "sigma", "classification": "alpha", "localization": "sigma",
              "overall": "sigma"}
_TRIAD = ("detection", "classification", "localization")
_SYMBOL = {"sigma": "σ", "alpha": "α"}
_MEANING = {
    "detection": "finding the same objects",
    "classification": "giving matched objects the same class",
    "localization": "drawing matched objects in the same place",
    "overall": "the annotations as a whole",
}
_ANNOTATOR_GAP = {  # verb phrases in the base form ("they find", "this annotator finds")
    "detection": "find different objects than the others (miss objects or add extra ones)",
    "classification": "label the objects everybody found differently (class confusion)",
    "localization": "draw the objects everybody found less precisely (loose or shifted shapes)",
    "overall": "differ from the others on the annotation as a whole",
}


# ------------------------------------------------------------------ reading the numbers


def level(value) -> str:
    """'high', 'moderate', 'low', 'below chance' or 'undefined' for an **alpha** value
    (Krippendorff's thresholds :data:`HIGH` and :data:`LOW`; not meant for sigma).

    Examples
    --------
    >>> [level(v) for v in (0.9, 0.7, 0.3, -0.1, float("nan"))]
    ['high', 'moderate', 'low', 'below chance', 'undefined']
    """
    if value is None or not math.isfinite(float(value)):
        return "undefined"
    v = float(value)
    if v < 0:
        return "below chance"
    if v < LOW:
        return "low"
    if v < HIGH:
        return "moderate"
    return "high"


def against_chance(value, ci_low=float("nan"), ci_high=float("nan")) -> str:
    """'above chance', 'chance level', 'below chance' or 'undefined': a sigma read against
    chance (0), with its bootstrap interval when there is one.

    Examples
    --------
    >>> against_chance(0.4, 0.3, 0.5), against_chance(0.1, -0.1, 0.3), against_chance(-0.2)
    ('above chance', 'chance level', 'below chance')
    """
    if value is None or not math.isfinite(float(value)):
        return "undefined"
    lo, hi = float(ci_low), float(ci_high)
    if math.isfinite(lo) and math.isfinite(hi):
        return "above chance" if lo > 0 else ("below chance" if hi < 0 else "chance level")
    v = float(value)
    return "above chance" if v > 0 else ("below chance" if v < 0 else "chance level")


def relative_levels(values: dict, cis: dict | None = None) -> dict:
    """Levels of the components for the diagnosis, relative to each other: 'low' when more
    than :data:`GAP` below the best component or not above chance, 'below chance' when
    below it, 'undefined' for NaN, 'high' otherwise.

    Examples
    --------
    >>> relative_levels({"detection": 0.9, "classification": 0.85, "localization": 0.5})
    {'detection': 'high', 'classification': 'high', 'localization': 'low'}
    """
    cis = cis or {}
    finite = [float(v) for v in values.values() if v is not None and math.isfinite(float(v))]
    best = max(finite) if finite else float("nan")
    out = {}
    for c, v in values.items():
        vs_chance = against_chance(v, *cis.get(c, (float("nan"), float("nan"))))
        if vs_chance in ("undefined", "below chance"):
            out[c] = vs_chance
        elif vs_chance == "chance level" or float(v) < best - GAP:
            out[c] = "low"
        else:
            out[c] = "high"
    return out


def _value(result, component, label=ALL, annotator=ALL, var="agreement"):
    if var not in result or component not in result["component"].values:
        return float("nan")
    return float(result[var].sel(component=component, label=label, annotator=annotator))


def _note(result, component, label=ALL, annotator=ALL) -> str:
    if "note" not in result:
        return ""
    return str(result["note"].sel(component=component, label=label,
                                  annotator=annotator).values).strip()


def _fmt(x, digits=2):
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "n/a"
    return f"{x:.{digits}f}" if math.isfinite(x) else "n/a"


def _name(result, component):
    measure = str(result["measure"].sel(component=component).values) \
        if "measure" in result.coords else ("alpha" if component == "classification" else "sigma")
    return f"{component} {_SYMBOL.get(measure, measure)}"


def _diagnose(d: str, c: str, loc: str) -> str | None:
    """The diagnosis table ("Reading the components together" in docs/ARCHITECTURE.md), on
    levels (moderate counts as neither high nor low except where noted)."""
    hi = lambda x: x == "high"  # noqa: E731
    lo = lambda x: x in ("low", "below chance")  # noqa: E731
    if loc == "below chance":
        return ("localization is below chance: systematic disagreement, most likely two "
                "incompatible drawing conventions in use (e.g. tight vs loose boxes, "
                "visible vs amodal extent).")
    if lo(d) and lo(c) and lo(loc):
        return "all three components are low: the task needs rethinking, not more annotators."
    if hi(d) and hi(c) and lo(loc):
        return ("annotators agree on what to annotate and how to label it, but not on how "
                "to draw it: the drawing guidelines are too loose (tight vs loose boxes, "
                "occluded parts).")
    if lo(d) and hi(loc):
        return ("annotators draw well what they both find, but do not find the same "
                "objects: the definition of \"an object\" is unclear (minimum size, groups, "
                "truncation).")
    if hi(d) and lo(c) and hi(loc):
        return ("annotators find and draw the same objects but label them differently: the "
                "class definitions overlap or are confusing.")
    if hi(d) and hi(c) and hi(loc):
        return ("no component stands out as the weak point (they are within "
                f"{GAP:g} of each other).")
    return None


def reading(result, *, max_labels: int = 8) -> list[str]:
    """A short plain-language reading of an agreement result (the diagnosis table of docs/ARCHITECTURE.md).

    Sigma has no conventional cut-offs, so the components are read against chance (with
    their bootstrap intervals) and against each other (:func:`relative_levels`: a
    component more than :data:`GAP` below the best one is the weak point); alpha is also
    set against Krippendorff's thresholds (:func:`level`). The pooled figures are matched
    against the diagnosis table; then the classes and annotators that stand out are named, σ and
    KS are compared (a high KS with a lower σ means a minority of items concentrates the
    disagreement), raw IoU is set beside localization σ, and undefined figures are
    explained with their ``note``.

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    max_labels : int, default 8
        Largest number of class / annotator names listed per sentence.

    Returns
    -------
    list of str
        Sentences, most important first.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement
    >>> res = agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> reading(res)[0].startswith("Detection")
    True
    """
    out = []
    comps = [c for c in _TRIAD if c in result["component"].values]
    cis = {c: (_value(result, c, var="ci_low"), _value(result, c, var="ci_high"))
           for c in _COMPONENTS}
    lv = relative_levels({c: _value(result, c) for c in _TRIAD}, cis)
    lv["overall"] = against_chance(_value(result, "overall"), *cis["overall"])
    parts = []
    for c in comps:
        v = _value(result, c)
        extra = against_chance(v, *cis[c])
        if MEASURE_OF.get(c) == "alpha" and math.isfinite(v):
            extra = f"{level(v)} by Krippendorff's thresholds"
        parts.append(f"{_name(result, c)} = {_fmt(v)} ({_MEANING[c]}; {extra})")
    first = "; ".join(parts) + "."
    out.append(first[:1].upper() + first[1:])
    diagnosis = _diagnose(lv["detection"], lv["classification"], lv["localization"])
    if diagnosis:
        out.append("Overall reading: " + diagnosis)
    else:
        weak = [c for c in _TRIAD if lv[c] in ("low", "below chance")]
        if weak:
            out.append("Overall reading: the weak point is " + " and ".join(
                f"{c} ({_MEANING[c]}, {lv[c]})" for c in weak) + ".")
    below = [c for c in _COMPONENTS if lv[c] == "below chance" and c != "localization"]
    for c in below:
        out.append(f"{c.capitalize()} is below chance ({_fmt(_value(result, c))}): "
                   "systematic disagreement, not noise.")
    for c in _TRIAD:
        lo, hi = _value(result, c, var="ci_low"), _value(result, c, var="ci_high")
        if math.isfinite(lo) and math.isfinite(hi) and lo <= 0 <= hi:
            out.append(f"The confidence interval of {c} [{_fmt(lo)}, {_fmt(hi)}] includes "
                       "0: it cannot be told apart from chance.")
    for c in _TRIAD:
        if lv[c] == "undefined":
            why = _note(result, c)
            out.append(f"{c.capitalize()} is undefined (NaN, not 0 or 1 by fiat)"
                       + (f": {why}." if why else "."))
    raw = _value(result, "localization", var="raw_iou")
    if math.isfinite(raw) and math.isfinite(_value(result, "localization")):
        out.append(f"The raw mean IoU of matched pairs is {_fmt(raw)}, the figure annotation "
                   f"tools show; corrected for chance, localization σ is "
                   f"{_fmt(_value(result, 'localization'))}.")
    for c in ("localization", "detection"):
        k = _value(result, c, var="ks") * _value(result, c, var="ks_sign")
        s = _value(result, c)
        p = _value(result, c, var="ks_pvalue")
        if math.isfinite(k) and math.isfinite(s) and k - s > 0.25 and p < 0.05:
            out.append(f"For {c}, KS ({_fmt(k)}) is well above σ ({_fmt(s)}): most pairs "
                       "agree and a minority of items concentrates the disagreement; the "
                       "hardest items below show which.")
    out.extend(_label_sentences(result, max_labels))
    out.extend(_annotator_sentences(result, max_labels))
    return out


def _listing(names, limit):
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _label_sentences(result, limit):
    """Classes grouped by diagnosis, most supported first."""
    from .plot._style import top_by_support

    labels, _ = top_by_support(result, "label", None, keep_all=False)
    if not labels:
        return []
    comps = [c for c in _TRIAD if c in result["component"].values]
    values = result["agreement"].sel(component=comps, label=labels, annotator=ALL).values
    sub = result.sel(component=comps, label=labels, annotator=ALL)
    low = sub["ci_low"].values if "ci_low" in sub else np.full(values.shape, np.nan)
    high = sub["ci_high"].values if "ci_high" in sub else np.full(values.shape, np.nan)
    groups: dict[str, list] = {}
    undefined = []
    for k, lab in enumerate(labels):
        lv = relative_levels(dict(zip(comps, values[:, k])),
                             {c: (low[i, k], high[i, k]) for i, c in enumerate(comps)})
        if "undefined" in lv.values():
            undefined.append(lab)
        text = _diagnose(lv.get("detection"), lv.get("classification"),
                         lv.get("localization"))
        if text and not text.startswith("no component stands out"):
            groups.setdefault(text, []).append(lab)
    out = []
    for text, labs in groups.items():
        out.append(f"Classes {_listing(labs, limit)}: {text}" if len(labs) > 1
                   else f"Class {labs[0]}: {text}")
    if undefined:
        out.append(f"Some figures of {len(undefined)} class(es) ({_listing(undefined, limit)}) "
                   "are undefined (too few units or no variation; see the note column).")
    return out


def _clearly_below(result, component, annotator, pooled):
    """An annotator's cell is clearly below the pooled one: its CI lies below the pooled
    value (with CIs), or it is more than 0.1 lower (without)."""
    v = _value(result, component, annotator=annotator)
    if not math.isfinite(v) or v >= pooled:
        return False
    high = _value(result, component, annotator=annotator, var="ci_high")
    if math.isfinite(high):
        return high < pooled
    return v < pooled - 0.1


def _annotator_sentences(result, limit):
    names = [str(v) for v in result["annotator"].values if str(v) != ALL]
    out = []
    if len(names) < 3:  # with two annotators, an annotator's cell is the pooled one
        return out
    for c in _TRIAD:
        pooled = _value(result, c)
        if not math.isfinite(pooled):
            continue
        worse = sorted((_value(result, c, annotator=a), a) for a in names
                       if _clearly_below(result, c, a, pooled))
        if worse:
            who = _listing([f"{a} ({_fmt(v)})" for v, a in worse], limit)
            phrase = _ANNOTATOR_GAP[c]
            if len(worse) == 1:
                verb, rest = phrase.split(" ", 1)
                subject, phrase = "this annotator", f"{verb}s {rest}"
            else:
                subject = "they"
            out.append(f"On {c}, {who} {'is' if len(worse) == 1 else 'are'} clearly below "
                       f"everybody ({_fmt(pooled)}): {subject} {phrase}.")
    return out


# ------------------------------------------------------------------------ tables


def _cell_text(v, lo, hi):
    if not math.isfinite(v):
        return "n/a"
    if math.isfinite(lo) and math.isfinite(hi):
        return f"{v:.2f} [{lo:.2f}, {hi:.2f}]"
    return f"{v:.2f}"


def headline(result) -> pd.DataFrame:
    """The four components pooled over labels and annotators.

    Returns
    -------
    pandas.DataFrame
        One row per component: ``measure``, ``agreement``, ``ci_low``, ``ci_high``,
        ``observed``, ``expected``, ``ks``, ``ks_sign``, ``ks_pvalue``, ``raw_iou``,
        ``presence_alpha``, ``frac_below_chance``, ``n_units``, ``n_chance``, ``note``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement
    >>> headline(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)).index.tolist()
    ['detection', 'classification', 'localization', 'overall']
    """
    sub = result.sel(label=ALL, annotator=ALL)
    cols = [v for v in ("agreement", "ci_low", "ci_high", "observed", "expected", "ks",
                        "ks_sign", "ks_pvalue", "raw_iou", "presence_alpha",
                        "frac_below_chance", "n_units", "n_chance", "note")
            if v in sub.data_vars]
    frame = sub[cols].to_dataframe()
    frame = frame.drop(columns=[c for c in ("label", "annotator", "threshold")
                                if c in frame.columns])
    if "measure" in frame.columns:
        frame = frame[["measure"] + [c for c in frame.columns if c != "measure"]]
    return frame


def _by(result, dim):
    other = "annotator" if dim == "label" else "label"
    sub = result.sel({other: ALL})
    frame = sub[[v for v in ("agreement", "ci_low", "ci_high", "n_units", "note")
                 if v in sub.data_vars]].to_dataframe().reset_index()
    frame = frame.drop(columns=[c for c in (other, "measure") if c in frame.columns])
    wide = frame.pivot(index=dim, columns="component")
    wide.columns = [f"{comp}_{var}" for var, comp in wide.columns]
    order = [str(v) for v in result[dim].values]
    wide = wide.reindex(order)
    comps = [str(c) for c in result["component"].values]
    cols = [f"{c}_{v}" for c in comps for v in ("agreement", "ci_low", "ci_high", "n_units",
                                                 "note") if f"{c}_{v}" in wide.columns]
    wide = wide[cols]
    wide.index.name = dim
    return wide


def by_label(result) -> pd.DataFrame:
    """Agreement of every class (pooled over annotators), one column group per component.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement
    >>> t = by_label(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100))
    >>> t.index[0], t.columns[0]
    ('(all)', 'detection_agreement')
    """
    return _by(result, "label")


def by_annotator(result) -> pd.DataFrame:
    """Agreement of every annotator (pooled over classes), one column group per component.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement
    >>> by_annotator(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)).index[0]
    '(all)'
    """
    return _by(result, "annotator")


def _html_table(frame: pd.DataFrame, *, index_name: str | None = None,
                classes: str = "") -> str:
    """An escaped HTML table; numbers right-aligned, floats with 3 decimals."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in
                   ([index_name] if index_name is not None else []) + list(frame.columns))
    columns = []
    for col in frame.columns:
        values = frame[col]
        if pd.api.types.is_bool_dtype(values):
            columns.append([(str(v), False) for v in values])
        elif pd.api.types.is_integer_dtype(values):
            columns.append([(str(v), True) for v in values])
        elif pd.api.types.is_float_dtype(values):
            columns.append([(_fmt(v, 3), True) for v in values])
        else:
            columns.append([("" if v is None else str(v), False) for v in values])
    rows = []
    for i, idx in enumerate(frame.index):
        cells = [f"<th>{html.escape(str(idx))}</th>"] if index_name is not None else []
        cells += [f"<td{' class=num' if num else ''}>{html.escape(text)}</td>"
                  for text, num in (col[i] for col in columns)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="{html.escape(classes)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _summary_table(result, dim, top):
    """Display table: agreement [CI] and n per component; top rows by support."""
    from .plot._style import top_by_support

    shown, hidden = top_by_support(result, dim, top)
    wide = _by(result, dim).reindex(shown)
    out = pd.DataFrame(index=wide.index)
    for c in [str(c) for c in result["component"].values]:
        v, lo, hi = (wide.get(f"{c}_{k}", pd.Series(np.nan, index=wide.index))
                     for k in ("agreement", "ci_low", "ci_high"))
        out[_name(result, c)] = [_cell_text(float(a), float(b), float(d))
                                 for a, b, d in zip(v, lo, hi)]
        n = wide.get(f"{c}_n_units", pd.Series(np.nan, index=wide.index))
        out[f"n ({c})"] = [str(int(x)) if math.isfinite(float(x)) else "0" for x in n]
    return out, hidden


# ------------------------------------------------------------------------- figures


def _svg(fig, name: str) -> str:
    """The figure as inline SVG markup (no XML prolog, DOCTYPE, metadata or namespaces
    declarations: the HTML parser supplies them), and close it."""
    import matplotlib
    import matplotlib.pyplot as plt

    for artist in fig.findobj():
        artist.set_gid(None)  # plot gids repeat within a figure; SVG ids must not
        if artist.get_rasterized():  # colorbars are rasterized by default: keep vectors
            artist.set_rasterized(False)
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        fig.savefig(buf, format="svg")
    plt.close(fig)
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    # ids unique across the figures of one page (matplotlib numbers them per figure)
    svg = re.sub(r'\bid="', f'id="{name}-', svg)
    svg = re.sub(r'href="#', f'href="#{name}-', svg)
    svg = svg.replace("url(#", f"url(#{name}-")
    return svg


def _plural(n: int, word: str, plural: str | None = None) -> str:
    """'1 annotator', '3 annotators', '1,200 classes'."""
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def _extremes(result, dim, component):
    """(best, worst) coordinate of ``dim`` (not "(all)") on a component, with values."""
    other = "annotator" if dim == "label" else "label"
    v = result["agreement"].sel(component=component, **{other: ALL}).to_series()
    v = v[[str(i) != ALL for i in v.index]].dropna()
    if v.empty:
        return None
    return (str(v.idxmax()), float(v.max())), (str(v.idxmin()), float(v.min()))


def _caption_forest(result):
    parts = []
    for c in ("detection", "classification", "localization"):
        ext = _extremes(result, "label", c)
        if ext and ext[0][0] != ext[1][0]:
            (hi, vh), (lo, vl) = ext
            parts.append(f"{c}: highest {hi} ({vh:.2f}), lowest {lo} ({vl:.2f})")
    raw = _value(result, "localization", var="raw_iou")
    text = ("Agreement of each class, one panel per component, with 95% bootstrap "
            "intervals; the dashed line is chance (0).")
    if parts:
        text += " " + "; ".join(parts) + "."
    if math.isfinite(raw):
        text += (f" The raw IoU panel shows the uncorrected mean IoU of matched pairs "
                 f"({raw:.2f} pooled), on its own axis.")
    return text


def _caption_annotators(result):
    names = [str(a) for a in result["annotator"].values if str(a) != ALL]
    if len(names) < 2:
        return "Only one annotator: there is no profile to compare."
    parts = []
    for c in ("detection", "classification", "localization", "overall"):
        ext = _extremes(result, "annotator", c)
        pooled = _value(result, c)
        if ext and math.isfinite(pooled) and ext[1][1] < pooled:
            parts.append(f"{c}: lowest {ext[1][0]} ({ext[1][1]:.2f} against "
                         f"{pooled:.2f} for everybody)")
    text = (f"Each of the {_plural(len(names), 'annotator')} across the components "
            "(dashed black: everybody), with 95% bootstrap intervals.")
    return text + (" " + "; ".join(parts) + "." if parts else "")


def _caption_pairwise(pw):
    texts = []
    for c, m in pw.items():
        v = m.to_series().dropna()
        v = v[[a < b for a, b in v.index]]
        if len(v):
            (a, b), (x, y) = v.idxmax(), v.idxmin()
            texts.append(f"{c}: closest pair {a}–{b} ({v.max():.2f}), furthest {x}–{y} "
                         f"({v.min():.2f})")
    return ("Agreement of every pair of annotators (hatched diagonal: an annotator with "
            "itself, no value). " + ("; ".join(texts) + "." if texts else ""))


def _caption_distributions(result, comp):
    s = _value(result, comp)
    k = _value(result, comp, var="ks") * _value(result, comp, var="ks_sign")
    n, nc = _value(result, comp, var="n_units"), _value(result, comp, var="n_chance")
    what = ("distances of matched object pairs" if comp == "localization"
            else "detection distances (1 − F1) of pairs of annotations")
    text = (f"Within-item {what} (colored) against chance: the same pipeline on "
            "annotations of different items (grey). The black segment is the KS gap.")
    if math.isfinite(s) and math.isfinite(n):
        text += (f" Pooled: σ = {s:.2f}, KS = {k:+.2f}, {int(n):,} within-item units "
                 f"against {int(nc):,} chance units.")
    return text


def _caption_items(item_table):
    if item_table.empty:
        return "No item has within-item units."
    top = item_table.iloc[0]
    return (f"Items ranked by the disagreement they carry beyond the corpus mean (units x "
            f"(item mean distance − corpus mean)); the bar is the item's own σ. First: "
            f"{top['item']} ({int(top['n_pairs'])} units, σ = {_fmt(top['sigma'])}).")


def _figures(tables, result, pw, item_table, top):
    import matplotlib.pyplot as plt

    from . import plot

    figs = []

    def add(key, title, caption, make):
        try:
            fig = make()
        except Exception as exc:  # a figure must not sink the report; say what failed
            plt.close("all")
            warnings.warn(f"the figure {title!r} could not be drawn: "
                          f"{type(exc).__name__}: {exc}", IAAWarning, stacklevel=3)
            figs.append((key, title, f'<p class="warn">This figure could not be drawn: '
                                     f"{html.escape(type(exc).__name__)}: "
                                     f"{html.escape(str(exc))}</p>", caption))
            return
        fig = getattr(fig, "figure", fig)
        figs.append((key, title, _svg(fig, key), caption))

    add("agreement", "Agreement by class", _caption_forest(result),
        lambda: plot.forest(result, top=top))
    add("decomposition", "Decomposition by class",
        "Detection, classification and localization of each class side by side, classes "
        "in order of support (matched pairs).",
        lambda: plot.decomposition(result, top=top))
    add("annotators", "Annotator profiles", _caption_annotators(result),
        lambda: plot.annotators(result, top=10))

    def heatmaps():
        comps = [c for c in ("detection", "classification", "localization") if c in pw]
        fig, axes = plt.subplots(1, len(comps), figsize=(7.0, 2.7), layout="constrained",
                                 squeeze=False)
        for k, (ax, c) in enumerate(zip(axes[0], comps)):
            plot.pairwise(pw[c], ax=ax, top=20, colorbar=k == len(comps) - 1)
            ax.set_title(f"{c} {'α' if MEASURE_OF.get(c) == 'alpha' else 'σ'}")
            if k:
                ax.set_ylabel("")
        return fig

    if tables is None:  # a report of a Dataset: no pair tables
        return figs
    add("pairwise", "Annotator pairs", _caption_pairwise(
        {c: pw[c] for c in ("detection", "classification", "localization") if c in pw}),
        heatmaps)
    for comp in ("localization", "detection"):
        add(f"distributions_{comp}", f"Distances: {comp}", _caption_distributions(result, comp),
            lambda comp=comp: plot.distributions(tables, component=comp, by="label", top=3))
    add("items", "Hardest items", _caption_items(item_table),
        lambda: plot.items(item_table, top=15))
    return figs


# -------------------------------------------------------------------------- report

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
margin:2em auto;max-width:1200px;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:.25em .55em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}thead th{background:#f3f3f3}
figure{margin:1em 0}figcaption{color:#555;font-size:.9em}
svg{max-width:100%;height:auto}.note{color:#666;font-style:italic}.warn{color:#a33}
ul.reading li{margin:.3em 0}nav a{margin-right:1em}
dl.howto dt{font-weight:600;margin-top:.5em}dl.howto dd{margin-left:1.2em;color:#333}
figure svg{max-width:900px}
"""


def _check_report_params(n_boot, top):
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ParameterError(f"n_boot must be a non-negative integer; got {n_boot!r}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ParameterError(f"top must be a positive integer; got {top!r}")


def report(df: pd.DataFrame, path, *, distance=DEFAULTS.distance, match_threshold=DEFAULTS.match_threshold,
           n_chance: int = DEFAULTS.n_chance, n_boot: int = 200, seed: int = DEFAULTS.seed,
           overall: str = DEFAULTS.overall, progress: bool | None = DEFAULTS.progress, title: str | None = None,
           top: int = 20) -> Path:
    """Write a self-contained HTML report of ``df``'s agreement into directory ``path``.

    Parameters
    ----------
    df : pandas.DataFrame or xarray.Dataset
        A tidy annotation frame; or an agreement result already computed (the Dataset
        of :func:`iaa_frames.agreement`, for instance of a dask DataFrame), whose report
        holds the reading, the headline, the classes, the annotators and their figures,
        but not the sections that need the pair tables (annotator pairs, distance
        distributions, hardest items, where they disagree); the computation parameters
        are then those recorded in the Dataset and the ones given here are not used.
    path : str or os.PathLike
        Output directory (created if missing; existing report files are overwritten).
    distance, match_threshold, n_chance, seed, overall
        As in :func:`iaa_frames.engine.agreement`. With several thresholds
        (``match_threshold=[0.3, 0.5, 0.7]``, or a result with a ``threshold``
        dimension), a "Match threshold" section shows every component against τ, and the
        rest of the report is at 0.5, or the threshold nearest it
        (:func:`iaa_frames.report_threshold.report_threshold`).
    n_boot : int, default 200
        Bootstrap replicates for the confidence intervals (0: no intervals).
    progress : bool, optional
        Progress bars (matching, bootstrap); by default only for long work.
    title : str, optional
        Report title (default "Inter-annotator agreement report").
    top : int, default 20
        Classes shown in figures and HTML tables, by support (the CSV files hold all).

    Returns
    -------
    pathlib.Path
        The path of ``report.html``. Beside it: ``agreement.nc``, ``agreement.csv``,
        ``headline.csv``, ``by_label.csv``, ``by_annotator.csv``, ``pairwise.csv``,
        ``items.csv``, ``conflicts.csv``, ``conflict_counts.csv``; with several
        thresholds, also ``thresholds.csv``, and ``agreement.nc`` / ``agreement.csv`` hold
        every threshold.

    Raises
    ------
    ParameterError
        For bad parameter values.
    OSError
        When ``path`` cannot be created or written (e.g. it is a file).

    Examples
    --------
    >>> import tempfile, iaa_frames as iaf
    >>> out = report(iaf.simulate(n_items=8, seed=0), tempfile.mkdtemp(), n_chance=50,
    ...              n_boot=0)
    >>> out.name
    'report.html'
    """
    from . import __version__
    from .engine import agreement_from_tables, pairwise_from_tables
    from .items import items as item_drilldown

    _check_report_params(n_boot, top)
    if title is not None and not isinstance(title, str):
        raise ParameterError(f"title must be a string; got {title!r}")
    out_dir = Path(path)
    if out_dir.exists() and not out_dir.is_dir():
        raise NotADirectoryError(f"{out_dir} exists and is not a directory")
    if isinstance(df, xr.Dataset):  # a result computed elsewhere (e.g. of a dask frame)
        return _report_of_result(df, out_dir, title=title, top=top, version=__version__)
    if type(df).__module__.startswith("dask"):
        raise ParameterError("report() of a dask DataFrame: compute its agreement first "
                             "(ds = iaf.agreement(ddf)) and pass the Dataset: "
                             "iaf.report(ds, path)")
    taus, scalar = check_thresholds(match_threshold)
    start = time.perf_counter()
    require_comparable(df, min_items=2, objects=True)  # a clear error, not a page of empty figures
    sweep = None
    if not scalar:  # every threshold, the frame prepared once; the page at one of them
        from .report_threshold import report_threshold

        if isinstance(df, pd.DataFrame):  # the frame's cached tables (iaa_frames.cache)
            every = (e.tables for e in cache.entries(
                df, thresholds=taus, distance=distance, n_chance=n_chance, overall=overall,
                seed=seed, progress=progress))
        else:  # one threshold's tables at a time
            every = iter_pair_tables(df, thresholds=taus, distance=distance,
                                     n_chance=n_chance, overall=overall, seed=seed,
                                     progress=progress)
        shown, parts = report_threshold(taus), []
        for t in every:
            parts.append(agreement_from_tables(t, n_boot=n_boot, seed=seed,
                                               progress=progress))
            if t.params["match_threshold"] == shown:
                tables, result = t, parts[-1]
        sweep = concat_thresholds(parts)
    elif isinstance(df, pd.DataFrame):  # the frame's cached tables (iaa_frames.cache)
        tables = df.iaa.tables(distance=distance, match_threshold=taus[0],
                               n_chance=n_chance, overall=overall, seed=seed,
                               progress=progress)
    else:
        tables = pair_tables(df, distance=distance, match_threshold=taus[0],
                             n_chance=n_chance, overall=overall, seed=seed, progress=progress)
    if scalar:
        result = agreement_from_tables(tables, n_boot=n_boot, seed=seed, progress=progress)
    pw = {c: pairwise_from_tables(tables, component=c) for c in _COMPONENTS}
    item_table = item_drilldown(tables, component="localization")
    item_detection = item_drilldown(tables, component="detection")
    figures = _figures(tables, result, pw, item_table, top)
    from .report_disagreement import disagreement_section  # "Where they disagree"

    disagree_html, disagree_files = disagreement_section(tables, svg=_svg, top=top)
    sections, threshold_files = _threshold_sections(SECTIONS, sweep, result)
    elapsed = time.perf_counter() - start
    out_dir.mkdir(parents=True, exist_ok=True)

    # files
    _write_result(sweep if sweep is not None else result, out_dir)
    head = headline(result)
    head.to_csv(out_dir / "headline.csv")
    by_label(result).to_csv(out_dir / "by_label.csv")
    by_annotator(result).to_csv(out_dir / "by_annotator.csv")
    pd.concat([p.to_dataframe().reset_index().assign(component=c)
               for c, p in pw.items()], ignore_index=True)[
        ["component", "annotator_a", "annotator_b", "agreement", "n_units", "n_chance",
         "note"]].to_csv(out_dir / "pairwise.csv", index=False)
    pd.concat([item_table.assign(component="localization"),
               item_detection.assign(component="detection")],
              ignore_index=True).to_csv(out_dir / "items.csv", index=False)
    for name, frame in {**disagree_files, **threshold_files}.items():
        frame.to_csv(out_dir / name, index=False)

    ctx = _Context(df=df, tables=tables, result=result, head=head, figures=figures,
                   item_table=item_table, item_detection=item_detection, pairwise=pw,
                   top=top, elapsed=elapsed, version=__version__,
                   disagree_html=disagree_html)
    page = _page(ctx, title or "Inter-annotator agreement report", sections=sections)
    target = out_dir / "report.html"
    target.write_text(page, encoding="utf-8")
    return target


def _params_table(result, tables, elapsed, version):
    rows = {k: result.attrs[k] for k in result.attrs}
    rows.setdefault("iaa_frames_version", version)
    rows["computed in" if tables is not None else "report made in"] = f"{elapsed:.1f} s"
    frame = pd.DataFrame({"value": [str(v) for v in rows.values()]}, index=list(rows))
    return _html_table(frame, index_name="parameter")


def _headline_html(result, head):
    rows = []
    for comp, r in head.iterrows():
        measure = _SYMBOL.get(str(r.get("measure", "")), str(r.get("measure", "")))
        ks = (f"{'+' if r.get('ks_sign', 0) > 0 else '−'}{_fmt(r['ks'])}"
              if math.isfinite(float(r.get("ks", np.nan))) else "n/a")
        rows.append({
            "component": comp, "measure": measure,
            "agreement [95% CI]": _cell_text(float(r["agreement"]), float(r["ci_low"]),
                                             float(r["ci_high"])),
            "vs chance": against_chance(r["agreement"], r["ci_low"], r["ci_high"]),
            "KS": ks, "raw IoU": _fmt(r.get("raw_iou")),
            "presence α": _fmt(r.get("presence_alpha")),
            "n units": str(int(r["n_units"])) if math.isfinite(float(r["n_units"])) else "0",
            "n chance": (str(int(r["n_chance"])) if math.isfinite(float(r["n_chance"]))
                         else "—"),
            "note": str(r.get("note", "") or ""),
        })
    frame = pd.DataFrame(rows).set_index("component")
    return _html_table(frame, index_name="component", classes="headline")


def _items_html(item_table, item_detection, n=15):
    cols = ["item", "sigma", "mean_distance", "chance_percentile", "n_pairs", "n_unmatched",
            "n_mislabeled", "n_annotators", "n_objects"]
    parts = []
    for name, t in (("localization", item_table), ("detection", item_detection)):
        parts.append(f"<h3>{html.escape(name)}</h3>")
        parts.append(_html_table(t[cols].head(n).set_index("item"), index_name="item",
                                 classes="items"))
    return "".join(parts)


_HOW_TO_READ = """
<dl class=howto>
<dt>σ (sigma)</dt><dd>1 − mean within-item distance / mean chance distance. The chance
distance is what the <em>same</em> pipeline gives for annotations of two different items by
two different annotators. 1: perfect agreement; 0: no better than annotations of unrelated
items; negative: systematic disagreement (never clipped). Used for detection (distance
1 − F1 of the matching of two annotators' objects), localization (distance of matched
object pairs) and overall (Braylan et al.'s set distance). σ has no conventional
thresholds: read it against chance (its interval) and against the other components.</dd>
<dt>α (alpha)</dt><dd>Krippendorff's alpha of the labels of matched objects (clusters with at
least two members): 1 − observed / expected label disagreement. Krippendorff's conventions:
α ≥ 0.8 to rely on the data, ≥ 0.667 for tentative conclusions; they apply to α only.</dd>
<dt>KS</dt><dd>Kolmogorov–Smirnov statistic of the within-item against the chance
distances: the largest gap between their cumulative distributions (0 to 1), signed + when
within-item distances are smaller (agreement). A KS well above σ means most pairs agree
and a minority of items carries the disagreement.</dd>
<dt>n units</dt><dd>Within-item units behind a figure: pairs of annotations of an item
(detection, overall), matched object pairs (localization), clusters with at least two
members (classification).</dd>
<dt>n chance</dt><dd>Distinct chance units (pairs of annotations of different items, or
their matched object pairs) behind the expected disagreement.</dd>
<dt>95% CI</dt><dd>Cluster-bootstrap interval: items resampled with replacement.</dd>
<dt>raw IoU</dt><dd>Mean IoU of matched pairs, uncorrected: the figure annotation tools
show. An easy corpus gives a high raw IoU to annotators who never looked at the image;
σ does not.</dd>
<dt>presence α</dt><dd>Nominal α over clusters with the values present/absent, shown for
comparison with tools that report it. It is not the detection figure because it is broken
by construction: a cluster exists only because somebody drew it, so no unit is ever
absent for everybody, and with independent misses presence α is about 0 whatever the miss
rate (2% or 30%). Detection σ compares with chance instead.</dd>
<dt>chance_percentile (items)</dt><dd>Share of chance distances at or below the item's mean
distance: 0.4 means the item's average pair is as far apart as the 40th percentile of
unrelated pairs.</dd>
</dl>
"""


class _Context:
    """Everything a report section may draw on (see :data:`SECTIONS`)."""

    def __init__(self, **values):
        self.__dict__.update(values)


def _section_reading(ctx):
    return "<ul class=reading>" + "".join(
        f"<li>{html.escape(x)}</li>" for x in reading(ctx.result)) + "</ul>"


def _section_how_to_read(ctx):
    return _HOW_TO_READ


def _section_headline(ctx):
    return _headline_html(ctx.result, ctx.head)


def _section_figures(ctx):
    return "".join(
        f'<figure id="fig-{html.escape(key)}"><h3>{html.escape(ftitle)}</h3>{body}'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        for key, ftitle, body, caption in ctx.figures)


def _section_by_label(ctx):
    table, hidden = _summary_table(ctx.result, "label", ctx.top)
    note = (f'<p class=note>{_plural(hidden, "more class", "more classes")} not shown (top '
            f"{ctx.top} by support); by_label.csv holds all.</p>") if hidden else ""
    return _html_table(table, index_name="class") + note


def _section_by_annotator(ctx):
    table, hidden = _summary_table(ctx.result, "annotator", 50)
    note = (f'<p class=note>{_plural(hidden, "more annotator")} not shown; by_annotator.csv '
            "holds all.</p>") if hidden else ""
    return _html_table(table, index_name="annotator") + note


def _section_items(ctx):
    return ("<p>Items ranked by the disagreement they carry beyond the corpus mean "
            "(<em>excess</em> = units × (item mean distance − corpus mean)); <em>sigma</em> "
            "is the item's own agreement, <em>n_unmatched</em> its objects no other "
            "annotator matched, <em>n_mislabeled</em> its clusters with conflicting labels. "
            "All items: items.csv.</p>" + _items_html(ctx.item_table, ctx.item_detection))


def _section_parameters(ctx):
    more = ("" if ctx.tables is None else
            ", pairwise.csv, items.csv, conflicts.csv, conflict_counts.csv")
    return (_params_table(ctx.result, ctx.tables, ctx.elapsed, ctx.version)
            + "<p>Files: agreement.nc (the result Dataset), agreement.csv, headline.csv, "
              f"by_label.csv, by_annotator.csv{more}.</p>")


#: The sections of the report page, in order: ``(id, title, builder)``; a builder takes
#: the report context (``df``, ``tables``, ``result``, ``head``, ``figures``,
#: ``item_table``, ``item_detection``, ``pairwise``, ``top``, ...) and returns HTML. To add
#: a section, insert an entry (e.g. before "parameters").
SECTIONS = [
    ("summary", "Reading", _section_reading),
    ("how-to-read", "How to read this", _section_how_to_read),
    ("headline", "Headline", _section_headline),
    ("figures", "Figures", _section_figures),
    ("by-label", "By class", _section_by_label),
    ("by-annotator", "By annotator", _section_by_annotator),
    ("items", "Hardest items", _section_items),
    ("disagree", "Where they disagree", lambda ctx: ctx.disagree_html),
    ("parameters", "Parameters", _section_parameters),
]


def _page(ctx, title, *, intro=None, sections=None):
    if intro is None:
        c = ctx.tables.corpus
        n_obj = len(c.objects)
        n_cov = len(ctx.df) - n_obj
        intro = (f"{_plural(len(c.items), 'item')}, {_plural(len(c.annotators), 'annotator')}, "
                 f"{_plural(len(c.labels), 'class', 'classes')}, {_plural(n_obj, 'object')} "
                 f"and {_plural(n_cov, 'coverage row')} (an annotator reviewed an item and "
                 "drew nothing).")
    sections = [(sid, name, build(ctx)) for sid, name, build in (sections or SECTIONS)]
    nav = "<nav>" + "".join(f'<a href="#{sid}">{html.escape(name)}</a>'
                            for sid, name, _ in sections) + "</nav>"
    body = "".join(f'<section id="{sid}"><h2>{html.escape(name)}</h2>{content}</section>'
                   for sid, name, content in sections)
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            '<meta name=viewport content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(intro)}</p>{nav}{body}"
            f"<footer><p class=note>iaa_frames {html.escape(str(ctx.version))}</p></footer>"
            "</body></html>\n")


#: Sections of a report made from an agreement Dataset alone (no pair tables).
RESULT_SECTIONS = [entry for entry in SECTIONS if entry[0] in (
    "summary", "how-to-read", "headline", "figures", "by-label", "by-annotator",
    "parameters")]


def _report_of_result(result, out_dir: Path, *, title, top, version) -> Path:
    """:func:`report` of an agreement Dataset: what needs only the Dataset."""
    missing = [v for v in ("agreement", "ci_low", "ci_high", "n_units", "note")
               if v not in result.data_vars]
    if missing or not {"component", "label", "annotator"} <= set(result.dims):
        raise ParameterError("report() takes a tidy annotation frame or the Dataset of "
                             f"iaa_frames.agreement(); this Dataset lacks {missing or 'its dims'}")
    start = time.perf_counter()
    sweep = None
    if has_threshold_dim(result):  # a sweep: the page at one threshold, plus the curve
        from .report_threshold import report_threshold

        sweep = result
        result = sweep.sel(threshold=report_threshold(sweep["threshold"].values))
    sections, threshold_files = _threshold_sections(RESULT_SECTIONS, sweep, result)
    figures = _figures(None, result, {}, None, top)
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_result(sweep if sweep is not None else result, out_dir)
    for name, frame in threshold_files.items():
        frame.to_csv(out_dir / name, index=False)
    head = headline(result)
    head.to_csv(out_dir / "headline.csv")
    by_label(result).to_csv(out_dir / "by_label.csv")
    by_annotator(result).to_csv(out_dir / "by_annotator.csv")
    ctx = _Context(df=None, tables=None, result=result, head=head, figures=figures,
                   top=top, elapsed=time.perf_counter() - start, version=version)
    n_lab, n_ann = result.sizes["label"] - 1, result.sizes["annotator"] - 1
    intro = (f"{_plural(n_ann, 'annotator')} and {_plural(n_lab, 'class', 'classes')}, from "
             "an agreement result computed beforehand. The annotator pairs, the distance "
             "distributions, the hardest items and where annotators disagree need the pair "
             "tables: report() of the annotation frame itself shows them.")
    page = _page(ctx, title or "Inter-annotator agreement report", intro=intro,
                 sections=sections)
    target = out_dir / "report.html"
    target.write_text(page, encoding="utf-8")
    return target


def _write_result(result, out_dir: Path) -> None:
    """agreement.nc and agreement.csv (every cell, long form; a threshold column for a
    sweep)."""
    result.to_netcdf(out_dir / "agreement.nc")
    result.to_dataframe().reset_index().to_csv(out_dir / "agreement.csv", index=False)


def _threshold_sections(sections, sweep, result):
    """The report's sections, with "Match threshold" after the headline when ``sweep``
    (a result with a threshold dimension) is given; and the files of that section."""
    if sweep is None:
        return sections, {}
    from .report_threshold import threshold_section

    body, files = threshold_section(sweep, svg=_svg, shown_at=float(result["threshold"]))
    out = []
    for entry in sections:
        out.append(entry)
        if entry[0] == "headline":
            out.append(("threshold", "Match threshold", lambda ctx, body=body: body))
    return out, files

